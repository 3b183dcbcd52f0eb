"""Shared plumbing of the data scripts: import the package from this checkout if it is not installed,
and turn a `VideodenoiseError` into one line on stderr and exit status 1."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

try:
    import videodenoise  # noqa: F401
except ImportError:  # running from a checkout without `pip install -e .`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from videodenoise.errors import VideodenoiseError  # noqa: E402


def run(main: Callable[[], object]) -> None:
    try:
        main()
    except VideodenoiseError as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:
        print("interrupted; run again to resume the download.", file=sys.stderr)
        sys.exit(130)


def download_script(dataset: str, description: str, done: str) -> None:
    """The whole of a dataset script: `--root`, `--no-verify`, `--quiet`, then `download_dataset`."""
    import argparse

    def main() -> None:
        parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
        parser.add_argument(
            "--root", type=Path, default=Path("data"), help="folder for the archives and the dataset (default: data)"
        )
        parser.add_argument(
            "--no-verify", action="store_true", help="skip the sha256 check (only if the server's copy changed)"
        )
        parser.add_argument("--quiet", action="store_true", help="no progress bar")
        args = parser.parse_args()

        from videodenoise.datasets.download import download_dataset

        path = download_dataset(dataset, args.root, progress=not args.quiet, verify=not args.no_verify)
        print(f"{done} {path}")

    run(main)

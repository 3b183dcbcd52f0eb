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

#!/usr/bin/env python
"""Download, verify (sha256) and extract CUHK Avenue: the videos and the ground-truth masks.

    python data_scripts/download_avenue.py --root data

Both zips are kept in --root and extract side by side into it: <root>/Avenue Dataset/ and
<root>/ground_truth_demo/. An interrupted download resumes when run again.
"""

import argparse
from pathlib import Path

from _common import run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, default=Path("data"), help="folder for the archives and the dataset (default: data)")
    parser.add_argument("--no-verify", action="store_true", help="skip the sha256 check (only if the server's copy changed)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args()

    from videodenoise.datasets.download import download_dataset

    path = download_dataset("avenue", args.root, progress=not args.quiet, verify=not args.no_verify)
    print(f"Avenue is in {path}")


if __name__ == "__main__":
    run(main)

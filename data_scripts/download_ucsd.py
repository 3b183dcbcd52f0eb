#!/usr/bin/env python
"""Download, verify (sha256) and extract the UCSD Anomaly Dataset (Ped1 and Ped2).

    python data_scripts/download_ucsd.py --root data

The archive (about 706 MB) is kept in --root and the dataset extracts to
<root>/UCSD_Anomaly_Dataset.v1p2/. An interrupted download resumes when run again.
"""

import argparse
from pathlib import Path

from _common import run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, default=Path("data"), help="folder for the archive and the dataset (default: data)")
    parser.add_argument("--no-verify", action="store_true", help="skip the sha256 check (only if the server's copy changed)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args()

    from videodenoise.datasets.download import download_dataset

    path = download_dataset("ucsd", args.root, progress=not args.quiet, verify=not args.no_verify)
    print(f"UCSD Ped1 and Ped2 are in {path}")


if __name__ == "__main__":
    run(main)

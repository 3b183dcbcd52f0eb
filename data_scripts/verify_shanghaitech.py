#!/usr/bin/env python
"""Verify (sha256) and extract a ShanghaiTech Campus archive that you downloaded by hand.

ShanghaiTech has no stable download address. Get shanghaitech.tar.gz (the mirror used by anomalib
is http://101.32.75.151:8181/dataset/shanghaitech.tar.gz), place it in --root, then run

    python data_scripts/verify_shanghaitech.py --root data

It extracts to <root>/shanghaitech/. Without the archive the script says where to put it.
"""

import argparse
from pathlib import Path

from _common import run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, default=Path("data"), help="folder holding shanghaitech.tar.gz (default: data)")
    parser.add_argument("--no-verify", action="store_true", help="skip the sha256 check (a copy from another source)")
    args = parser.parse_args()

    from videodenoise.datasets.download import download_dataset

    path = download_dataset("shanghaitech", args.root, progress=False, verify=not args.no_verify)
    print(f"ShanghaiTech is in {path}")


if __name__ == "__main__":
    run(main)

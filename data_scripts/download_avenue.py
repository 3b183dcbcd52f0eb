#!/usr/bin/env python
"""Download, verify (sha256) and extract CUHK Avenue: the videos and the ground-truth masks.

    python data_scripts/download_avenue.py --root data

Both zips are kept in --root and extract side by side into it: <root>/Avenue Dataset/ and
<root>/ground_truth_demo/. An interrupted download resumes when run again.
"""

from _common import download_script

if __name__ == "__main__":
    download_script("avenue", __doc__, "Avenue is in")

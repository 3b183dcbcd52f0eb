#!/usr/bin/env python
"""Download, verify (sha256) and extract the UCSD Anomaly Dataset (Ped1 and Ped2).

    python data_scripts/download_ucsd.py --root data

The archive (about 706 MB) is kept in --root and the dataset extracts to
<root>/UCSD_Anomaly_Dataset.v1p2/. An interrupted download resumes when run again.
"""

from _common import download_script

if __name__ == "__main__":
    download_script("ucsd", __doc__, "UCSD Ped1 and Ped2 are in")

"""Per exposure of a compare.py log: the gain paired by clip (each clip's mean over the 14 conditions, on − off; 95 %
t interval over the clips) and how many clips are ahead, as the other held-out runs report it.

    .venv/bin/python benchmarks/results/dark-calibration/summarise.py benchmarks/results/dark-calibration/held-out.log
"""

import re
import sys
from collections import defaultdict

import numpy as np

from videodenoise.evaluation.statistics import paired_difference

ROW = re.compile(r"^(\S+)\s+×(\S+)\s+.* off (\d+\.\d+) on (\d+\.\d+) ")
pairs: dict[str, dict[str, list[tuple[float, float]]]] = defaultdict(lambda: defaultdict(list))
for line in open(sys.argv[1], encoding="utf-8"):
    if match := ROW.match(line):
        clip, exposure, off, on = match.groups()
        pairs[exposure][clip].append((float(off), float(on)))
for exposure, clips in pairs.items():
    off, on = (np.array([np.mean([pair[i] for pair in rows]) for rows in clips.values()]) for i in (0, 1))
    paired = paired_difference(on, off)
    ahead = ", ".join(f"{clip} {b - a:+.2f}" for clip, a, b in zip(clips, off, on))
    print(
        f"×{exposure}: {off.mean():.2f} → {on.mean():.2f}, paired by clip {paired.mean:+.2f} [{paired.low:+.2f}, "
        f"{paired.high:+.2f}], {int((on > off + 0.005).sum())} of {len(on)} ahead; per clip {ahead}"
    )

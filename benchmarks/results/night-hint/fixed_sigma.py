"""Would one σ told by hand do better than σ auto on dark footage? Read off brightness.log (brightness.py's sweep):
for the clip-conditions under a mean level, σ told 20, 28 and 36 against σ auto, camera noise and Gaussian apart.

    .venv/bin/python benchmarks/results/night-hint/fixed_sigma.py > benchmarks/results/night-hint/fixed_sigma.log
    .venv/bin/python benchmarks/results/night-hint/fixed_sigma.py brightness-today.log > benchmarks/results/night-hint/fixed_sigma-today.log
"""

import re
import sys
from pathlib import Path

SWEEP = (6, 10, 14, 20, 28, 36, 48)  # brightness.py's
LINE = re.compile(r"(\S+)\s+×(\S+)\s+(\S+)\s+mean\s+([\d.]+): σ auto ([\d.]+) \(gamma step (\w+)\).*sweep (.*)")

rows = []
for line in (Path(__file__).parent / (sys.argv[1] if sys.argv[1:] else "brightness.log")).read_text().splitlines():
    if match := LINE.match(line):
        name, exposure, noise, mean, auto, step, sweep = match.groups()
        told = dict(zip(SWEEP, map(float, sweep.split())))
        rows.append((noise in ("light", "medium", "heavy"), float(mean), float(auto), told))
for limit in (48, 64):
    for camera in (True, False):
        chosen = [row for row in rows if row[0] == camera and row[1] < limit]
        best = [max(told.values()) - auto for _, _, auto, told in chosen]
        print(
            f"mean level under {limit}, {'camera noise' if camera else 'Gaussian'}: {len(chosen)} clip-conditions; "
            f"the best told σ of each − σ auto: {sum(g >= 1 for g in best)} at +1 dB or more"
        )
        for sigma in (20, 28, 36):
            gaps = [told[sigma] - auto for _, _, auto, told in chosen]
            print(
                f"  told {sigma} − σ auto: mean {sum(gaps) / len(gaps):+.2f} dB, {min(gaps):+.2f} to {max(gaps):+.2f}, "
                f"ahead on {sum(g > 0 for g in gaps)}"
            )

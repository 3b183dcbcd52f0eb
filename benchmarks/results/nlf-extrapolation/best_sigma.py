"""Issue 18's third target after this change: per held-out clip and camera condition (as taken), σ auto's PSNR before
it (`clipping-lift/best_sigma.log`, the same noisy frames), plus the per-clip gain of `held-out.log` (whose reference
column is that same output: 35.62 dB at light CRF 18, as there), against the single σ told by hand that scored best
(from the same log; a σ told by hand does not read the estimate, so the change cannot move it). Per condition: the
mean gain of the best σ over σ auto, before and now.

    .venv/bin/python benchmarks/results/nlf-extrapolation/best_sigma.py > best_sigma.log
"""

import re
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
CLIPS = ("bikes", "carphone", "astronaut-pan", "coffee-pan", "chelsea-pan", "grace-hopper-pan")
SWEEP = re.compile(
    r"^\| clean:fast:sigma: (\w+) h264 crf(\d+), ([\w-]+) +\|[^|]+\|[^|]+\|[^|]+\| +([\d.]+) \| +([\d.]+) \|"
)
GAINS = re.compile(r"^×1 (\w+) CRF (\d+): [\d.]+ → [\d.]+ \([+-][\d.]+; per clip ([-+\d. ]+)\)$")

before: dict[tuple[str, str], dict[str, tuple[float, float]]] = {}
for line in (HERE.parent / "clipping-lift/best_sigma.log").read_text().splitlines():
    row = SWEEP.match(line)
    if row:
        before.setdefault((row[1], row[2]), {})[row[3]] = (float(row[4]), float(row[5]))
gains = {}
for line in (HERE / "held-out.log").read_text().splitlines():
    row = GAINS.match(line)
    if row:
        gains[row[1], row[2]] = dict(zip(CLIPS, (float(g) for g in row[3].split())))

print("| condition | σ auto before | σ auto now | best single σ | best σ − σ auto, before | now |")
print("|---|---:|---:|---:|---:|---:|")
ahead = 0
for (level, crf), clips in before.items():
    auto = np.array([clips[c][0] for c in CLIPS])
    now = auto + np.array([gains[level, crf][c] for c in CLIPS])
    best = np.array([clips[c][1] for c in CLIPS])
    ahead += (best - now).mean() > 0.005
    print(
        f"| {level} CRF {crf} | {auto.mean():.2f} | {now.mean():.2f} | {best.mean():.2f} | "
        f"{(best - auto).mean():+.2f} | {(best - now).mean():+.2f} |"
    )
print(f"the best single σ ahead of σ auto on average at {ahead} of {len(before)} conditions now")

"""Issue 18's third target with this change: per held-out camera condition (as taken), the default's σ auto
(`bench/run/realnoise.csv`, this session's benchmark run) against the single σ told by hand that scored best per clip
(`../clipping-lift/best_sigma.log`, the same noisy frames; a σ told by hand does not read the estimate, so no change
to it can move that column). Per condition the means, and the conditions where the best σ is ahead.

    .venv/bin/python benchmarks/results/carried-flat/best_sigma.py > best_sigma.log
"""

import csv
import re
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SWEEP = re.compile(
    r"^\| clean:fast:sigma: (\w+ h264 crf\d+), ([\w-]+) +\|[^|]+\|[^|]+\|[^|]+\| +[\d.]+ \| +([\d.]+) \|"
)

best: dict[str, dict[str, float]] = {}
for line in (HERE.parent / "clipping-lift/best_sigma.log").read_text().splitlines():
    if row := SWEEP.match(line):
        best.setdefault(row[1], {})[row[2]] = float(row[3])
auto: dict[str, dict[str, float]] = {}
with open(HERE / "bench/run/realnoise.csv") as rows:
    for row in csv.DictReader(rows):
        if row["method"] == "clean:carried-flat":
            auto.setdefault(row["condition"], {})[row["clip"]] = float(row["psnr"])

print("| condition | σ auto | best single σ per clip | best σ − σ auto |")
print("|---|---:|---:|---:|")
ahead = 0
for condition, clips in best.items():
    now = np.array([auto[condition][clip] for clip in clips])
    told = np.array(list(clips.values()))
    ahead += (told - now).mean() > 0.005
    print(f"| {condition} | {now.mean():.2f} | {told.mean():.2f} | {(told - now).mean():+.2f} |")
print(f"the best single σ ahead of σ auto on average at {ahead} of {len(best)} conditions")

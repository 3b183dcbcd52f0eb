"""The rule of README.md, read off the four validation logs beside this file: per condition (1.5 − 1), then its three
parts.

    .venv/bin/python benchmarks/results/nlf-extrapolation/rule.py > rule.log
"""

import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROW = re.compile(r"^\| (.+?) \| ([\d.]+), [^|]+\| ([\d.]+), [^|]+\|$")

camera, gaussian = [], []
for exposure in ("x1", "x0.125"):
    for log in (f"validation-{exposure}.log", f"validation-raw-{exposure}.log"):
        for line in (HERE / log).read_text().splitlines():
            row = ROW.match(line)
            if row:
                condition, off, on = row[1], float(row[2]), float(row[3])
                (gaussian if condition.startswith("gaussian") else camera).append((exposure, condition, on - off))
                print(f"{exposure:7s} {condition:18s} {off:.2f} → {on:.2f} ({on - off:+.2f})")
mean = sum(d for *_, d in camera) / len(camera)
print(f"(1) mean over the {len(camera)} camera condition-means: {mean:+.3f} dB (at least +0.05: {mean >= 0.05})")
low = min(gaussian, key=lambda row: row[2])
print(
    f"(2) lowest of the {len(gaussian)} Gaussian condition-means: {low[2]:+.2f} ({low[0]} {low[1]}; not under −0.05: "
    f"{low[2] >= -0.05})"
)
low = min(camera, key=lambda row: row[2])
print(f"(3) lowest camera condition-mean: {low[2]:+.2f} ({low[0]} {low[1]}; not under −0.10: {low[2] >= -0.10})")

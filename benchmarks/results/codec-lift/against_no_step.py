"""The gamma step with the fit's lift against no step at all, paired by clip on the real-noise benchmark's held-out
clips (the same noisy frames; the merged CSV of README.md's benchmark section with camera-gamma's run without the
step added): what `clean --no-camera-bias` costs or saves today. Log beside it.

    .venv/bin/python benchmarks/bench_realnoise.py --from-csv benchmarks/results/camera-gamma/held-out/camera-before/realnoise.csv \
        --from-csv benchmarks/results/codec-lift/held-out/codec-lift/realnoise.csv --noisy-tolerance 0.03 \
        --merged-out /tmp/against-no-step
    .venv/bin/python benchmarks/results/codec-lift/against_no_step.py /tmp/against-no-step/realnoise.csv > benchmarks/results/codec-lift/against_no_step.log

With a second argument, the method of the step's run (default `clean:codec-lift`): since clipping-lift, with the
clipping's correction reading the lifted curve too (merge `clipping-lift/held-out/clipping-lift/realnoise.csv`
instead, then name `clean:clipping-lift`; log `clipping-lift/against_no_step.log`).
"""

import csv
import sys
from collections import defaultdict

import numpy as np

from videodenoise.evaluation.statistics import paired_difference

rows = defaultdict(dict)  # (method) → {(clip, condition): psnr}
with open(sys.argv[1]) as handle:
    for row in csv.DictReader(handle):
        rows[row["method"]][row["clip"], row["condition"]] = float(row["psnr"])
step, none = rows[sys.argv[2] if sys.argv[2:] else "clean:codec-lift"], rows["clean:camera-before"]
clips = sorted({clip for clip, _ in step})
per_clip = {c: np.mean([step[k] - none[k] for k in step if k[0] == c]) for c in clips}
paired = paired_difference(
    [np.mean([step[k] for k in step if k[0] == c]) for c in clips],
    [np.mean([none[k] for k in none if k[0] == c]) for c in clips],
)
print(
    f"the step with the lift − no step, nine conditions, paired by clip: {paired.mean:+.2f} [{paired.low:+.2f}, "
    f"{paired.high:+.2f}], {sum(v > 0 for v in per_clip.values())} of {len(clips)} ahead"
)
print("per clip: " + ", ".join(f"{c} {v:+.2f}" for c, v in per_clip.items()))
for label, pick in (("worst", min), ("best", max)):
    key = pick(step, key=lambda k: step[k] - none[k])
    print(f"{label} clip-condition: {key[0]} {key[1]} {step[key] - none[key]:+.2f}")

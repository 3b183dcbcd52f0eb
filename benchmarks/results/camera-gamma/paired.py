"""The held-out camera runs paired by clip: the default with a camera gamma's bias undone against without, per
condition and over the nine (mean gap, 95 % t interval over the six clips, clips ahead), and each clip's mean; then
both against the single σ that would have been best per clip (issue 18's third target), from the σ sweep run with
the clipping's correction (benchmarks/results/clipping/held-out-camera-sweep/, the same noisy frames).

    .venv/bin/python benchmarks/results/camera-gamma/paired.py > benchmarks/results/camera-gamma/paired.log
"""

import csv
import math
import statistics
from pathlib import Path

from scipy import stats

HERE = Path(__file__).resolve().parent / "held-out"


def psnr(run: str) -> dict[tuple[str, str], float]:
    rows = csv.DictReader(open(HERE / run / "realnoise.csv"))
    return {(r["clip"], r["condition"]): float(r["psnr"]) for r in rows if r["method"].startswith("clean:")}


def best_single_sigma() -> dict[tuple[str, str], float]:
    """Per (clip, condition), the PSNR of the best σ of the sweep told by hand."""
    best: dict[tuple[str, str], float] = {}
    for r in csv.DictReader(open(HERE.parents[1] / "clipping/held-out-camera-sweep/realnoise.csv")):
        if r["method"].endswith(":sigma"):
            key = (r["clip"], r["condition"])
            best[key] = max(best.get(key, -math.inf), float(r["psnr"]))
    return best


def interval(gaps: list[float]) -> str:
    mean, half = statistics.mean(gaps), 0.0
    if len(gaps) > 1:
        half = stats.t.ppf(0.975, len(gaps) - 1) * statistics.stdev(gaps) / math.sqrt(len(gaps))
    return f"{mean:+.2f} [{mean - half:+.2f}, {mean + half:+.2f}]"


before, gamma = psnr("camera-before"), psnr("camera-gamma")
clips = sorted({clip for clip, _ in before})
conditions = list(dict.fromkeys(condition for _, condition in before))
print("| condition | with − without (dB) | clips ahead |\n|---|---:|---:|")
for condition in conditions:
    gaps = [gamma[clip, condition] - before[clip, condition] for clip in clips]
    print(f"| {condition} | {interval(gaps)} | {sum(g > 0 for g in gaps)} of {len(gaps)} |")
per_clip = [statistics.mean(gamma[clip, c] - before[clip, c] for c in conditions) for clip in clips]
print(f"| the nine, by clip | {interval(per_clip)} | {sum(g > 0 for g in per_clip)} of {len(per_clip)} |")
print("\nper clip, mean over the nine: " + ", ".join(f"{c} {g:+.2f}" for c, g in zip(clips, per_clip)))

swept = best_single_sigma()
print("\n| condition | best single σ per clip | σ auto without | with | best σ over with |\n|---|---:|---:|---:|---:|")
for condition in conditions:
    means = [statistics.mean(run[clip, condition] for clip in clips) for run in (swept, before, gamma)]
    print(f"| {condition} | {means[0]:.2f} | {means[1]:.2f} | {means[2]:.2f} | {means[0] - means[2]:+.2f} |")

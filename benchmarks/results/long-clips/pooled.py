"""Both seeds' runs, each clip's gap averaged over the two draws, then a 95 % t interval over the 6 clips:
python benchmarks/results/long-clips/pooled.py (from the repository root)."""

import csv
import statistics

from scipy import stats

RUNS = ["benchmarks/results/long-clips/seed0/quality.csv", "benchmarks/results/long-clips/seed1/quality.csv"]


def psnr(path: str, method: str) -> dict[str, float]:
    return {r["clip"]: float(r["psnr"]) for r in csv.DictReader(open(path)) if r["method"] == method}


for ours in ("best-auto", "fast-auto"):
    per_run = [(psnr(p, ours), psnr(p, "bm4d")) for p in RUNS]
    clips = sorted(per_run[0][0])
    gaps = {c: statistics.mean(o[c] - b[c] for o, b in per_run) for c in clips}
    values = list(gaps.values())
    mean = statistics.mean(values)
    half = stats.t.ppf(0.975, len(values) - 1) * statistics.stdev(values) / len(values) ** 0.5
    ahead = sum(v > 0 for v in values)
    print(
        f"{ours} − bm4d, 2 draws averaged per clip: {mean:+.2f} [{mean - half:+.2f}, {mean + half:+.2f}], "
        f"{ahead} of {len(values)} ahead;",
        ", ".join(f"{c} {v:+.2f}" for c, v in gaps.items()),
    )
    for path, (o, b) in zip(RUNS, per_run):
        print(f"  {path.split('/')[-2]}:", ", ".join(f"{c} {o[c] - b[c]:+.2f}" for c in clips))

"""The held-out run beside long-clips' (same clips, frames and noise draws): python
benchmarks/results/fusion-radius/held_out.py ARM (from the repository root; ARM as in held-out/seed*/quality.csv,
e.g. r5). Checks that both runs denoised the same noisy frames, then prints ARM − `best` as shipped and ARM − BM4D
per draw and with each clip's gap averaged over the two draws (95 % t interval over the 6 clips)."""

import csv
import statistics
import sys

from scipy import stats

SEEDS = (0, 1)
ours = f"{sys.argv[1]}-auto"


def psnr(path: str) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for r in csv.DictReader(open(path)):
        out.setdefault(r["method"], {})[r["clip"]] = float(r["psnr"])
    return out


def interval(values: list[float]) -> str:
    mean = statistics.mean(values)
    half = stats.t.ppf(0.975, len(values) - 1) * statistics.stdev(values) / len(values) ** 0.5
    return f"{mean:+.2f} [{mean - half:+.2f}, {mean + half:+.2f}], {sum(v > 0 for v in values)} of {len(values)} ahead"


runs = []
for seed in SEEDS:
    before = psnr(f"benchmarks/results/long-clips/seed{seed}/quality.csv")
    after = psnr(f"benchmarks/results/fusion-radius/held-out/seed{seed}/quality.csv")
    apart = max(abs(before["noisy"][c] - after["noisy"][c]) for c in before["noisy"])
    if apart > 1e-6:
        sys.exit(f"seed {seed}: the runs' noisy frames differ (noisy PSNRs up to {apart:.4f} dB apart)")
    runs.append((after[ours], before["best-auto"], before["bm4d"]))
clips = sorted(runs[0][0])
for name, column in (("best as shipped (radius 3)", 1), ("BM4D", 2)):
    print(f"{ours} − {name}:")
    for seed, run in zip(SEEDS, runs):
        means = statistics.mean(run[0].values()), statistics.mean(run[column].values())
        print(f"  seed {seed}: {means[0]:.2f} against {means[1]:.2f} dB;", interval([run[0][c] - run[column][c] for c in clips]))
    gaps = {c: statistics.mean(run[0][c] - run[column][c] for run in runs) for c in clips}
    print("  both draws, averaged per clip:", interval(list(gaps.values())) + ";", ", ".join(f"{c} {v:+.2f}" for c, v in gaps.items()))

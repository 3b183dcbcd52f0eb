"""`best` matching exposure on the held-out clips beside `best` before it (fusion-radius/held-out: the same clips,
frames and noise draws, checked) and BM4D: python benchmarks/results/exposure/held_out_best.py (from the repository
root). 5 frames: mean PSNR per σ and the paired gaps at σ = 25 (BM4D from quality/quality.csv); 15 frames, σ = 25:
per draw and with each clip's gap averaged over the two draws (BM4D from long-clips). 95 % t intervals over 6 clips."""

import csv
import statistics
import sys

from videodenoise.evaluation.statistics import paired_difference

OURS, BEFORE = "exposure-auto", "r4-auto"
HERE, RADIUS = "benchmarks/results/exposure/held-out", "benchmarks/results/fusion-radius/held-out"


def psnr(path: str) -> dict[tuple[str, str], dict[str, float]]:
    """(method, σ) → {clip: PSNR}; BM4D's rows under ("bm4d", σ)."""
    out: dict = {}
    for r in csv.DictReader(open(path)):
        method = "bm4d" if r["method"].startswith("bm4d") else r["method"]
        out.setdefault((method, f"{float(r['sigma_255']):g}"), {})[r["clip"]] = float(r["psnr"])
    return out


def per_clip(gaps: dict[str, float]) -> str:
    return ", ".join(f"{c} {v:+.2f}" for c, v in gaps.items())


def interval(values: list[float]) -> str:
    d = paired_difference(values, [0.0] * len(values))
    return f"{d.mean:+.2f} [{d.low:+.2f}, {d.high:+.2f}], {sum(v > 0 for v in values)} of {len(values)} ahead"


def same_noise(a: dict, b: dict, label: str) -> None:
    for key in a:
        if key[0] == "noisy" and key in b:
            apart = max(abs(a[key][c] - b[key][c]) for c in a[key])
            if apart > 1e-6:
                sys.exit(f"{label}: the runs' noisy frames differ at σ = {key[1]} (up to {apart:.4f} dB)")


after, before = psnr(f"{HERE}/five-frames/quality.csv"), psnr(f"{RADIUS}/five-frames/quality.csv")
same_noise(after, before, "5 frames")
bm4d = psnr("benchmarks/results/quality/quality.csv")[("bm4d", "25")]
sigmas = sorted({s for m, s in after if m == OURS}, key=float)
print("5 frames, mean PSNR:", ", ".join(f"σ {s}: {statistics.mean(after[OURS, s].values()):.2f}" for s in sigmas))
print("   before (radius 4):", ", ".join(f"σ {s}: {statistics.mean(before[BEFORE, s].values()):.2f}" for s in sigmas))
for s in sigmas:
    gaps = {c: after[OURS, s][c] - before[BEFORE, s][c] for c in after[OURS, s]}
    print(
        f"  σ = {s}: matched − before {interval(list(gaps.values()))};",
        per_clip(gaps),
    )
print("  σ = 25, matched − BM4D:", interval([after[OURS, "25"][c] - bm4d[c] for c in bm4d]))
runs = []
for seed in (0, 1):
    ours, old = psnr(f"{HERE}/seed{seed}/quality.csv"), psnr(f"{RADIUS}/seed{seed}/quality.csv")
    same_noise(ours, old, f"seed {seed}")
    runs.append(
        (
            ours[OURS, "25"],
            old[BEFORE, "25"],
            psnr(f"benchmarks/results/long-clips/seed{seed}/quality.csv")[("bm4d", "25")],
        )
    )
clips = sorted(runs[0][0])
for name, column in (("before (radius 4)", 1), ("BM4D", 2)):
    print(f"15 frames, σ = 25, matched − {name}:")
    for seed, run in enumerate(runs):
        means = statistics.mean(run[0].values()), statistics.mean(run[column].values())
        print(
            f"  seed {seed}: {means[0]:.2f} against {means[1]:.2f} dB;",
            interval([run[0][c] - run[column][c] for c in clips]),
        )
    gaps = {c: statistics.mean(run[0][c] - run[column][c] for run in runs) for c in clips}
    print(
        "  both draws, averaged per clip:",
        interval(list(gaps.values())) + ";",
        per_clip(gaps),
    )

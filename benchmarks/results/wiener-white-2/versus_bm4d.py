"""Paired difference at σ = 25 between a held-out run's method and BM4D (benchmarks/results/quality/quality.csv, the same
noisy frames): python versus_bm4d.py QUALITY.csv METHOD, from the repository root."""
import csv, sys, statistics as st
from scipy import stats
bm = {r["clip"]: float(r["psnr"]) for r in csv.DictReader(open("benchmarks/results/quality/quality.csv")) if r["method"].startswith("bm4d") and r["sigma_255"] in ("25", "25.0")}
ours = {r["clip"]: float(r["psnr"]) for r in csv.DictReader(open(sys.argv[1])) if r["method"] == sys.argv[2] and r["sigma_255"] in ("25", "25.0")}
clips = sorted(set(bm) & set(ours)); d = [ours[c] - bm[c] for c in clips]
m = st.mean(d); h = stats.t.ppf(0.975, len(d) - 1) * st.stdev(d) / len(d) ** 0.5
print(f"vs BM4D σ=25: {m:+.2f} [{m-h:+.2f}, {m+h:+.2f}] ahead {sum(x>0 for x in d)}/{len(d)}", " ".join(f"{c} {x:+.2f}" for c, x in zip(clips, d)))

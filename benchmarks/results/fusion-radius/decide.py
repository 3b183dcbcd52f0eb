"""The README's rule applied to the validation run: python benchmarks/results/fusion-radius/decide.py
(from the repository root). Prints each arm's mean PSNR per condition, its seconds per frame over the
Gaussian rows, the gaps to r3 paired by clip (95 % t interval over the clips) and the decision."""

import csv
import statistics

from scipy import stats

HERE = "benchmarks/results/fusion-radius"
ARMS = ("r3", "r4", "r5")
TOLERANCE, TIME_BOUND, GAIN = 0.03, 1.25, 0.05


def rows() -> dict[tuple[str, str], dict[str, float]]:
    """(arm, condition) → {clip: PSNR}, with the Gaussian rows' seconds per frame under (arm, "seconds")."""
    out: dict = {}
    for r in csv.DictReader(open(f"{HERE}/validation/quality.csv")):
        arm = r["method"].removesuffix("-auto")
        if arm in ARMS:
            out.setdefault((arm, f"σ={float(r['sigma_255']):g}"), {})[r["clip"]] = float(r["psnr"])
            out.setdefault((arm, "seconds"), {})[f"{r['clip']} {r['sigma_255']}"] = float(r["seconds_per_frame"])
    for r in csv.DictReader(open(f"{HERE}/validation-camera/realnoise.csv")):
        arm = r["method"].removeprefix("clean:")
        if arm in ARMS:
            out.setdefault((arm, r["condition"]), {})[r["clip"]] = float(r["psnr"])
    return out


def gap(a: dict[str, float], b: dict[str, float]) -> str:
    values = [a[c] - b[c] for c in sorted(b)]
    mean = statistics.mean(values)
    half = stats.t.ppf(0.975, len(values) - 1) * statistics.stdev(values) / len(values) ** 0.5
    return f"{mean:+.2f} [{mean - half:+.2f}, {mean + half:+.2f}], {sum(v > 0 for v in values)} of {len(values)} ahead"


table = rows()
conditions = sorted({c for _, c in table if c != "seconds"})
means = {key: statistics.mean(v.values()) for key, v in table.items()}
for arm in ARMS:
    cells = ", ".join(f"{c} {means[arm, c]:.2f}" for c in conditions)
    print(f"{arm}: {cells}; {means[arm, 'seconds']:.3f} s/frame over the Gaussian rows")
for arm in ARMS[1:]:
    for c in conditions:
        print(f"  {arm} − r3 at {c}: {gap(table[arm, c], table['r3', c])}")
guards = [c for c in conditions if c != "σ=25"]
allowed = [
    arm
    for arm in ARMS[1:]
    if all(means[arm, c] >= means["r3", c] - TOLERANCE for c in guards)
    and means[arm, "seconds"] <= TIME_BOUND * means["r3", "seconds"]
]
print(f"within {TOLERANCE} dB of r3 at {', '.join(guards)} and at most {TIME_BOUND}× its time: {allowed or 'none'}")
if allowed:
    top = max(allowed, key=lambda arm: means[arm, "σ=25"])
    winner = next(arm for arm in allowed if means[arm, "σ=25"] >= means[top, "σ=25"] - TOLERANCE)
    lift = means[winner, "σ=25"] - means["r3", "σ=25"]
    verdict = "replaces radius 3 in best" if lift >= GAIN else f"is under +{GAIN} dB: best stays at radius 3"
    print(f"W = {winner}: {lift:+.3f} dB over r3 at σ = 25; it {verdict}")
else:
    print("no arm passes the guards: best stays at radius 3")

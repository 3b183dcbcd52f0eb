"""The README's rule applied to the validation runs: python benchmarks/results/wiener-fast/decide.py (from the
repository root). Prints each arm's mean PSNR per condition, the gaps to `shipped` paired by clip (95 % t
interval over the clips), the long clip's times from clean_long.log and the decision."""

import csv
import re
import statistics

from videodenoise.evaluation.statistics import paired_difference

HERE = "benchmarks/results/wiener-fast"
SHIPPED, CANDIDATES = "shipped", ("w4", "w5")  # the denser stride first: the sparser takes a tie
TOLERANCE, GAIN, AHEAD, TIME_BOUND = 0.05, 0.15, 6, 0.25

table: dict = {}  # (arm, condition) → {clip: PSNR}
for r in csv.DictReader(open(f"{HERE}/validation/quality.csv")):
    if r["method"].endswith("-auto"):
        key = (r["method"].removesuffix("-auto"), f"σ={float(r['sigma_255']):g}")
        table.setdefault(key, {})[r["clip"]] = float(r["psnr"])
for r in csv.DictReader(open(f"{HERE}/validation-camera/realnoise.csv")):
    if r["method"].startswith("clean:"):
        table.setdefault((r["method"].removeprefix("clean:"), r["condition"]), {})[r["clip"]] = float(r["psnr"])
nlm_ratio = {}  # arm → median time over OpenCV NLM's on the long clip
for line in open(f"{HERE}/clean_long.log"):
    if match := re.match(r"(\w+): .*, ([\d.]+)× OpenCV NLM$", line.strip()):
        nlm_ratio[match[1]] = float(match[2])

conditions = sorted({c for _, c in table})
means = {key: statistics.mean(v.values()) for key, v in table.items()}
for arm in (SHIPPED, *CANDIDATES):
    cells = ", ".join(f"{c} {means[arm, c]:.2f}" for c in conditions)
    print(f"{arm}: {cells}; long clip {nlm_ratio[arm]:.3f}× OpenCV NLM")


def gap(arm: str, condition: str) -> tuple[float, int]:
    a, b = table[arm, condition], table[SHIPPED, condition]
    clips = sorted(b)
    d = paired_difference([a[c] for c in clips], [b[c] for c in clips])
    ahead = sum(a[c] > b[c] for c in clips)
    print(f"  {arm} − {SHIPPED} at {condition}: {d.mean:+.2f} [{d.low:+.2f}, {d.high:+.2f}], {ahead} of {len(clips)} ahead")
    return d.mean, ahead


for arm in CANDIDATES:
    for c in conditions:
        gap(arm, c)
guards = [c for c in conditions if c != "σ=25"]
allowed = [
    arm
    for arm in CANDIDATES
    if all(means[arm, c] >= means[SHIPPED, c] - TOLERANCE for c in guards) and nlm_ratio[arm] <= TIME_BOUND
]
print(f"within {TOLERANCE} dB of {SHIPPED} at {', '.join(guards)} and at most {TIME_BOUND}× NLM: {allowed or 'none'}")
if not allowed:
    print("no candidate passes: the fast preset stays as it is")
else:
    top = max(means[arm, "σ=25"] for arm in allowed)
    winner = [arm for arm in allowed if means[arm, "σ=25"] >= top - TOLERANCE][-1]
    lift, ahead = gap(winner, "σ=25")
    passes = lift >= GAIN and ahead >= AHEAD
    verdict = "becomes the fast preset's" if passes else "falls short: the fast preset stays as it is"
    print(f"W = {winner}: {lift:+.3f} dB over {SHIPPED} at σ = 25, {ahead} of 8 ahead; it {verdict}")

"""The README's rules applied to the validation runs: python benchmarks/results/exposure/decide.py (from the
repository root). Prints each arm's mean PSNR per condition, its seconds per frame over the Gaussian rows, the
gaps to the shipped arm paired by clip (95 % t interval over the clips) and the decisions: fast and best
(round 1), fast along chained flows (round 2)."""

import csv
import os
import statistics

from videodenoise.evaluation.statistics import paired_difference

HERE = "benchmarks/results/exposure"
TOLERANCE, GAIN = 0.03, 0.05
PRESET_ARMS = {  # preset → (shipped arm, candidates from the smallest radius up, time bound)
    "fast": ("shipped", ("r2", "r3", "r4"), 1.08),
    "best": ("b-shipped", ("b-r4",), 1.05),
    "fast-chained": ("shipped", ("c2", "c3", "c4"), 1.08),  # round 2 (README)
}


def rows(preset: str) -> dict[tuple[str, str], dict[str, float]]:
    """(arm, condition) → {clip: PSNR}, with the Gaussian rows' seconds per frame under (arm, "seconds")."""
    out: dict = {}
    for r in csv.DictReader(open(f"{HERE}/validation-{preset}/quality.csv")):
        arm = r["method"].removesuffix("-auto")
        if r["method"].endswith("-auto"):
            out.setdefault((arm, f"σ={float(r['sigma_255']):g}"), {})[r["clip"]] = float(r["psnr"])
            out.setdefault((arm, "seconds"), {})[f"{r['clip']} {r['sigma_255']}"] = float(r["seconds_per_frame"])
    for r in csv.DictReader(open(f"{HERE}/validation-{preset}-camera/realnoise.csv")):
        if r["method"].startswith("clean:"):
            out.setdefault((r["method"].removeprefix("clean:"), r["condition"]), {})[r["clip"]] = float(r["psnr"])
    return out


def gap(a: dict[str, float], b: dict[str, float]) -> str:
    clips = sorted(b)
    d = paired_difference([a[c] for c in clips], [b[c] for c in clips])
    ahead = sum(a[c] > b[c] for c in clips)
    return f"{d.mean:+.2f} [{d.low:+.2f}, {d.high:+.2f}], {ahead} of {len(clips)} ahead"


for preset, (shipped, candidates, time_bound) in PRESET_ARMS.items():
    if not os.path.exists(f"{HERE}/validation-{preset}/quality.csv"):
        print(f"== {preset}: not run yet")
        continue
    table = rows(preset)
    conditions = sorted({c for _, c in table if c != "seconds"})
    means = {key: statistics.mean(v.values()) for key, v in table.items()}
    print(f"== {preset}")
    for arm in (shipped, *candidates):
        cells = ", ".join(f"{c} {means[arm, c]:.2f}" for c in conditions)
        ratio = means[arm, "seconds"] / means[shipped, "seconds"]
        print(f"{arm}: {cells}; {means[arm, 'seconds']:.3f} s/frame over the Gaussian rows ({ratio:.3f}×)")
    for arm in candidates:
        for c in conditions:
            print(f"  {arm} − {shipped} at {c}: {gap(table[arm, c], table[shipped, c])}")
    guards = [c for c in conditions if c != "σ=25"]
    allowed = [
        arm
        for arm in candidates
        if all(means[arm, c] >= means[shipped, c] - TOLERANCE for c in guards)
        and means[arm, "seconds"] <= time_bound * means[shipped, "seconds"]
    ]
    bounds = f"within {TOLERANCE} dB of {shipped} at {', '.join(guards)} and at most {time_bound}× its time"
    print(f"{bounds}: {allowed or 'none'}")
    if not allowed:
        print(f"no arm passes the guards: {preset} stays as it is")
        continue
    top = max(allowed, key=lambda arm: means[arm, "σ=25"])
    winner = next(arm for arm in allowed if means[arm, "σ=25"] >= means[top, "σ=25"] - TOLERANCE)
    lift = means[winner, "σ=25"] - means[shipped, "σ=25"]
    verdict = f"replaces {preset}'s fusion" if lift >= GAIN else f"is under +{GAIN} dB: {preset} stays as it is"
    print(f"W = {winner}: {lift:+.3f} dB over {shipped} at σ = 25; it {verdict}")

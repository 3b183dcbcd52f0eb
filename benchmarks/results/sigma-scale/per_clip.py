"""Per clip and condition of `camera/realnoise.csv`: which `--sigma-scale` of the run did best, and what that best
gains over 1 (σ auto's own factor).

    .venv/bin/python benchmarks/results/sigma-scale/per_clip.py > benchmarks/results/sigma-scale/per_clip.log
"""

from __future__ import annotations

import collections
import csv
import statistics
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> None:
    psnr: dict[tuple[str, str], dict[str, float]] = collections.defaultdict(dict)
    with open(HERE / "camera" / "realnoise.csv", newline="") as handle:
        for row in csv.DictReader(handle):
            if row["method"].startswith("clean:"):
                psnr[(row["condition"], row["clip"])][row["method"].removeprefix("clean:s")] = float(row["psnr"])
    chosen, gains = collections.Counter(), []
    for scores in psnr.values():
        best = max(scores, key=scores.get)
        chosen[best] += 1
        gains.append(scores[best] - scores["1"])
    print(f"{len(psnr)} clip-conditions (6 held-out clips × 9 camera-noise conditions)")
    print("the best factor:", ", ".join(f"{factor}× on {count}" for factor, count in sorted(chosen.items())))
    print(
        f"its gain over 1×: mean {statistics.mean(gains):+.3f} dB, median {statistics.median(gains):+.3f}, "
        f"largest {max(gains):+.3f}; more than 0.1 dB on {sum(gain > 0.1 for gain in gains)}"
    )


if __name__ == "__main__":
    main()

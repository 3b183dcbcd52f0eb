"""What a veto would have done on the clip-conditions of `in-sample.log`, exactly, from the log alone: the share read as
today, or none where the same pixels read none. Where the same-pixels share is 0 the output is the candidate's (no
share either way); everywhere else it is today's (gain 0). Also the candidate as it ran, per group of conditions.

    python3 benchmarks/results/same-pixels/veto_projection.py benchmarks/results/same-pixels/in-sample.log
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict

LINE = re.compile(
    r"×(?P<exposure>\S+) (?P<clip>\S+)\s+(?P<condition>.+?)\s+carried (?P<before>\S+) → (?P<after>\S+), .*"
    r"\((?P<gain>[-+][\d.]+); the input"
)


def group(condition: str) -> str:
    return "no noise" if condition.startswith("no noise") else "gaussian" if condition.startswith("gauss") else "camera"


def summary(label: str, gains: dict[str, list[float]]) -> None:
    for kind, values in gains.items():
        print(f"{label}, {kind}: {len(values)} moved, mean {sum(values) / len(values):+.3f}, lowest {min(values):+.2f}")


def main(path: str) -> None:
    rows = [match for line in open(path) if (match := LINE.match(line))]
    candidate, veto = defaultdict(list), defaultdict(list)
    for row in rows:
        candidate[group(row["condition"])].append(float(row["gain"]))
        if float(row["after"]) == 0 and float(row["before"]) > 0:
            veto[group(row["condition"])].append(float(row["gain"]))
            print(f"veto moves ×{row['exposure']} {row['clip']} {row['condition']}: {row['gain']}")
    summary("the candidate", candidate)
    summary("a veto", veto)


if __name__ == "__main__":
    main(sys.argv[1])

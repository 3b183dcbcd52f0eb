"""Every number of a re-published robustness study against the committed one: for each CSV table, how many cells
differ and the largest relative difference per column (text columns must match exactly).

    videodenoise experiment configs/robustness-2.toml --jobs 2
    python benchmarks/robustness_tables.py experiments/robustness-2 --docs /tmp/robdocs
    python benchmarks/results/robustness-2-rerun/compare.py docs/robustness/study-2 /tmp/robdocs > compare.log
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

TABLES = ["video-cells.csv", "cells.csv", "endpoints.csv", "comparisons.csv", "arm-differences.csv"]


def main() -> None:
    committed, again = Path(sys.argv[1]), Path(sys.argv[2])
    for name in TABLES:
        old = list(csv.DictReader((committed / name).open()))
        new = list(csv.DictReader((again / name).open()))
        if len(old) != len(new) or (old and old[0].keys() != new[0].keys()):
            print(f"{name}: the tables' shapes differ ({len(old)} and {len(new)} rows)")
            continue
        worst: dict[str, float | str] = {}
        differing = cells = 0
        for row_old, row_new in zip(old, new):
            for column, value in row_old.items():
                cells += 1
                if value == row_new[column]:
                    continue
                differing += 1
                try:
                    a, b = float(value), float(row_new[column])
                except ValueError:
                    worst[column] = "text differs"
                    continue
                relative = abs(a - b) / max(abs(a), 1e-30)
                previous = worst.get(column, 0.0)
                worst[column] = max(previous, relative) if isinstance(previous, float) else previous
        shown = ", ".join(f"{c} {v:.1e}" if isinstance(v, float) else f"{c} {v}" for c, v in worst.items())
        print(f"{name}: {len(old)} rows, {differing} of {cells} cells differ; largest relative difference: ", end="")
        print(shown or "-")


if __name__ == "__main__":
    main()

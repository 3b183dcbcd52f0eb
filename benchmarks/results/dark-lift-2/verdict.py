"""The rule of this folder's README applied to its validation logs: per candidate, the late clips' mean over their 27
darkened camera condition-means and every condition-mean more than 0.05 dB below DARK_LIFT = 1's; the as-taken and
Gaussian checks; the twelve earlier clips' means where their logs are complete.

    .venv/bin/python benchmarks/results/dark-lift-2/verdict.py > benchmarks/results/dark-lift-2/verdict.log
"""

from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
CANDIDATES = ("1", "1.2", "1.4")


def table(name: str) -> dict[str, list[float]]:
    """condition → PSNR per candidate, from one validation_sweep.py log."""
    rows = {}
    for line in (HERE / name).read_text().splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("| ") and cells[0] not in ("condition", "camera mean"):
            rows[cells[0]] = [float(cell.split(",")[0]) for cell in cells[1:]]
    return rows


def report(label: str, logs: list[str]) -> None:
    tables = [(log, table(log)) for log in logs if (HERE / log).exists()]
    camera = [(log, c, v) for log, rows in tables for c, v in rows.items() if "h264" in c]
    gaussian = [(log, c, v) for log, rows in tables for c, v in rows.items() if "gaussian" in c]
    psnr = np.array([v for _, _, v in camera])
    if len(psnr) == 0:
        return
    means = psnr.mean(axis=0)
    print(f"{label}: {len(camera)} camera condition-means ({', '.join(log for log, _ in tables)})")
    for index, candidate in enumerate(CANDIDATES[1:], 1):
        losses = [f"{log[:-4]} {c} {v[index] - v[0]:+.2f}" for log, c, v in camera if v[index] - v[0] < -0.05]
        moved = max((abs(v[index] - v[0]) for _, _, v in gaussian), default=0.0)
        print(
            f"  DARK_LIFT = {candidate}: camera mean {means[index]:.2f} against {means[0]:.2f} "
            f"({means[index] - means[0]:+.2f}); Gaussian moved at most {moved:.2f}; more than 0.05 below 1's: "
            f"{len(losses)}" + (f" ({'; '.join(losses)})" if losses else "")
        )


report("late clips, as taken", ["late-x1.log"])
report("late clips, darkened", ["late-x0.25.log", "late-x0.125.log", "late-x0.0625.log"])
report("earlier twelve, darkened", ["earlier-x0.25.log", "earlier-x0.125.log"])

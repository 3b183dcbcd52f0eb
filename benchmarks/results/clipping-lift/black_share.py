"""After probe_factor.py (exploration, nothing chosen): does the share of a clip's noisy values near black tell the
pans a larger clipping factor hurts (near-black backgrounds: cell-pan, clock-motion-pan) from those it helps? Per
clip-condition where the step was made in probe_factor.log: the share of the noisy frames' values under 16 of 255,
and what k = 2 did against 1.2 there. Log beside it.

    .venv/bin/python benchmarks/results/clipping-lift/black_share.py > benchmarks/results/clipping-lift/black_share.log
"""

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
import bench_quality as quality  # noqa: E402
import bench_realnoise as realnoise  # noqa: E402

LINE = re.compile(r"(\S+)\s+×(\S+)\s+(\w+)\s+mean\s+[\d.]+ \* 1\.2: ([\d.]+) 1\.5: ([\d.]+) 2: ([\d.]+)")
rows = []
for line in (HERE / "probe_factor.log").read_text().splitlines():
    if match := LINE.match(line):
        name, exposure, level, base, _, two = match.groups()
        clip = quality.build_clips([name], 5, quality.DEFAULT_SIZE)[0]
        clip = quality.underexposed(clip, float(exposure)) if exposure != "1" else clip
        noisy = realnoise.camera_draw(clip, level, "h264", 23)
        rows.append(((noisy < 16).mean(), name, exposure, level, float(two) - float(base)))
for share, name, exposure, level, gain in sorted(rows):
    print(f"{share:.3f} under 16 | {name:20s} ×{exposure:<6s} {level:6s} | k = 2 − 1.2: {gain:+.2f}")

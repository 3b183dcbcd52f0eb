"""The held-out run of README.md, once the rule had decided: the quality benchmark's six held-out clips (5 frames,
σ = 10, 15, 25 and 50, σ estimated as `clean --sigma auto` does), the shipped default with the clipping's bias undone
and without, in one run; then merged with BM4D's rows of benchmarks/results/quality/ (the same noisy frames: the
noise is a function of the seed, clip and σ).

    .venv/bin/python benchmarks/results/clipping/held_out.py
    .venv/bin/python benchmarks/bench_quality.py --from-csv benchmarks/results/quality/quality.csv \
        --from-csv benchmarks/results/clipping/held-out/before/quality.csv \
        --from-csv benchmarks/results/clipping/held-out/unclip/quality.csv
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_quality  # noqa: E402

from videodenoise.denoise import clipping  # noqa: E402

COMMON = ["--frames", "5", "--sigmas", "10,15,25,50", "--methods", "noisy,models", "--modes", "auto"]
WEIGHTS = str(ROOT / "videodenoise/checkpoints/dust-video.safetensors")

for value, name in ((0, "before"), (1, "unclip")):
    clipping.UNCLIP = value
    out = ROOT / "benchmarks/results/clipping/held-out" / name
    bench_quality.main([*COMMON, "--checkpoint", f"{name}={WEIGHTS}", "--out", str(out)])

"""The held-out run of README.md, once the rule had decided: the quality benchmark's six held-out clips (5 frames,
σ = 10, 15, 25 and 50, σ estimated as `clean --sigma auto` does), the shipped default with the clipping's bias undone
and without, in one run; then merged with BM4D's rows of benchmarks/results/quality/ (the same noisy frames: the
noise is a function of the seed, clip and σ).

    .venv/bin/python benchmarks/results/clipping/held_out.py            # both, or name one: before, unclip
    .venv/bin/python benchmarks/results/clipping/held_out.py light      # σ = 0, 2 and 5 (the light-noise targets)
    .venv/bin/python benchmarks/bench_quality.py --from-csv benchmarks/results/quality/quality.csv \
        --from-csv benchmarks/results/clipping/held-out/before/quality.csv \
        --from-csv benchmarks/results/clipping/held-out/unclip/quality.csv
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_quality  # noqa: E402

COMMON = ["--frames", "5", "--methods", "noisy,models", "--modes", "auto"]
WEIGHTS = str(ROOT / "videodenoise/checkpoints/dust-video.safetensors")

RUNS = {"before": 0, "unclip": 1}
LIGHT = "light" in sys.argv[1:]  # the light-noise targets' σ instead, into held-out-light/

for name in [a for a in sys.argv[1:] if a in RUNS] or RUNS:  # e.g. `held_out.py unclip`: that run alone
    out = ROOT / "benchmarks/results/clipping" / ("held-out-light" if LIGHT else "held-out") / name
    sigmas = ["--sigmas", "0,2,5" if LIGHT else "10,15,25,50"]
    checkpoint = f"{name}={WEIGHTS},unclip={'on' if RUNS[name] else 'off'}"  # the module constant UNCLIP until 24f6c21
    bench_quality.main([*COMMON, *sigmas, "--checkpoint", checkpoint, "--out", str(out)])

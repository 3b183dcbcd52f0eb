"""The real-noise benchmark's run of the shipped default with the fit's lift, for the README's table: its six held-out
clips, 5 frames, every level and CRF, the default alone (ffmpeg's filters and the σ sweep come from earlier runs on
the same noisy frames); then merged with them. The merge's command:

    .venv/bin/python benchmarks/results/codec-lift/benchmark.py
    .venv/bin/python benchmarks/bench_realnoise.py --from-csv benchmarks/results/realnoise/realnoise.csv \
        --from-csv benchmarks/results/fftdnoiz/held-out/realnoise.csv \
        --from-csv benchmarks/results/camera-gamma/held-out/camera-gamma/realnoise.csv \
        --from-csv benchmarks/results/codec-lift/held-out/codec-lift/realnoise.csv \
        --noisy-tolerance 0.03 --merged-out benchmarks/results/codec-lift/held-out/merged
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_realnoise  # noqa: E402

SKIP = "sigma-sweep,one-sigma,nlm-opencv,cbm3d,dctdnoiz,nlmeans,atadenoise,bm3d,fftdnoiz,fftdnoiz-temporal"
WEIGHTS = str(ROOT / "videodenoise/checkpoints/dust-video.safetensors")
out = str(ROOT / "benchmarks/results/codec-lift/held-out/codec-lift")
bench_realnoise.main(["--frames", "5", "--skip", SKIP, "--checkpoint", f"codec-lift={WEIGHTS}", "--out", out])

"""The real-noise benchmark's `clean` rows, once the rule had decided: its six held-out clips (5 frames) through the
camera model at every level and CRF, the shipped default with the clipping's bias undone and without, each in its
own run; then merged with ffmpeg's filters of benchmarks/results/realnoise/ and fftdnoiz/held-out/ (the oracle of
docs/realnoise.md).

    .venv/bin/python benchmarks/results/clipping/realnoise_held_out.py            # both, or name one: before, unclip
    .venv/bin/python benchmarks/bench_realnoise.py --from-csv benchmarks/results/realnoise/realnoise.csv \
        --from-csv benchmarks/results/fftdnoiz/held-out/realnoise.csv \
        --from-csv benchmarks/results/clipping/held-out-camera/before/realnoise.csv \
        --from-csv benchmarks/results/clipping/held-out-camera/unclip/realnoise.csv \
        --noisy-tolerance 0.03 --merged-out benchmarks/results/clipping/held-out-camera/merged
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_realnoise  # noqa: E402

SKIP = "sigma-sweep,one-sigma,nlm-opencv,cbm3d,dctdnoiz,nlmeans,atadenoise,bm3d,fftdnoiz,fftdnoiz-temporal"
WEIGHTS = str(ROOT / "videodenoise/checkpoints/dust-video.safetensors")
RUNS = {"before": 0, "unclip": 1}

for name in sys.argv[1:] or RUNS:
    out = ROOT / "benchmarks/results/clipping/held-out-camera" / name
    # the module constant UNCLIP until 24f6c21; the camera gamma's correction came after these runs
    checkpoint = f"{name}={WEIGHTS},unclip={'on' if RUNS[name] else 'off'},camera_bias=off"
    bench_realnoise.main(["--frames", "5", "--skip", SKIP, "--checkpoint", checkpoint, "--out", str(out)])

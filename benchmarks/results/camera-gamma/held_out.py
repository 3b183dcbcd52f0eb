"""The held-out runs of README.md, once the rule had decided: the real-noise benchmark's six held-out clips (5 frames,
every level and CRF) with the shipped default, a camera gamma's bias undone and not, each in its own run; and the
quality benchmark's six held-out clips under Gaussian noise (σ = 0, 2, 5, 10, 25; σ auto), with it and without; then
(`camera-presets`) the balanced and best presets under camera noise with it, for the README's table.

    .venv/bin/python benchmarks/results/camera-gamma/held_out.py            # the first four, or name some of:
    .venv/bin/python benchmarks/results/camera-gamma/held_out.py camera-presets   # one run
    .venv/bin/python benchmarks/bench_realnoise.py --from-csv benchmarks/results/realnoise/realnoise.csv \
        --from-csv benchmarks/results/fftdnoiz/held-out/realnoise.csv \
        --from-csv benchmarks/results/camera-gamma/held-out/camera-before/realnoise.csv \
        --from-csv benchmarks/results/camera-gamma/held-out/camera-gamma/realnoise.csv \
        --noisy-tolerance 0.03 --merged-out benchmarks/results/camera-gamma/held-out/merged
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_quality  # noqa: E402
import bench_realnoise  # noqa: E402

SKIP = "sigma-sweep,one-sigma,nlm-opencv,cbm3d,dctdnoiz,nlmeans,atadenoise,bm3d,fftdnoiz,fftdnoiz-temporal"
WEIGHTS = str(ROOT / "videodenoise/checkpoints/dust-video.safetensors")
WIDE = str(ROOT / "videodenoise/checkpoints/dust-video-wide.safetensors")
PRESETS = ["--checkpoint", f"balanced={WEIGHTS},quality=balanced"]
PRESETS += ["--checkpoint", f"best={WIDE},quality=best,calibrate=off"]
RUNS = {"camera-before": 0, "camera-gamma": 1, "gaussian-before": 0, "gaussian-gamma": 1, "camera-presets": 1}

for name in sys.argv[1:] or list(RUNS)[:4]:
    out = str(ROOT / "benchmarks/results/camera-gamma/held-out" / name)
    switch = f",camera_bias={'on' if RUNS[name] else 'off'}"  # the module constant CAMERA_BIAS until f1b2c0d
    models = PRESETS if name == "camera-presets" else ["--checkpoint", f"{name}={WEIGHTS}{switch}"]
    checkpoint = [*models, "--out", out]
    if name.startswith("camera"):
        bench_realnoise.main(["--frames", "5", "--skip", SKIP, *checkpoint])
    else:
        common = ["--frames", "5", "--methods", "noisy,models", "--modes", "auto", "--sigmas", "0,2,5,10,25"]
        bench_quality.main([*common, *checkpoint])

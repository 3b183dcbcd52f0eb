"""Why grace-hopper-pan loses (a diagnosis after the held-out run, not a choice): its mean error per band of true
intensity, the default with a camera gamma's bias undone and without, heavy camera noise at CRF 23; and what the
first frame's skew test and fit found.

    .venv/bin/python benchmarks/results/camera-gamma/dark_background.py > \
        benchmarks/results/camera-gamma/dark_background.log
"""

import sys
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "benchmarks"))

from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT  # noqa: E402
from videodenoise.noise.estimation import estimate_clip_noise  # noqa: E402

import bench_quality as quality  # noqa: E402
import bench_realnoise  # noqa: E402

denoisers = {value: quality.load_denoiser(DEFAULT_CHECKPOINT, {"camera_bias": value}) for value in ("off", "on")}
clip = quality.build_clips(["grace-hopper-pan"], 5, quality.DEFAULT_SIZE)[0]
draw = bench_realnoise.camera_draw(clip, "heavy", "h264", 23)
noisy = torch.from_numpy(draw).float() / 255
estimate = estimate_clip_noise(noisy)
fitted = []  # the correction `clean` fitted on the first frame, as its report line gets it
with_it = denoisers["on"].denoise_frames(iter(noisy), estimate, on_camera_bias=fitted.append)
outputs = {"off": denoisers["off"].denoise_clip(noisy, estimate).numpy(), "on": torch.stack(list(with_it)).numpy()}
found = fitted[0]
shots, reads = ", ".join(f"{a:.4f}" for a in found.shots), ", ".join(f"{b:.5f}" for b in found.reads)
print(f"grace-hopper-pan, heavy, CRF 23: S = {found.skew:.2f}; a per channel {shots} (the camera's 0.02 × gain)")
print(f"b per channel {reads} (the camera's 0.001 × gain²)")
clean = clip.frames / 255.0
band = np.minimum((clean * 8).astype(int), 7)
print("| true intensity | pixels | mean error without (levels) | RMSE | mean error with | RMSE |")
print("|---|---:|---:|---:|---:|---:|")
for k in range(8):
    inside = band == k
    errors = [(outputs[v] - clean)[inside] * 255 for v in ("off", "on")]
    cells = " | ".join(f"{e.mean():+.2f} | {np.sqrt(np.mean(e**2)):.2f}" for e in errors)
    print(f"| {k / 8:.3f}-{(k + 1) / 8:.3f} | {inside.sum()} | {cells} |")

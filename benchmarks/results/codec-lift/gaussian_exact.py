"""The rule's Gaussian test to more places than validation_sweep.py prints (two): as taken, Gaussian σ = 0, 2, 10,
25 (the sweep's draws), the twelve validation clips, CODEC_LIFT = 1 against 1.2 and 1.4; condition means to 4
places, and which clips moved and whether the gamma step engaged. Log beside it.

    .venv/bin/python benchmarks/results/codec-lift/gaussian_exact.py > benchmarks/results/codec-lift/gaussian_exact.log
"""

import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import bench_quality as quality  # noqa: E402
from validation_sweep import GAUSSIAN_SIGMAS  # noqa: E402

from videodenoise.denoise import camera_bias  # noqa: E402
from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT  # noqa: E402
from videodenoise.noise.estimation import estimate_clip_noise  # noqa: E402

NAMES = (
    "motorcycle-right-pan,cell-pan,clock-motion-pan,page-pan,china-pan,flower-pan,china-objects,flower-objects,"
    "motorcycle-right-objects,cell-objects,clock-motion-objects,page-objects"
).split(",")
denoiser = quality.load_denoiser(DEFAULT_CHECKPOINT, {})
clips = quality.build_clips(NAMES, 5, quality.DEFAULT_SIZE)
for sigma in GAUSSIAN_SIGMAS:
    scores, engaged = {1.0: [], 1.2: [], 1.4: []}, []
    for clip in clips:
        noisy = quality.add_noise_uint8(clip.frames, sigma, quality.noise_seed(clip.name, sigma, 0))
        frames = torch.from_numpy(noisy).float() / 255
        estimate = estimate_clip_noise(frames)
        for lift in scores:
            camera_bias.CODEC_LIFT, fitted = lift, []
            output = torch.stack(list(denoiser.denoise_frames(frames, estimate, on_camera_bias=fitted.append)))
            scores[lift].append(quality.measure(output.numpy(), clip.frames)["psnr"])
        engaged.append(bool(fitted))
    camera_bias.CODEC_LIFT = 1.0
    means = " ".join(f"{lift:g}: {np.mean(values):.4f}" for lift, values in scores.items())
    moved = [f"{n} {b - a:+.4f}" for n, a, b in zip(NAMES, scores[1.0], scores[1.2]) if a != b]
    steps = [n for n, on in zip(NAMES, engaged) if on]
    print(f"σ = {sigma:g}: {means}; moved at 1.2: {', '.join(moved) or 'none'}; the step engaged on: {', '.join(steps) or 'none'}")

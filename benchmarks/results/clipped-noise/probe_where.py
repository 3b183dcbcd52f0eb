"""After both versions failed: where the dark camera footage's loss sits (validation pans, the code as shipped). σ auto
against a told σ of 36 with the clipping's correction on and off, and σ auto's map scaled 2× (the model and the
correction both told it). Log beside it.

    .venv/bin/python benchmarks/results/clipped-noise/probe_where.py
"""

import dataclasses
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import bench_quality as quality  # noqa: E402
import bench_realnoise as realnoise  # noqa: E402

from videodenoise.denoise.denoiser import Denoiser  # noqa: E402
from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT  # noqa: E402
from videodenoise.noise.estimation import estimate_clip_noise  # noqa: E402

shipped = quality.load_denoiser(DEFAULT_CHECKPOINT, {})
plain = Denoiser(shipped.model, dataclasses.replace(shipped.settings, unclip=False, camera_bias=False), shipped.sigma_train)


def psnr(output: torch.Tensor, truth: np.ndarray) -> float:
    return quality.measure(output.numpy(), truth)["psnr"]


for name in ("cell-pan", "flower-pan", "china-pan", "motorcycle-right-pan"):
    for exposure in (0.125, 0.03125):
        clip = quality.underexposed(quality.build_clips([name], 5, quality.DEFAULT_SIZE)[0], exposure)
        for level in ("medium", "heavy"):
            noise = realnoise.camera_noise(level, "h264", 23)
            noisy = realnoise.add_camera_noise(clip.frames, noise, realnoise.camera_seed(name, level, "h264", 23))
            x = torch.from_numpy(noisy).float() / 255
            estimate = estimate_clip_noise(x)
            doubled = dataclasses.replace(
                estimate, sigmas=tuple(tuple(min(2 * s, 1.0) for s in row) for row in estimate.sigmas)
            )
            cells = {
                "auto": psnr(shipped.denoise_clip(x, estimate), clip.frames),
                "auto, no corrections": psnr(plain.denoise_clip(x, estimate), clip.frames),
                "auto map ×2": psnr(shipped.denoise_clip(x, doubled), clip.frames),
                "told 36": psnr(shipped.denoise_clip(x, 36 / 255), clip.frames),
                "told 36, no corrections": psnr(plain.denoise_clip(x, 36 / 255), clip.frames),
            }
            text = " | ".join(f"{key} {value:.2f}" for key, value in cells.items())
            print(f"{name:22s} ×{exposure:g} {level:6s} (σ̂ {estimate.level * 255:.1f}): {text}", flush=True)

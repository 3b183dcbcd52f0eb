"""After both decisions, for the next step: how much of the dark camera footage's loss an exact undoing of the
camera's bias would recover — an oracle, since it is told the camera model's own shot and read noise per channel
(a·g, b·g² for channel gains g = 1, 1 − spread, 1 + spread). `clean` σ auto with both corrections off, then every
value v mapped through the whole inverse m⁻¹ of m(x) = E[g(clip(x + n))] (`camera_bias.linear_noise_moments`), up and
down; against `clean` σ auto as shipped and told σ = 36. Four validation pans ×1/8 and ×1/32, medium and heavy noise,
H.264 CRF 23. Log beside it.

    .venv/bin/python benchmarks/results/clipped-noise/probe_black.py
"""

import dataclasses
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import bench_quality as quality  # noqa: E402
import bench_realnoise as realnoise  # noqa: E402

from videodenoise.denoise.camera_bias import VALUES, linear_noise_moments  # noqa: E402
from videodenoise.denoise.denoiser import Denoiser  # noqa: E402
from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT  # noqa: E402
from videodenoise.noise.estimation import estimate_clip_noise  # noqa: E402

shipped = quality.load_denoiser(DEFAULT_CHECKPOINT, {})
plain = Denoiser(shipped.model, dataclasses.replace(shipped.settings, unclip=False, camera_bias=False), shipped.sigma_train)


def inverse(output: np.ndarray, noise) -> np.ndarray:
    """(T, C, H, W) values in [0, 1] through m⁻¹ per channel, the camera's own (a, b) and channel gains."""
    out = np.empty_like(output)
    for channel, gain in enumerate((1.0, 1 - noise.spread, 1 + noise.spread)):
        mean, _ = linear_noise_moments(np.array(noise.a * gain), np.array(noise.b * gain**2))
        out[:, channel] = np.interp(output[:, channel], mean, VALUES)
    return out


for name in ("cell-pan", "flower-pan", "china-pan", "motorcycle-right-pan"):
    for exposure in (0.125, 0.03125):
        clip = quality.underexposed(quality.build_clips([name], 5, quality.DEFAULT_SIZE)[0], exposure)
        for level in ("medium", "heavy"):
            noise = realnoise.camera_noise(level, "h264", 23)
            noisy = realnoise.add_camera_noise(clip.frames, noise, realnoise.camera_seed(name, level, "h264", 23))
            x = torch.from_numpy(noisy).float() / 255
            estimate = estimate_clip_noise(x)
            bare = plain.denoise_clip(x, estimate).numpy()
            cells = {
                "σ auto": shipped.denoise_clip(x, estimate).numpy(),
                "told 36": shipped.denoise_clip(x, 36 / 255).numpy(),
                "σ auto, no corrections": bare,
                "σ auto, the camera's own inverse": inverse(bare, noise),
            }
            text = " | ".join(f"{key} {quality.measure(out, clip.frames)['psnr']:.2f}" for key, out in cells.items())
            print(f"{name:22s} ×{exposure:g} {level:6s}: {text}", flush=True)

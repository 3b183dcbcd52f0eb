"""The problem, before any change (the code as shipped): validation pans underexposed in linear light (night footage,
`bench_quality.underexposed`), 5 frames. `gaussian`: six pans as taken, ×1/8 and ×1/32, Gaussian σ = 10 and 25,
`clean` σ auto against the same told the true σ. `camera`: four pans ×1/8 and ×1/32, the camera model's medium and
heavy noise through H.264 CRF 23, σ auto against a sweep of told σ. Logs beside it.

    .venv/bin/python benchmarks/results/clipped-noise/probe.py gaussian > benchmarks/results/clipped-noise/probe-gaussian.log
    .venv/bin/python benchmarks/results/clipped-noise/probe.py camera > benchmarks/results/clipped-noise/probe-camera.log
"""

import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import bench_quality as quality  # noqa: E402
import bench_realnoise as realnoise  # noqa: E402

from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT  # noqa: E402
from videodenoise.noise.estimation import estimate_clip_noise  # noqa: E402

PANS = ["cell-pan", "flower-pan", "china-pan", "motorcycle-right-pan", "clock-motion-pan", "page-pan"]
SWEEP = (10, 14, 20, 28, 36, 48)
denoiser = quality.load_denoiser(DEFAULT_CHECKPOINT, {})


def psnr(noisy: np.ndarray, clip: quality.Clip, sigma) -> float:
    """`clean`'s PSNR (dB) on uint8 noisy frames, told sigma (σ on [0, 1], or "auto")."""
    frames = torch.from_numpy(noisy).float() / 255
    return quality.measure(denoiser.denoise_clip(frames, sigma=sigma).numpy(), clip.frames)["psnr"]


mode = sys.argv[1] if len(sys.argv) > 1 else "gaussian"
for exposure in (1.0, 0.125, 0.03125) if mode == "gaussian" else (0.125, 0.03125):
    for noise in (10, 25) if mode == "gaussian" else ("medium", "heavy"):
        gaps = []
        for name in PANS if mode == "gaussian" else PANS[:4]:
            clip = quality.build_clips([name], 5, quality.DEFAULT_SIZE)[0]
            clip = quality.underexposed(clip, exposure) if exposure != 1 else clip
            if mode == "gaussian":
                noisy = quality.add_noise_uint8(clip.frames, noise, quality.noise_seed(name, noise))
                told = {noise: psnr(noisy, clip, noise / 255)}
            else:
                camera = realnoise.camera_noise(noise, "h264", 23)
                noisy = realnoise.add_camera_noise(clip.frames, camera, realnoise.camera_seed(name, noise, "h264", 23))
                told = {sigma: psnr(noisy, clip, sigma / 255) for sigma in SWEEP}
            best = max(told, key=told.get)
            auto = psnr(noisy, clip, "auto")
            level = estimate_clip_noise(torch.from_numpy(noisy).float() / 255).level * 255
            gaps.append(auto - told[best])
            sweep = " ".join(f"{value:.2f}" for value in told.values()) if len(told) > 1 else ""
            print(
                f"{name:22s} ×{exposure:g} {noise}: mean {clip.frames.mean():.0f} levels, σ̂ {level:.1f}; "
                f"σ auto {auto:.2f}, told {best} {told[best]:.2f} ({auto - told[best]:+.2f}) {sweep}",
                flush=True,
            )
        print(f"×{exposure:g} {noise}: σ auto − told, mean {np.mean(gaps):+.2f}, worst {min(gaps):+.2f}", flush=True)

"""Explored after the warning was built, nothing chosen on it: would σ auto do better on dark footage told more? The
estimated noise level function as it is, its curve (σ at every intensity: fusion, the model, the clipping's and the
gamma's corrections) times 1.4 and 2, and only what the model is told (`told_scale`) times 1.4 and 2. Validation pans
with a noisy mean level under 48 after darkening 4× and 8× (flower-pan and china-pan as taken too), 5 frames; camera
noise (H.264 CRF 23) and Gaussian σ = 10, 25. Then the luminance grain (`NoiseLevelFunction.luminance_grain`), which
tells codec-shaped camera noise from white noise as exposed (calibration's WHITE_GRAIN = 1.3), at four exposures on
eight validation clips, noise-free and Gaussian σ = 2-25 too. Logs beside it (`lift.log`, `grain.log`).

    .venv/bin/python benchmarks/results/night-hint/lift.py > benchmarks/results/night-hint/lift.log
    .venv/bin/python benchmarks/results/night-hint/lift.py grain > benchmarks/results/night-hint/grain.log
"""

import dataclasses
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import bench_quality as quality  # noqa: E402
import bench_realnoise as realnoise  # noqa: E402
from videodenoise.denoise import camera_bias  # noqa: E402
from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT  # noqa: E402
from videodenoise.noise.estimation import estimate_clip_noise  # noqa: E402

camera_bias.CODEC_LIFT = 1.0  # as run, before codec-lift (the gamma step's fit reading the curve as measured)

PANS = ["cell-pan", "flower-pan", "china-pan", "motorcycle-right-pan", "clock-motion-pan", "page-pan"]
denoiser = quality.load_denoiser(DEFAULT_CHECKPOINT, {})




VARIANTS = {
    "auto": lambda f: f,
    "curve1.4": lambda f: f.scaled(1.4),
    "curve2": lambda f: f.scaled(2.0),
    "told1.4": lambda f: dataclasses.replace(f, told_scale=1.4),
    "told2": lambda f: dataclasses.replace(f, told_scale=2.0),
}


def noisy_frames(clip: quality.Clip, name: str, noise):
    """uint8 frames: the camera model's noise through H.264 CRF 23 (a level's name), Gaussian σ, or none (0)."""
    if isinstance(noise, str):
        camera = realnoise.camera_noise(noise, "h264", 23)
        return realnoise.add_camera_noise(clip.frames, camera, realnoise.camera_seed(name, noise, "h264", 23))
    return quality.add_noise_uint8(clip.frames, noise, quality.noise_seed(name, noise)) if noise else clip.frames


def clip_at(name: str, exposure: float) -> quality.Clip:
    clip = quality.build_clips([name], 5, quality.DEFAULT_SIZE)[0]
    return quality.underexposed(clip, exposure) if exposure != 1 else clip


if sys.argv[1:] == ["grain"]:
    for exposure in (1.0, 0.25, 0.125, 0.03125):
        for name in PANS + ["cell-objects", "page-objects"]:
            clip, line = clip_at(name, exposure), []
            for noise in ("light", "medium", "heavy", 0, 2, 5, 10, 25):
                noisy = noisy_frames(clip, name, noise)
                function = estimate_clip_noise(torch.from_numpy(noisy).float() / 255)
                line.append(f"{noise}: mean {noisy.mean():.0f}, grain {function.luminance_grain:.2f}")
            print(f"{name:20s} ×{exposure:<7g} " + " | ".join(line), flush=True)
    sys.exit()
for exposure in (1.0, 0.25, 0.125):
    for name in PANS:
        if exposure == 1 and name not in ("flower-pan", "china-pan"):
            continue
        clip = clip_at(name, exposure)
        for noise in ("light", "medium", "heavy", 10, 25):
            noisy = noisy_frames(clip, name, noise)
            if exposure != 1 and noisy.mean() >= 48:
                continue
            frames = torch.from_numpy(noisy).float() / 255
            function = estimate_clip_noise(frames)
            scores = {
                label: quality.measure(denoiser.denoise_clip(frames, variant(function)).numpy(), clip.frames)["psnr"]
                for label, variant in VARIANTS.items()
            }
            text = " ".join(f"{label} {value:.2f}" for label, value in scores.items())
            print(f"{name:20s} x{exposure:<6g} {str(noise):6s} mean {noisy.mean():5.1f} {text}", flush=True)

"""Exploration (validation clips only): what calibration would choose, and gain, on footage that is not dark and whose
noise passes its white-noise test: the camera model's three levels without a codec, and Gaussian σ = 10 and 25,
`clean` fast, σ auto, 5 frames. Per clip-condition the PSNR told × 1 and told the chosen scale.

    .venv/bin/python benchmarks/results/nlf-extrapolation/calibrated.py CLIPS [EXPOSURE]
"""

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from validation_sweep import clip_draws  # noqa: E402

from videodenoise.denoise.calibration import choose_told_scale  # noqa: E402
from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT  # noqa: E402
from videodenoise.noise.estimation import estimate_clip_noise  # noqa: E402

import bench_quality as quality  # noqa: E402
from _machine import cpu_name  # noqa: E402

names = sys.argv[1].split(",")
exposure = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
denoiser = quality.load_denoiser(DEFAULT_CHECKPOINT, {"calibrate_dark": "off"})
print(f"told × 1 against calibrated, noise that reads as white; exposure ×{exposure:g}; {cpu_name()}, 2 threads")
for clip in quality.build_clips(names, 5, quality.DEFAULT_SIZE):
    clip = quality.underexposed(clip, exposure) if exposure != 1 else clip
    for condition, draw in clip_draws(clip, ("none",)):
        noisy = torch.from_numpy(draw).float() / 255
        estimate = estimate_clip_noise(noisy)
        before = quality.measure(denoiser.denoise_clip(noisy, estimate).numpy(), clip.frames)["psnr"]
        grain = ", ".join(f"{g:.2f}" for g in estimate.grain) or "()"
        if estimate.codec_shaped:
            print(f"{clip.name:24s} {condition:16s} grain {grain:16s} codec-shaped: × 1  {before:.2f}", flush=True)
            continue
        calibration = choose_told_scale(denoiser, noisy, estimate)
        after = quality.measure(denoiser.denoise_clip(noisy, calibration.applied_to(estimate)).numpy(), clip.frames)
        after = after["psnr"]
        print(
            f"{clip.name:24s} {condition:16s} grain {grain:16s} level {estimate.brightness * 255:5.1f} "
            f"chose × {calibration.scale:<5g} × 1 {before:.2f} chosen {after:.2f} ({after - before:+.2f})",
            flush=True,
        )

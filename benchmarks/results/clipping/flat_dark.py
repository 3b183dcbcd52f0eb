"""A flat dark clip (7.65 levels, 5 frames of 64×96 colour) under Gaussian noise σ = 25, clipped to 8 bits: the mean
the default returns with and without the correction, told σ and with σ auto (whose curve reads the clipped noise's
std in such shadows, under 25, and so undoes only part of the bias).

    .venv/bin/python benchmarks/results/clipping/flat_dark.py > flat_dark.log
"""

import dataclasses

import torch

from videodenoise.denoise.denoiser import Denoiser
from videodenoise.denoise.settings import PRESETS

settings = [dataclasses.replace(PRESETS["fast"], unclip=on) for on in (False, True)]
denoisers = [Denoiser.from_preset("fast", settings=chosen) for chosen in settings]
clean = torch.full((5, 3, 64, 96), 0.03)
noise = 25 / 255 * torch.randn(clean.shape, generator=torch.Generator().manual_seed(0))
noisy = (clean + noise).clamp(0, 1).mul(255).round().div(255)
print(f"true value {float(clean.mean()) * 255:.2f} levels; noisy mean {float(noisy.mean()) * 255:.2f}")
for sigma, said in ((25 / 255, "told σ = 25"), ("auto", "σ auto")):
    for value in (0, 1):
        out = denoisers[value].denoise_clip(noisy, sigma)
        rmse = float((out - clean).square().mean().sqrt()) * 255
        print(f"{said}, correction {'on' if value else 'off'}: mean {float(out.mean()) * 255:.2f}, RMSE {rmse:.2f} levels")

"""Before the plan: fusion matching each neighbour's exposure, on the pans over six *training* photographs of
fusion-radius/training_pans.py (never a benchmark or validation clip), 12 frames of 240×320, Gaussian σ = 25
told, the `fast` preset at radius 2 (as shipped) and 4, calibration off, without and with match_exposure:
python benchmarks/results/exposure/training_pans.py (from the repository root; about 2 min on 2 cores)."""

import dataclasses

import numpy as np
import torch

from videodenoise.datasets.motion import camera_motion_clip, load_photo
from videodenoise.denoise.denoiser import Denoiser
from videodenoise.denoise.settings import PRESETS

PHOTOS = ("rocket", "motorcycle_left", "retina", "Minduka_Present_Blue_Pack", "camera", "moon")
SIGMA = 25
clips = [
    camera_motion_clip(load_photo(("matplotlib:" if name[0].isupper() else "skimage:") + name), 12, (240, 320), seed=i)
    for i, name in enumerate(PHOTOS)
]
generator = torch.Generator().manual_seed(SIGMA)  # the noise of fusion-radius/training_pans.py at σ = 25
noisy = [(clip + SIGMA / 255 * torch.randn(clip.shape, generator=generator)).clamp(0, 1) for clip in clips]
for radius in (2, 4):
    for matched in (False, True):
        settings = dataclasses.replace(PRESETS["fast"], calibrate=False)
        fusion = dataclasses.replace(settings.fusion, radius=radius, match_exposure=matched)
        denoiser = Denoiser.from_preset("fast", None, dataclasses.replace(settings, fusion=fusion))
        psnr = [
            float(-10 * torch.log10((denoiser.denoise_clip(n, sigma=SIGMA / 255) - c).pow(2).mean()))
            for c, n in zip(clips, noisy)
        ]
        print(
            f"σ = {SIGMA}, fast, radius {radius}, exposure {'matched' if matched else 'as is'}: "
            f"mean {np.mean(psnr):.2f} dB;",
            ", ".join(f"{p} {v:.2f}" for p, v in zip(PHOTOS, psnr)),
            flush=True,
        )

"""Before each plan: fusion matching each neighbour's exposure, on the pans over six *training* photographs of
fusion-radius/training_pans.py (never a benchmark or validation clip), 12 frames of 240×320, Gaussian σ = 25
told, the `fast` preset, calibration off: at radius 2 (as shipped) and 4, without and with match_exposure (before
the first plan), then matched at radius 2, 3 and 4 along chained flows (chain_flows) and at 3 along direct ones
(before the second): python benchmarks/results/exposure/training_pans.py (from the repository root; about 4 min on
2 cores)."""

import dataclasses
import time

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
ARMS = [(radius, matched, False) for radius in (2, 4) for matched in (False, True)]
ARMS += [(3, True, False)] + [(radius, True, True) for radius in (2, 3, 4)]  # (radius, matched, chained)
for radius, matched, chained in ARMS:
    settings = dataclasses.replace(PRESETS["fast"], calibrate=False)
    fusion = dataclasses.replace(settings.fusion, radius=radius, match_exposure=matched, chain_flows=chained)
    denoiser = Denoiser.from_preset("fast", None, dataclasses.replace(settings, fusion=fusion))
    start = time.perf_counter()
    psnr = [
        float(-10 * torch.log10((denoiser.denoise_clip(n, sigma=SIGMA / 255) - c).pow(2).mean()))
        for c, n in zip(clips, noisy)
    ]
    seconds = (time.perf_counter() - start) / sum(len(n) for n in noisy)
    print(
        f"σ = {SIGMA}, fast, radius {radius}, exposure {'matched' if matched else 'as is'}"
        f"{', chained flows' if chained else ''}: "
        f"mean {np.mean(psnr):.2f} dB, {seconds:.3f} s/frame;",
        ", ".join(f"{p} {v:.2f}" for p, v in zip(PHOTOS, psnr)),
        flush=True,
    )

"""After the decision, a check of where more neighbours cost: pans over six *training* photographs (never a benchmark
or validation clip; nothing is chosen on them), 12 frames of 240×320, Gaussian σ = 10 and 25 (σ told), the `fast`
preset at radius 2 (as shipped) and 4, and `best` (calibration off) at radius 3 and 4 (as shipped):
python benchmarks/results/fusion-radius/training_pans.py (from the repository root; about 15 min on 2 cores)."""

import dataclasses

import numpy as np
import torch

from videodenoise.datasets.motion import camera_motion_clip, load_photo
from videodenoise.denoise.denoiser import Denoiser
from videodenoise.denoise.settings import PRESETS

PHOTOS = ("rocket", "motorcycle_left", "retina", "Minduka_Present_Blue_Pack", "camera", "moon")
clips = [
    camera_motion_clip(load_photo(("matplotlib:" if name[0].isupper() else "skimage:") + name), 12, (240, 320), seed=i)
    for i, name in enumerate(PHOTOS)
]
for sigma, presets in ((10, ("fast",)), (25, ("fast", "best"))):
    generator = torch.Generator().manual_seed(sigma)
    noisy = [(clip + sigma / 255 * torch.randn(clip.shape, generator=generator)).clamp(0, 1) for clip in clips]
    for name in presets:
        settings = dataclasses.replace(PRESETS[name], calibrate=False)
        shipped = settings.fusion.radius
        rows = {}
        for radius in sorted({shipped, 2 if name == "fast" else 3, 4}):
            fusion = dataclasses.replace(settings.fusion, radius=radius)
            denoiser = Denoiser.from_preset(name, None, dataclasses.replace(settings, fusion=fusion))
            rows[radius] = [
                float(-10 * torch.log10((denoiser.denoise_clip(n, sigma=sigma / 255) - c).pow(2).mean()))
                for c, n in zip(clips, noisy)
            ]
            print(
                f"σ = {sigma}, {name}, radius {radius}: mean {np.mean(rows[radius]):.2f} dB;",
                ", ".join(f"{p} {v:.2f}" for p, v in zip(PHOTOS, rows[radius])),
                flush=True,
            )
        low, high = min(rows), max(rows)
        print(
            f"  radius {high} − {low}:",
            ", ".join(f"{p} {b - a:+.2f}" for p, a, b in zip(PHOTOS, rows[low], rows[high])),
            f"(mean {np.mean(rows[high]) - np.mean(rows[low]):+.2f})",
            flush=True,
        )

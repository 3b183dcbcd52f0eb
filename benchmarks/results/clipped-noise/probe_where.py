"""After both versions failed: where the dark camera footage's loss sits (validation pans, the code as shipped). σ auto
against a told σ of 36 with the clipping's correction on and off, and σ auto's map scaled 2× (the model and the
correction both told it). Log beside it.

    .venv/bin/python benchmarks/results/clipped-noise/probe_where.py
"""

import dataclasses
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from dark import bare, draws, psnr, shipped  # noqa: E402

from videodenoise.noise.estimation import estimate_clip_noise  # noqa: E402

for name, exposure, level, clip, _, x in draws():
    estimate = estimate_clip_noise(x)
    doubled = dataclasses.replace(estimate, sigmas=tuple(tuple(min(2 * s, 1.0) for s in row) for row in estimate.sigmas))
    cells = {
        "auto": psnr(shipped.denoise_clip(x, estimate), clip),
        "auto, no corrections": psnr(bare.denoise_clip(x, estimate), clip),
        "auto map ×2": psnr(shipped.denoise_clip(x, doubled), clip),
        "told 36": psnr(shipped.denoise_clip(x, 36 / 255), clip),
        "told 36, no corrections": psnr(bare.denoise_clip(x, 36 / 255), clip),
    }
    text = " | ".join(f"{key} {value:.2f}" for key, value in cells.items())
    print(f"{name:22s} ×{exposure:g} {level:6s} (σ̂ {estimate.level * 255:.1f}): {text}", flush=True)

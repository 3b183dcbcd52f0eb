"""What σ auto's curve says in the shadows of camera noise without a codec (a lead for the read noise, found after
the held-out run): 4 frames of a grey 128×160 ramp over [0.02, 0.98], heavy camera noise (a = 0.02, b = 0.001, no
spread, no mix, 8 bits, no codec), the curve at its knots against the exact std of g(clip(x + n, 0, 1)), and the
(a, b) the correction fits to it.

    .venv/bin/python benchmarks/results/camera-gamma/curve_in_shadows.py > \
        benchmarks/results/camera-gamma/curve_in_shadows.log
"""

import numpy as np
import torch

from videodenoise.denoise.camera_bias import GammaBias, linear_noise_moments
from videodenoise.denoise.denoiser import Denoiser
from videodenoise.noise.camera import CameraNoise
from videodenoise.noise.estimation import estimate_clip_noise

SHOT, READ = 0.02, 0.001
clean = torch.linspace(0.02, 0.98, 128 * 160).view(1, 1, 128, 160).expand(4, 1, 128, 160).clone()
noise = CameraNoise(a=SHOT, b=READ, spread=0.0, mix=0.0, codec="none")
noisy = noise(clean, generator=torch.Generator().manual_seed(0))
estimate = estimate_clip_noise(noisy)
fitted: list[GammaBias] = []
list(Denoiser.from_preset("fast").denoise_frames(iter(noisy), estimate, on_camera_bias=fitted.append))
mean, variance = linear_noise_moments(np.array(SHOT), np.array(READ))
print("| knot | σ auto (levels) | the noise's std |\n|---:|---:|---:|")
for knot, sigma in zip(estimate.knots, estimate.sigmas[0]):
    print(f"| {knot:.3f} | {sigma * 255:.2f} | {np.sqrt(np.interp(knot, mean, variance)) * 255:.2f} |")
shot, read = fitted[0].shots[0], fitted[0].reads[0]
print(f"\nfitted to the curve: a = {shot:.3g}, b = {read:.3g} (the camera's {SHOT}, {READ})")

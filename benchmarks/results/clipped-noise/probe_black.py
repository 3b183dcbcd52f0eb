"""After both decisions, for the next step: how much of the dark camera footage's loss an exact undoing of the
camera's bias would recover — an oracle, since it is told the camera model's own shot and read noise per channel
(a·g, b·g² for channel gains g = 1, 1 − spread, 1 + spread). `clean` σ auto with both corrections off, then every
value v mapped through the whole inverse m⁻¹ of m(x) = E[g(clip(x + n))] (`camera_bias.linear_noise_moments`), up and
down; against `clean` σ auto as shipped and told σ = 36. Four validation pans ×1/8 and ×1/32, medium and heavy noise,
H.264 CRF 23. Log beside it.

    .venv/bin/python benchmarks/results/clipped-noise/probe_black.py
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from dark import bare, draws, psnr, shipped  # noqa: E402

from videodenoise.denoise.camera_bias import VALUES, linear_noise_moments  # noqa: E402
from videodenoise.noise.estimation import estimate_clip_noise  # noqa: E402


def inverse(output: np.ndarray, pairs) -> np.ndarray:
    """(T, C, H, W) values in [0, 1] through m⁻¹ per channel, for (shot, read) noise per channel."""
    out = np.empty_like(output)
    for channel, (shot, read) in enumerate(pairs):
        mean, _ = linear_noise_moments(np.array(shot), np.array(read))
        out[:, channel] = np.interp(output[:, channel], mean, VALUES)
    return out


def camera_pairs(noise) -> list[tuple[float, float]]:
    """The camera model's own (a·g, b·g²) per channel, for channel gains g = 1, 1 − spread, 1 + spread."""
    return [(noise.a * g, noise.b * g * g) for g in (1.0, 1 - noise.spread, 1 + noise.spread)]


if __name__ == "__main__":
    for name, exposure, level, clip, noise, x in draws():
        estimate = estimate_clip_noise(x)
        output = bare.denoise_clip(x, estimate).numpy()
        cells = {
            "σ auto": psnr(shipped.denoise_clip(x, estimate), clip),
            "told 36": psnr(shipped.denoise_clip(x, 36 / 255), clip),
            "σ auto, no corrections": psnr(output, clip),
            "σ auto, the camera's own inverse": psnr(inverse(output, camera_pairs(noise)), clip),
        }
        text = " | ".join(f"{key} {value:.2f}" for key, value in cells.items())
        print(f"{name:22s} ×{exposure:g} {level:6s}: {text}", flush=True)

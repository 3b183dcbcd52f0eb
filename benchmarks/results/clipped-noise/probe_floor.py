"""A lead for the next step, explored after both decisions (nothing chosen on it): the read noise b from the lift of
black. Where a video has black, its darkest regions sit at m(0) = E[g(clip(n))], which depends on b alone; the
codec keeps that mean while it smooths the noise away. Per channel: shot noise a fitted as the gamma step fits it
(`GammaBias`, on the first frame), b read off the output's 0.5th percentile as m_{a,b}(0), then every value through
the whole inverse m⁻¹ (up and down). Against `clean` σ auto as shipped and the camera's own (a, b) (the oracle of
`probe_black.py`). Four validation pans as taken, ×1/8 and ×1/32; medium and heavy camera noise, H.264 CRF 23. Log
beside it.

    .venv/bin/python benchmarks/results/clipped-noise/probe_floor.py
"""

import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from dark import bare, draws, psnr, shipped  # noqa: E402
from probe_black import camera_pairs, inverse  # noqa: E402

from videodenoise.denoise import camera_bias  # noqa: E402
from videodenoise.noise.estimation import estimate_clip_noise  # noqa: E402

FLOOR = 0.5  # percentile of the output taken for black's level
means = camera_bias._grid()[0]  # (shots, reads, values)


def floor_pairs(noisy: torch.Tensor, output: np.ndarray, estimate) -> list[tuple[float, float]] | None:
    """(a fitted as the gamma step does, b from the floor) per channel; None if the step would not apply."""
    bias = camera_bias.GammaBias(estimate)
    table = bias._fit(noisy[0], torch.from_numpy(output[0]))
    if table is None or not len(table):
        return None
    pairs = []
    for channel, shot in enumerate(bias.shots):
        level = np.percentile(output[:, channel], FLOOR)
        row = means[np.searchsorted(camera_bias.SHOTS, shot), :, 0]  # m(0) along b: increasing
        pairs.append((shot, float(camera_bias.READS[np.argmin(np.abs(row - level))])))
    return pairs


rows = []
for name, exposure, level, clip, noise, x in draws((1.0, 0.125, 0.03125)):
    estimate = estimate_clip_noise(x)
    output = bare.denoise_clip(x, estimate).numpy()
    pairs = floor_pairs(x, output, estimate)
    scores = {
        "σ auto": psnr(shipped.denoise_clip(x, estimate), clip),
        "floor's b": None if pairs is None else psnr(inverse(output, pairs), clip),
        "camera's own": psnr(inverse(output, camera_pairs(noise)), clip),
    }
    rows.append((exposure, scores))
    reads = "step off" if pairs is None else "b " + ", ".join(f"{b:.2g}" for _, b in pairs)
    text = " | ".join(f"{k} {'—' if v is None else f'{v:.2f}'}" for k, v in scores.items())
    print(f"{name:22s} ×{exposure:g} {level:6s} (true b {noise.b:g}; {reads}): {text}", flush=True)
for exposure in (1.0, 0.125, 0.03125):
    gaps = [s["floor's b"] - s["σ auto"] for e, s in rows if e == exposure and s["floor's b"] is not None]
    text = f"mean {np.mean(gaps):+.2f}, {min(gaps):+.2f} to {max(gaps):+.2f}" if gaps else "none"
    print(f"×{exposure:g}: floor's b − σ auto over {len(gaps)} where the step applied: {text}")

"""Can a third frame gap tell carried noise from texture residue? (Exploration on validation clips; no change made.)

σ auto reads the carried share c off frame pairs one and two apart: half-differences read σ_k² = σ²(1 − c^k), so
c = σ₂²/σ₁² − 1. On finely textured photographs compressed with no noise at all it reads c at its cap
(`../texture-overread/`): what the two gaps measure there is taken to be residue that grows with the gap. Carried
noise of that model grows less and less with the gap (σ₃² − σ₂² = c·(σ₂² − σ₁²), c < 1); residue that grows with
the gap as k or k² grows as much or more. So the ratio R = (σ₃² − σ₂²) / (σ₂² − σ₁²) would be about c for
carried noise and 1 or more for residue. Per clip-condition: σ₁, σ₂, σ₃ (0-255; the levels of the estimator's
curves carried flat, from pairs k frames apart over 9 frames), c and R.

    .venv/bin/python benchmarks/results/carried-lag3/probe.py > probe.log
"""

import math
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from codec_ceiling import codec_encoded  # noqa: E402

from videodenoise.noise import curve, estimation  # noqa: E402

import bench_quality as quality  # noqa: E402
import bench_realnoise as realnoise  # noqa: E402

CLIPS = "china-pan,china-objects,flower-pan,flower-objects,cell-pan,page-pan,motorcycle-right-pan,clock-motion-objects"
FRAMES = 9
curve.EXTRAPOLATION_LIMIT = 1.0  # the levels c is read off


def lag_levels(frames: torch.Tensor) -> list[float]:
    """The level (0-255) of pairs 1, 2 and 3 frames apart."""
    return [
        255 * estimation.estimate_noise([frames[t], frames[t + k]] for t in range(len(frames) - k)).level
        for k in (1, 2, 3)
    ]


def carried_noise(clean: np.ndarray, sigma: float, carried: float, seed: int = 0) -> np.ndarray:
    """A sanity row: Gaussian noise of σ carried over as n_t = c·n_(t−1) + √(1 − c²)·fresh."""
    generator = np.random.default_rng(seed)
    noise = [generator.standard_normal(clean.shape[1:])]
    for _ in range(1, len(clean)):
        noise.append(carried * noise[-1] + math.sqrt(1 - carried**2) * generator.standard_normal(clean.shape[1:]))
    return np.clip(np.round(clean + sigma * np.stack(noise)), 0, 255).astype(np.uint8)


print("clip | condition | σ₁, σ₂, σ₃ | c | R = (σ₃² − σ₂²)/(σ₂² − σ₁²)")
for clip in quality.build_clips(CLIPS.split(","), FRAMES, quality.DEFAULT_SIZE):
    draws = [(f"codec only CRF {crf}", codec_encoded(clip.frames, "h264", crf)) for crf in (18, 23, 28)]
    draws += [(f"medium CRF {crf}", realnoise.camera_draw(clip, "medium", "h264", crf)) for crf in (18, 23, 28)]
    draws += [("medium raw", realnoise.camera_draw(clip, "medium", "none", None))]
    draws += [(f"carried {c:g}, σ = 10", carried_noise(clip.frames.astype(np.float64), 10, c)) for c in (0, 0.3)]
    for condition, noisy in draws:
        one, two, three = lag_levels(torch.from_numpy(noisy).float() / 255)
        c = two**2 / one**2 - 1
        growth = two**2 - one**2
        ratio = (three**2 - two**2) / growth if abs(growth) > 1e-9 else float("nan")
        print(f"{clip.name} | {condition} | {one:.2f}, {two:.2f}, {three:.2f} | {c:+.3f} | {ratio:+.2f}", flush=True)

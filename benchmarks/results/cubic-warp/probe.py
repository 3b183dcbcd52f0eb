"""Does the estimate's bilinear warp read fine texture as noise? (A probe on clips read before, deciding nothing.)

σ auto compares each frame with its neighbours warped onto it (`FrameAligner.warp`, bilinear). Bilinear resampling
blurs what it moves by an amount that depends on the sub-pixel offset, so on fine texture with no noise the
difference keeps some scene, more at one offset than another: frames one and two apart need not blur alike, which
the carried share would read. Here the same estimate with the warp bicubic (OpenCV's, a = −0.75), its white-noise
variance factors (point and block, for the grain) worked out from the same kernel; next to it, the std of the
decoded input's error against the clean frames. Estimates only, nothing denoised.

    R=benchmarks/results/cubic-warp; .venv/bin/python $R/probe.py > $R/probe.log
"""

from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from estimator_knob import draws  # noqa: E402

import videodenoise.noise.grain as grain  # noqa: E402
from videodenoise.denoise import fusion  # noqa: E402
from videodenoise.noise.estimation import estimate_clip_noise  # noqa: E402

import bench_quality as quality  # noqa: E402
from _machine import cpu_name  # noqa: E402

CLIPS = [
    "china-pan",
    "flower-objects",
    "aero-objects",
    "gravel-objects",
    "grass-pan",
    "grass-objects",
    "ihc-pan",
    "motorcycle-right-pan",
    "dead-leaves-3-objects",
    "dead-leaves-grey-2-pan",
]
A = -0.75  # OpenCV's bicubic


def cubic_taps(fraction: np.ndarray) -> np.ndarray:
    """The four weights (…, 4) of taps −1, 0, 1, 2 at this sub-pixel fraction."""
    f = fraction[..., None]
    x = np.concatenate([f + 1, f, 1 - f, 2 - f], axis=-1)
    near = ((A + 2) * x - (A + 3)) * x * x + 1
    far = ((A * x - 5 * A) * x + 8 * A) * x - 4 * A
    return np.where(x <= 1, near, far)


def cubic_point_variance(coordinates: np.ndarray) -> np.ndarray:
    return np.square(cubic_taps(coordinates - np.floor(coordinates))).sum(-1)


def cubic_block_variance(fraction: np.ndarray, s: int) -> np.ndarray:
    """Σ c² / s for the coefficients c of the input samples in the sum of s neighbouring interpolated values."""
    taps = cubic_taps(fraction)  # (…, 4)
    coefficients = np.zeros(fraction.shape + (s + 3,))
    for k in range(s):
        coefficients[..., k : k + 4] += taps
    return np.square(coefficients).sum(-1) / s


def warp_cubic(self, other, flow):
    columns, rows = self._grid(flow.shape[:2])
    map_x, map_y = columns + flow[..., 0], rows + flow[..., 1]
    warped = cv2.remap(other, map_x, map_y, cv2.INTER_CUBIC, borderMode=cv2.BORDER_REFLECT)
    if warped.ndim == 2:
        warped = warped[..., None]
    variance = (cubic_point_variance(map_x) * cubic_point_variance(map_y)).astype(np.float32)
    return fusion.Alignment(warped, variance, map_x, map_y)


def grain_samples_cubic(difference, normalised, map_x, map_y, kept):
    """`grain.grain_samples` with the block variance factor of bicubic resampling."""
    s = grain.GRAIN_SCALE
    kernel = np.ones((s, s), np.uint8)
    whole = cv2.erode(kept.astype(np.uint8), kernel, borderValue=0).astype(bool)
    centres = np.flatnonzero(whole)
    centres = centres[:: max(1, -(-len(centres) // grain.MAX_BLOCKS))]
    if len(centres) == 0:
        return np.empty((0, difference.shape[2])), np.empty((0, difference.shape[2]))
    resampled = cubic_block_variance(map_x - np.floor(map_x), s) * cubic_block_variance(map_y - np.floor(map_y), s)
    block_variance = cv2.blur(resampled.astype(np.float32), (s, s)).ravel()[centres]
    means = cv2.blur(difference, (s, s)).reshape(-1, difference.shape[2])[centres]
    blocks = s * means / np.sqrt(1 + block_variance)[:, None]
    if blocks.shape[1] == 3:
        blocks = blocks @ grain.OPPONENT.double().numpy().T
    return normalised[cv2.dilate(whole.astype(np.uint8), kernel).astype(bool)], blocks


def main() -> None:
    import videodenoise.noise.estimation as estimation

    print(f"machine: {cpu_name()}, {torch.get_num_threads()} torch threads; 5 frames")
    print("clip | condition | error std (0-255) | bilinear: level, carried, luminance grain | bicubic: the same")
    linear_warp, linear_grain = fusion.FrameAligner.warp, estimation.grain_samples
    for clip in quality.build_clips(CLIPS, 5, quality.DEFAULT_SIZE):
        for condition, frames in draws(clip):
            noisy = torch.from_numpy(frames).float() / 255
            error = float(np.std(frames.astype(np.float64) - clip.frames))
            readings = []
            for warp, samples in ((linear_warp, linear_grain), (warp_cubic, grain_samples_cubic)):
                fusion.FrameAligner.warp, estimation.grain_samples = warp, samples
                function = estimate_clip_noise(noisy)
                readings.append(f"{function.level * 255:.2f}, {function.carried:.2f}, {function.luminance_grain:.2f}")
            fusion.FrameAligner.warp, estimation.grain_samples = linear_warp, linear_grain
            print(f"{clip.name} | {condition} | {error:.2f} | {readings[0]} | {readings[1]}", flush=True)


if __name__ == "__main__":
    main()

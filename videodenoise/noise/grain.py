"""The grain of a video's noise: how much more σ a model should be told than its per-pixel noise map says.

    pixels, blocks = grain_samples(d, d / √(1 + v), map_x, map_y, kept)   # per aligned frame pair
    grain = measure_grain([(pixels, blocks), ...])                         # one factor per channel

A model trained on white noise reads σ off what the noise does at the scale of its patches. Noise that
is correlated over neighbouring pixels, as a codec leaves it (H.264 empties the finest frequencies and
keeps a blotchy residue), as 4:2:0 chroma subsampling leaves it (colour averaged over 2×2 pixels) and
as a camera's colour matrix leaves it (R, G and B moving together), carries more power in block means
than white noise of the same per-pixel σ, and in other proportions per opponent colour channel. The
grain measures that on the motion-aligned frame differences the noise estimator already has
(`videodenoise.noise.estimation`): per channel a grey model sees, the σ of GRAIN_SCALE×GRAIN_SCALE block
means (times GRAIN_SCALE, which white noise leaves at σ) over the σ the noise map gives that channel.
The model is then told map × grain (`Denoiser`), fusion the map itself (it weighs pixel differences).

Measured on the real-noise benchmark's camera noise (H.264, CRF 18-28; docs/realnoise.md): luminance
1.5-3.4, the colour differences 0.3-1.0 (the colour matrix and 4:2:0 put less noise there than
independent R, G and B would); white Gaussian noise reads within WHITE of 1 and is left at 1. Why 4: the
default model's 8×8 patches move in steps of 4, and on the validation photographs 4 beat 6 and 8
(`benchmarks/validation_sweep.py --knob noise.grain.GRAIN_SCALE=4,6,8`): larger blocks leave too few
whole ones between a frame's edges. Even at 4, a clip with little flat area gets no grain (1): on the
benchmark, some clips at CRF 28. Under a sub-pixel flow the per-pixel σ of correlated noise reads high
(the estimator's notes), so the grain then reads low by up to that factor.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from videodenoise.colour import OPPONENT
from videodenoise.noise.robust import robust_sigma

GRAIN_SCALE = 4  # side of the blocks the grain is measured on: the default model's patch stride
WHITE = 0.1  # a grain within this of 1 is white noise's
MAX_GRAIN = 4.0
GRAIN_BLOCKS = 100  # disjoint blocks' worth of pixels for the grain: it then wavers by about 7 %
MAX_BLOCKS = 200_000  # block means kept from a pair


def grain_samples(
    difference: np.ndarray, normalised: np.ndarray, map_x: np.ndarray, map_y: np.ndarray, kept: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(pixels, blocks): the pair's d / √(1 + v) at the pixels of the GRAIN_SCALE² blocks kept whole
    (N×C, in the frames' channels), and the scaled means GRAIN_SCALE·mean(d) / √(1 + v_s) of those blocks
    (overlapping: one centred at each pixel of them, at most MAX_BLOCKS; M×C, in the channels a grey
    model sees: opponent colours for colour frames).

    v_s is what bilinear resampling leaves of white noise's variance in a block's sum: along each axis,
    with the sampling point a fraction f past a pixel, ((1 − f)² + s − 1 + f²) / s of it, s = GRAIN_SCALE
    (the flow taken as constant over the block, the fraction as at the block's pixels on average). For
    white noise of σ both samples then have σ; noise correlated over neighbouring pixels has more in its
    block means, which is what `_fit`'s grain measures."""
    s = GRAIN_SCALE
    kernel = np.ones((s, s), np.uint8)
    whole = cv2.erode(kept.astype(np.uint8), kernel, borderValue=0).astype(bool)  # blocks kept whole
    centres = np.flatnonzero(whole)
    centres = centres[:: max(1, math.ceil(len(centres) / MAX_BLOCKS))]
    if len(centres) == 0:
        return np.empty((0, difference.shape[2])), np.empty((0, difference.shape[2]))

    def axis(fraction: np.ndarray) -> np.ndarray:
        return (np.square(1 - fraction) + s - 1 + np.square(fraction)) / s

    resampled = axis(map_x - np.floor(map_x)) * axis(map_y - np.floor(map_y))
    block_variance = cv2.blur(resampled.astype(np.float32), (s, s)).ravel()[centres]
    means = cv2.blur(difference, (s, s)).reshape(-1, difference.shape[2])[centres]
    blocks = s * means / np.sqrt(1 + block_variance)[:, None]
    if blocks.shape[1] == 3:
        blocks = blocks @ OPPONENT.double().numpy().T
    return normalised[cv2.dilate(whole.astype(np.uint8), kernel).astype(bool)], blocks


def measure_grain(grains: list[tuple[np.ndarray, np.ndarray]]) -> tuple[float, ...]:
    """Per channel a grey model sees (opponent colours for colour frames): the σ of the block means over
    the σ the noise map gives that channel (√(Σ_c O[k, c]²·σ_c²), the frames' channels taken as
    independent), from the same pixels; () without GRAIN_BLOCKS blocks' worth, and 1 where it is within
    WHITE of 1 (white noise: what the measurement wavers by there), kept within [1/MAX_GRAIN, MAX_GRAIN]."""
    pixels = np.concatenate([p for p, _ in grains]) if grains else np.empty((0, 0))
    blocks = np.concatenate([b for _, b in grains]) if grains else np.empty((0, 0))
    if len(pixels) < GRAIN_BLOCKS * GRAIN_SCALE**2:  # as many pixels as GRAIN_BLOCKS disjoint blocks hold
        return ()
    per_channel = np.square([robust_sigma(pixels[:, c]) for c in range(pixels.shape[1])])
    if pixels.shape[1] == 3:
        per_channel = OPPONENT.double().square().numpy() @ per_channel
    out = []
    for channel, assumed in enumerate(np.sqrt(per_channel)):
        ratio = robust_sigma(blocks[:, channel]) / assumed if assumed > 0 else 1.0
        out.append(1.0 if abs(ratio - 1) < WHITE else min(max(ratio, 1 / MAX_GRAIN), MAX_GRAIN))
    return tuple(out)

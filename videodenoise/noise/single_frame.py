"""Noise read off single frames: the noise estimator's cross-check and its fallback.

    mean, variance = block_statistics(plane)             # per BLOCK×BLOCK block: a plane fitted, what is left
    sigma = flat_sigma(variance)                        # from the flattest blocks
    intensity, hh = finest_coefficients(plane, means)   # the finest Haar band, per 2×2 block (means: local)
    sigma = estimate_noise_sigma(frames)                # skimage's finest-band estimate, median over frames

A frame alone cannot tell noise from texture, so these are rough (`videodenoise.noise.estimation` measures
the noise on motion-aligned frame differences first). Flat patches: the QUANTILE-quantile of the variances
around a plane of BLOCK×BLOCK blocks, over the χ² quantile it stands for; texture lifts it, much more where a
frame has no flat area. The finest band: Haar HH coefficients, which white noise of σ gives σ and texture
little, but which a codec's smoothing lowers. The estimator takes the lower of the two per intensity bin
when no pair of frames can be used, and a pair whose difference holds far less noise than the finest band
shows is taken to share its noise (a repeated frame).

σ is on the [0, 1] scale. A decoded video clips at 0 and 1 (`at_clip_limits`): blocks and coefficients
touching a clipped value are left out, their noise having been cut off.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable

import numpy as np
import torch

from videodenoise.errors import VideoReadError

BLOCK = 8
QUANTILE = 0.2
MAX_SAMPLES = 200_000  # values kept from a frame, or from a pair of frames, at most


def block_statistics(plane: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(mean, variance around the best plane) of every unclipped BLOCK×BLOCK block of an H×W plane."""
    rows, cols = plane.shape[0] // BLOCK, plane.shape[1] // BLOCK
    if rows == 0 or cols == 0:
        return np.empty(0), np.empty(0)
    blocks = plane[: rows * BLOCK, : cols * BLOCK].reshape(rows, BLOCK, cols, BLOCK).transpose(0, 2, 1, 3)
    blocks = blocks.reshape(-1, BLOCK, BLOCK).astype(np.float64)
    unclipped = ~at_clip_limits(blocks).any(axis=(1, 2))
    blocks = blocks[unclipped]
    ramp = np.arange(BLOCK) - (BLOCK - 1) / 2  # orthogonal to the mean and to each other: fitted one by one
    mean = blocks.mean(axis=(1, 2))
    across = np.einsum("bij,j->b", blocks, ramp) / (BLOCK * np.square(ramp).sum())
    down = np.einsum("bij,i->b", blocks, ramp) / (BLOCK * np.square(ramp).sum())
    residual = blocks - mean[:, None, None] - across[:, None, None] * ramp[None, None, :]
    residual -= down[:, None, None] * ramp[None, :, None]
    return mean, np.square(residual).sum(axis=(1, 2)) / (BLOCK * BLOCK - 3)


def flat_sigma(variances: np.ndarray) -> float:
    """σ from blocks' variances around their planes: the QUANTILE-quantile over the χ² quantile it stands for."""
    # chi2.ppf(q, dof) through scipy.special (chdtri inverts the upper tail): importing scipy.stats took
    # 0.5 s of every `clean --sigma auto`'s start-up
    from scipy.special import chdtri

    dof = BLOCK * BLOCK - 3
    return math.sqrt(float(np.quantile(variances, QUANTILE)) / (chdtri(dof, 1 - QUANTILE) / dof))


def finest_coefficients(plane: np.ndarray, intensity: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(local mean intensity, Haar HH coefficient (a − b − c + d) / 2) of every unclipped 2×2 block of an
    H×W plane: white noise of σ gives coefficients of σ, texture little (a diagonal second difference), a
    codec's smoothed noise less than its σ: a lower bound that texture barely lifts."""
    rows, cols = plane.shape[0] // 2, plane.shape[1] // 2
    quads = [plane[i : 2 * rows : 2, j : 2 * cols : 2] for i in (0, 1) for j in (0, 1)]
    coefficient = (quads[0] - quads[1] - quads[2] + quads[3]) / 2
    keep = ~np.any([at_clip_limits(q) for q in quads], axis=0)
    index = np.flatnonzero(keep)
    index = index[:: max(1, math.ceil(len(index) / MAX_SAMPLES))]
    return intensity[: 2 * rows : 2, : 2 * cols : 2].ravel()[index], coefficient.ravel()[index]


def estimate_noise_sigma(frames: Iterable[torch.Tensor]) -> float:
    """The median over frames of skimage.restoration.estimate_sigma (the finest wavelet band's MAD,
    averaged over channels): a white Gaussian σ on the [0, 1] scale. Image texture makes it read a
    little high on clean frames; noise a codec has smoothed makes it read low (`videodenoise.noise.estimation`)."""
    from skimage.restoration import estimate_sigma

    values = []
    for frame in frames:
        image = frame.float().cpu().numpy().transpose(1, 2, 0)
        if image.shape[2] == 1:
            values.append(float(estimate_sigma(image[:, :, 0])))
        else:
            values.append(float(estimate_sigma(image, channel_axis=-1, average_sigmas=True)))
    if not values:
        raise VideoReadError("there are no frames to estimate the noise level on")
    values.sort()
    middle = len(values) // 2
    return values[middle] if len(values) % 2 else 0.5 * (values[middle - 1] + values[middle])


def finest_band_sigma(frames: list[torch.Tensor]) -> float:
    """`estimate_noise_sigma`, or 0 for frames too small for one wavelet level: the last resort."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sigma = estimate_noise_sigma(frames)
    except (ValueError, IndexError):  # too small for even one wavelet level
        return 0.0
    return sigma if math.isfinite(sigma) else 0.0


def at_clip_limits(values: np.ndarray) -> np.ndarray:
    """Values at exactly 0 or 1: a decoded video clips there (what lies beyond was never noise-free
    data, and its noise was cut off)."""
    return (values == 0) | (values == 1)

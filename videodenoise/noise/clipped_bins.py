"""σ where the noise was clipped: the bins of a dark (or bright) video, read by inverting the clipping.

Frame differences measure the noise as stored. Where a pixel's value lies within a few σ of 0 or 1 the stored
noise was clipped: its std is smaller than the noise's, and the part that was not clipped is cut off on one side.
The estimator leaves such pixels out of a bin's σ and carries the nearest less clipped bin's σ into bins made of
them; in a video whose every pixel is dark (night footage) there is no such bin, and σ came out at 0.6-0.9 of the
noise's (Gaussian σ = 25 on pans darkened 8× and 32× in linear light: 16-23), so `clean --sigma auto` lost up to
4.4 dB against the σ told by hand there, and 1-14 dB under camera noise (benchmarks/results/clipped-noise/).

Here a bin made mostly of such pixels (or one the estimator could not read) takes the σ whose clipped Gaussian
has the bin's mean and std (`videodenoise.denoise.clipping.unclipped_sigma`; A. Foi, "Clipped noisy images",
2009): the mean of the pixels' local means, the std of their frame differences (each divided by √(1 + v) as
the estimator's are, so it is the std of one frame's clipped noise), clipped values included.
"""

from __future__ import annotations

import numpy as np
import torch

from videodenoise.denoise.clipping import unclipped_sigma

CLIPPED_NOISE = True  # off: the bins the clipping emptied take their neighbours' σ, as before (validation knob)
TAIL = 0.001  # the differences' quantiles trimmed at each end: the flow's failures, not noise


def clipped_points(
    points: list[tuple[float, float, int] | None],
    intensity: np.ndarray,
    values: np.ndarray,
    risky: np.ndarray,
    bins: int,
    minimum: int,
) -> list[tuple[float, float, int] | None]:
    """The estimator's (mean intensity, σ, count) per bin, with each bin that holds `minimum` samples, most of
    them `risky` (pixels near 0 or 1), read instead from all its samples, clipped ones too, by the clipping's
    inverse. A bin unread for other reasons (few samples, odd content) is left to the estimator: the inverse
    amplifies what is not noise there, texture a flow did not align."""
    if not CLIPPED_NOISE or not risky.any():
        return points
    index = np.minimum((intensity * bins).astype(np.int64), bins - 1)
    chosen, means, stds = [], [], []
    for bin_ in range(len(points)):
        inside = index == bin_
        count = int(inside.sum())
        if count < minimum or 2 * int((risky & inside).sum()) <= count:
            continue
        low, high = np.quantile(values[inside], [TAIL, 1 - TAIL])
        kept = values[inside][(values[inside] >= low) & (values[inside] <= high)]
        chosen.append((bin_, count))
        means.append(float(intensity[inside].mean()))
        stds.append(float(kept.std()))
    if not chosen:
        return points
    sigmas = unclipped_sigma(torch.tensor(means, dtype=torch.float64), torch.tensor(stds, dtype=torch.float64))
    out = list(points)
    for (bin_, count), mean, sigma in zip(chosen, means, sigmas.tolist()):
        out[bin_] = (mean, sigma, count)
    return out

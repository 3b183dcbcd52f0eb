"""Pairs of frames that show two pictures: across a scene cut, or moving too fast for the flow to align them.

The motion-aligned difference d of such a pair holds picture, not noise, and σ auto's tests for pixels the flow
cannot be trusted on are relative to d's own spread, which the picture makes huge: most pixels pass, and with a cut
in one of its runs σ = 2 (of 255) read up to 27 and σ = 5 up to 64 (benchmarks/results/scene-cuts). σ auto counts
such runs and `clean` says so (`NoiseLevelFunction.unlike_runs`); leaving them out of the estimate failed its rules in
seven trials there (it moves fast pans' estimates, where the flow fails too). Comparing two pairs' σ cannot tell a cut:
under heavy noise a cut parts them by less than 2, and under H.264 two pairs of one scene part by more.

What tells it is d's picture: averaged over SCALE × SCALE cells (noise averages out; a picture stays), d of a pair
within one scene is what the flow leaves, a small part of the frame's own picture, and d across a cut is as large as
the picture itself. A pair is across a cut where, over the cells the flow filled (`cut_shares`):

* the spread of d's cell means is more than PICTURE_SHARE of the spread of the frame's cell means, and
* it is more than NOISE_SHARE of d's own (pixel) σ: in a flat or dark frame, noise is all the picture there is, and
  its cell means are as large against the frame's as a cut's; but noise loses most of its size in a cell mean, which
  a picture does not.

Both on the mean of the channels, and on d as the frames give it less its mean (a change of exposure shifts it
whole): the estimator's exposure fit (d less its line in the pair mean's intensity) takes most of a picture out of d
where the other frame's is flat. The shares were measured before the two limits were fixed (`thresholds.py` there):
512 pairs across a cut (144×176 clips, sixteen noise conditions) read at least 0.89 and 0.50; of 8,308 pairs within
a scene (the twelve validation clips at three exposures under nineteen conditions, and those cut clips away from the
cut), none read over 0.28 of the picture where it read over 0.4 of the noise, nor over 0.21 of the noise where it
read over 0.4 of the picture. Pans of 16 px a frame at 144×176 read as two pictures too (`fast_pans-fourth.log`).
"""

from __future__ import annotations

import cv2
import numpy as np

from videodenoise.noise.robust import robust_sigma

SCALE = 8  # pixels a side of the cells the picture is compared in
PICTURE_SHARE = 0.6
NOISE_SHARE = 0.35
MIN_CELLS = 16  # fewer cells filled by the flow say nothing
NOISE_PIXELS = 100_000  # d's σ is read on about this many of its pixels at most (all of them up to 320×240 or so)


def across_cut(difference: np.ndarray, frame: np.ndarray, trusted: np.ndarray) -> bool:
    """Whether a pair's motion-aligned difference (H, W, C) holds two pictures (see the notes): `frame` is the pair's
    first frame (H, W, C), `trusted` (H, W) where the flow filled the pixel."""
    shares = cut_shares(difference, frame, trusted)
    return shares is not None and shares[0] > PICTURE_SHARE and shares[1] > NOISE_SHARE


def cut_shares(difference: np.ndarray, frame: np.ndarray, trusted: np.ndarray) -> tuple[float, float] | None:
    """The spread of d's cell means over the frame's and over d's own σ (`across_cut`); None where too few cells are
    filled to say."""
    height, width = trusted.shape
    if height < 2 * SCALE or width < 2 * SCALE:
        return None
    size = (width // SCALE, height // SCALE)
    cells = lambda plane: cv2.resize(plane.astype(np.float32), size, interpolation=cv2.INTER_AREA)  # noqa: E731
    filled = cells(trusted) > 0.99
    if filled.sum() < MIN_CELLS:
        return None
    mean_difference = difference.mean(axis=2)
    left = float(cells(mean_difference)[filled].std())
    picture = float(cells(frame.mean(axis=2))[filled].std())
    pixels = mean_difference[trusted]
    noise = robust_sigma(pixels[:: max(1, len(pixels) // NOISE_PIXELS)])
    return left / max(picture, 1e-6), left / max(noise, 1e-6)

"""From noise samples binned by intensity to a noise level function's curve: σ per bin, then σ at every bin centre.

    points = binned(intensity, values, MIN_SAMPLES, robust_sigma, clipped, share)  # per bin: (x, σ, count) or None
    row = curve_through(points)                                                    # (BINS,) σ at CENTRES, or None

The estimator (`videodenoise.noise.estimation`) gathers samples, each a value whose spread is the noise (half a frame
difference, a flat patch's residue) at the local mean intensity the map reads a pixel's σ at; here they become one
row of σ per channel.

* The bins. BINS bins across [0, 1]. A bin is read where it holds `minimum` samples or more (and the share of all of
  them asked for: odd content, where the flow fails more often, is a small share), and, with clip flags, where few
  of its pixels are clipped: a bin more clipped than CLIPPED, or than 1.5 times the least clipped bin where every
  bin is (heavy noise), has its noise cut off on one side and reads low.
* The curve through them. Each read bin's σ at its mean intensity, averaged with what its neighbours' line predicts
  there, weighted by their sample counts; read at the bin centres, linear between, not forced monotone: after the
  sRGB gamma and clipping, σ rises and falls again. Beyond the first and last bin read, flat where
  EXTRAPOLATION_LIMIT is 1; otherwise the trend of the bins read continues there (a line fitted to them, weighted by
  their counts), held within ×/÷ EXTRAPOLATION_LIMIT of the end bin's σ, where at least three bins were read and the
  end's σ is noise's (one 8-bit level or more: under it, rounding and texture set the trend). A camera's noise in
  sRGB rises towards black (its gamma's slope), so a video with few dark pixels reads its shadows from the mid-tones:
  on four validation pans as taken, under camera noise without a codec, σ there read 0.65-0.72 of the error's std
  carried flat and 0.79-0.82 continued (medians; `benchmarks/results/nlf-extrapolation/truth.log`).
"""

from __future__ import annotations

import numpy as np

BINS = 8
CENTRES = (np.arange(BINS) + 0.5) / BINS
CLIPPED = 0.02
# beyond the bins read: their trend, within ×/÷ this of the end bin's σ; 1: flat (notes). Chosen on the validation
# clips by a rule fixed before the run (benchmarks/results/nlf-extrapolation)
EXTRAPOLATION_LIMIT = 1.5


def binned(
    intensity: np.ndarray,
    values: np.ndarray,
    minimum: int,
    sigma,
    clipped: np.ndarray | None = None,
    share: float = 0.0,
) -> list[tuple[float, float, int] | None]:
    """Per bin of intensity: (mean intensity, σ from its unclipped values, count) where the bin is read (notes), else
    None. `sigma` turns a bin's values into its σ."""
    index = np.minimum((intensity * BINS).astype(np.int64), BINS - 1)
    clipped = None if clipped is None else clipped.astype(bool)
    inside = [index == bin_ for bin_ in range(BINS)]
    counts = [int((part if clipped is None else part & ~clipped).sum()) for part in inside]
    minimum = max(minimum, share * sum(counts))
    allowed = [count >= minimum for count in counts]
    if clipped is not None and any(allowed):
        fractions = [float(clipped[part].mean()) if part.any() else 1.0 for part in inside]
        limit = max(CLIPPED, 1.5 * min(f for f, ok in zip(fractions, allowed) if ok))
        allowed = [ok and fraction <= limit for ok, fraction in zip(allowed, fractions)]
    out = []
    for part, count, ok in zip(inside, counts, allowed):
        if clipped is not None:
            part = part & ~clipped
        out.append((float(intensity[part].mean()), sigma(values[part]), count) if ok else None)
    return out


def curve_through(points: list[tuple[float, float, int] | None], limit: float | None = None) -> np.ndarray | None:
    """The read (intensity, σ, count) points, each averaged with what the line through two read bins near it (the
    nearest on each side; at an end, the next two inwards) predicts at its intensity, weighted by its count and
    theirs (the smaller): a straight trend stays straight, at the ends too, and a bin of few samples leans on its
    neighbours. Read at CENTRES (linear between; beyond the ends as the notes say, with `limit` for
    EXTRAPOLATION_LIMIT where given: 1 carries the ends flat); None if no bin was read."""
    found = {bin_: point for bin_, point in enumerate(points) if point is not None}
    if not found:
        return None
    smoothed = []
    for bin_, (intensity, sigma, count) in found.items():
        below = [b for b in found if bin_ - 2 <= b < bin_][::-1]
        above = [b for b in found if bin_ < b <= bin_ + 2]
        near = below[:1] + above[:1] if below and above else (below or above)[:2]
        if len(near) == 2:
            (x0, y0, n0), (x1, y1, n1) = (found[b] for b in near)
            predicted = max(y0 + (y1 - y0) * (intensity - x0) / (x1 - x0), 0.0)
            support = min(n0, n1)
            sigma = (count * sigma + support * predicted) / (count + support)
        smoothed.append((intensity, sigma, count))
    (xs, sigmas, counts), limit = np.array(smoothed).T, EXTRAPOLATION_LIMIT if limit is None else limit
    curve = np.interp(CENTRES, xs, sigmas)
    if len(xs) > 2 and limit != 1:
        slope = np.polyfit(xs, sigmas, 1, w=np.sqrt(counts))[0]  # weights on residuals: squared, the counts
        for end, beyond in ((0, CENTRES < xs[0]), (-1, CENTRES > xs[-1])):
            if sigmas[end] >= 1 / 255:
                trend = sigmas[end] + slope * (CENTRES[beyond] - xs[end])
                curve[beyond] = np.clip(trend, sigmas[end] / limit, sigmas[end] * limit)
    return curve

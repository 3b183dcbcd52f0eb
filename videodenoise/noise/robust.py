"""The σ of the bulk of some noise samples, robust to the few that are not noise (the flow's failures).

sigma = robust_sigma(values)   # e.g. frame differences; σ on the scale of the values
"""

from __future__ import annotations

import math

import numpy as np

MAD_TO_SIGMA = 1.4826  # σ / MAD of a Gaussian
TRIM = 3.0
QUANTUM = 1 / 255  # the window is never narrower than one 8-bit step


def robust_sigma(values: np.ndarray) -> float:
    """σ of the bulk of `values`: the RMS of those within TRIM σ of their median, over what a Gaussian
    keeps there, σ re-estimated three times from 1.4826·MAD. Unlike the MAD alone it is not stuck on the
    steps of 8-bit values (whose medians jump a whole step), and it counts a heavy-tailed noise's tails
    up to TRIM σ, where the model needs its std; values farther out are the flow's failures."""
    if len(values) == 0:
        return 0.0
    offsets = np.abs(values - np.median(values))
    sigma = MAD_TO_SIGMA * float(np.median(offsets))
    for _ in range(3):
        window = max(TRIM * sigma, QUANTUM)
        inside = offsets[offsets <= window]
        rms = math.sqrt(float(np.mean(np.square(inside)))) if len(inside) else 0.0
        if sigma <= 0 or rms <= 0:
            sigma = rms
            continue
        c = window / sigma  # the fraction of a Gaussian's variance within ±c σ
        kept = 1 - 2 * c * math.exp(-c * c / 2) / math.sqrt(2 * math.pi) / math.erf(c / math.sqrt(2))
        sigma = rms / math.sqrt(kept)
    return sigma

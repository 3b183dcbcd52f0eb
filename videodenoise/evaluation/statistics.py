"""Statistics over training seeds: paired differences with t intervals.

A training seed fixes a run's initialisation, clip order and noise, so two arms trained with the same
seed form a pair; their difference removes what the seed does to both. With n seeds the mean paired
difference d̄ has the Student-t interval d̄ ± t_{n−1, 1−(1−c)/2} · s_d / √n. Independent clips or
noise draws are averaged inside each run first: the seed is the unit of replication.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np
from scipy import stats


@dataclass(frozen=True)
class PairedDifference:
    """Mean of a − b over pairs, its sample standard deviation, c-level t interval, t and two-sided p."""

    n: int
    mean: float
    sd: float
    low: float
    high: float
    t: float
    p: float
    confidence: float = 0.95

    @property
    def excludes_zero(self) -> bool:
        """Whether the interval lies wholly on one side of 0 (a difference at this confidence)."""
        return self.low > 0 or self.high < 0

    def to_dict(self) -> dict:
        return asdict(self)


def paired_difference(a: Sequence[float], b: Sequence[float], confidence: float = 0.95) -> PairedDifference:
    """The paired t analysis of a − b (equal-length sequences, pair i = a[i], b[i]).

    With one pair the spread, interval, t and p are NaN; with no spread the interval is the point
    and p is 0 (or 1 when every difference is 0)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1 or a.size == 0:
        raise ValueError(f"paired values need two equal-length, non-empty sequences, got {a.shape} and {b.shape}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    differences = a - b
    n, mean = differences.size, float(differences.mean())
    if n < 2:
        return PairedDifference(n, mean, math.nan, math.nan, math.nan, math.nan, math.nan, confidence)
    sd = float(differences.std(ddof=1))
    if sd == 0:
        return PairedDifference(
            n,
            mean,
            0.0,
            mean,
            mean,
            math.copysign(math.inf, mean) if mean else math.nan,
            0.0 if mean else 1.0,
            confidence,
        )
    half_width = _t_half_width(sd, n, confidence)
    t = mean / (sd / math.sqrt(n))
    p = float(2 * stats.t.sf(abs(t), n - 1))
    return PairedDifference(n, mean, sd, mean - half_width, mean + half_width, t, p, confidence)


def mean_interval(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float]:
    """(mean, half-width of its c-level t interval); the half-width is NaN for fewer than two values."""
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0:
        raise ValueError("mean_interval needs at least one value")
    if values.size < 2:
        return float(values.mean()), math.nan
    return float(values.mean()), _t_half_width(float(values.std(ddof=1)), values.size, confidence)


def _t_half_width(sd: float, n: int, confidence: float) -> float:
    """Half-width of the c-level Student-t interval of a mean of n values with sample spread sd."""
    return float(stats.t.ppf(0.5 + confidence / 2, n - 1)) * sd / math.sqrt(n)

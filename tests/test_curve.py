"""The curve through the bins read: σ per intensity bin from samples, then σ at every bin centre."""

from __future__ import annotations

import numpy as np
import pytest

from videodenoise.noise import curve
from videodenoise.noise.curve import BINS, CENTRES, binned, curve_through


def points_on(line, bins, count: int = 1000) -> list[tuple[float, float, int] | None]:
    """Read points on σ = line(x) at these bins' centres, None elsewhere."""
    return [(CENTRES[b], line(CENTRES[b]), count) if b in bins else None for b in range(BINS)]


def falling(x):  # a camera's noise in sRGB: higher towards black
    return 0.08 - 0.05 * x


def test_samples_are_binned_by_intensity_and_thin_or_clipped_bins_are_not_read():
    generator = np.random.default_rng(0)
    intensity = np.concatenate([np.full(5000, 0.3), np.full(5000, 0.6), np.full(50, 0.9), np.full(5000, 0.05)])
    values = generator.normal(0, 1, intensity.size) * np.where(intensity > 0.5, 0.04, 0.02)
    clipped = intensity == 0.05  # every pixel of the darkest bin clipped
    points = binned(intensity, values, 400, np.std, clipped)
    read = [b for b, p in enumerate(points) if p is not None]
    assert read == [2, 4]  # 0.3 and 0.6; 0.9 holds too few samples, 0.05 is clipped
    assert points[2][1] == pytest.approx(0.02, rel=0.05) and points[4][1] == pytest.approx(0.04, rel=0.05)
    assert points[2][0] == pytest.approx(0.3) and points[2][2] == 5000


def test_without_a_limit_the_curve_is_flat_beyond_the_bins_read(monkeypatch):
    monkeypatch.setattr(curve, "EXTRAPOLATION_LIMIT", 1.0)
    row = curve_through(points_on(falling, {3, 4, 5}))
    np.testing.assert_allclose(row[3:6], falling(CENTRES[3:6]))  # a straight trend stays straight
    np.testing.assert_allclose(row[:3], falling(CENTRES[3]))
    np.testing.assert_allclose(row[6:], falling(CENTRES[5]))
    assert curve_through([None] * BINS) is None
    monkeypatch.undo()  # a limit given to the call overrides the module's (the estimator's flat levels)
    np.testing.assert_array_equal(curve_through(points_on(falling, {3, 4, 5}), limit=1.0), row)


def test_the_trend_of_the_bins_read_continues_beyond_them_within_the_limit():
    assert curve.EXTRAPOLATION_LIMIT == 1.5
    row = curve_through(points_on(falling, {3, 4, 5}))
    np.testing.assert_allclose(row, falling(CENTRES))  # within ×/÷ 1.5 of the ends: the line itself
    steep = curve_through(points_on(lambda x: 0.22 - 0.2 * x, {5, 6, 7}))
    assert steep[4] == pytest.approx(0.22 - 0.2 * CENTRES[4])  # the line, while within 1.5× the end bin's σ
    np.testing.assert_allclose(steep[:2], (0.22 - 0.2 * CENTRES[5]) * 1.5)  # then held there
    flat = curve_through(points_on(lambda x: 0.05, {2, 3, 4, 5}))
    np.testing.assert_allclose(flat, 0.05)  # Gaussian noise: no trend, none invented


def test_no_trend_from_two_bins_or_from_what_rounding_leaves():
    two = curve_through(points_on(falling, {4, 5}))
    np.testing.assert_allclose(two[:4], falling(CENTRES[4]))  # two bins: a line, not a trend to trust far
    faint = curve_through(points_on(lambda x: (0.6 - 0.4 * x) / 255, {4, 5, 6}))  # under one 8-bit level
    np.testing.assert_allclose(faint[:4], (0.6 - 0.4 * CENTRES[4]) / 255)

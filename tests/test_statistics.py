"""Paired differences and t intervals over training seeds, against values computed by hand."""

from __future__ import annotations

import math

import pytest

from videodenoise.evaluation.statistics import mean_interval, paired_difference


def test_paired_difference_against_a_hand_computation():
    # differences 0.5, 1, 0.5, 1: mean 0.75, sd √(4·0.25²/3) = 0.288675, se 0.144338,
    # t(0.975, 3) = 3.182446 → half-width 0.459347; t = 5.196152, two-sided p = 0.013847
    result = paired_difference([1.0, 2.0, 3.0, 4.0], [0.5, 1.0, 2.5, 3.0])
    assert result.n == 4 and result.mean == pytest.approx(0.75)
    assert result.sd == pytest.approx(0.288675, abs=1e-6)
    assert (result.low, result.high) == (pytest.approx(0.290653, abs=1e-6), pytest.approx(1.209347, abs=1e-6))
    assert result.t == pytest.approx(5.196152, abs=1e-6) and result.p == pytest.approx(0.013847, abs=1e-6)
    assert result.excludes_zero


def test_pairing_removes_what_the_seed_does_to_both_arms():
    # the seeds move both arms a lot, the arms differ by exactly 0.01 (± 0.001): a paired interval
    # finds it where the spread of either arm alone would hide it
    a = [0.10, 0.20, 0.30, 0.40, 0.50]
    b = [0.111, 0.209, 0.311, 0.409, 0.51]
    result = paired_difference(a, b)
    assert result.high < 0 and result.mean == pytest.approx(-0.01)
    # the other confidence level: t(0.995, 4) = 4.604095
    wide = paired_difference(a, b, confidence=0.99)
    assert wide.high - wide.mean == pytest.approx(4.604095 * result.sd / math.sqrt(5), abs=1e-9)


def test_degenerate_pairs():
    one = paired_difference([0.2], [0.1])
    assert one.n == 1 and one.mean == pytest.approx(0.1) and math.isnan(one.low) and math.isnan(one.p)
    constant = paired_difference([0.5, 0.75], [0.25, 0.5])  # exact binary fractions: no spread at all
    assert (constant.low, constant.high, constant.p) == (0.25, 0.25, 0.0)
    same = paired_difference([0.3, 0.4], [0.3, 0.4])
    assert same.mean == 0 and same.p == 1.0 and not same.excludes_zero
    with pytest.raises(ValueError, match="equal-length"):
        paired_difference([0.1, 0.2], [0.1])
    with pytest.raises(ValueError, match="confidence"):
        paired_difference([0.1, 0.2], [0.1, 0.3], confidence=95)


def test_mean_interval_against_a_hand_computation():
    # 1, 2, 3: mean 2, sd 1, t(0.975, 2) = 4.302653 → half-width 4.302653/√3 = 2.484138
    mean, half_width = mean_interval([1.0, 2.0, 3.0])
    assert mean == 2.0 and half_width == pytest.approx(2.484138, abs=1e-6)
    mean, half_width = mean_interval([5.0])
    assert mean == 5.0 and math.isnan(half_width)

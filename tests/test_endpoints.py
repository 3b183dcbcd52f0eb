"""The second robustness study's statistics: intervals over seeds and over videos, Holm, the verdicts."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from videodenoise.errors import ExperimentError
from videodenoise.evaluation.endpoints import EndpointsConfig, endpoint_rows, holm, two_way_interval


def test_two_way_interval_against_a_hand_computation():
    table = np.array([[0.01, 0.03], [0.02, 0.00], [-0.01, 0.02]])  # 3 seeds × 2 videos
    result = two_way_interval(table, margin=0.05)
    assert result.mean == pytest.approx(0.035 / 3) and (result.seeds, result.videos) == (3, 2)
    # over seeds: means 0.02, 0.01, 0.005; sd 0.0076376; half-width t(0.975, 2)·sd/√3 = 4.302653·0.0044096
    assert result.seeds_low == pytest.approx(0.0116667 - 0.0189729, abs=1e-6)
    assert result.seeds_high == pytest.approx(0.0116667 + 0.0189729, abs=1e-6)
    # over videos: means 0.0066667, 0.0166667; sd 0.0070711; half-width t(0.975, 1)·0.005 = 12.706205·0.005
    assert result.videos_low == pytest.approx(0.0116667 - 0.0635310, abs=1e-6)
    assert result.videos_high == pytest.approx(0.0116667 + 0.0635310, abs=1e-6)
    # the test of 0 passes only if it passes for both sources: the larger p (videos, 1 degree of freedom)
    p_videos = 2 * stats.t.sf(0.0116667 / 0.005, 1)
    assert result.p == pytest.approx(p_videos, rel=1e-4)
    # TOST against ±0.05 over videos: max(P(T > (m + 0.05)/se), P(T < (m − 0.05)/se))
    p_equivalence_videos = max(stats.t.sf((0.0116667 + 0.05) / 0.005, 1), stats.t.cdf((0.0116667 - 0.05) / 0.005, 1))
    assert result.p_equivalence == pytest.approx(p_equivalence_videos, rel=1e-4)
    with pytest.raises(ExperimentError, match="at least 2 seeds × 2 videos"):
        two_way_interval(np.ones((1, 3)))


def test_holm_adjusts_step_down():
    # sorted 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 = 0.04 → kept monotone: 0.06
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.9, 0.8]) == pytest.approx([1.0, 1.0])  # 0.8·2 capped at 1, and monotone


def rows(treatment_factor, depth_gain, seeds=6, videos=("a", "b", "c", "d")):
    """Synthetic per-video rows: the treatment's RMSE is the control's × treatment_factor(seed, video);
    tied arms at depth 8 gain depth_gain[arm] relative to depth 5."""
    generator = np.random.default_rng(0)
    out = []
    for seed in range(seeds):
        for v, video in enumerate(videos):
            for gamma in (1.0, 1.5, 2.0, 3.0, 4.0):
                control = 0.03 * gamma * (1 + 0.1 * generator.random())
                arms = {
                    "erm": control,
                    "constrained-detach": control * treatment_factor(seed, v),
                    "erm-tied": control,
                    "constrained-detach-tied": control,
                }
                for arm, rmse in arms.items():
                    depths = {5: rmse}
                    if arm.endswith("-tied"):
                        depths[8] = rmse * (1 - depth_gain[arm] - 0.001 * generator.random())
                    for depth, value in depths.items():
                        out.append(
                            {
                                "model": "dust",
                                "arm": arm,
                                "seed": seed,
                                "video": video,
                                "gamma": gamma,
                                "depth": depth,
                                "rmse": value,
                                "trained_depth": 5,
                                "best_layer_rmse": rmse * 0.98,
                            }
                        )
    return out


def test_endpoint_verdicts():
    config = EndpointsConfig(margin=0.02)
    gains = {"erm-tied": -0.05, "constrained-detach-tied": 0.03}
    # within ±0.3 % of ERM everywhere: equivalent within the 2 % margin
    found = endpoint_rows(rows(lambda s, v: 1 + 0.003 * math.sin(s + 3 * v), gains), config, ["dust"])
    p1 = next(e for e in found if e["endpoint"] == "P1")
    assert p1["verdict"] == "equivalent" and abs(p1["mean"]) < 0.003
    p2 = [e for e in found if e["endpoint"] == "P2"]
    assert [e["gamma"] for e in p2] == [2.0, 3.0]
    assert all(e["verdict"] == "more gain from depth 8" and e["mean"] == pytest.approx(0.08, abs=0.002) for e in p2)
    # Holm over the three tests of the family: each adjusted p is at least the raw p
    assert all(e["p_holm"] >= e["p"] for e in [p1, *p2])
    p3 = [e for e in found if e["endpoint"] == "P3"]
    assert {e["a"] for e in p3} == {"erm", "constrained-detach", "erm-tied", "constrained-detach-tied"}
    assert all(e["mean"] == pytest.approx(1 / 0.98 - 1) for e in p3)
    # 6 % ± 0.5 % worse: worse, not equivalent
    worse = endpoint_rows(rows(lambda s, v: 1.06 + 0.005 * math.cos(s * v), gains), config, ["dust"])
    assert next(e for e in worse if e["endpoint"] == "P1")["verdict"] == "worse"
    # noise as large as the effect: inconclusive
    noisy = endpoint_rows(rows(lambda s, v: 1 + 0.05 * (-1) ** (s + v) + 0.01 * v, gains), config, ["dust"])
    assert next(e for e in noisy if e["endpoint"] == "P1")["verdict"] == "inconclusive"


def test_endpoints_refuse_an_incomplete_table():
    incomplete = [
        r
        for r in rows(lambda s, v: 1.0, {"erm-tied": 0, "constrained-detach-tied": 0})
        if not (r["arm"] == "erm" and r["seed"] == 2 and r["video"] == "b" and r["gamma"] == 3.0)
    ]
    with pytest.raises(ExperimentError, match="not scored on the same seeds, videos and levels"):
        endpoint_rows(incomplete, EndpointsConfig(), ["dust"])
    with pytest.raises(ExperimentError, match="margin"):
        EndpointsConfig(margin=0)

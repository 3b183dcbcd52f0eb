"""benchmarks/validation_sweep.py's rule and knob parsing (the sweep itself runs the shipped model on the
validation photographs for minutes: not here)."""

from __future__ import annotations

import numpy as np
import pytest

from helpers import load_benchmark


@pytest.fixture(scope="module")
def sweep():
    return load_benchmark("validation_sweep")


def test_the_best_camera_mean_wins_unless_it_loses_on_gaussian_noise(sweep):
    values = ["0", "1", "2"]
    gaussian = {"0": [50.0, 35.0], "1": [50.2, 34.96], "2": [50.0, 34.9]}
    # "2" has the best camera mean but is 0.1 dB under the reference at the second Gaussian condition;
    # "1" is better than the reference at the first (allowed: the test is one-sided)
    assert sweep.choose(values, {"0": 33.0, "1": 33.2, "2": 33.5}, gaussian) == "1"


def test_a_value_within_the_tolerance_of_an_earlier_one_gives_way_to_it(sweep):
    values = ["0", "0.5", "0.9"]
    gaussian = {v: [40.0] for v in values}
    assert sweep.choose(values, {"0": 33.80, "0.5": 34.15, "0.9": 34.18}, gaussian) == "0.5"
    assert sweep.choose(values, {"0": 33.80, "0.5": 33.82, "0.9": 33.84}, gaussian) == "0"


def test_knobs_name_a_constant_of_a_videodenoise_module(sweep):
    module, name, values = sweep.parse_knob("noise.estimation.MAX_CARRIED=0,0.5")
    assert module.__name__ == "videodenoise.noise.estimation" and name == "MAX_CARRIED" and values == ["0", "0.5"]
    for bad in ("noise.nowhere.X=1", "noise.estimation.NOT_THERE=1", "noise.estimation.MAX_CARRIED="):
        with pytest.raises(SystemExit, match="--knob"):
            sweep.parse_knob(bad)


def test_the_clips_are_the_validation_pans_unless_named_and_never_a_benchmark_clip(sweep):
    assert sweep.validation_clip_names(None) == ["motorcycle-right-pan", "cell-pan", "clock-motion-pan", "page-pan"]
    assert sweep.validation_clip_names("cell-pan, china-pan,flower-objects") == [
        "cell-pan",
        "china-pan",
        "flower-objects",
    ]
    with pytest.raises(SystemExit, match="astronaut-pan, bikes: held out by the benchmark, never for choosing"):
        sweep.validation_clip_names("china-pan,bikes,astronaut-pan")


def test_a_borderline_figure_can_be_computed_again_on_the_conditions_named(sweep):
    """`--conditions` draws only those (the same draws as the full run's)."""
    frames = np.random.default_rng(0).integers(0, 256, (2, 3, 16, 16), dtype=np.uint8)
    clip = sweep.quality.Clip("cell-pan", "pan", "test", frames)
    every = dict(sweep.noisy_clips([clip], [name for name in sweep.condition_names() if name.startswith("gaussian")]))
    only = sweep.noisy_clips([clip], ["gaussian σ=2"])
    assert [name for name, _ in only] == ["gaussian σ=2"] and np.array_equal(only[0][1][0], every["gaussian σ=2"][0])
    assert sweep.condition_names()[0] == "light h264 crf18" and len(sweep.condition_names()) == 13
    # without a codec: each level once, drawn as the real-noise benchmark draws it
    assert sweep.condition_names("none") == ["light raw", "medium raw", "heavy raw"] + sweep.condition_names()[9:]
    raw = sweep.noisy_clips([clip], ["medium raw"], "none")
    assert [name for name, _ in raw] == ["medium raw"]
    assert np.array_equal(raw[0][1][0], sweep.realnoise.camera_draw(clip, "medium", "none", None))
    with pytest.raises(SystemExit, match="--conditions: no condition gaussian σ=3; give some of light h264 crf18"):
        sweep.main(["--knob", "noise.estimation.MAX_CARRIED=0,1", "--conditions", "gaussian σ=3"])

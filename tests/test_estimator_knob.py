"""benchmarks/estimator_knob.py: which constants it takes, the conditions it draws, and the premise that lets it skip
denoising where the estimate did not move (the run itself takes minutes on the validation photographs: not here)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from videodenoise.noise import curve, estimation
from videodenoise.noise.estimation import estimate_clip_noise

from helpers import load_benchmark


@pytest.fixture(scope="module")
def knob():
    return load_benchmark("estimator_knob")


def test_only_a_constant_that_the_estimator_alone_reads_and_two_values(knob):
    for bad in ("denoise.fusion.GRAIN_POWER=1,2", "noise.estimation.MAX_CARRIED=0.5,0.6,0.7", "camera_bias=off,on"):
        with pytest.raises(SystemExit, match="--knob: give MODULE.NAME=REFERENCE,NEW with MODULE one of noise.est"):
            knob.main(["--knob", bad])


def test_the_conditions_are_the_sweeps_and_the_codec_with_no_noise(knob):
    frames = np.random.default_rng(0).integers(40, 200, (3, 3, 32, 32), dtype=np.uint8)
    clip = knob.quality.Clip("cell-pan", "pan", "test", frames)
    draws = knob.draws(clip)
    names = [name for name, _ in draws]
    assert names[:9] == [f"{level} h264 crf{crf}" for level in ("light", "medium", "heavy") for crf in (18, 23, 28)]
    assert names[9:] == ["light raw", "medium raw", "heavy raw"] + [f"gaussian σ={s:g}" for s in knob.SIGMAS] + [
        f"no noise h264 crf{crf}" for crf in knob.CRFS
    ]
    assert np.array_equal(draws[-1][1], knob.codec_encoded(frames, "h264", 28))
    assert [knob.group(name) for name in ("heavy raw", "gaussian σ=2", "no noise h264 crf18")] == [
        "camera",
        "gaussian",
        "no noise",
    ]


def test_given_an_estimate_clean_reads_none_of_the_estimators_constants(knob, monkeypatch):
    """The premise of skipping: denoising with a noise level function, the told scale's calibration included (a dark
    clip of white noise), gives the same output whatever the estimator's constants are."""
    from videodenoise.denoise import denoiser as denoiser_module
    from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT

    calibrated = []
    calibrate = denoiser_module.calibrate_told_scale
    monkeypatch.setattr(denoiser_module, "calibrate_told_scale", lambda *a: calibrated.append(1) or calibrate(*a))
    generator = torch.Generator().manual_seed(1)
    clean = 0.05 + 0.1 * torch.rand(1, 3, 48, 64, generator=generator).expand(6, -1, -1, -1)
    noisy = (clean + 0.02 * torch.randn(6, 3, 48, 64, generator=generator)).clamp(0, 1)
    denoiser = knob.quality.load_denoiser(DEFAULT_CHECKPOINT, {}, device="cpu")
    estimate = estimate_clip_noise(noisy)
    assert estimate.dark  # so the fast preset calibrates the told scale on the clip
    reference = denoiser.denoise_clip(noisy, estimate)
    assert calibrated == [1]
    monkeypatch.setattr(estimation, "MAX_CARRIED", 0.0)
    monkeypatch.setattr(estimation, "MIN_SAMPLES", 10**9)
    monkeypatch.setattr(curve, "EXTRAPOLATION_LIMIT", 1.0)
    assert estimate_clip_noise(noisy) != estimate  # the constants do move an estimate
    assert torch.equal(denoiser.denoise_clip(noisy, estimate), reference) and calibrated == [1, 1]


def test_other_validation_clips_but_never_a_benchmark_clip_nor_both_sets(knob):
    with pytest.raises(SystemExit, match="bikes: held out by the benchmark, never for choosing"):
        knob.main(["--knob", "noise.estimation.MAX_CARRIED=0.5,0.6", "--clips", "brick-pan,bikes"])
    with pytest.raises(SystemExit, match="--held-out and --clips: give one"):
        knob.main(["--knob", "noise.estimation.MAX_CARRIED=0.5,0.6", "--clips", "brick-pan", "--held-out"])


def test_the_report_gives_the_mean_and_lowest_gain_over_the_moved_clip_conditions(knob, capsys):
    conditions = ["light h264 crf18", "gaussian σ=2", "no noise h264 crf18"]
    gains = {(e, c): [0.0, 0.0] for e in knob.EXPOSURES for c in conditions}
    gains[1.0, "no noise h264 crf18"] = [0.3, -0.1]
    knob.report(gains, ["a-pan", "b-pan"], {}, {"no noise": [0.3, -0.1]})
    out = capsys.readouterr().out
    assert "no noise, the clip-conditions whose estimate moved: 2 of 6: mean gain +0.100 dB, lowest -0.100" in out
    assert "camera, the clip-conditions whose estimate moved: 0 of 6\n" in out


def test_both_values_are_compared_and_denoised_only_where_the_estimate_moved(knob):
    from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT

    generator = torch.Generator().manual_seed(2)
    clean = torch.rand(1, 3, 48, 64, generator=generator).expand(6, -1, -1, -1) * 0.6 + 0.2
    noisy = (clean + 0.04 * torch.randn(6, 3, 48, 64, generator=generator)).clamp(0, 1)
    reference = (clean.numpy() * 255).round().astype(np.uint8)
    denoiser = knob.quality.load_denoiser(DEFAULT_CHECKPOINT, {}, device="cpu")
    same = knob.compare_values(denoiser, noisy, reference, estimation, "EDGE", [estimation.EDGE, estimation.EDGE])
    assert not same.moved and same.scores == [] and same.gain == 0.0
    moved = knob.compare_values(denoiser, noisy, reference, estimation, "EDGE", [estimation.EDGE, 100.0])
    assert moved.moved and len(moved.scores) == 2 and moved.gain == moved.scores[1] - moved.scores[0]
    assert estimation.EDGE == 0.2  # put back

"""Undoing a camera gamma's bias under σ auto: the tables against sampling, the fit, the skew test, `clean`'s use."""

import dataclasses
import math

import numpy as np
import pytest
import torch

from videodenoise.denoise import camera_bias
from videodenoise.denoise.camera_bias import GammaBias, fit_shot_read, linear_noise_moments, skew_ratio
from videodenoise.denoise.clipping import unclip
from videodenoise.denoise.denoiser import Denoiser
from videodenoise.denoise.settings import PRESETS
from videodenoise.models.registry import build_model
from videodenoise.noise.camera import CameraNoise, linear_to_srgb, srgb_to_linear
from videodenoise.noise.estimation import estimate_clip_noise
from videodenoise.noise.noise_level_function import NoiseLevelFunction

SHOT, READ = 0.02, 0.001  # the real-noise benchmark's heavy level


def camera_frames(clean: torch.Tensor, seed: int = 0) -> torch.Tensor:
    """Sensor noise in linear light through the gamma, no codec, one channel gain (spread 0, mix 0)."""
    noise = CameraNoise(a=SHOT, b=READ, spread=0.0, mix=0.0, codec="none")
    return noise(clean, generator=torch.Generator().manual_seed(seed))


def ramp(frames: int = 1, height: int = 128, width: int = 160) -> torch.Tensor:
    """Colour frames whose values run evenly over [0.02, 0.98] (about 640 pixels in each of 32 bins)."""
    values = torch.linspace(0.02, 0.98, height * width).view(height, width)
    return values.expand(frames, 3, height, width).clone()


def undo(bias: GammaBias, output: torch.Tensor, corrected: torch.Tensor) -> torch.Tensor:
    """One output through the step as `Denoiser.denoise_frames` takes it: decided on, then undone."""
    bias.decide(output)
    return bias.undo(output, corrected)


def test_the_tables_mean_and_variance_are_what_camera_noise_averages():
    mean, variance = linear_noise_moments(np.array(SHOT), np.array(READ))
    generator = torch.Generator().manual_seed(0)
    for index in (0, 13, 51, 128, 230, 256):  # black, deep shadow, shadow, mid-grey, highlight, white
        linear = srgb_to_linear(torch.tensor(camera_bias.VALUES[index], dtype=torch.float64))
        n = math.sqrt(SHOT * float(linear) + READ) * torch.randn(400_000, generator=generator, dtype=torch.float64)
        sampled = linear_to_srgb((linear + n).clamp(0, 1))
        assert abs(float(sampled.mean()) - mean[index]) < 1e-3  # a quarter of a level
        assert abs(float(sampled.var()) / variance[index] - 1) < 0.02
    # the gamma lifts black (the clip at 0 in linear light) and darkens the shadows (Jensen): several levels each
    assert mean[0] * 255 > 15 and (camera_bias.VALUES[51] - mean[51]) * 255 > 2


def test_the_fit_finds_the_shot_and_read_noise_a_curve_came_from():
    mean, variance = linear_noise_moments(np.array(SHOT), np.array(READ))
    values = np.linspace(0.05, 0.9, 30)
    sigmas = np.sqrt(np.interp(np.interp(values, mean, camera_bias.VALUES), camera_bias.VALUES, variance))
    shot, read = fit_shot_read(values, sigmas, np.ones_like(values))
    # the nearest points of a geometric grid (steps of 1.49× in a, 1.62× in b)
    assert abs(math.log(shot / SHOT)) <= math.log(1.5) and abs(math.log(read / READ)) <= math.log(1.7)


def test_the_skew_tells_a_gammas_noise_from_noise_added_to_the_stored_values():
    clean = ramp()[0]
    gaussian = (clean + 25 / 255 * torch.randn(clean.shape, generator=torch.Generator().manual_seed(1))).clamp(0, 1)
    camera = camera_frames(clean)
    assert abs(skew_ratio(gaussian, clean)[0]) < 0.05
    skew, share = skew_ratio(camera, clean)
    # 1 to second order before a codec; read from the mid-tone bins but the noisiest shadows'
    assert skew > 0.5 and 0.4 < share < 0.75
    assert skew_ratio(clean, clean) == (0.0, 0.0)  # no noise (a title card): nothing to read from
    assert skew_ratio((clean * 255).round() / 255, clean) == (0.0, 0.0)  # nor 8 bits' rounding
    assert skew_ratio(camera * 0.05, clean * 0.05) == (0.0, 0.0)  # all in the shadows: none to read from


def test_noise_clipped_at_white_is_not_read_as_a_gammas():
    # heavy Gaussian noise added to the stored values, clipped at 0 and 1: its skew near white is the clip's, the
    # sign a gamma's would have (the step once engaged on Gaussian σ = 50 and cost up to 8 dB)
    clean = ramp()[0]
    for sigma in (35, 50, 70):
        noise = sigma / 255 * torch.randn(clean.shape, generator=torch.Generator().manual_seed(sigma))
        skew, _ = skew_ratio((clean + noise).clamp(0, 1), clean)
        assert abs(skew) < 0.05, sigma


def curve_of_the_camera() -> NoiseLevelFunction:
    """The noise level function σ auto would find for camera_frames, without a codec: its exact std."""
    mean, variance = linear_noise_moments(np.array(SHOT), np.array(READ))
    knots = np.linspace(0.02, 0.98, 25)
    sigma = np.sqrt(np.interp(knots, mean, variance))
    return NoiseLevelFunction(knots=tuple(knots), sigmas=(tuple(sigma),) * 3, level=float(sigma.mean()))


def test_gamma_bias_raises_the_shadows_a_gamma_darkened_and_only_raises():
    clean = ramp()[0]
    noisy = camera_frames(clean)
    mean = linear_noise_moments(np.array(SHOT), np.array(READ))[0]
    output = torch.from_numpy(np.interp(clean.numpy(), camera_bias.VALUES, mean)).float()  # a perfect averager
    corrected = unclip(output, curve_of_the_camera()(output))
    bias = GammaBias(curve_of_the_camera())
    assert list(bias.watching([noisy])) == [noisy]
    undone = undo(bias, output, corrected)
    assert bias.skew > camera_bias.SKEW_THRESHOLD and len(bias.shots) == 3
    assert (undone >= corrected).all()
    shadows = (clean > 0.15) & (clean < 0.5)
    before, after = (corrected - clean)[shadows].mean() * 255, (undone - clean)[shadows].mean() * 255
    assert before < -2 and abs(after) < 0.5 * abs(before)  # levels: most of the darkening undone
    # the decision and the fit are the first frame's: a later noisy frame is not kept, and the same table corrects
    list(bias.watching([camera_frames(clean, seed=5)]))
    assert not bias.waiting
    torch.testing.assert_close(undo(bias, output, corrected), undone)


def test_a_fade_from_black_or_a_title_card_waits_for_the_first_frame_with_noisy_picture():
    clean = ramp()[0]
    dark, noisy = camera_frames(clean * 0.05, seed=7), camera_frames(clean)
    mean = linear_noise_moments(np.array(SHOT), np.array(READ))[0]
    output = torch.from_numpy(np.interp(clean.numpy(), camera_bias.VALUES, mean)).float()
    bias, reports = GammaBias(curve_of_the_camera(), on_fitted=lambda fitted: reports.append(fitted.describe())), []
    title = (clean * 255).round() / 255  # a noise-free card before the footage
    passed = bias.watching([dark, title, noisy, camera_frames(clean, seed=8)])
    next(passed), next(passed), next(passed)  # read ahead of the outputs, as a stream does
    dark_output = clean * 0.05
    assert torch.equal(undo(bias, dark_output, dark_output), dark_output) and bias.lift is None and not reports
    assert torch.equal(undo(bias, title, title), title) and bias.lift is None
    undone = undo(bias, output, output)
    assert (undone - output).max() > 2 / 255 and len(reports) == 1
    assert "read on frame 3, the first with noisy picture" in reports[0]
    next(passed)
    assert not bias.waiting  # nothing kept once decided
    torch.testing.assert_close(undo(bias, output, output), undone)


def test_the_fit_reads_the_noise_as_it_was_before_a_codec_smoothed_it(monkeypatch):
    """σ auto measures the noise after the codec, which smoothed what the camera's gamma bent: the fit reads the curve
    × CODEC_LIFT. A camera's exact curve, as a codec smoothing its std by 1/CODEC_LIFT would leave it, fits back to the
    camera's (a, b) within a grid step, where the curve as measured fits smaller ones."""
    lift, clean = camera_bias.CODEC_LIFT, ramp()[0]
    noisy, mean = camera_frames(clean), linear_noise_moments(np.array(SHOT), np.array(READ))[0]
    output = torch.from_numpy(np.interp(clean.numpy(), camera_bias.VALUES, mean)).float()  # a perfect averager
    camera = curve_of_the_camera()
    smoothed = dataclasses.replace(camera, sigmas=tuple(tuple(s / lift for s in row) for row in camera.sigmas))
    fits = {}
    for factor in (lift, 1.0):
        monkeypatch.setattr(camera_bias, "CODEC_LIFT", factor)
        bias = GammaBias(smoothed)
        list(bias.watching([noisy]))
        undo(bias, output, output)
        fits[factor] = (bias.shots[0], bias.reads[0])
    shot, read = fits[lift]
    assert lift > 1 and abs(math.log(shot / SHOT)) <= math.log(1.5) and abs(math.log(read / READ)) <= math.log(1.7)
    assert fits[1.0][0] <= shot and fits[1.0][1] <= read and fits[1.0] != (shot, read)


def test_noise_added_to_the_stored_values_is_left_as_it_is():
    clean = ramp()[0]
    noisy = (clean + 25 / 255 * torch.randn(clean.shape, generator=torch.Generator().manual_seed(2))).clamp(0, 1)
    bias = GammaBias(NoiseLevelFunction.constant(25 / 255, 3))
    list(bias.watching([noisy]))
    corrected = unclip(clean, 25 / 255)
    assert torch.equal(undo(bias, clean, corrected), corrected) and bias.skew <= camera_bias.SKEW_THRESHOLD


@pytest.fixture
def fast_denoiser() -> Denoiser:
    settings = dataclasses.replace(PRESETS["fast"], device="cpu", tile=0)
    return Denoiser(build_model("dust", channels=1, layers=2), settings, sigma_train=25 / 255)


def test_clean_applies_it_under_sigma_auto_only_and_streams_as_it_denoises_whole_clips(fast_denoiser, monkeypatch):
    noisy, function = camera_frames(ramp(frames=4)), curve_of_the_camera()
    outputs = {}
    for lift_clipping in (True, False):  # streamed equals whole, the clipping's σ lifted or not
        monkeypatch.setattr(camera_bias, "LIFT_CLIPPING", lift_clipping)
        outputs[lift_clipping] = fast_denoiser.denoise_clip(noisy, function)
        streamed = torch.stack(list(fast_denoiser.denoise_frames(iter(noisy), function)))
        torch.testing.assert_close(streamed, outputs[lift_clipping], atol=0, rtol=0)
    with_it = outputs[False]  # the step itself only raises, against the clipping's correction with the same σ
    told = fast_denoiser.denoise_clip(noisy, 0.1)
    off = Denoiser(fast_denoiser.model, dataclasses.replace(fast_denoiser.settings, camera_bias=False), 25 / 255)
    without = off.denoise_clip(noisy, function)
    assert (with_it >= without).all() and (with_it - without).max() > 2 / 255  # raised by levels somewhere
    torch.testing.assert_close(off.denoise_clip(noisy, 0.1), told, atol=0, rtol=0)  # a told σ: never
    # nor the constant function calibration makes of a told σ
    constant = NoiseLevelFunction.constant(0.1, 3)
    torch.testing.assert_close(fast_denoiser.denoise_clip(noisy, constant), off.denoise_clip(noisy, constant))
    assert camera_bias.gamma_bias(constant) is None and camera_bias.gamma_bias(0.1) is None


def test_clean_says_once_when_it_undoes_a_gammas_bias_and_nothing_otherwise(fast_denoiser):
    reports = []
    list(
        fast_denoiser.denoise_frames(
            iter(camera_frames(ramp(frames=3))), curve_of_the_camera(), on_camera_bias=reports.append
        )
    )
    assert len(reports) == 1
    line = reports[0].describe()
    assert line.startswith("noise skewed as a camera's gamma skews it (S = ") and "read noise b = " in line
    gaussian = ramp(frames=3) + 25 / 255 * torch.randn(3, 3, 128, 160, generator=torch.Generator().manual_seed(3))
    told = NoiseLevelFunction.constant(25 / 255, 3)
    list(fast_denoiser.denoise_frames(iter(gaussian.clamp(0, 1)), told, on_camera_bias=reports.append))
    assert len(reports) == 1
    # nor heavy Gaussian noise under σ auto: clipped at white, its skew is the clip's (it once got the step, and the
    # default lost up to 8 dB at σ = 50)
    heavy = ramp(frames=3) + 50 / 255 * torch.randn(3, 3, 128, 160, generator=torch.Generator().manual_seed(4))
    heavy = heavy.clamp(0, 1)
    estimated = estimate_clip_noise(heavy)
    assert camera_bias.gamma_bias(estimated) is not None  # a curve: the test is made, and says no
    list(fast_denoiser.denoise_frames(iter(heavy), estimated, on_camera_bias=reports.append))
    assert len(reports) == 1


def test_each_correction_has_its_own_switch(fast_denoiser):
    noisy, function = camera_frames(ramp(frames=3)), curve_of_the_camera()

    def output(unclip: bool, camera: bool) -> torch.Tensor:
        settings = dataclasses.replace(fast_denoiser.settings, unclip=unclip, camera_bias=camera)
        return Denoiser(fast_denoiser.model, settings, 25 / 255).denoise_clip(noisy, function)

    neither, gamma_only, clipping_only = output(False, False), output(False, True), output(True, False)
    assert (gamma_only >= neither).all() and (gamma_only - neither).max() > 2 / 255
    assert (clipping_only - neither).abs().max() > 2 / 255  # near black and white
    expected = torch.stack([unclip(frame, function(frame)) for frame in neither])
    torch.testing.assert_close(clipping_only, expected, atol=1e-6, rtol=0)


def test_clean_corrects_a_clip_that_fades_in_from_black_from_where_the_picture_is_up(fast_denoiser, monkeypatch):
    frames = torch.cat([camera_frames(ramp(frames=2) * 0.05, seed=4), camera_frames(ramp(frames=3))])
    function, reports = curve_of_the_camera(), []
    streamed = torch.stack(list(fast_denoiser.denoise_frames(iter(frames), function, on_camera_bias=reports.append)))
    torch.testing.assert_close(fast_denoiser.denoise_clip(frames, function), streamed, atol=0, rtol=0)
    off = Denoiser(fast_denoiser.model, dataclasses.replace(fast_denoiser.settings, camera_bias=False), 25 / 255)
    without = off.denoise_clip(frames, function)
    assert len(reports) == 1 and reports[0].frame == 2
    assert torch.equal(streamed[:2], without[:2])  # the dark frames as the clipping's correction leaves them
    monkeypatch.setattr(camera_bias, "LIFT_CLIPPING", False)  # the step's own raise: the same clipping's σ
    raised = fast_denoiser.denoise_clip(frames, function)[2:]
    assert (raised >= without[2:]).all() and (raised - without[2:]).max() > 2 / 255


def test_a_video_whose_first_frames_never_tell_is_left_without_the_step_and_nothing_kept(monkeypatch):
    monkeypatch.setattr(camera_bias, "MAX_WAIT", 3)
    clean = (ramp()[0] * 255).round() / 255  # noise-free footage: no frame can tell
    bias = GammaBias(curve_of_the_camera())
    passed = bias.watching([clean] * 5)
    for _ in range(3):
        next(passed)
        assert torch.equal(undo(bias, clean, clean), clean)
    assert bias.lift is not None and not len(bias.lift) and not bias.waiting  # decided off after 3
    next(passed), next(passed)
    assert not bias.waiting and torch.equal(undo(bias, clean, clean), clean)


def test_where_the_step_is_made_the_clipping_reads_the_noise_before_the_codec_too(monkeypatch, fast_denoiser):
    """A camera clips its noise before the codec smooths it: once the step is made (LIFT_CLIPPING), the clipping's
    correction reads the curve × CODEC_LIFT; before the decision, and for noise that is not a camera's, the curve as
    measured."""
    monkeypatch.setattr(camera_bias, "LIFT_CLIPPING", True)
    clean, camera = ramp()[0], curve_of_the_camera()
    mean = linear_noise_moments(np.array(SHOT), np.array(READ))[0]
    output = torch.from_numpy(np.interp(clean.numpy(), camera_bias.VALUES, mean)).float()  # a perfect averager
    bias = GammaBias(camera)
    passed = bias.watching([camera_frames(clean * 0.05, seed=7), camera_frames(clean)])
    next(passed), next(passed)
    assert bias.decide(clean * 0.05) is camera and bias.lift is None  # a dark frame cannot tell: as measured
    lifted = bias.decide(output)
    assert len(bias.lift) and lifted.knots == camera.knots and bias.decide(output) is lifted
    np.testing.assert_allclose(lifted.sigmas, np.asarray(camera.sigmas) * camera_bias.CODEC_LIFT)
    said = f"fitted to the curve × {camera_bias.CODEC_LIFT:g}, the noise as the camera made it (σ auto reads it low "
    said += "after a codec and where clipped)"
    assert bias.describe().endswith(f"{said}, which the clipping's correction reads too")  # `clean`'s line says so
    monkeypatch.setattr(camera_bias, "LIFT_CLIPPING", False)
    unlifted = GammaBias(camera)
    list(unlifted.watching([camera_frames(clean)]))
    assert unlifted.decide(output) is camera and unlifted.describe().endswith(said)
    monkeypatch.setattr(camera_bias, "LIFT_CLIPPING", True)
    gaussian = GammaBias(NoiseLevelFunction.constant(25 / 255, 3))
    list(gaussian.watching([(clean + 25 / 255 * torch.randn(clean.shape)).clamp(0, 1)]))
    assert gaussian.decide(clean) is gaussian.function and not len(gaussian.lift)

    # through the denoiser: the model's output unclipped with the lifted curve, then raised by the step
    noisy = camera_frames(ramp(frames=3))
    neither = Denoiser(
        fast_denoiser.model, dataclasses.replace(fast_denoiser.settings, unclip=False, camera_bias=False), 25 / 255
    ).denoise_clip(noisy, camera)
    reference = GammaBias(camera)
    list(reference.watching(noisy))
    before_codec = dataclasses.replace(
        camera, sigmas=tuple(tuple(s * camera_bias.CODEC_LIFT for s in r) for r in camera.sigmas)
    )
    reference.decide(neither[0])
    expected = torch.stack([reference.undo(frame, unclip(frame, before_codec(frame))) for frame in neither])
    with_lift = fast_denoiser.denoise_clip(noisy, camera)
    torch.testing.assert_close(with_lift, expected, atol=1e-6, rtol=0)
    monkeypatch.setattr(camera_bias, "LIFT_CLIPPING", False)
    without = fast_denoiser.denoise_clip(noisy, camera)
    near_black = neither < 0.1
    # a larger σ clipped at black: values near it lowered more (to float rounding where both reach 0)
    assert (with_lift[near_black] <= without[near_black] + 1e-7).all()
    assert (without - with_lift)[near_black].mean() > 0.5 / 255


def test_a_step_made_told_the_curve_is_made_where_calibration_tells_another_scale(fast_denoiser, monkeypatch):
    """Told another scale, a pass's first frames can decide the step otherwise or not at all (a dark microscope pan,
    told 1.6×: 1.4 dB lost, benchmarks/results/camera-gamma/calibrated_step.log): calibration hands on the step as a
    pass told the curve made it, and a pass told that function makes it from its first frame, as fitted there."""
    from videodenoise.denoise import calibration

    noisy, curve = camera_frames(ramp(frames=3)), curve_of_the_camera()
    reference = []
    list(fast_denoiser.denoise_frames(iter(noisy), curve, on_camera_bias=reference.append))
    fit = calibration._gamma_fit(fast_denoiser, noisy, curve)
    assert fit == (reference[0].skew, tuple(reference[0].shots), tuple(reference[0].reads))
    assert fit[0] > camera_bias.SKEW_THRESHOLD
    told = calibration.Calibration(1.6, {1.0: 2.0, 1.6: 1.0}, 10, gamma_fit=fit).applied_to(curve)
    assert told.told_scale == 1.6 and told.gamma_fit == fit
    assert calibration.Calibration(1.0, {}, 0, gamma_fit=fit).applied_to(curve) is curve  # scale 1: as it is

    # a pass told it makes the step on its first frame, even one with no picture to tell from, with that fit
    bias, reports = GammaBias(told, on_fitted=lambda fitted: reports.append(fitted.describe())), []
    black = torch.zeros(3, 128, 160)
    list(bias.watching([black]))
    bias.decide(black)
    np.testing.assert_allclose(bias.lift, reference[0].lift.numpy())
    assert bias.frame == 0 and len(reports) == 1
    assert "read and fitted on frames denoised told the curve as estimated" in reports[0]
    assert f"(S = {fit[0]:.2f}, read and" in reports[0]

    # not made, or not for this σ: nothing handed on, each pass decides as ever
    gaussian = ramp(frames=3) + 25 / 255 * torch.randn(3, 3, 128, 160, generator=torch.Generator().manual_seed(6))
    flat = NoiseLevelFunction((0.1, 0.5, 0.9), ((25 / 255,) * 3,) * 3, 25 / 255)
    off = Denoiser(fast_denoiser.model, dataclasses.replace(fast_denoiser.settings, camera_bias=False), 25 / 255)
    assert calibration._gamma_fit(fast_denoiser, gaussian.clamp(0, 1), flat) is None  # noise added: never made
    assert calibration._gamma_fit(off, noisy, curve) is None  # --no-camera-bias
    assert calibration._gamma_fit(fast_denoiser, noisy, 0.1) is None  # a σ told by hand
    assert GammaBias(curve).function.gamma_fit is None

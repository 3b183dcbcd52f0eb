"""Camera noise: the sensor model's statistics, the codec, shapes, `make_noise("camera", σ)` in the γ sweep,
and training runs that mix camera noise into their clips."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
import torch

from videodenoise.colour import opponent_channel, opponent_sigma
from videodenoise.errors import ConfigError, VideodenoiseError
from videodenoise.evaluation.config import EvalConfig
from videodenoise.evaluation.sweep import evaluate
from videodenoise.noise.camera import (
    CAMERA_PRESETS,
    CameraNoise,
    CameraNoiseRange,
    camera_noise_std,
    linear_to_srgb,
    srgb_to_linear,
)
from videodenoise.noise.kinds import make_noise
from videodenoise.training.config import DataConfig, TrainConfig
from videodenoise.training.inputs import VALIDATION_SEED, TrainingInputs
from videodenoise.training.trainer import Trainer

import replicas as R
from helpers import run_cli, sigma_range_config


def gen(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def smooth_clip(channels: int, frames: int = 5, height: int = 48, width: int = 64) -> torch.Tensor:
    """A smooth moving pattern in [0.3, 0.7]: almost no energy at the finest scale of its own."""
    y, x = torch.meshgrid(torch.linspace(0, 1, height), torch.linspace(0, 1, width), indexing="ij")
    pictures = [
        0.5 + 0.2 * torch.sin(6 * x + t / 2 + c) * torch.cos(4 * y - c) for t in range(frames) for c in range(channels)
    ]
    return torch.stack(pictures).reshape(frames, channels, height, width)


def on_8_bits(x: torch.Tensor) -> bool:
    return bool(((x * 255 - (x * 255).round()).abs() < 1e-4).all())


# ---------------------------------------------------------------------------------------------------
# the sensor model


def test_srgb_transfer_function_round_trips():
    v = torch.linspace(0, 1, 1001, dtype=torch.float64)
    assert torch.allclose(linear_to_srgb(srgb_to_linear(v)), v, atol=1e-12)
    assert float(srgb_to_linear(torch.tensor(0.5, dtype=torch.float64))) == pytest.approx(0.21404, abs=1e-5)


@pytest.mark.parametrize("a, b", [(0.01, 4e-4), (0.003, 1e-4)])
def test_shot_and_read_noise_come_back_from_a_ramp(a, b):
    # columns step through ten grey levels, away from black and white so that clipping does not bite
    levels = torch.linspace(0.35, 0.8, 10)
    ramp = levels.repeat_interleave(32).expand(8, 1, 64, 320).contiguous()
    noisy = CameraNoise(a=a, b=b, spread=0.0, mix=0.0, codec="none")(ramp, gen())
    linear = srgb_to_linear(noisy.double()).reshape(8, 64, 10, 32)
    variance = linear.permute(2, 0, 1, 3).reshape(10, -1).var(dim=1)
    x = srgb_to_linear(levels.double())
    fitted_a, fitted_b = torch.linalg.lstsq(torch.stack([x, torch.ones_like(x)], 1), variance[:, None]).solution
    assert float(fitted_a) == pytest.approx(a, rel=0.1)
    assert float(fitted_b) == pytest.approx(b, rel=0.1)


def test_channel_spread_scales_shot_noise_by_the_gain_and_read_noise_by_its_square():
    spread, a, b = 0.2, 0.01, 4e-4
    levels = torch.linspace(0.35, 0.8, 10)
    ramp = levels.repeat_interleave(32).expand(8, 3, 64, 320).contiguous()
    noisy = CameraNoise(a=a, b=b, spread=spread, mix=0.0, codec="none")(ramp, gen(1))
    linear = srgb_to_linear(noisy.double()).reshape(8, 3, 64, 10, 32)
    x = srgb_to_linear(levels.double())
    design = torch.stack([x, torch.ones_like(x)], 1)
    for channel, gain in enumerate((1.0, 1 - spread, 1 + spread)):
        variance = linear[:, channel].permute(2, 0, 1, 3).reshape(10, -1).var(dim=1)
        fitted_a, fitted_b = torch.linalg.lstsq(design, variance[:, None]).solution
        assert float(fitted_a) == pytest.approx(a * gain, rel=0.1)
        assert float(fitted_b) == pytest.approx(b * gain**2, rel=0.15)


@pytest.mark.parametrize("mix", [0.0, 0.1, 0.3, -0.3])
def test_mixing_correlates_the_channels_noise_as_the_matrix_implies(mix):
    grey = torch.full((4, 3, 64, 64), 0.5)
    noise = CameraNoise(a=0.01, b=4e-4, spread=0.0, mix=mix, codec="none")
    residual = srgb_to_linear(noise(grey, gen(2))) - srgb_to_linear(torch.tensor(0.5))
    correlations = torch.corrcoef(residual.transpose(0, 1).reshape(3, -1))
    for i, j in ((0, 1), (0, 2), (1, 2)):
        assert float(correlations[i, j]) == pytest.approx(noise.correlation, abs=0.04)
    # each channel keeps its variance: mixing moves noise between channels, it adds none
    assert float(residual.var()) == pytest.approx(0.01 * 0.21404 + 4e-4, rel=0.05)
    assert CameraNoise(mix=0.0).correlation == 0.0


def test_noise_std_on_the_srgb_scale_is_the_gamma_slope_times_the_linear_std_for_light_noise():
    noise = CameraNoise(a=0.0005, b=1e-5)
    x = float(srgb_to_linear(torch.tensor(0.5, dtype=torch.float64)))
    first_order = 1.055 / 2.4 * x ** (1 / 2.4 - 1) * math.sqrt(noise.a * x + noise.b)
    assert camera_noise_std(noise, 0.5) == pytest.approx(first_order, rel=0.02)
    assert noise.std_at(0.5) == noise.sigma == camera_noise_std(noise)
    sampled = CameraNoise(a=0.02, b=1e-3, codec="none")(torch.full((1, 1, 500, 500), 0.3), gen(3))
    assert float(sampled.std()) == pytest.approx(camera_noise_std(CameraNoise(a=0.02, b=1e-3), 0.3), rel=0.02)
    stds = [preset.sigma for preset in CAMERA_PRESETS.values()]
    assert list(CAMERA_PRESETS) == ["light", "medium", "heavy"] and stds == sorted(stds)


# ---------------------------------------------------------------------------------------------------
# the codec


@pytest.mark.parametrize("codec", ["h264", "h265"])
@pytest.mark.parametrize("channels", [1, 3])
def test_the_codec_is_deterministic_and_takes_energy_from_the_finest_scale(codec, channels):
    clip = smooth_clip(channels)
    noise = CameraNoise(a=0.01, b=4e-4, codec=codec, crf=23)
    first, again, other = noise(clip, gen(4)), noise(clip, gen(4)), noise(clip, gen(5))
    assert torch.equal(first, again) and not torch.equal(first, other)
    assert on_8_bits(first) and first.min() >= 0 and first.max() <= 1

    def finest(x: torch.Tensor) -> float:  # variance of the horizontal pixel difference
        return float((x[..., 1:] - x[..., :-1]).var())

    before = dataclasses.replace(noise, codec="none")(clip, gen(4))
    assert finest(first) < finest(before)
    if channels == 3:  # 4:2:0 halves the chroma's resolution: much of the colour noise goes
        assert finest(first) < 0.8 * finest(before)


@pytest.mark.parametrize(
    "shape", [(1, 3, 17, 23), (3, 1, 9, 11), (1, 1, 5, 7), (2, 3, 1, 10, 12), (3, 9, 7), (9, 7), (1000,), ()]
)
def test_any_clip_shape_keeps_its_shape_dtype_and_range(shape):
    clip = torch.rand(shape, generator=gen(6), dtype=torch.float64)
    noisy = CameraNoise(a=0.01, b=4e-4)(clip, gen())
    assert noisy.shape == clip.shape and noisy.dtype == torch.float64
    assert on_8_bits(noisy) and noisy.min() >= 0 and noisy.max() <= 1
    assert CameraNoise()(torch.zeros(0, 3, 4, 4), gen()).shape == (0, 3, 4, 4)


def test_clips_of_a_batch_are_coded_one_by_one():
    batch = torch.stack([smooth_clip(1, 3, 16, 16), smooth_clip(1, 3, 16, 16).flip(-1)])
    noise = CameraNoise(a=0.0, b=0.0)  # no sensor noise: the codec alone
    together = noise(batch, gen())
    assert torch.equal(together[1], noise(batch[1], gen()))


def test_bad_input_and_options_are_one_line_errors():
    with pytest.raises(VideodenoiseError, match="C = 1 or 3") as error:
        CameraNoise()(torch.zeros(4, 2, 8, 8))
    assert "\n" not in str(error.value)
    with pytest.raises(VideodenoiseError, match="float tensor"):
        CameraNoise()(torch.zeros(1, 1, 8, 8, dtype=torch.uint8))
    for options, message in [
        ({"codec": "vp9"}, "unknown camera codec 'vp9'"),
        ({"crf": 60}, "crf must lie in"),
        ({"crf": 23.5}, "crf must be an integer"),
        ({"mix": 2.0}, "mix must lie in"),
        ({"spread": 0.7}, "spread must lie in"),
        ({"a": -0.1}, "a must be >= 0"),
        ({"b": float("nan")}, "b must be a finite number"),
    ]:
        with pytest.raises(VideodenoiseError, match=message) as error:
            CameraNoise(**options)
        assert "\n" not in str(error.value)
    with pytest.raises(VideodenoiseError, match="at most std"):
        make_noise("camera", 0.5)


# ---------------------------------------------------------------------------------------------------
# ranges


def test_a_range_draws_reproducible_cameras_inside_its_bounds():
    bounds = CameraNoiseRange(codecs=["h264", "h265", "none"])
    drawn = [bounds.sample(gen(seed)) for seed in range(200)]
    assert bounds.sample(gen(7)) == drawn[7]
    assert all(0.0005 <= n.a <= 0.02 and 1e-5 <= n.b <= 1e-3 and 18 <= n.crf <= 30 for n in drawn)
    assert all(0 <= n.spread <= 0.2 and 0 <= n.mix <= 0.3 for n in drawn)
    assert {n.codec for n in drawn} == {"h264", "h265", "none"} and {n.crf for n in drawn} == set(range(18, 31))
    # log-uniform: about half of the shot-noise draws lie below the geometric middle of the range
    below = np.mean([n.a < math.sqrt(0.0005 * 0.02) for n in drawn])
    assert 0.4 < below < 0.6
    for options in ({"a": [0.0, 0.01]}, {"crf": [30, 18]}, {"codecs": []}, {"codecs": ["h264", "h264"]}):
        with pytest.raises(VideodenoiseError, match="camera noise range"):
            CameraNoiseRange(**options)


# ---------------------------------------------------------------------------------------------------
# make_noise("camera", σ) and the γ sweep


@pytest.mark.parametrize("sigma", [10 / 255, 25 / 255, 50 / 255])
def test_make_noise_camera_has_std_sigma_on_mid_grey(sigma):
    noise = make_noise("camera", sigma)
    assert isinstance(noise, CameraNoise) and (noise.codec, noise.crf) == ("h264", 23)
    assert noise.std_at(0.5) == pytest.approx(sigma)  # before the codec, exactly
    assert noise.a * 0.21404 == pytest.approx(noise.b, rel=1e-3)  # half the variance from each part
    grey, colour = torch.full((5, 1, 64, 64), 0.5), torch.full((5, 3, 64, 64), 0.5)
    without_codec = dataclasses.replace(noise, codec="none")
    assert float((without_codec(grey, gen()) - 0.5).std()) == pytest.approx(sigma, rel=0.03)
    # H.264 at CRF 23 leaves a flat grey clip's luma noise nearly whole; 4:2:0 takes a share of the
    # colour noise, so a colour clip's std falls below σ
    assert float((noise(grey, gen()) - 0.5).std()) == pytest.approx(sigma, rel=0.15)
    assert 0.6 * sigma < float((noise(colour, gen()) - 0.5).std()) < sigma


def test_the_evaluation_sweep_runs_with_camera_noise(tmp_path):
    R.make_repackaged(tmp_path, "ped2", size=(40, 48))
    config = EvalConfig(
        dataset="ucsd-ped2",
        root=str(tmp_path),
        split="test",
        clip_length=3,
        crop=24,
        gammas=[1.0, 2.0],
        seeds=[0],
        noises=["gaussian", "camera"],
        baselines=["noisy"],
        max_clips=2,
        clamp=False,
        device="cpu",
    )
    result = evaluate([], config)
    again = evaluate([], config)
    camera = result.samples[("noisy", "camera", "input")]["rmse"]
    np.testing.assert_array_equal(camera, again.samples[("noisy", "camera", "input")]["rmse"])
    for level, rmse in zip(result.levels, camera):
        assert np.isfinite(rmse).all() and (0.3 * level.sigma < rmse).all() and (rmse < 1.5 * level.sigma).all()


# ---------------------------------------------------------------------------------------------------
# training


@pytest.fixture(scope="module")
def ped2(tmp_path_factory):
    root = tmp_path_factory.mktemp("ped2")
    R.make_repackaged(root, "ped2", size=(40, 48))
    return root


def camera_config(root, **overrides) -> TrainConfig:
    return sigma_range_config(root, **{"camera_fraction": 0.5, **overrides})


def colour_batch(batch: int = 8) -> torch.Tensor:
    """(B, T, 3, H, W): a flat colour per clip, different in R, G and B."""
    colours = torch.tensor([0.55, 0.45, 0.35]).view(1, 1, 3, 1, 1)
    return colours.expand(batch, 3, 3, 16, 16).clone()


def trainer_camera_indices(trainer, clean: torch.Tensor) -> set[int]:
    """The clips of `trainer.inputs(clean, 7, 0)` that got camera noise: those it estimated the noise of."""
    from videodenoise.training import inputs as module

    seen, real = [], module.estimate_clip_noise
    module.estimate_clip_noise = lambda clip: seen.append(clip) or real(clip)
    try:
        noisy = trainer.inputs(clean, 7, 0).noisy
    finally:
        module.estimate_clip_noise = real
    return {
        index
        for colour in seen
        for index, grey in enumerate(noisy)
        if any(torch.allclose(opponent_channel(colour, k), grey) for k in range(3))
    }


def test_a_grey_model_trains_on_opponent_channels_of_colour_clips_with_camera_noise(ped2, tmp_path):
    config = camera_config(ped2)
    trainer = Trainer(config, tmp_path / "run", quiet=True)
    assert trainer.train_set[0].shape[1] == 3 and trainer.val_set[0].shape[1] == 1  # colour in, grey validation
    clean = colour_batch()
    noisy, sigmas, told, target = trainer.inputs(clean, 7, 0)
    assert noisy.shape == target.shape == (8, 3, 1, 16, 16) and told["sigma"].shape == (8, 3, 16, 16)
    # the target is one opponent channel of each clip, as `clean` hands colour video to a grey model
    channels = [
        min(range(3), key=lambda k: float((opponent_channel(clip, k) - t).abs().max()))
        for clip, t in zip(clean, target)
    ]
    assert all(torch.allclose(opponent_channel(clip, k), t) for clip, k, t in zip(clean, channels, target))
    # camera clips are told a map, whose RMS is their σ; Gaussian clips their σ everywhere
    camera = torch.tensor([i in trainer_camera_indices(trainer, clean) for i in range(8)])
    assert 0 < int(camera.sum()) < 8  # some clips of each kind
    assert torch.allclose(told["sigma"][~camera], sigmas[~camera].view(-1, 1, 1, 1).expand(-1, 3, 16, 16))
    assert torch.allclose(told["sigma"][camera].square().mean(dim=(1, 2, 3)).sqrt(), sigmas[camera])
    # reproducible from (seed, step, rank)
    again = trainer.inputs(clean, 7, 0)
    assert torch.equal(again.noisy, noisy) and torch.equal(again.told["sigma"], told["sigma"])
    # validation stays grey and Gaussian at sigma_train, scored against the clips as loaded
    grey = clean[:, :, :1]
    validation = trainer.inputs(grey, VALIDATION_SEED, 0)
    assert torch.equal(validation.clean, grey) and torch.allclose(
        validation.sigma, torch.full((8,), config.sigma_train)
    )
    summary = trainer.fit()
    assert summary["steps"] == 2 and math.isfinite(summary["final"]["val_rmse"])


def test_camera_clips_are_told_the_estimators_map_times_its_grain(ped2, monkeypatch):
    from videodenoise.noise.noise_level_function import NoiseLevelFunction
    from videodenoise.training import inputs as module

    seen = []

    def estimator(clip):
        seen.append(clip)
        return NoiseLevelFunction((0.5,), ((0.03,),) * 3, 0.03, grain=(2.0, 0.5, 1.0))

    monkeypatch.setattr(module, "estimate_clip_noise", estimator)
    inputs = TrainingInputs(camera_config(ped2, camera_fraction=1.0), torch.device("cpu"), True)
    clean = colour_batch(4)
    noisy, sigmas, told, target = inputs(clean, 3, 0)
    assert len(seen) == 4 and all(clip.shape == (3, 3, 16, 16) and on_8_bits(clip) for clip in seen)
    for colour, grey, told_map in zip(seen, noisy, told["sigma"]):
        k = next(k for k in range(3) if torch.allclose(opponent_channel(colour, k), grey))  # what the model sees
        assert torch.allclose(told_map, torch.full((3, 16, 16), 0.03 * (2.0, 0.5, 1.0)[k]))


def test_with_fusion_camera_clips_are_fused_in_colour_as_clean_fuses_them(ped2, monkeypatch):
    from videodenoise.denoise.fusion import MotionFusion
    from videodenoise.noise.noise_level_function import NoiseLevelFunction
    from videodenoise.training import inputs as module

    # told more noise than the clips carry, so fusion averages the still frames wherever they are aligned
    function = NoiseLevelFunction((0.5,), ((0.2,),) * 3, 0.2, grain=(2.0, 0.5, 1.0), carried=0.3)
    seen = []
    monkeypatch.setattr(module, "estimate_clip_noise", lambda clip: seen.append(clip) or function)
    light = {"codecs": ["none"], "a": [0.002, 0.002], "b": [1e-4, 1e-4]}  # no codec to smear the texture
    config = camera_config(ped2, camera_fraction=1.0, fusion={}, camera_range=light)
    inputs = TrainingInputs(config, torch.device("cpu"), True)
    clean = torch.rand(1, 1, 3, 24, 24).expand(3, 3, 3, 24, 24).clone()  # a still textured scene
    noisy, sigmas, told, target = inputs(clean, 3, 0)
    assert len(seen) == 3
    for colour, grey, told_map, sigma in zip(seen, noisy, told["sigma"], sigmas):
        # what `clean` does with a colour video: fusion in R, G, B along the estimate, then the model's channel
        fused, left = MotionFusion().fuse_clip(colour, function, function.luminance_grain, function.carried)
        k = next(k for k in range(3) if torch.allclose(opponent_channel(fused, k), grey, atol=1e-6))
        assert not torch.allclose(opponent_channel(colour, k), grey, atol=1e-3)  # fused, not as it came
        assert torch.allclose(told_map, opponent_sigma(left)[:, k] * function.grain[k])
        # the clip's σ (its weight in the loss) is its noise as it came, as a Gaussian clip's drawn σ
        assert sigma == pytest.approx(0.2 * function.grain[k], rel=1e-5)
        assert float(told_map.max()) < 0.2 * function.grain[k]


def test_with_fusion_the_gaussian_clips_of_a_camera_batch_are_fused_and_told_what_is_left(ped2):
    config = camera_config(ped2, camera_fraction=1e-9, fusion={})  # every clip Gaussian
    inputs = TrainingInputs(config, torch.device("cpu"), True)
    clean = torch.rand(1, 1, 3, 32, 32).expand(4, 5, 3, 32, 32).clone()  # a still textured scene
    noisy, sigmas, told, target = inputs(clean, 6, 0)
    low, high = config.sigma_range
    assert bool(((sigmas >= low) & (sigmas <= high)).all())
    for grey, told_map, sigma, truth in zip(noisy, told["sigma"], sigmas, target):
        assert float(told_map.max()) <= float(sigma) * (1 + 1e-5)
        # five aligned frames: fusion leaves about σ/√5 at most pixels, and the map says what is left
        assert float(told_map.mean()) < 0.7 * float(sigma)
        left = float((grey - truth).std())
        assert left == pytest.approx(float(told_map.square().mean().sqrt()), rel=0.25)


def test_noise_is_made_and_estimated_on_the_noise_crop_and_the_model_gets_its_centre(ped2, monkeypatch):
    from videodenoise.training import inputs as module

    seen, real = [], module.estimate_clip_noise
    monkeypatch.setattr(module, "estimate_clip_noise", lambda clip: seen.append(clip.shape) or real(clip))
    config = camera_config(ped2, camera_fraction=1.0)
    config = dataclasses.replace(config, data=dataclasses.replace(config.data, noise_crop=24, motion_fraction=0.5))
    trainer = Trainer(config, ped2.parent / "run-noise-crop", quiet=True)
    assert all(trainer.train_set[i].shape[-2:] == (24, 24) for i in range(8))  # real and synthetic clips alike
    assert trainer.val_set[0].shape[-1] == 24  # val_crop
    clean = torch.rand(2, 3, 3, 24, 24)
    whole = trainer.inputs._with_camera_noise(clean, 4, 0)
    cut = trainer.inputs(clean, 4, 0)
    assert seen and all(shape[-2:] == (24, 24) for shape in seen)
    assert cut.noisy.shape == (2, 3, 1, 16, 16) and cut.told["sigma"].shape == (2, 3, 16, 16)
    assert torch.equal(cut.noisy, whole.noisy[..., 4:20, 4:20]) and torch.equal(cut.clean, whole.clean[..., 4:20, 4:20])
    assert torch.equal(cut.told["sigma"], whole.told["sigma"][..., 4:20, 4:20])
    with pytest.raises(ConfigError, match="noise_crop must be at least crop"):
        DataConfig(crop=32, noise_crop=16)


def test_camera_noise_on_a_flat_clip_is_told_about_the_noise_it_carries(ped2):
    inputs = TrainingInputs(
        camera_config(ped2, camera_fraction=1.0, camera_range={"codecs": ["none"]}), torch.device("cpu"), True
    )
    clean = torch.tensor([0.55, 0.45, 0.35]).view(1, 1, 3, 1, 1).expand(2, 5, 3, 64, 64).clone()
    noisy, sigmas, told, target = inputs(clean, 5, 0)
    measured = (noisy - target).flatten(1).std(dim=1)
    assert torch.allclose(sigmas, measured, rtol=0.2)


def test_camera_range_settings_reach_the_draws(ped2, monkeypatch):
    config = camera_config(ped2, camera_fraction=1.0, camera_range={"codecs": ["none"], "crf": [20, 20]})
    assert config.camera_noise_range() == CameraNoiseRange(codecs=["none"], crf=[20, 20])
    assert TrainConfig.from_dict(config.to_dict()) == config
    drawn = []
    sample = CameraNoiseRange.sample
    monkeypatch.setattr(CameraNoiseRange, "sample", lambda self, g: drawn.append(sample(self, g)) or drawn[-1])
    TrainingInputs(config, torch.device("cpu"), True)(colour_batch(4), 1, 0)
    assert len(drawn) == 4 and all(noise.codec == "none" and noise.crf == 20 for noise in drawn)


class Captured(BaseException):  # not an Exception: the command's error boundary lets it through
    pass


def test_the_train_command_takes_camera_noise_options(tmp_path, capsys, monkeypatch):
    from videodenoise.training import trainer

    seen = {}

    def record(config, *args, **kwargs):
        seen["config"] = config
        raise Captured()

    monkeypatch.setattr(trainer, "Trainer", record)
    args = ["train", "--sigma-range", "0,51", "--camera-fraction", "0.5", "--camera-range", '{"crf": [18, 20]}']
    with pytest.raises(Captured):
        run_cli(args, capsys, monkeypatch)
    config = seen["config"]
    assert config.camera_fraction == 0.5 and config.camera_range == {"crf": [18, 20]}
    assert config.camera_noise_range() == CameraNoiseRange(crf=[18, 20])
    code, _, err = run_cli(["train", "--camera-fraction", "0.5"], capsys, monkeypatch)
    assert code == 1 and "camera_fraction needs sigma_range" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"sigma_range": None}, "camera_fraction needs sigma_range"),
        ({"camera_fraction": 1.5}, r"camera_fraction must be in \[0, 1\]"),
        ({"camera_fraction": 0.0, "camera_range": {"crf": [20, 24]}}, "camera_fraction is 0"),
        ({"camera_range": {"crf": [30, 18]}}, "bad camera_range.*crf must be"),
        ({"camera_range": {"codecs": ["vp9"]}}, "bad camera_range.*codecs"),
        ({"camera_range": {"shot": [0.01, 0.02]}}, "unknown camera range setting.*shot"),
        ({"camera_range": {"a": "lots"}}, "camera range setting a must be"),
        ({"clip_noise": True}, "set clip_noise to false"),
    ],
)
def test_bad_camera_training_settings_are_one_line_config_errors(ped2, overrides, message):
    with pytest.raises(ConfigError, match=message) as error:
        camera_config(ped2, **overrides)
    assert "\n" not in str(error.value)

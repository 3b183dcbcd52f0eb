"""The quality levers: non-local attention, noise-conditional DUST, σ-range training, camera motion data."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
import torch

import videodenoise.models.base as base
from videodenoise.colour import opponent_channel
from videodenoise.datasets.motion import (
    BENCHMARK_PHOTOS,
    TRAINING_PHOTOS,
    VALIDATION_PHOTOS,
    MixedClips,
    MotionClips,
    MotionLimits,
    camera_motion_clip,
    load_photo,
    motion_path,
    paste_moving_objects,
)
from videodenoise.denoise.denoiser import Denoiser
from videodenoise.denoise.settings import DenoiseSettings
from videodenoise.errors import DatasetError, ModelError
from videodenoise.models.attention import TokenAttention
from videodenoise.models.registry import build_model, read_metadata, save_model
from videodenoise.training.config import TrainConfig
from videodenoise.training.trainer import Trainer

import replicas as R
from helpers import sigma_range_config

NONLOCAL = dict(token_set="nonlocal", neighbourhood=3, layers=3)


def smooth_clip(frames=5, height=40, width=56, seed=0) -> torch.Tensor:
    """A (1, T, 1, H, W) clip of moving smooth blobs: something a denoiser can recover."""
    generator = torch.Generator().manual_seed(seed)
    y, x = torch.meshgrid(torch.linspace(0, 1, height), torch.linspace(0, 1, width), indexing="ij")
    phase = torch.rand(3, generator=generator) * 6
    frames_ = [0.5 + 0.3 * torch.sin(6 * x + phase[0] + 0.2 * t) * torch.cos(5 * y + phase[1]) for t in range(frames)]
    return torch.stack(frames_)[None, :, None]


def with_active_attention(model):
    """Give every layer's attention a nonzero gain and a random metric, as training would."""
    generator = torch.Generator().manual_seed(1)
    for layer in model.layers:
        with torch.no_grad():
            layer.attention.gain.fill_(0.5)
            layer.attention.query.weight.copy_(
                torch.randn(layer.attention.query.weight.shape, generator=generator) * 0.1
            )
    return model


# ---------------------------------------------------------------------------------------------- attention


def test_nonlocal_scores_are_negative_squared_distances():
    """With one frame and the window covering the grid, the weights are softmax(−½‖q_i − q_j‖²/√d)."""
    torch.manual_seed(0)
    attention = TokenAttention(
        8, head_dim=4, normalize_tokens=False, token_set="nonlocal", neighbourhood=3, gain_init=1.0
    )
    tokens = torch.randn(1, 2, 2, 1, 8)
    out = attention(tokens)
    queries = attention.query(tokens).reshape(4, 4)
    flat = tokens.reshape(4, 8)
    distances = torch.cdist(queries, queries).square()
    weights = torch.softmax(-0.5 * distances / 2.0, dim=-1)  # √d = 2
    assert torch.allclose(out.reshape(4, 8), weights @ flat, atol=1e-5)


@pytest.mark.parametrize("shape", [(1, 1, 1, 9, 11), (2, 3, 1, 24, 17), (1, 7, 1, 33, 40)])
def test_nonlocal_dust_takes_any_t_h_w(shape):
    model = with_active_attention(build_model("dust", **NONLOCAL))
    out = model(torch.rand(shape))
    assert out.shape == shape and torch.isfinite(out).all()


def test_banded_output_equals_whole_clip(monkeypatch):
    torch.manual_seed(0)
    model = with_active_attention(build_model("dust", **NONLOCAL)).eval()
    clip = torch.rand(1, 3, 1, 120, 40)
    with torch.no_grad():
        monkeypatch.setattr(base, "CPU_BAND_BYTES", 1 << 40)
        whole = model(clip, all_layers=True)
        monkeypatch.setattr(base, "CPU_BAND_BYTES", 8000)
        tokens = torch.zeros(1, 29, 9, 3, model.state_width)
        assert len(model._bands(tokens, model.num_layers)) >= 2  # really banded
        banded = model(clip, all_layers=True)
    for a, b in zip(whole, banded):
        assert torch.allclose(a, b, atol=1e-6)


def test_tiled_output_equals_whole_frame():
    model = with_active_attention(build_model("dust", **NONLOCAL))
    clip = smooth_clip(frames=3, height=150, width=180)[0]
    whole = Denoiser(model, DenoiseSettings(device="cpu", tile=None)).denoise_clip(clip, sigma=25 / 255)
    tiled_denoiser = Denoiser(model, DenoiseSettings(device="cpu", tile=112))
    assert len(tiled_denoiser._tiling(150, 180)[0]) > 1
    tiled = tiled_denoiser.denoise_clip(clip, sigma=25 / 255)
    assert torch.allclose(whole, tiled, atol=1e-5)


def test_gradients_reach_every_layer():
    model = with_active_attention(build_model("dust", **NONLOCAL))
    clean = smooth_clip()
    noisy = clean + 0.1 * torch.randn_like(clean)
    estimates = model(noisy, all_layers=True, sigma=torch.tensor([0.1]))
    sum(((e - clean) ** 2).mean() for e in estimates[1:]).backward()
    for index, layer in enumerate(model.layers):
        for name, parameter in layer.named_parameters():
            assert parameter.grad is not None and parameter.grad.abs().sum() > 0, f"layer {index} {name}"


@pytest.mark.parametrize("token_set", ["temporal", "nonlocal"])
def test_untrained_dust_denoises_and_descends_layer_by_layer(token_set):
    torch.manual_seed(0)
    model = build_model("dust", token_set=token_set, neighbourhood=3)
    clean = smooth_clip(height=64, width=64)
    noisy = clean + 25 / 255 * torch.randn_like(clean)
    with torch.no_grad():
        errors = [float(((e - clean) ** 2).mean()) for e in model(noisy, all_layers=True)]
    assert all(later < earlier for earlier, later in zip(errors, errors[1:])), errors
    assert errors[-1] < 0.5 * errors[0]


# ------------------------------------------------------------------------------------ noise-conditional DUST


def test_sigma_scales_the_thresholds():
    torch.manual_seed(0)
    model = with_active_attention(build_model("dust", layers=3))
    clip = smooth_clip() + 0.05 * torch.randn(1, 5, 1, 40, 56)
    with torch.no_grad():
        assert torch.equal(model(clip), model(clip, sigma=model.config.sigma))
        # σ = 0: no threshold anywhere; the untrained model is ISTA on a tight frame started at the
        # least-squares code, which is already a fixed point, so it returns its input exactly
        untrained = build_model("dust", layers=3)
        assert torch.allclose(untrained(clip, sigma=0.0), clip, atol=1e-5)
        per_clip = model(clip.expand(2, -1, -1, -1, -1), sigma=torch.tensor([0.02, 0.2]))
        assert torch.allclose(per_clip[0], model(clip, sigma=0.02)[0], atol=1e-6)
        assert torch.allclose(per_clip[1], model(clip, sigma=0.2)[0], atol=1e-6)


@pytest.mark.parametrize("sigma", [-0.1, float("nan"), [0.1, 0.2, 0.3]])
def test_bad_sigma_is_refused(sigma):
    model = build_model("dust", layers=2)
    with pytest.raises(ModelError, match="sigma"):
        model(torch.rand(2, 3, 1, 16, 16), sigma=torch.tensor(sigma) if isinstance(sigma, list) else sigma)


def test_denoiser_tells_a_noise_conditional_model_its_sigma(tmp_path):
    model = build_model("dust", layers=2)
    path = save_model(model, tmp_path / "m.safetensors", {"sigma_train": repr(25 / 255), "sigma_range": "[0.0, 0.2]"})
    denoiser = Denoiser.from_checkpoint(path, DenoiseSettings(device="cpu"))
    assert denoiser.sigma_range == (0.0, 0.2)
    assert denoiser.scale_for(0.0) == (1.0, 0.0)  # light noise: no rescaling at all
    assert denoiser.scale_for(0.1) == (1.0, 0.1)
    scale, told = denoiser.scale_for(0.4)  # above the range: rescaled to its top
    assert math.isclose(scale, 2.0) and told == 0.2
    clip = smooth_clip()[0].expand(-1, 3, -1, -1).contiguous()  # colour, through the opponent transform
    assert torch.allclose(denoiser.denoise_clip(clip, sigma=0.0), clip, atol=1e-5)
    plain = Denoiser(model, DenoiseSettings(device="cpu"))  # no range: the old rescaling to σ_train
    assert plain.scale_for(0.0)[1] is None and plain.scale_for(0.0)[0] == 1e-3


# ----------------------------------------------------------------------------------------- training data


def test_photo_sets_are_disjoint_and_load():
    assert not set(TRAINING_PHOTOS) & set(BENCHMARK_PHOTOS)
    assert not set(VALIDATION_PHOTOS) & (set(TRAINING_PHOTOS) | set(BENCHMARK_PHOTOS))
    photo = load_photo(BENCHMARK_PHOTOS[0])
    assert photo.shape[0] == 3 and photo.dtype == torch.float32 and 0 <= photo.min() and photo.max() <= 1
    with pytest.raises(DatasetError, match="unknown photo"):
        load_photo("nowhere:thing")


def test_camera_motion_is_deterministic_shaped_and_bounded():
    photo = load_photo("skimage:astronaut")
    a = camera_motion_clip(photo, 6, (40, 56), seed=3)
    assert a.shape == (6, 3, 40, 56) and 0 <= a.min() and a.max() <= 1
    assert torch.equal(a, camera_motion_clip(photo, 6, (40, 56), seed=3))
    assert not torch.equal(a, camera_motion_clip(photo, 6, (40, 56), seed=4))
    limits = MotionLimits()
    for seed in range(20):
        path = motion_path(8, torch.Generator().manual_seed(seed), limits)
        t = torch.arange(8, dtype=torch.float64)
        assert (path["shift_x"].abs() <= limits.pan * t + limits.jitter + 1e-9).all()
        assert (path["shift_y"].abs() <= limits.pan * t + limits.jitter + 1e-9).all()
        assert (path["scale"].log().abs() <= limits.zoom * t + 1e-9).all()
        assert (path["angle"].abs() <= math.radians(limits.rotation) * t + 1e-9).all()
        assert ((path["gain"] - 1).abs() <= limits.brightness * t + 1e-9).all()
        assert path["shift_x"][0] == 0 and path["scale"][0] == 1 and path["gain"][0] == 1


def test_a_pure_pan_moves_the_content_by_the_drawn_shift():
    """No zoom, rotation, jitter or drift: frame t is frame 0 moved by t·v pixels."""
    photo = load_photo("skimage:coffee")
    limits = MotionLimits(pan=2.0, jitter=0.0, zoom=0.0, rotation=0.0, brightness=0.0)
    clip = camera_motion_clip(photo, 3, (64, 64), seed=0, limits=limits)
    path = motion_path(3, torch.Generator().manual_seed(0), limits)
    dx, dy = float(path["shift_x"][2]), float(path["shift_y"][2])
    # locate frame 2 inside frame 0 by brute-force integer search around the rounded shift
    best = min(
        ((clip[0, :, 8 + oy : 56 + oy, 8 + ox : 56 + ox] - clip[2, :, 8:56, 8:56]).abs().mean().item(), ox, oy)
        for ox in range(-6, 7)
        for oy in range(-6, 7)
    )
    assert abs(best[1] - dx) <= 0.5 + 1e-6 and abs(best[2] - dy) <= 0.5 + 1e-6


def test_motion_clips_are_deterministic_and_grey_is_an_opponent_channel():
    clips = MotionClips(TRAINING_PHOTOS[:3], clip_length=4, crop=24, channels=1, samples_per_epoch=6, seed=5)
    first = [clips[i] for i in range(6)]
    assert all(c.shape == (4, 1, 24, 24) for c in first)
    again = MotionClips(TRAINING_PHOTOS[:3], clip_length=4, crop=24, channels=1, samples_per_epoch=6, seed=5)
    assert all(torch.equal(a, again[i]) for i, a in enumerate(first))
    clips.set_epoch(1)
    assert not torch.equal(first[0], clips[0])
    rgb = torch.rand(2, 3, 4, 4)
    luminance = opponent_channel(rgb, 0)
    assert torch.allclose(luminance, (rgb.sum(1, keepdim=True) / math.sqrt(3)) - 0.5 * math.sqrt(3) + 0.5, atol=1e-6)
    colour = MotionClips(TRAINING_PHOTOS[:2], clip_length=3, crop=16, channels=3, samples_per_epoch=2)
    assert colour[0].shape == (3, 3, 16, 16)


def test_moving_objects_move_on_their_own_and_cover_what_is_behind():
    background = torch.zeros(6, 3, 40, 48)
    sources = [torch.ones(3, 60, 60)]
    clip = paste_moving_objects(background, sources, 1, np.random.default_rng(3), speed=2.0)
    covered = clip[:, 0] > 0.5
    areas = covered.flatten(1).sum(1)
    assert (areas > 0).all() and torch.equal(clip[:, 0], clip[:, 2])  # the piece pasted whole in every channel
    inside = [t for t in range(6) if areas[t] == areas.max()]  # frames where nothing is cut off by the border
    assert len(inside) >= 2
    rows, cols = torch.arange(40.0)[:, None], torch.arange(48.0)[None, :]
    centres = [((covered[t] * rows).sum() / areas[t], (covered[t] * cols).sum() / areas[t]) for t in inside]
    steps = [
        ((b[0] - a[0]) / (u - t), (b[1] - a[1]) / (u - t))
        for (t, a), (u, b) in zip(zip(inside, centres), zip(inside[1:], centres[1:]))
    ]
    assert all(abs(step[0]) <= 2.5 and abs(step[1]) <= 2.5 for step in steps)
    assert any(abs(step[0]) + abs(step[1]) > 0.2 for step in steps)  # it moves, the background does not
    # MotionClips with objects: the same clips where no object is, deterministic; none: the clips as before
    plain = MotionClips(TRAINING_PHOTOS[:3], clip_length=4, crop=32, channels=3, samples_per_epoch=4, seed=5)
    busy = MotionClips(
        TRAINING_PHOTOS[:3], clip_length=4, crop=32, channels=3, samples_per_epoch=4, seed=5, moving_objects=2
    )
    for index in range(4):
        a, b = plain[index], busy[index]
        assert torch.equal(b, busy[index]) and not torch.equal(a, b)
        assert (a == b).float().mean() > 0.2


def test_mixed_clips_draw_from_both_sources_deterministically():
    class Constant(torch.utils.data.Dataset):
        def __init__(self, value):
            self.value, self.epoch = value, 0

        def set_epoch(self, epoch):
            self.epoch = epoch

        def __len__(self):
            return 100

        def __getitem__(self, index):
            return torch.full((1,), float(self.value))

    mixed = MixedClips(Constant(0), Constant(1), fraction=0.3, seed=2)
    draws = [float(mixed[i]) for i in range(100)]
    assert draws == [float(mixed[i]) for i in range(100)]
    assert 15 <= sum(draws) <= 45
    assert sum(float(MixedClips(Constant(0), Constant(1), 0.0)[i]) for i in range(50)) == 0
    with pytest.raises(DatasetError):
        MixedClips(Constant(0), Constant(1), fraction=1.5)


# ----------------------------------------------------------------------------------------------- training


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    root = tmp_path_factory.mktemp("ped2")
    R.make_repackaged(root, "ped2", size=(40, 48))
    return root


def test_sigma_range_training_over_camera_motion_writes_a_noise_conditional_checkpoint(root, tmp_path):
    config = sigma_range_config(
        root,
        data=dict(motion_fraction=0.5),
        model_options=dict(layers=2, patch_size=4, stride=2, token_set="nonlocal"),
        mode="constrained",
    )
    trainer = Trainer(config, tmp_path / "run", quiet=True)
    noisy, sigmas, told, _ = trainer.inputs(torch.full((4, 3, 1, 16, 16), 0.5), 7, 0)
    assert told["sigma"] is sigmas  # the model is told each clip's σ
    assert sigmas.shape == (4,) and (sigmas >= 0).all() and (sigmas <= 0.2).all() and sigmas.unique().numel() == 4
    measured = (noisy - 0.5).flatten(1).std(dim=1)
    assert torch.allclose(measured, sigmas, rtol=0.25, atol=0.01)
    summary = trainer.fit()
    assert summary["steps"] == 2 and math.isfinite(summary["final"]["val_rmse"])
    denoiser = Denoiser.from_checkpoint(tmp_path / "run" / "last.safetensors", DenoiseSettings(device="cpu"))
    assert denoiser.sigma_range == (0.0, 0.2)


def test_a_ut_trained_over_a_sigma_range_is_told_each_clips_sigma(root, tmp_path):
    config = sigma_range_config(root, model="ut", model_options=dict(layers=2, patch_size=4, stride=2, width=32))
    trainer = Trainer(config, tmp_path / "run", quiet=True)
    assert trainer.model.config.sigma == config.sigma_train  # σ_ref of the bias scaling
    _, sigmas, told, _ = trainer.inputs(torch.full((4, 3, 1, 16, 16), 0.5), 7, 0)
    assert told["sigma"] is sigmas
    trainer.fit()
    denoiser = Denoiser.from_checkpoint(tmp_path / "run" / "last.safetensors", DenoiseSettings(device="cpu"))
    assert denoiser.sigma_range == (0.0, 0.2) and denoiser.scale_for(5 / 255) == (1.0, 5 / 255)


def test_blind_training_over_a_sigma_range_never_tells_the_model(root, tmp_path, monkeypatch):
    # the robustness study's erm-blind arm: noise levels drawn from a range, the model must infer them
    config = sigma_range_config(root, sigma_conditioning=False, sigma_weighting=False)
    trainer = Trainer(config, tmp_path / "run", quiet=True)
    calls = []
    forward = type(trainer.model).forward
    monkeypatch.setattr(
        type(trainer.model), "forward", lambda self, *a, **k: calls.append(k.get("sigma")) or forward(self, *a, **k)
    )
    noisy, sigmas, told, _ = trainer.inputs(torch.full((4, 3, 1, 16, 16), 0.5), 7, 0)
    assert sigmas.unique().numel() == 4 and told == {} and trainer.inputs.clip_weights(sigmas) is None
    trainer.fit()
    assert calls and all(sigma is None for sigma in calls)
    metadata = read_metadata(tmp_path / "run" / "last.safetensors")
    assert "sigma_range" not in metadata and json.loads(metadata["train_sigma_range"]) == [0.0, 0.2]
    assert (
        Denoiser.from_checkpoint(tmp_path / "run" / "last.safetensors", DenoiseSettings(device="cpu")).sigma_range
        is None
    )


@pytest.mark.parametrize(
    "bad, message",
    [
        (dict(sigma_range=[0.3, 0.1]), "sigma_range"),
        (dict(sigma_range=[0.0, 0.1], noise="uniform"), "sigma_range"),
        (dict(data={"motion_fraction": 2.0}), "motion_fraction"),
    ],
)
def test_bad_quality_options_are_refused(bad, message):
    from videodenoise.errors import ConfigError

    with pytest.raises(ConfigError, match=message):
        TrainConfig(**bad)


@pytest.mark.parametrize(
    "path", sorted((Path(__file__).resolve().parent.parent / "configs" / "train").glob("*.toml")), ids=lambda p: p.name
)
def test_shipped_training_recipes_are_valid(path):
    from videodenoise.io.config_files import read_config_file

    config = TrainConfig.from_dict(read_config_file(path))
    assert config.sigma_range is not None and config.data.motion_fraction > 0
    assert config.data.train_split == "bigbuckbunny"  # bikes and carphone stay unseen (bench_quality)


# ----------------------------------------------------------------------------------------- quality presets


def test_patch_stride_applies_the_same_weights_on_a_denser_grid():
    torch.manual_seed(0)
    model = build_model("dust", layers=2)
    denser = build_model("dust", layers=2, stride=2)
    denser.load_state_dict(model.state_dict())
    clip = (smooth_clip() + 0.05 * torch.randn(1, 5, 1, 40, 56))[0]
    got = Denoiser(model, DenoiseSettings(device="cpu", patch_stride=2)).denoise_clip(clip, sigma=0.05)
    expected = Denoiser(denser, DenoiseSettings(device="cpu")).denoise_clip(clip, sigma=0.05)
    assert torch.allclose(got, expected, atol=1e-6)
    with pytest.raises(Exception, match="patch_stride"):
        Denoiser(build_model("dust", layers=2), DenoiseSettings(device="cpu", patch_stride=9))


def test_clean_quality_presets(tmp_path, capsys, monkeypatch):
    from fractions import Fraction

    from videodenoise.io.video import read_video
    from videodenoise.io.writers import write_video

    from helpers import run_cli

    checkpoint = save_model(
        build_model("dust", layers=2),
        tmp_path / "m.safetensors",
        {"sigma_train": repr(25 / 255), "sigma_range": "[0.0, 0.2]"},
    )
    clip = smooth_clip(frames=3, height=32, width=48)[0].expand(-1, 3, -1, -1)
    source = write_video(tmp_path / "in.mp4", (clip + 0.04 * torch.randn_like(clip)).clamp(0, 1), fps=Fraction(25))
    outputs = {}
    for quality in ("fast", "balanced", "best"):
        target = tmp_path / f"{quality}.mkv"
        code, out, err = run_cli(
            [
                "clean",
                source,
                "-o",
                target,
                "--format",
                "lossless",
                "--sigma",
                "10",
                "--checkpoint",
                checkpoint,
                "--quality",
                quality,
                "--quiet",
            ],
            capsys,
            monkeypatch,
        )
        assert code == 0, err
        outputs[quality] = read_video(target)
    assert outputs["fast"].shape == outputs["balanced"].shape == outputs["best"].shape == (3, 3, 32, 48)
    assert not torch.equal(outputs["fast"], outputs["best"]) and not torch.equal(outputs["fast"], outputs["balanced"])
    code, out, err = run_cli(["clean", source, "--checkpoint", checkpoint, "--quality", "ultra"], capsys, monkeypatch)
    assert code == 1 and "--quality" in err and "fast, balanced, best" in err and "Traceback" not in err


def test_attention_gain_starts_every_attention_step_part_way():
    model = build_model("dust", layers=2, attention_gain=0.5)
    assert all(torch.equal(layer.attention.gain, torch.full_like(layer.attention.gain, 0.5)) for layer in model.layers)
    assert build_model("ut", layers=1, width=16, attention_gain=0.25).layers[0].attention.gain.eq(0.25).all()
    with pytest.raises(ModelError, match="attention_gain"):
        build_model("dust", attention_gain=1.5)

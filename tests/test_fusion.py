"""Motion-compensated temporal fusion, and the noise maps a noise-conditional model is told afterwards."""

from __future__ import annotations

import dataclasses
import math

import cv2
import numpy as np
import pytest
import torch

import videodenoise.denoise.fusion as fusion_module
import videodenoise.models.base as base
from videodenoise.denoise.denoiser import Denoiser
from videodenoise.denoise.fusion import MotionFusion, _interpolation_variance, channel_mean
from videodenoise.denoise.settings import DenoiseSettings, FusionSettings
from videodenoise.errors import DenoiseError, ModelError
from videodenoise.io.writers import write_video
from videodenoise.models.registry import build_model, save_model

from helpers import frames_read_ahead, run_cli, sigma_range_config

SIGMA = 20 / 255


def texture(height=64, width=80, seed=0) -> torch.Tensor:
    """A (1, H, W) image with structure at several scales, something optical flow can lock on to."""
    generator = torch.Generator().manual_seed(seed)
    coarse = torch.rand(1, 1, height // 8, width // 8, generator=generator)
    fine = torch.rand(1, 1, height // 2, width // 2, generator=generator)
    image = 0.7 * torch.nn.functional.interpolate(coarse, (height, width), mode="bicubic", align_corners=False)
    image = image + 0.3 * torch.nn.functional.interpolate(fine, (height, width), mode="bilinear", align_corners=False)
    return image[0].clamp(0, 1) * 0.8 + 0.1


def panned(frames=5, step=2, channels=3, seed=0) -> torch.Tensor:
    """A clean (T, C, H, W) clip: a texture panned `step` whole pixels a frame (cropped from a wider one)."""
    wide = texture(64, 80 + step * frames, seed)
    clip = torch.stack([wide[:, :, t * step : t * step + 80] for t in range(frames)])
    return clip.expand(-1, channels, -1, -1).contiguous()


def noisy(clip: torch.Tensor, sigma=SIGMA, seed=1) -> torch.Tensor:
    return clip + sigma * torch.randn(clip.shape, generator=torch.Generator().manual_seed(seed))


def rmse(a: torch.Tensor, b: torch.Tensor, border=8) -> float:
    """RMSE away from the borders, where the pan brings in content no other frame shows."""
    return float((a - b)[..., border:-border, border:-border].square().mean().sqrt())


def test_a_static_clip_is_averaged_over_all_its_frames_and_the_map_says_so():
    clean = panned(step=0)
    fused, noise_map = MotionFusion().fuse_clip(noisy(clean), SIGMA)
    assert fused.shape == clean.shape and noise_map.shape == (5, 64, 80)
    centre = 2  # five frames agree: σ/√5 left, and the map says it
    assert rmse(fused[centre], clean[centre]) == pytest.approx(SIGMA / math.sqrt(5), rel=0.15)
    assert float(noise_map[centre, 8:-8, 8:-8].mean()) == pytest.approx(SIGMA / math.sqrt(5), rel=0.1)
    # the ends are fused with the frames that exist (frame 0 with frames 1 and 2), not with invented ones
    assert float(noise_map[0, 8:-8, 8:-8].mean()) == pytest.approx(SIGMA / math.sqrt(3), rel=0.1)


def test_a_panning_camera_is_followed():
    clean = panned(step=2)
    fused, noise_map = MotionFusion().fuse_clip(noisy(clean), SIGMA)
    # aligned by the flow, the neighbours average the noise away: about σ/√5 (a fraction more from resampling)
    assert rmse(fused[2], clean[2], border=12) < 0.6 * SIGMA
    assert float(noise_map[2, 12:-12, 12:-12].mean()) < 0.55 * SIGMA


def test_neighbours_showing_something_else_are_ignored():
    """A scene cut: vertical stripes between frames of horizontal ones. No flow turns one into the other,
    so the frame keeps (nearly) its own pixels and the map (nearly) its σ."""
    columns, rows = torch.arange(80.0), torch.arange(64.0)
    vertical = (0.5 + 0.4 * torch.sign(torch.sin(2 * math.pi * columns / 16))).expand(64, 80)
    horizontal = (0.5 + 0.4 * torch.sign(torch.sin(2 * math.pi * rows / 16)))[:, None].expand(64, 80)
    clip = torch.stack([horizontal, horizontal, vertical, horizontal, horizontal])[:, None].expand(-1, 3, -1, -1)
    noisy_clip = noisy(clip)
    fused, noise_map = MotionFusion().fuse_clip(noisy_clip, SIGMA)
    assert rmse(fused[2], noisy_clip[2]) < 0.35 * SIGMA
    assert float(noise_map[2].mean()) > 0.85 * SIGMA
    # NB on two unrelated smooth random textures the flow does find look-alike pixels, and the weights
    # (rightly, by their definition: agreement, not identity) take them, as non-local means would


def test_noise_free_frames_come_back_unchanged():
    clip = noisy(panned(step=1), sigma=0.0)
    fused, noise_map = MotionFusion().fuse_clip(clip, 0.0)
    assert torch.equal(fused, clip) and torch.equal(noise_map, torch.zeros(5, 64, 80))


def test_streaming_fuses_each_frame_with_its_window_and_reads_ahead_only_the_radius():
    clip = noisy(panned(frames=7, step=1, channels=1))
    reads = []

    def frames():
        for index, frame in enumerate(clip):
            reads.append(index)
            yield frame

    fusion = MotionFusion(FusionSettings(radius=2))
    expected = MotionFusion(FusionSettings(radius=2)).fuse_clip(clip, SIGMA)
    for index, (fused, noise_map) in enumerate(fusion.stream(frames(), SIGMA)):
        assert max(reads) <= index + 2  # the radius ahead, never the whole video
        assert torch.equal(fused, expected[0][index]) and torch.equal(noise_map, expected[1][index])
    assert index == 6
    alone, alone_map = MotionFusion(FusionSettings(radius=0)).fuse_clip(clip, SIGMA)
    assert torch.equal(alone, clip) and torch.allclose(alone_map, torch.full_like(alone_map, SIGMA))


def test_grainy_noise_widens_the_bandwidth_and_white_noise_is_fused_as_before(monkeypatch):
    """A grain g > 1 makes the bandwidth (strength·σ·g^GRAIN_POWER)²: a neighbour that differs by more
    than its noise keeps more weight, so less noise is left; g = 1 is exactly fusion without a grain."""
    clip = noisy(panned(step=1, channels=1))
    clip[3, :, 20:40, 20:40] += 3 * SIGMA  # something in one neighbour that is not noise
    plain, plain_map = MotionFusion().fuse_clip(clip, SIGMA)
    one, one_map = MotionFusion().fuse_clip(clip, SIGMA, grain=1.0)
    assert torch.equal(one, plain) and torch.equal(one_map, plain_map)
    grainy, grainy_map = MotionFusion().fuse_clip(clip, SIGMA, grain=2.0)
    assert float(grainy_map.mean()) < 0.97 * float(plain_map.mean())
    monkeypatch.setattr(fusion_module, "GRAIN_POWER", 0.0)  # the power 0: the grain changes nothing
    assert torch.equal(MotionFusion().fuse_clip(clip, SIGMA, grain=2.0)[0], plain)
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(DenoiseError, match="grain"):
            MotionFusion().fuse_clip(clip, SIGMA, grain=bad)


@pytest.mark.parametrize("channels", [1, 2, 3])
def test_channel_mean_is_numpys_mean_over_the_last_axis_bit_for_bit(channels):
    image = np.random.default_rng(channels).normal(0.5, 0.3, (37, 53, channels)).astype(np.float32)
    mean = channel_mean(image)
    assert mean.dtype == np.float32 and mean.shape == (37, 53)
    np.testing.assert_array_equal(mean, image.mean(axis=2))


def test_interpolation_variance_matches_resampled_noise():
    """Linear resampling at a fractional offset f leaves (1 − f)² + f² of the variance per axis."""
    rng = np.random.default_rng(0)
    noise = rng.standard_normal((200, 200)).astype(np.float32)
    for fx, fy in ((0.0, 0.0), (0.5, 0.0), (0.3, 0.5), (0.25, 0.75)):
        columns, rows = np.meshgrid(np.arange(200, dtype=np.float32) + fx, np.arange(200, dtype=np.float32) + fy)
        warped = cv2.remap(noise, columns, rows, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)[2:-2, 2:-2]
        expected = (_interpolation_variance(np.float32([fx])) * _interpolation_variance(np.float32([fy]))).item()
        assert float(warped.var()) == pytest.approx(expected, rel=0.05)


def test_bad_settings_and_frames_are_refused():
    for bad in (dict(radius=-1), dict(flow_preset="slowest"), dict(box=0), dict(strength=0)):
        with pytest.raises(DenoiseError):
            FusionSettings(**bad)
    with pytest.raises(DenoiseError, match=r"\(C, H, W\)"):
        MotionFusion().fuse_clip(torch.rand(3, 2, 8, 8), SIGMA)


# ------------------------------------------------------------------------------------------ noise maps


@pytest.mark.parametrize("name", ["dust", "ut"])
def test_a_uniform_noise_map_is_the_same_as_one_sigma(name):
    torch.manual_seed(0)
    model = build_model(name, layers=2, **({"width": 32} if name == "ut" else {}))
    with torch.no_grad():
        for parameter in model.parameters():  # a UT's proximal biases start at 0: give σ something to scale
            parameter.add_(0.01 * torch.randn_like(parameter))
    clip = torch.rand(2, 3, 1, 24, 32)
    one = model(clip, sigma=0.07)
    mapped = model(clip, sigma=torch.full((2, 3, 24, 32), 0.07))
    assert torch.allclose(one, mapped, atol=1e-6)
    varying = model(clip, sigma=torch.linspace(0.0, 0.2, 32).expand(2, 3, 24, 32))
    assert not torch.allclose(one, varying, atol=1e-3)


def test_a_patch_is_told_the_root_mean_square_of_its_pixels_sigma_in_every_band(monkeypatch):
    torch.manual_seed(0)
    model = build_model("dust", layers=3, token_set="spatiotemporal", neighbourhood=3)
    clip = torch.rand(1, 3, 1, 40, 40)
    noise_map = 0.02 + 0.15 * torch.rand(1, 3, 40, 40)
    monkeypatch.setattr(base, "CPU_BAND_BYTES", 1 << 40)
    whole = model(clip, sigma=noise_map)
    monkeypatch.setattr(base, "CPU_BAND_BYTES", 1)  # one patch row a band, with its halo
    assert torch.allclose(model(clip, sigma=noise_map), whole, atol=1e-6)
    # patch (3, 3) of the 8×8, stride-4 grid (padded by 4) covers pixels 8..15: half at σ = 0.05, half at 0.15
    halves = torch.full((1, 3, 40, 40), 0.05)
    halves[..., 12:] = 0.15
    scale = model._noise_scale(halves, clip)
    assert scale.shape == (1, 11, 11, 3, 1)
    expected = math.sqrt((0.05**2 + 0.15**2) / 2) / model.config.sigma
    assert torch.allclose(scale[0, 3, 3], torch.full((3, 1), expected))
    assert torch.allclose(scale[0, 3, 1], torch.full((3, 1), 0.05 / model.config.sigma))
    with pytest.raises(ModelError, match="noise map"):
        model(clip, sigma=torch.full((1, 3, 40, 41), 0.1))
    with pytest.raises(ModelError, match="noise map"):
        model(clip, sigma=torch.full((1, 3, 40, 40), -0.1))


# ------------------------------------------------------------------------------------ in the denoiser


def test_fusion_in_the_denoiser_beats_the_model_alone_and_tiles_agree():
    torch.manual_seed(0)
    model = build_model("dust", layers=3)  # untrained: ISTA on a DCT frame, noise-conditional
    clean = panned(frames=6, step=1)
    noisy_clip = noisy(clean).clamp(0, 1)
    plain = Denoiser(model, DenoiseSettings(device="cpu", tile=0)).denoise_clip(noisy_clip, sigma=SIGMA)
    fused = Denoiser(model, DenoiseSettings(device="cpu", tile=0, fusion=FusionSettings())).denoise_clip(
        noisy_clip, sigma=SIGMA
    )
    assert rmse(fused, clean) < 0.85 * rmse(plain, clean)
    tiled = Denoiser(model, DenoiseSettings(device="cpu", tile=48, overlap=24, fusion=FusionSettings())).denoise_clip(
        noisy_clip, sigma=SIGMA
    )
    assert torch.allclose(tiled, fused, atol=1e-5)
    with pytest.raises(DenoiseError, match="noise level"):
        Denoiser(model, DenoiseSettings(device="cpu", fusion=FusionSettings())).denoise_clip(noisy_clip, sigma=None)


def test_clean_fuses_by_default_and_not_with_no_fusion(tmp_path, capsys, monkeypatch):
    from fractions import Fraction

    from videodenoise.io.video import read_video
    from videodenoise.io.writers import write_video

    from helpers import run_cli

    checkpoint = save_model(
        build_model("dust", layers=2),
        tmp_path / "m.safetensors",
        {"sigma_train": repr(25 / 255), "sigma_range": "[0.0, 0.2]"},
    )
    source = write_video(
        tmp_path / "in.mkv", noisy(panned(frames=4, step=1)).clamp(0, 1), fps=Fraction(25), codec="ffv1"
    )
    outputs = {}
    for flag in ("--fusion", "--no-fusion"):
        target = tmp_path / f"{flag}.mkv"
        code, out, err = run_cli(
            ["clean", source, "-o", target, "--format", "lossless", "--sigma", "20", "--checkpoint", checkpoint, flag],
            capsys,
            monkeypatch,
        )
        assert code == 0, err
        assert ("motion-aligned" in out) == (flag == "--fusion")
        outputs[flag] = read_video(target)
    assert not torch.equal(outputs["--fusion"], outputs["--no-fusion"])
    code, out, err = run_cli(
        ["clean", source, "-o", tmp_path / "blind.mkv", "--sigma", "none", "--checkpoint", checkpoint],
        capsys,
        monkeypatch,
    )
    assert code == 0 and "motion-aligned" not in out  # blind: no σ, so nothing to fuse by


# ------------------------------------------------------------------------------------------- training


@pytest.fixture(scope="module")
def ped2(tmp_path_factory):
    import replicas as R

    root = tmp_path_factory.mktemp("ped2")
    R.make_repackaged(root, "ped2", size=(40, 48))
    return root


def fusion_config(root, **changes):
    return sigma_range_config(
        root, data=dict(crop=24, samples_per_epoch=4), **{"fusion": {"radius": 1}, "batch_size": 2, **changes}
    )


def test_training_with_fusion_fuses_every_clip_and_tells_the_model_the_noise_map(ped2, tmp_path):
    from videodenoise.training.trainer import Trainer

    trainer = Trainer(fusion_config(ped2), tmp_path / "run", quiet=True)
    clean = panned(frames=3, step=1, channels=1)[None, :, :, :24, :24].expand(2, -1, -1, -1, -1)
    fused, sigmas, told, target = trainer.inputs(clean, 7, 0)
    assert target is clean  # scored against the clips as loaded
    noisy, _ = trainer.inputs.noisy(clean, 7, 0)
    expected = MotionFusion(FusionSettings(radius=1)).fuse_clip(noisy[1], float(sigmas[1]))
    assert torch.allclose(fused[1], expected[0]) and torch.allclose(told["sigma"][1], expected[1])
    assert told["sigma"].shape == (2, 3, 24, 24) and (told["sigma"] <= sigmas.view(-1, 1, 1, 1) + 1e-6).all()
    summary = trainer.fit()
    assert summary["steps"] == 2 and math.isfinite(summary["final"]["val_rmse"])


def test_fine_tuning_starts_from_the_given_weights_and_refuses_ones_that_do_not_fit(ped2, tmp_path):
    from videodenoise.errors import ConfigError
    from videodenoise.training.trainer import Trainer

    source = build_model("dust", layers=2, patch_size=4, stride=2)
    with torch.no_grad():
        source.layers[0].analysis.mul_(1.5)
    weights = save_model(source, tmp_path / "start.safetensors", {"sigma_train": repr(25 / 255)})
    trainer = Trainer(fusion_config(ped2, init_weights=str(weights)), tmp_path / "run", quiet=True)
    assert torch.equal(trainer.model.layers[0].analysis, source.layers[0].analysis)
    with pytest.raises(ConfigError, match="init_weights"):
        Trainer(
            fusion_config(ped2, init_weights=str(weights), model_options=dict(layers=3, patch_size=4, stride=2)),
            tmp_path / "other",
            quiet=True,
        )
    with pytest.raises(ConfigError, match="init_weights: .*does not exist"):
        Trainer(fusion_config(ped2, init_weights=str(tmp_path / "missing.safetensors")), tmp_path / "third", quiet=True)
    with pytest.raises(ConfigError, match="fusion"):
        fusion_config(ped2, sigma_range=None)
    with pytest.raises(ConfigError, match="fusion"):
        fusion_config(ped2, fusion={"radius": 1, "speed": 2})


def test_quality_presets_are_what_clean_runs():
    from videodenoise.cli.clean import denoise_settings
    from videodenoise.denoise.settings import DEFAULT_STRIDE, DEFAULT_WINDOW

    fast = denoise_settings("fast", {})
    assert fast.fusion == FusionSettings()
    assert fast.frames_kept() == DEFAULT_WINDOW  # fused frames: disjoint windows
    alone = denoise_settings("fast", {"fusion": False})
    assert alone.fusion is None and alone.frames_kept() == DEFAULT_STRIDE  # the model alone: centred windows
    best = denoise_settings("best", {})
    assert best.fusion == FusionSettings(radius=4, match_exposure=True) and best.patch_stride == 2 and best.passes == 2
    assert denoise_settings("best", {"fusion": False}).passes == 1  # the second pass steers fusion
    with pytest.raises(DenoiseError, match="fast, balanced, best"):
        denoise_settings("ultra", {})


@pytest.mark.parametrize("size", [(1, 1), (5, 7), (3, 200)])
def test_frames_too_small_for_the_optical_flow_are_still_fused(size):
    """DIS refuses frames under 12 px a side; fusion pads them for the flow and crops it back."""
    clean = torch.full((5, 1, *size), 0.5)
    fused, noise_map = MotionFusion().fuse_clip(noisy(clean), SIGMA)
    assert fused.shape == clean.shape and noise_map.shape == (5, *size)
    assert float(noise_map[2].mean()) < 0.6 * SIGMA  # a static clip: the neighbours agree


def test_guides_decide_the_weights_and_the_noisy_frames_are_what_is_averaged():
    """Noise-free guides that agree everywhere: every frame within the radius weighs exactly 1 (no noise
    is expected in the guides' differences), so the fused frame is the plain mean of the noisy frames
    and the map σ/√n. Guides in which frame 3 shows something else: frame 3 gets (almost) no weight,
    though the noisy frames (a static scene) agree."""
    clean = panned(step=0)
    frames = noisy(clean)
    guided = MotionFusion(FusionSettings(guided_mix=1))  # the weights read off the guides alone
    fused, noise_map = guided.fuse_clip(frames, SIGMA, guides=clean)
    torch.testing.assert_close(fused[2], frames.mean(dim=0), atol=1e-5, rtol=0)
    torch.testing.assert_close(fused[0], frames[:3].mean(dim=0), atol=1e-5, rtol=0)
    assert float(noise_map[2].min()) == pytest.approx(SIGMA / math.sqrt(5), rel=1e-4)
    cut = clean.clone()
    cut[3] = clean[3] + 1  # brighter by more than the texture's range: unlike frame 2 wherever the flow points
    fused, noise_map = guided.fuse_clip(frames, SIGMA, guides=cut)
    torch.testing.assert_close(fused[2], frames[[0, 1, 2, 4]].mean(dim=0), atol=1e-5, rtol=0)
    assert float(noise_map[2].min()) == pytest.approx(SIGMA / 2, rel=1e-4)
    unguided, _ = MotionFusion().fuse_clip(frames, SIGMA)  # the noisy frames alone average frame 3 in
    assert rmse(unguided[2], frames.mean(dim=0)) < rmse(unguided[2], fused[2])


def test_guides_must_match_the_frames():
    clip = noisy(panned())
    with pytest.raises(DenoiseError, match="guides must have the clip's shape"):
        MotionFusion().fuse_clip(clip, SIGMA, guides=clip[:3])
    with pytest.raises(DenoiseError, match="guides ended at frame 3"):
        list(MotionFusion().stream(clip, SIGMA, guides=iter(clip[:3])))
    with pytest.raises(DenoiseError, match="guide for frame 0 is not a frame of its size"):
        list(MotionFusion().stream(clip, SIGMA, guides=clip[..., :-8]))
    denoiser = Denoiser(build_model("dust", layers=2), DenoiseSettings(fusion=None, device="cpu"))
    with pytest.raises(DenoiseError, match="fusion, which is off"):
        denoiser.denoise_clip(clip, SIGMA, guides=clip)
    denoiser = Denoiser(build_model("dust", layers=2), DenoiseSettings(fusion=FusionSettings(), device="cpu"))
    with pytest.raises(DenoiseError, match="guides must have the clip's shape"):
        denoiser.denoise_clip(clip, SIGMA, guides=clip[1:])
    assert denoiser.denoise_clip(clip, SIGMA, guides=clip).shape == clip.shape


def test_mirrored_flows_are_the_flows_of_the_mirror_image():
    """A window's flows, mirrored for a mirror image of it (`--mirrors` with an aligned model), equal the
    flows computed on the mirror image, away from the borders the pan brings new content in at."""
    from videodenoise.denoise.fusion import clip_coordinates
    from videodenoise.denoise.tiling import mirror_coordinates

    clip = panned(frames=3, step=2)
    flows = clip_coordinates(clip)
    for axes in ((-1,), (-2,), (-2, -1)):
        mirrored = mirror_coordinates(flows, axes)
        computed = clip_coordinates(clip.flip(axes))
        inside = (slice(None), slice(None), slice(12, -12), slice(12, -12))
        assert float((mirrored - computed)[inside].abs().mean()) < 0.05  # pixels
    torch.testing.assert_close(mirror_coordinates(mirror_coordinates(flows, (-2, -1)), (-2, -1)), flows)
    model = build_model("dust", layers=2, channels=3, token_set="aligned")
    denoiser = Denoiser(model, DenoiseSettings(fusion=FusionSettings(), device="cpu", mirrors=4))
    assert denoiser.denoise_clip(noisy(clip), SIGMA).shape == clip.shape


def test_guided_weights_use_the_guided_strength():
    """Guides in which frame 3 is brighter by δ everywhere: its weight is exp(−δ² / (guided_strength·σ)²),
    read off the guides with no noise allowed for, so the fused centre is (Σ others + w·frame 3) / (4 + w)."""
    clean = panned(step=0)
    frames = noisy(clean)
    brighter = clean.clone()
    delta = 0.3 * SIGMA
    brighter[3] += delta
    for strength in (0.35, 0.7):
        fusion = MotionFusion(FusionSettings(guided_strength=strength, guided_mix=1))
        fused, _ = fusion.fuse_clip(frames, SIGMA, guides=brighter)
        weight = math.exp(-(delta**2) / (strength * SIGMA) ** 2)
        expected = (frames[[0, 1, 2, 4]].sum(dim=0) + weight * frames[3]) / (4 + weight)
        assert rmse(fused[2], expected) < 1e-3 * SIGMA
    with pytest.raises(DenoiseError, match="guided_strength > 0"):
        FusionSettings(guided_strength=0)


def test_guided_mix_shares_a_weight_between_the_guides_and_the_noisy_frames():
    """Guides that agree everywhere (weight 1 from them) and frames that agree but for frame 3, far brighter
    than the others (weight 1 from the frames, 0 for frame 3): frame 3 weighs guided_mix, the others 1."""
    clean = panned(step=0)
    frames = clean.clone()
    frames[3] += 1
    for mix in (0.0, 0.5, 1.0):
        fused, _ = MotionFusion(FusionSettings(guided_mix=mix)).fuse_clip(frames, SIGMA, guides=clean)
        expected = (frames[[0, 1, 2, 4]].sum(dim=0) + mix * frames[3]) / (4 + mix)
        torch.testing.assert_close(fused[2], expected, atol=1e-5, rtol=0)
    with pytest.raises(DenoiseError, match="guided_mix is a share"):
        FusionSettings(guided_mix=1.5)


def test_a_second_pass_is_fusion_steered_by_the_first_pass_and_streams():
    """passes = 2 equals denoising with the first pass's output as guides, clip and stream alike, and reads
    only a few windows ahead of what it has returned."""
    model = build_model("dust", layers=2)
    # how the passes combine, before the last step (tests/test_clipping.py)
    settings = DenoiseSettings(fusion=FusionSettings(), device="cpu", unclip=False)
    one, two = Denoiser(model, settings), Denoiser(model, dataclasses.replace(settings, passes=2))
    clip = noisy(panned(frames=12, step=1)).clamp(0, 1)
    expected = one.denoise_clip(clip, SIGMA, guides=one.denoise_clip(clip, SIGMA))
    torch.testing.assert_close(two.denoise_clip(clip, SIGMA), expected, atol=1e-6, rtol=0)
    assert (two.denoise_clip(clip, SIGMA) - one.denoise_clip(clip, SIGMA)).abs().max() > 1e-3  # it did steer

    long = noisy(panned(frames=40, step=1, channels=1), seed=2).clamp(0, 1)
    done, ahead = frames_read_ahead(lambda frames: two.denoise_frames(frames, SIGMA), long)
    # the second pass's first window needs the first pass's output `radius` frames past it, which needs the
    # first pass's next window and `radius` frames past that: 2·window + 2·radius frames at most
    assert done == 40 and ahead <= 2 * settings.window + 2 * settings.fusion.radius


def test_a_first_pass_at_another_patch_stride_guides_the_second_with_the_same_weights():
    """guide_patch_stride runs the first of two passes at its own patch stride: the same as guiding the
    second pass by a one-pass denoiser at that stride, with the weights shared, not copied."""
    model = build_model("dust", layers=2)  # patch 8, stride 4
    # how the passes combine, before the last step (tests/test_clipping.py)
    settings = DenoiseSettings(fusion=FusionSettings(), device="cpu", patch_stride=2, passes=2, unclip=False)
    guided = Denoiser(model, dataclasses.replace(settings, guide_patch_stride=4))
    assert guided.model.config.stride == 2 and guided._guide.model.config.stride == 4
    assert guided._guide.model.dictionary is guided.model.dictionary and guided._guide._guide is None
    clip = noisy(panned(frames=7, step=1)).clamp(0, 1)
    sparse = Denoiser(build_model("dust", layers=2), dataclasses.replace(settings, patch_stride=4, passes=1))
    sparse.model.load_state_dict(model.state_dict())
    dense = Denoiser(model, dataclasses.replace(settings, passes=1))
    expected = dense.denoise_clip(clip, SIGMA, guides=sparse.denoise_clip(clip, SIGMA))
    torch.testing.assert_close(guided.denoise_clip(clip, SIGMA), expected, atol=1e-6, rtol=0)
    # at the second pass's own stride, or with one pass, there is no separate guide
    assert Denoiser(model, dataclasses.replace(settings, guide_patch_stride=2))._guide is None
    assert Denoiser(model, dataclasses.replace(settings, passes=1, guide_patch_stride=4))._guide is None
    with pytest.raises(DenoiseError, match="guide_patch_stride must be between 1"):
        DenoiseSettings(guide_patch_stride=0)
    with pytest.raises(DenoiseError, match="guide_patch_stride must be between 1 and the patch size 8, got 9"):
        Denoiser(model, dataclasses.replace(settings, guide_patch_stride=9))


def test_a_second_pass_needs_fusion():
    with pytest.raises(DenoiseError, match="passes must be 1 or 2"):
        DenoiseSettings(fusion=FusionSettings(), passes=3)
    with pytest.raises(DenoiseError, match="needs fusion"):
        DenoiseSettings(fusion=None, passes=2)


def test_clean_runs_a_second_pass_only_with_fusion(tmp_path, capsys, monkeypatch):
    from videodenoise.cli.clean import denoise_settings

    assert denoise_settings("fast", {"passes": 2}).passes == 2
    assert denoise_settings("fast", {}, sigma_known=False).passes == 1
    with pytest.raises(DenoiseError, match="needs fusion"):
        denoise_settings("fast", {"passes": 2, "fusion": False})
    code, out, err = run_cli(["clean", tmp_path / "any.mp4", "--sigma", "none", "--passes", "2"], capsys, monkeypatch)
    assert code == 1 and "Traceback" not in err
    assert err.strip() == "error: --passes 2 steers fusion by a first pass: it needs σ, not --sigma none"


NEEDS_FUSION = "--fusion-radius sets how many neighbours fusion averages: it needs fusion and σ"


@pytest.mark.parametrize(
    "args, message",
    [
        (["--no-fusion", "--fusion-radius", "3"], NEEDS_FUSION),
        (["--sigma", "none", "--fusion-radius", "3"], NEEDS_FUSION),
        (["--fusion-radius", "-1"], "the fusion radius must be >= 0 frames, got -1"),
    ],
)
def test_clean_refuses_a_fusion_radius_it_cannot_use(tmp_path, capsys, monkeypatch, args, message):
    movie = write_video(tmp_path / "in.mp4", torch.rand(3, 3, 16, 16))
    code, out, err = run_cli(["clean", movie, *args], capsys, monkeypatch)
    assert code == 1 and "Traceback" not in err
    assert err.strip().startswith(f"error: {message}") and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "in.denoised.mp4").exists()


def test_a_wider_fusion_radius_fuses_more_frames():
    # a static scene under fresh noise per frame: each further neighbour averages more of it away
    clip = torch.full((9, 1, 24, 24), 0.5)
    noisy = (clip + 0.1 * torch.randn(clip.shape, generator=torch.Generator().manual_seed(0))).clamp(0, 1)
    errors = [
        float((MotionFusion(FusionSettings(radius=r)).fuse_clip(noisy, sigma=0.1)[0][4] - clip[4]).pow(2).mean())
        for r in (1, 2, 4)
    ]
    assert errors[0] > errors[1] > errors[2]


def test_exposure_gain_recovers_a_per_channel_gain_despite_noise_and_a_moving_object():
    """A frame scaled by (0.9, 1.0, 1.1), with noise and a fifth of it replaced by something else: the gain
    that brings it back to the reference is 1 / scale per channel, within 0.5 %."""
    generator = np.random.default_rng(0)
    reference = np.repeat(texture(128, 160).numpy().transpose(1, 2, 0), 3, axis=2) * 0.9
    scale = np.array([0.9, 1.0, 1.1], np.float32)
    other = reference * scale + generator.normal(0, SIGMA, reference.shape).astype(np.float32)
    other[:, :32] = generator.uniform(0.1, 0.9, (128, 32, 3))  # an occlusion: these blocks say nothing
    gain = fusion_module.exposure_gain(reference.astype(np.float32), other.astype(np.float32))
    np.testing.assert_allclose(gain, 1 / scale, rtol=0.005)


def test_exposure_gain_is_one_where_too_few_blocks_say():
    """Black frames and frames smaller than 8 blocks give no evidence of a gain: 1."""
    black = np.zeros((64, 64, 3), np.float32)
    np.testing.assert_array_equal(fusion_module.exposure_gain(black, black + 0.01), np.ones(3))
    small = np.full((32, 48, 1), 0.5, np.float32)
    np.testing.assert_array_equal(fusion_module.exposure_gain(small, small * 1.5), np.ones(1))


def test_matching_exposure_keeps_fusion_from_taking_on_a_neighbours_brightness():
    """A static clip whose exposure rises 6 % a frame: fused without matching, the first frame (whose neighbours
    are all brighter) takes on their brightness and its error is larger; matched, its mean is its own and its
    error under unmatched fusion's and near that of three frames averaged (σ / √3)."""
    frame = texture(96, 128).expand(3, -1, -1) * 0.8
    clean = torch.stack([frame * (1 + 0.06 * t) for t in range(5)])
    noisy = clean + SIGMA * torch.randn(clean.shape, generator=torch.Generator().manual_seed(1))
    errors, shifts = {}, {}
    for matched in (False, True):
        fused, noise = MotionFusion(FusionSettings(match_exposure=matched)).fuse_clip(noisy, SIGMA)
        errors[matched] = float((fused[0] - clean[0]).pow(2).mean().sqrt())
        shifts[matched] = float((fused[0] - clean[0]).mean())
        assert noise.shape == (5, 96, 128)
    assert shifts[False] > 0.01 and abs(shifts[True]) < 0.002
    assert errors[True] < 0.9 * errors[False]
    assert errors[True] < 0.6 * SIGMA


def test_chained_flows_add_up_along_the_way():
    """A flow of (2, 0) everywhere from A to B and (1, 1) from B to C chain to (3, 1) from A to C; where B's flow
    varies, A's pixel reads it where A's flow lands."""
    aligner = fusion_module.FrameAligner()
    first = np.zeros((24, 32, 2), np.float32)
    first[..., 0] = 2
    onward = np.zeros((24, 32, 2), np.float32)
    onward[..., 0] = 1
    onward[..., 1] = np.arange(32, dtype=np.float32)[None, :] / 10  # y-flow grows with x
    chained = aligner.chain(first, onward)
    np.testing.assert_allclose(chained[:, :29, 0], 3)
    np.testing.assert_allclose(chained[:, :29, 1], np.broadcast_to((np.arange(29) + 2) / 10, (24, 29)), rtol=1e-5)


def test_chained_flows_compute_each_consecutive_pair_once_and_follow_a_pan(monkeypatch):
    """With chain_flows, a clip of T frames fused at radius 3 asks for 2·(T − 1) dense flows (each consecutive
    pair, both ways) instead of one per frame and neighbour, streams the same as whole, and on a pan is within a
    few percent of fusion along direct flows."""
    clean = panned(frames=9, step=1)
    noisy_clip = noisy(clean)
    calls = []
    original = fusion_module.FrameAligner.optical_flow
    monkeypatch.setattr(
        fusion_module.FrameAligner, "optical_flow", lambda self, a, b: calls.append(1) or original(self, a, b)
    )
    chained, chained_map = MotionFusion(FusionSettings(radius=3, chain_flows=True)).fuse_clip(noisy_clip, SIGMA)
    assert len(calls) == 2 * (9 - 1)
    calls.clear()
    direct, _ = MotionFusion(FusionSettings(radius=3)).fuse_clip(noisy_clip, SIGMA)
    assert len(calls) == sum(min(t, 3) + min(8 - t, 3) for t in range(9))
    assert rmse(chained[4], clean[4], border=12) < 0.55 * SIGMA
    assert rmse(chained[4], clean[4], border=12) < 1.05 * rmse(direct[4], clean[4], border=12)
    streamed = list(MotionFusion(FusionSettings(radius=3, chain_flows=True)).stream(iter(noisy_clip), SIGMA))
    assert all(torch.equal(f, chained[t]) and torch.equal(m, chained_map[t]) for t, (f, m) in enumerate(streamed))


@pytest.mark.parametrize("sigma", ["one", "map"])
def test_fusing_leaves_the_frame_its_neighbours_and_its_noise_map_as_they_were(sigma):
    """fuse works in place on arrays of its own (on a 1920×1080 frame each fresh one is 8-25 MB); what it is
    given comes back untouched, and what it returns is not one of them."""
    fusion = MotionFusion()
    prepared = [fusion.aligner.prepare(frame) for frame in noisy(panned(step=2))]
    image, guide = prepared[2]
    neighbours = [(other, fusion.aligner.optical_flow(guide, seen), k - 2) for k, (other, seen) in enumerate(prepared)]
    neighbours = neighbours[:2] + neighbours[3:]
    told = SIGMA if sigma == "one" else np.full(image.shape, SIGMA, np.float32)
    given = [image.copy(), *(other.copy() for other, _, _ in neighbours), np.copy(told)]
    fused, noise_map = fusion.fuse(image, neighbours, told, carried=0.2)
    after = [image, *(other for other, _, _ in neighbours), told]
    assert all(np.array_equal(before, now) for before, now in zip(given, after))
    assert not any(np.shares_memory(fused, array) or np.shares_memory(noise_map, array) for array in after[:-1])
    assert fused.dtype == noise_map.dtype == np.float32 and noise_map.shape == (
        image.shape if sigma == "map" else image.shape[:2]
    )

"""The aligned token set: attention over every frame of the clip warped onto each frame by the optical
flow (`align_clip`), in the models, `clean`, training and evaluation."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

import videodenoise.models.base as base
from videodenoise.denoise.calibration import calibrate_told_scale
from videodenoise.denoise.denoiser import Denoiser
from videodenoise.denoise.fusion import align_clip, clip_coordinates, warp_frames
from videodenoise.denoise.settings import DenoiseSettings
from videodenoise.errors import ModelError
from videodenoise.evaluation.config import EvalConfig
from videodenoise.evaluation.sweep import evaluate
from videodenoise.models.attention import AlignedContext, TokenAttention, rms_scale
from videodenoise.models.config import MODEL_NAMES
from videodenoise.models.layers import extract_patches
from videodenoise.models.registry import build_model, save_model
from videodenoise.training.trainer import Trainer

import replicas as R
from helpers import panned_clip, randomise, sigma_range_config


def test_aligned_tokens_of_a_subpixel_pan_are_the_frames_own_patches():
    clip = panned_clip()
    aligned = align_clip(clip)
    assert aligned.shape == (4, 4, 1, 64, 80)
    inside = (..., slice(8, -8), slice(8, -8))  # the border shows what the frame never saw
    for t in range(4):
        torch.testing.assert_close(aligned[t, t], clip[t])
        for s in range(4):
            error = (aligned[t, s] - clip[t])[inside].abs()
            unaligned = (clip[s] - clip[t])[inside].abs()
            assert error.max() < 0.03 and error.mean() < 0.004, (t, s)
            if s != t:
                assert unaligned.mean() > 4 * error.mean(), (t, s)
    # the model's aligned tokens at a location are (nearly) that frame's own patch there
    model = build_model("dust", channels=1, token_set="aligned", layers=2)
    tokens, _ = extract_patches(clip[None], 8, 4)
    warped_tokens, itself = model._aligned_tokens(aligned[None], clip[None])
    assert torch.equal(itself, torch.eye(4, dtype=torch.bool))
    assert warped_tokens.shape == (*tokens.shape[:4], 4, 64)
    difference = (warped_tokens - tokens.unsqueeze(-2))[:, 3:-3, 3:-3]
    assert difference.abs().mean() < 0.004 and difference.abs().max() < 0.04


def test_warping_a_tile_reads_the_whole_frames():
    clip = panned_clip(frames=3)
    coordinates = clip_coordinates(clip)
    assert coordinates.shape == (3, 3, 64, 80, 2)
    whole = warp_frames(clip, coordinates)
    tile = warp_frames(clip, coordinates[..., 10:40, 20:70, :])
    torch.testing.assert_close(tile, whole[..., 10:40, 20:70])
    # a batch of views of the same frames (opponent channels, say) warps alike
    views = torch.stack([clip, 1 - clip])
    torch.testing.assert_close(warp_frames(views, coordinates)[1], 1 - whole)


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_an_untrained_aligned_model_is_the_untrained_temporal_one(name):
    """Gains start at 0: an untrained aligned DUST is still ISTA (and descends), an untrained UT the identity."""
    aligned_model = build_model(name, channels=1, token_set="aligned", layers=4)
    temporal = build_model(name, channels=1, token_set="temporal", layers=4)
    temporal.load_state_dict({k: v for k, v in aligned_model.state_dict().items() if "mismatch" not in k})
    clean = panned_clip(frames=3)[None]
    noisy = clean + 25 / 255 * torch.randn(clean.shape, generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        ours = aligned_model(noisy, all_layers=True, aligned=align_clip(noisy))
        theirs = temporal(noisy, all_layers=True)
    for a, b in zip(ours, theirs):
        torch.testing.assert_close(a, b, rtol=0, atol=0)
    if name == "dust":
        errors = [float((estimate - clean).square().mean()) for estimate in ours]
        assert all(later < earlier for earlier, later in zip(errors, errors[1:]))


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_aligned_models_take_any_length_and_size_and_bands_change_nothing(name, monkeypatch):
    model = randomise(build_model(name, channels=1, layers=3, heads=2, token_set="aligned")).eval()
    for frames, height, width in [(1, 17, 23), (2, 5, 3), (3, 45, 37)]:
        noisy = torch.rand(2, frames, 1, height, width)
        aligned = align_clip(noisy)
        assert aligned.shape == (2, frames, frames, 1, height, width)
        with torch.no_grad():
            monkeypatch.setattr(base, "CPU_BAND_BYTES", 1 << 40)
            whole = model(noisy, all_layers=True, aligned=aligned)
            monkeypatch.setattr(base, "CPU_BAND_BYTES", 1)
            banded = model(noisy, all_layers=True, aligned=aligned)
        assert all(estimate.shape == noisy.shape and torch.isfinite(estimate).all() for estimate in whole)
        for a, b in zip(whole, banded):
            torch.testing.assert_close(a, b, rtol=0, atol=1e-6)


@pytest.mark.parametrize("name, mix_observation", [("dust", False), ("dust", True), ("ut", False)])  # mixing: DUST's
def test_a_frame_denoised_alone_against_its_window_is_the_whole_windows_frame(name, mix_observation):
    """A frame attends to the other sources as warped, never as they are denoised, so its estimate needs
    only its own row of the aligned clip: what `clean` exploits to denoise only the frames it keeps."""
    options = {"mix_observation": True} if mix_observation else {}
    model = randomise(build_model(name, channels=1, layers=3, heads=2, token_set="aligned", **options)).eval()
    noisy = torch.rand(2, 5, 1, 21, 26, generator=torch.Generator().manual_seed(4))
    # DUST is told a noise map, as clean tells it after estimation; UT is not noise-conditional
    sigma = (
        0.02 + 0.1 * torch.rand(2, 5, 21, 26, generator=torch.Generator().manual_seed(5)) if name == "dust" else None
    )
    aligned = align_clip(noisy)
    with torch.no_grad():
        whole = model(noisy, all_layers=True, aligned=aligned, sigma=sigma)
        for kept in ([2], [1, 2, 3], [4, 0]):
            told = None if sigma is None else sigma[:, kept]
            some = model(noisy[:, kept], all_layers=True, aligned=aligned[:, kept], sigma=told, sources=kept)
            for a, b in zip(whole, some):
                torch.testing.assert_close(a[:, kept], b, rtol=0, atol=1e-6)
    # and the rows come from clip_coordinates for those targets alone
    one = noisy[0]
    torch.testing.assert_close(warp_frames(one, clip_coordinates(one, targets=[3])), aligned[0, [3]])


def test_sources_that_do_not_fit_the_window_are_refused_clearly():
    model = build_model("dust", channels=1, layers=2, token_set="aligned")
    noisy = torch.rand(1, 4, 1, 16, 16)
    aligned = align_clip(noisy)
    with pytest.raises(ModelError, match=r"sources= must give each of the 1 frames its own index among the 4"):
        model(noisy[:, [1]], aligned=aligned[:, [1]], sources=[4])
    with pytest.raises(ModelError, match=r"sources= must give each of the 2 frames"):
        model(noisy[:, :2], aligned=aligned[:, :2], sources=[1, 1])
    with pytest.raises(ModelError, match="sources= goes with aligned="):
        build_model("dust", channels=1, layers=2)(noisy, sources=[0, 1, 2, 3])


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_gradients_reach_every_layer_of_an_aligned_model(name):
    model = randomise(build_model(name, channels=1, layers=3, token_set="aligned"))
    noisy = torch.rand(2, 3, 1, 20, 24)
    estimates = model(noisy, all_layers=True, aligned=align_clip(noisy))
    estimates[-1].square().mean().backward()
    for parameter_name, parameter in model.named_parameters():
        assert parameter.grad is not None and parameter.grad.abs().sum() > 0, parameter_name
    assert {n for n, _ in model.named_parameters() if n.endswith("attention.mismatch")} == {
        f"layers.{i}.attention.mismatch" for i in range(3)
    }


@pytest.mark.parametrize("heads", [1, 2])
def test_the_score_trusts_a_neighbour_by_how_well_it_agrees(heads):
    """Zero query weights leave only −β·excess in the score: a token becomes the mean of the frames weighted
    by exp(−β·excess), itself with its current value and weight 1, a frame that disagrees (an occlusion,
    a wrong flow) with nearly none."""
    attention = TokenAttention(6, heads=heads, token_set="aligned", neighbourhood=1, gain_init=1.0)
    with torch.no_grad():
        attention.query.weight.zero_()
    beta = attention.mismatch.item()
    generator = torch.Generator().manual_seed(0)
    tokens = torch.randn(1, 2, 3, 4, 6, generator=generator)  # (B, rows, cols, T, dim)
    states = torch.randn(1, 2, 3, 4, 4, 6, generator=generator)  # [..., t, s, :]
    excess = torch.rand(1, 2, 3, 4, 4, generator=generator) * torch.tensor([0.2, 0.1, 0.3, 0.6])
    excess[..., 2] += 100.0  # frame 2 disagrees with every other frame
    excess = excess.masked_fill(torch.eye(4, dtype=torch.bool), 0.0)
    mixed = attention(tokens, AlignedContext(states, excess, torch.ones(1, 2, 3, 4, 4, 1)))
    for t in range(4):
        values = torch.stack([tokens[..., t, :] if s == t else states[..., t, s, :] for s in range(4)], dim=-2)
        weights = torch.softmax(-beta * excess[..., t, :], dim=-1)
        assert float(weights[..., 2 if t != 2 else 0].max()) < (1e-30 if t != 2 else 1.0)
        torch.testing.assert_close(mixed[..., t, :], (weights.unsqueeze(-1) * values).sum(-2), atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("heads", [1, 2])
@pytest.mark.parametrize("linear", [False, True])
def test_aligned_attention_mixes_every_window_location_by_its_weight(heads, linear):
    """Against the definition, location by location: over a 3×3 window the output is the recorded weights'
    sum of the frame's own tokens (s = t) and the warped states (s ≠ t) at each offset, zero beyond the grid,
    head h on its slice of units; the same when the states come from patches through a linear encoder."""
    dim, rows, cols, frames = 8, 4, 5, 3
    attention = TokenAttention(dim, heads=heads, head_dim=4, token_set="aligned", neighbourhood=3)
    generator = torch.Generator().manual_seed(3)
    with torch.no_grad():
        attention.query.weight.copy_(torch.randn(attention.query.weight.shape, generator=generator))
        attention.gain.copy_(torch.rand(dim, generator=generator))
    tokens = torch.randn(1, rows, cols, frames, dim, generator=generator)
    excess = torch.rand(1, rows, cols, frames, frames, generator=generator).masked_fill(
        torch.eye(frames, dtype=torch.bool), 0.0
    )
    scale = torch.rand(1, rows, cols, frames, frames, 1, generator=generator) + 0.5
    if linear:
        patches = torch.randn(1, rows, cols, frames, frames, 6, generator=generator)
        encoder = torch.randn(6, dim, generator=generator)
        context = AlignedContext(patches @ encoder, excess, scale, patches, encoder)
    else:
        context = AlignedContext(torch.randn(1, rows, cols, frames, frames, dim, generator=generator), excess, scale)
    attention.recording = True
    with torch.no_grad():
        out = attention(tokens, context)
    (weights,) = attention.recorded  # (B, rows, cols, heads, T, offsets, S)
    expected = torch.zeros_like(tokens)
    width = dim // heads
    for r in range(rows):
        for c in range(cols):
            for index, (dr, dc) in enumerate(attention.offsets):
                if not (0 <= r + dr < rows and 0 <= c + dc < cols):
                    assert float(weights[0, r, c, :, :, index].abs().max()) == 0.0
                    continue
                for t in range(frames):
                    for s in range(frames):
                        value = (
                            tokens[0, r + dr, c + dc, t] if s == t else context.warped_states()[0, r + dr, c + dc, t, s]
                        )
                        for h in range(heads):
                            part = slice(h * width, (h + 1) * width)
                            expected[0, r, c, t, part] += weights[0, r, c, h, t, index, s] * value[part]
    gain = attention.gain.detach()
    torch.testing.assert_close(out, tokens + gain * (expected - tokens), atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_an_aligned_model_runs_under_bfloat16_autocast(name):
    model = build_model(name, channels=1, layers=2, token_set="aligned").eval()
    with torch.no_grad():
        for layer in model.layers:
            layer.attention.gain.fill_(0.5)
        noisy = torch.rand(1, 3, 1, 24, 32)
        aligned = align_clip(noisy)
        exact = model(noisy, aligned=aligned)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            approximate = model(noisy, aligned=aligned)
    assert approximate.dtype == torch.bfloat16
    torch.testing.assert_close(approximate.float(), exact, atol=0.03, rtol=0)


def test_recorded_aligned_weights_are_the_scores_softmax():
    attention = TokenAttention(6, heads=2, token_set="aligned", neighbourhood=1, gain_init=1.0)
    with torch.no_grad():
        attention.query.weight.zero_()
    generator = torch.Generator().manual_seed(1)
    tokens, states = torch.randn(1, 2, 3, 4, 6, generator=generator), torch.randn(1, 2, 3, 4, 4, 6)
    excess = (torch.rand(1, 2, 3, 4, 4, generator=generator) * 2).masked_fill(torch.eye(4, dtype=torch.bool), 0.0)
    context = AlignedContext(states, excess, torch.ones(1, 2, 3, 4, 4, 1))
    attention(tokens, context)
    assert attention.recorded == []  # recording is off by default
    attention.recording = True
    attention(tokens, context)
    (weights,) = attention.recorded
    assert weights.shape == (1, 2, 3, 2, 4, 1, 4)  # (B, rows, cols, heads, T, offsets, S)
    expected = torch.softmax(-attention.mismatch.item() * excess, dim=-1)  # (B, rows, cols, T, S)
    for head in range(2):
        torch.testing.assert_close(weights[:, :, :, head, :, 0], expected)


def test_aligned_frames_are_asked_for_and_refused_clearly():
    noisy = torch.rand(1, 3, 1, 16, 16)
    aligned_model = build_model("dust", channels=1, layers=2, token_set="aligned")
    with pytest.raises(ModelError, match=r"pass aligned= shaped \(B, T, T, C, H, W\) = \(1, 3, 3, 1, 16, 16\)"):
        aligned_model(noisy)
    with pytest.raises(ModelError, match=r"got \(1, 3, 1, 16, 16\)"):
        aligned_model(noisy, aligned=noisy)
    with pytest.raises(ModelError, match="does not attend over aligned frames"):
        build_model("dust", channels=1, layers=2)(noisy, aligned=align_clip(noisy))


@pytest.mark.parametrize("mix_observation", [False, True])
def test_clean_applies_an_aligned_model_the_same_whole_and_tiled(mix_observation):
    model = build_model("dust", channels=1, layers=2, token_set="aligned", mix_observation=mix_observation)
    model = randomise(model, seed=1)
    clip = panned_clip(frames=5, height=90, width=120).expand(-1, 3, -1, -1).contiguous()  # a grey video in colour
    noisy = (clip + 10 / 255 * torch.randn(clip.shape, generator=torch.Generator().manual_seed(2))).clamp(0, 1)
    whole = Denoiser(model, DenoiseSettings(device="cpu", tile=0, window=5, stride=5)).denoise_clip(noisy, 10 / 255)
    tiled = Denoiser(model, DenoiseSettings(device="cpu", tile=64, overlap=32, window=5, stride=5))
    assert len(tiled._tiling(90, 120)[0]) >= 4
    torch.testing.assert_close(tiled.denoise_clip(noisy, 10 / 255), whole, atol=1e-5, rtol=0)
    # the model was handed each window's frames aligned (it refuses to run without them)
    assert whole.shape == noisy.shape and torch.isfinite(whole).all()


def test_an_aligned_model_trains_and_is_evaluated(tmp_path):
    R.make_repackaged(tmp_path / "ped2", "ped2", size=(40, 48))
    # it starts from a model of the temporal token set (the shipped default, say): its mismatch β keeps its init
    temporal = randomise(build_model("dust", channels=1, layers=2, patch_size=4, stride=2))
    save_model(temporal, tmp_path / "temporal.safetensors")
    config = sigma_range_config(
        tmp_path / "ped2",
        model_options={"layers": 2, "patch_size": 4, "stride": 2, "token_set": "aligned"},
        init_weights=str(tmp_path / "temporal.safetensors"),
    )
    trainer = Trainer(config, tmp_path / "run", quiet=True)
    for name, value in temporal.state_dict().items():
        torch.testing.assert_close(trainer.model.state_dict()[name], value)
    assert all(layer.attention.mismatch.item() == 4.0 for layer in trainer.model.layers)
    # but nothing else may be missing or left over
    with pytest.raises(RuntimeError, match="unexpected keys"):
        build_model("dust", channels=1, layers=2, patch_size=4, stride=2).start_from(trainer.model.state_dict())
    noisy, _, told, _ = trainer.inputs(torch.rand(4, 3, 1, 16, 16), 0, 0)
    assert told["aligned"].shape == (4, 3, 3, 1, 16, 16)
    torch.testing.assert_close(told["aligned"], align_clip(noisy))
    trainer.fit()
    assert any(layer.attention.gain.abs().sum() > 0 for layer in trainer.model.layers)
    evaluation = EvalConfig(
        dataset="ucsd-ped2", root=str(tmp_path / "ped2"), gammas=[1.0], crop=24, clips_per_video=1, baselines=[]
    )
    result = evaluate([tmp_path / "run" / "last.safetensors"], evaluation, labels=["aligned"])
    assert np.isfinite(result.samples[("aligned", "gaussian", "input")]["rmse"]).all()


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_no_attention_is_a_single_frame_model_with_the_same_weights(name):
    """token_set "none" (the ablation's attention-off arm): each frame alone, from the same weights file."""
    temporal = randomise(build_model(name, channels=1, layers=3, token_set="temporal"))
    alone = build_model(name, channels=1, layers=3, token_set="none")
    alone.start_from(temporal.state_dict())
    noisy = torch.rand(1, 3, 1, 20, 24)
    with torch.no_grad():
        out = alone(noisy)
        for layer in temporal.layers:
            layer.attention.gain.zero_()
        torch.testing.assert_close(out, temporal(noisy))
        changed = noisy.clone()
        changed[:, 1:] = torch.rand(1, 2, 1, 20, 24)
        torch.testing.assert_close(alone(changed)[:, 0], out[:, 0])  # frame 0 does not see the others


def test_keys_of_a_linear_encoder_are_the_keys_of_its_states():
    """DUST's warped keys are projected from the patches through D/c·Wᵀ: the keys of its states, cheaper; and their
    RMS is taken through the encoder's Gram matrix, the states never written."""
    model = randomise(build_model("dust", channels=1, layers=2, token_set="aligned"))
    noisy = torch.rand(1, 3, 1, 20, 24)
    tokens, _ = extract_patches(noisy, 8, 4)
    aligned_tokens, itself = model._aligned_tokens(align_clip(noisy), noisy)
    context = model._context(tokens, aligned_tokens, None, itself)
    assert context.encoder is not None and build_model("ut", token_set="aligned").linear_encoder is None
    linear = model.layers[0].attention.query
    with torch.no_grad():
        states = model.initial_state(context.patches)
        assert context.states is None  # one head: the attention reads the patches, the states are not kept
        torch.testing.assert_close(context.warped_states(), states)
        torch.testing.assert_close(context.keys(linear), linear(states), atol=1e-5, rtol=1e-4)
        torch.testing.assert_close(context.scale, rms_scale(states), atol=0, rtol=1e-5)  # through the Gram matrix


def test_clean_hands_an_aligned_model_windows_of_distinct_frames():
    """No frame repeated by reflection at a video's ends (its noise would be averaged as another frame's): a
    window moves inside the video, and a video shorter than a window is one window; each output frame is the
    model's on the window that kept it."""
    model = randomise(build_model("dust", channels=1, layers=2, token_set="aligned", mix_observation=True), seed=2)
    clip = panned_clip(frames=7, height=40, width=48)
    noisy = (clip + 10 / 255 * torch.randn(clip.shape, generator=torch.Generator().manual_seed(3))).clamp(0, 1)
    # told σ itself (a range above it), so the model sees the frames as they are
    # the centre 3 of 5; what the model returns, before the last step (tests/test_clipping.py)
    settings = DenoiseSettings(device="cpu", tile=0, window=5, fusion=None, stride=3, unclip=False)
    denoiser = Denoiser(model, settings, sigma_range=(0.0, 0.2))

    def direct(frames: torch.Tensor) -> torch.Tensor:
        with torch.no_grad():
            return model(frames[None], sigma=10 / 255, aligned=align_clip(frames)[None])[0].clamp(0, 1)  # as clean

    passes = []
    forward = model.forward
    model.forward = lambda clip, *args, **kwargs: passes.append(len(clip[0])) or forward(clip, *args, **kwargs)
    out = denoiser.denoise_clip(noisy, 10 / 255)
    # frames 0-2 against frames 0-4, then frames 3-6 against 2-6 (a third window would be the same frames); each
    # pass denoises only the frames kept, and gives them as a pass over the whole window does
    assert passes == [3, 4]
    torch.testing.assert_close(out[0:3], direct(noisy[0:5])[0:3], atol=1e-6, rtol=0)  # not frames 1, 0, 1, 2, 3
    torch.testing.assert_close(out[3:6], direct(noisy[2:7])[1:4], atol=1e-6, rtol=0)
    torch.testing.assert_close(out[6:], direct(noisy[2:7])[4:], atol=1e-6, rtol=0)  # not frames 5, 6, 5, 4, 3
    passes.clear()
    five = denoiser.denoise_clip(noisy[:5], 10 / 255)
    assert passes == [5]
    torch.testing.assert_close(five, direct(noisy[:5]), atol=1e-6, rtol=0)
    short = noisy[:3]
    torch.testing.assert_close(denoiser.denoise_clip(short, 10 / 255), direct(short), atol=1e-6, rtol=0)
    # by default every frame is the centre of its own window (neighbours ±1, ±2), the ends moved inside
    centred = Denoiser(model, dataclasses.replace(settings, stride=None), sigma_range=(0.0, 0.2))
    assert centred.stride == 1
    passes.clear()
    out = centred.denoise_clip(noisy, 10 / 255)
    assert passes == [1, 1, 1, 1, 3]  # frames 0, 1, 2 against 0-4, frame 3 against 1-5, frames 4-6 against 2-6
    torch.testing.assert_close(out[:3], direct(noisy[0:5])[:3], atol=1e-6, rtol=0)
    torch.testing.assert_close(out[3], direct(noisy[1:6])[2], atol=1e-6, rtol=0)
    torch.testing.assert_close(out[4:], direct(noisy[2:7])[2:], atol=1e-6, rtol=0)


def test_calibration_hands_an_aligned_model_distinct_frames_too(monkeypatch):
    """Choosing the told scale denoises each frame from the others (module notes of calibration): an aligned
    model gets them once each there too, the whole of a video shorter than its window."""
    model = randomise(build_model("dust", channels=1, layers=2, token_set="aligned", mix_observation=True), seed=2)
    clip = panned_clip(frames=5, height=96, width=128)  # enough for the flow to match pixels
    noisy = (clip + 10 / 255 * torch.randn(clip.shape, generator=torch.Generator().manual_seed(3))).clamp(0, 1)
    denoiser = Denoiser(model, DenoiseSettings(device="cpu", tile=0, window=5, fusion=None), sigma_range=(0.0, 0.2))
    seen = []
    denoise_window = denoiser.denoise_window

    def recording(clip, *args, **kwargs):
        seen.append(clip)
        return denoise_window(clip, *args, **kwargs)

    monkeypatch.setattr(denoiser, "denoise_window", recording)
    calibrate_told_scale(denoiser, noisy, 10 / 255)
    assert seen and all(len(window) == 4 for window in seen)  # each frame from the 4 others, each once
    for window in seen:
        assert all(not torch.equal(window[i], window[j]) for i in range(4) for j in range(i))


def test_clean_says_an_aligned_model_alone_attends_over_the_aligned_neighbours():
    denoiser = Denoiser(build_model("dust", channels=1, layers=2, token_set="aligned"), DenoiseSettings(device="cpu"))
    line = denoiser.describe_sigma(0.1, "given")
    assert "the model attends over each frame's motion-aligned neighbours (5 frames)" in line and "fused" not in line

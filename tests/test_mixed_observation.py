"""The aligned token set mixing the observation too (`DUSTConfig.mix_observation`): the attention's weights mix
each layer's noisy patches as they mix its codes, and the shrinkage is told the noise left."""

from __future__ import annotations

import pytest
import torch

import videodenoise.models.base as base
from videodenoise.denoise.fusion import align_clip
from videodenoise.errors import ModelError
from videodenoise.models.attention import AlignedContext, TokenAttention
from videodenoise.models.layers import extract_patches, fold_patches
from videodenoise.models.registry import build_model

from helpers import panned_clip, randomise


def test_an_observation_mixed_at_gain_zero_is_the_aligned_model():
    """With every g_y at its default start, 0, nothing is mixed and the thresholds are the frame's own: the same
    model as without mixing, at every layer (so an untrained DUST that mixes is still ISTA)."""
    mixing = randomise(build_model("dust", channels=1, layers=3, token_set="aligned", mix_observation=True))
    plain = build_model("dust", channels=1, layers=3, token_set="aligned")
    plain.load_state_dict({k: v for k, v in mixing.state_dict().items() if "observation_gain" not in k})
    assert build_model("dust", token_set="aligned", mix_observation=True).layers[0].attention.observation_gain == 0
    with torch.no_grad():
        for layer in mixing.layers:  # randomised with the rest: back to the start
            layer.attention.observation_gain.zero_()
    noisy = torch.rand(1, 3, 1, 20, 24)
    aligned = align_clip(noisy)
    with torch.no_grad():
        for sigma in (None, 0.1):
            ours = mixing(noisy, all_layers=True, aligned=aligned, sigma=sigma)
            theirs = plain(noisy, all_layers=True, aligned=aligned, sigma=sigma)
            for a, b in zip(ours, theirs):
                torch.testing.assert_close(a, b, rtol=0, atol=1e-6)


def test_a_mixing_attention_switched_off_is_one_at_gain_zero():
    """`TokenAttention.off` (benchmarks/attention_worth.py switches a trained layer's attention off) on an attention
    that mixes the observation: nothing mixed, codes or observation, and all the noise left, as with both gains 0."""
    model = randomise(build_model("dust", channels=1, layers=3, token_set="aligned", mix_observation=True))
    noisy = torch.rand(1, 3, 1, 20, 24)
    aligned = align_clip(noisy)
    with torch.no_grad():
        for sigma in (None, 0.1):
            for layer in model.layers:
                layer.attention.off = True
            switched = model(noisy, all_layers=True, aligned=aligned, sigma=sigma)
            kept = [(layer.attention.gain.clone(), layer.attention.observation_gain.clone()) for layer in model.layers]
            for layer in model.layers:
                layer.attention.off = False
                layer.attention.gain.zero_()
                layer.attention.observation_gain.zero_()
            closed = model(noisy, all_layers=True, aligned=aligned, sigma=sigma)
            for layer, (gain, observation_gain) in zip(model.layers, kept):
                layer.attention.gain.copy_(gain)
                layer.attention.observation_gain.copy_(observation_gain)
            for a, b in zip(switched, closed):
                torch.testing.assert_close(a, b, rtol=0, atol=1e-6)


@pytest.mark.parametrize("heads", [1, 2])
@pytest.mark.parametrize("neighbourhood", [1, 3])
def test_the_observation_is_mixed_by_the_codes_weights(heads, neighbourhood):
    """Against the definition, location by location: y ← y + g·(Σ w̄·y_s − y) with w̄ the recorded weights
    averaged over the heads (the frame's own patches for s = t, the warped ones otherwise, zero beyond the
    grid), and the noise left (1 − g)² + 2g(1 − g)·w̄_own + g²·Σ w̄²."""
    dim, width, rows, cols, frames = 8, 6, 4, 5, 3
    attention = TokenAttention(
        dim, heads=heads, head_dim=4, token_set="aligned", neighbourhood=neighbourhood, mix_observation=True
    )
    generator = torch.Generator().manual_seed(5)
    with torch.no_grad():
        attention.query.weight.copy_(torch.randn(attention.query.weight.shape, generator=generator))
        attention.observation_gain.fill_(0.7)
    tokens = torch.randn(1, rows, cols, frames, dim, generator=generator)
    observation = torch.randn(1, rows, cols, frames, width, generator=generator)
    excess = torch.rand(1, rows, cols, frames, frames, generator=generator).masked_fill(
        torch.eye(frames, dtype=torch.bool), 0.0
    )
    patches = torch.randn(1, rows, cols, frames, frames, width, generator=generator)
    encoder = torch.randn(width, dim, generator=generator)
    context = AlignedContext(patches @ encoder, excess, torch.ones(1, rows, cols, frames, frames, 1), patches, encoder)
    attention.recording = True
    with torch.no_grad():
        codes, mixed, variance = attention(tokens, context, observation=observation)
        torch.testing.assert_close(codes, attention._aligned(tokens, context))  # the codes as without it
    weights = attention.recorded[0].mean(3)  # (B, rows, cols, T, offsets, S), over the heads
    expected = torch.zeros_like(observation)
    for r in range(rows):
        for c in range(cols):
            for index, (dr, dc) in enumerate(attention.offsets):
                if not (0 <= r + dr < rows and 0 <= c + dc < cols):
                    continue
                for t in range(frames):
                    for s in range(frames):
                        value = observation[0, r + dr, c + dc, t] if s == t else patches[0, r + dr, c + dc, t, s]
                        expected[0, r, c, t] += weights[0, r, c, t, index, s] * value
    torch.testing.assert_close(mixed, observation + 0.7 * (expected - observation), atol=1e-5, rtol=1e-4)
    centre = attention.offsets.index((0, 0))
    own = weights[..., centre, :].diagonal(dim1=-2, dim2=-1)
    left = 0.3**2 + 2 * 0.7 * 0.3 * own + 0.7**2 * weights.square().sum(dim=(-2, -1))
    torch.testing.assert_close(variance.squeeze(-1), left, atol=1e-6, rtol=1e-5)


def test_the_noise_left_is_the_mixed_observations_own():
    """Frames of one static scene under independent noise, equal weights (no score but −β·0): mixed fully, the
    observation keeps 1/T of the noise variance, as the attention says; at g = ½, (¼ + 2·¼/T + ¼/T)."""
    frames, samples, width = 4, 20_000, 4
    attention = TokenAttention(8, token_set="aligned", neighbourhood=1, mix_observation=True)
    with torch.no_grad():
        attention.query.weight.zero_()
    generator = torch.Generator().manual_seed(0)
    scene = torch.rand(1, samples, 1, 1, width, generator=generator)
    noisy = scene + 0.1 * torch.randn(1, samples, 1, frames, width, generator=generator)
    warped = noisy.unsqueeze(3).expand(-1, -1, -1, frames, -1, -1)  # [t, s] = frame s (a still camera)
    encoder = torch.randn(width, 8, generator=generator)
    context = AlignedContext(
        warped @ encoder, torch.zeros(1, samples, 1, frames, frames), torch.ones(1, samples, 1, frames, frames, 1),
        warped, encoder,
    )  # fmt: skip
    for gain, expected in [(1.0, 1 / frames), (0.5, 0.25 + 0.5 / frames + 0.25 / frames)]:
        with torch.no_grad():
            attention.observation_gain.fill_(gain)
            _, mixed, variance = attention(noisy @ encoder, context, observation=noisy)
        torch.testing.assert_close(variance, torch.full_like(variance, expected), atol=1e-6, rtol=0)
        measured = float((mixed - scene).var()) / 0.1**2
        assert abs(measured - expected) < 0.03 * expected, (gain, measured, expected)


def test_a_mixing_model_starts_from_a_temporal_one_learns_its_gains_and_bands_change_nothing(monkeypatch):
    temporal = randomise(build_model("dust", channels=1, layers=3))
    mixing = build_model(
        "dust", channels=1, layers=3, token_set="aligned", neighbourhood=3, mix_observation=True, attention_gain=0.5
    )
    mixing.start_from(temporal.state_dict())  # its β and g_y keep their start
    assert [layer.attention.observation_gain.item() for layer in mixing.layers] == [0.5] * 3
    clean = panned_clip(frames=3)[None]
    noisy = clean + 0.1 * torch.randn(clean.shape, generator=torch.Generator().manual_seed(1))
    aligned = align_clip(noisy)
    estimates = mixing(noisy, all_layers=True, aligned=aligned, sigma=0.1)
    estimates[-1].square().mean().backward()
    for layer in mixing.layers:
        assert layer.attention.observation_gain.grad.abs() > 0
    assert_bands_change_nothing(mixing, noisy, aligned, estimates[-1], monkeypatch)


def test_mixing_the_observation_needs_the_aligned_token_set():
    with pytest.raises(ModelError, match="mix_observation needs token_set='aligned', got 'temporal'"):
        build_model("dust", channels=1, mix_observation=True)
    with pytest.raises(ValueError, match="only the aligned token set mixes the observation"):
        TokenAttention(8, token_set="temporal", mix_observation=True)
    attention = TokenAttention(8, token_set="temporal")
    with pytest.raises(ValueError, match="needs it, and only such a one takes it"):
        attention(torch.rand(1, 2, 2, 3, 8), observation=torch.rand(1, 2, 2, 3, 4))


def test_layers_past_the_aligned_depth_step_towards_the_observation_mixed_before_them(monkeypatch):
    """aligned_depth=1: layer 1 attends and mixes the observation; layers 2 and 3 do not attend, and step towards
    layer 1's mixed observation with its noise, against the definition built from the layers' own parts."""
    model = randomise(
        build_model("dust", channels=1, layers=3, token_set="aligned", mix_observation=True, aligned_depth=1)
    )
    assert model.layers[0].attention.aligned and model.layers[1].attention.off and model.layers[2].attention.off
    with torch.no_grad():
        model.layers[0].attention.observation_gain.fill_(0.5)
    clean = panned_clip(frames=3)[None]
    noisy = clean + 0.1 * torch.randn(clean.shape, generator=torch.Generator().manual_seed(2))
    aligned = align_clip(noisy)
    monkeypatch.setattr(base, "CPU_BAND_BYTES", 1 << 40)  # one band: the definition below is whole-clip
    with torch.no_grad():
        estimates = model(noisy, all_layers=True, aligned=aligned, sigma=0.1)
        tokens, grid = extract_patches(noisy, model.config.patch_size, model.config.stride)
        aligned_tokens, itself = model._aligned_tokens(aligned, noisy)
        scale = model._noise_scale(0.1, noisy)
        context = model._context(tokens, aligned_tokens, scale, itself)
        first = model.layers[0]
        attended, observation, variance = first.attention(model.initial_state(tokens), context, observation=tokens)
        assert (observation - tokens).abs().max() > 0.05 and variance.mean() < 0.9  # something was mixed
        noise_scale = scale * variance.sqrt()
        codes = first.shrink(first._step(attended, observation, model.dictionary), noise_scale)
        expected = [codes]
        for layer in model.layers[1:]:
            codes = layer.shrink(layer._step(codes, observation, model.dictionary), noise_scale)
            expected.append(codes)
    for estimate, codes in zip(estimates[1:], expected):
        torch.testing.assert_close(estimate, fold_patches([model.readout_patches(codes)], grid), rtol=0, atol=1e-6)


def test_an_untrained_model_attending_at_one_layer_is_ista_and_its_bands_and_gradients_hold(monkeypatch):
    model = build_model("dust", channels=1, layers=3, token_set="aligned", mix_observation=True, aligned_depth=1)
    ista = build_model("dust", channels=1, layers=3, token_set="none")
    noisy = panned_clip(frames=3)[None] + 0.1 * torch.randn(1, 3, 1, 64, 80, generator=torch.Generator().manual_seed(3))
    aligned = align_clip(noisy)
    with torch.no_grad():
        ours = model(noisy, all_layers=True, aligned=aligned, sigma=0.1)
        theirs = ista(noisy, all_layers=True, sigma=0.1)
    for a, b in zip(ours, theirs):
        torch.testing.assert_close(a, b, rtol=0, atol=1e-6)
    trained = randomise(model)
    estimates = trained(noisy, all_layers=True, aligned=aligned, sigma=0.1)
    estimates[-1].square().mean().backward()
    assert trained.layers[0].attention.observation_gain.grad.abs() > 0
    assert trained.layers[0].attention.query.weight.grad.abs().sum() > 0
    for layer in trained.layers:
        assert layer.analysis.grad.abs().sum() > 0
    assert_bands_change_nothing(trained, noisy, aligned, estimates[-1], monkeypatch)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"token_set": "aligned", "aligned_depth": 1}, "aligned_depth needs mix_observation=true and untied layers"),
        (
            {"token_set": "aligned", "mix_observation": True, "aligned_depth": 1, "tied_layers": True},
            "aligned_depth needs mix_observation=true and untied layers",
        ),
        ({"token_set": "aligned", "mix_observation": True, "aligned_depth": 0}, r"aligned_depth must be 1-5 .*got 0"),
        ({"token_set": "aligned", "mix_observation": True, "aligned_depth": 6}, r"aligned_depth must be 1-5 .*got 6"),
    ],
)
def test_an_impossible_aligned_depth_is_refused(options, message):
    with pytest.raises(ModelError, match=message):
        build_model("dust", channels=1, **options)


def assert_bands_change_nothing(model, noisy, aligned, estimate, monkeypatch) -> None:
    """The model on one band and on bands of one patch row each gives the same, and what `estimate` (a pass with
    gradients) gave."""
    with torch.no_grad():
        monkeypatch.setattr(base, "CPU_BAND_BYTES", 1 << 40)
        whole = model(noisy, aligned=aligned, sigma=0.1)
        monkeypatch.setattr(base, "CPU_BAND_BYTES", 1)
        banded = model(noisy, aligned=aligned, sigma=0.1)
    torch.testing.assert_close(whole, banded, rtol=0, atol=1e-6)
    torch.testing.assert_close(whole, estimate.detach(), rtol=0, atol=1e-5)

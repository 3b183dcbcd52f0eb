"""Tests of videodenoise.models: patches, the two denoisers, the registry and weight files."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import skimage.data
import torch
import torch.nn.functional as F
from PIL import Image, ImageSequence
from safetensors import safe_open
from safetensors.torch import save_file

import videodenoise.models.base as base
from videodenoise.errors import ModelError, VideodenoiseError
from videodenoise.models.attention import TokenAttention
from videodenoise.models.config import MODEL_NAMES, DUSTConfig
from videodenoise.models.layers import (
    SoftThreshold,
    dc_atoms,
    dct_dictionary,
    extract_patches,
    fold_patches,
    patch_means,
)
from videodenoise.models.registry import build_model, count_parameters, load_model, read_metadata, save_model
from videodenoise.models.ut import FeedForwardStep, ProximalStep

from helpers import randomise

SIGMA = 25 / 255
GIF = Path(skimage.data.__file__).parent / "no_time_for_that_tiny.gif"


def read_gif(channels: int) -> torch.Tensor:
    """The scikit-image GIF as a (1, T, C, H, W) float clip in [0, 1] (24 frames of 14×25)."""
    mode = "L" if channels == 1 else "RGB"
    frames = [
        np.asarray(frame.convert(mode), dtype=np.float32) / 255 for frame in ImageSequence.Iterator(Image.open(GIF))
    ]
    clip = torch.from_numpy(np.stack(frames))
    clip = clip[:, None] if channels == 1 else clip.permute(0, 3, 1, 2)
    return clip[None].contiguous()


def panning_clip() -> torch.Tensor:
    """A larger real test signal: a 96×128 window panning across the camera image, 5 frames."""
    image = torch.from_numpy(skimage.data.camera().astype(np.float32) / 255)
    return torch.stack([image[100 + 2 * t : 196 + 2 * t, 150 + 3 * t : 278 + 3 * t] for t in range(5)])[None, :, None]


def add_noise(clip: torch.Tensor, sigma: float = SIGMA, seed: int = 0) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    return clip + sigma * torch.randn(clip.shape, generator=generator)


def rmse(estimate: torch.Tensor, clean: torch.Tensor) -> float:
    return (estimate - clean).pow(2).mean().sqrt().item()


# ----------------------------------------------------------------------------------------------------
# patches and shared layers


@pytest.mark.parametrize("height, width", [(14, 25), (8, 8), (5, 3), (31, 17), (1, 40)])
@pytest.mark.parametrize("patch_size, stride", [(8, 4), (8, 8), (6, 4), (4, 1)])
def test_fold_of_unchanged_patches_returns_the_input(height, width, patch_size, stride):
    clip = torch.rand(2, 3, 3, height, width, generator=torch.Generator().manual_seed(1))
    tokens, grid = extract_patches(clip, patch_size, stride)
    assert tokens.shape == (2, grid.rows, grid.cols, 3, 3 * patch_size**2)
    folded = fold_patches(tokens, grid)
    if stride == patch_size:  # each pixel in exactly one patch: bit-exact
        assert torch.equal(folded, clip)
    else:  # an average of identical copies: exact up to float rounding of the sum
        torch.testing.assert_close(folded, clip, rtol=0, atol=1e-6)


@pytest.mark.parametrize("patch_size, stride", [(8, 4), (8, 2), (6, 4), (8, 3), (4, 1)])
def test_patches_cut_and_folded_as_unfold_and_fold_would(patch_size, stride):
    # the reference: F.unfold's columns, and F.fold's sums divided by F.fold's count of patches over each pixel
    generator = torch.Generator().manual_seed(2)
    clip = torch.rand(2, 3, 3, 23, 30, generator=generator, dtype=torch.float64)
    tokens, grid = extract_patches(clip, patch_size, stride)
    padded = F.pad(
        clip.flatten(0, 1),
        (
            grid.pad_left,
            grid.padded_width - grid.width - grid.pad_left,
            grid.pad_top,
            grid.padded_height - grid.height - grid.pad_top,
        ),
        mode="reflect",
    )
    columns = F.unfold(padded, patch_size, stride=stride)  # (B·T, n, rows·cols)
    expected = columns.view(2, 3, -1, grid.rows, grid.cols).permute(0, 3, 4, 1, 2)
    assert torch.equal(tokens, expected)

    estimate = torch.randn(tokens.shape, generator=generator, dtype=torch.float64, requires_grad=True)
    size, kernel = (grid.padded_height, grid.padded_width), dict(kernel_size=patch_size, stride=stride)
    summed = F.fold(estimate.permute(0, 3, 4, 1, 2).reshape(6, -1, grid.rows * grid.cols), size, **kernel)
    counts = F.fold(torch.ones(1, patch_size**2, grid.rows * grid.cols, dtype=torch.float64), size, **kernel)
    crop = (slice(None), slice(None), slice(grid.pad_top, grid.pad_top + 23), slice(grid.pad_left, grid.pad_left + 30))
    reference = (summed / counts)[crop].reshape(clip.shape)
    folded = fold_patches(estimate, grid)
    torch.testing.assert_close(folded, reference, rtol=0, atol=1e-12)
    weights = torch.randn(clip.shape, generator=generator, dtype=torch.float64)
    (gradient,) = torch.autograd.grad((folded * weights).sum(), estimate)
    (expected_gradient,) = torch.autograd.grad((reference * weights).sum(), estimate)
    torch.testing.assert_close(gradient, expected_gradient, rtol=0, atol=1e-12)

    # a grid handed over as bands of patch rows, as a model computes it, folds to the same clip, to the bit
    bands = list(estimate.detach().split([1, 2, grid.rows - 3], dim=1))
    assert torch.equal(fold_patches(bands, grid), folded.detach())
    with pytest.raises(ValueError, match=f"hold {grid.rows - 1} patch rows, the grid {grid.rows}"):
        fold_patches(bands[1:], grid)


@pytest.mark.parametrize("shape", [(2, 3, 1, 45, 37), (1, 2, 3, 9, 9), (1, 1, 1, 5, 3)])
def test_patch_means_are_the_mean_of_each_token(shape):
    video = torch.rand(shape)
    tokens, _ = extract_patches(video, 8, 4)
    torch.testing.assert_close(patch_means(video, 8, 4), tokens.mean(dim=-1, keepdim=True), rtol=0, atol=1e-6)


def test_tokens_are_the_patches_of_the_frame():
    clip = torch.rand(1, 2, 1, 20, 24)
    tokens, grid = extract_patches(clip, 8, 4)
    offset = 8 - 4  # padding before the first pixel
    row, col = 2, 3  # patch location with top-left pixel (2·4 − 4, 3·4 − 4) in the clip
    top, left = row * 4 - offset, col * 4 - offset
    expected = clip[0, 1, 0, top : top + 8, left : left + 8].flatten()
    assert torch.equal(tokens[0, row, col, 1], expected)
    # every clip pixel lies in (8/4)² patches, borders included
    assert grid.pad_top == grid.pad_left == offset


def test_dct_dictionary_is_a_tight_frame_with_one_dc_atom_per_channel():
    for channels in (1, 3):
        dictionary = dct_dictionary(8, channels).double()
        n = channels * 64
        assert dictionary.shape == (n, 4 * n)
        torch.testing.assert_close(dictionary.norm(dim=0), torch.ones(4 * n, dtype=torch.float64))
        torch.testing.assert_close(dictionary @ dictionary.T, 4 * torch.eye(n, dtype=torch.float64), atol=1e-5, rtol=0)
        assert dc_atoms(dictionary.float(), channels).sum() == channels
        basis = dct_dictionary(8, channels, n).double()  # k = n: the orthonormal DCT
        torch.testing.assert_close(basis.T @ basis, torch.eye(n, dtype=torch.float64), atol=1e-5, rtol=0)


def test_soft_threshold_is_the_l1_proximal_map():
    shrink = SoftThreshold(torch.tensor([0.5, 0.0, -1.0]))  # a negative threshold acts as 0
    x = torch.tensor([[1.0, -2.0, 0.3], [-0.2, 0.1, -3.0]])
    expected = torch.tensor([[0.5, -2.0, 0.3], [0.0, 0.1, -3.0]])
    assert torch.equal(shrink(x), expected)


@pytest.mark.parametrize("scale_shape", [None, (), (2, 1, 1, 1, 1), (2, 3, 4, 5, 1)])
def test_soft_threshold_gradients_equal_autograds_through_the_clamp(scale_shape):
    # no σ, one σ, one per clip, one per token; the written-out gradient against autograd's through min and max
    generator = torch.Generator().manual_seed(3)
    thresholds = torch.rand(16, generator=generator, dtype=torch.float64) * 0.5
    thresholds[0], thresholds[1] = 0.0, -0.2  # a DC-like unit, and a negative threshold (acts as 0)
    shrink = SoftThreshold(thresholds).double()
    x = torch.randn(2, 3, 4, 5, 16, generator=generator, dtype=torch.float64, requires_grad=True)
    scale = None
    if scale_shape is not None:
        scale = (torch.rand(scale_shape, generator=generator, dtype=torch.float64) + 0.5).requires_grad_()
    weights = torch.randn(x.shape, generator=generator, dtype=torch.float64)
    inputs = [x, shrink.threshold] + ([scale] if scale is not None else [])
    output = shrink(x, scale)
    threshold = shrink.threshold.clamp(min=0) * (1 if scale is None else scale)
    reference = x - torch.minimum(torch.maximum(x, -threshold), threshold)
    assert torch.equal(output, reference)
    gradients = torch.autograd.grad((output * weights).sum(), inputs)
    expected = torch.autograd.grad((reference * weights).sum(), inputs)
    for gradient, wanted in zip(gradients, expected):
        torch.testing.assert_close(gradient, wanted, rtol=0, atol=1e-12)
    assert gradients[1][1] == 0  # a negative threshold learns nothing


# ----------------------------------------------------------------------------------------------------
# both models


@pytest.mark.parametrize("name", MODEL_NAMES)
@pytest.mark.parametrize("channels", [1, 3])
def test_shapes_for_odd_sizes_and_any_number_of_frames(name, channels):
    model = randomise(build_model(name, channels=channels, layers=3)).eval()
    for frames, height, width in [(1, 17, 23), (2, 5, 3), (5, 14, 25), (3, 8, 8)]:
        noisy = torch.rand(2, frames, channels, height, width)
        with torch.no_grad():
            final = model(noisy)
            estimates = model(noisy, all_layers=True)
        assert final.shape == noisy.shape
        assert len(estimates) == model.num_layers + 1
        assert estimates[0] is noisy or torch.equal(estimates[0], noisy)  # layer 0 is the input
        assert all(estimate.shape == noisy.shape for estimate in estimates)
        torch.testing.assert_close(estimates[-1], final)
        assert torch.isfinite(final).all()


@pytest.mark.parametrize("name", MODEL_NAMES)
@pytest.mark.parametrize("token_set", ["temporal", "spatiotemporal"])
def test_cpu_bands_give_the_same_result_as_one_band(name, token_set, monkeypatch):
    model = randomise(build_model(name, channels=1, layers=3, heads=2, token_set=token_set)).eval()
    noisy = torch.rand(2, 3, 1, 45, 37)
    with torch.no_grad():
        monkeypatch.setattr(base, "CPU_BAND_BYTES", 1 << 40)
        whole = model(noisy, all_layers=True)
        monkeypatch.setattr(base, "CPU_BAND_BYTES", 1)
        tokens, _ = extract_patches(noisy, 8, 4)
        assert len(model._bands(tokens, model.num_layers)) > 1
        banded = model(noisy, all_layers=True)
    for a, b in zip(whole, banded):
        torch.testing.assert_close(a, b, rtol=0, atol=1e-6)


@pytest.mark.parametrize("name", MODEL_NAMES)
@pytest.mark.parametrize("token_set", ["temporal", "spatiotemporal", "none"])
@pytest.mark.parametrize("sigma", [None, 0.1, "per clip", "map"])
def test_inference_writing_in_place_equals_the_autograd_pass(name, token_set, sigma):
    """Outside autograd the layers overwrite their own temporaries; every layer's estimate must equal the
    pass that keeps them (with attention off, the layer's input is not its own and must stay untouched)."""
    model = randomise(build_model(name, channels=1, layers=3, token_set=token_set)).requires_grad_(False)
    generator = torch.Generator().manual_seed(0)
    noisy = torch.rand(2, 3, 1, 21, 26, generator=generator)
    told = {
        "map": torch.rand(2, 3, 21, 26, generator=generator) * 0.2,
        "per clip": torch.tensor([0.05, 0.15]),
    }.get(sigma, sigma)
    kept = noisy.clone()
    with torch.enable_grad():  # nothing requires a gradient, but autograd is on: the out-of-place steps
        reference = model(noisy, all_layers=True, sigma=told)
    with torch.no_grad():
        estimates = model(noisy, all_layers=True, sigma=told)
    assert torch.equal(noisy, kept)
    # told σ per token, DUST runs the band divided by each token's σ: s·S(x/s) rounds apart from the autograd
    # pass's per-token thresholds by a few float32 ulps a layer (up to 1.5e-6 over 20 draws on an AVX-512 host)
    atol = 2e-6 if model.scales_by_noise and sigma in ("per clip", "map") else 1e-6
    for a, b in zip(reference, estimates):
        torch.testing.assert_close(a, b, rtol=0, atol=atol)


@pytest.mark.parametrize("zeros", [False, True])
def test_a_noise_map_runs_divided_by_each_tokens_sigma_and_equals_the_per_token_thresholds(zeros, monkeypatch):
    """Outside autograd DUST runs tokens and codes divided by each token's σ / σ_ref, so every threshold is
    the layer's own (one per atom, no per-token thresholds to build); its temporal attention re-weights the
    mix by the scales. Every layer's estimate equals the autograd pass, which thresholds per token; a map
    with a zero (nothing to divide by) takes that pass too."""
    model = randomise(build_model("dust", channels=1, layers=3, heads=2)).requires_grad_(False)
    for layer in model.layers:  # gains of a trained model's size, so a wrong mix cannot hide
        layer.attention.gain.fill_(0.6)
    noisy = torch.rand(1, 4, 1, 24, 28)
    told = torch.rand(1, 4, 24, 28) * 0.2 + 0.01
    if zeros:
        told[:, 1] = 0.0
    thresholds_told = []
    shrink = SoftThreshold.forward

    def recording_shrink(self, x, scale=None, in_place=False):
        thresholds_told.append(scale)
        return shrink(self, x, scale, in_place)

    monkeypatch.setattr(SoftThreshold, "forward", recording_shrink)
    with torch.enable_grad():
        reference = model(noisy, all_layers=True, sigma=told)
    assert all(scale is not None and scale.numel() > 1 for scale in thresholds_told)
    thresholds_told.clear()
    with torch.no_grad():
        estimates = model(noisy, all_layers=True, sigma=told)
    assert len(thresholds_told) == 3
    assert all((scale is not None) == zeros for scale in thresholds_told)
    for a, b in zip(reference, estimates):
        torch.testing.assert_close(a, b, rtol=0, atol=2e-6)


def test_cpu_bands_follow_the_l2_cache_within_the_sizes_measured():
    assert base.band_bytes(2 << 20) == 8 << 20  # the Intel Xeon's 2 MiB a core
    assert base.band_bytes(512 << 10) == 2 << 20  # an EPYC core's 0.5 MiB
    assert base.band_bytes(None) == 2 << 20  # unknown: the size used before
    assert base.band_bytes(64 << 10) == 2 << 20 and base.band_bytes(32 << 20) == 16 << 20


def test_cpu_bands_are_sized_in_bytes_so_bfloat16_bands_hold_twice_the_rows(monkeypatch):
    model = build_model("dust", channels=1)
    tokens, _ = extract_patches(torch.rand(1, 5, 1, 200, 128), 8, 4)  # 51 rows of 33 × 5 tokens, 256 wide
    per_row = 33 * 5 * model.state_width * 4  # float32 bytes of one row's widest tensor
    monkeypatch.setattr(base, "CPU_BAND_BYTES", 6 * per_row)
    assert [stop - start for start, stop, _, _ in model._bands(tokens, 5)] == [6] * 8 + [3]
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert [stop - start for start, stop, _, _ in model._bands(tokens, 5)] == [12] * 4 + [3]


@pytest.mark.parametrize("name", MODEL_NAMES)
@pytest.mark.parametrize(
    "options",
    [
        {},
        {"tied_layers": True, "tied_qk": False, "heads": 2},
        {"token_set": "spatiotemporal", "normalize_tokens": False},
    ],
)
def test_gradients_reach_every_parameter(name, options):
    model = randomise(build_model(name, layers=3, **options))
    clean = torch.rand(1, 3, 1, 20, 20)
    estimates = model(add_noise(clean), all_layers=True)
    loss = sum((estimate - clean).pow(2).mean() for estimate in estimates[1:])
    loss.backward()
    for parameter_name, parameter in model.named_parameters():
        assert parameter.grad is not None, f"{parameter_name} gets no gradient"
        assert torch.isfinite(parameter.grad).all(), parameter_name
        assert parameter.grad.abs().sum() > 0, f"{parameter_name} has an all-zero gradient"


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_tied_layers_share_their_parameters(name):
    untied, tied = build_model(name, layers=4), randomise(build_model(name, layers=4, tied_layers=True))
    assert all(tied.layer(0) is tied.layer(index) for index in range(4))
    assert untied.layer(0) is not untied.layer(1)
    per_layer = sum(p.numel() for p in untied.layer(0).parameters())
    assert count_parameters(untied) - count_parameters(tied) == 3 * per_layer
    assert not any(key.startswith("layers.1.") for key in tied.state_dict())
    # a change to the shared layer changes what every depth computes
    noisy = add_noise(torch.rand(1, 2, 1, 16, 16))
    with torch.no_grad():
        before = tied(noisy, all_layers=True)
        for parameter in tied.layer(0).parameters():
            parameter.mul_(1.1)
        after = tied(noisy, all_layers=True)
    assert all(not torch.equal(a, b) for a, b in zip(before[1:], after[1:]))


def untied_copy(tied: torch.nn.Module, name: str, layers: int, **options) -> torch.nn.Module:
    """An untied model of `layers` layers whose every layer holds the tied model's one layer."""
    untied = build_model(name, layers=layers, **options)
    shared = tied.state_dict()
    state = {}
    for key in untied.state_dict():
        parts = key.split(".")
        source = ".".join(["layers", "0", *parts[2:]]) if parts[0] == "layers" else key
        state[key] = shared[source]
    untied.load_state_dict(state)
    return untied


@pytest.mark.parametrize("name", MODEL_NAMES)
@pytest.mark.parametrize("token_set", ["temporal", "spatiotemporal"])
def test_a_tied_model_at_depth_d_is_the_untied_model_with_equal_layers(name, token_set):
    options = {"token_set": token_set}
    tied = randomise(build_model(name, layers=3, tied_layers=True, **options))
    noisy = add_noise(torch.rand(1, 3, 1, 20, 24))
    with torch.no_grad():
        for depth in (1, 3, 7):
            untied = untied_copy(tied, name, depth, **options)
            assert not untied.config.tied_layers and untied.num_layers == depth
            torch.testing.assert_close(tied(noisy, depth=depth), untied(noisy), rtol=0, atol=1e-6)


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_depths_read_from_one_long_pass_equal_separate_passes(name, monkeypatch):
    tied = randomise(build_model(name, layers=5, tied_layers=True, token_set="spatiotemporal"))
    noisy = add_noise(torch.rand(1, 3, 1, 240, 24))  # tall: bands of 4 halos at depth 12 still cut it
    with torch.no_grad():
        whole = tied(noisy, all_layers=True, depth=12)
        # cut into bands: a band's halo must grow with the depth run, or deep layers see band edges
        monkeypatch.setattr(base, "CPU_BAND_BYTES", 1)
        tokens, _ = extract_patches(noisy, tied.config.patch_size, tied.config.stride)
        assert len(tied._bands(tokens, 12)) > 1
        long_pass = tied(noisy, all_layers=True, depth=12)
        assert len(long_pass) == 13 and torch.equal(long_pass[0], noisy)
        for depth in (3, 5, 8, 12):
            torch.testing.assert_close(long_pass[depth], whole[depth], rtol=0, atol=1e-6)
            torch.testing.assert_close(long_pass[depth], tied(noisy, depth=depth), rtol=0, atol=1e-6)
        torch.testing.assert_close(tied(noisy), long_pass[5], rtol=0, atol=1e-6)  # the trained depth by default


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_an_untied_model_runs_at_most_its_trained_depth(name):
    model = build_model(name, layers=4)
    noisy = add_noise(torch.rand(1, 2, 1, 16, 16))
    with torch.no_grad():
        assert len(model(noisy, all_layers=True, depth=2)) == 3
        torch.testing.assert_close(model(noisy, depth=2), model(noisy, all_layers=True)[2], rtol=0, atol=1e-6)
    for depth in (0, 5, 2.5, True):
        with pytest.raises(ModelError, match="depth from 1 to 4"):
            model(noisy, depth=depth)
    with pytest.raises(ModelError, match="any depth >= 1"):
        build_model(name, layers=4, tied_layers=True)(noisy, depth=0)


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_wrong_input_is_a_clear_error(name):
    model = build_model(name, channels=1)
    with pytest.raises(ModelError, match="shape"):
        model(torch.rand(3, 1, 16, 16))
    with pytest.raises(ModelError, match="channel"):
        model(torch.rand(1, 2, 3, 16, 16))
    with pytest.raises(ModelError, match="float"):
        model(torch.zeros(1, 2, 1, 16, 16, dtype=torch.uint8))
    assert issubclass(ModelError, VideodenoiseError)


def test_double_input_runs_in_the_model_precision():
    model = build_model("dust")
    noisy = torch.rand(1, 2, 1, 12, 12, dtype=torch.float64)
    assert model(noisy).dtype == torch.float32


# ----------------------------------------------------------------------------------------------------
# the untrained DUST is ISTA, and denoises


def per_layer_rmse(model, clean: torch.Tensor, seed: int = 0) -> list[float]:
    with torch.no_grad():
        return [rmse(estimate, clean) for estimate in model(add_noise(clean, seed=seed), all_layers=True)]


@pytest.mark.parametrize("channels", [1, 3])
def test_untrained_dust_denoises_the_real_gif_and_improves_at_every_layer(channels):
    clean = read_gif(channels)
    errors = per_layer_rmse(build_model("dust", channels=channels), clean)
    assert errors[0] == pytest.approx(SIGMA, rel=0.05)  # layer 0 is the noisy input
    # measured: grey 0.098 → 0.075, colour 0.098 → 0.061 on this tiny, detailed clip
    assert errors[-1] < (0.82 if channels == 1 else 0.7) * errors[0]
    for layer, (previous, current) in enumerate(zip(errors, errors[1:]), start=1):
        assert current < 0.99 * previous, f"layer {layer} does not improve: {errors}"


def test_untrained_dust_denoises_a_larger_real_clip():
    clean = panning_clip()
    errors = per_layer_rmse(build_model("dust"), clean, seed=1)
    assert errors[-1] < 0.65 * errors[0], errors  # measured 0.098 → 0.058 (+4.5 dB)
    assert all(current < 0.99 * previous for previous, current in zip(errors, errors[1:])), errors


def test_free_and_coupled_weights_are_the_same_ista_at_init():
    noisy = add_noise(read_gif(1)[:, :6])
    with torch.no_grad():
        coupled = build_model("dust", coupled_weights=True)(noisy, all_layers=True)
        free = build_model("dust", coupled_weights=False)(noisy, all_layers=True)
    for a, b in zip(coupled, free):
        torch.testing.assert_close(a, b, rtol=0, atol=2e-5)


def test_untrained_grey_ut_is_the_identity_at_every_depth():
    model = build_model("ut")  # width 128 ≥ n = 64: E is orthonormal, R = Eᵀ, residual branches start at 0
    tokens, grid = extract_patches(torch.rand(1, 2, 1, 16, 20), 8, 4)
    torch.testing.assert_close(model.readout_patches(model.initial_state(tokens)), tokens, rtol=0, atol=1e-5)
    noisy = add_noise(read_gif(1))
    with torch.no_grad():
        for estimate in model(noisy, all_layers=True):
            torch.testing.assert_close(estimate, noisy, rtol=0, atol=1e-5)


# ----------------------------------------------------------------------------------------------------
# registry and weight files


def test_faithful_ut_proximal_step_is_the_closed_form_step():
    # E₂(y) = ½ yᵀ(I − S)y − bᵀy + ι₊(y): a unit gradient step gives yS + b, the prox of ι₊ is ReLU
    step = ProximalStep(3)
    with torch.no_grad():
        step.weight.copy_(torch.tensor([[1.0, 2.0, 0.0], [0.0, -1.0, 0.5], [1.0, 0.0, 0.5]]))  # S = (A + Aᵀ)/2
        step.bias.copy_(torch.tensor([0.1, -0.2, 0.0]))
    y = torch.tensor([[0.5, 1.0, 0.0], [0.0, 0.2, 2.0]])
    # S = [[1, 1, .5], [1, −1, .25], [.5, .25, .5]]; yS + b = [1.6, −0.7, 0.5] and [1.3, 0.1, 1.05] by hand
    expected = torch.tensor([[1.6, 0.0, 0.5], [1.3, 0.1, 1.05]])
    torch.testing.assert_close(step(y), expected)
    assert torch.equal(step.symmetric_weight, step.symmetric_weight.T)
    # the same as projecting the gradient step of E₂'s smooth part, with the gradient from autograd
    z = y.clone().requires_grad_(True)
    smooth = 0.5 * ((z @ (torch.eye(3) - step.symmetric_weight.detach())) * z).sum() - (z @ step.bias.detach()).sum()
    (gradient,) = torch.autograd.grad(smooth, z)
    torch.testing.assert_close(step(y), torch.relu(y - gradient))


def test_distance_scored_attention_is_the_weighted_mean_of_the_energy():
    # y_i ← Σ_j softmax_j(−½‖W y_i − W y_j‖²/√d_k) y_j over the token's set (here 3 frames, one location)
    attention = TokenAttention(2, head_dim=2, normalize_tokens=False, gain_init=1.0, distance_scores=True)
    W = torch.tensor([[1.0, 0.5], [-0.5, 2.0]])
    with torch.no_grad():
        attention.query.weight.copy_(W)
    y = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    projected = y @ W.T
    scores = -0.5 * torch.cdist(projected, projected).square() / 2**0.5
    expected = torch.softmax(scores, dim=-1) @ y
    torch.testing.assert_close(attention(y.view(1, 1, 1, 3, 2)).view(3, 2), expected)


def test_ut_layer_is_attention_then_proximal_step_and_the_mlp_option_is_kept(tmp_path):
    model = randomise(build_model("ut", layers=2, width=8, patch_size=2, stride=1))
    layer = model.layers[0]
    assert isinstance(layer.feed_forward, ProximalStep) and layer.attention.by_distance
    state = torch.rand(1, 2, 2, 3, 8)
    torch.testing.assert_close(layer(state), layer.feed_forward(layer.attention(state)))
    assert (model.initial_state(torch.randn(1, 2, 2, 3, 4)) >= 0).all()  # the energy's domain
    mlp = build_model("ut", layers=2, width=8, patch_size=2, stride=1, feed_forward="mlp")
    assert isinstance(mlp.layers[0].feed_forward, FeedForwardStep) and not mlp.layers[0].attention.by_distance
    # a file written before the proximal step existed (no feed_forward in its config) loads as the MLP
    path = save_model(mlp, tmp_path / "mlp.safetensors")
    with safe_open(str(path), framework="pt") as file:
        tensors, metadata = {k: file.get_tensor(k) for k in file.keys()}, file.metadata()
    config = json.loads(metadata["config"])
    del config["feed_forward"]
    save_file(tensors, tmp_path / "old.safetensors", metadata={**metadata, "config": json.dumps(config)})
    clip = torch.rand(1, 3, 1, 6, 6)
    with torch.no_grad():
        assert torch.equal(load_model(tmp_path / "old.safetensors")(clip), mlp(clip))


def test_ut_told_sigma_scales_its_proximal_biases():
    # told σ = 2·σ_ref, every bias b acts as 2b: the same as doubling the biases and not telling σ
    model = randomise(build_model("ut", layers=2, width=8, patch_size=2, stride=1, sigma=0.1))
    doubled = build_model("ut", layers=2, width=8, patch_size=2, stride=1, sigma=0.1)
    doubled.load_state_dict(model.state_dict())
    with torch.no_grad():
        for layer in doubled.layers:
            layer.feed_forward.bias.mul_(2.0)
    clips = torch.rand(2, 3, 1, 6, 6)
    with torch.no_grad():
        torch.testing.assert_close(model(clips, sigma=0.2), doubled(clips))
        # one σ per clip gives what each clip gets alone
        per_clip = model(clips, sigma=torch.tensor([0.2, 0.05]))
        torch.testing.assert_close(per_clip[1:], model(clips[1:], sigma=0.05))
        torch.testing.assert_close(per_clip[:1], doubled(clips[:1]))
    assert model.noise_conditional and build_model("dust", layers=1).noise_conditional
    mlp = build_model("ut", layers=1, width=8, patch_size=2, stride=1, feed_forward="mlp")
    assert not mlp.noise_conditional
    with pytest.raises(ModelError, match="not noise-conditional"):
        mlp(clips, sigma=0.1)


def test_a_wrongly_shaped_sigma_is_named_by_its_shape_not_its_values():
    model = build_model("dust", layers=1, patch_size=4, stride=2)
    clips = torch.rand(2, 3, 1, 8, 8)
    with pytest.raises(ModelError, match=r"noise map of shape \(B, T, H, W\) = \(2, 3, 8, 8\); got a tensor of shape"):
        model(clips, sigma=torch.full((2, 3, 1, 8, 8), 0.1))  # a map with the channel axis left in
    with pytest.raises(ModelError, match=r"one per clip \(2\).*got \[0.1, 0.1, 0.1\]"):
        model(clips, sigma=torch.full((3,), 0.1))
    with pytest.raises(ModelError, match=r"got \[-0.1\]"):
        model(clips, sigma=-0.1)


@pytest.mark.parametrize("feed_forward", ["proximal", "mlp"])
def test_untrained_ut_is_the_identity_with_either_feed_forward_step(feed_forward):
    model = build_model("ut", layers=2, width=32, patch_size=4, stride=2, feed_forward=feed_forward)
    clip = torch.rand(1, 3, 1, 12, 10)
    with torch.no_grad():
        for estimate in model(clip, all_layers=True):
            torch.testing.assert_close(estimate, clip, rtol=0, atol=1e-5)


def test_registry_builds_both_models_with_small_defaults():
    assert set(MODEL_NAMES) == {"dust", "ut"}
    for name in MODEL_NAMES:
        model = build_model(name)
        assert model.name == name and model.config.channels == 1
        assert 1_000 <= count_parameters(model) <= 500_000
    assert build_model("dust", layers=3, code_size=128).config == DUSTConfig(layers=3, code_size=128)


@pytest.mark.parametrize(
    "name, options, message",
    [
        ("nope", {}, "unknown model"),
        ("dust", {"colour": 3}, "unknown option"),
        ("dust", {"channels": 2}, "channels"),
        ("ut", {"stride": 9}, "stride"),
        ("ut", {"width": 100, "heads": 3}, "heads"),
        ("dust", {"token_set": "spatial"}, "token_set"),
        ("dust", {"layers": 2.5}, "layers"),
    ],
)
def test_bad_options_are_clear_errors(name, options, message):
    with pytest.raises(ModelError, match=message):
        build_model(name, **options)


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_save_then_load_gives_identical_outputs(name, tmp_path):
    model = randomise(build_model(name, channels=3, layers=2, token_set="spatiotemporal", tied_qk=False)).eval()
    path = save_model(model, tmp_path / "sub" / "model.safetensors", extra_metadata={"trained_on": "gif"})
    assert [p.name for p in path.parent.iterdir()] == ["model.safetensors"]  # no temporary left behind
    loaded = load_model(path, expected_name=name)
    assert loaded.config == model.config and not loaded.training
    noisy = torch.rand(1, 3, 3, 19, 22)
    with torch.no_grad():
        for a, b in zip(model(noisy, all_layers=True), loaded(noisy, all_layers=True)):
            assert torch.equal(a, b)
    metadata = read_metadata(path)
    assert metadata["videodenoise_model"] == name and metadata["trained_on"] == "gif"


def test_wrong_weights_files_are_clear_errors(tmp_path):
    dust_path = save_model(build_model("dust", layers=2), tmp_path / "dust.safetensors")
    with pytest.raises(ModelError, match="holds a 'dust' model, not 'ut'"):
        load_model(dust_path, expected_name="ut")

    # the tensors of one model under the name/config of another
    wrong_model = tmp_path / "wrong_model.safetensors"
    tensors = {key: value.contiguous() for key, value in build_model("dust", layers=2).state_dict().items()}
    save_file(tensors, wrong_model, metadata={"videodenoise_model": "ut", "config": json.dumps({"layers": 2})})
    with pytest.raises(ModelError, match="does not fit a ut model"):
        load_model(wrong_model)

    # same model, different shapes: weights of code size 256 under a config saying 128
    wrong_shape = tmp_path / "wrong_shape.safetensors"
    save_file(
        tensors,
        wrong_shape,
        metadata={"videodenoise_model": "dust", "config": json.dumps({"layers": 2, "code_size": 128})},
    )
    with pytest.raises(ModelError, match="wrong shape"):
        load_model(wrong_shape)

    not_safetensors = tmp_path / "model.pt"
    not_safetensors.write_bytes(b"\x80\x04 certainly not safetensors")
    with pytest.raises(ModelError, match="not a safetensors"):
        load_model(not_safetensors)

    bare = tmp_path / "bare.safetensors"
    save_file({"x": torch.zeros(2)}, bare)
    with pytest.raises(ModelError, match="no videodenoise model metadata"):
        load_model(bare)

    with pytest.raises(ModelError, match="not found"):
        load_model(tmp_path / "missing.safetensors")

    unknown = tmp_path / "unknown.safetensors"
    save_file({"x": torch.zeros(2)}, unknown, metadata={"videodenoise_model": "resnet", "config": "{}"})
    with pytest.raises(ModelError, match="unknown model"):
        load_model(unknown)


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_a_few_adam_steps_lower_the_training_loss(name):
    torch.manual_seed(0)
    clean = panning_clip()[:, :3, :, :48, :48]
    noisy = add_noise(clean, seed=2)
    model = build_model(name, layers=3)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    losses = []
    for _ in range(15):
        loss = (model(noisy) - clean).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert losses[-1] < 0.9 * losses[0], losses


def test_attention_over_tokens_divided_by_their_scales_is_the_attention_divided():
    attention = randomise(TokenAttention(8, heads=2, head_dim=4, gain_init=0.7))
    tokens = torch.randn(2, 3, 4, 5, 8)
    scales = torch.rand(2, 3, 4, 5, 1) + 0.1
    with torch.no_grad():
        expected = attention(tokens) / scales
        scaled = attention(tokens / scales, token_scale=scales)
    torch.testing.assert_close(scaled, expected, rtol=1e-5, atol=1e-6)
    windowed = TokenAttention(8, token_set="spatiotemporal")
    with pytest.raises(ValueError, match="only the temporal token set"):
        windowed(tokens, token_scale=scales)


@pytest.mark.parametrize("token_set, offsets", [("temporal", 1), ("spatiotemporal", 9), ("nonlocal", 9)])
def test_recorded_weights_cover_every_token_attended_to(token_set, offsets):
    attention = TokenAttention(8, heads=2, head_dim=4, token_set=token_set, neighbourhood=3)
    attention.recording = True
    tokens = torch.randn(1, 4, 5, 3, 8)  # (B, rows, cols, T, dim)
    attention(tokens)
    attention(tokens)
    assert len(attention.recorded) == 2  # one per pass
    weights = attention.recorded[0]
    assert weights.shape == (1, 4, 5, 2, 3, offsets, 3)  # (B, rows, cols, heads, T, offsets, S)
    torch.testing.assert_close(weights.sum((-1, -2)), torch.ones(1, 4, 5, 2, 3))
    assert not weights.requires_grad
    if offsets > 1:  # the corner token's window reaches outside the grid: those places get no weight
        assert float(weights[0, 0, 0, :, :, 0].abs().max()) == 0.0

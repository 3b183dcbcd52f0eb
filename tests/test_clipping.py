"""Undoing the bias clipped noise leaves: the clipped mean against sampling, its inverse, and `clean`'s use of it."""

import dataclasses

import pytest
import torch

from videodenoise.denoise import clipping
from videodenoise.denoise.clipping import clipped_mean, unclip
from videodenoise.denoise.denoiser import Denoiser
from videodenoise.denoise.settings import PRESETS
from videodenoise.models.registry import build_model
from videodenoise.noise.noise_level_function import NoiseLevelFunction


def test_the_clipped_mean_is_what_clipped_noise_averages():
    x = torch.linspace(0, 1, 21, dtype=torch.float64)
    generator = torch.Generator().manual_seed(0)
    for sigma in (5 / 255, 25 / 255, 50 / 255):
        noisy = x[:, None] + sigma * torch.randn(21, 400_000, generator=generator, dtype=torch.float64)
        sampled = noisy.clamp(0, 1).mean(dim=1)
        assert (sampled - clipped_mean(x, sigma)).abs().max() < 5e-4
    # at σ = 25 a black pixel averages σ/√(2π), 9.97 levels, above 0; mid-grey is not moved
    assert abs(float(clipped_mean(torch.tensor(0.0, dtype=torch.float64), 25 / 255)) * 255 - 9.97) < 0.01
    assert abs(float(clipped_mean(torch.tensor(0.5, dtype=torch.float64), 25 / 255)) - 0.5) < 1e-12


def test_unclip_gives_back_the_value_whose_clipped_mean_was_seen():
    x = torch.rand(3, 40, 50, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    x[:, :5] = 0.0  # black and white rows: the ends, where the bias is largest
    x[:, -5:] = 1.0
    sigma = torch.tensor([4 / 255, 25 / 255, 60 / 255], dtype=torch.float64).view(3, 1, 1)  # one σ per channel
    # read off a table, interpolated: within a tenth of an 8-bit level (0.05 at most, here)
    assert (unclip(clipped_mean(x, sigma), sigma) - x).abs().max() < 0.1 / 255
    assert (unclip(clipped_mean(x, 0.1), 0.1) - x).abs().max() < 0.1 / 255  # one σ for every pixel


def test_unclip_leaves_noise_free_values_and_stays_in_range():
    frame = torch.tensor([-0.1, 0.0, 0.3, 1.0, 1.2])
    assert torch.equal(unclip(frame, 0.0), frame.clamp(0, 1))  # no noise, no clipping bias
    out = unclip(frame, 25 / 255)
    assert out.min() >= 0 and out.max() <= 1
    assert out[2] < 0.3  # below mid-grey clipping at 0 lifts the mean: the value that gave 0.3 lies under it


def test_a_noise_level_function_gives_each_pixel_and_channel_its_own_sigma():
    function = NoiseLevelFunction(knots=(0.1, 0.9), sigmas=((0.02, 0.02), (0.06, 0.06), (0.1, 0.1)), level=0.1)
    frame = torch.full((3, 8, 8), 0.05)
    noise = function(frame)
    out = unclip(frame, noise)
    assert out[0, 0, 0] > out[1, 0, 0] > out[2, 0, 0]  # the more noise, the more of 0.05 was clipping's lift
    assert torch.allclose(clipped_mean(out.double(), noise.double()).float(), frame, atol=1e-6)


@pytest.mark.parametrize("told", ["sigma", "function"])
def test_every_preset_undoes_the_bias_once_as_its_last_step(told):
    """`best`'s two passes, two scales and Wiener filter (and so every preset's shorter path): the output with the
    correction is the output without it, corrected once, with the σ told or each pixel's σ read from the function."""
    model = build_model("dust", channels=1, layers=2)
    settings = dataclasses.replace(PRESETS["best"], device="cpu", calibrate=False, tile=0)
    denoiser = Denoiser(model, settings, sigma_train=25 / 255)
    y, x = torch.meshgrid(torch.linspace(0, 1, 40), torch.linspace(0, 1, 48), indexing="ij")
    frames = torch.stack([torch.stack([(x + 0.02 * k) % 1, y, 1 - x]) for k in range(6)])  # black to white in each
    noisy = (frames + 25 / 255 * torch.randn(frames.shape, generator=torch.Generator().manual_seed(0))).clamp(0, 1)
    sigma = 25 / 255 if told == "sigma" else NoiseLevelFunction.constant(25 / 255, 3)
    corrected = denoiser.denoise_clip(noisy, sigma)
    without = Denoiser(model, dataclasses.replace(settings, unclip=False), sigma_train=25 / 255)
    plain = without.denoise_clip(noisy, sigma)
    expected = torch.stack([unclip(frame, sigma if told == "sigma" else sigma(frame)) for frame in plain])
    torch.testing.assert_close(corrected, expected, atol=1e-6, rtol=0)
    assert (corrected - plain).abs().max() > 5 / 255  # near black and white it moved the output by levels


def test_the_sigma_clipping_had_is_the_one_told_or_the_curve_read_from_the_frame():
    function = NoiseLevelFunction(knots=(0.1, 0.9), sigmas=((0.02, 0.04), (0.06, 0.06), (0.1, 0.2)), level=0.07)
    frame = torch.rand(3, 6, 6, generator=torch.Generator().manual_seed(2))
    assert clipping.clipped_sigma(0.1, frame) == 0.1
    torch.testing.assert_close(clipping.clipped_sigma(function, frame), function(frame))  # per pixel and channel

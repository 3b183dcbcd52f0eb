"""Estimating a video's noise level function (σ per intensity and channel), and its maps through fusion,
the Denoiser and `clean --sigma auto`."""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

import numpy as np
import pytest
import torch

from videodenoise.colour import OPPONENT
from videodenoise.datasets.motion import MotionLimits, camera_motion_clip, load_photo
from videodenoise.denoise.denoiser import Denoiser
from videodenoise.denoise.fusion import MotionFusion
from videodenoise.denoise.settings import DenoiseSettings, FusionSettings
from videodenoise.errors import DenoiseError
from videodenoise.io.video import open_video, read_video
from videodenoise.io.writers import write_video
from videodenoise.models.registry import build_model, save_model
from videodenoise.noise import curve, estimation
from videodenoise.noise.estimation import estimate_clip_noise, estimate_clip_sigma, estimate_video_noise
from videodenoise.noise.grain import GRAIN_SCALE, MAX_GRAIN
from videodenoise.noise.noise_level_function import WHITE_CARRIED, WHITE_GRAIN, NoiseLevelFunction
from videodenoise.noise.single_frame import BLOCK, QUANTILE, block_statistics, estimate_noise_sigma, flat_sigma

from helpers import run_cli

# Poisson-Gaussian per channel: variance a·x + b in the pixel domain (shot noise and read noise)
SHOT, READ = (0.01, 0.006, 0.003), (0.0004, 0.0002, 0.0008)
INTENSITIES = (0.3, 0.45, 0.6, 0.75)  # inside every channel's range of the clips below


def texture(height: int, width: int, seed: int = 0) -> torch.Tensor:
    """A (1, 1, H, W) image with structure at several scales, in [0.1, 0.9]."""
    generator = torch.Generator().manual_seed(seed)
    coarse = torch.rand(1, 1, height // 8, width // 8, generator=generator)
    fine = torch.rand(1, 1, height // 2, width // 2, generator=generator)
    image = 0.7 * torch.nn.functional.interpolate(coarse, (height, width), mode="bicubic", align_corners=False)
    image = image + 0.3 * torch.nn.functional.interpolate(fine, (height, width), mode="bilinear", align_corners=False)
    return image.clamp(0, 1) * 0.8 + 0.1


def clip_of(step: float, frames: int = 8, channels: int = 3, height: int = 96, width: int = 128) -> torch.Tensor:
    """A clean (T, C, H, W) clip: a texture panned `step` pixels a frame (sub-pixel: resampled), or still.
    Its channels are scaled differently so that each has its own intensities."""
    wide = texture(height + 16, width + 16 + int(abs(step) * frames) + 2)
    rows, cols = wide.shape[-2:]
    out = []
    for t in range(frames):
        y, x = torch.meshgrid(torch.arange(8.0, 8 + height), torch.arange(8.0, 8 + width) + step * t, indexing="ij")
        grid = torch.stack([x / (cols - 1) * 2 - 1, y / (rows - 1) * 2 - 1], dim=-1)[None]
        out.append(torch.nn.functional.grid_sample(wide, grid, mode="bicubic", align_corners=True)[0])
    clip = torch.stack(out).expand(-1, channels, -1, -1)
    if channels == 3:
        clip = clip * torch.tensor([1.0, 0.85, 0.7]).view(1, 3, 1, 1) + torch.tensor([0.0, 0.1, 0.2]).view(1, 3, 1, 1)
    return clip.clamp(0, 1).contiguous()


def poisson_gaussian(clean: torch.Tensor, seed: int = 1) -> torch.Tensor:
    channels = clean.shape[1]
    a, b = (torch.tensor(v[:channels]).view(1, -1, 1, 1) for v in (SHOT, READ))
    return clean + (a * clean + b).sqrt() * torch.randn(clean.shape, generator=torch.Generator().manual_seed(seed))


def gaussian(clean: torch.Tensor, sigma: float, seed: int = 1) -> torch.Tensor:
    return clean + sigma * torch.randn(clean.shape, generator=torch.Generator().manual_seed(seed))


def to_8_bits(clip: torch.Tensor) -> torch.Tensor:
    return clip.clamp(0, 1).mul(255).round().div(255)


def truth(channels: int) -> np.ndarray:
    x = np.array(INTENSITIES)
    return np.sqrt(np.array(SHOT[:channels])[:, None] * x + np.array(READ[:channels])[:, None])


# ---------------------------------------------------------------------------------------- the estimator


@pytest.mark.parametrize("step", [0.0, 0.37], ids=["static", "panning"])
@pytest.mark.parametrize("channels", [1, 3])
def test_poisson_gaussian_parameters_are_recovered_per_channel(step, channels):
    noise = estimate_clip_noise(poisson_gaussian(clip_of(step, channels=channels)))
    # runs of three frames spread over the eight: the last one holds a pair one frame apart only
    assert noise.source == "motion-aligned frame differences (7 frame pairs, 6 two frames apart)"
    assert noise.channels == channels
    np.testing.assert_allclose(noise.at(INTENSITIES), truth(channels), rtol=0.15)
    # and the curve rises with the shot noise: σ at 0.75 well above σ at 0.3 in the noisiest channel
    assert noise.at(0.75)[0] > 1.3 * noise.at(0.3)[0]


def test_beyond_the_bins_read_the_curve_follows_their_trend(monkeypatch):
    """Shot noise grows with intensity; the clip holds few pixels under 0.25 or over 0.75, so those bins are not
    read. Continued, the curve comes within 15 % of the noise at the top of the range; flat, 10 % or more under."""
    noisy = poisson_gaussian(clip_of(0.37, channels=1))
    continued = estimate_clip_noise(noisy)
    monkeypatch.setattr(curve, "EXTRAPOLATION_LIMIT", 1.0)
    flat = estimate_clip_noise(noisy)
    assert flat.read_range == continued.read_range and flat.read_range[1] <= 0.75
    top, (low, high) = curve.CENTRES[-1], flat.read_range
    true = math.sqrt(SHOT[0] * top + READ[0])
    assert flat.at(top)[0] < 0.9 * true and continued.at(top)[0] == pytest.approx(true, rel=0.15)
    inside = [x for x in curve.CENTRES if low + 1 / curve.BINS < x < high - 1 / curve.BINS]
    assert inside and np.allclose(continued.at(inside), flat.at(inside))  # between the ends read, the same curve


@pytest.mark.parametrize("channels", [1, 3])
@pytest.mark.parametrize("sigma", [5 / 255, 25 / 255])
def test_gaussian_noise_gives_a_flat_curve_at_its_sigma(channels, sigma):
    noisy = to_8_bits(gaussian(clip_of(0.6, channels=channels, height=144, width=192), sigma))
    noise = estimate_clip_noise(noisy)
    effective = np.sqrt(sigma**2 + 1 / 12 / 255**2)  # rounding to 8 bits adds a uniform step's variance
    low, high = noise.read_range
    read = (curve.CENTRES > low) & (curve.CENTRES < high)
    np.testing.assert_allclose(np.array(noise.sigmas)[:, read], effective, rtol=0.05)
    # beyond the bins read, their fitted trend continues: the slope's own noise adds a few %
    np.testing.assert_allclose(np.array(noise.sigmas), effective, rtol=0.08)
    assert noise.level == pytest.approx(effective, rel=0.05)
    assert estimate_clip_sigma(noisy) == noise.level  # one σ: the function's level
    assert noise.brightness == pytest.approx(float(noisy.mean()), abs=0.005)


def test_the_function_says_how_bright_the_frames_it_was_measured_on_are():
    clean = clip_of(0.6, channels=3, height=144, width=192)
    for scale in (1.0, 0.12):  # as taken, and dark (night footage)
        noisy = to_8_bits(gaussian(clean * scale, 5 / 255))
        assert estimate_clip_noise(noisy).brightness == pytest.approx(float(noisy.mean()), abs=0.005)
    assert NoiseLevelFunction.constant(0.1).brightness is None  # told, not measured


def test_the_summary_gives_figures_only_for_the_tones_the_video_has_enough_of():
    clean = clip_of(0.6, channels=3, height=144, width=192)  # intensities 0.1-0.9, most of them 0.25-0.75
    taken = estimate_clip_noise(to_8_bits(gaussian(clean, 5 / 255)))
    assert taken.read_range == (0.25, 0.75)
    assert taken.summary().startswith("σ ≈ 5.1 in mid-tones (0-255, mean over channels); shadows and highlights not")
    everywhere = dataclasses.replace(taken, read_range=(0.0, 1.0))
    assert "in shadows, " in everywhere.summary() and "in highlights (" in everywhere.summary()
    assert "not read" not in everywhere.summary()
    dark = estimate_clip_noise(to_8_bits(gaussian(clean * 0.12, 5 / 255)))  # night footage: all under 0.125
    assert dark.read_range == (0.0, 0.125)
    summary = dark.summary()
    assert summary.startswith("σ ≈ ") and " in shadows (0-255, mean over channels)" in summary
    assert "in mid-tones (" not in summary and "in highlights (" not in summary
    assert "; mid-tones and highlights not read (too few pixels, or too many clipped): σ there follows" in summary
    # a video all in one band between the tones: its σ is given at that band, and every tone is named as carried
    band = NoiseLevelFunction((0.3125,), ((12 / 255,),), 12 / 255, read_range=(0.25, 0.375))
    assert band.summary().startswith("σ ≈ 12.0 at levels 64-96 (0-255); shadows, mid-tones and highlights not read")
    assert "not read" not in NoiseLevelFunction.constant(12 / 255).summary()  # given, not estimated: nothing unread


@pytest.mark.parametrize("span", [(0.5, 0.5), (-0.1, 0.5), (0.2, 1.5)])
def test_a_bad_read_range_is_refused(span):
    with pytest.raises(DenoiseError, match="read range"):
        NoiseLevelFunction((0.5,), ((0.04,),), 0.04, read_range=span)


def test_clipped_heavy_noise_still_reads_its_sigma_not_the_clipped_remainder():
    """Noise of σ = 50 clipped to [0, 1]: the bins where clipping cuts the noise off are read off the
    least clipped ones, so the curve stays near σ instead of falling towards the ends."""
    noisy = to_8_bits(gaussian(clip_of(0.6, channels=1), 50 / 255))
    noise = estimate_clip_noise(noisy)
    np.testing.assert_allclose(np.array(noise.sigmas), 50 / 255, rtol=0.08)


def test_frames_that_repeat_their_noise_fall_back_on_single_frames():
    """A video whose every other frame repeats the one before: the frame differences of such pairs are
    zero and are left out; the flat patches and finest band of single frames say σ."""
    noisy = to_8_bits(gaussian(clip_of(0.0, frames=5, channels=1), 10 / 255))
    repeated = noisy[[0, 0, 1, 1, 2, 2, 3, 3, 4, 4]]
    noise = estimate_clip_noise(repeated, pairs=5)  # pairs (0, 1), (2, 3), ...: all repeats
    assert noise.source.startswith("flat patches of single frames")
    assert noise.level == pytest.approx(10 / 255, rel=0.25)
    one = estimate_clip_noise(noisy[:1])
    assert one.source == "flat patches of single frames (1 frame)" and one.level == pytest.approx(10 / 255, rel=0.25)


def test_codec_smoothed_noise_reads_higher_than_the_finest_wavelet_band():
    """Noise a codec has smoothed (here: blurred white noise, correlated over a few pixels) keeps most
    of its pixel-level σ, which the frame differences see and the finest wavelet band does not."""
    clean = clip_of(0.0, channels=1)
    white = torch.randn(clean.shape, generator=torch.Generator().manual_seed(3))
    smooth = torch.nn.functional.avg_pool2d(white, 3, stride=1, padding=1, count_include_pad=False)
    smooth = smooth * (15 / 255) / smooth.std()
    noisy = clean + smooth
    noise = estimate_clip_noise(noisy)
    assert noise.level == pytest.approx(15 / 255, rel=0.15)
    assert estimate_noise_sigma(noisy[:5]) < 0.6 * noise.level


def correlated(shape: tuple[int, ...], sigma: float, seed: int = 3) -> torch.Tensor:
    """Gaussian noise of per-pixel σ correlated over a 3×3 box (as a codec's residue is, roughly)."""
    white = torch.randn(shape, generator=torch.Generator().manual_seed(seed))
    smooth = torch.nn.functional.avg_pool2d(white, 3, stride=1, padding=1, count_include_pad=False)
    return smooth * sigma / smooth.std()


def smooth_clip(step: float, channels: int) -> torch.Tensor:
    """clip_of's texture at a tenth of its contrast: a scene flat enough for whole 4×4 blocks of noise."""
    return 0.5 + 0.1 * (clip_of(step, channels=channels, height=144, width=192) - 0.5)


def block_grain(noise: torch.Tensor, side: int = GRAIN_SCALE) -> float:
    """What the grain stands for, read off the noise itself: side × σ of its side×side block means over
    its per-pixel σ."""
    return float(side * torch.nn.functional.avg_pool2d(noise, side).std() / noise.std())


@pytest.mark.parametrize("step", [0.0, 0.6], ids=["static", "panning"])
def test_the_grain_of_correlated_noise_is_its_block_means_sigma_over_its_pixel_sigma(step):
    clean = smooth_clip(step, channels=1)
    noise = correlated(clean.shape, 10 / 255)
    expected = block_grain(noise)
    assert expected > 2  # a 3×3 box makes 4×4 block means far noisier than white noise's
    function = estimate_clip_noise(clean + noise)
    # within 15 %: under a sub-pixel flow the pixel σ of correlated noise reads high (see estimation.py)
    assert len(function.grain) == 1 and function.grain[0] == pytest.approx(expected, rel=0.15)
    assert function.level == pytest.approx(10 / 255, rel=0.15)  # the map stays the pixel-level σ
    assert function.told_level == pytest.approx(function.level * function.grain[0])
    assert "spatially correlated" in function.summary() and function.codec_shaped


@pytest.mark.parametrize("channels", [1, 3])
def test_white_noise_has_no_grain(channels):
    noisy = to_8_bits(gaussian(clip_of(0.6, channels=channels, height=144, width=192), 25 / 255))
    function = estimate_clip_noise(noisy)
    assert all(g == 1 for g in function.grain) and function.told_level == function.level
    assert "correlated" not in function.summary() and not function.codec_shaped


def test_noise_looks_like_a_codecs_above_a_grain_or_a_carried_share_white_noise_never_shows():
    white = NoiseLevelFunction.constant(0.05, channels=3)
    assert not white.codec_shaped and not dataclasses.replace(white, grain=(WHITE_GRAIN, 9.0, 9.0)).codec_shaped
    assert dataclasses.replace(white, grain=(WHITE_GRAIN + 0.01, 1.0, 1.0)).codec_shaped  # luminance's grain
    assert not dataclasses.replace(white, carried=WHITE_CARRIED).codec_shaped
    assert dataclasses.replace(white, carried=WHITE_CARRIED + 0.01).codec_shaped


def test_an_exposure_change_between_frames_is_not_read_as_noise_or_grain():
    """Auto exposure: each frame 5 % brighter than the one before, which leaves d = gain × scene, on a
    scene that spans most of the range."""
    ramp = torch.linspace(0.2, 0.75, 192).view(1, 1, 1, -1).expand(8, 1, 144, 192)
    clean = (ramp + smooth_clip(0.6, channels=1) - 0.5) * (1.05 ** torch.arange(8.0)).view(-1, 1, 1, 1)
    function = estimate_clip_noise(to_8_bits(gaussian(clean, 6 / 255)))
    effective = np.sqrt((6 / 255) ** 2 + 1 / 12 / 255**2)
    assert function.level == pytest.approx(effective, rel=0.05)
    assert function.grain in ((), (1.0,))


def test_noise_shared_by_r_g_and_b_is_luminance_grain():
    """The same noise in R, G and B (a camera's colour matrix taken to the limit): all of it is in the
    luminance channel, √3 times the σ that independent channels would put there, none in the colour
    differences, which the grain reads as its lower bound."""
    clean = smooth_clip(0.6, channels=3)
    shared = gaussian(torch.zeros(clean.shape[0], 1, *clean.shape[2:]), 8 / 255)
    function = estimate_clip_noise(clean + shared)
    assert function.grain[0] == pytest.approx(3**0.5, rel=0.1)
    assert function.grain[1:] == (1 / MAX_GRAIN, 1 / MAX_GRAIN)


def test_a_grain_multiplies_what_the_model_is_told_in_each_opponent_channel():
    denoiser = Denoiser(noise_conditional_dust(), DenoiseSettings(device="cpu"), sigma_range=(0.0, 0.2))
    noise_map = torch.rand(4, 3, 8, 8) * 0.1
    plain = denoiser._batch_noise(noise_map, 3, 3)
    grained = denoiser._batch_noise(noise_map, 3, 3, (2.0, 0.5, 1.0))
    assert torch.allclose(grained, plain * torch.tensor([2.0, 0.5, 1.0]).view(3, 1, 1, 1))
    grey = denoiser._batch_noise(noise_map[:, :1], 1, 1, (1.5,))
    assert torch.allclose(grey, noise_map[:, 0].unsqueeze(0) * 1.5)
    clip = torch.rand(5, 3, 24, 24)
    function = NoiseLevelFunction((0.5,), ((0.04,),) * 3, 0.04)
    coarse = NoiseLevelFunction((0.5,), ((0.04,),) * 3, 0.04, grain=(2.0, 1.0, 1.0))
    assert not torch.allclose(denoiser.denoise_clip(clip, function), denoiser.denoise_clip(clip, coarse))


def test_fusion_in_the_denoiser_is_told_the_luminance_grain_and_the_carried_share(monkeypatch):
    settings = DenoiseSettings(device="cpu", fusion=FusionSettings())
    denoiser = Denoiser(noise_conditional_dust(), settings, sigma_range=(0.0, 0.2))
    told = []
    stream = MotionFusion.stream
    monkeypatch.setattr(
        MotionFusion, "stream", lambda self, *args, **kwargs: told.append(args[2:]) or stream(self, *args, **kwargs)
    )
    clip = torch.rand(4, 3, 24, 24)
    denoiser.denoise_clip(clip, NoiseLevelFunction((0.5,), ((0.04,),) * 3, 0.04, grain=(2.0, 0.5, 0.5), carried=0.3))
    denoiser.denoise_clip(clip, NoiseLevelFunction((0.5,), ((0.04,),) * 3, 0.04))
    denoiser.denoise_clip(clip, 0.04)
    assert told == [(2.0, 0.3), (1.0, 0.0), ()]  # white noise new in every frame: 1 and 0; one σ: neither


@pytest.mark.parametrize("grain", [(1.0,), (2.0, 0.0, 1.0), (float("nan"),) * 3])
def test_a_bad_grain_is_refused(grain):
    with pytest.raises(DenoiseError, match="grain"):
        NoiseLevelFunction((0.5,), ((0.04,),) * 3, 0.04, grain=grain)


@pytest.mark.parametrize("carried", [-0.1, 1.0, float("nan")])
def test_a_bad_carried_share_is_refused(carried):
    with pytest.raises(DenoiseError, match="carried"):
        NoiseLevelFunction((0.5,), ((0.04,),), 0.04, carried=carried)


@pytest.mark.parametrize("brightness", [-0.1, 1.5, float("nan")])
def test_a_bad_brightness_is_refused(brightness):
    with pytest.raises(DenoiseError, match="brightness"):
        NoiseLevelFunction((0.5,), ((0.04,),), 0.04, brightness=brightness)


def test_a_function_scaled_keeps_everything_but_its_curve_and_level_times_the_factor():
    function = NoiseLevelFunction((0.2, 0.8), ((0.02, 0.9), (0.03, 0.5), (0.01, 0.04)), 0.6, "pairs", (1.5, 1, 1))
    lifted = function.scaled(1.2)
    np.testing.assert_allclose(lifted.sigmas, [[0.024, 1.0], [0.036, 0.6], [0.012, 0.048]])  # 0.9 × 1.2 held at 1
    assert lifted.level == pytest.approx(0.72) and function.scaled(2).level == 1.0
    assert (lifted.knots, lifted.source, lifted.grain) == (function.knots, function.source, function.grain)


def test_tiny_and_noise_free_clips():
    moving = estimate_clip_noise(clip_of(0.5, frames=3, channels=3))
    # clean and unquantised: nearly nothing (what bilinear resampling cannot follow of a bicubic pan)
    assert moving.level < 1.5 / 255 and moving.source.startswith("motion-aligned")
    # identical frames could as well be one noisy frame repeated: single frames decide, and the finest
    # band of a smooth texture says little
    assert estimate_clip_noise(clip_of(0.0, frames=3, channels=3)).level < 2 / 255
    tiny = estimate_clip_noise(torch.rand(3, 1, 1, 1))  # too small for pairs and patches
    assert tiny.channels == 1 and tiny.level >= 0
    assert estimate_clip_noise(torch.rand(2, 3, 10, 12)).channels == 3


def test_a_video_file_is_estimated_from_pairs_spread_over_it(tmp_path):
    noisy = to_8_bits(poisson_gaussian(clip_of(0.5, frames=12, channels=3)))
    source = write_video(tmp_path / "in.mkv", noisy, fps=Fraction(25), codec="ffv1")
    noise = estimate_video_noise(open_video(source), pairs=4)
    # the last run starts at frame 10 of 12: a pair one frame apart only
    assert noise.source == "motion-aligned frame differences (4 frame pairs, 3 two frames apart)"
    np.testing.assert_allclose(noise.at(INTENSITIES), truth(3), rtol=0.15)


def test_runs_measured_in_parallel_give_the_function_measured_one_at_a_time(monkeypatch):
    # a pan with carried noise: every part of the estimate (curve, grain, carried share, coarse) comes from the runs
    noisy = carried_noise(clip_of(0.5, frames=12, channels=3), 0.05, 0.4)
    monkeypatch.setattr(estimation, "WORKERS", 1)
    serial = estimate_clip_noise(noisy, pairs=6, coarse=True)
    for workers in (2, 4):
        monkeypatch.setattr(estimation, "WORKERS", workers)
        assert estimate_clip_noise(noisy, pairs=6, coarse=True) == serial
    assert serial.carried > 0 and serial.coarse is not None


def test_what_the_threads_freed_is_handed_back_once_every_run_is_measured(monkeypatch):
    # the worker threads' malloc arenas keep what they freed, out of the denoising pass's reach (on 1920×1080 0.8 GiB)
    noisy = gaussian(clip_of(0.5, frames=12, channels=3), 0.05)
    expected = estimate_clip_noise(noisy, pairs=6, coarse=True)
    measured, released = [], []
    measure_run = estimation._measure_run
    monkeypatch.setattr(estimation, "_measure_run", lambda *args: measured.append(1) or measure_run(*args))
    monkeypatch.setattr(estimation, "_release_freed_memory", lambda: released.append(len(measured)))
    assert estimate_clip_noise(noisy, pairs=6, coarse=True) == expected
    assert released == [6, 12]  # after the 6 runs at full size, and after the same 6 halved
    monkeypatch.undo()
    estimation._release_freed_memory()  # and with this machine's C library it runs (or does nothing) without an error


def carried_noise(clean: torch.Tensor, sigma: float, carried: float, seed: int = 5) -> torch.Tensor:
    """Noise of σ that each frame carries over from the one before, as a codec's skipped blocks do:
    n_t = c·n_(t−1) + √(1 − c²)·fresh, so frames k apart share c^k of it."""
    generator = torch.Generator().manual_seed(seed)
    noise = [sigma * torch.randn(clean.shape[1:], generator=generator)]
    for _ in range(1, len(clean)):
        fresh = sigma * torch.randn(clean.shape[1:], generator=generator)
        noise.append(carried * noise[-1] + math.sqrt(1 - carried**2) * fresh)
    return clean + torch.stack(noise)


@pytest.mark.parametrize("carried", [0.0, 0.4, 0.7])
def test_noise_carried_over_from_frame_to_frame_is_measured_and_counted_in_the_map(monkeypatch, tmp_path, carried):
    """Frames one apart share c of their noise, two apart c²: their differences read σ·√(1 − c) and
    σ·√(1 − c²), from which the estimator finds c and σ, in a clip and in a video file alike; the map
    is then lifted CARRIED_LIFT − ½ further (½: σ itself)."""
    monkeypatch.setattr(estimation, "MAX_CARRIED", 0.9)
    sigma = 12 / 255
    noisy = carried_noise(clip_of(0.0, frames=9, channels=1), sigma, carried)
    source = write_video(tmp_path / "in.mkv", to_8_bits(noisy).expand(-1, 3, -1, -1), fps=Fraction(25), codec="ffv1")
    for function in (estimate_clip_noise(noisy), estimate_video_noise(open_video(source))):
        assert function.carried == pytest.approx(carried, abs=0.1)
        lift = (1 - function.carried) ** (0.5 - estimation.CARRIED_LIFT)
        assert function.level == pytest.approx(sigma * lift, rel=0.1)
    monkeypatch.setattr(estimation, "CARRIED_LIFT", 0.5)
    assert estimate_clip_noise(noisy).level == pytest.approx(sigma, rel=0.1)
    assert "carried over" in function.summary() if carried else "carried" not in function.summary()
    # two frames: only one apart, so nothing to tell c by; σ reads σ·√(1 − c)
    two = estimate_clip_noise(carried_noise(clip_of(0.0, frames=2, channels=1, height=192, width=256), sigma, carried))
    assert two.carried == 0 and two.level == pytest.approx(sigma * math.sqrt(1 - carried), rel=0.1)
    monkeypatch.setattr(estimation, "MAX_CARRIED", 0.0)  # never carried: the map of frames one apart
    assert estimate_clip_noise(noisy).level == pytest.approx(sigma * math.sqrt(1 - carried), rel=0.1)


def test_the_carried_share_is_read_off_the_bins_read_whatever_the_trend_beyond_them(monkeypatch):
    """A still clip, 60 % black (too clipped to read) and a ramp whose noise falls with intensity, a share of 0.4
    carried from frame to frame. The map follows the bins' trend into the black; the carried share is read off the
    curves carried flat there, so it is the same at any limit (each curve's own trend would part the two levels)."""
    generator, carried = torch.Generator().manual_seed(3), 0.4
    clean = torch.zeros(1, 192, 256)
    clean[..., 154:] = torch.linspace(0.15, 0.5, 102)
    sigma = torch.where(clean > 0, 0.012 + 0.05 * (0.5 - clean), torch.tensor(0.02))
    noise = [torch.randn(clean.shape, generator=generator)]
    for _ in range(8):
        noise.append(carried * noise[-1] + math.sqrt(1 - carried**2) * torch.randn(clean.shape, generator=generator))
    noisy = (clean + sigma * torch.stack(noise)).clamp(0, 1)
    functions = {}
    for limit in (1.0, 1.5, 4.0):
        monkeypatch.setattr(curve, "EXTRAPOLATION_LIMIT", limit)
        functions[limit] = estimate_clip_noise(noisy)
    assert functions[1.0].read_range[0] > 0  # the black bin is not read
    assert functions[1.0].carried == pytest.approx(carried, abs=0.1)
    assert functions[1.5].carried == functions[4.0].carried == functions[1.0].carried
    assert functions[1.5].level > 1.1 * functions[1.0].level  # the map does follow the trend


def test_noise_free_texture_is_not_read_as_carried_noise(monkeypatch):
    """A clean pan, rounded to 8 bits: frames two apart leave a little more of the scene in their
    difference than frames one apart, far under an 8-bit step of variance, which is not carried noise."""
    monkeypatch.setattr(estimation, "MAX_CARRIED", 0.9)
    for step in (1.3, 4.1):  # without MIN_CARRIED_VARIANCE: c = 0.32 and 0.9
        function = estimate_clip_noise(to_8_bits(clip_of(step, frames=6, channels=3, height=144, width=192)))
        assert function.carried == 0 and function.level < 1 / 255


@pytest.mark.parametrize("pan, size", [(8.0, (144, 176)), (16.0, (240, 320))])
def test_white_noise_on_a_fast_pan_is_not_read_as_carried(pan, size):
    """A pan fast for the frame fails the flow between frames two apart first: their difference keeps some scene and
    read as a carried share (0.5 on both clips here: white noise's σ read twice over). White noise leaves a single
    frame's finest band all of it, which a carried share would have taken from the pairs: no share is read."""
    photo = load_photo("skimage:gravel")
    limits = dataclasses.replace(MotionLimits(), pan=pan)
    noisy = to_8_bits(gaussian(camera_motion_clip(photo, 5, size, seed=7, limits=limits), 25 / 255))
    function = estimate_clip_noise(noisy)
    assert function.carried == 0 and function.level == pytest.approx(25 / 255, rel=0.05)


def test_fusion_leaves_the_noise_frames_share_and_its_map_says_so():
    """A still scene whose frames carry c = 0.6 of their noise over: the average of five frames keeps the
    shared part, and the map fusion is told c with matches what is left; told c = 0 it promises less."""
    sigma, carried = 10 / 255, 0.6
    clean = clip_of(0.0, frames=5, channels=1, height=128, width=160)
    noisy = carried_noise(clean, sigma, carried)
    inside = (slice(None), slice(None), slice(16, -16), slice(16, -16))
    fused, noise_map = MotionFusion().fuse_clip(noisy, sigma, carried=carried)
    left = float((fused - clean)[2][inside[1:]].std())
    assert float(noise_map[2][inside[2:]].mean()) == pytest.approx(left, rel=0.15)
    _, independent_map = MotionFusion().fuse_clip(noisy, sigma)
    assert float(independent_map[2][inside[2:]].mean()) < 0.8 * left
    with pytest.raises(DenoiseError, match="carried"):
        MotionFusion().fuse_clip(noisy, sigma, carried=1.0)


# ------------------------------------------------------------------------------ the noise level function


def test_the_function_reads_each_pixel_at_its_neighbourhood_intensity():
    function = NoiseLevelFunction((0.2, 0.8), ((0.02, 0.08), (0.01, 0.01), (0.0, 0.04)), level=0.04)
    np.testing.assert_allclose(function.at([0.0, 0.5, 1.0]), [[0.02, 0.05, 0.08], [0.01, 0.01, 0.01], [0, 0.02, 0.04]])
    frame = torch.full((3, 20, 30), 0.5)
    frame[:, :, 15:] = 0.8
    frame[0, 5, 5] = 1.0  # one bright pixel moves its neighbourhood's mean a little, not its own σ to 1
    noise_map = function(frame)
    assert noise_map.shape == (3, 20, 30) and noise_map.dtype == torch.float32
    assert float(noise_map[0, 10, 3]) == pytest.approx(0.05) and float(noise_map[0, 10, 27]) == pytest.approx(0.08)
    assert float(noise_map[0, 5, 5]) == pytest.approx(0.05 + 0.1 * 0.5 / 25, abs=1e-6)
    assert "0-255, mean over channels" in function.summary()
    grey = NoiseLevelFunction.constant(0.1)
    assert torch.allclose(grey(frame), torch.full((3, 20, 30), 0.1))  # one row serves every channel
    with pytest.raises(DenoiseError, match="cannot describe"):
        function(torch.rand(1, 8, 8))
    for bad in (dict(knots=(0.5, 0.2)), dict(sigmas=((0.1,),)), dict(sigmas=((-0.1, 0.1),)), dict(level=float("nan"))):
        with pytest.raises(DenoiseError):
            NoiseLevelFunction(**{**dict(knots=(0.2, 0.8), sigmas=((0.1, 0.2),), level=0.1), **bad})
    with pytest.raises(DenoiseError, match="0-255"):
        NoiseLevelFunction((0.5,), ((25.0,),), level=25.0)


# --------------------------------------------------------------------------------- maps through fusion


def test_fusion_takes_a_map_or_a_function_and_leaves_a_map_of_the_same_shape():
    clean = clip_of(0.0, frames=5, channels=3, height=48, width=64)
    noisy = poisson_gaussian(clean)
    function = estimate_clip_noise(noisy)
    fused, noise_map = MotionFusion().fuse_clip(noisy, function)
    assert fused.shape == noisy.shape and noise_map.shape == (5, 3, 48, 64)
    # a static clip: five frames agree, σ/√5 left of each pixel's own σ
    told = torch.stack([function(frame) for frame in noisy])
    ratio = (noise_map / told)[2, :, 8:-8, 8:-8]
    assert float(ratio.mean()) == pytest.approx(1 / np.sqrt(5), rel=0.1)
    error = (fused - clean)[2, :, 8:-8, 8:-8].square().mean().sqrt()
    assert float(error) < 0.6 * float((noisy - clean)[2, :, 8:-8, 8:-8].square().mean().sqrt())
    # an (H, W) map: the same σ in every channel, a map (H, W) back; a constant map is one σ
    constant, constant_map = MotionFusion().fuse_clip(noisy, torch.full((48, 64), 0.05))
    scalar, scalar_map = MotionFusion().fuse_clip(noisy, 0.05)
    assert constant_map.shape == (5, 48, 64)
    assert torch.allclose(constant, scalar, atol=1e-6) and torch.allclose(constant_map, scalar_map, atol=1e-6)
    # a function is read off the frame fusion holds: the same map as calling it on each frame
    called, called_map = MotionFusion().fuse_clip(noisy, lambda frame: function(frame))
    assert torch.equal(fused, called) and torch.equal(noise_map, called_map)
    for bad in (torch.full((48, 63), 0.05), torch.full((48, 64), -0.1), torch.full((2, 48, 64), 0.1)):
        with pytest.raises(DenoiseError, match="noise map"):
            MotionFusion().fuse_clip(noisy, bad)


# ---------------------------------------------------------------------------------- maps in the Denoiser


def noise_conditional_dust() -> torch.nn.Module:
    torch.manual_seed(0)
    return build_model("dust", layers=2, patch_size=4, stride=2)


@pytest.mark.parametrize("fusion", [FusionSettings(radius=1), None], ids=["fused", "model-alone"])
def test_streaming_and_tiling_equal_the_whole_clip_with_a_signal_dependent_map(fusion):
    noisy = poisson_gaussian(clip_of(0.5, frames=4, channels=3, height=48, width=80)).clamp(0, 1)
    function = estimate_clip_noise(noisy)
    model = noise_conditional_dust()
    whole = Denoiser(model, DenoiseSettings(device="cpu", tile=0, fusion=fusion), sigma_range=(0.0, 0.2))
    expected = whole.denoise_clip(noisy, function)
    assert expected.shape == noisy.shape
    streamed = torch.stack(list(whole.denoise_frames(iter(list(noisy)), function)))
    assert torch.equal(streamed, expected)
    tiled = Denoiser(
        model, DenoiseSettings(device="cpu", tile=48, overlap=24, fusion=fusion), sigma_range=(0.0, 0.2)
    ).denoise_clip(noisy, function)
    assert torch.allclose(tiled, expected, atol=1e-5)
    # the map matters: the same clip told one σ (the level) comes out otherwise
    assert not torch.allclose(whole.denoise_clip(noisy, function.level), expected, atol=1e-4)
    assert torch.equal(whole.denoise_clip(noisy, "auto"), expected)
    # codec noise: a grain and a carried share change what fusion and the model are told, never the tiling
    coded = dataclasses.replace(function, grain=(1.8, 0.5, 0.5), carried=0.4)
    coded_whole = whole.denoise_clip(noisy, coded)
    assert torch.equal(torch.stack(list(whole.denoise_frames(iter(list(noisy)), coded))), coded_whole)
    tiled = Denoiser(
        model, DenoiseSettings(device="cpu", tile=48, overlap=24, fusion=fusion), sigma_range=(0.0, 0.2)
    ).denoise_clip(noisy, coded)
    assert torch.allclose(tiled, coded_whole, atol=1e-5) and not torch.allclose(coded_whole, expected, atol=1e-4)


def test_per_channel_maps_go_into_opponent_colours_by_their_variances():
    denoiser = Denoiser(noise_conditional_dust(), DenoiseSettings(device="cpu"), sigma_range=(0.0, 0.2))
    noise_map = torch.rand(4, 3, 8, 8) * 0.1
    opponent = denoiser._batch_noise(noise_map, 3, 3)
    expected = torch.einsum("oc,tchw->othw", OPPONENT.square(), noise_map.square()).sqrt()
    assert opponent.shape == (3, 4, 8, 8) and torch.allclose(opponent, expected)
    same = torch.full((4, 3, 8, 8), 0.07)  # equal σ in R, G and B: the same σ in every opponent channel
    assert torch.allclose(denoiser._batch_noise(same, 3, 3), torch.full((3, 4, 8, 8), 0.07))
    out = denoiser.denoise_window(torch.rand(4, 3, 8, 8), 0.05, noise_map=noise_map)
    assert out.shape == (4, 3, 8, 8)


def test_the_estimate_is_described_in_one_line():
    denoiser = Denoiser(
        noise_conditional_dust(), DenoiseSettings(device="cpu", fusion=FusionSettings()), sigma_range=(0.0, 0.2)
    )
    function = NoiseLevelFunction((0.1, 0.5, 0.9), ((9.1 / 255, 14.2 / 255, 11.0 / 255),), level=12 / 255, source="x")
    line = denoiser.describe_sigma(function, "estimated")
    assert "\n" not in line and line.startswith("noise estimated from x: σ ≈ 9.1 in shadows, 14.2 in mid-tones, 11.0")
    assert "is told each pixel's σ" in line and "motion-aligned neighbours" in line
    assert "; the map's RMS 12;" in line  # white noise: told what was measured
    grained = NoiseLevelFunction((0.5,), ((12 / 255,),), level=12 / 255, source="x", grain=(2.0,))
    line = denoiser.describe_sigma(grained, "estimated")
    assert "told 2× grey; the map's RMS 12 (told: RMS 24)" in line
    # a video shorter than fusion's window is fused over the frames it has; one of a single frame is not fused
    assert "neighbours (up to 3 frames)" in denoiser.describe_sigma(function, "estimated", frames=3)
    alone = denoiser.describe_sigma(function, "estimated", frames=1)
    assert alone.endswith("one frame, so no neighbours: the model alone") and "fused" not in alone


# ------------------------------------------------------------------------------------------- the command


def test_clean_sigma_auto_prints_the_estimate_and_writes_the_output(tmp_path, capsys, monkeypatch):
    checkpoint = save_model(
        noise_conditional_dust(),
        tmp_path / "m.safetensors",
        {"sigma_train": repr(25 / 255), "sigma_range": "[0.0, 0.2]"},
    )
    noisy = to_8_bits(poisson_gaussian(clip_of(0.5, frames=6, channels=3, height=48, width=64)))
    source = write_video(tmp_path / "in.mkv", noisy, fps=Fraction(25), codec="ffv1")
    target = tmp_path / "out.mkv"
    code, out, err = run_cli(
        ["clean", source, "-o", target, "--format", "lossless", "--sigma", "auto", "--checkpoint", checkpoint],
        capsys,
        monkeypatch,
    )
    assert code == 0, err
    estimate = [line for line in out.splitlines() if "noise estimated from motion-aligned frame differences" in line]
    assert len(estimate) == 1 and "in mid-tones" in estimate[0] and "is told each pixel's σ" in estimate[0]
    assert read_video(target).shape == noisy.shape
    assert "choosing the told σ" not in out  # a video that is not dark is not calibrated by the default preset


def test_block_statistics_fit_a_plane_away_and_leave_out_clipped_blocks():
    y, x = np.mgrid[0 : 2 * BLOCK, 0 : 3 * BLOCK] / 100.0
    plane = 0.3 + 0.5 * x + 0.2 * y  # six blocks, each a plane: nothing left around it
    means, variances = block_statistics(plane)
    assert means.shape == (6,) and np.allclose(variances, 0, atol=1e-20)
    assert means[0] == pytest.approx(plane[:BLOCK, :BLOCK].mean())
    noisy = plane + np.random.default_rng(0).normal(0, 0.02, plane.shape)
    noisy[0, 0] = 1.0  # one block touches the clip limit: left out
    means, variances = block_statistics(noisy)
    assert means.shape == (5,) and 0.5 * 0.02**2 < variances.mean() < 1.5 * 0.02**2


def test_flat_blocks_sigma_is_the_chi_square_quantile_estimate():
    # block variances of white noise (a plane fitted away: BLOCK² − 3 degrees of freedom) read back its σ, and the
    # quantile's divisor is scipy.stats' chi-square quantile (taken through scipy.special, which starts faster)
    from scipy.stats import chi2

    dof = BLOCK**2 - 3
    sigma = 0.04
    variances = sigma**2 * np.random.default_rng(0).chisquare(dof, size=20_000) / dof
    expected = math.sqrt(np.quantile(variances, QUANTILE) / (chi2.ppf(QUANTILE, dof) / dof))
    assert flat_sigma(variances) == pytest.approx(expected, rel=1e-12)
    assert flat_sigma(variances) == pytest.approx(sigma, rel=0.01)

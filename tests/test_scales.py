"""Two scales (`videodenoise.denoise.scales`): the low frequencies from a pass over the frames halved."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest
import torch

from videodenoise.denoise.denoiser import Denoiser
from videodenoise.denoise.pipeline import denoise_video, resolve_sigma
from videodenoise.denoise.scales import MIN_SIDE, coarse_sigma, combine, halve, low_pass, with_coarse
from videodenoise.denoise.settings import PRESETS, DenoiseSettings, FusionSettings
from videodenoise.errors import DenoiseError
from videodenoise.io.video import open_video
from videodenoise.models.registry import build_model
from videodenoise.noise.estimation import estimate_clip_noise
from videodenoise.noise.noise_level_function import NoiseLevelFunction

from helpers import encode, frames_read_ahead, picture, run_cli

SIGMA = 20 / 255


def textured_pan(frames=5, height=64, width=80, channels=3, step=1, seed=0) -> torch.Tensor:
    """A clean (T, C, H, W) clip: smooth and fine structure, panned `step` whole pixels a frame."""
    generator = torch.Generator().manual_seed(seed)
    wide = width + step * frames
    coarse = torch.rand(1, channels, height // 8, wide // 8, generator=generator)
    fine = torch.rand(1, channels, height // 2, wide // 2, generator=generator)
    image = 0.7 * torch.nn.functional.interpolate(coarse, (height, wide), mode="bicubic", align_corners=False)
    image = image + 0.3 * torch.nn.functional.interpolate(fine, (height, wide), mode="bilinear", align_corners=False)
    image = (image[0].clamp(0, 1) * 0.8 + 0.1).contiguous()
    return torch.stack([image[:, :, t * step : t * step + width] for t in range(frames)])


def with_noise(clip: torch.Tensor, sigma=SIGMA, seed=1) -> torch.Tensor:
    return (clip + sigma * torch.randn(clip.shape, generator=torch.Generator().manual_seed(seed))).clamp(0, 1)


def test_halving_takes_the_mean_of_each_two_by_two_block_and_repeats_an_odd_edge():
    frames = torch.rand(2, 3, 7, 10)
    halved = halve(frames)
    assert halved.shape == (2, 3, 4, 5)
    torch.testing.assert_close(halved[1, 2, 1, 3], frames[1, 2, 2:4, 6:8].mean())
    torch.testing.assert_close(halved[0, 0, 3, 4], frames[0, 0, 6, 8:10].mean())  # the last row, repeated
    torch.testing.assert_close(halve(torch.full((1, 6, 6), 0.25)), torch.full((1, 3, 3), 0.25))


def test_the_low_pass_is_a_gaussian_reflected_at_the_edges():
    frame = torch.rand(3, 40, 50)
    expected = cv2.GaussianBlur(frame.numpy().transpose(1, 2, 0), (19, 19), 3.0, borderType=cv2.BORDER_REFLECT_101)
    torch.testing.assert_close(low_pass(frame, 3.0), torch.from_numpy(expected.transpose(2, 0, 1)), atol=1e-5, rtol=0)
    assert low_pass(torch.rand(1, 5, 4), 3.0).shape == (1, 5, 4)  # sides shorter than the kernel's reach


def test_the_output_takes_its_low_frequencies_from_the_coarse_estimate_and_the_rest_from_the_fine_one():
    y, x = torch.meshgrid(torch.arange(64.0), torch.arange(80.0), indexing="ij")
    detail = 0.1 * (-1.0) ** (y + x)  # a checkerboard: the finest frequency there is
    fine = (0.4 + detail + 0.002 * x).expand(3, -1, -1)  # a faint ramp, which the coarse estimate lacks
    coarse = torch.full((3, 32, 40), 0.5)
    out = combine(fine, coarse)
    inner = (slice(None), slice(16, -16), slice(16, -16))  # away from the reflected edges
    torch.testing.assert_close(out[inner], (0.5 + detail).expand(3, -1, -1)[inner], atol=2e-3, rtol=0)
    # a fine estimate whose halving is the coarse one comes back nearly as it was: nothing is lost in between
    torch.testing.assert_close(combine(fine, halve(fine))[inner], fine[inner], atol=2e-3, rtol=0)


def test_the_half_size_is_told_its_own_noise_level():
    assert coarse_sigma(0.1) == pytest.approx(0.05)  # white noise: σ/2 after the 2×2 mean
    given = NoiseLevelFunction((0.2, 0.8), ((0.02, 0.04),), 0.03, told_scale=1.5)
    halved = coarse_sigma(given)
    assert halved.sigmas == ((0.01, 0.02),) and halved.level == pytest.approx(0.015) and halved.told_scale == 1.5
    measured = NoiseLevelFunction((0.5,), ((0.012,),), 0.012, grain=(1.2,))
    estimated = dataclasses.replace(given, coarse=measured)
    assert coarse_sigma(estimated) == dataclasses.replace(measured, told_scale=1.5)  # the video's told scale


def test_the_estimate_at_half_size_halves_white_noise_and_keeps_noise_constant_over_blocks():
    clean = textured_pan(frames=5, height=192, width=256, channels=1, step=2)
    white = clean + 0.05 * torch.randn(clean.shape, generator=torch.Generator().manual_seed(3))
    function = estimate_clip_noise(white, coarse=True)
    assert function.from_pairs and function.coarse.from_pairs
    assert function.level == pytest.approx(0.05, rel=0.15)
    assert function.coarse.level == pytest.approx(0.025, rel=0.15)
    # noise the same over each 2×2 block (as a codec's or a demosaicker's spreads it) averages away far less
    blocks = torch.randn(5, 1, 96, 128, generator=torch.Generator().manual_seed(4)).repeat_interleave(2, -1)
    blocky = estimate_clip_noise(clean + 0.05 * blocks.repeat_interleave(2, -2), coarse=True)
    assert blocky.coarse.level > 0.8 * blocky.level
    assert estimate_clip_noise(white[..., : MIN_SIDE - 1, :], coarse=True).coarse is None  # too small: one scale
    # where the halved frames give no usable pair (too small for the pairs' bins) and the frames do, none either
    small = estimate_clip_noise(white[..., :64, :96], coarse=True)
    assert small.from_pairs and small.coarse is None


def test_the_half_size_estimate_is_held_under_the_full_size_one_and_dropped_when_it_lost_the_pairs():
    frames = [torch.rand(3, 1, 64, 64)]
    full = NoiseLevelFunction((0.25, 0.75), ((0.02, 0.04),), 0.03, source="motion-aligned frame differences")
    seen = []

    def estimate(runs, source="motion-aligned frame differences", sigmas=((0.03, 0.01),), level=0.025):
        seen.extend(run.shape for run in runs)
        return NoiseLevelFunction((0.25, 0.75), sigmas, level, source=source)

    coarse = with_coarse(full, estimate, lambda: iter(frames)).coarse
    assert seen == [(3, 1, 32, 32)]  # the same runs, halved
    assert coarse.sigmas == ((0.02, 0.01),) and coarse.level == 0.025  # a mean carries at most its pixels' noise
    single = lambda runs: estimate(runs, source="flat patches of single frames")  # noqa: E731
    assert with_coarse(full, single, lambda: iter(frames)).coarse is None


@pytest.fixture(scope="module")
def model():
    return build_model("dust", layers=2)


@pytest.mark.parametrize("fusion", [None, FusionSettings()])
def test_two_scales_are_the_one_scale_denoiser_at_both_sizes_combined(model, fusion):
    # how the scales combine, before the last step (tests/test_clipping.py)
    one = Denoiser(model, DenoiseSettings(fusion=fusion, device="cpu", unclip=False))
    two = Denoiser(model, DenoiseSettings(fusion=fusion, device="cpu", scales=2, unclip=False))
    clip = with_noise(textured_pan(frames=6, height=61, width=75))  # odd sides: the halves round up
    fine, coarse = one.denoise_clip(clip, SIGMA), one.denoise_clip(halve(clip), SIGMA / 2)
    expected = torch.stack([combine(f, c) for f, c in zip(fine, coarse)])
    out = two.denoise_clip(clip, SIGMA)
    torch.testing.assert_close(out, expected, atol=1e-6, rtol=0)
    assert out.shape == clip.shape and (out - fine).abs().max() > 1e-3  # it did change something
    torch.testing.assert_close(torch.stack(list(two.denoise_frames(iter(clip), SIGMA))), out, atol=1e-6, rtol=0)


def test_two_scales_tiled_equal_two_scales_whole(model):
    clip = with_noise(textured_pan(frames=3, height=96, width=150, channels=1))
    whole = Denoiser(model, DenoiseSettings(fusion=FusionSettings(), device="cpu", scales=2, tile=0))
    tiled = Denoiser(model, DenoiseSettings(fusion=FusionSettings(), device="cpu", scales=2, tile=64))
    assert len(tiled._tiling(96, 150)[0]) > 1 and len(tiled._coarse._tiling(48, 75)[0]) > 1
    torch.testing.assert_close(tiled.denoise_clip(clip, SIGMA), whole.denoise_clip(clip, SIGMA), atol=1e-5, rtol=0)


def test_two_scales_stream_a_few_windows_and_leave_tiny_frames_at_one_scale(model):
    settings = DenoiseSettings(fusion=FusionSettings(), device="cpu")
    two = Denoiser(model, dataclasses.replace(settings, scales=2))
    long = with_noise(textured_pan(frames=40, channels=1), seed=2)
    done, ahead = frames_read_ahead(lambda frames: two.denoise_frames(frames, SIGMA), long)
    assert done == 40 and ahead <= settings.window + settings.fusion.radius  # both sizes read alike

    tiny = with_noise(textured_pan(frames=3, height=MIN_SIDE - 2, width=40))
    torch.testing.assert_close(two.denoise_clip(tiny, SIGMA), Denoiser(model, settings).denoise_clip(tiny, SIGMA))
    with pytest.raises(DenoiseError, match="two scales needs the noise level"):
        next(Denoiser(model, DenoiseSettings(device="cpu", scales=2)).denoise_frames(iter(tiny), None))
    with pytest.raises(DenoiseError, match="scales must be 1 or 2"):
        DenoiseSettings(scales=3)


def test_a_video_file_at_two_scales_estimates_the_half_size_noise_too(tmp_path, model):
    rng = np.random.default_rng(0)
    frames = [
        np.clip(picture(k, 128, 160) + rng.normal(0, 12, (128, 160, 3)), 0, 255).astype(np.uint8) for k in range(6)
    ]
    source = encode(tmp_path / "clip.mp4", frames, pix_fmt="yuv444p", setup=lambda s: s.options.update({"crf": "10"}))
    reader = open_video(source)
    function, how = resolve_sigma("auto", reader, coarse=True)
    assert how == "estimated" and 0 < function.coarse.level < function.level
    assert function.summary().endswith(f"; at half size (2×2 means) RMS {function.coarse.level * 255:.3g}")
    assert resolve_sigma("auto", reader)[0].coarse is None
    denoiser = Denoiser(model, DenoiseSettings(fusion=FusionSettings(), device="cpu", scales=2))
    result = denoise_video(source, tmp_path / "out.mp4", denoiser, sigma="auto")
    assert result.frames == 6 and (tmp_path / "out.mp4").exists()


def test_clean_refuses_two_scales_without_sigma(tmp_path, capsys, monkeypatch):
    from videodenoise.cli.clean import denoise_settings

    assert denoise_settings("fast", {"scales": 2}).scales == 2
    assert PRESETS["best"].scales == 2 and PRESETS["fast"].scales == 1  # best's since benchmarks/results/scales
    assert denoise_settings("best", {}, sigma_known=False).scales == 1
    code, out, err = run_cli(["clean", tmp_path / "any.mp4", "--sigma", "none", "--scales", "2"], capsys, monkeypatch)
    assert code == 1 and "Traceback" not in err
    assert err.strip() == "error: --scales 2 tells the half size its own σ: it needs σ, not --sigma none"
    code, out, err = run_cli(["clean", tmp_path / "any.mp4", "--scales", "3"], capsys, monkeypatch)
    assert code != 0 and "scales must be 1 or 2" in err and "Traceback" not in err

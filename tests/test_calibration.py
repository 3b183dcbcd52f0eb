"""Choosing the told σ per video (videodenoise.denoise.calibration) and what the model is then told."""

from __future__ import annotations

import dataclasses
import math
import re
from fractions import Fraction

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from test_estimation import noise_conditional_dust

from videodenoise.denoise.calibration import (
    CALIBRATION_FRAMES,
    SCALES,
    calibrate_told_scale,
    calibrates,
    calibration_span,
    choose_told_scale,
    frame_pairs,
)
from videodenoise.denoise.denoiser import Denoiser
from videodenoise.denoise.settings import PRESETS, DenoiseSettings, FusionSettings
from videodenoise.errors import DenoiseError
from videodenoise.io.writers import write_video
from videodenoise.models.registry import save_model
from videodenoise.noise.noise_level_function import NoiseLevelFunction

from helpers import run_cli


class BlurByToldSigma(torch.nn.Module):
    """A noise-conditional stand-in whose smoothing grows with the σ it is told: each pixel moves towards
    its 5×5 box mean by min(told σ / 0.2, 1), so telling it more smooths more."""

    noise_conditional = True

    def __init__(self):
        super().__init__()
        self.told: list[torch.Tensor] = []

    def forward(self, x: torch.Tensor, sigma=None) -> torch.Tensor:
        batch, frames, channels, height, width = x.shape
        sigma = torch.as_tensor(sigma, dtype=x.dtype)
        self.told.append(sigma)
        weight = (sigma / 0.2).clamp(0, 1)
        weight = weight.view(batch, frames, 1, height, width) if weight.dim() == 4 else weight
        flat = x.reshape(-1, 1, height, width)
        blurred = F.avg_pool2d(F.pad(flat, (2, 2, 2, 2), mode="replicate"), 5, stride=1).view_as(x)
        return x + weight * (blurred - x)


def pan(texture: torch.Tensor, frames: int, step: int, height: int, width: int) -> torch.Tensor:
    """Crops of a (C, H0, W0) image moving right by `step` whole pixels a frame: (T, C, H, W)."""
    return torch.stack([texture[:, :height, t * step : t * step + width] for t in range(frames)])


def smooth_texture(height: int = 72, width: int = 120, seed: int = 0) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    coarse = torch.rand(1, 1, height // 8, width // 8, generator=generator)
    return F.interpolate(coarse, size=(height, width), mode="bicubic", align_corners=False)[0].clamp(0, 1) * 0.6 + 0.2


def fine_texture(height: int = 72, width: int = 120, seed: int = 0) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    coarse = torch.rand(1, 1, height // 2, width // 2, generator=generator)
    return F.interpolate(coarse, size=(height, width), mode="bilinear", align_corners=False)[0] * 0.8 + 0.1


def stand_in_denoiser(fusion: FusionSettings | None = None) -> Denoiser:
    return Denoiser(BlurByToldSigma(), DenoiseSettings(device="cpu", tile=0, fusion=fusion), sigma_range=(0.0, 0.5))


# ----------------------------------------------------------------------------------------- what is told


def test_the_told_scale_multiplies_what_the_model_is_told_and_nothing_else():
    white = NoiseLevelFunction.constant(0.1)
    assert white.told_factors == () and white.told_level == pytest.approx(0.1)
    scaled = dataclasses.replace(white, told_scale=1.25)
    assert scaled.told_factors == (1.25,) and scaled.told_level == pytest.approx(0.125)
    assert "told 1.25× that" in scaled.summary() and scaled.level == 0.1  # the measured level is unchanged
    coded = NoiseLevelFunction((0.5,), ((0.1,), (0.1,), (0.1,)), 0.1, grain=(2.0, 1.0, 1.0), told_scale=0.8)
    assert coded.told_factors == pytest.approx((1.6, 0.8, 0.8))
    assert coded.told_level == pytest.approx(0.1 * 0.8 * math.sqrt((4 + 1 + 1) / 3))
    assert coded.luminance_grain == 2.0  # fusion's bandwidth follows the grain, not the told scale
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(DenoiseError, match="told scale"):
            dataclasses.replace(white, told_scale=bad)


def test_the_denoiser_tells_the_model_the_map_times_the_scale():
    denoiser = stand_in_denoiser()
    clip = pan(smooth_texture(), 5, 1, 32, 48).contiguous()
    model = denoiser.model
    denoiser.denoise_clip(clip, NoiseLevelFunction.constant(0.05))
    plain = torch.cat([told.flatten() for told in model.told])
    model.told.clear()
    denoiser.denoise_clip(clip, dataclasses.replace(NoiseLevelFunction.constant(0.05), told_scale=1.6))
    scaled = torch.cat([told.flatten() for told in model.told])
    assert torch.allclose(plain, torch.full_like(plain, 0.05)) and torch.allclose(scaled, plain * 1.6)


# ------------------------------------------------------------------------------------- the frame pairs


def test_on_a_whole_pixel_pan_the_matched_pixels_are_the_same_scene_points():
    clip = pan(fine_texture(), 4, 2, 48, 64)
    pairs = frame_pairs(clip, FusionSettings())
    assert [(s, t) for s, t, _, _ in pairs] == [(1, 0), (0, 1), (2, 1), (1, 2), (3, 2), (2, 3)]
    for _, t, target, mask in pairs:
        matched = mask > 0
        assert target.shape == (48, 64, 1) and matched.sum() > 0.5 * 32 * 48  # most of the interior
        assert not matched[:8].any() and not matched[:, -8:].any()  # never the border
        frame_t = clip[t, 0].numpy()
        assert np.abs(target[..., 0][matched] - frame_t[matched]).max() < 1e-6  # exactly t's clean pixels


# ------------------------------------------------------------------------------------------ the choice


@pytest.mark.parametrize("fusion", [FusionSettings(radius=1), None], ids=["fused", "model-alone"])
def test_smooth_content_is_told_more_and_fine_texture_less(fusion):
    generator = torch.Generator().manual_seed(1)
    smooth = pan(smooth_texture(), 5, 1, 48, 80)
    noisy = (smooth + 0.05 * torch.randn(smooth.shape, generator=generator)).clamp(0, 1)
    chosen = choose_told_scale(stand_in_denoiser(fusion), noisy, NoiseLevelFunction.constant(0.05))
    # blurring a smooth picture costs nothing: the more the better, up to the grid's top
    assert chosen.scale == SCALES[-1] and not chosen.reason and chosen.matches > 0
    walked = [chosen.distances[scale] for scale in SCALES if scale in chosen.distances]
    assert walked == sorted(walked, reverse=True)
    fine = pan(fine_texture(), 5, 1, 48, 80)
    noisy = (fine + 0.02 * torch.randn(fine.shape, generator=generator)).clamp(0, 1)
    chosen = choose_told_scale(stand_in_denoiser(fusion), noisy, NoiseLevelFunction.constant(0.02))
    assert chosen.scale < 1 and chosen.distances[chosen.scale] == min(chosen.distances.values())


def test_a_scale_other_than_one_hands_on_the_gamma_step_the_curve_told_makes(monkeypatch):
    from videodenoise.denoise import calibration

    asked = []
    fit = (0.5, (0.01, 0.01, 0.01), (0.0001, 0.0001, 0.0001))
    monkeypatch.setattr(calibration, "_gamma_fit", lambda denoiser, frames, sigma: asked.append(sigma) or fit)
    generator = torch.Generator().manual_seed(1)
    smooth = pan(smooth_texture(), 5, 1, 48, 80)
    noisy = (smooth + 0.05 * torch.randn(smooth.shape, generator=generator)).clamp(0, 1)
    curve = NoiseLevelFunction((0.2, 0.8), ((0.05, 0.05),), 0.05)
    chosen = choose_told_scale(stand_in_denoiser(), noisy, curve)
    assert chosen.scale == SCALES[-1] and chosen.gamma_fit == fit and asked == [curve]  # asked of the curve as it is
    assert chosen.applied_to(curve).gamma_fit == fit
    asked.clear()
    kept = choose_told_scale(stand_in_denoiser(), noisy[:2], curve)  # too few frames: the scale stays 1
    assert kept.scale == 1 and kept.gamma_fit is None and asked == []


def test_codec_noise_few_frames_and_no_noise_keep_the_scale_one():
    clip = pan(smooth_texture(), 5, 1, 48, 80)
    denoiser = stand_in_denoiser()
    white = NoiseLevelFunction.constant(0.05)
    for function, frames, reason in [
        (dataclasses.replace(white, grain=(1.6,)), clip, "a codec's"),
        (dataclasses.replace(white, carried=0.3), clip, "carried over between frames"),
        (white, clip[:2], "fewer than 3 frames"),
        (NoiseLevelFunction.constant(0.0), clip, "no noise"),
    ]:
        chosen = choose_told_scale(denoiser, frames, function)
        assert chosen.scale == 1.0 and reason in chosen.reason and not chosen.distances
    assert calibrate_told_scale(denoiser, clip[:2], 0.05) == 0.05  # unchanged, still a number


def test_a_given_sigma_is_calibrated_only_on_noise_the_frames_show_to_be_white():
    generator = torch.Generator().manual_seed(4)
    rows, columns = torch.meshgrid(torch.linspace(0, 1, 72), torch.linspace(0, 1, 160), indexing="ij")
    clip = pan((0.35 + 0.3 * columns + 0.1 * rows)[None], 5, 1, 64, 96)  # flat enough for the grain's blocks
    white = 0.05 * torch.randn(clip.shape, generator=generator)
    # noise correlated over 2×2 pixels, as a codec or chroma subsampling leaves it, at the same σ per pixel
    correlated = F.avg_pool2d(F.pad(white, (0, 1, 0, 1), mode="replicate"), 2, stride=1) * 2
    denoiser = stand_in_denoiser(FusionSettings(radius=1))
    kept = choose_told_scale(denoiser, (clip + correlated).clamp(0, 1), 0.05)
    assert kept.scale == 1 and "a codec's" in kept.reason
    chosen = choose_told_scale(denoiser, (clip + white).clamp(0, 1), 0.05)
    assert not chosen.reason and chosen.scale > 1  # smooth content: the stand-in is told more


def test_the_best_preset_calibrates_and_the_fast_one_does_not():
    assert PRESETS["best"].calibrate and not PRESETS["fast"].calibrate and not DenoiseSettings().calibrate


def test_denoise_clip_calibrates_on_the_middle_frames_when_asked():
    generator = torch.Generator().manual_seed(2)
    clip = pan(smooth_texture(72, 160), 9, 1, 48, 80)
    noisy = (clip + 0.05 * torch.randn(clip.shape, generator=generator)).clamp(0, 1)
    calibrating = Denoiser(
        BlurByToldSigma(), DenoiseSettings(device="cpu", tile=0, calibrate=True), sigma_range=(0.0, 0.5)
    )
    start, count = calibration_span(len(noisy))
    assert (start, count) == (2, CALIBRATION_FRAMES) and calibration_span(3) == (0, 3)
    chosen = calibrate_told_scale(calibrating, noisy[start : start + 5], 0.05)
    assert isinstance(chosen, NoiseLevelFunction) and chosen.told_scale == SCALES[-1]
    assert torch.equal(calibrating.denoise_clip(noisy, 0.05), stand_in_denoiser().denoise_clip(noisy, chosen))


def test_calibrate_dark_calibrates_sigma_autos_function_of_a_dark_clip_and_nothing_else():
    settings = DenoiseSettings(device="cpu", tile=0, calibrate_dark=True)
    dark = dataclasses.replace(NoiseLevelFunction.constant(0.05), brightness=40 / 255)
    bright = dataclasses.replace(dark, brightness=60 / 255)
    assert dark.dark and not bright.dark and not NoiseLevelFunction.constant(0.05).dark  # unmeasured: not dark
    assert calibrates(settings, dark) and not calibrates(settings, bright)
    assert not calibrates(settings, 0.05) and not calibrates(settings, None)  # a number told is never overruled
    assert not calibrates(DenoiseSettings(), dark) and calibrates(DenoiseSettings(calibrate=True), 0.05)

    generator = torch.Generator().manual_seed(2)
    clip = pan(smooth_texture(72, 160), 5, 1, 48, 80) * 0.25  # mean level about 32
    noisy = (clip + 0.05 * torch.randn(clip.shape, generator=generator)).clamp(0, 1)
    function = dataclasses.replace(dark, brightness=float(noisy.mean()))
    calibrating = Denoiser(BlurByToldSigma(), settings, sigma_range=(0.0, 0.5))
    chosen = calibrate_told_scale(calibrating, noisy, function)
    assert chosen.told_scale != 1  # smooth content: the stand-in is told more
    assert torch.equal(calibrating.denoise_clip(noisy, function), stand_in_denoiser().denoise_clip(noisy, chosen))
    bright = dataclasses.replace(function, brightness=0.5)  # footage not dark: as without the switch
    assert torch.equal(calibrating.denoise_clip(noisy, bright), stand_in_denoiser().denoise_clip(noisy, bright))


# ------------------------------------------------------------------------------------------- the command


def test_clean_calibrate_says_what_the_model_was_told(tmp_path, capsys, monkeypatch):
    checkpoint = save_model(
        noise_conditional_dust(),
        tmp_path / "m.safetensors",
        {"sigma_train": repr(25 / 255), "sigma_range": "[0.0, 0.2]"},
    )
    generator = torch.Generator().manual_seed(3)
    clip = pan(smooth_texture(72, 160), 7, 1, 48, 80).expand(-1, 3, -1, -1)
    noisy = ((clip + 0.08 * torch.randn(clip.shape, generator=generator)).clamp(0, 1) * 255).round() / 255
    source = write_video(tmp_path / "in.mkv", noisy, fps=Fraction(25), codec="ffv1")
    before = source.read_bytes()
    code, out, err = run_cli(
        [
            "clean",
            source,
            "-o",
            tmp_path / "out.mkv",
            "--format",
            "lossless",
            "--sigma",
            "20",
            "--calibrate",
            "--checkpoint",
            checkpoint,
        ],
        capsys,
        monkeypatch,
    )
    assert code == 0, err
    assert (tmp_path / "out.mkv").is_file() and source.read_bytes() == before
    wrote = next(line for line in out.splitlines() if line.startswith("wrote "))
    assert re.search(r"frames/s \(\d+\.\d s of it choosing the told σ, once per video\)$", wrote)
    chosen = [line for line in out.splitlines() if "the model is told" in line and "matched pixels" in line]
    assert len(chosen) == 1 and "1× " in chosen[0] and "1.25× " in chosen[0]  # both tried, with their distances
    scale = float(chosen[0].split("the model is told ")[1].split("×")[0])
    assert scale in SCALES
    described = [line for line in out.splitlines() if "σ = 20 on the 0-255 scale" in line or "σ ≈ 20.0" in line]
    assert len(described) == 1 and (scale == 1 or f"the model told {scale:.3g}× that" in described[0])
    codec = dataclasses.replace(NoiseLevelFunction.constant(0.05), grain=(1.6,))
    line = choose_told_scale(stand_in_denoiser(), noisy[:5].mean(1, keepdim=True), codec).describe()
    expected = "the model is told the noise's σ as it is (the noise looks like a codec's: not white, or carried over"
    assert line == expected + " between frames)"


@pytest.mark.parametrize("flag", ["--calibrate", "--calibrate-dark"])
def test_calibrate_without_sigma_is_refused_in_one_line(tmp_path, capsys, monkeypatch, flag):
    code, out, err = run_cli(["clean", tmp_path / "any.mp4", "--sigma", "none", flag], capsys, monkeypatch)
    assert code == 1 and "Traceback" not in err
    assert err.strip() == f"error: {flag} chooses how much of σ the model is told: it needs σ, not --sigma none"


def test_the_demo_calibrates_when_the_settings_say_so(tmp_path, monkeypatch):
    from videodenoise.denoise import demo

    clip = pan(smooth_texture(72, 160), 9, 1, 48, 80).expand(-1, 3, -1, -1)
    source = write_video(tmp_path / "clean.mkv", clip, fps=Fraction(25), codec="ffv1")
    seen = []

    def spy(denoiser, frames, sigma):
        seen.append(frames.shape)
        return dataclasses.replace(NoiseLevelFunction.constant(sigma), told_scale=1.6)

    monkeypatch.setattr(demo, "calibrate_told_scale", spy)
    denoiser = Denoiser(
        BlurByToldSigma(), DenoiseSettings(device="cpu", tile=0, calibrate=True), sigma_range=(0.0, 0.5)
    )
    result = demo.run_demo(tmp_path / "out", denoiser, sigma=0.05, clip=source)
    assert seen == [(CALIBRATION_FRAMES, 3, 48, 80)] and result.frames == 9 and result.sigma == 0.05
    told = torch.cat([t.flatten() for t in denoiser.model.told])
    assert torch.allclose(told, torch.full_like(told, 0.05 * 1.6))  # every window told the calibrated σ

"""The Wiener refinement (videodenoise.denoise.wiener): against a patch-by-patch reference built on scipy's DCT,
its exclusion of neighbours the pilot says differ, its stream, and the Denoiser's `wiener` setting."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
import scipy.fft
import torch

from videodenoise.denoise import wiener
from videodenoise.denoise.denoiser import Denoiser
from videodenoise.denoise.settings import PRESETS, DenoiseSettings, FusionSettings
from videodenoise.errors import DenoiseError
from videodenoise.models.registry import build_model
from videodenoise.noise.noise_level_function import NoiseLevelFunction

from helpers import frames_read_ahead, run_cli


def reference_estimate(
    noisy: np.ndarray,
    pilot: np.ndarray,
    variance: np.ndarray,
    centre: int,
    spectrum: np.ndarray | None = None,
    stride: int = 1,
) -> np.ndarray:
    """The module notes' steps 1-3, one patch at a time, with scipy's orthonormal DCT; at a stride, the patches
    every `stride` pixels of the frames extended by reflection to a whole number of strides."""
    frames, channels, height, width = noisy.shape
    p = wiener.PATCH
    extra = ((0, 0), (0, 0), (0, -(height - p) % stride), (0, -(width - p) % stride))
    noisy, pilot = np.pad(noisy, extra, mode="reflect"), np.pad(pilot, extra, mode="reflect")
    variance = np.pad(variance, extra[1:], mode="reflect")
    spectrum = np.ones((channels, p, p)) if spectrum is None else spectrum.reshape(channels, p, p)
    numerator, denominator = np.zeros(noisy.shape[1:]), np.zeros(noisy.shape[1:])
    for top in range(0, noisy.shape[2] - p + 1, stride):
        for left in range(0, noisy.shape[3] - p + 1, stride):
            window = (slice(None), slice(None), slice(top, top + p), slice(left, left + p))
            z, y = noisy[window], pilot[window]
            sigma2 = variance[:, top : top + p, left : left + p].mean(axis=(1, 2))  # per channel
            kept = [t for t in range(frames) if ((y[t] - y[centre]) ** 2).mean() <= wiener.EXCLUDE**2 * sigma2.mean()]
            z, y, mine = z[kept], y[kept], kept.index(centre)
            for c in range(channels):
                coefficients = scipy.fft.dctn(z[:, c], norm="ortho")
                signal = scipy.fft.dctn(y[:, c], norm="ortho") ** 2
                noise = wiener.TOLD**2 * sigma2[c] * spectrum[c]  # per 2D coefficient, the same in every frame
                gain = signal / (signal + noise)
                estimate = scipy.fft.idctn(gain * coefficients, norm="ortho")[mine]
                weight = 1.0 / (noise * gain**2).sum()
                numerator[c, top : top + p, left : left + p] += weight * estimate
                denominator[c, top : top + p, left : left + p] += weight
    return (numerator / denominator)[:, :height, :width]


def reference_spectrum(residual: np.ndarray, variance: np.ndarray) -> np.ndarray:
    """The noise spectrum the module notes define: each 2D DCT coefficient's mean square over the residual's
    patches at SPECTRUM_STRIDE, over the mean σ² told, per channel (C, PATCH²)."""
    p, stride = wiener.PATCH, wiener.SPECTRUM_STRIDE
    channels, height, width = residual.shape
    power = np.zeros((channels, p, p))
    tops, lefts = range(0, height - p + 1, stride), range(0, width - p + 1, stride)
    for top in tops:
        for left in lefts:
            power += scipy.fft.dctn(residual[:, top : top + p, left : left + p], norm="ortho", axes=(1, 2)) ** 2
    power /= len(tops) * len(lefts)
    return (power / variance.mean(axis=(1, 2))[:, None, None]).reshape(channels, p * p)


def textured(frames: int, channels: int, height: int, width: int, seed: int = 0) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    base = torch.rand(channels, height // 4 + 2, width // 4 + 2, generator=generator)
    image = torch.nn.functional.interpolate(base[None], scale_factor=4, mode="bilinear")[0, :, :height, :width]
    return image.expand(frames, -1, -1, -1).clone()


def test_dct_matrix_is_scipys_orthonormal_dct():
    for size in (1, 3, 5, 8):
        matrix = wiener.dct_matrix(size)
        expected = scipy.fft.dct(np.eye(size), norm="ortho", axis=0)
        np.testing.assert_allclose(matrix.numpy(), expected, atol=1e-6)


@pytest.mark.parametrize(
    "channels, coloured, stride",
    [(1, False, 1), (3, False, 1), (3, True, 1), (1, False, 4), (3, True, 2), (3, True, 3), (1, False, 8)],
)
def test_estimate_equals_the_patch_by_patch_reference(channels, coloured, stride, monkeypatch):
    # 13 × 11 frames: at strides 2 and 4 their patches fit whole strides one way only, at 3 and 8 neither
    # bands of 2 patch rows: of the 6, 4, 3, 3 and 2 rows at strides 1, 2, 3, 4 and 8 (the last band partial at 3, 4)
    columns = (11 + (8 - 11) % stride - 8) // stride + 1  # patch positions across, after the extension
    per_position = 2 * 3 * channels * wiener.PATCH**2 * 4  # bytes of a position's noisy and pilot stacks
    monkeypatch.setattr(wiener, "CPU_BAND_BYTES", 2 * columns * per_position)
    clean = textured(3, channels, 13, 11)
    generator = torch.Generator().manual_seed(1)
    noisy = clean + 0.1 * torch.randn(clean.shape, generator=generator)
    pilot = clean + 0.02 * torch.randn(clean.shape, generator=generator)
    # each neighbour differs in one corner: the patches over it leave that neighbour out, the rest keep all three
    pilot[2, :, :2, :2] += 1.0
    pilot[0, :, 11:, 9:] -= 1.0
    variance = 0.01 * (1 + torch.rand(channels, 13, 11, generator=generator))
    spectrum = 0.2 + 2 * torch.rand(channels, wiener.PATCH**2, generator=generator) if coloured else None
    computed = wiener.wiener_estimate(noisy, pilot, variance, centre=1, spectrum=spectrum, stride=stride)
    arrays = [a.double().numpy() for a in (noisy, pilot, variance)]
    expected = reference_estimate(*arrays, 1, None if spectrum is None else spectrum.double().numpy(), stride)
    assert computed.shape == clean.shape[1:]
    np.testing.assert_allclose(computed.numpy(), expected, atol=2e-5)


def test_the_noise_spectrum_is_each_coefficients_power_over_the_told_variance():
    generator = torch.Generator().manual_seed(4)
    residual = torch.randn(3, 21, 30, generator=generator)
    variance = 0.5 + torch.rand(3, 21, 30, generator=generator)
    np.testing.assert_allclose(
        wiener.noise_spectrum(residual, variance).numpy(),
        reference_spectrum(residual.double().numpy(), variance.double().numpy()),
        rtol=1e-5,
    )
    # white noise of the σ told: flat at 1; twice the σ told: 4; noise at half resolution: its power in the
    # low coefficients, next to none in the upper half of either frequency
    white = 0.1 * torch.randn(1, 400, 400, generator=generator)
    told = torch.full((1, 400, 400), 0.01)
    torch.testing.assert_close(wiener.noise_spectrum(white, told), torch.ones(1, 64), atol=0.1, rtol=0)
    torch.testing.assert_close(wiener.noise_spectrum(2 * white, told), torch.full((1, 64), 4.0), atol=0.4, rtol=0)
    smooth = torch.nn.functional.interpolate(white[None, :, :200, :200], scale_factor=2, mode="bilinear")[0]
    spectrum = wiener.noise_spectrum(smooth, told).view(8, 8)
    assert spectrum[0, 0] > 2 and spectrum[4:, 4:].max() < 0.1


def test_a_neighbour_the_pilot_says_differs_adds_nothing():
    clean = textured(3, 1, 16, 16)
    noisy = clean + 0.1 * torch.randn(clean.shape, generator=torch.Generator().manual_seed(2))
    variance = torch.full((1, 16, 16), 0.01)
    apart = clean.clone()
    apart[[0, 2]] += 1.0  # the neighbours' pilot is far from the frame's everywhere
    alone = wiener.wiener_estimate(noisy[1:2], clean[1:2], variance, centre=0)
    torch.testing.assert_close(wiener.wiener_estimate(noisy, apart, variance, centre=1), alone)
    # agreeing neighbours average the noise away: the estimate with them is closer to the truth
    together = wiener.wiener_estimate(noisy, clean, variance, centre=1)
    assert (together - clean[1]).square().mean() < 0.6 * (alone - clean[1]).square().mean()


# the opponent colours, written out: luminance, red − blue, green − magenta, each row of unit length
OPPONENT_ROWS = (
    torch.tensor([[1.0, 1.0, 1.0], [1.0, 0.0, -1.0], [1.0, -2.0, 1.0]]) / torch.tensor([3.0, 2.0, 6.0]).sqrt()[:, None]
)


def expected_frame(noisy, pilot, sigmas, t):
    """Frame t of a static clip as the stream should give it: its group is the frames within RADIUS, filtered
    in opponent colours (for colour) with each channel's noise variance and the frame's measured noise
    spectrum, then mixed into the pilot."""
    span = list(range(max(0, t - wiener.RADIUS), min(len(noisy), t + wiener.RADIUS + 1)))
    variance = torch.tensor(sigmas).square()
    if noisy.shape[1] == 3:
        noisy, pilot = (torch.einsum("oc,nchw->nohw", OPPONENT_ROWS, x) for x in (noisy, pilot))
        variance = OPPONENT_ROWS.square() @ variance
    variance = variance.view(-1, 1, 1).expand_as(noisy[t]).contiguous()
    spectrum = reference_spectrum((noisy[t] - pilot[t]).double().numpy(), variance.double().numpy())
    estimate = wiener.wiener_estimate(
        noisy[span], pilot[span], variance, centre=t - span[0], spectrum=torch.from_numpy(spectrum).float()
    )
    if noisy.shape[1] == 3:
        estimate, pilot = (
            torch.einsum("oc,ohw->chw", OPPONENT_ROWS, estimate),
            torch.einsum("oc,nohw->nchw", OPPONENT_ROWS, pilot),
        )
    # the share: MIX_WHITE for white noise, falling to MIX as the RMS of log S goes from WHITE to COLOURED
    deviation = float(np.sqrt(np.mean(np.log(spectrum) ** 2)))
    ramp = np.interp(deviation, [wiener.WHITE, wiener.COLOURED], [wiener.MIX_WHITE, wiener.MIX])
    return (float(ramp) * estimate + (1 - float(ramp)) * pilot[t]).clamp(0, 1)


def test_the_mix_follows_how_white_the_measured_noise_is():
    white = torch.ones(3, wiener.PATCH**2)
    assert wiener.mix_share(white) == wiener.MIX_WHITE
    # a camera's noise after H.264 in opponent colours: luminance's 2.8× the σ² told, the colour differences' ~0.1×
    camera = torch.tensor([2.8, 0.1, 0.08]).view(3, 1).expand(3, wiener.PATCH**2)
    assert wiener.mix_share(camera) == wiener.MIX
    halfway = torch.full((1, wiener.PATCH**2), math.exp((wiener.WHITE + wiener.COLOURED) / 2))
    assert wiener.mix_share(halfway) == pytest.approx((wiener.MIX + wiener.MIX_WHITE) / 2)


def test_the_stream_refines_each_frame_from_its_neighbours():
    clean = textured(6, 3, 24, 32)
    noisy = (clean + 0.08 * torch.randn(clean.shape, generator=torch.Generator().manual_seed(3))).clamp(0, 1)
    sigma = 0.08
    out = torch.stack(list(wiener.wiener_refine(noisy, clean, sigma)))
    assert out.shape == noisy.shape
    # a static pilot: the flow is zero, so frame t's group is the frames within RADIUS of it, as they are
    for t in (0, 3, 5):
        torch.testing.assert_close(out[t], expected_frame(noisy, clean, [sigma] * 3, t))
    # a noise level function of one σ is that σ
    constant = NoiseLevelFunction((0.5,), ((sigma,),) * 3, sigma)
    torch.testing.assert_close(torch.stack(list(wiener.wiener_refine(noisy, clean, constant))), out)
    # one σ per channel: each opponent channel is told its own, from the three taken as independent
    per_channel = NoiseLevelFunction((0.5,), ((0.04,), (0.08,), (0.12,)), sigma)
    out = torch.stack(list(wiener.wiener_refine(noisy, clean, per_channel)))
    torch.testing.assert_close(out[2], expected_frame(noisy, clean, [0.04, 0.08, 0.12], 2))
    # grey frames are filtered as they are
    grey = torch.stack(list(wiener.wiener_refine(noisy[:, :1], clean[:, :1], sigma)))
    torch.testing.assert_close(grey[3], expected_frame(noisy[:, :1], clean[:, :1], [sigma], 3))
    # it holds 2·RADIUS + 1 frames: it reads RADIUS beyond what it has yielded, at most
    done, ahead = frames_read_ahead(lambda frames: wiener.wiener_refine(frames, iter(clean), sigma), noisy)
    assert (done, ahead) == (len(noisy), wiener.RADIUS)


def test_the_stream_refuses_what_it_cannot_use():
    clip = textured(3, 1, 16, 16)
    with pytest.raises(DenoiseError, match="needs the noise level"):
        list(wiener.wiener_refine(clip, clip, None))
    with pytest.raises(DenoiseError, match="denoised frame of the noisy one's shape at 2"):
        list(wiener.wiener_refine(clip, clip[:2], 0.1))
    # a flat frame measures no noise at all: it comes back as it is, not as 0 / 0
    black = torch.zeros(5, 3, 24, 32)
    torch.testing.assert_close(torch.stack(list(wiener.wiener_refine(black, black, 0.1))), black)
    # no noise: the pilot comes back; frames under a patch: the pilot comes back
    torch.testing.assert_close(torch.stack(list(wiener.wiener_refine(clip + 0.1, clip, 0.0))), clip)
    small = textured(2, 1, 6, 30)
    torch.testing.assert_close(torch.stack(list(wiener.wiener_refine(small + 0.1, small, 0.1))), small)
    for stride in (0, 9):  # patches further apart than their side would leave pixels out
        with pytest.raises(DenoiseError, match=f"patch stride must be from 1 to 8 pixels, got {stride}"):
            list(wiener.wiener_refine(clip, clip, 0.1, stride=stride))


def test_the_denoiser_refines_its_own_output():
    torch.manual_seed(0)
    model = build_model("dust", layers=2)
    # how the refinement combines, before the last step (tests/test_clipping.py)
    settings = DenoiseSettings(fusion=FusionSettings(), device="cpu", tile=0, unclip=False)
    clip = (textured(5, 3, 24, 28) + 0.05 * torch.randn(5, 3, 24, 28)).clamp(0, 1)
    plain = Denoiser(model, settings).denoise_clip(clip, sigma=0.05)
    refined = Denoiser(model, dataclasses.replace(settings, wiener=True)).denoise_clip(clip, sigma=0.05)
    torch.testing.assert_close(refined, torch.stack(list(wiener.wiener_refine(clip, plain, 0.05))))
    # its stride and flow preset reach the filter
    sparse = dataclasses.replace(settings, wiener=True, wiener_stride=4, wiener_flow="ultrafast")
    refined = Denoiser(model, sparse).denoise_clip(clip, sigma=0.05)
    expected = wiener.wiener_refine(clip, plain, 0.05, stride=4, flow_preset="ultrafast")
    torch.testing.assert_close(refined, torch.stack(list(expected)))
    assert not torch.allclose(refined, torch.stack(list(wiener.wiener_refine(clip, plain, 0.05))))
    with pytest.raises(DenoiseError, match="needs the noise level"):
        Denoiser(model, DenoiseSettings(device="cpu", wiener=True)).denoise_clip(clip, sigma=None)


def test_clean_takes_wiener_only_with_sigma(tmp_path, capsys, monkeypatch):
    from videodenoise.cli.clean import denoise_settings

    assert denoise_settings("fast", {"wiener": True}).wiener
    assert PRESETS["best"].wiener and not PRESETS["fast"].wiener  # best's since benchmarks/results/wiener
    # balanced: fast with the filter on every 5th position along an ultrafast flow (benchmarks/results/wiener-fast)
    balanced = dataclasses.replace(PRESETS["fast"], wiener=True, wiener_stride=5, wiener_flow="ultrafast")
    assert PRESETS["balanced"] == balanced and denoise_settings("balanced", {}) == balanced
    assert not denoise_settings("balanced", {}, sigma_known=False).wiener
    assert not denoise_settings("fast", {}, sigma_known=False).wiener
    with pytest.raises(DenoiseError, match="wiener_stride must be from 1 to 8 pixels"):
        DenoiseSettings(wiener_stride=0)
    with pytest.raises(DenoiseError, match="unknown flow preset 'slow'; choose one of: ultrafast, fast, medium"):
        DenoiseSettings(wiener_flow="slow")
    code, out, err = run_cli(["clean", tmp_path / "any.mp4", "--sigma", "none", "--wiener"], capsys, monkeypatch)
    assert code == 1 and "Traceback" not in err
    assert err.strip() == "error: --wiener filters with σ as the noise level: it needs σ, not --sigma none"
    # the filter's own settings without the filter: refused, not ignored
    assert denoise_settings("fast", {"wiener": True, "wiener_stride": 5}).wiener_stride == 5
    assert denoise_settings("best", {"wiener_flow": "ultrafast"}).wiener_flow == "ultrafast"
    for extra in (["--wiener-stride", "5"], ["--wiener-flow", "ultrafast"], ["--no-wiener", "--wiener-stride", "2"]):
        code, out, err = run_cli(["clean", tmp_path / "any.mp4", *extra], capsys, monkeypatch)
        assert code == 1 and "Traceback" not in err
        assert err.strip() == (
            "error: --wiener-stride and --wiener-flow set the Wiener filter, which is off: add --wiener (it needs σ), "
            "or use --quality best"
        )

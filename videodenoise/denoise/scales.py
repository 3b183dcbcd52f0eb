"""Two scales: a video denoised at its size and at half its size, its low frequencies taken from the second.

    y = y₁ + G ∗ (up(y₂) − y₁),    y₁ = D(x, σ),    y₂ = D(down(x), σ₂)

D is the whole one-scale pipeline (fusion, then the model), down the mean of each 2×2 block, up bicubic
interpolation back to the frame's size, G a Gaussian of COARSE_BLUR pixels: below its cut-off the output is the
coarse pass's, above it the fine pass's.

Why: the model denoises 8×8 patches, and noise whose wavelength is longer than a patch looks like picture to
it, so some low-frequency noise stays in, most visibly across smooth areas. At half the size the same noise
has about half its σ and the same patches span twice the picture, so the coarse pass takes out what the fine
one left. The coarse pass cannot give the fine detail, hence the split: G's cut-off lies well inside the
half-size frame's band.

σ₂: i.i.d. noise of σ has σ/2 after the 2×2 mean, but noise that a codec or a camera's demosaicking spread over
neighbouring pixels averages away less, so under sigma="auto" the noise level function is estimated again on
the halved frames (`NoiseLevelFunction.coarse`); a σ given as a number is taken to be white noise. The told
scale (`--calibrate`) is the video's, and carries over.

COARSE_BLUR was chosen on exploration clips outside the benchmark's and the validation's sets (pans over four
training photographs and bigbuckbunny; `benchmarks/tune_fusion.py`, benchmarks/results/scales/) from 1.5, 2, 3, 4
and 6 px: 3 and 4 px gained most over one scale (+0.09, +0.07 and +0.07 dB at σ = 10, 25 and 50 with 3 px); 1.5
px lost 0.37 dB at σ = 10, where the half size's own error reaches into the band it gives.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Iterable, Iterator

import torch
import torch.nn.functional as F

from videodenoise.errors import DenoiseError, VideoReadError
from videodenoise.noise.noise_level_function import NoiseLevelFunction

COARSE_BLUR = 3.0  # the Gaussian's σ in pixels of the frame: the coarse pass gives the frequencies below it
MIN_SIDE = 32  # a frame with a side under this (16 at half size, two patches) is denoised at one scale


def halve(frames: torch.Tensor) -> torch.Tensor:
    """(…, H, W) → (…, ⌈H/2⌉, ⌈W/2⌉): the mean of each 2×2 block, an odd last row or column repeated."""
    height, width = frames.shape[-2:]
    shape = frames.shape[:-2]
    flat = frames.reshape(-1, 1, height, width)
    flat = F.pad(flat, (0, width % 2, 0, height % 2), mode="replicate") if (height % 2 or width % 2) else flat
    halved = F.avg_pool2d(flat, 2)
    return halved.reshape(*shape, *halved.shape[-2:])


def _upsample(frame: torch.Tensor, height: int, width: int) -> torch.Tensor:
    """(C, h, w) → (C, H, W): bicubic at twice the size (pixel centres as `halve` averages them), cut to H, W."""
    doubled = F.interpolate(frame.unsqueeze(0), scale_factor=2, mode="bicubic", align_corners=False)[0]
    return doubled[..., :height, :width]


def _gaussian_kernel(sigma: float) -> torch.Tensor:
    radius = math.ceil(3 * sigma)
    offsets = torch.arange(-radius, radius + 1, dtype=torch.float32)
    kernel = torch.exp(-0.5 * (offsets / sigma) ** 2)
    return kernel / kernel.sum()


def low_pass(frame: torch.Tensor, sigma: float) -> torch.Tensor:
    """A (C, H, W) frame blurred by a Gaussian of `sigma` pixels, separably, reflected at the edges (repeated
    where a side is shorter than the kernel's reach)."""
    kernel = _gaussian_kernel(sigma).to(frame)
    radius = len(kernel) // 2
    out = frame.unsqueeze(1)  # (C, 1, H, W): each channel alone
    for axis, pad, weights in (
        (-1, (radius, radius, 0, 0), kernel.view(1, 1, 1, -1)),
        (-2, (0, 0, radius, radius), kernel.view(1, 1, -1, 1)),
    ):
        mode = "reflect" if out.shape[axis] > radius else "replicate"
        out = F.conv2d(F.pad(out, pad, mode=mode), weights)
    return out[:, 0]


def combine(fine: torch.Tensor, coarse: torch.Tensor) -> torch.Tensor:
    """y₁ + G ∗ (up(y₂) − y₁) for one (C, H, W) frame and its (C, ⌈H/2⌉, ⌈W/2⌉) coarse estimate, clamped to [0, 1]."""
    height, width = fine.shape[-2:]
    return (fine + low_pass(_upsample(coarse, height, width) - fine, COARSE_BLUR)).clamp_(0, 1)


def coarse_sigma(sigma: float | NoiseLevelFunction) -> float | NoiseLevelFunction:
    """The noise level of the halved frames: the function's own `coarse` estimate, with the video's told scale,
    else that of white noise (half the σ)."""
    if isinstance(sigma, NoiseLevelFunction):
        if sigma.coarse is not None:
            return dataclasses.replace(sigma.coarse, told_scale=sigma.told_scale)
        halved = tuple(tuple(s / 2 for s in row) for row in sigma.sigmas)
        return dataclasses.replace(sigma, sigmas=halved, level=sigma.level / 2)
    return sigma / 2


def with_coarse(function: NoiseLevelFunction, estimate, runs) -> NoiseLevelFunction:
    """`function` with `estimate`'s function of the same runs of frames halved as its `coarse` (estimate is
    `videodenoise.noise.estimation.estimate_noise`; runs() yields the runs again). None where the frames are
    under MIN_SIDE, or where the halved frames gave no motion-aligned pairs and the frames did: single frames'
    figures are the estimator's last resort, and read texture as noise on small frames. Never above the
    function itself: a mean of pixels carries at most their noise."""
    halved = (halve(torch.stack(list(run))) for run in runs() if min(run[0].shape[-2:]) >= MIN_SIDE)
    try:
        coarse = estimate(halved)
    except VideoReadError:  # no run of frames large enough
        return function
    if function.from_pairs and not coarse.from_pairs:
        return function
    if coarse.knots == function.knots and coarse.channels == function.channels:
        pairs = zip(coarse.sigmas, function.sigmas)
        sigmas = tuple(tuple(min(c, f) for c, f in zip(*rows)) for rows in pairs)
        coarse = dataclasses.replace(coarse, sigmas=sigmas, level=min(coarse.level, function.level))
    return dataclasses.replace(function, coarse=coarse)


def two_scales(
    fine_pass,
    coarse_pass,
    frames: Iterable[torch.Tensor],
    sigma: float | NoiseLevelFunction | None,
) -> Iterator[torch.Tensor]:
    """Yield `combine(fine, coarse)` frame by frame: fine_pass(frames, σ) and coarse_pass(halved frames, σ₂)
    stream side by side (each holds its own few windows; the frames between them are held once). Frames
    with a side under MIN_SIDE go through the fine pass alone."""
    if sigma is None:
        raise DenoiseError("denoising at two scales needs the noise level: pass sigma (or 'auto'), or scales=1")
    source = iter(frames)
    first = next(source, None)
    if first is None or min(first.shape[-2:]) < MIN_SIDE:
        yield from fine_pass(source if first is None else itertools.chain([first], source), sigma)
        return
    fine_frames, coarse_frames = itertools.tee(itertools.chain([first], source))
    coarse = coarse_pass((halve(frame) for frame in coarse_frames), coarse_sigma(sigma))
    for fine in fine_pass(fine_frames, sigma):
        yield combine(fine, next(coarse))

"""Undo the bias that clipped noise leaves in a denoised frame.

Stored frames clip their noise at the ends of the range: a pixel of true value x with noise of std σ is
stored as clip(x + σZ, 0, 1), whose mean is not x near black or white but

    m_σ(x) = E[clip(x + σZ, 0, 1)] = (1 − Φ(β)) + x·(Φ(β) − Φ(α)) + σ·(φ(α) − φ(β)),  α = −x/σ, β = (1 − x)/σ

(Z standard normal; at σ = 25/255 a black pixel averages 10 levels above 0). Fusion averages and the model
smooths, so what they return is close to m_σ(x), not to x: a bias no amount of denoising removes. m_σ is
increasing, so a denoised value v gives back x = m_σ⁻¹(v) (A. Foi, "Clipped noisy images: heteroskedastic
modeling and practical denoising", Signal Processing 89(12), 2009). `unclip` reads x − v per pixel and channel
off a table over (σ, v), solved once by Newton's method on [0, 1], where m_σ'(x) = Φ(β) − Φ(α) is the chance that
the noisy value was not clipped.

σ is the noise of the frames as they came (what `clean` was told, or its noise level function read at each
pixel), not what fusion leaves: the clipping happened to the noisy pixels. Noise a camera clipped in linear light
and then bent by its gamma is treated as if clipped where it is stored: that undoes part of its bias, not the
gamma's own (benchmarks/results/clipping/README.md); where σ auto finds a camera's gamma, its curve is read × the
codec's lift, the noise as the camera clipped it (`videodenoise.denoise.camera_bias`, LIFT_CLIPPING).
"""

from __future__ import annotations

import functools
import math

import torch

NEWTON_STEPS = 12  # from x = v; m_σ is smooth and monotone on [0, 1]: 12 steps settle it to float64 precision


def clipped_mean(x: torch.Tensor, sigma: torch.Tensor | float) -> torch.Tensor:
    """m_σ(x): the mean of clip(x + σZ, 0, 1) for true values x (σ > 0, broadcast against x)."""
    return _mean_and_slope(x, torch.as_tensor(sigma, dtype=x.dtype, device=x.device))[0]


def clipped_sigma(sigma, frame: torch.Tensor) -> torch.Tensor | float:
    """The σ the noise had where a frame was clipped: the σ told, or a `NoiseLevelFunction`'s curve read from
    the frame (C, H, W; the video's own channels, which the function was estimated on). Not the curve times its
    grain (the white noise a codec's smoothed noise came from): chosen against on the validation clips
    (benchmarks/results/clipping/README.md, "Second choice")."""
    return sigma(frame) if callable(sigma) else sigma


def unclip(frame: torch.Tensor, sigma: torch.Tensor | float) -> torch.Tensor:
    """The true values x in [0, 1] whose clipped means m_σ(x) are the frame's values (clamped to [0, 1]);
    sigma: one σ, or a map broadcast against the frame (e.g. (C, H, W) per channel). Where σ is 0 the
    frame is returned as it is. Read off a table of x − v over (σ, v), interpolated bilinearly (Newton's
    method per pixel took longer than the denoising: 0.3 s a 320×240 colour frame); within 0.06 of a level."""
    value = frame.clamp(0, 1)
    sigma = torch.as_tensor(sigma, dtype=value.dtype, device=value.device).expand_as(value)
    table = _table_on(value.device, value.dtype)
    # grid_sample's (x, y) in [−1, 1]: x along the value, y along σ (σ above the table's last row reads it)
    where = torch.stack([value * 2 - 1, (sigma / TABLE_SIGMA).clamp(max=1) * 2 - 1], dim=-1)
    correction = torch.nn.functional.grid_sample(
        table[None, None], where.reshape(1, 1, -1, 2), mode="bilinear", padding_mode="border", align_corners=True
    )
    return (value + correction.view_as(value)).clamp_(0, 1)


TABLE_SIGMA, TABLE_SIGMAS, TABLE_VALUES = 0.5, 513, 2049  # σ up to 127.5 levels; the table is 4 MiB in float32


@functools.cache
def _table_on(device: torch.device, dtype: torch.dtype) -> torch.Tensor:
    """The table where the frames are (copied to a GPU once, not for every frame)."""
    return _correction_table().to(device, dtype)


@functools.cache
def _correction_table() -> torch.Tensor:
    """(TABLE_SIGMAS, TABLE_VALUES): m_σ⁻¹(v) − v on a grid of σ in [0, TABLE_SIGMA] and v in [0, 1], solved by
    Newton's method in float64 (σ = 0: no correction)."""
    sigma = torch.linspace(0, TABLE_SIGMA, TABLE_SIGMAS, dtype=torch.float64)[:, None].clamp(min=1e-6)
    value = torch.linspace(0, 1, TABLE_VALUES, dtype=torch.float64).expand(TABLE_SIGMAS, -1)
    x = value.clone()
    for _ in range(NEWTON_STEPS):
        mean, slope = _mean_and_slope(x, sigma)
        x = (x - (mean - value) / slope.clamp(min=1e-9)).clamp_(0, 1)
    correction = x - value
    correction[0] = 0
    return correction.float()


def _mean_and_slope(x: torch.Tensor, sigma: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """m_σ(x) and m_σ'(x) = Φ(β) − Φ(α), the chance that the noisy value was not clipped."""
    alpha, beta = -x / sigma, (1 - x) / sigma
    slope = torch.special.ndtr(beta) - torch.special.ndtr(alpha)
    density = torch.exp(-0.5 * alpha * alpha) - torch.exp(-0.5 * beta * beta)
    return (1 - torch.special.ndtr(beta)) + x * slope + sigma * density / math.sqrt(2 * math.pi), slope

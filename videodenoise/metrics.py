"""Metrics of denoised clips, the one place they are defined (evaluation, demo, training and the
benchmarks all use these):

- RMSE on the [0, 1] scale, computed per frame (over its pixels and channels), then averaged;
- PSNR = −20·log10(RMSE) per frame (peak 1), then averaged (so mean PSNR ≠ −20·log10(mean RMSE));
- SSIM per frame by `skimage.metrics.structural_similarity(data_range=1)` (window 7, smaller on
  tiny frames), then averaged;
- per-layer MSE: the mean squared error of every layer's estimate (layer 0 = the noisy input), the
  training loss;
- descent: whether a sample's loss falls at every layer, and the share of samples for which it does.
"""

from __future__ import annotations

import numpy as np
import torch

__all__ = [
    "frame_rmse",
    "psnr_from_rmse",
    "frame_ssim",
    "clip_metrics",
    "per_layer_mse",
    "descending_samples",
    "descent_fraction",
]


def _as_numpy(clip) -> np.ndarray:
    if isinstance(clip, torch.Tensor):
        return clip.detach().cpu().numpy()
    return np.asarray(clip)


def frame_rmse(estimate, clean) -> np.ndarray:
    """RMSE of every frame of (T, C, H, W) clips on the [0, 1] scale: shape (T,)."""
    difference = _as_numpy(estimate).astype(np.float64) - _as_numpy(clean).astype(np.float64)
    return np.sqrt((difference**2).reshape(difference.shape[0], -1).mean(axis=1))


def psnr_from_rmse(rmse) -> np.ndarray:
    """PSNR in dB of pixel values in [0, 1] (peak 1): −20·log10(RMSE); RMSE 0 counts as 1e-10 (200 dB)."""
    return -20.0 * np.log10(np.maximum(np.asarray(rmse, dtype=np.float64), 1e-10))


def _ssim_window(height: int, width: int) -> int | None:
    """skimage's default 7×7 window, shrunk to the largest odd size that fits tiny frames (None: < 3)."""
    size = min(7, height, width)
    size -= 1 - size % 2
    return size if size >= 3 else None


def frame_ssim(estimate, clean) -> np.ndarray:
    """SSIM of every frame of (T, C, H, W) clips, data_range 1 (colour: channel_axis): shape (T,).
    NaN for frames smaller than 3×3, where SSIM has no window."""
    from skimage.metrics import structural_similarity

    estimate, clean = _as_numpy(estimate).astype(np.float64), _as_numpy(clean).astype(np.float64)
    frames, channels, height, width = clean.shape
    window = _ssim_window(height, width)
    if window is None:
        return np.full(frames, np.nan)
    values = []
    for t in range(frames):
        if channels == 1:
            values.append(structural_similarity(clean[t, 0], estimate[t, 0], data_range=1.0, win_size=window))
        else:
            values.append(
                structural_similarity(
                    np.moveaxis(clean[t], 0, -1),
                    np.moveaxis(estimate[t], 0, -1),
                    data_range=1.0,
                    win_size=window,
                    channel_axis=-1,
                )
            )
    return np.array(values)


def clip_metrics(estimate, clean, clamp: bool = True) -> dict[str, float]:
    """RMSE, PSNR and SSIM of a (T, C, H, W) estimate, each computed per frame and averaged over frames.

    clamp: clip the estimate to [0, 1] first (what a written video holds); the clean clip is in [0, 1].
    """
    estimate = _as_numpy(estimate)
    if clamp:
        estimate = np.clip(estimate, 0.0, 1.0)
    rmse = frame_rmse(estimate, clean)
    return {
        "rmse": float(rmse.mean()),
        "psnr": float(psnr_from_rmse(rmse).mean()),
        "ssim": float(frame_ssim(estimate, clean).mean()),
    }


def per_layer_mse(
    estimates: list[torch.Tensor], clean: torch.Tensor, weights: torch.Tensor | None = None
) -> torch.Tensor:
    """(L+1, B): the mean squared error of every layer's estimate for every clip of the batch, each
    clip's column multiplied by its weight when `weights` (B,) is given."""
    mse = torch.stack([((estimate.float() - clean) ** 2).flatten(1).mean(1) for estimate in estimates])
    return mse if weights is None else mse * weights


def descending_samples(per_sample: torch.Tensor) -> tuple[int, int]:
    """How many samples (columns of (L+1, B)) have a loss that decreases at every layer, of how many."""
    decreasing = (per_sample[1:] < per_sample[:-1]).all(dim=0)
    return int(decreasing.sum()), per_sample.shape[1]


def descent_fraction(layer_losses) -> float:
    """The share of samples whose loss decreases at every layer; `layer_losses` is (samples, L+1)."""
    flat = np.asarray(layer_losses, dtype=np.float64)
    flat = flat.reshape(-1, flat.shape[-1])
    return float((np.diff(flat, axis=1) < 0).all(axis=1).mean())

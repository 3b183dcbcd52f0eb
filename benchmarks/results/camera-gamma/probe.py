"""Is the bias a camera's gamma leaves worth undoing, and can `clean` estimate it? An exploration on the eight
validation clips only (never the benchmark's held-out clips); kept for its answer, which is "worth it, but not
estimable from what the noise looks like after a codec" (README.md beside this file).

    .venv/bin/python benchmarks/results/camera-gamma/probe.py > benchmarks/results/camera-gamma/probe.log
    .venv/bin/python benchmarks/results/camera-gamma/probe.py exploration > \
        benchmarks/results/camera-gamma/probe-exploration.log   # tune_fusion's exploration set instead

Camera noise is made in linear light: a pixel of linear value x is stored as g(clip(x + n, 0, 1)), n of variance
a·x + b, g the sRGB gamma. g is concave, so the noisy values' mean sits under g(x) in the mid-tones (Jensen's
inequality: about −0.7 σ²/(y + 0.055) at sRGB value y for sRGB noise std σ), and the clip at 0 in linear light,
bent by the gamma's steep foot, lifts blacks far more than a clip of the stored values would. Fusion and the
model return that mean, and `clean`'s correction (`denoise.clipping.unclip`) undoes only a clip of the stored
values. For each validation condition this prints the PSNR gain over the shipped default (fast preset, σ auto,
the clipping's correction on) of four ways to undo the rest, per clip and on average:

* `oracle bins`: per channel, the output's mean error in each of 32 bins of its value subtracted, measured on
  the clean frames (an upper bound for any correction that is a function of the output's value);
* `true a, b`: the output before `unclip` mapped through the inverse of m(x) = E[g(clip(x + n, 0, 1))] with the
  camera model's own a, b and channel gains (what a perfect estimate of the camera's noise would give);
* `fitted`: the same with (a, b) per channel fitted to the σ auto curve (the noise level function `clean`
  estimates, read at 48 bins of the output, least squares on log σ² weighted by pixel counts), applied only when
  the residual's skewness says the noise is a bent Gaussian: S, the least-squares ratio of the third moment of
  noisy − output per bin to the 6·δ·σ² that a gamma's bias δ = −0.7 σ²/(y + 0.055) predicts, above 0.15
  (Gaussian noise added to the stored values has S ≈ 0: |S| ≤ 0.05 here at σ ≥ 10);
* `fitted, up only`: `fitted`'s correction where it raises a value, added to the default's output (which keeps
  `unclip`'s lowering of the blacks).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "benchmarks"))

import tune_fusion  # noqa: E402
import validation_sweep  # noqa: E402

from videodenoise.denoise import clipping  # noqa: E402
from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT  # noqa: E402
from videodenoise.noise.camera import CAMERA_PRESETS, linear_to_srgb, srgb_to_linear  # noqa: E402
from videodenoise.noise.estimation import estimate_clip_noise  # noqa: E402

import bench_quality as quality  # noqa: E402
from _machine import cpu_name  # noqa: E402

CLIPS = "motorcycle-right-pan,cell-pan,clock-motion-pan,page-pan,china-pan,flower-pan,china-objects,flower-objects"
SKEW_THRESHOLD = 0.15
VALUES = np.linspace(0, 1, 513)  # sRGB values of x
NODES, WEIGHTS = np.polynomial.hermite_e.hermegauss(60)
WEIGHTS = WEIGHTS / WEIGHTS.sum()
SHOTS = np.geomspace(1e-4, 0.1, 32)
READS = np.concatenate([[0.0], np.geomspace(1e-6, 1e-2, 32)])


def gamma(linear: np.ndarray) -> np.ndarray:
    return linear_to_srgb(torch.from_numpy(np.clip(linear, 0, 1))).numpy()


LINEAR = srgb_to_linear(torch.from_numpy(VALUES)).numpy()


def moments(shot: np.ndarray, read: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and variance of g(clip(x + n, 0, 1)) at every x of VALUES, for broadcast arrays of a and b."""
    std = np.sqrt(shot[..., None] * LINEAR + read[..., None])
    samples = gamma(LINEAR[..., None] + std[..., None] * NODES)
    mean = (samples * WEIGHTS).sum(-1)
    variance = (np.square(samples - mean[..., None]) * WEIGHTS).sum(-1)
    return np.maximum.accumulate(mean, axis=-1), variance  # monotone for np.interp's inverse


GRID_MEAN, GRID_VARIANCE = moments(SHOTS[:, None], READS[None, :])


def binned(values: np.ndarray, data: np.ndarray, bins: int) -> tuple[np.ndarray, np.ndarray]:
    """(count, mean of data) per bin of values in [0, 1]."""
    index = np.minimum((values * bins).astype(np.int64), bins - 1).ravel()
    count = np.bincount(index, minlength=bins)
    return count, np.bincount(index, data.ravel(), bins) / np.maximum(count, 1)


def skew_ratio(raw: np.ndarray, noisy: np.ndarray) -> float:
    """S: the residual's third moment per bin against what a gamma's bias predicts (see the docstring)."""
    num = den = 0.0
    centres = (np.arange(32) + 0.5) / 32
    for c in range(raw.shape[1]):
        residual = noisy[:, c] - raw[:, c]
        count, mean = binned(raw[:, c], residual, 32)
        index = np.minimum((raw[:, c] * 32).astype(np.int64), 31)
        centred = residual - mean[index]
        variance = binned(raw[:, c], centred**2, 32)[1]
        third = binned(raw[:, c], centred**3, 32)[1]
        ok = (centres > 0.1) & (centres < 0.8) & (count > 500) & (3 * np.sqrt(variance) < centres)
        predicted = 6 * (-0.7 * variance / (centres + 0.055)) * variance
        num += float((count * third * predicted)[ok].sum())
        den += float((count * predicted**2)[ok].sum())
    return num / den if den > 0 else 0.0


def fit(centres: np.ndarray, sigma: np.ndarray, count: np.ndarray) -> tuple[int, int]:
    """The grid's (a, b) whose std at the values whose mean is each centre best matches σ (log σ², by count)."""
    best, where = np.inf, (0, 0)
    for i in range(len(SHOTS)):
        for j in range(len(READS)):
            x = np.interp(centres, GRID_MEAN[i, j], VALUES)
            model = np.interp(x, VALUES, GRID_VARIANCE[i, j])
            error = float((count * np.square(np.log(model + 1e-9) - np.log(sigma**2 + 1e-9))).sum())
            if error < best:
                best, where = error, (i, j)
    return where


def psnr(a: np.ndarray, b: np.ndarray) -> float:
    return float(10 * np.log10(1 / np.mean(np.square(a - b))))


def gains(noisy, output, clean, estimate, level) -> tuple[list[float], float]:
    """The four corrections' PSNR gains over the output, and S."""
    sigma = torch.stack([clipping.clipped_sigma(estimate, torch.from_numpy(f)) for f in output])
    raw = clipping.clipped_mean(torch.from_numpy(output).double(), sigma.double()).numpy()
    skew = skew_ratio(raw, noisy)
    oracle, true, fitted, up = (output.copy() for _ in range(4))
    centres = (np.arange(48) + 0.5) / 48
    knots, curves = np.asarray(estimate.knots), np.asarray(estimate.sigmas)
    for c in range(output.shape[1]):
        count, error = binned(output[:, c], output[:, c] - clean[:, c], 32)
        oracle[:, c] -= error[np.minimum((output[:, c] * 32).astype(np.int64), 31)]
        if level is not None:
            channel_gain = (1.0, 1 - level.spread, 1 + level.spread)[c] if output.shape[1] == 3 else 1.0
            mean, _ = moments(np.array(level.a * channel_gain), np.array(level.b * channel_gain**2))
            true[:, c] = np.interp(raw[:, c], mean, VALUES)
        count = binned(raw[:, c], raw[:, c], 48)[0]
        keep = (count > 300) & (centres > 0.03) & (centres < 0.95)
        curve = curves[c] if len(curves) == 3 else curves[0]
        i, j = fit(centres[keep], np.interp(centres[keep], knots, curve), count[keep])
        undone = np.interp(raw[:, c], GRID_MEAN[i, j], VALUES)
        if skew > SKEW_THRESHOLD:
            fitted[:, c] = undone
            up[:, c] = np.clip(output[:, c] + np.maximum(undone - raw[:, c], 0), 0, 1)
    base = psnr(output, clean)
    found = [psnr(oracle, clean) - base, psnr(true, clean) - base if level else np.nan]
    return found + [psnr(fitted, clean) - base, psnr(up, clean) - base], skew


def main() -> None:
    denoiser = quality.load_denoiser(DEFAULT_CHECKPOINT, {"camera_bias": "off"})  # what the probe ran against
    if sys.argv[1:] == ["exploration"]:  # bigbuckbunny and pans over four training photographs
        clips = tune_fusion.validation_clips(5, quality.DEFAULT_SIZE)
    else:
        clips = quality.build_clips(CLIPS.split(","), 5, quality.DEFAULT_SIZE)
    names = [clip.name for clip in clips]
    print(f"clips: {', '.join(names)}; 5 frames; the default, σ auto; {cpu_name()}, {torch.get_num_threads()} threads")
    methods = ("oracle bins", "true a, b", "fitted", "fitted, up only")
    for condition, draws in validation_sweep.noisy_clips(clips):
        level = CAMERA_PRESETS[condition.split()[0]] if not condition.startswith("gaussian") else None
        rows, skews = [], []
        for clip, draw in zip(clips, draws):
            noisy = torch.from_numpy(draw).float() / 255
            estimate = estimate_clip_noise(noisy)
            output = denoiser.denoise_clip(noisy, estimate).double().numpy()
            found, skew = gains(draw / 255.0, output, clip.frames / 255.0, estimate, level)
            rows.append(found)
            skews.append(skew)
        rows = np.array(rows)
        print(f"\n{condition}: S per clip " + " ".join(f"{s:+.2f}" for s in skews), flush=True)
        for k, method in enumerate(methods):
            if not np.isnan(rows[0, k]):
                per_clip = " ".join(f"{g:+.2f}" for g in rows[:, k])
                print(f"  {method:16s} mean {rows[:, k].mean():+.2f} dB | {per_clip}", flush=True)


if __name__ == "__main__":
    main()

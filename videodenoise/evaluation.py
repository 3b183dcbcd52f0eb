"""Evaluation: RMSE across a sweep of test noise levels γ, per-layer losses, classical baselines (SPEC §4).

    result = evaluate(["runs/dust-erm/best.safetensors"], EvalConfig(dataset="samples", split="test"))
    result.write("evaluations/samples")      # results.csv, results.json, report.md, figures

What is measured, for every checkpoint and baseline, every noise kind, perturbation site and level:

- **The noisy clips.** σ_test = γ·σ_train (σ_train from the checkpoints' metadata, or given), or
  absolute σ on the 0-255 scale (`sigmas`). For each clip and noise seed one standard draw is made
  from a `torch.Generator` seeded by (seed, video, start frame, noise kind) on the CPU and scaled to
  each σ (common random numbers: the curves over γ are not jittered by fresh noise), and exactly
  that noisy tensor goes to every model and every baseline.
- **Metrics of the final estimate**, clamped to [0, 1] first (as a written video would be):
  RMSE on the [0, 1] scale computed per frame (over its pixels and channels) then averaged over
  frames; PSNR = −20·log10(RMSE) per frame, then averaged (so mean PSNR ≠ −20·log10(mean RMSE));
  SSIM per frame by `skimage.metrics.structural_similarity(data_range=1)` (channel_axis for
  colour; window 7, smaller on tiny frames), then averaged. Means and standard deviations are over
  all (clip, noise seed) samples; `rmse_seed_std` is the spread of the per-seed means.
- **Per-layer loss** (models only): the MSE of every layer's readout (layer 0 = the noisy input),
  not clamped, exactly the training loss `per_layer_mse`; and the **descent fraction**, the share of
  (clip, seed) samples whose loss falls at every layer.

Perturbation site "input" (default) adds the noise to the clip. Site "layers" also perturbs every
layer's input: the clip is noisy as for "input", and the representation entering layers 2..L gets a
fresh perturbation of the same kind and σ, encoded by the model's own (linear) embedding of the
pixel-domain perturbation `noise(0.5) − 0.5`, so that it is measured in pixel units for every model.
Baselines have no layers and are evaluated at site "input" only.
"""

from __future__ import annotations

import csv
import json
import math
import os
import time
import warnings
import zlib
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np
import torch

from .errors import VideodenoiseError
from .noise import DEFAULT_GAMMAS, DEFAULT_SIGMA_TRAIN, NOISE_KINDS, gamma_sweep, make_noise, sigma_from_255

SITES = ("input", "layers")
METRICS = ("rmse", "psnr", "ssim")
LOWER_IS_BETTER = {"rmse": True, "psnr": False, "ssim": False, "descent_fraction": False}
METRIC_TITLES = {"rmse": "RMSE", "psnr": "PSNR (dB)", "ssim": "SSIM", "descent_fraction": "descent fraction"}


class EvaluationError(VideodenoiseError):
    """An evaluation option, checkpoint or dataset choice is invalid."""


# ---------------------------------------------------------------------------------------------------
# metrics


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
            values.append(structural_similarity(np.moveaxis(clean[t], 0, -1), np.moveaxis(estimate[t], 0, -1),
                                                data_range=1.0, win_size=window, channel_axis=-1))
    return np.array(values)


def clip_metrics(estimate, clean, clamp: bool = True) -> dict[str, float]:
    """RMSE, PSNR and SSIM of a (T, C, H, W) estimate, each computed per frame and averaged over frames.

    clamp: clip the estimate to [0, 1] first (what a written video holds); the clean clip is in [0, 1].
    """
    estimate = _as_numpy(estimate)
    if clamp:
        estimate = np.clip(estimate, 0.0, 1.0)
    rmse = frame_rmse(estimate, clean)
    return {"rmse": float(rmse.mean()), "psnr": float(psnr_from_rmse(rmse).mean()),
            "ssim": float(frame_ssim(estimate, clean).mean())}


# ---------------------------------------------------------------------------------------------------
# baselines: (T, C, H, W) float noisy clip and the σ it carries ([0, 1] scale) → (T, C, H, W) estimate


OPENCV_H_GREY = 0.8  # h = 0.8·σ₂₅₅ for grey clips
OPENCV_H_COLOUR = 0.4  # h = 0.4·σ₂₅₅ (luminance) and hColor = 0.6·σ₂₅₅ for colour clips
OPENCV_H_CHROMA = 0.6
OPENCV_TEMPORAL_WINDOW = 5
NLM_H = 0.6  # skimage non-local means: h = 0.6·σ with sigma=σ passed, fast mode
TV_WEIGHT = 0.75  # total variation (Chambolle): weight = 0.75·σ


def _to_uint8(frames: np.ndarray) -> np.ndarray:
    return np.round(np.clip(frames, 0.0, 1.0) * 255.0).astype(np.uint8)


def denoise_noisy(noisy: np.ndarray, sigma: float) -> np.ndarray:
    """The noisy input itself (the floor every denoiser must beat)."""
    return noisy


def denoise_nlm_opencv(noisy: np.ndarray, sigma: float, window: int = OPENCV_TEMPORAL_WINDOW) -> np.ndarray:
    """OpenCV temporal non-local means: `fastNlMeansDenoisingMulti` (grey) or
    `fastNlMeansDenoisingColoredMulti` (colour) on the clip as 8-bit frames (clipped to [0, 1] and
    rounded: the functions take uint8 only), template 7, search 21, and a temporal window of `window`
    frames centred on each frame. OpenCV only takes centred windows, and the window must lie inside
    the clip, so near the clip's ends it shrinks to the largest odd size that fits (the first and
    last frame are denoised alone). h = 0.8·σ₂₅₅ for grey; h = 0.4·σ₂₅₅ and hColor = 0.6·σ₂₅₅ for colour."""
    import cv2

    frames_count, channels = noisy.shape[:2]
    sigma_255 = sigma * 255.0
    images = _to_uint8(np.moveaxis(noisy, 1, -1))  # (T, H, W, C)
    if channels == 3:
        images = np.ascontiguousarray(images[..., ::-1])  # OpenCV's colour functions expect BGR
    else:
        images = np.ascontiguousarray(images[..., 0])
    out = np.empty_like(images)
    for t in range(frames_count):
        span = min(window - 1 + window % 2, 2 * min(t, frames_count - 1 - t) + 1)
        first = t - span // 2
        stack = [images[k] for k in range(first, first + span)]
        if channels == 3:
            h, h_colour = OPENCV_H_COLOUR * sigma_255, OPENCV_H_CHROMA * sigma_255
            if span == 1:
                out[t] = cv2.fastNlMeansDenoisingColored(stack[0], None, h, h_colour, 7, 21)
            else:
                out[t] = cv2.fastNlMeansDenoisingColoredMulti(stack, t - first, span, None, h, h_colour, 7, 21)
        else:
            h = OPENCV_H_GREY * sigma_255
            if span == 1:
                out[t] = cv2.fastNlMeansDenoising(stack[0], None, h, 7, 21)
            else:
                out[t] = cv2.fastNlMeansDenoisingMulti(stack, t - first, span, None, h, 7, 21)
    if channels == 3:
        out = out[..., ::-1]
    else:
        out = out[..., None]
    return np.moveaxis(out.astype(np.float32) / 255.0, -1, 1)


def _per_frame(noisy: np.ndarray, function: Callable[[np.ndarray, bool], np.ndarray]) -> np.ndarray:
    """Apply a single-image denoiser to every frame; it gets (H, W) or (H, W, C) and a colour flag."""
    out = np.empty_like(noisy)
    colour = noisy.shape[1] == 3
    for t in range(noisy.shape[0]):
        image = np.moveaxis(noisy[t], 0, -1) if colour else noisy[t, 0]
        result = function(image, colour)
        out[t] = np.moveaxis(result, -1, 0) if colour else result[None]
    return out


def denoise_nlm_skimage(noisy: np.ndarray, sigma: float) -> np.ndarray:
    """scikit-image `denoise_nl_means` per frame: patch 5, distance 6, fast mode, sigma = σ passed
    and h = 0.6·σ (scikit-image's advice for fast mode with a known σ)."""
    from skimage.restoration import denoise_nl_means

    return _per_frame(noisy, lambda image, colour: denoise_nl_means(
        image, h=NLM_H * sigma, sigma=sigma, fast_mode=True, patch_size=5, patch_distance=6,
        channel_axis=-1 if colour else None))


def denoise_tv(noisy: np.ndarray, sigma: float) -> np.ndarray:
    """scikit-image `denoise_tv_chambolle` per frame with weight = 0.75·σ."""
    from skimage.restoration import denoise_tv_chambolle

    return _per_frame(noisy, lambda image, colour: denoise_tv_chambolle(
        image, weight=TV_WEIGHT * sigma, channel_axis=-1 if colour else None))


def denoise_wavelet_bayes(noisy: np.ndarray, sigma: float) -> np.ndarray:
    """scikit-image `denoise_wavelet` per frame: BayesShrink, soft thresholds, sigma = σ (known,
    not estimated), rescale_sigma, per RGB channel for colour (no YCbCr conversion)."""
    from skimage.restoration import denoise_wavelet

    return _per_frame(noisy, lambda image, colour: denoise_wavelet(
        image, sigma=sigma, method="BayesShrink", mode="soft", rescale_sigma=True,
        channel_axis=-1 if colour else None))


@dataclass(frozen=True)
class Baseline:
    name: str
    function: Callable[[np.ndarray, float], np.ndarray]
    parameters: str  # how its noise parameter follows from σ, for the report


BASELINES: dict[str, Baseline] = {
    "noisy": Baseline("noisy", denoise_noisy, "the noisy input, clipped to [0, 1]"),
    "nlm-opencv": Baseline("nlm-opencv", denoise_nlm_opencv,
                           f"OpenCV fastNlMeansDenoising(Colored)Multi on 8-bit frames, centred temporal window of "
                           f"{OPENCV_TEMPORAL_WINDOW} frames (shrunk near the clip's ends to stay inside it), "
                           f"template 7, search 21; grey h = "
                           f"{OPENCV_H_GREY}·σ₂₅₅; colour h = {OPENCV_H_COLOUR}·σ₂₅₅, hColor = {OPENCV_H_CHROMA}·σ₂₅₅"),
    "nlm": Baseline("nlm", denoise_nlm_skimage,
                    f"scikit-image denoise_nl_means per frame, patch 5, distance 6, fast mode, sigma = σ, h = {NLM_H}·σ"),
    "tv": Baseline("tv", denoise_tv, f"scikit-image denoise_tv_chambolle per frame, weight = {TV_WEIGHT}·σ"),
    "wavelet": Baseline("wavelet", denoise_wavelet_bayes,
                        "scikit-image denoise_wavelet per frame, BayesShrink, soft, sigma = σ, rescale_sigma"),
}
BASELINE_NAMES = tuple(BASELINES)
BASELINE_NOTE = ("Baseline factors were chosen once to minimise RMSE at σ = 25 on 5-frame 128×128 pans over "
                 "scikit-image's camera and astronaut images (not on any evaluation data), then held fixed.")


# ---------------------------------------------------------------------------------------------------
# configuration


@dataclass
class EvalConfig:
    """What to evaluate on, at which noise levels, with which limits.

    sigma_train ([0, 1] scale) overrides the checkpoints' own; sigmas (0-255 scale) replace the γ
    sweep by absolute levels (γ is still reported, relative to σ_train). Limits: clips_per_video
    evenly spaced clips per video, max_frames only the first frames of every video, max_clips at most
    that many clips in all (evenly spaced over the split). channels None: the checkpoints' (1 without).
    """

    dataset: str = "samples"
    root: str | None = None
    split: str = "test"
    gammas: list[float] = field(default_factory=lambda: list(DEFAULT_GAMMAS))
    sigmas: list[float] | None = None
    sigma_train: float | None = None
    noises: list[str] = field(default_factory=lambda: ["gaussian"])
    sites: list[str] = field(default_factory=lambda: ["input"])
    seeds: list[int] = field(default_factory=lambda: [0, 1, 2])
    clip_length: int = 5
    crop: int | None = None
    resize: float | None = None
    channels: int | None = None
    clips_per_video: int | None = None
    max_frames: int | None = None
    max_clips: int | None = None
    baselines: list[str] = field(default_factory=lambda: list(BASELINE_NAMES))
    clip_noise: bool = False
    clamp: bool = True
    device: str = "auto"

    def __post_init__(self) -> None:
        self.gammas = [float(g) for g in self.gammas]
        self.sigmas = None if self.sigmas is None else [float(s) for s in self.sigmas]
        self.noises, self.sites = list(self.noises), list(self.sites)
        self.seeds, self.baselines = [int(s) for s in self.seeds], list(self.baselines)
        checks = [
            (bool(self.gammas) or bool(self.sigmas), "give at least one γ (or absolute σ)"),
            (all(g > 0 for g in self.gammas), f"γ must be positive, got {self.gammas}"),
            (self.sigmas is None or all(s > 0 for s in self.sigmas), f"σ must be positive, got {self.sigmas}"),
            (self.sigma_train is None or self.sigma_train > 0, f"sigma_train must be positive, got {self.sigma_train}"),
            (bool(self.noises) and all(n in NOISE_KINDS for n in self.noises),
             f"unknown noise kind in {self.noises}; choose from: {', '.join(NOISE_KINDS)}"),
            (bool(self.sites) and all(s in SITES for s in self.sites),
             f"unknown perturbation site in {self.sites}; choose from: {', '.join(SITES)}"),
            (bool(self.seeds), "give at least one noise seed"),
            (len(set(self.seeds)) == len(self.seeds), f"noise seeds repeat: {self.seeds}"),
            (len(set(self.baselines)) == len(self.baselines), f"baselines repeat: {self.baselines}"),
            (len(set(self.noises)) == len(self.noises) and len(set(self.sites)) == len(self.sites),
             "noise kinds and sites must not repeat"),
            (all(b in BASELINES for b in self.baselines),
             f"unknown baseline in {self.baselines}; choose from: {', '.join(BASELINE_NAMES)}"),
            (self.clip_length >= 1, f"clip length must be at least 1, got {self.clip_length}"),
            (self.channels in (None, 1, 3), f"channels must be 1 or 3, got {self.channels}"),
            (self.clips_per_video is None or self.clips_per_video >= 1, "clips per video must be at least 1"),
            (self.max_clips is None or self.max_clips >= 1, "max clips must be at least 1"),
            (self.max_frames is None or self.max_frames >= self.clip_length,
             f"max frames ({self.max_frames}) must be at least the clip length ({self.clip_length})"),
        ]
        for ok, message in checks:
            if not ok:
                raise EvaluationError(message)

    @classmethod
    def from_dict(cls, values: dict) -> "EvalConfig":
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise EvaluationError(f"unknown evaluation option(s) {', '.join(unknown)}; valid: {', '.join(sorted(known))}")
        return cls(**values)

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Level:
    """One test noise level: γ relative to σ_train and σ on the [0, 1] scale."""

    gamma: float
    sigma: float

    @property
    def sigma_255(self) -> float:
        return self.sigma * 255.0

    @property
    def label(self) -> str:
        return f"γ={self.gamma:g} (σ={self.sigma_255:.3g})"


def noise_levels(config: EvalConfig, sigma_train: float) -> list[Level]:
    """The levels of a config: σ_test = γ·σ_train, or the absolute σ (0-255) with γ = σ/σ_train."""
    if config.sigmas:
        return [Level(sigma_from_255(s) / sigma_train, sigma_from_255(s)) for s in config.sigmas]
    return [Level(gamma, sigma) for gamma, sigma in gamma_sweep(sigma_train, config.gammas)]


# ---------------------------------------------------------------------------------------------------
# checkpoints


@dataclass
class CheckpointInfo:
    label: str
    path: Path
    model_name: str
    mode: str | None
    sigma_train: float | None
    step: int | None
    trained_on: str | None
    channels: int
    layers: int
    run_dir: Path | None

    def to_dict(self) -> dict:
        values = asdict(self)
        values["path"], values["run_dir"] = str(self.path), None if self.run_dir is None else str(self.run_dir)
        return values


def resolve_checkpoint(path: str | os.PathLike) -> Path:
    """A weights file, or a run folder (its best.safetensors, else last.safetensors)."""
    path = Path(path).expanduser()
    if path.is_dir():
        for name in ("best.safetensors", "last.safetensors"):
            if (path / name).is_file():
                return path / name
        raise EvaluationError(f"run folder '{path}' holds no best.safetensors or last.safetensors yet; train it first")
    if not path.is_file():
        raise EvaluationError(f"checkpoint '{path}' does not exist; pass a .safetensors file or a run folder")
    return path


def load_checkpoints(paths: Sequence[str | os.PathLike], labels: Sequence[str] | None = None,
                     device: torch.device | str = "cpu") -> tuple[list[CheckpointInfo], list[torch.nn.Module]]:
    """Load every checkpoint (in eval mode) with what its metadata says; labels default to the run
    folder's name (or the file's stem), made unique."""
    from .models import load_model, read_metadata

    infos, models = [], []
    for index, given in enumerate(paths):
        path = resolve_checkpoint(given)
        metadata = read_metadata(path)
        model = load_model(path, map_location=device)
        run_dir = path.parent if (path.parent / "config.json").is_file() else None
        label = labels[index] if labels else (run_dir.name if run_dir is not None else path.stem)
        sigma = metadata.get("sigma_train")
        infos.append(CheckpointInfo(
            label=label, path=path, model_name=metadata["videodenoise_model"], mode=metadata.get("mode"),
            sigma_train=float(sigma) if sigma else None,
            step=int(metadata["step"]) if metadata.get("step", "").isdigit() else None,
            trained_on=metadata.get("dataset"), channels=model.config.channels, layers=model.num_layers,
            run_dir=run_dir,
        ))
        models.append(model)
    _unique_labels(infos)
    return infos, models


def _unique_labels(infos: list[CheckpointInfo]) -> None:
    seen: dict[str, int] = {}
    for info in infos:
        if sum(other.label == info.label for other in infos) > 1:
            info.label = f"{info.label}/{info.path.stem}"
    for info in infos:
        count = seen.get(info.label, 0)
        seen[info.label] = count + 1
        if count:
            info.label = f"{info.label}#{count + 1}"


# ---------------------------------------------------------------------------------------------------
# clips


def evaluation_clips(config: EvalConfig, channels: int):
    """SequentialClips of the split (non-overlapping, centre crop), cut down by the config's limits."""
    from .datasets import SequentialClips, load_dataset

    dataset = load_dataset(config.dataset, config.root)
    sources = dataset.clips(config.split)
    clips = SequentialClips(sources, config.clip_length, config.crop, channels, config.resize)
    index = []
    for video in clips.usable:
        length = len(clips.readers[video])
        if config.max_frames is not None:
            length = min(length, config.max_frames)
        starts = list(range(0, length - config.clip_length + 1, config.clip_length))
        index += [(video, start) for start in _evenly(starts, config.clips_per_video)]
    index = _evenly(index, config.max_clips)
    if not index:
        raise EvaluationError(f"no clip of {config.clip_length} frames fits the limits on '{config.dataset}/{config.split}'")
    clips.index = index
    return clips


def _evenly(items: list, count: int | None) -> list:
    if count is None or len(items) <= count:
        return list(items)
    keep = np.linspace(0, len(items) - 1, count).round().astype(int)
    return [items[k] for k in keep]


def noise_seed(seed: int, video: int, start: int, kind: str, layer: int = 0) -> int:
    """A 63-bit generator seed from the noise seed, the clip (video, start frame), the noise kind and
    the layer (0: the input), and from nothing else: not the method, not σ (common random numbers)."""
    sequence = np.random.SeedSequence([seed, video, start, zlib.crc32(kind.encode()), layer])
    return int(sequence.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))


# ---------------------------------------------------------------------------------------------------
# the result


@dataclass
class EvaluationResult:
    """Everything one evaluation measured; `write` makes the output folder."""

    config: EvalConfig
    sigma_train: float
    levels: list[Level]
    checkpoints: list[CheckpointInfo]
    methods: list[str]  # checkpoint labels, then baselines
    clip_names: list[str]  # "video@start" of every clip, in order
    clip_length: int
    frame_size: tuple[int, int]
    # (method, noise, site) → metric → array (levels, clips, seeds); "layer_mse" → (levels, clips, seeds, L+1)
    samples: dict[tuple[str, str, str], dict[str, np.ndarray]]
    seconds: float = 0.0
    method_seconds: dict[str, float] = field(default_factory=dict)
    channels: int = 1

    @property
    def n_clips(self) -> int:
        return len(self.clip_names)

    @property
    def n_frames(self) -> int:
        return self.n_clips * self.clip_length

    def checkpoint(self, method: str) -> CheckpointInfo | None:
        return next((c for c in self.checkpoints if c.label == method), None)

    def rows(self) -> list[dict[str, Any]]:
        """One row per (method, noise, site, level): means and spreads over clips × seeds."""
        rows = []
        for (method, noise, site), arrays in self.samples.items():
            info = self.checkpoint(method)
            for index, level in enumerate(self.levels):
                row: dict[str, Any] = {
                    "method": method, "type": "model" if info else "baseline",
                    "model": info.model_name if info else "", "mode": (info.mode or "") if info else "",
                    "noise": noise, "site": site, "gamma": level.gamma, "sigma_255": round(level.sigma_255, 6),
                }
                for metric in METRICS:
                    values = arrays[metric][index]  # (clips, seeds); SSIM is NaN on frames under 3×3
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN: the mean is NaN, say nothing
                        row[f"{metric}_mean"] = float(np.nanmean(values))
                        row[f"{metric}_std"] = float(np.nanstd(values, ddof=1)) if values.size > 1 else 0.0
                seed_means = arrays["rmse"][index].mean(axis=0)
                row["rmse_seed_std"] = float(seed_means.std(ddof=1)) if seed_means.size > 1 else 0.0
                if "layer_mse" in arrays:
                    layer = arrays["layer_mse"][index]  # (clips, seeds, L+1)
                    row["layer_mse"] = layer.mean(axis=(0, 1)).tolist()
                    flat = layer.reshape(-1, layer.shape[-1])
                    row["descent_fraction"] = float((np.diff(flat, axis=1) < 0).all(axis=1).mean())
                else:
                    row["layer_mse"], row["descent_fraction"] = None, None
                row.update(clips=self.n_clips, frames=self.n_frames, seeds=len(self.config.seeds))
                rows.append(row)
        return rows

    def cell(self, method: str, level: Level, noise: str | None = None, site: str = "input") -> dict | None:
        noise = noise or self.config.noises[0]
        for row in self.rows():
            if (row["method"], row["noise"], row["site"], row["gamma"]) == (method, noise, site, level.gamma):
                return row
        return None

    def to_dict(self) -> dict:
        return {
            "format": "videodenoise-eval-1",
            "config": self.config.to_dict(),
            "sigma_train": self.sigma_train,
            "levels": [{"gamma": l.gamma, "sigma": l.sigma, "sigma_255": l.sigma_255} for l in self.levels],
            "checkpoints": [c.to_dict() for c in self.checkpoints],
            "methods": self.methods,
            "clips": self.clip_names,
            "clip_length": self.clip_length,
            "frame_size": list(self.frame_size),
            "channels": self.channels,
            "n_clips": self.n_clips,
            "n_frames": self.n_frames,
            "rows": self.rows(),
            "per_sample": [
                {"method": method, "noise": noise, "site": site,
                 **{name: array.tolist() for name, array in arrays.items()}}
                for (method, noise, site), arrays in self.samples.items()
            ],
            "baselines": {name: BASELINES[name].parameters for name in self.config.baselines},
            "seconds": self.seconds,
            "method_seconds": self.method_seconds,
            "torch": torch.__version__,
        }

    @classmethod
    def from_dict(cls, values: dict) -> "EvaluationResult":
        """Rebuild a result from its results.json (e.g. to redraw figures or aggregate an experiment)."""
        if values.get("format") != "videodenoise-eval-1":
            raise EvaluationError("not a videodenoise results.json")
        checkpoints = []
        for c in values["checkpoints"]:
            c = dict(c)
            c["path"] = Path(c["path"])
            c["run_dir"] = None if c["run_dir"] is None else Path(c["run_dir"])
            checkpoints.append(CheckpointInfo(**c))
        samples = {}
        for entry in values["per_sample"]:
            key = (entry["method"], entry["noise"], entry["site"])
            samples[key] = {name: np.array(entry[name], dtype=np.float64)
                            for name in entry if name not in ("method", "noise", "site")}
        return cls(
            config=EvalConfig.from_dict(values["config"]), sigma_train=values["sigma_train"],
            levels=[Level(l["gamma"], l["sigma"]) for l in values["levels"]], checkpoints=checkpoints,
            methods=values["methods"], clip_names=values["clips"], clip_length=values["clip_length"],
            frame_size=tuple(values["frame_size"]), samples=samples, seconds=values.get("seconds", 0.0),
            method_seconds=values.get("method_seconds", {}), channels=values.get("channels", 1),
        )

    def write(self, out_dir: str | os.PathLike, figures: bool = True) -> dict[str, Path]:
        """results.csv, results.json, report.md and the figures (PNG) into `out_dir`."""
        return write_evaluation_outputs(self, Path(out_dir), figures=figures)


def json_safe(value):
    """A copy of nested dicts and lists with NaN floats as None (strict JSON)."""
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_safe(v) for v in value]
    return None if isinstance(value, float) and math.isnan(value) else value


def read_results(path: str | os.PathLike) -> EvaluationResult:
    """An EvaluationResult from a results.json (or the folder holding it)."""
    path = Path(path)
    if path.is_dir():
        path = path / "results.json"
    if not path.is_file():
        raise EvaluationError(f"'{path}' does not exist; run `videodenoise evaluate` first")
    return EvaluationResult.from_dict(json.loads(path.read_text()))


# ---------------------------------------------------------------------------------------------------
# the sweep


def _common(values: list, what: str, hint: str):
    distinct = sorted(set(values))
    if len(distinct) > 1:
        raise EvaluationError(f"the checkpoints disagree on {what} ({', '.join(map(str, distinct))}); {hint}")
    return distinct[0] if distinct else None


def evaluate(checkpoints: Sequence[str | os.PathLike], config: EvalConfig, labels: Sequence[str] | None = None,
             progress: bool = False) -> EvaluationResult:
    """Evaluate checkpoints (weights files or run folders) and the config's baselines on exactly the
    same noisy clips; see the module docstring for every definition."""
    from .devices import resolve_device

    started = time.perf_counter()
    device = resolve_device(config.device)
    infos, models = load_checkpoints(checkpoints, labels, device)
    for info in infos:  # a checkpoint must not share its row with a baseline
        if info.label in BASELINES:
            info.label = f"{info.label} (model)"
    channels = config.channels or _common([i.channels for i in infos], "channels",
                                          "evaluate grey and colour models separately") or 1
    for info in infos:
        if info.channels != channels:
            raise EvaluationError(f"'{info.path}' is a {info.channels}-channel model but the clips have {channels} channel(s)")
    if config.sigma_train is not None:
        sigma_train = config.sigma_train
    else:
        sigma_train = _common([round(i.sigma_train, 9) for i in infos if i.sigma_train is not None], "σ_train",
                              "give the reference with --sigma-train") or DEFAULT_SIGMA_TRAIN
    levels = noise_levels(config, sigma_train)
    if "layers" in config.sites and not models:
        raise EvaluationError("perturbation site 'layers' needs at least one checkpoint (baselines have no layers)")
    for noise in config.noises:  # fail before the sweep, not in the middle of it
        for level in levels:
            make_noise(noise, level.sigma, clip=config.clip_noise)

    clips = evaluation_clips(config, channels)
    clip_names = [f"{clips.sources[video].name}@{start}" for video, start in clips.index]
    methods = [info.label for info in infos] + list(config.baselines)
    shape = (len(levels), len(clips), len(config.seeds))
    samples: dict[tuple[str, str, str], dict[str, np.ndarray]] = {}
    for noise in config.noises:
        for info in infos:
            for site in config.sites:
                samples[(info.label, noise, site)] = {
                    **{m: np.full(shape, np.nan) for m in METRICS},
                    "layer_mse": np.full(shape + (info.layers + 1,), np.nan),
                }
        for name in methods[len(infos):]:
            samples[(name, noise, "input")] = {m: np.full(shape, np.nan) for m in METRICS}
    method_seconds = {name: 0.0 for name in methods}

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    bar = Progress(TextColumn("[bold]evaluating"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   TimeRemainingColumn(), TextColumn("{task.fields[status]}"), disable=not progress)
    frame_size = (0, 0)
    with bar, torch.no_grad():
        task = bar.add_task("evaluating", total=len(clips) * len(config.noises) * len(levels) * len(config.seeds), status="")
        for c, (video, start) in enumerate(clips.index):
            clean = clips[c]  # (T, C, H, W) on the CPU
            frame_size = tuple(clean.shape[-2:])
            clean_device = clean.to(device)
            for noise_kind in config.noises:
                for l, level in enumerate(levels):
                    noise = make_noise(noise_kind, level.sigma, clip=config.clip_noise)
                    layer_noise = make_noise(noise_kind, level.sigma)
                    for s, seed in enumerate(config.seeds):
                        generator = torch.Generator().manual_seed(noise_seed(seed, video, start, noise_kind))
                        noisy = noise(clean, generator=generator)
                        noisy_numpy = noisy.numpy()
                        for name in methods[len(infos):]:
                            tick = time.perf_counter()
                            estimate = BASELINES[name].function(noisy_numpy, level.sigma)
                            method_seconds[name] += time.perf_counter() - tick
                            _store(samples[(name, noise_kind, "input")], (l, c, s), clip_metrics(estimate, clean, config.clamp))
                        perturbations = _LayerPerturbations(clean, layer_noise, seed, video, start, noise_kind)
                        for info, model in zip(infos, models):
                            for site in config.sites:
                                tick = time.perf_counter()
                                extra = perturbations.for_model(info.layers, device) if site == "layers" else None
                                estimates = model(noisy.to(device)[None], all_layers=True, perturbations=extra)
                                method_seconds[info.label] += time.perf_counter() - tick
                                layer_mse = torch.stack([((e[0].float() - clean_device) ** 2).mean() for e in estimates])
                                arrays = samples[(info.label, noise_kind, site)]
                                arrays["layer_mse"][l, c, s] = layer_mse.double().cpu().numpy()
                                _store(arrays, (l, c, s), clip_metrics(estimates[-1][0].float().cpu(), clean, config.clamp))
                        bar.update(task, advance=1, status=f"{clip_names[c]} {noise_kind} {level.label} seed {seed}")
    return EvaluationResult(config=config, sigma_train=sigma_train, levels=levels, checkpoints=infos, methods=methods,
                            clip_names=clip_names, clip_length=config.clip_length, frame_size=frame_size,
                            samples=samples, seconds=time.perf_counter() - started, method_seconds=method_seconds,
                            channels=channels)


def _store(arrays: dict[str, np.ndarray], index: tuple[int, int, int], metrics: dict[str, float]) -> None:
    for name, value in metrics.items():
        arrays[name][index] = value


class _LayerPerturbations:
    """The pixel-domain perturbations of the inputs of layers 2..L for one noisy clip, drawn once and
    shared by every model (layer l's draw does not depend on how many layers a model has)."""

    def __init__(self, clean: torch.Tensor, noise, seed: int, video: int, start: int, kind: str):
        self.grey = torch.full_like(clean, 0.5)
        self.noise, self.key = noise, (seed, video, start, kind)
        self.cache: dict[int, torch.Tensor] = {}

    def layer(self, index: int) -> torch.Tensor:
        if index not in self.cache:
            generator = torch.Generator().manual_seed(noise_seed(*self.key, layer=index))
            self.cache[index] = (self.noise(self.grey, generator=generator) - 0.5)[None]
        return self.cache[index]

    def for_model(self, layers: int, device: torch.device) -> list[torch.Tensor | None]:
        # entry i is added to the representation entering layer i + 1; layer 1 already sees the noisy clip
        return [None] + [self.layer(i).to(device) for i in range(1, layers)]


# ---------------------------------------------------------------------------------------------------
# tables, report, files


CSV_COLUMNS = ("method", "type", "model", "mode", "noise", "site", "gamma", "sigma_255",
               "rmse_mean", "rmse_std", "rmse_seed_std", "psnr_mean", "psnr_std", "ssim_mean", "ssim_std",
               "descent_fraction", "layer_mse", "clips", "frames", "seeds")
DIGITS = {"rmse": 4, "psnr": 2, "ssim": 3, "descent_fraction": 2}


@dataclass
class Table:
    """A methods × levels table of one metric: cell strings, and which cells are the best of their column."""

    title: str
    headers: list[str]
    rows: list[list[str]]
    best: list[list[bool]]

    def markdown(self) -> str:
        lines = ["| " + " | ".join(self.headers) + " |", "|" + "|".join(["---"] + ["---:"] * (len(self.headers) - 1)) + "|"]
        for cells, marks in zip(self.rows, self.best):
            shown = [cells[0]] + [f"**{cell}**" if mark else cell for cell, mark in zip(cells[1:], marks)]
            lines.append("| " + " | ".join(shown) + " |")
        return "\n".join(lines)


def combinations(result: EvaluationResult) -> list[tuple[str, str]]:
    """The (noise, site) pairs evaluated, in config order."""
    return [(noise, site) for noise in result.config.noises for site in result.config.sites]


def metric_table(result: EvaluationResult, metric: str, noise: str, site: str = "input", spread: bool = True) -> Table:
    """Methods × levels for one metric ("rmse", "psnr", "ssim" or "descent_fraction"); the best mean
    of every column is marked (lowest RMSE, highest otherwise); ↓ marks lower-is-better columns."""
    lower = LOWER_IS_BETTER[metric]
    arrow = "↓" if lower else "↑"
    rows_by_method: dict[str, dict[float, dict]] = {}
    for row in result.rows():
        if row["noise"] == noise and row["site"] == site and (metric != "descent_fraction" or row["type"] == "model"):
            rows_by_method.setdefault(row["method"], {})[row["gamma"]] = row
    methods = [m for m in result.methods if m in rows_by_method]
    headers = ["method"] + [f"{level.label} {arrow}" for level in result.levels]
    means = [[rows_by_method[m][level.gamma][metric if metric == "descent_fraction" else f"{metric}_mean"]
              for level in result.levels] for m in methods]
    digits = DIGITS[metric]
    cells, best = [], []
    for m, values in zip(methods, means):
        row = [m]
        for level, value in zip(result.levels, values):
            text = f"{value:.{digits}f}"
            if spread and metric != "descent_fraction":
                text += f" ± {rows_by_method[m][level.gamma][f'{metric}_std']:.{digits}f}"
            row.append(text)
        cells.append(row)
    for values in means:
        best.append([False] * len(values))
    for column in range(len(result.levels)):
        column_values = [values[column] for values in means if not math.isnan(values[column])]
        if not column_values:
            continue
        target = min(column_values) if lower else max(column_values)
        for r, values in enumerate(means):
            best[r][column] = values[column] == target
    what = "mean ± std over" if spread and metric != "descent_fraction" else "over"
    title = (f"{METRIC_TITLES[metric]} {arrow} ({noise} noise, site {site}; {what} {result.n_clips} clips × "
             f"{len(result.config.seeds)} noise seeds, {result.n_frames} frames)")
    return Table(title, headers, cells, best)


def layer_table(result: EvaluationResult, level: Level, noise: str, site: str = "input") -> Table:
    """Per-layer MSE of every model at one level (layer 0 = the noisy input); lowest per layer marked."""
    curves = {row["method"]: row["layer_mse"] for row in result.rows()
              if row["type"] == "model" and row["noise"] == noise and row["site"] == site and row["gamma"] == level.gamma}
    depth = max((len(c) for c in curves.values()), default=0)
    headers = ["method"] + [f"layer {l} ↓" for l in range(depth)] + ["descends at every layer ↑"]
    fraction = {row["method"]: row["descent_fraction"] for row in result.rows()
                if row["type"] == "model" and row["noise"] == noise and row["site"] == site and row["gamma"] == level.gamma}
    cells, values = [], []
    for method, curve in curves.items():
        padded = list(curve) + [math.nan] * (depth - len(curve))
        values.append(padded + [fraction[method]])
        cells.append([method] + ["" if math.isnan(v) else f"{v:.5f}" for v in padded] + [f"{fraction[method]:.0%}"])
    best = [[False] * (depth + 1) for _ in cells]
    for column in range(depth + 1):
        column_values = [v[column] for v in values if not math.isnan(v[column])]
        if column_values and column > 0:
            target = max(column_values) if column == depth else min(column_values)
            for r, v in enumerate(values):
                best[r][column] = v[column] == target
    title = f"per-layer MSE at {level.label} ({noise} noise, site {site}; {result.n_clips} clips × {len(result.config.seeds)} seeds)"
    return Table(title, headers, cells, best)


def report_levels(levels: Sequence[Level]) -> list[Level]:
    """The levels the per-layer views show: γ = 1 (or the closest to it) and the largest γ."""
    closest = min(levels, key=lambda level: abs(level.gamma - 1.0))
    largest = max(levels, key=lambda level: level.gamma)
    return [closest] if closest == largest else [closest, largest]


def write_csv(result: EvaluationResult, path: Path) -> Path:
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=CSV_COLUMNS)
        writer.writeheader()
        for row in result.rows():
            row = dict(row)
            row["layer_mse"] = "" if row["layer_mse"] is None else " ".join(f"{v:.7g}" for v in row["layer_mse"])
            row["descent_fraction"] = "" if row["descent_fraction"] is None else row["descent_fraction"]
            writer.writerow({k: row[k] for k in CSV_COLUMNS})
    return path


def draw_figures(result: EvaluationResult, out_dir: Path) -> dict[str, Path]:
    """rmse_vs_gamma, per_layer_loss (γ = 1 and the largest γ) and multipliers (runs with λ) PNGs."""
    from .plots import plot_layer_losses, plot_metric_vs_gamma, plot_multipliers
    from .training import read_metrics

    paths: dict[str, Path] = {}
    combos = combinations(result)
    rows = result.rows()
    for noise, site in combos:
        suffix = "" if len(combos) == 1 else f"_{noise}_{site}"
        series = {}
        for method in result.methods:
            picked = [r for r in rows if r["method"] == method and r["noise"] == noise and r["site"] == site]
            if picked:
                series[method] = ([r["gamma"] for r in picked], [r["rmse_mean"] for r in picked], None)
        title = (f"{result.config.dataset}/{result.config.split}: {noise} noise at the {site}, "
                 f"{result.n_clips} clips × {len(result.config.seeds)} seeds ({result.n_frames} frames)")
        paths[f"rmse_vs_gamma{suffix}"] = plot_metric_vs_gamma(
            series, out_dir / f"rmse_vs_gamma{suffix}.png", title=title, ylabel="RMSE (final estimate, [0, 1] scale)",
            baselines=[m for m in result.config.baselines if m in series])
        if result.checkpoints:
            panels = []
            for level in report_levels(result.levels):
                curves = {r["method"]: r["layer_mse"] for r in rows if r["type"] == "model" and r["noise"] == noise
                          and r["site"] == site and r["gamma"] == level.gamma}
                panels.append((f"{level.label}, {noise}, site {site}", curves))
            paths[f"per_layer_loss{suffix}"] = plot_layer_losses(
                panels, out_dir / f"per_layer_loss{suffix}.png", ylabel="MSE of layer l's estimate",
                reference=result.sigma_train**2)
    histories = {}
    for info in result.checkpoints:
        if info.run_dir is None:
            continue
        metrics = [m for m in read_metrics(info.run_dir) if "multipliers" in m]
        if metrics and any(any(v != 0 for v in m["multipliers"]) for m in metrics):
            start = [0.0] * len(metrics[0]["multipliers"])  # every multiplier starts at 0 (cooper's DenseMultiplier)
            histories[info.label] = ([0] + [m["epoch"] for m in metrics], [start] + [m["multipliers"] for m in metrics])
    if histories:
        paths["multipliers"] = plot_multipliers(histories, out_dir / "multipliers.png")
    return paths


def render_report(result: EvaluationResult, figures: dict[str, Path]) -> str:
    """The Markdown report: setup, metric definitions, tables per (noise, site), figures, baselines."""
    config = result.config
    height, width = result.frame_size
    lines = [
        f"# Evaluation on {config.dataset} ({config.split} split)",
        "",
        f"- **{result.n_clips} clips × {result.clip_length} frames = {result.n_frames} frames** of "
        f"{width}×{height} ({'colour' if result.channels == 3 else 'grey'}), "
        f"noise seeds {config.seeds} (every table averages over all clips × seeds)",
        f"- σ_train = {result.sigma_train * 255:.4g}/255; levels: " + ", ".join(l.label for l in result.levels)
        + " (σ on the 0-255 scale)",
        f"- noise: {', '.join(config.noises)}{' (clipped to [0, 1])' if config.clip_noise else ''}; "
        f"perturbation site: {', '.join(config.sites)}",
        f"- limits: crop {config.crop or 'none (whole frames)'}, resize {config.resize or 'none'}, clips per video "
        f"{config.clips_per_video or 'all'}, first {config.max_frames or 'all'} frames of each video, at most "
        f"{config.max_clips or 'all'} clips",
        f"- took {result.seconds:.0f} s (" + ", ".join(f"{m} {s:.0f} s" for m, s in result.method_seconds.items()) + ")",
        "",
        "RMSE is on the [0, 1] scale, computed per frame and averaged over frames; PSNR = −20·log10(RMSE) per "
        "frame, then averaged; SSIM is scikit-image's with data_range = 1, per frame, then averaged. Final "
        "estimates are clamped to [0, 1] before these metrics" + ("" if config.clamp else " (off in this run)") + "; "
        "per-layer losses are the unclamped MSE of each layer's readout, as in training. "
        "± is the standard deviation over clips × seeds. **Bold**: best of the column; ↓ lower is better, ↑ higher "
        "is better. The descent fraction is the share of (clip, seed) samples whose loss falls at every layer.",
        "",
    ]
    for noise, site in combinations(result):
        lines += [f"## {noise} noise, perturbation at the {site}", ""]
        for metric in ("rmse", "psnr", "ssim"):
            table = metric_table(result, metric, noise, site)
            lines += [f"### {table.title}", "", table.markdown(), ""]
        if result.checkpoints:
            table = metric_table(result, "descent_fraction", noise, site)
            lines += [f"### {table.title}", "", table.markdown(), ""]
            for level in report_levels(result.levels):
                table = layer_table(result, level, noise, site)
                lines += [f"### {table.title}", "", table.markdown(), ""]
    if figures:
        lines += ["## Figures", ""]
        for name, path in figures.items():
            lines += [f"![{name}]({path.name})", ""]
    if result.checkpoints:
        lines += ["## Checkpoints", "", "| label | model | mode | σ_train (0-255) | step | trained on | layers | file |",
                  "|---|---|---|---:|---:|---|---:|---|"]
        for c in result.checkpoints:
            sigma = "" if c.sigma_train is None else f"{c.sigma_train * 255:.4g}"
            lines.append(f"| {c.label} | {c.model_name} | {c.mode or ''} | {sigma} | {c.step if c.step is not None else ''} "
                         f"| {c.trained_on or ''} | {c.layers} | `{c.path}` |")
        lines.append("")
    if config.baselines:
        lines += ["## Baselines", "", "Each gets exactly the noisy clips the models get, and the true σ of the level "
                  "(for non-Gaussian kinds: the std on mid-grey).", ""]
        lines += [f"- **{name}**: {BASELINES[name].parameters}" for name in config.baselines]
        lines += ["", BASELINE_NOTE, ""]
    if "layers" in config.sites:
        lines += ["Site **layers**: the clip is as noisy as at site input, and the representation entering layers "
                  "2..L also gets a fresh perturbation of the same kind and σ, encoded by the model's own embedding "
                  "of the pixel perturbation noise(0.5) − 0.5. Baselines have no layers and appear at site input only.", ""]
    return "\n".join(lines)


def write_evaluation_outputs(result: EvaluationResult, out_dir: Path, figures: bool = True) -> dict[str, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {"csv": write_csv(result, out_dir / "results.csv")}
    paths["json"] = out_dir / "results.json"
    paths["json"].write_text(json.dumps(json_safe(result.to_dict()), indent=1, default=str, allow_nan=False))
    drawn = draw_figures(result, out_dir) if figures else {}
    paths["report"] = out_dir / "report.md"
    paths["report"].write_text(render_report(result, drawn))
    paths.update(drawn)
    return paths

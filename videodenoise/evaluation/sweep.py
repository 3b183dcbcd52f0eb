"""The evaluation sweep: RMSE across test noise levels γ, per-layer losses, classical baselines.

    result = evaluate(["runs/dust-erm/best.safetensors"], EvalConfig(dataset="samples", split="test"))
    write_evaluation_outputs(result, "evaluations/samples")   # results.csv, results.json, report.md, figures

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
  not clamped, exactly the training loss `per_layer_mse`; the same readouts' RMSE as above (clamped,
  per frame, averaged: `layer_rmse`); and the **descent fraction**, the share of (clip, seed)
  samples whose loss falls at every layer up to the trained depth.
- **Test-time depth** (`depths`): a model with tied layers runs to the deepest of them (or its
  trained depth, if deeper) in one pass, and its per-layer arrays hold every layer of that pass;
  its final metrics stay those of its trained depth. Other models run their trained depth.

Perturbation site "input" (default) adds the noise to the clip. Site "layers" also perturbs every
layer's input: the clip is noisy as for "input", and the representation entering layers 2..L gets a
fresh perturbation of the same kind and σ, encoded by the model's own (linear) embedding of the
pixel-domain perturbation `noise(0.5) − 0.5`, so that it is measured in pixel units for every model.
Baselines have no layers and are evaluated at site "input" only.

The pieces live in modules named after them: `videodenoise.metrics` (RMSE, PSNR, SSIM, per-layer MSE,
descent), `baselines`, `config` (EvalConfig, Level), `videodenoise.models.checkpoints` (loading and
checking weights), `results` (EvaluationResult, read_results) and `reports` (tables, figures, files).
This module holds the sweep itself and the clips it runs on.
"""

from __future__ import annotations

import os
import time
import zlib
from collections.abc import Callable, Sequence

import numpy as np
import torch

from videodenoise.denoise.fusion import align_clip
from videodenoise.devices import resolve_device
from videodenoise.errors import EvaluationError
from videodenoise.evaluation.baselines import BASELINES
from videodenoise.evaluation.config import EvalConfig, noise_levels
from videodenoise.evaluation.results import METRICS, EvaluationResult
from videodenoise.metrics import clip_metrics, frame_rmse
from videodenoise.models.checkpoints import load_checkpoints
from videodenoise.noise.kinds import make_noise
from videodenoise.noise.levels import DEFAULT_SIGMA_TRAIN

# progress(done, total, status): called after every (clip, noise, level, seed) step
Progress = Callable[[int, int, str], None]


# ---------------------------------------------------------------------------------------------------
# clips


def evaluation_clips(config: EvalConfig, channels: int):
    """SequentialClips of the split (non-overlapping, centre crop), cut down by the config's limits."""
    from videodenoise.datasets.clips import SequentialClips
    from videodenoise.datasets.registry import load_dataset

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
        raise EvaluationError(
            f"no clip of {config.clip_length} frames fits the limits on '{config.dataset}/{config.split}'"
        )
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
# the sweep


def _common(values: list, what: str, hint: str):
    distinct = sorted(set(values))
    if len(distinct) > 1:
        raise EvaluationError(f"the checkpoints disagree on {what} ({', '.join(map(str, distinct))}); {hint}")
    return distinct[0] if distinct else None


def evaluate(
    checkpoints: Sequence[str | os.PathLike],
    config: EvalConfig,
    labels: Sequence[str] | None = None,
    progress: Progress | None = None,
) -> EvaluationResult:
    """Evaluate checkpoints (weights files or run folders) and the config's baselines on exactly the
    same noisy clips; see the module docstring for every definition. progress(done, total, status) is
    called after every step (a bool is accepted and ignored, for older callers)."""
    started = time.perf_counter()
    device = resolve_device(config.device)
    infos, models = load_checkpoints(checkpoints, labels, device)
    for info in infos:  # a checkpoint must not share its row with a baseline
        if info.label in BASELINES:
            info.label = f"{info.label} (model)"
    channels = (
        config.channels
        or _common([i.channels for i in infos], "channels", "evaluate grey and colour models separately")
        or 1
    )
    for info in infos:
        if info.channels != channels:
            raise EvaluationError(
                f"'{info.path}' is a {info.channels}-channel model but the clips have {channels} channel(s)"
            )
    if config.sigma_train is not None:
        sigma_train = config.sigma_train
    else:
        sigma_train = (
            _common(
                [round(i.sigma_train, 9) for i in infos if i.sigma_train is not None],
                "σ_train",
                "give the reference with --sigma-train",
            )
            or DEFAULT_SIGMA_TRAIN
        )
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
        for info, model in zip(infos, models):
            for site in config.sites:
                layers = run_depth(model, config.depths) + 1
                samples[(info.label, noise, site)] = {
                    **{m: np.full(shape, np.nan) for m in METRICS},
                    "layer_mse": np.full(shape + (layers,), np.nan),
                    "layer_rmse": np.full(shape + (layers,), np.nan),
                }
        for name in methods[len(infos) :]:
            samples[(name, noise, "input")] = {m: np.full(shape, np.nan) for m in METRICS}
    method_seconds = {name: 0.0 for name in methods}

    report = progress if callable(progress) else None
    total = len(clips) * len(config.noises) * len(levels) * len(config.seeds)
    done = 0
    frame_size = (0, 0)
    with torch.no_grad():
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
                        for name in methods[len(infos) :]:
                            tick = time.perf_counter()
                            estimate = BASELINES[name].function(noisy_numpy, level.sigma)
                            method_seconds[name] += time.perf_counter() - tick
                            _store(
                                samples[(name, noise_kind, "input")],
                                (l, c, s),
                                clip_metrics(estimate, clean, config.clamp),
                            )
                        perturbations = _LayerPerturbations(clean, layer_noise, seed, video, start, noise_kind)
                        # a model attending over aligned frames gets the noisy clip's frames warped onto each other
                        aligned = (
                            align_clip(noisy)[None].to(device)
                            if any(model.attends_aligned for model in models)
                            else None
                        )
                        for info, model in zip(infos, models):
                            for site in config.sites:
                                tick = time.perf_counter()
                                extra = perturbations.for_model(info.layers, device) if site == "layers" else None
                                estimates = model(
                                    noisy.to(device)[None],
                                    all_layers=True,
                                    perturbations=extra,
                                    depth=run_depth(model, config.depths),
                                    **({"aligned": aligned} if model.attends_aligned else {}),
                                )
                                method_seconds[info.label] += time.perf_counter() - tick
                                arrays = samples[(info.label, noise_kind, site)]
                                arrays["layer_mse"][l, c, s] = [
                                    ((e[0].float() - clean_device) ** 2).mean().item() for e in estimates
                                ]
                                arrays["layer_rmse"][l, c, s] = [
                                    frame_rmse(_clamped(e[0].float().cpu(), config.clamp), clean).mean()
                                    for e in estimates
                                ]
                                final = estimates[info.layers][0].float().cpu()
                                _store(arrays, (l, c, s), clip_metrics(final, clean, config.clamp))
                        done += 1
                        if report is not None:
                            report(done, total, f"{clip_names[c]} {noise_kind} {level.label} seed {seed}")
    return EvaluationResult(
        config=config,
        sigma_train=sigma_train,
        levels=levels,
        checkpoints=infos,
        methods=methods,
        clip_names=clip_names,
        clip_length=config.clip_length,
        frame_size=frame_size,
        samples=samples,
        seconds=time.perf_counter() - started,
        method_seconds=method_seconds,
        channels=channels,
    )


def run_depth(model, depths: list[int] | None) -> int:
    """How many layers the sweep runs a model: its trained depth, or the deepest test-time depth
    when its layers are tied (one pass then gives every shallower depth too)."""
    if depths and model.config.tied_layers:
        return max(model.num_layers, *depths)
    return model.num_layers


def _clamped(estimate: torch.Tensor, clamp: bool) -> torch.Tensor:
    return estimate.clamp(0, 1) if clamp else estimate


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

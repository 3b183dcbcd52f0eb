"""The result of an evaluation: every per-sample measurement, the rows (means and spreads) built
from them, and its results.json form (written by `videodenoise.evaluation.reports`, read
back by `read_results`)."""

from __future__ import annotations

import json
import math
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from videodenoise.errors import EvaluationError
from videodenoise.evaluation.baselines import BASELINES
from videodenoise.evaluation.config import EvalConfig, Level
from videodenoise.metrics import descent_fraction
from videodenoise.models.checkpoints import CheckpointInfo

METRICS = ("rmse", "psnr", "ssim")


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
    # (method, noise, site) → metric → array (levels, clips, seeds); "layer_mse" and "layer_rmse" →
    # (levels, clips, seeds, D+1), D the layers the sweep ran (the trained L unless tied and deeper)
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
                    "method": method,
                    "type": "model" if info else "baseline",
                    "model": info.model_name if info else "",
                    "mode": (info.mode or "") if info else "",
                    "noise": noise,
                    "site": site,
                    "gamma": level.gamma,
                    "sigma_255": round(level.sigma_255, 6),
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
                    layer = arrays["layer_mse"][index]  # (clips, seeds, layers run + 1)
                    row["layer_mse"] = layer.mean(axis=(0, 1)).tolist()
                    row["descent_fraction"] = descent_fraction(layer[..., : info.layers + 1])
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
                {
                    "method": method,
                    "noise": noise,
                    "site": site,
                    **{name: array.tolist() for name, array in arrays.items()},
                }
                for (method, noise, site), arrays in self.samples.items()
            ],
            "baselines": {name: BASELINES[name].parameters for name in self.config.baselines},
            "seconds": self.seconds,
            "method_seconds": self.method_seconds,
            "torch": torch.__version__,
        }

    @classmethod
    def from_dict(cls, values: dict) -> EvaluationResult:
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
            samples[key] = {
                name: np.array(entry[name], dtype=np.float64)
                for name in entry
                if name not in ("method", "noise", "site")
            }
        return cls(
            config=EvalConfig.from_dict(values["config"]),
            sigma_train=values["sigma_train"],
            levels=[Level(l["gamma"], l["sigma"]) for l in values["levels"]],
            checkpoints=checkpoints,
            methods=values["methods"],
            clip_names=values["clips"],
            clip_length=values["clip_length"],
            frame_size=tuple(values["frame_size"]),
            samples=samples,
            seconds=values.get("seconds", 0.0),
            method_seconds=values.get("method_seconds", {}),
            channels=values.get("channels", 1),
        )


def merge_results(parts: list[EvaluationResult], config: EvalConfig) -> EvaluationResult:
    """One result from evaluations of disjoint checkpoints (and baselines) on the same noisy clips:
    each part ran `config` on some of the checkpoints; the noise of a clip does not depend on the
    method, so their samples are those of a single evaluation of them all."""
    first = parts[0]
    for part in parts[1:]:
        same = (
            [level.gamma for level in part.levels] == [level.gamma for level in first.levels]
            and part.clip_names == first.clip_names
            and part.config.seeds == first.config.seeds
        )
        if not same:
            raise EvaluationError("evaluation parts were made on different clips, levels or noise seeds")
    checkpoints = [info for part in parts for info in part.checkpoints]
    models = [info.label for info in checkpoints]
    baselines = [m for part in parts for m in part.methods if part.checkpoint(m) is None]
    if len(set(models + baselines)) != len(models) + len(baselines):
        raise EvaluationError("evaluation parts share a method; each checkpoint and baseline belongs to one part")
    return EvaluationResult(
        config=config,
        sigma_train=first.sigma_train,
        levels=first.levels,
        checkpoints=checkpoints,
        methods=models + baselines,
        clip_names=first.clip_names,
        clip_length=first.clip_length,
        frame_size=first.frame_size,
        samples={key: arrays for part in parts for key, arrays in part.samples.items()},
        seconds=sum(part.seconds for part in parts),
        method_seconds={name: value for part in parts for name, value in part.method_seconds.items()},
        channels=first.channels,
    )


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

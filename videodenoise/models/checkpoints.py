"""Trained weights as the package reads them: a weights file or a run folder, checked before use.

    model, info = load_checkpoint("runs/dust-erm/")          # best.safetensors, else last.safetensors

The one place that resolves a run folder to its weights, parses a checkpoint's `sigma_train`, and
refuses weights holding NaN or infinity (a model with them writes black videos and NaN metrics
without any error). `evaluate`, `clean` and `demo` load through here.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import torch

from videodenoise.errors import CheckpointError, EvaluationError
from videodenoise.models.registry import load_model, read_metadata

# the shipped weights, package data (videodenoise/checkpoints/README.md is their model card)
SHIPPED = Path(__file__).resolve().parent.parent / "checkpoints"
DEFAULT_CHECKPOINT = SHIPPED / "dust-video.safetensors"  # the default of `clean` and `demo` (the fast preset)
PREVIOUS_CHECKPOINT = SHIPPED / "dust-samples-constrained.safetensors"  # the default before it, for comparisons


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


def shipped_checkpoint(name: str) -> Path:
    """The shipped weights file `name` (in videodenoise/checkpoints), or a one-line error if the install
    lacks it."""
    path = SHIPPED / name
    if not path.is_file():
        raise CheckpointError(
            f"the shipped checkpoint {path} is missing (reinstall videodenoise); or pass --checkpoint PATH "
            "(a .safetensors file written by `videodenoise train`)"
        )
    return path


def resolve_checkpoint(path: str | os.PathLike | None = None) -> Path:
    """A weights file, or a run folder (its best.safetensors, else last.safetensors); None is the
    shipped default checkpoint."""
    if path is None:
        return shipped_checkpoint(DEFAULT_CHECKPOINT.name)
    path = Path(path).expanduser()
    if path.is_dir():
        for name in ("best.safetensors", "last.safetensors"):
            if (path / name).is_file():
                return path / name
        raise EvaluationError(f"run folder '{path}' holds no best.safetensors or last.safetensors yet; train it first")
    if not path.is_file():
        raise EvaluationError(
            f"weights file not found: {path} does not exist; pass a .safetensors file or a run folder"
        )
    return path


def load_checkpoints(
    paths: Sequence[str | os.PathLike], labels: Sequence[str] | None = None, device: torch.device | str = "cpu"
) -> tuple[list[CheckpointInfo], list[torch.nn.Module]]:
    """Load every checkpoint (in eval mode) with what its metadata says; labels default to the run
    folder's name (or the file's stem), made unique."""
    infos, models = [], []
    for index, given in enumerate(paths):
        path = resolve_checkpoint(given)
        model, metadata = load_checkpoint(path, device)
        run_dir = path.parent if (path.parent / "config.json").is_file() else None
        label = labels[index] if labels else (run_dir.name if run_dir is not None else path.stem)
        infos.append(
            CheckpointInfo(
                label=label,
                path=path,
                model_name=metadata["videodenoise_model"],
                mode=metadata.get("mode"),
                sigma_train=read_sigma_train(metadata, path),
                step=read_step(metadata),
                trained_on=metadata.get("dataset"),
                channels=model.config.channels,
                layers=model.num_layers,
                run_dir=run_dir,
            )
        )
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


def read_step(metadata: dict[str, str]) -> int | None:
    """The training step a checkpoint was saved at, from its metadata (None when absent or not a count)."""
    raw = metadata.get("step", "")
    # ASCII digits only, and few: int() takes other scripts' digits, refuses "²" and very long numbers
    return int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= 18 else None


def read_sigma_train(metadata: dict[str, str], path: str | os.PathLike) -> float | None:
    """The σ ([0, 1] scale) a checkpoint was trained at, from its metadata (None when not recorded);
    a one-line CheckpointError when the value is not a positive finite number."""
    raw = metadata.get("sigma_train")
    if raw in (None, ""):
        return None
    try:
        value = float(raw)
    except (TypeError, ValueError):
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise CheckpointError(
            f"'{path}' has a corrupt sigma_train in its metadata ({raw!r}); re-save the model, "
            "or use another checkpoint"
        )
    return value


def check_finite_weights(model: torch.nn.Module, path: str | os.PathLike) -> None:
    """Refuse a model whose parameters or buffers hold NaN or infinity, naming the file."""
    bad = [
        name
        for name, tensor in list(model.named_parameters()) + list(model.named_buffers())
        if tensor.is_floating_point() and not bool(torch.isfinite(tensor).all())
    ]
    if bad:
        raise CheckpointError(
            f"'{path}' holds non-finite weights (NaN or infinity in {len(bad)} tensor(s), e.g. "
            f"{bad[0]}); the file is damaged or training diverged: use another checkpoint"
        )


def load_checkpoint(
    path: str | os.PathLike | None, device: torch.device | str = "cpu"
) -> tuple[torch.nn.Module, dict[str, str]]:
    """(model in eval mode, metadata) of a weights file or run folder (None: the shipped default),
    checked: it exists, is ours, has finite weights and a valid sigma_train."""
    path = resolve_checkpoint(path)
    metadata = read_metadata(path)
    read_sigma_train(metadata, path)
    model = load_model(path, map_location=device, trusted=path.resolve().parent == SHIPPED)
    check_finite_weights(model, path)
    return model.eval(), metadata


def read_sigma_range(metadata: dict[str, str], path: str | os.PathLike) -> tuple[float, float] | None:
    """The [low, high] σ range ([0, 1] scale) a noise-conditional model was trained over (None when
    not recorded); a one-line CheckpointError when it is not two finite numbers with low <= high."""
    raw = metadata.get("sigma_range")
    if raw in (None, ""):
        return None
    try:
        values = tuple(float(v) for v in json.loads(raw))
    except (ValueError, TypeError, OverflowError, RecursionError):  # not a list of numbers, or absurd ones
        values = ()
    if len(values) != 2 or not all(math.isfinite(v) for v in values) or not 0 <= values[0] <= values[1]:
        raise CheckpointError(
            f"'{path}' has a corrupt sigma_range in its metadata ({raw!r}); re-save the model, "
            "or use another checkpoint"
        )
    return values

"""Build models by name, count their parameters, and save/load weights together with their config.

A weights file is a safetensors file: tensors plus string metadata {"videodenoise_model": name,
"config": JSON of the config dataclass, ...}. Loading parses JSON and reads raw tensors, so it never
runs code from the file (unlike pickle-based torch.load), and the config rebuilds the architecture.

A file is untrusted until it has been checked, and memory stays bounded whatever it claims: its
header must be the size safetensors writes for a model, its config within the bounds of
models/config.py, and the names and shapes of its tensors (read from the header, not the data) those
of the config's model built on the "meta" device, which allocates nothing. Only then is the model
built and the data read, so loading costs what the file really holds. (The package's own weights files
skip the "meta" build: `load_model(trusted=True)`.)
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import torch
import torch.nn as nn
from safetensors import SafetensorError, safe_open
from safetensors.torch import save

from videodenoise.errors import ModelError
from videodenoise.io.atomic import write_bytes
from videodenoise.models.config import MODEL_NAMES, DUSTConfig, UTConfig
from videodenoise.models.dust import DUST
from videodenoise.models.ut import UT
from videodenoise.settings import from_mapping

MODELS: dict[str, tuple[type, type]] = {"dust": (DUST, DUSTConfig), "ut": (UT, UTConfig)}
assert tuple(MODELS) == MODEL_NAMES
FORMAT_VERSION = "1"
# A safetensors file starts with the 8-byte length of its JSON header (tensor names, dtypes, shapes,
# offsets, metadata), which safetensors reads whole before anything can be checked. save_model's are
# a few kB even at the config bounds; anything past this is not a weights file of ours.
MAX_HEADER_BYTES = 16 << 20
FLOAT_DTYPES = ("F16", "BF16", "F32", "F64")  # as the header names them; a model holds nothing else


def _lookup(name: str) -> tuple[type, type]:
    key = str(name).lower()
    if key not in MODELS:
        raise ModelError(f"unknown model {name!r}; choose one of: {', '.join(MODEL_NAMES)}")
    return MODELS[key]


def make_config(name: str, **options) -> DUSTConfig | UTConfig:
    """The config dataclass of model `name` with `options` overriding its defaults."""
    return from_mapping(_lookup(name)[1], options, ModelError, "option", f" for model {name!r}")


def build_model(name: str, **options) -> nn.Module:
    """A freshly initialised model: build_model("dust", channels=3, layers=8)."""
    model_class = _lookup(name)[0]
    return model_class(make_config(name, **options))


def model_from_config(config: DUSTConfig | UTConfig) -> nn.Module:
    """A freshly initialised model for an existing config object."""
    for model_class, config_class in MODELS.values():
        if type(config) is config_class:
            return model_class(config)
    raise ModelError(f"not a model config: {type(config).__name__}; use DUSTConfig or UTConfig")


def count_parameters(model: nn.Module, trainable_only: bool = True) -> int:
    """Number of distinct parameter values (shared, i.e. tied, parameters count once)."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad or not trainable_only)


def save_model(model: nn.Module, path: str | os.PathLike, extra_metadata: dict[str, str] | None = None) -> Path:
    """Write the model's weights and config to a safetensors file, atomically; returns the path.

    extra_metadata (string keys and values, e.g. training options) is stored beside the config; the
    keys videodenoise_model, config and format_version are reserved.
    """
    name, config = getattr(model, "name", None), getattr(model, "config", None)
    if name not in MODELS or not dataclasses.is_dataclass(config):
        raise ModelError(
            f"cannot save {type(model).__name__}: only models made by build_model "
            f"({', '.join(MODEL_NAMES)}) can be saved"
        )
    metadata = {str(key): str(value) for key, value in (extra_metadata or {}).items()}
    reserved = {"videodenoise_model", "config", "format_version"} & set(metadata)
    if reserved:
        raise ModelError(f"extra_metadata may not set {', '.join(sorted(reserved))}; rename those keys")
    metadata.update(
        videodenoise_model=name, config=json.dumps(dataclasses.asdict(config)), format_version=FORMAT_VERSION
    )
    tensors = {key: value.detach().cpu().contiguous() for key, value in model.state_dict().items()}

    # through the package's one atomic writer: a reader never sees a half-written weights file
    return write_bytes(path, save(tensors, metadata=metadata), overwrite=True, create_parent=True)


def read_metadata(path: str | os.PathLike) -> dict[str, str]:
    """The string metadata of a weights file (model name, config JSON, anything saved as extra)."""
    path = Path(path)
    if not path.is_file():
        raise ModelError(f"weights file not found: {path}; check the path")
    _check_header_size(path)
    try:
        with safe_open(str(path), framework="pt") as file:
            metadata = file.metadata() or {}
    except (SafetensorError, OSError, ValueError) as error:
        raise ModelError(
            f"{path} is not a safetensors weights file ({error}); pass a file written by save_model"
        ) from None
    if "videodenoise_model" not in metadata or "config" not in metadata:
        raise ModelError(f"{path} has no videodenoise model metadata; pass a file written by save_model")
    return metadata


def load_model(
    path: str | os.PathLike,
    map_location: str | torch.device = "cpu",
    expected_name: str | None = None,
    trusted: bool = False,
) -> nn.Module:
    """Rebuild a model from a file written by save_model, in eval mode, on `map_location`.

    expected_name (e.g. "dust") makes a file holding a different model an error instead of a surprise.
    The file is checked before anything is built (see the module docstring): a one-line ModelError
    for a config out of bounds or tensors that do not fit it. trusted (the package's own weights): its
    model is built without the "meta" skeleton first, whose first use imports torch's meta kernels and
    compiler (0.85 s of a process's start-up); the tensors are still checked against it before loading.
    """
    path = Path(path)
    metadata = read_metadata(path)
    name = metadata["videodenoise_model"]
    if expected_name is not None and name != expected_name:
        raise ModelError(f"{path} holds a {name!r} model, not {expected_name!r}; pass a {expected_name} weights file")
    config = _file_config(path, name, metadata["config"])
    if not trusted:
        with torch.device("meta"):  # names and shapes only: no memory, whatever the config says
            skeleton = model_from_config(config)
        check_fits(skeleton, _stored_shapes(path), source=str(path))
    model = model_from_config(config)
    with safe_open(str(path), framework="pt", device="cpu") as file:
        state = {key: file.get_tensor(key) for key in file.keys()}
    load_state(model, state, source=str(path))
    return model.to(map_location).eval()


def _check_header_size(path: Path) -> None:
    """Refuse a file whose first 8 bytes do not give a header length a model's file could have."""
    with open(path, "rb") as file:
        head = file.read(8)
    length = int.from_bytes(head, "little") if len(head) == 8 else -1
    if not 0 < length <= min(MAX_HEADER_BYTES, path.stat().st_size - 8):
        shown = "no header" if length < 0 else f"a header of {length} bytes"
        raise ModelError(
            f"{path} is not a safetensors weights file ({shown}, in a file of {path.stat().st_size} bytes; "
            f"a model's header is at most {MAX_HEADER_BYTES >> 20} MiB); pass a file written by save_model"
        )


def _file_config(path: Path, name: str, text: str) -> DUSTConfig | UTConfig:
    """The config in a file's metadata, checked (types, bounds) before anything is built."""
    try:
        options = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        options = None
    if not isinstance(options, dict):
        raise ModelError(f"{path} has a corrupt config in its metadata; re-save the model")
    if name == "ut":  # files written before the proximal step was the default hold the MLP layer
        options.setdefault("feed_forward", "mlp")
    try:
        return make_config(name, **options)
    except ModelError as error:
        raise ModelError(f"{path} holds an invalid model config ({error}); pass a file written by save_model") from None


def _stored_shapes(path: Path) -> dict[str, tuple[int, ...]]:
    """Each tensor's shape, from the file's header without reading its data; floating-point tensors only."""
    shapes = {}
    with safe_open(str(path), framework="pt", device="cpu") as file:
        for key in file.keys():
            part = file.get_slice(key)
            # (an older safetensors may lack get_dtype: the shapes alone still bound what the file holds)
            dtype = part.get_dtype() if hasattr(part, "get_dtype") else "F32"
            if dtype not in FLOAT_DTYPES:
                raise ModelError(
                    f"{path} holds {key} as {dtype}, not floating point; pass a file written by save_model"
                )
            shapes[key] = tuple(part.get_shape())
    return shapes


def check_fits(model: nn.Module, shapes: dict[str, tuple[int, ...]], source: str = "state dict") -> None:
    """A one-line ModelError unless `shapes` (tensor name → shape) are exactly the model's state: none
    missing, none extra, none of another shape. So a file can hold no more than the model it claims."""
    expected = {key: tuple(value.shape) for key, value in model.state_dict().items()}
    missing = sorted(set(expected) - set(shapes))
    unexpected = sorted(set(shapes) - set(expected))
    mismatched = [
        f"{key} {shapes[key]} vs {value}" for key, value in expected.items() if key in shapes and shapes[key] != value
    ]
    problems = []
    if missing:
        problems.append(f"missing {', '.join(missing[:3])}{' ...' if len(missing) > 3 else ''}")
    if unexpected:
        problems.append(f"unexpected {', '.join(unexpected[:3])}{' ...' if len(unexpected) > 3 else ''}")
    if mismatched:
        problems.append(f"wrong shape {', '.join(mismatched[:3])}{' ...' if len(mismatched) > 3 else ''}")
    if problems:
        name = getattr(model, "name", type(model).__name__)
        raise ModelError(
            f"{source} does not fit a {name} model with this config ({'; '.join(problems)}); "
            f"use the config the weights were saved with"
        )


def load_state(model: nn.Module, state: dict[str, torch.Tensor], source: str = "state dict") -> None:
    """Copy `state` into `model`, with a one-line ModelError for missing, extra or mis-shaped tensors."""
    check_fits(model, {key: tuple(value.shape) for key, value in state.items()}, source)
    model.load_state_dict(state)

"""Dataset loaders and clip samplers.

    dataset = load_dataset("ucsd-ped2", root="~/data")      # finds the files, decodes nothing
    train = RandomClips(dataset.clips("train"), clip_length=5, crop=64, channels=1)
    clip = train[0]                                         # (T, C, H, W) float32 in [0, 1]
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from ..errors import DatasetError
from .avenue import load_avenue
from .base import ClipSource, LabelledLength, LabelMismatchWarning, VideoDataset
from .clips import RandomClips, SequentialClips
from .folder import load_folder
from .samples import load_samples
from .shanghaitech import load_shanghaitech
from .ucsd import load_ucsd

LOADERS: dict[str, Callable[[Path | str | None], VideoDataset]] = {
    "avenue": load_avenue,
    "ucsd-ped1": lambda root: load_ucsd(root, ped=1),
    "ucsd-ped2": lambda root: load_ucsd(root, ped=2),
    "shanghaitech": load_shanghaitech,
    "samples": load_samples,
    "folder": load_folder,
}
DATASET_NAMES = tuple(LOADERS)


def load_dataset(name: str, root: Path | str | None = None) -> VideoDataset:
    """Find a dataset's clips under `root` (the samples need no root: they live in the cache)."""
    if name not in LOADERS:
        raise DatasetError(f"unknown dataset '{name}'; choose one of: {', '.join(DATASET_NAMES)}")
    return LOADERS[name](root)


__all__ = [
    "DATASET_NAMES",
    "ClipSource",
    "LabelMismatchWarning",
    "LabelledLength",
    "RandomClips",
    "SequentialClips",
    "VideoDataset",
    "load_dataset",
]

"""The datasets by name: `load_dataset(name, root)` finds a dataset's clips and decodes nothing.

    dataset = load_dataset("ucsd-ped2", root="~/data")
    train = RandomClips(dataset.clips("train"), clip_length=5, crop=64, channels=1)
    clip = train[0]                                         # (T, C, H, W) float32 in [0, 1]

A loader's module is imported when its dataset is asked for, so that the names below cost nothing to
read (the command line's options list them before anything is loaded).
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING

from videodenoise.errors import DatasetError

if TYPE_CHECKING:
    from videodenoise.datasets.base import VideoDataset

# name → (module, loader function, keyword arguments)
LOADERS: dict[str, tuple[str, str, dict]] = {
    "avenue": ("videodenoise.datasets.avenue", "load_avenue", {}),
    "ucsd-ped1": ("videodenoise.datasets.ucsd", "load_ucsd", {"ped": 1}),
    "ucsd-ped2": ("videodenoise.datasets.ucsd", "load_ucsd", {"ped": 2}),
    "shanghaitech": ("videodenoise.datasets.shanghaitech", "load_shanghaitech", {}),
    "samples": ("videodenoise.datasets.samples", "load_samples", {}),
    "photo-motion": ("videodenoise.datasets.photo_motion", "load_photo_motion", {}),
    "folder": ("videodenoise.datasets.folder", "load_folder", {}),
}
DATASET_NAMES = tuple(LOADERS)
DATASET_HELP = (
    "avenue, ucsd-ped1, ucsd-ped2, shanghaitech, samples (the sample clips), photo-motion (camera motion over "
    "photographs, generated) or folder (your own videos)"
)


def load_dataset(name: str, root: Path | str | None = None) -> VideoDataset:
    """Find a dataset's clips under `root` (the samples need no root: they live in the cache; nor does
    photo-motion: it is generated)."""
    if name not in LOADERS:
        raise DatasetError(f"unknown dataset '{name}'; choose one of: {', '.join(DATASET_NAMES)}")
    module, function, options = LOADERS[name]
    return getattr(importlib.import_module(module), function)(root, **options)

"""The datasets by name: `load_dataset(name, root)` finds a dataset's clips and decodes nothing.

    dataset = load_dataset("ucsd-ped2", root="~/data")
    train = RandomClips(dataset.clips("train"), clip_length=5, crop=64, channels=1)
    clip = train[0]                                         # (T, C, H, W) float32 in [0, 1]
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from videodenoise.datasets.avenue import load_avenue
from videodenoise.datasets.base import VideoDataset
from videodenoise.datasets.folder import load_folder
from videodenoise.datasets.samples import load_samples
from videodenoise.datasets.shanghaitech import load_shanghaitech
from videodenoise.datasets.ucsd import load_ucsd
from videodenoise.errors import DatasetError

LOADERS: dict[str, Callable[[Path | str | None], VideoDataset]] = {
    "avenue": load_avenue,
    "ucsd-ped1": lambda root: load_ucsd(root, ped=1),
    "ucsd-ped2": lambda root: load_ucsd(root, ped=2),
    "shanghaitech": load_shanghaitech,
    "samples": load_samples,
    "folder": load_folder,
}
DATASET_NAMES = tuple(LOADERS)
DATASET_HELP = "avenue, ucsd-ped1, ucsd-ped2, shanghaitech, samples (the sample clips) or folder (your own videos)"


def load_dataset(name: str, root: Path | str | None = None) -> VideoDataset:
    """Find a dataset's clips under `root` (the samples need no root: they live in the cache)."""
    if name not in LOADERS:
        raise DatasetError(f"unknown dataset '{name}'; choose one of: {', '.join(DATASET_NAMES)}")
    return LOADERS[name](root)

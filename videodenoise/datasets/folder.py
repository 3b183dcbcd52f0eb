"""A user's own footage: any folder of video files and/or frame folders.

Split folders named train/training and test/testing/val/validation are honoured when present;
otherwise every clip is in the single split `all`, which `train` and `test` also name, so a user can
train and evaluate on their own folder without rearranging it.
"""

from __future__ import annotations

from pathlib import Path

from videodenoise.datasets.base import (
    ClipSource,
    VideoDataset,
    frame_folders,
    is_frame_folder,
    require_root,
    video_files,
)
from videodenoise.errors import DatasetError

SPLIT_FOLDERS = {"train": ("train", "training"), "val": ("val", "validation"), "test": ("test", "testing")}


def find_clips(folder: Path) -> list[ClipSource]:
    """Videos and frame folders anywhere below `folder`, named by their path relative to it."""
    if is_frame_folder(folder):
        return [ClipSource(folder.name, folder)]
    clips = video_files(folder) + frame_folders(folder)
    for sub in sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")):
        if not is_frame_folder(sub):
            clips += [ClipSource(f"{sub.name}/{c.name}", c.path, c.fps) for c in find_clips(sub)]
    return clips


def load_folder(root: Path | str | None) -> VideoDataset:
    root = require_root("folder", root)
    splits = {}
    for split, names in SPLIT_FOLDERS.items():
        for name in names:
            if (root / name).is_dir():
                splits[split] = find_clips(root / name)
                break
    if splits:
        return VideoDataset("folder", root, "split folders", {k: v for k, v in splits.items() if v})
    clips = find_clips(root)
    if not clips:
        raise DatasetError(f"'{root}' holds no video files or frame folders")
    return VideoDataset("folder", root, "flat", {"all": clips, "train": clips, "test": clips})

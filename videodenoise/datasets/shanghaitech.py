"""ShanghaiTech Campus (docs/datasets.md has its layout, sizes and known defects).

Official layout: `training/videos/SS_CCC.avi` and `testing/frames/SS_CCCC/NNN.jpg` (0-based), with
per-frame labels in `testing/test_frame_mask/SS_CCCC.npy`, read only to cross-check frame counts.
Some PyAV builds decode the training .avi files badly; `videodenoise.io.readers` falls back to OpenCV.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from videodenoise.datasets.base import (
    ClipSource,
    LabelledLength,
    VideoDataset,
    frame_folders,
    no_layout_error,
    nonempty,
    require_root,
    video_files,
)


def label_lengths(mask_folder: Path, test_clips: list[ClipSource]) -> dict[str, LabelledLength]:
    lengths = {}
    for clip in test_clips:
        path = mask_folder / f"{clip.name}.npy"
        if path.is_file():
            lengths[clip.name] = LabelledLength(int(np.load(path, mmap_mode="r").shape[0]), True, path.name)
    return lengths


def load_shanghaitech(root: Path | str | None) -> VideoDataset:
    name = "shanghaitech"
    root = require_root(name, root)
    for base in (root / "shanghaitech", root):
        test_frames = base / "testing" / "frames"
        train_videos, train_frames = base / "training" / "videos", base / "training" / "frames"
        if not test_frames.is_dir() or not (train_videos.is_dir() or train_frames.is_dir()):
            continue
        official = train_videos.is_dir()
        splits = nonempty(
            name,
            root,
            {
                "train": video_files(train_videos) if official else frame_folders(train_frames),
                "test": frame_folders(test_frames),
            },
        )
        dataset = VideoDataset(name, root, "official" if official else "repackaged", splits)
        masks = base / "testing" / "test_frame_mask"
        if masks.is_dir():
            dataset.label_loader = lambda masks=masks, clips=splits["test"]: {"test": label_lengths(masks, clips)}
        return dataset
    raise no_layout_error(
        name,
        root,
        [
            "shanghaitech/training/videos/SS_CCC.avi + shanghaitech/testing/frames/SS_CCCC/NNN.jpg",
            "training/videos/... + testing/frames/...",
            "shanghaitech/{training,testing}/frames/<clip>/<n>.jpg",
        ],
    )

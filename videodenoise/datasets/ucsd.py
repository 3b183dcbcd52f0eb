"""UCSD Anomaly Detection, Ped1 and Ped2 (docs/datasets.md has its layout, sizes and known defects).

Official layout: UCSD_Anomaly_Dataset.v1p2/UCSDped{1,2}/{Train,Test}/{Train,Test}NNN/NNN.tif, with
`*_gt` mask folders beside the test clips and a `UCSDped{1,2}.m` label file. The files carry no frame
rate; 10 fps is the dataset's usual description and is used as the nominal rate.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

from videodenoise.datasets.base import (
    ClipSource,
    LabelledLength,
    LabelMismatchWarning,
    VideoDataset,
    frame_folders,
    no_layout_error,
    nonempty,
    repackaged_layout,
    require_root,
)

NOMINAL_FPS = 10.0


def parse_label_file(path: Path) -> list[list[tuple[int, int]]]:
    """Anomalous frame ranges per test clip from a `UCSDpedN.m` file (1-based, inclusive).

    Lines look like `TestVideoFile{end+1}.gt_frame = [5:90, 140:200];`; the k-th line is Test{k:03d}.
    """
    clips = []
    for line in path.read_text(errors="replace").splitlines():
        match = re.search(r"gt_frame\s*=\s*\[([^\]]*)\]", line)
        if match:
            clips.append([(int(a), int(b)) for a, b in re.findall(r"(\d+)\s*:\s*(\d+)", match.group(1))])
    return clips


def label_lengths(label_file: Path, test_clips: list[ClipSource]) -> dict[str, LabelledLength]:
    """The last anomalous frame of each test clip: the clip must hold at least that many frames."""
    ranges = parse_label_file(label_file)
    if len(ranges) != len(test_clips):
        warnings.warn(
            f"{label_file} labels {len(ranges)} test clips, {len(test_clips)} found",
            LabelMismatchWarning,
            stacklevel=3,
        )
    return {
        clip.name: LabelledLength(max(end for _, end in clip_ranges), False, label_file.name)
        for clip, clip_ranges in zip(test_clips, ranges)
        if clip_ranges
    }


def load_ucsd(root: Path | str | None, ped: int) -> VideoDataset:
    name = f"ucsd-ped{ped}"
    root = require_root(name, root)
    folder = f"UCSDped{ped}"
    candidates = [root / "UCSD_Anomaly_Dataset.v1p2" / folder, root / folder, root]
    for base in candidates:
        if (base / "Train").is_dir() and (base / "Test").is_dir():
            splits = nonempty(
                name,
                root,
                {
                    "train": frame_folders(base / "Train", NOMINAL_FPS, exclude_suffix="_gt"),
                    "test": frame_folders(base / "Test", NOMINAL_FPS, exclude_suffix="_gt"),
                },
            )
            dataset = VideoDataset(name, root, "official", splits)
            label_file = base / "Test" / f"{folder}.m"
            if label_file.is_file():
                dataset.label_loader = lambda file=label_file, clips=splits["test"]: {
                    "test": label_lengths(file, clips)
                }
            return dataset
    splits = repackaged_layout(root, f"ped{ped}")
    if splits is not None:
        return VideoDataset(name, root, "repackaged", nonempty(name, root, splits))
    raise no_layout_error(
        name,
        root,
        [
            f"UCSD_Anomaly_Dataset.v1p2/{folder}/{{Train,Test}}/...",
            f"{folder}/{{Train,Test}}/...",
            f"ped{ped}/{{training,testing}}/frames/<clip>/<n>.jpg",
        ],
    )

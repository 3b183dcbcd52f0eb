"""CUHK Avenue (docs/datasets.md has its layout, sizes and known defects).

Official layout: `Avenue Dataset/{training,testing}_videos/NN.avi` (the folder name has a space), with
pixel masks in `ground_truth_demo/testing_label_mask/N_label.mat` (key `volLabel`, one mask per
frame), which are read only to cross-check the test clips' frame counts.
"""

from __future__ import annotations

from pathlib import Path

from videodenoise.datasets.base import (
    LabelledLength,
    VideoDataset,
    no_layout_error,
    nonempty,
    repackaged_layout,
    require_root,
    video_files,
)


def label_lengths(mask_folder: Path, clip_names: list[str]) -> dict[str, LabelledLength]:
    """Frame counts of the test clips from `N_label.mat` (01.avi maps to 1_label.mat)."""
    from scipy.io import loadmat

    lengths = {}
    for name in clip_names:
        path = mask_folder / f"{int(name)}_label.mat" if name.isdigit() else None
        if path is None or not path.is_file():
            continue
        masks = loadmat(str(path), variable_names=["volLabel"]).get("volLabel")
        if masks is not None:
            lengths[name] = LabelledLength(int(masks.size), True, path.name)
    return lengths


def load_avenue(root: Path | str | None) -> VideoDataset:
    name = "avenue"
    root = require_root(name, root)
    for base in (root / "Avenue Dataset", root):
        if (base / "training_videos").is_dir() and (base / "testing_videos").is_dir():
            splits = nonempty(
                name,
                root,
                {
                    "train": video_files(base / "training_videos"),
                    "test": video_files(base / "testing_videos"),
                },
            )
            dataset = VideoDataset(name, root, "official", splits)
            for masks in (root / "ground_truth_demo" / "testing_label_mask", base / "testing_label_mask"):
                if masks.is_dir():
                    # Loaded lazily: the .mat files are large, and only `data info` cross-checks them.
                    dataset.label_loader = lambda masks=masks, clips=splits["test"]: {
                        "test": label_lengths(masks, [c.name for c in clips])
                    }
                    break
            return dataset
    splits = repackaged_layout(root, "avenue")
    if splits is not None:
        return VideoDataset(name, root, "repackaged", nonempty(name, root, splits))
    raise no_layout_error(
        name,
        root,
        [
            "Avenue Dataset/{training,testing}_videos/NN.avi",
            "{training,testing}_videos/NN.avi",
            "avenue/{training,testing}/frames/<clip>/<n>.jpg",
        ],
    )

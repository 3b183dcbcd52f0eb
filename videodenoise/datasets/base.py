"""What every dataset loader returns: named splits of clip sources, each a video file or frame folder.

A loader only finds files; frames are decoded lazily by `videodenoise.io.readers` when a clip sampler
(`datasets.clips`) asks for them, so loading even ShanghaiTech's 437 clips takes a moment.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from videodenoise.errors import DatasetError
from videodenoise.io.frames import IMAGE_SUFFIXES, VIDEO_SUFFIXES, is_junk, list_frame_files, numeric_sort_key
from videodenoise.io.readers import FrameFolderReader, VideoReader
from videodenoise.io.video import open_video


class LabelMismatchWarning(UserWarning):
    """A label file disagrees with the frames on disk (count or range)."""


@dataclass(frozen=True)
class ClipSource:
    """One clip of a dataset: a video file or a folder of frames.

    fps overrides the source's own rate; it is the nominal rate for frame folders, which have none.
    """

    name: str
    path: Path
    fps: float | None = None

    def open(self) -> VideoReader:
        if self.path.is_dir():
            return FrameFolderReader(self.path, fps=self.fps)
        return open_video(self.path)


@dataclass(frozen=True)
class LabelledLength:
    """What a label file says about a clip's length: exactly `frames`, or at least `frames` (when the
    labels only name frame ranges), and which file said it."""

    frames: int
    exact: bool
    source: str


@dataclass
class VideoDataset:
    """A dataset found on disk: clip sources per split, and how its labels cross-check."""

    name: str
    root: Path
    layout: str
    splits: dict[str, list[ClipSource]]
    # Reads the clip lengths implied by label files ({split: {clip: LabelledLength}}), used only to
    # cross-check the frames found. Called on demand: some label files are large.
    label_loader: Callable[[], dict[str, dict[str, LabelledLength]]] | None = None

    def clips(self, split: str) -> list[ClipSource]:
        if split not in self.splits:
            raise DatasetError(
                f"dataset '{self.name}' has no split '{split}'; its splits are: {', '.join(self.splits)}"
            )
        return self.splits[split]

    def check_labels(self, split: str, readers: dict[str, VideoReader] | None = None) -> list[str]:
        """Compare the lengths implied by label files with the frames found; warn and return mismatches."""
        expected = self.label_loader().get(split, {}) if self.label_loader else {}
        problems = []
        for clip in self.clips(split):
            label = expected.get(clip.name)
            if label is None:
                continue
            found = len(readers[clip.name] if readers else clip.open())
            if (found != label.frames) if label.exact else (found < label.frames):
                problems.append(
                    f"{self.name}/{split}/{clip.name}: {label.source} implies "
                    f"{'' if label.exact else 'at least '}{label.frames} frames, {found} found"
                )
        for problem in problems:
            warnings.warn(problem, LabelMismatchWarning, stacklevel=2)
        return problems


def is_frame_folder(path: Path) -> bool:
    return (
        path.is_dir()
        and not is_junk(path)
        and any(p.suffix.lower() in IMAGE_SUFFIXES and not is_junk(p) for p in path.iterdir())
    )


def frame_folders(parent: Path, fps: float | None = None, exclude_suffix: str | None = None) -> list[ClipSource]:
    """The clip folders directly inside `parent` that hold frames, in numeric order, junk skipped
    (and folders ending in `exclude_suffix`, such as UCSD's `Test003_gt` masks)."""
    folders = [
        p for p in parent.iterdir() if is_frame_folder(p) and not (exclude_suffix and p.name.endswith(exclude_suffix))
    ]
    return [ClipSource(p.name, p, fps) for p in sorted(folders, key=numeric_sort_key)]


def video_files(parent: Path) -> list[ClipSource]:
    """The video files directly inside `parent`, in numeric order, junk skipped."""
    files = [p for p in parent.iterdir() if p.is_file() and p.suffix.lower() in VIDEO_SUFFIXES and not is_junk(p)]
    return [ClipSource(p.stem, p) for p in sorted(files, key=numeric_sort_key)]


def require_root(name: str, root: Path | str | None) -> Path:
    if root is None:
        raise DatasetError(f"dataset '{name}' needs a root folder; pass --root DIR")
    root = Path(root).expanduser()
    if not root.exists():
        from videodenoise.datasets.download import DATASET_NAMES

        # only datasets with a download get the download hint; "folder" is the user's own videos
        hint = (
            f"download '{name}' with `videodenoise data download {name} --root DIR`"
            if name in DATASET_NAMES
            else "check the path"
        )
        raise DatasetError(f"root '{root}' does not exist; {hint}")
    if not root.is_dir():
        raise DatasetError(f"root '{root}' is not a folder")
    return root


def repackaged_layout(root: Path, short_name: str, fps: float | None = None) -> dict[str, list[ClipSource]] | None:
    """The layout many repositories use: <root>/<short>/{training,testing}/frames/<clip>/<n>.jpg,
    also accepted with the root pointing at <root>/<short> itself."""
    for base in (root / short_name, root):
        train, test = base / "training" / "frames", base / "testing" / "frames"
        if train.is_dir() and test.is_dir():
            return {"train": frame_folders(train, fps), "test": frame_folders(test, fps)}
    return None


def no_layout_error(name: str, root: Path, expected: list[str]) -> DatasetError:
    return DatasetError(f"'{root}' matches no known {name} layout; expected one of: " + "; ".join(expected))


def nonempty(name: str, root: Path, splits: dict[str, list[ClipSource]]) -> dict[str, list[ClipSource]]:
    for split, clips in splits.items():
        if not clips:
            raise DatasetError(f"{name} at '{root}': the {split} split holds no clips; is the download complete?")
    return splits


__all__ = [
    "ClipSource",
    "LabelledLength",
    "LabelMismatchWarning",
    "VideoDataset",
    "frame_folders",
    "is_frame_folder",
    "list_frame_files",
    "no_layout_error",
    "nonempty",
    "repackaged_layout",
    "require_root",
    "video_files",
]

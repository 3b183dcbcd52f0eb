"""The dataset "photo-motion": one 20-frame clip per photograph of `datasets.motion`, a camera moving
over it, generated in memory and the same every time.

It gives held-out test videos with real texture and known motion, offline, for studies that need more
test videos than the three sample clips: the split `held-out` (also named `test`) holds the photos a
model trained on `TRAINING_PHOTOS` has never seen. Nothing is downloaded or written; the photographs
ship inside scikit-image and Matplotlib.

    dataset = load_dataset("photo-motion")
    clips = SequentialClips(dataset.clips("held-out"), clip_length=5, crop=128, channels=1)
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from pathlib import Path

import numpy as np

from videodenoise.datasets.base import ClipSource, VideoDataset
from videodenoise.datasets.motion import (
    BENCHMARK_PHOTOS,
    TRAINING_PHOTOS,
    VALIDATION_PHOTOS,
    MotionLimits,
    camera_motion_clip,
    load_photo,
    photo_path,
)
from videodenoise.io.readers import VideoInfo, VideoReader

FRAMES = 20
SIZE = (128, 128)  # (height, width)
FPS = 25
# A gentler pan than training's, so that a crop's whole path stays inside its photograph (no
# reflected border). With these seeds all do but the 128×128 Minduka_Present_Blue_Pack, as small as
# a frame; tests/test_datasets.py checks it, as the seeds' zoom and rotation decide it more than the pan.
LIMITS = MotionLimits(pan=1.0)
# motorcycle_right is the other view of a stereo pair whose left view is a training photo
HELD_OUT_PHOTOS = tuple(p for p in BENCHMARK_PHOTOS + VALIDATION_PHOTOS if p != "skimage:motorcycle_right")


@lru_cache(maxsize=32)  # every photo of the splits (21)
def motion_frames(photo: str) -> np.ndarray:
    """The clip of `photo` as (T, H, W, 3) uint8, read-only: the 8-bit values a video file would hold,
    so that a model sees the same values whichever reader path (direct or cached) it goes through."""
    # a seed from the name, not Python's hash(), which changes from one process to the next
    clip = camera_motion_clip(load_photo(photo), FRAMES, SIZE, seed=zlib.crc32(photo.encode()), limits=LIMITS)
    images = clip.double().mul(255).round().byte().permute(0, 2, 3, 1).contiguous().numpy()
    images.flags.writeable = False  # shared by every reader of the photo
    return images


class PhotoMotionReader(VideoReader):
    """A photo-motion clip read like an 8-bit RGB video at 25 fps; `info.path` is the photograph."""

    def __init__(self, photo: str, path: Path):
        self.images = motion_frames(photo)
        frames, height, width, channels = self.images.shape
        self.info = VideoInfo(path, frames, width, height, channels, float(FPS), "video", rate=Fraction(FPS))

    def _images(self, start: int, count: int | None) -> Iterator[tuple[np.ndarray, int | None]]:
        stop = len(self.images) if count is None else min(len(self.images), start + count)
        for index in range(start, stop):
            yield self.images[index], None


@dataclass(frozen=True)
class PhotoMotionSource(ClipSource):
    """A clip source whose frames are generated, not read: `photo` names the photograph (e.g.
    "skimage:page"), `path` is its file."""

    photo: str = ""

    def open(self) -> PhotoMotionReader:
        return PhotoMotionReader(self.photo, self.path)


def load_photo_motion(root: Path | str | None = None) -> VideoDataset:
    """The photo-motion clips by split: training, benchmark and validation (the photo sets of
    `datasets.motion`), held-out (= test) and all. root is ignored (it is accepted because a shared
    data root is passed to every dataset of an experiment)."""
    # only finds the photographs' files: a clip is generated when its source is first opened
    clip = {
        photo: PhotoMotionSource(photo.partition(":")[2], photo_path(photo), float(FPS), photo=photo)
        for photo in TRAINING_PHOTOS + BENCHMARK_PHOTOS + VALIDATION_PHOTOS
    }
    splits = {
        "training": [clip[p] for p in TRAINING_PHOTOS],
        "benchmark": [clip[p] for p in BENCHMARK_PHOTOS],
        "validation": [clip[p] for p in VALIDATION_PHOTOS],
        "held-out": [clip[p] for p in HELD_OUT_PHOTOS],
        "test": [clip[p] for p in HELD_OUT_PHOTOS],
        "all": list(clip.values()),
    }
    return VideoDataset("photo-motion", Path("(in memory)"), "camera motion over photographs", splits)

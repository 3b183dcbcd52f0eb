"""Clean clips (T, C, H, W) for training and evaluation, sampled from a dataset's clip sources.

`RandomClips` draws T consecutive frames from a random video at a random start, optionally resizes
them, crops a random window and flips it; `SequentialClips` cuts every video into consecutive clips
with a fixed centre crop, the same every time (validation and test). Geometry is applied to the whole
(T, C, H, W) tensor through torchvision's v2 video ops, so every frame of a clip gets the same crop
and flip. Randomness comes from numpy generators seeded by (seed, epoch, index): a sample depends on
nothing else, so runs are reproducible across DataLoader workers and resumptions.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from torch.utils.data import Dataset
from torchvision import tv_tensors
from torchvision.transforms.v2 import functional as TF

from videodenoise.datasets.base import ClipSource
from videodenoise.errors import DatasetError
from videodenoise.io.readers import VideoReader

Size = int | tuple[int, int]


def _pair(size: Size | None) -> tuple[int, int] | None:
    if size is None:
        return None
    height, width = (size, size) if isinstance(size, int) else size
    if height < 1 or width < 1:
        raise DatasetError(f"sizes must be positive, got {size}")
    return int(height), int(width)


class _Clips(Dataset):
    """Shared machinery: open the sources (header reads only), read clips through an optional frame
    cache, resize.

    Random access into compressed video decodes from the previous keyframe, which for clips with one
    keyframe (the sample clips) means decoding up to the whole video for every clip: 5× the cost of a
    training step. When the decoded frames fit in `cache_mb` (uint8, after channel conversion) each
    video is decoded once, sequentially, on first use and kept in memory.
    """

    def __init__(
        self,
        sources: Sequence[ClipSource],
        clip_length: int,
        channels: int | None,
        resize: Size | float | None,
        cache_mb: float = 2048,
    ):
        if clip_length < 1:
            raise DatasetError(f"clip length must be at least 1 frame, got {clip_length}")
        if channels not in (None, 1, 3):
            raise DatasetError(f"channels must be 1 (grey) or 3 (colour), got {channels}")
        if not sources:
            raise DatasetError("no clips to sample from")
        self.sources = list(sources)
        self.clip_length = clip_length
        self.channels = channels
        self.resize = resize
        self.readers: list[VideoReader] = [source.open() for source in self.sources]
        self.usable = [i for i, reader in enumerate(self.readers) if len(reader) >= clip_length]
        if not self.usable:
            longest = max(len(r) for r in self.readers)
            raise DatasetError(
                f"no video has {clip_length} frames (the longest has {longest}); use a shorter clip length"
            )
        decoded_bytes = sum(
            r.info.n_frames * r.info.height * r.info.width * (channels or r.info.channels) for r in self.readers
        )
        self.cached = decoded_bytes <= cache_mb * 2**20
        self._cache: dict[int, torch.Tensor] = {}

    def _read(self, video: int, start: int) -> torch.Tensor:
        """Frames [start, start + clip_length) of a video as (T, C, H, W) float32 in [0, 1]."""
        if not self.cached:
            return self.readers[video].read(start, self.clip_length, self.channels)
        if video not in self._cache:
            frames = self.readers[video].read(0, None, self.channels)
            self._cache[video] = frames.mul(255).round().to(torch.uint8)  # 8-bit sources: exact
        return self._cache[video][start : start + self.clip_length].float().div(255)

    def _resized(self, clip: torch.Tensor) -> torch.Tensor:
        if self.resize is None:
            return clip
        height, width = clip.shape[-2:]
        if isinstance(self.resize, float):
            target = [max(1, round(height * self.resize)), max(1, round(width * self.resize))]
        else:
            target = list(_pair(self.resize))
        return TF.resize(tv_tensors.Video(clip), target, antialias=True).as_subclass(torch.Tensor)

    def _check_crop(self, clip: torch.Tensor, crop: tuple[int, int] | None, source: ClipSource) -> None:
        if crop and (crop[0] > clip.shape[-2] or crop[1] > clip.shape[-1]):
            raise DatasetError(
                f"crop {crop[0]}x{crop[1]} is larger than the frames of '{source.name}' "
                f"({clip.shape[-2]}x{clip.shape[-1]} after resizing); use a smaller crop"
            )


class RandomClips(_Clips):
    """`samples_per_epoch` random training clips; call `set_epoch` to draw a new set each epoch.

    A video is chosen with probability proportional to its number of possible start frames, so every
    clip position in the dataset is equally likely.
    """

    def __init__(
        self,
        sources: Sequence[ClipSource],
        clip_length: int = 5,
        crop: Size | None = 64,
        channels: int | None = 1,
        resize: Size | float | None = None,
        samples_per_epoch: int = 1024,
        hflip: bool = True,
        seed: int = 0,
        cache_mb: float = 2048,
    ):
        super().__init__(sources, clip_length, channels, resize, cache_mb)
        self.crop = _pair(crop)
        self.samples_per_epoch = samples_per_epoch
        self.hflip = hflip
        self.seed = seed
        self.epoch = 0
        starts = np.array([len(self.readers[i]) - clip_length + 1 for i in self.usable], dtype=np.float64)
        self._video_probability = starts / starts.sum()

    def set_epoch(self, epoch: int) -> None:
        self.epoch = epoch

    def __len__(self) -> int:
        return self.samples_per_epoch

    def __getitem__(self, index: int) -> torch.Tensor:
        rng = np.random.default_rng((self.seed, self.epoch, index))
        video = self.usable[rng.choice(len(self.usable), p=self._video_probability)]
        reader = self.readers[video]
        start = int(rng.integers(0, len(reader) - self.clip_length + 1))
        clip = self._resized(self._read(video, start))
        if self.crop:
            self._check_crop(clip, self.crop, self.sources[video])
            top = int(rng.integers(0, clip.shape[-2] - self.crop[0] + 1))
            left = int(rng.integers(0, clip.shape[-1] - self.crop[1] + 1))
            clip = TF.crop(tv_tensors.Video(clip), top, left, *self.crop).as_subclass(torch.Tensor)
        if self.hflip and rng.random() < 0.5:
            clip = TF.horizontal_flip(tv_tensors.Video(clip)).as_subclass(torch.Tensor)
        return clip.contiguous()


class SequentialClips(_Clips):
    """Every video cut into clips of `clip_length` frames every `stride` frames, centre-cropped to
    `crop` (None keeps whole frames; then batch clips of one video size only). The same clips in the
    same order every time. `max_clips_per_video` keeps that many evenly spaced clips per video."""

    def __init__(
        self,
        sources: Sequence[ClipSource],
        clip_length: int = 5,
        crop: Size | None = None,
        channels: int | None = 1,
        resize: Size | float | None = None,
        stride: int | None = None,
        max_clips_per_video: int | None = None,
        cache_mb: float = 0,
    ):
        super().__init__(sources, clip_length, channels, resize, cache_mb)
        self.crop = _pair(crop)
        stride = stride or clip_length
        if stride < 1:
            raise DatasetError(f"stride must be at least 1, got {stride}")
        self.index: list[tuple[int, int]] = []
        for video in self.usable:
            starts = list(range(0, len(self.readers[video]) - clip_length + 1, stride))
            if max_clips_per_video is not None and len(starts) > max_clips_per_video:
                keep = np.linspace(0, len(starts) - 1, max_clips_per_video).round().astype(int)
                starts = [starts[k] for k in keep]
            self.index += [(video, start) for start in starts]

    def __len__(self) -> int:
        return len(self.index)

    @property
    def n_frames(self) -> int:
        return len(self.index) * self.clip_length

    def source_of(self, index: int) -> tuple[ClipSource, int]:
        """The clip source and start frame of item `index`."""
        video, start = self.index[index]
        return self.sources[video], start

    def __getitem__(self, index: int) -> torch.Tensor:
        video, start = self.index[index]
        clip = self._resized(self._read(video, start))
        if self.crop:
            self._check_crop(clip, self.crop, self.sources[video])
            clip = TF.center_crop(tv_tensors.Video(clip), list(self.crop)).as_subclass(torch.Tensor)
        return clip.contiguous()

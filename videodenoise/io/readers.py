"""Reading videos and frame folders, lazily and frame-accurately.

Any file PyAV (FFmpeg) can open, falling back to OpenCV when PyAV cannot decode it, and any folder of
image frames (tif, png, jpg, bmp) sorted numerically. `open_video` returns a reader whose `info` comes
from the container header (or, at worst, from demuxing packets) without decoding the whole file, and
whose frames are decoded lazily as (C, H, W) float32 tensors in [0, 1] (see `videodenoise.io.frames`).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np
import torch

from videodenoise.errors import VideoReadError
from videodenoise.io.frames import IMAGE_SUFFIXES, list_frame_files, to_channels, to_tensor

_GREY_PIX_FMTS = {"gray", "gray8", "gray10le", "gray12le", "gray16le", "gray16be", "ya8", "monow", "monob"}


class CorruptFrameWarning(UserWarning):
    """A frame could not be decoded and was replaced by its nearest readable neighbour."""


@dataclass(frozen=True)
class VideoInfo:
    """What a video holds, read without decoding it.

    fps is None for frame folders, which carry no frame rate; rate is the container's exact rate
    (e.g. 30000/1001) when it has one. channels is the source's native channel count (1 for grey
    pixel formats and single-channel images, else 3). has_audio: the file has an audio stream.
    """

    path: Path
    n_frames: int
    width: int
    height: int
    channels: int
    fps: float | None
    kind: str  # "video" or "frames"
    rate: Fraction | None = None
    has_audio: bool = False

    @property
    def duration(self) -> float | None:
        return self.n_frames / self.fps if self.fps else None

    def frame_rate(self, default: float | None = None) -> Fraction:
        """The exact frame rate to write an output at: the container's, else `default` (a frame
        folder's given rate), else 25."""
        if self.rate:
            return self.rate
        return Fraction(self.fps or default or 25.0).limit_denominator(1001)


# ----------------------------------------------------------------------------------------------
# Readers


class VideoReader:
    """Common interface of the readers: `info`, `frames(...)` lazily, `read(start, count)` a clip."""

    info: VideoInfo

    def __len__(self) -> int:
        return self.info.n_frames

    def frames(self, channels: int | None = None, start: int = 0, count: int | None = None) -> Iterator[torch.Tensor]:
        """Yield (C, H, W) float32 frames in [0, 1], from `start`, at most `count` of them."""
        for image in self._images(start, count):
            yield to_tensor(to_channels(image, channels))

    def read(self, start: int = 0, count: int | None = None, channels: int | None = None) -> torch.Tensor:
        """Frames [start, start + count) as one (T, C, H, W) tensor."""
        n = self.info.n_frames
        if not 0 <= start < max(n, 1) or (count is not None and (count < 1 or start + count > n)):
            raise VideoReadError(
                f"frames [{start}, {start + (count or 0)}) are outside '{self.info.path}', which has {n} frames"
            )
        clip = list(self.frames(channels, start, count))
        wanted = n - start if count is None else count
        if len(clip) < wanted:
            raise VideoReadError(
                f"'{self.info.path}' ended after {start + len(clip)} frames although its header says {n}; "
                "the file is truncated or corrupt: download it again"
            )
        return torch.stack(clip)

    def _images(self, start: int, count: int | None) -> Iterator[np.ndarray]:
        raise NotImplementedError


class FrameFolderReader(VideoReader):
    """A folder of numbered image files; unreadable frames are replaced by their nearest readable
    neighbour (with a CorruptFrameWarning) so that frame indices stay aligned with labels."""

    def __init__(self, folder: Path, fps: float | None = None, files: Sequence[Path] | None = None):
        self.folder = Path(folder)
        self.files = list(files) if files is not None else list_frame_files(self.folder)
        if not self.files:
            raise VideoReadError(f"'{self.folder}' holds no image frames ({', '.join(sorted(IMAGE_SUFFIXES))})")
        first = self._load_nearest(0)
        self.info = VideoInfo(
            path=self.folder,
            n_frames=len(self.files),
            width=first.shape[1],
            height=first.shape[0],
            channels=first.shape[2],
            fps=fps,
            kind="frames",
        )

    @staticmethod
    def _load(path: Path) -> np.ndarray | None:
        import cv2

        if path.stat().st_size == 0:
            return None
        image = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
        if image is None:
            return None
        if image.ndim == 2:
            return image[:, :, None]
        if image.shape[2] == 4:
            image = image[:, :, :3]
        return cv2.cvtColor(image, cv2.COLOR_BGR2RGB)

    def _load_nearest(self, index: int) -> np.ndarray:
        image = self._load(self.files[index])
        if image is not None:
            return image
        for distance in range(1, len(self.files)):
            for neighbour in (index - distance, index + distance):
                if 0 <= neighbour < len(self.files):
                    image = self._load(self.files[neighbour])
                    if image is not None:
                        warnings.warn(
                            f"frame '{self.files[index]}' is unreadable (truncated or corrupt); "
                            f"using '{self.files[neighbour].name}' in its place",
                            CorruptFrameWarning,
                            stacklevel=3,
                        )
                        return image
        raise VideoReadError(f"no frame of '{self.folder}' can be read; the folder's images are all corrupt")

    def _images(self, start: int, count: int | None) -> Iterator[np.ndarray]:
        stop = len(self.files) if count is None else min(len(self.files), start + count)
        for index in range(start, stop):
            image = self._load_nearest(index)
            if image.shape[:2] != (self.info.height, self.info.width):
                raise VideoReadError(
                    f"frame '{self.files[index].name}' of '{self.folder}' is {image.shape[1]}×{image.shape[0]} but "
                    f"the first frame is {self.info.width}×{self.info.height}; every frame of a folder must have "
                    "the same size: resize or remove the odd ones"
                )
            # a grey frame among colour ones (or the reverse) is read with the folder's channel count
            yield to_channels(image, self.info.channels)


class PyAVReader(VideoReader):
    """A video file decoded with PyAV. Frame-accurate random access comes from an index of the
    packets' presentation timestamps, built by demuxing alone (no decoding)."""

    def __init__(self, path: Path):
        import av

        self.path = Path(path)
        self._pts_index: list[int] | None = None
        with av.open(str(self.path)) as container:
            if not container.streams.video:
                raise VideoReadError(f"'{self.path}' has no video stream")
            stream = container.streams.video[0]
            fps = stream.average_rate or stream.guessed_rate or stream.base_rate
            n_frames = stream.frames
            if n_frames <= 0:  # mkv, webm and gif headers often carry no frame count
                n_frames = len(self._build_pts_index(container, stream))
            width, height = stream.codec_context.width, stream.codec_context.height
            pix_fmt = stream.codec_context.pix_fmt or ""
            audio = len(container.streams.audio) > 0
        if n_frames <= 0 or width <= 0 or height <= 0:
            raise VideoReadError(f"'{self.path}' holds no decodable video frames")
        self.info = VideoInfo(
            path=self.path,
            n_frames=n_frames,
            width=width,
            height=height,
            channels=1 if pix_fmt in _GREY_PIX_FMTS else 3,
            fps=float(fps) if fps else None,
            kind="video",
            rate=Fraction(fps.numerator, fps.denominator) if fps else None,
            has_audio=audio,
        )
        self._grey = self.info.channels == 1

    def _build_pts_index(self, container, stream) -> list[int]:
        pts = [p.pts for p in container.demux(stream) if p.size > 0]
        self._pts_index = sorted(pts) if all(p is not None for p in pts) else []
        return pts

    def _decode(self, frame) -> np.ndarray | None:
        if isinstance(frame, _LostFrame):
            return None
        if self._grey:
            return frame.to_ndarray(format="gray")[:, :, None]
        return frame.to_ndarray(format="rgb24")

    def _images(self, start: int, count: int | None) -> Iterator[np.ndarray]:
        """The decoded images; a packet the decoder rejects becomes a copy of the previous image (the
        next one when it is the first) with a CorruptFrameWarning, so frame indices stay aligned."""
        previous, lost = None, []  # lost: positions of undecodable frames before the first good one
        for position, image in enumerate(self._decoded_images(start, count), start=start):
            if image is None and previous is None:
                lost.append(position)
                continue
            for missing in lost + ([position] if image is None else []):
                warnings.warn(
                    f"frame {missing} of '{self.path}' cannot be decoded (corrupt data); "
                    "repeating its neighbour in its place",
                    CorruptFrameWarning,
                    stacklevel=3,
                )
            image = previous if image is None else image
            for _ in lost:
                yield image
            lost, previous = [], image
            yield image
        if lost:
            raise VideoReadError(f"no frame of '{self.path}' can be decoded; the file is corrupt")

    def _decoded_images(self, start: int, count: int | None) -> Iterator[np.ndarray | None]:
        import av

        with av.open(str(self.path)) as container:
            stream = container.streams.video[0]
            stream.thread_type = "AUTO"
            if self._pts_index is None:
                self._build_pts_index(container, stream)
                container.seek(0)
            index = self._pts_index or []
            wanted_end = None if count is None else start + count
            if start > 0 and len(index) > start:
                # Seek to the keyframe before the first wanted frame, then decode forward and keep
                # exactly the frames whose timestamps are in the wanted range.
                container.seek(index[start], stream=stream, backward=True, any_frame=False)
                first_pts = index[start]
                last_pts = index[wanted_end - 1] if wanted_end is not None and wanted_end <= len(index) else None
                produced = 0
                for frame in _decode_packets(container, stream):
                    if frame.pts is None:
                        break  # no timestamps after all: fall back to counting from the start
                    if produced == 0 and frame.pts > first_pts:
                        break  # the seek overshot: fall back
                    if frame.pts < first_pts:
                        continue
                    if last_pts is not None and frame.pts > last_pts:
                        return
                    yield self._decode(frame)
                    produced += 1
                    if count is not None and produced >= count:
                        return
                if produced > 0:
                    return
                container.seek(0)
            # Sequential decode, counting frames: always correct, slower for late starts.
            for position, frame in enumerate(_decode_packets(container, stream)):
                if position < start:
                    continue
                if wanted_end is not None and position >= wanted_end:
                    return
                yield self._decode(frame)


class _LostFrame:
    """Stands in for the frame of a packet the decoder rejected."""

    def __init__(self, pts: int | None):
        self.pts = pts


def _decode_packets(container, stream) -> Iterator:
    """Decode packet by packet, so that one corrupt packet costs one frame (a _LostFrame in its
    place) instead of ending the decode."""
    import av

    for packet in container.demux(stream):
        try:
            frames = packet.decode()
        except av.FFmpegError:
            if packet.size > 0:
                yield _LostFrame(packet.pts)
            continue
        yield from frames


class OpenCVReader(VideoReader):
    """The fallback for files PyAV cannot decode (some ShanghaiTech .avi builds)."""

    def __init__(self, path: Path):
        import cv2

        self.path = Path(path)
        capture = cv2.VideoCapture(str(self.path))
        try:
            if not capture.isOpened():
                raise VideoReadError(f"'{self.path}' is not a video that PyAV or OpenCV can decode")
            n_frames = int(capture.get(cv2.CAP_PROP_FRAME_COUNT))
            ok, image = capture.read()
            if not ok or n_frames <= 0:
                raise VideoReadError(f"'{self.path}' holds no decodable video frames")
            fps = capture.get(cv2.CAP_PROP_FPS)
        finally:
            capture.release()
        self.info = VideoInfo(
            path=self.path,
            n_frames=n_frames,
            width=image.shape[1],
            height=image.shape[0],
            channels=3,
            fps=float(fps) if fps and fps > 0 else None,
            kind="video",
        )

    def _images(self, start: int, count: int | None) -> Iterator[np.ndarray]:
        import cv2

        capture = cv2.VideoCapture(str(self.path))
        try:
            if start > 0:
                capture.set(cv2.CAP_PROP_POS_FRAMES, start)
            produced = 0
            while count is None or produced < count:
                ok, image = capture.read()
                if not ok:
                    return
                yield cv2.cvtColor(image, cv2.COLOR_BGR2RGB)
                produced += 1
        finally:
            capture.release()


class _FallbackReader(VideoReader):
    """PyAV first; if its decoding fails part-way, the same frames again through OpenCV."""

    def __init__(self, primary: PyAVReader):
        self.primary = primary
        self.info = primary.info
        self._fallback: OpenCVReader | None = None

    def _images(self, start: int, count: int | None) -> Iterator[np.ndarray]:
        import av

        if self._fallback is not None:
            yield from self._fallback._images(start, count)
            return
        produced = 0
        try:
            for image in self.primary._images(start, count):
                yield image
                produced += 1
        except (av.FFmpegError, ValueError) as error:
            warnings.warn(
                f"PyAV failed to decode '{self.info.path}' ({error}); continuing with OpenCV",
                CorruptFrameWarning,
                stacklevel=3,
            )
            self._fallback = OpenCVReader(self.info.path)
            yield from self._fallback._images(start + produced, None if count is None else count - produced)


def open_video(path: str | os.PathLike, fps: float | None = None) -> VideoReader:
    """Open a video file or a folder of frames for lazy reading.

    `fps` sets the frame rate of a frame folder (which has none of its own); it is ignored for
    video files, whose rate comes from the container.
    """
    import av

    path = Path(path)
    if fps is not None and not fps > 0:
        raise VideoReadError(f"the frame rate of a frame folder must be positive, got {fps:g}; e.g. --fps 25")
    if not path.exists():
        raise VideoReadError(f"'{path}' does not exist; check the path")
    if path.is_dir():
        return FrameFolderReader(path, fps=fps)
    if path.suffix.lower() in IMAGE_SUFFIXES:
        raise VideoReadError(f"'{path}' is a single image; pass the folder that holds the frames")
    try:
        return _FallbackReader(PyAVReader(path))
    except (av.FFmpegError, UnicodeDecodeError, ValueError, VideoReadError) as pyav_error:
        try:
            return OpenCVReader(path)
        except VideoReadError:
            raise VideoReadError(
                f"'{path}' is not a video that PyAV or OpenCV can decode ({short_error(pyav_error)}); "
                "check that the file is complete and is a video"
            ) from None


def short_error(error: Exception) -> str:
    """The first line of an error, without FFmpeg's errno prefix and repeated file name."""
    text = getattr(error, "strerror", None) or str(error).strip() or type(error).__name__
    return text.splitlines()[0][:120]


def probe_video(path: str | os.PathLike) -> VideoInfo:
    """Metadata of a video or frame folder without decoding the frames."""
    return open_video(path).info


def read_video(
    path: str | os.PathLike, channels: int | None = None, start: int = 0, max_frames: int | None = None
) -> torch.Tensor:
    """A whole video (or `max_frames` of it from `start`) as a (T, C, H, W) float32 tensor in [0, 1]."""
    reader = open_video(path)
    count = None if max_frames is None else min(max_frames, len(reader) - start)
    return reader.read(start, count, channels)

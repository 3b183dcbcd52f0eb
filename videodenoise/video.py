"""Reading and writing videos and frame folders.

Frames travel through the project as float32 tensors in [0, 1], shaped (C, H, W) for one frame and
(T, C, H, W) for a clip, with C = 1 (grey) or 3 (RGB).

Reading: any file PyAV (FFmpeg) can open, falling back to OpenCV when PyAV cannot decode it, and any
folder of image frames (tif, png, jpg, bmp) sorted numerically. `open_video` returns a reader whose
`info` comes from the container header (or, at worst, from demuxing packets) without decoding the
whole file, and whose frames are decoded lazily.

Writing: H.264 in MP4 by default (plays everywhere), or lossless FFV1 in MKV, or a PNG frame folder.
Every write goes to a hidden temporary name beside the target and is renamed into place only when
complete, so an interrupted write never leaves a half-written file under the final name.
"""

from __future__ import annotations

import os
import re
import warnings
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Iterator, Sequence

import numpy as np
import torch

from .atomic import AtomicOutput, describe_os_error
from .errors import OutputError, VideoReadError, VideoWriteError

IMAGE_SUFFIXES = {".tif", ".tiff", ".png", ".jpg", ".jpeg", ".bmp"}
VIDEO_SUFFIXES = {".mp4", ".avi", ".mkv", ".webm", ".gif", ".mov", ".m4v", ".mpg", ".mpeg", ".wmv", ".flv"}
_GREY_PIX_FMTS = {"gray", "gray8", "gray10le", "gray12le", "gray16le", "gray16be", "ya8", "monow", "monob"}


class CorruptFrameWarning(UserWarning):
    """A frame could not be decoded and was replaced by its nearest readable neighbour."""


@dataclass(frozen=True)
class VideoInfo:
    """What a video holds, read without decoding it.

    fps is None for frame folders, which carry no frame rate. channels is the source's native
    channel count (1 for grey pixel formats and single-channel images, else 3).
    """

    path: Path
    n_frames: int
    width: int
    height: int
    channels: int
    fps: float | None
    kind: str  # "video" or "frames"

    @property
    def duration(self) -> float | None:
        return self.n_frames / self.fps if self.fps else None


def is_junk(path: Path) -> bool:
    """Files that real dataset copies carry and that are never frames or videos."""
    name = path.name
    return name.startswith("._") or name.startswith(".") or name in {"Thumbs.db", "desktop.ini"}


def numeric_sort_key(path: Path) -> tuple:
    """Sort key that orders '2.tif' before '10.tif' (natural order, digits compared as numbers)."""
    parts = re.split(r"(\d+)", path.name)
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p.lower()) for p in parts if p != "")


def list_frame_files(folder: Path) -> list[Path]:
    """The image frames of a folder, junk skipped, in numeric order."""
    return sorted(
        (p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES and not is_junk(p)),
        key=numeric_sort_key,
    )


def to_channels(rgb_or_grey: np.ndarray, channels: int | None) -> np.ndarray:
    """An (H, W, C) uint8/uint16 image with C in {1, 3} converted to the requested channel count."""
    import cv2

    have = rgb_or_grey.shape[2]
    if channels is None or channels == have:
        return rgb_or_grey
    if channels == 1:
        return cv2.cvtColor(rgb_or_grey, cv2.COLOR_RGB2GRAY)[:, :, None]
    if channels == 3:
        return np.repeat(rgb_or_grey, 3, axis=2)
    raise ValueError(f"channels must be 1, 3 or None, got {channels}")


def to_tensor(image: np.ndarray) -> torch.Tensor:
    """(H, W, C) integer image -> (C, H, W) float32 tensor in [0, 1]."""
    scale = float(np.iinfo(image.dtype).max) if np.issubdtype(image.dtype, np.integer) else 1.0
    return torch.from_numpy(np.ascontiguousarray(image.transpose(2, 0, 1))).float().div_(scale)


def to_uint8(frame: torch.Tensor | np.ndarray) -> np.ndarray:
    """A (C, H, W) float frame in [0, 1] (or an (H, W, C) uint8 array) -> (H, W, C) uint8, rounded."""
    if isinstance(frame, np.ndarray) and frame.dtype == np.uint8:
        return frame if frame.ndim == 3 else frame[:, :, None]
    if isinstance(frame, np.ndarray):
        frame = torch.from_numpy(frame)
    if frame.ndim != 3:
        raise VideoWriteError(f"a frame must be (C, H, W), got shape {tuple(frame.shape)}")
    array = frame.detach().float().clamp(0, 1).mul(255).round().to(torch.uint8).cpu().numpy()
    return np.ascontiguousarray(array.transpose(1, 2, 0))


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
                    "the same size: resize or remove the odd ones")
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
                warnings.warn(f"frame {missing} of '{self.path}' cannot be decoded (corrupt data); "
                              "repeating its neighbour in its place", CorruptFrameWarning, stacklevel=3)
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
                f"'{path}' is not a video that PyAV or OpenCV can decode ({_short(pyav_error)}); "
                "check that the file is complete and is a video"
            ) from None


def _short(error: Exception) -> str:
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


# ----------------------------------------------------------------------------------------------
# Writers

H264_CONTAINERS = {".mp4", ".mkv", ".mov", ".m4v", ".avi"}


MAX_CRF = 51  # libx264's 8-bit CRF range is 0-51


class VideoWriter:
    """Write frames to a video file or a PNG frame folder, atomically.

    codec: "h264" (default for .mp4/.mov/.mkv/.avi; yuv420p, or yuv444p when a side is odd, since
    4:2:0 chroma needs even sides), "ffv1" (lossless, .mkv), "png" (lossless frame folder; the
    default when the path has no suffix). Frames are (C, H, W) float tensors in [0, 1] or (H, W, C)
    uint8 arrays; every frame must have the size and channel count of the first.

    Use as a context manager: on normal exit the file is renamed into place; on an exception the
    partial output is deleted and the final name is never touched.

    audio_from: a video file whose audio streams are copied into the output when it is closed (see
    `mux_audio`); not for PNG frame folders.
    """

    def __init__(
        self,
        path: str | os.PathLike,
        fps: float | Fraction = 25,
        codec: str | None = None,
        crf: int = 17,
        keyframe_interval: int | None = None,
        overwrite: bool = False,
        audio_from: str | os.PathLike | None = None,
    ):
        self.path = Path(path)
        self.codec = codec or ("png" if self.path.suffix == "" else "h264")
        suffix = self.path.suffix.lower()
        if self.codec == "png" and suffix:
            raise VideoWriteError(f"a PNG frame folder needs a path without a suffix, got '{self.path}'")
        if self.codec == "ffv1" and suffix != ".mkv":
            raise VideoWriteError(f"lossless FFV1 output needs a .mkv path, got '{self.path}'")
        if self.codec == "h264" and suffix not in H264_CONTAINERS:
            raise VideoWriteError(
                f"cannot write H.264 to '{self.path}': use one of {', '.join(sorted(H264_CONTAINERS))}, "
                "or a path without a suffix for a PNG frame folder"
            )
        if self.codec not in {"h264", "ffv1", "png"}:
            raise VideoWriteError(f"unknown codec '{self.codec}'; use h264, ffv1 or png")
        if audio_from is not None and self.codec == "png":
            raise VideoWriteError(f"a PNG frame folder cannot hold audio; write a video file instead of '{self.path}'")
        self.audio_from = None if audio_from is None else Path(audio_from)
        try:
            self.rate = fps if isinstance(fps, Fraction) else Fraction(fps).limit_denominator(1001)
        except (TypeError, ValueError, OverflowError):
            raise VideoWriteError(f"frame rate must be a positive number, got {fps!r}") from None
        if not self.rate > 0:
            raise VideoWriteError(f"frame rate must be positive, got {fps}; pass a rate such as 25")
        if self.codec == "h264" and not (isinstance(crf, int) and 0 <= crf <= MAX_CRF):
            raise VideoWriteError(f"the H.264 quality (CRF) must be an integer from 0 (lossless) to {MAX_CRF}, "
                                  f"got {crf}; 17 is visually lossless")
        self.crf = crf
        self.keyframe_interval = keyframe_interval
        # checks the output (exists without overwrite, folder missing or a file) before any frame
        try:
            self._output = AtomicOutput(self.path, overwrite=overwrite, directory=self.codec == "png",
                                        hint="choose another name or allow overwriting")
        except OutputError as error:
            raise VideoWriteError(str(error)) from None
        self.partial = self._output.temporary
        self.n_written = 0
        self._container = None
        self._stream = None
        self._shape: tuple[int, int, int] | None = None
        self._closed = False

    def __enter__(self) -> "VideoWriter":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()

    def _open(self, height: int, width: int, channels: int) -> None:
        import av

        self._shape = (height, width, channels)
        if self.codec == "png":
            return
        try:
            self._container = av.open(str(self.partial), mode="w")
        except (av.FFmpegError, OSError) as error:
            raise VideoWriteError(f"cannot write '{self.path}': {_short(error)}") from None
        stream = self._container.add_stream("libx264" if self.codec == "h264" else "ffv1", rate=self.rate)
        stream.width, stream.height = width, height
        stream.codec_context.time_base = 1 / self.rate
        if self.keyframe_interval:
            stream.codec_context.gop_size = self.keyframe_interval
        if self.codec == "h264":
            stream.pix_fmt = "yuv420p" if width % 2 == 0 and height % 2 == 0 else "yuv444p"
            stream.options = {"crf": str(self.crf), "preset": "medium"}
        else:
            stream.pix_fmt = "gray" if channels == 1 else "bgr0"  # both lossless for 8-bit input
        self._stream = stream

    def write(self, frame: torch.Tensor | np.ndarray) -> None:
        import av

        image = to_uint8(frame)
        if image.shape[2] not in (1, 3):
            raise VideoWriteError(f"frames must have 1 or 3 channels, got {image.shape[2]}")
        if self._shape is None:
            self._open(*image.shape)
        elif image.shape != self._shape:
            raise VideoWriteError(f"frame {self.n_written} is {image.shape}, the first frame was {self._shape}")
        if self.codec == "png":
            import cv2

            bgr = image if image.shape[2] == 1 else cv2.cvtColor(image, cv2.COLOR_RGB2BGR)
            encoded, data = cv2.imencode(".png", bgr)
            if not encoded:
                raise VideoWriteError(f"cannot encode frame {self.n_written} of '{self.path}' as PNG")
            # written by Python, not libpng, so that a full disk is reported as one (ENOSPC)
            write_frame_file(self.partial / f"{self.n_written:06d}.png", data.tobytes(), self.path)
        else:
            if image.shape[2] == 1:
                if self.codec == "ffv1":
                    video_frame = av.VideoFrame.from_ndarray(image[:, :, 0], format="gray")
                else:
                    video_frame = av.VideoFrame.from_ndarray(np.repeat(image, 3, axis=2), format="rgb24")
            else:
                video_frame = av.VideoFrame.from_ndarray(image, format="rgb24")
            video_frame.pts = self.n_written
            for packet in self._stream.encode(video_frame):
                self._container.mux(packet)
        self.n_written += 1

    def close(self) -> Path:
        """Flush, then move the finished output to its final name."""
        if self._closed:
            return self.path
        self._closed = True
        try:
            if self._shape is None:
                raise VideoWriteError(f"no frames were written to '{self.path}'")
            if self._container is not None:
                for packet in self._stream.encode(None):
                    self._container.mux(packet)
                self._container.close()
                self._container = None
            if self.audio_from is not None:
                with_audio = self.partial.with_name(f".{self.path.name}.audio-{os.getpid()}{self.path.suffix}")
                try:
                    mux_audio(self.partial, self.audio_from, with_audio)
                    os.replace(with_audio, self.partial)
                finally:
                    with_audio.unlink(missing_ok=True)
        except BaseException:
            self._output.discard()
            raise
        try:
            return self._output.commit()
        except OutputError as error:
            raise VideoWriteError(str(error)) from None

    def abort(self) -> None:
        """Drop the partial output; the final name is left as it was."""
        self._closed = True
        if self._container is not None:
            try:
                self._container.close()
            except Exception:  # the container may be unusable after the error that brought us here
                pass
        self._output.discard()


def write_frame_file(path: Path, data: bytes, output: Path) -> None:
    """One encoded frame into a PNG folder being written (a function of its own so that tests can
    inject faults such as a full disk)."""
    try:
        with open(path, "wb") as handle:
            handle.write(data)
    except OSError as error:
        raise VideoWriteError(describe_os_error(error, output)) from None


def has_audio(path: str | os.PathLike) -> bool:
    """Whether a video file has at least one audio stream (False for frame folders and unreadable files)."""
    import av

    path = Path(path)
    if not path.is_file():
        return False
    try:
        with av.open(str(path)) as container:
            return len(container.streams.audio) > 0
    except (av.FFmpegError, UnicodeDecodeError, ValueError):
        return False


def mux_audio(video_file: str | os.PathLike, audio_source: str | os.PathLike, output: str | os.PathLike) -> int:
    """Write `output` with the video stream of `video_file` and every audio stream of `audio_source`.

    Nothing is re-encoded except audio whose codec the output container cannot hold, which becomes
    AAC. Audio timestamps are shifted by the start time of `audio_source`'s first video stream, so
    audio that was in sync with that stream stays in sync with `video_file` (which starts at 0).
    Packets are interleaved by time. Returns the number of audio streams written.
    """
    import heapq

    import av

    try:
        with av.open(str(video_file)) as video_in, av.open(str(audio_source)) as audio_in, \
                av.open(str(output), mode="w") as out:
            video_stream = video_in.streams.video[0]
            out_video = out.add_stream_from_template(video_stream)
            offset = 0.0
            if audio_in.streams.video and audio_in.streams.video[0].start_time is not None:
                first = audio_in.streams.video[0]
                offset = float(first.start_time * first.time_base)
            routes = {}  # input audio stream index -> (output stream, resampler or None for a copy)
            for stream in audio_in.streams.audio:
                if stream.codec_context.name in out.supported_codecs:
                    routes[stream.index] = (out.add_stream_from_template(stream), None)
                else:
                    rate = stream.codec_context.sample_rate or 48000
                    layout = _named_layout(stream.codec_context.layout)
                    encoder = out.add_stream("aac", rate=rate, layout=layout)
                    # AAC takes planar float in frames of 1024 samples
                    resampler = av.AudioResampler(format="fltp", layout=layout, rate=rate, frame_size=1024)
                    routes[stream.index] = (encoder, resampler)

            def timed(packets, shift: float = 0.0):
                for packet in packets:
                    if packet.size == 0:
                        continue
                    stamp = packet.dts if packet.dts is not None else packet.pts
                    seconds = float(stamp * packet.time_base) - shift if stamp is not None else 0.0
                    yield seconds, packet

            def shift_packet(packet, shift: float) -> None:
                ticks = round(shift / packet.time_base)
                if packet.pts is not None:
                    packet.pts -= ticks
                if packet.dts is not None:
                    packet.dts -= ticks

            video_packets = timed(video_in.demux(video_stream))
            audio_packets = timed(audio_in.demux(*audio_in.streams.audio), offset) if routes else iter(())
            for _, packet in heapq.merge(video_packets, audio_packets, key=lambda item: item[0]):
                if packet.stream.type == "video":
                    packet.stream = out_video
                    out.mux(packet)
                    continue
                target, resampler = routes[packet.stream.index]
                if resampler is None:
                    shift_packet(packet, offset)
                    packet.stream = target
                    out.mux(packet)
                    continue
                for frame in packet.decode():
                    frame.pts = None
                    for resampled in resampler.resample(frame):
                        out.mux(target.encode(resampled))
            for target, resampler in routes.values():
                if resampler is not None:
                    for resampled in resampler.resample(None):
                        out.mux(target.encode(resampled))
                    out.mux(target.encode(None))
            return len(routes)
    except av.FFmpegError as error:
        raise VideoWriteError(f"cannot copy the audio of '{audio_source}' into '{output}': {_short(error)}") from None


def _named_layout(layout) -> str:
    """A channel layout the AAC encoder accepts: the source's own, or FFmpeg's default for its
    channel count when the source only says 'N channels' (e.g. PCM in AVI)."""
    if not layout.name.endswith("channels"):
        return layout.name
    defaults = {1: "mono", 2: "stereo", 3: "3.0", 4: "4.0", 5: "5.0", 6: "5.1", 7: "6.1", 8: "7.1"}
    return defaults.get(layout.nb_channels, "stereo")


def write_video(
    path: str | os.PathLike,
    frames: torch.Tensor | Sequence[torch.Tensor],
    fps: float | Fraction = 25,
    codec: str | None = None,
    overwrite: bool = False,
    **options,
) -> Path:
    """Write a (T, C, H, W) tensor (or a sequence of (C, H, W) frames) in one call."""
    with VideoWriter(path, fps=fps, codec=codec, overwrite=overwrite, **options) as writer:
        for frame in frames:
            writer.write(frame)
    return writer.path

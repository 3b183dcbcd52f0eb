"""The readers: what a video holds (`VideoInfo`, `VideoProperties`), the interface every reader has,
and the readers of frame folders and of files through OpenCV (the fallback). The PyAV reader is
`videodenoise.io.pyav_reader`; `videodenoise.io.video.open_video` picks the reader for a path.

Frames are decoded lazily as (C, H, W) float32 tensors in [0, 1] (see `videodenoise.io.frames`).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Container, Iterator, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path

import numpy as np
import torch

from videodenoise.errors import VideoReadError
from videodenoise.io.frames import (
    IMAGE_SUFFIXES,
    LOSSLESS_IMAGE_SUFFIXES,
    VIDEO_SUFFIXES,
    is_junk,
    list_frame_files,
    to_channels,
    to_tensor,
    upright,
)

_ENDED = object()  # what a pass gives after its last frame


class CorruptFrameWarning(UserWarning):
    """A frame could not be decoded and was replaced by its nearest readable neighbour, or was decoded with
    damage its decoder concealed."""


class CorruptFileWarning(UserWarning):
    """The container is damaged (a recording cut short, a broken element); what could be read is used."""


@dataclass(frozen=True)
class VideoInfo:
    """What a video holds, read without decoding it.

    fps is None for frame folders, which carry no frame rate; rate is the container's exact rate
    (e.g. 30000/1001) when it has one. channels is the source's colour channel count (1 for grey
    pixel formats and single-channel images, else 3); alpha says whether an alpha channel comes with
    them; bit_depth is bits per component (8, or up to 16). has_audio: the file has an audio stream; subtitles: how
    many subtitle streams it has; extras: what else an output copies where its container holds it, each in a few
    words (data streams, cover pictures, attachments: `pyav_reader.extra_streams`); other_videos: how many video
    streams besides the one read (cover pictures not counted); clockless: the frames carry no timestamps of their own
    (a raw .264 or .hevc stream, which no container times), so that the rate is FFmpeg's assumption or the one given.
    lossless: the pictures are stored without loss (a codec FFmpeg describes as lossless only, such as FFV1,
    raw video or PNG; or a folder of PNG, TIFF or BMP frames).
    """

    path: Path
    n_frames: int
    width: int
    height: int
    channels: int
    fps: float | None
    kind: str  # "video", "frames" (a folder of them) or "image" (one image file)
    rate: Fraction | None = None
    has_audio: bool = False
    subtitles: int = 0
    extras: tuple[str, ...] = ()
    other_videos: int = 0
    clockless: bool = False
    alpha: bool = False
    bit_depth: int = 8
    lossless: bool = False

    @property
    def duration(self) -> float | None:
        return self.n_frames / self.fps if self.fps else None

    def frame_rate(self, default: float | None = None) -> Fraction:
        """The exact frame rate to write an output at: the container's, else `default` (a frame
        folder's given rate), else 25."""
        if self.rate:
            return self.rate
        return Fraction(self.fps or default or 25.0).limit_denominator(1001)


def container_tags(metadata: dict[str, str]) -> dict[str, str]:
    """A container's tags without those its muxer writes of its own (which brands, which encoder; any case:
    Matroska's are upper case): what the video carries, and an output keeps."""
    muxers = {"major_brand", "minor_version", "compatible_brands", "encoder"}
    return {name: value for name, value in metadata.items() if name.lower() not in muxers}


def stream_tags(metadata: dict[str, str]) -> dict[str, str]:
    """A stream's tags that an output keeps (its language, title, handler name…), as ffmpeg copies them, less what
    would be false of the output: the encoder, MP4's vendor, Matroska's per-stream duration and mkvmerge's statistics
    (bit rate, frame and byte counts, which may carry a language suffix: "BPS-eng"), and the timecode, which
    `VideoProperties.timecode` carries and an excerpt moves; and what says nothing: the language "und"
    (undetermined) and FFmpeg's own handler names, which its MP4 muxer writes for every stream. MP4's track name,
    which FFmpeg reads as "name", is given as "title", the key its muxers write a track's name from (MP4, MOV and
    Matroska alike)."""
    stale = {"encoder", "vendor_id", "duration", "timecode", "bps", "number_of_frames", "number_of_bytes"}
    empty = {("language", "und"), ("handler_name", "VideoHandler"), ("handler_name", "SoundHandler")}
    return {
        "title" if name == "name" else name: value
        for name, value in metadata.items()
        if name.lower().split("-")[0] not in stale
        and not name.lower().startswith("_statistics_")
        and (name.lower(), value) not in empty
    }


@dataclass(frozen=True)
class VideoProperties:
    """What a video carries besides its pixels, which an output keeps (`VideoWriter(properties=...)`).

    rotation: degrees counter-clockwise the picture is turned for display (the display matrix).
    sample_aspect_ratio: the width of a pixel over its height (None: square). The colour tags are
    FFmpeg's enumerations (AVColorRange: 0 unknown, 1 limited, 2 full; AVColorSpace, AVColorTransfer-
    Characteristic, AVColorPrimaries: 2 unknown). time_base and start: the stream's clock and its
    first timestamp, in which every frame's own timestamp is counted (None: a frame folder).
    field_order: FFmpeg's AVFieldOrder, whether the pictures are interlaced (0 unknown, 1 progressive;
    2 and 5 top field shown first, 3 and 4 bottom field first). metadata: the container's own tags
    (creation time, title, location…) as (name, value) pairs, which ffmpeg copies by default; the muxer's
    bookkeeping (brands, encoder) is left out. stream_metadata: the video stream's own (language, title, handler
    name…), as `stream_tags` keeps them. mastering_display and light_level: HDR10's static metadata,
    as H.264 and HEVC carry it: the mastering display's red, green, blue and white point chromaticities
    (x, y pairs) and its largest and smallest luminance in cd/m², and the content's MaxCLL and MaxFALL (cd/m²).
    chroma: how many pixels across and down share one chroma sample in the stored pictures ((2, 2) for 4:2:0, (2, 1)
    for 4:2:2, (1, 1) for 4:4:4); None where they are RGB or grey, or a frame folder. timecode: the SMPTE timecode of
    the first frame (`videodenoise.io.timecode`), as a camera's timecode track or a Matroska tag gives it. chapters:
    the file's chapters as (start, end, tags) with start and end in seconds on the file's clock (the clock of its
    timestamps, which an output keeps), tags its (name, value) pairs (a title…)."""

    rotation: int = 0
    sample_aspect_ratio: Fraction | None = None
    color_range: int = 0
    colorspace: int = 2
    color_trc: int = 2
    color_primaries: int = 2
    bit_depth: int = 8
    alpha: bool = False
    time_base: Fraction | None = None
    start: int | None = None
    field_order: int = 0
    metadata: tuple[tuple[str, str], ...] = ()
    stream_metadata: tuple[tuple[str, str], ...] = ()
    mastering_display: tuple[float, ...] | None = None  # Rx, Ry, Gx, Gy, Bx, By, Wx, Wy, max, min
    light_level: tuple[int, int] | None = None
    chroma: tuple[int, int] | None = None
    timecode: str | None = None
    chapters: tuple[tuple[float, float, tuple[tuple[str, str], ...]], ...] = ()

    @property
    def interlaced(self) -> bool:
        return self.field_order in (2, 3, 4, 5)

    @property
    def top_field_first(self) -> bool:
        """Whether the top field (lines 0, 2, …) is shown first: AV_FIELD_TT and AV_FIELD_BT."""
        return self.field_order in (2, 5)

    @property
    def field_first(self) -> str:
        """Which field is shown first, in words: "top field first" or "bottom field first"."""
        return "top field first" if self.top_field_first else "bottom field first"


# ----------------------------------------------------------------------------------------------
# Readers


class VideoReader:
    """Common interface of the readers: `info`, `frames(...)` lazily, `read(start, count)` a clip."""

    info: VideoInfo

    def __len__(self) -> int:
        return self.info.n_frames

    def frames(self, channels: int | None = None, start: int = 0, count: int | None = None) -> Iterator[torch.Tensor]:
        """Yield (C, H, W) float32 frames in [0, 1], from `start`, at most `count` of them, with
        `channels` colour channels (None: the source's own); an alpha channel is left out."""
        for image, _ in self._images(start, count):
            yield self._frame(image, channels)

    def _frame(self, image: np.ndarray, channels: int | None = None) -> torch.Tensor:
        """An image as `frames` yields it."""
        return to_tensor(to_channels(image[:, :, :-1] if self.info.alpha else image, channels))

    def runs(self, starts: Sequence[int], count: int) -> Iterator[list[torch.Tensor]]:
        """For each of the increasing `starts`, the frames [start, start + count) as `frames` gives them, as far
        as they decode: a list that stops before the first frame that cannot be (empty when none can, shorter
        where the video ends). The runs `_passes` groups are decoded in one pass, each frame once."""
        for group in self._passes(starts, count):
            yield from self._runs_in_one_pass(group, count)

    def _passes(self, starts: Sequence[int], count: int) -> list[list[int]]:
        """The runs' starts grouped into passes over the video, each group read in one: here every run alone, as a
        reader whose frames are read where they lie does best."""
        return [[start] for start in starts]

    def _runs_in_one_pass(self, starts: list[int], count: int) -> Iterator[list[torch.Tensor]]:
        """`runs` over one pass from the first start to the last run's end, holding only the frames a run still
        needs. A pass that fails (a frame that cannot be decoded) ends the run it failed in there, as reading that
        run alone would, and the later runs are read each on its own."""
        wanted = {p for start in starts for p in range(start, start + count)}
        decoded = (
            None if image is None else self._frame(image)
            for image, _ in self._images(starts[0], starts[-1] + count - starts[0], wanted)
        )
        held: dict[int, torch.Tensor | None] = {}
        position = starts[0]  # of the next frame the pass gives
        for index, start in enumerate(starts):
            for stale in [p for p in held if p < start]:
                del held[stale]
            failed = False
            try:
                while position < start + count and (frame := next(decoded, _ENDED)) is not _ENDED:
                    held[position] = frame
                    position += 1
            except VideoReadError:
                failed = True
            yield [held[p] for p in range(start, min(position, start + count))]
            if failed:
                for later in starts[index + 1 :]:
                    yield from self._runs_in_one_pass([later], count)
                return

    def timed_frames(self, start: int = 0) -> Iterator[tuple[torch.Tensor, int | None]]:
        """Every frame from `start` as it is stored, (C, H, W) in [0, 1] with its alpha channel last when it has
        one, and its timestamp in `properties().time_base` (None where the source has none)."""
        for image, pts in self._images(start, None):
            yield to_tensor(image), pts

    def properties(self) -> VideoProperties:
        """What the source carries besides its pixels (see VideoProperties)."""
        return VideoProperties(bit_depth=self.info.bit_depth, alpha=self.info.alpha)

    def frame_times(self) -> list[float]:
        """Each frame's presentation time in seconds from the video's start: here one frame every 1 / rate."""
        rate = float(self.info.frame_rate())
        return [position / rate for position in range(self.info.n_frames)]

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

    def _images(
        self, start: int, count: int | None, wanted: Container[int] | None = None
    ) -> Iterator[tuple[np.ndarray | None, int | None]]:
        """(H, W, C) integer images, alpha last when the source has one, with their timestamps. wanted: None, or
        the positions whose images are needed; a reader may give None for the others (the PyAV reader does)."""
        raise NotImplementedError


class FrameFolderReader(VideoReader):
    """A folder of numbered image files; unreadable frames are replaced by their nearest readable
    neighbour (with a CorruptFrameWarning) so that frame indices stay aligned with labels."""

    def __init__(self, folder: Path, fps: float | None = None, files: Sequence[Path] | None = None):
        self.folder = Path(folder)
        self.files = list(files) if files is not None else list_frame_files(self.folder)
        if not self.files:
            videos = sorted(
                p.name for p in self.folder.glob("*") if p.suffix.lower() in VIDEO_SUFFIXES and not is_junk(p)
            )
            hint = ""
            if videos:  # a folder of recordings, given as one input: each is an input of its own
                named = ", ".join(videos[:3]) + (f" and {len(videos) - 3} more" if len(videos) > 3 else "")
                hint = f"; it holds {len(videos)} video file(s) ({named}): give those as the inputs ('{self.folder}'/*)"
            raise VideoReadError(f"'{self.folder}' holds no image frames ({', '.join(sorted(IMAGE_SUFFIXES))}){hint}")
        first = self._load_nearest(0)
        self.info = VideoInfo(
            path=self.folder,
            n_frames=len(self.files),
            width=first.shape[1],
            height=first.shape[0],
            channels=1 if first.shape[2] in (1, 2) else 3,
            fps=fps,
            kind="frames",
            alpha=first.shape[2] in (2, 4),
            bit_depth=8 * first.dtype.itemsize,
            lossless=all(path.suffix.lower() in LOSSLESS_IMAGE_SUFFIXES for path in self.files),
        )

    @classmethod
    def image(cls, path: Path, fps: float | None = None) -> FrameFolderReader:
        """One image file (a photo, a frame grab) as a clip of one frame, of kind "image"."""
        if cls._load(path) is None:
            raise VideoReadError(
                f"'{path}' is not an image OpenCV can read (empty, truncated or corrupt); check the file"
            )
        reader = cls(path.parent, fps=fps, files=[path])
        reader.info = replace(reader.info, path=path, kind="image")
        return reader

    @staticmethod
    def _load(path: Path) -> np.ndarray | None:
        import cv2

        if path.stat().st_size == 0:
            return None
        image = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)  # as stored: alpha and every bit kept, no turn
        if image is None:
            return None
        if image.ndim == 2:
            image = image[:, :, None]
        elif image.shape[2] == 4:
            image = cv2.cvtColor(image, cv2.COLOR_BGRA2RGBA)
        else:
            image = cv2.cvtColor(image, cv2.COLOR_BGR2RGB)
        return upright(image, path)

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

    def _images(
        self, start: int, count: int | None, wanted: Container[int] | None = None
    ) -> Iterator[tuple[np.ndarray, int | None]]:
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
            colour, alpha = (image[:, :, :-1], image[:, :, -1:]) if image.shape[2] in (2, 4) else (image, None)
            colour = to_channels(colour, self.info.channels)
            if self.info.alpha:
                alpha = alpha if alpha is not None else np.full_like(colour[:, :, :1], np.iinfo(colour.dtype).max)
                colour = np.concatenate([colour, alpha.astype(colour.dtype)], axis=2)
            yield colour.astype(np.uint16 if self.info.bit_depth > 8 else np.uint8, copy=False), None


class OpenCVReader(VideoReader):
    """The fallback for files PyAV cannot decode (some ShanghaiTech .avi builds)."""

    def __init__(self, path: Path):
        import cv2

        self.path = Path(path)
        capture = cv2.VideoCapture(av_path(self.path))
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

    def _images(
        self, start: int, count: int | None, wanted: Container[int] | None = None
    ) -> Iterator[tuple[np.ndarray, int | None]]:
        import cv2

        capture = cv2.VideoCapture(av_path(self.path))
        try:
            if start > 0:
                capture.set(cv2.CAP_PROP_POS_FRAMES, start)
            produced = 0
            while count is None or produced < count:
                ok, image = capture.read()
                if not ok:
                    return
                yield cv2.cvtColor(image, cv2.COLOR_BGR2RGB), None
                produced += 1
        finally:
            capture.release()


class FallbackReader(VideoReader):
    """PyAV first; if its decoding fails part-way, the same frames again through OpenCV."""

    def __init__(self, primary: VideoReader):
        self.primary = primary
        self.info = primary.info
        self._fallback: OpenCVReader | None = None

    def properties(self) -> VideoProperties:
        return self.primary.properties()

    def frame_times(self) -> list[float]:
        return self.primary.frame_times()

    def _passes(self, starts: Sequence[int], count: int) -> list[list[int]]:
        return (self._fallback or self.primary)._passes(starts, count)

    def _images(
        self, start: int, count: int | None, wanted: Container[int] | None = None
    ) -> Iterator[tuple[np.ndarray, int | None]]:
        import av

        if self._fallback is not None:
            yield from self._fallback._images(start, count)
            return
        produced = 0
        try:
            for image, pts in self.primary._images(start, count, wanted):
                yield image, pts
                produced += 1
        except (av.FFmpegError, ValueError) as error:
            warnings.warn(
                f"PyAV failed to decode '{self.info.path}' ({error}); continuing with OpenCV",
                CorruptFrameWarning,
                stacklevel=3,
            )
            self._fallback = OpenCVReader(self.info.path)
            yield from self._fallback._images(start + produced, None if count is None else count - produced)


def av_path(path: str | os.PathLike) -> str:
    """A path FFmpeg (PyAV's and OpenCV's) opens as a plain file: `12:30.mp4` would otherwise name a
    protocol "12"."""
    return "file:" + os.fspath(path)


def short_error(error: Exception) -> str:
    """The first line of an error, without FFmpeg's errno prefix and repeated file name."""
    text = getattr(error, "strerror", None) or str(error).strip() or type(error).__name__
    return text.splitlines()[0][:120]

"""Writing videos and PNG frame folders, atomically.

H.264 in MP4 by default (plays everywhere), or HEVC (H.265; what `clean` writes an input of more than 8 bits in: its
Main 10 plays in QuickTime, Safari and phones, H.264's High 10 in few), or lossless FFV1 in MKV, or a PNG frame
folder. Every write goes to a hidden temporary name beside the target and is renamed into place only when complete
(`videodenoise.io.atomic`), so an interrupted write never leaves a half-written file under the final name. The input's
audio, subtitles, data streams, cover art and attachments are copied in when the video is closed.
"""

from __future__ import annotations

import dataclasses
import os
import warnings
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path

import numpy as np
import torch

from videodenoise.devices import cpu_has_avx512
from videodenoise.errors import OutputError, VideoWriteError
from videodenoise.io.atomic import AtomicOutput, describe_os_error, temporary_name
from videodenoise.io.crf import DEFAULT_CRF, MAX_CRF
from videodenoise.io.frames import frame_file_name, to_integer
from videodenoise.io.readers import VideoProperties, av_path, short_error
from videodenoise.io.streams import left_out_message, mux_streams

CONTAINERS = {  # the suffixes each compressed codec is written under
    "h264": {".mp4", ".mkv", ".mov", ".m4v", ".avi"},
    "h265": {".mp4", ".mkv", ".mov", ".m4v"},  # AVI has no standard way to hold HEVC
}
HVC1_CONTAINERS = {".mp4", ".mov", ".m4v"}  # HEVC tagged hvc1, not hev1: QuickTime and Safari play only hvc1


class VideoWriter:
    """Write frames to a video file or a PNG frame folder, atomically.

    codec: "h264" (default for .mp4/.mov/.mkv/.avi; 4:2:0 chroma, or the source's 4:2:2 or 4:4:4
    (`properties.chroma`), or 4:4:4 when a side is odd, since 4:2:0 needs even sides), "h265" (HEVC through libx265
    in .mp4/.mov/.mkv, chroma as H.264's; Main 10 for more than 8 bits), "ffv1" (lossless,
    .mkv), "png" (lossless: a frame folder, the default when the path has no suffix; or one image under a .png
    path, which takes one frame). Frames are (C, H, W)
    float tensors in [0, 1] or (H, W, C) integer arrays with C = 1 or 3, plus an alpha channel last when
    `properties.alpha`; every frame must have the size and channel count of the first.

    crf: the quality of H.264 and HEVC (None: the codec's `DEFAULT_CRF`).

    properties: what the output keeps of its source (`VideoProperties`): the bit depth (H.264 and HEVC hold
    up to 10 bits, FFV1 and PNG 16), the alpha channel (FFV1 and PNG), the rotation (a display matrix;
    applied to the pixels of a PNG folder), the sample aspect ratio, colour tags, timecode and the file's and
    stream's tags (files; the RGB to YUV conversion uses the colour tags), and the clock: with
    `properties.time_base`, `write(frame, pts)` takes each frame's own timestamp in it, so variable frame rates
    stay variable. Whatever a format cannot hold is said once, as a warning.

    Use as a context manager: on normal exit the file is renamed into place; on an exception the
    partial output is deleted and the final name is never touched.

    after_pts: the timestamp of the frame before the first (a piece of a longer output, `videodenoise.io.pieces`, goes
    on from the piece before); quiet_losses: say nothing of what the format cannot hold (a later piece's); from_zero:
    the file's clock starts at its first frame (`first_pts` on the clock `write` takes, `clock` long a tick), which a
    piece's join moves back into place: MP4 would hold a later start only to its movie clock's millisecond.

    streams_from: a video file whose audio (unless not `audio`), subtitle and data streams, cover art and attachments
    are copied into the output when it is closed (see `videodenoise.io.streams.mux_streams`, which takes
    `streams_offset` and `streams_window`); not for PNG frame folders. What the output's container cannot hold is said
    in one warning.
    """

    def __init__(
        self,
        path: str | os.PathLike,
        fps: float | Fraction = 25,
        codec: str | None = None,
        crf: int | None = None,
        keyframe_interval: int | None = None,
        overwrite: bool = False,
        streams_from: str | os.PathLike | None = None,
        streams_offset: float | None = None,
        properties: VideoProperties | None = None,
        streams_window: tuple[float, float | None] | None = None,
        audio: bool = True,
        after_pts: int | None = None,
        quiet_losses: bool = False,
        from_zero: bool = False,
    ):
        self.path = Path(path)
        self.codec = codec or ("png" if self.path.suffix.lower() in ("", IMAGE_SUFFIX) else "h264")
        suffix = self.path.suffix.lower()
        self.image = is_image_output(self.path, self.codec)
        if self.codec == "png" and suffix and not self.image:
            raise VideoWriteError(
                f"PNG frames need a path without a suffix (a frame folder) or a .png one (one image), got '{self.path}'"
            )
        if self.codec == "ffv1" and suffix != ".mkv":
            raise VideoWriteError(f"lossless FFV1 output needs a .mkv path, got '{self.path}'")
        if self.codec not in {"h264", "h265", "ffv1", "png"}:
            raise VideoWriteError(f"unknown codec '{self.codec}'; use h264, h265, ffv1 or png")
        if self.codec in CONTAINERS and suffix not in CONTAINERS[self.codec]:
            raise VideoWriteError(
                f"cannot write {CODEC_NAMES[self.codec]} to '{self.path}': use one of "
                f"{', '.join(sorted(CONTAINERS[self.codec]))}, or a path without a suffix for a PNG frame folder"
            )
        if streams_from is not None and self.codec == "png":
            raise VideoWriteError(
                f"{self.kind} cannot hold audio or subtitles; write a video file instead of '{self.path}'"
            )
        self.streams_from = None if streams_from is None else Path(streams_from)
        self.streams_offset, self.streams_window, self.audio = streams_offset, streams_window, audio
        try:
            self.rate = fps if isinstance(fps, Fraction) else Fraction(fps).limit_denominator(1001)
        except (TypeError, ValueError, OverflowError):
            raise VideoWriteError(f"frame rate must be a positive number, got {fps!r}") from None
        if not self.rate > 0:
            raise VideoWriteError(f"frame rate must be positive, got {fps}; pass a rate such as 25")
        if self.codec in DEFAULT_CRF:
            crf = DEFAULT_CRF[self.codec] if crf is None else crf
            if not (isinstance(crf, int) and 0 <= crf <= MAX_CRF):
                raise VideoWriteError(
                    f"the {CODEC_NAMES[self.codec]} quality (CRF) must be an integer from 0 (best) to {MAX_CRF}, "
                    f"got {crf} (default {DEFAULT_CRF[self.codec]})"
                )
        self.crf = crf
        self.keyframe_interval = keyframe_interval
        self.properties = properties or VideoProperties()
        self.bits = 16 if self.properties.bit_depth > 8 else 8  # how frames are held: 8 or 16 bits
        # checks the output (exists without overwrite, folder missing or a file) before any frame
        try:
            self._output = AtomicOutput(
                self.path,
                overwrite=overwrite,
                directory=self.codec == "png" and not self.image,
                hint="choose another name or allow overwriting",
            )
        except OutputError as error:
            raise VideoWriteError(str(error)) from None
        self.partial = self._output.temporary
        self.n_written = 0
        self._container = None
        self._stream = None
        self._shape: tuple[int, int, int] | None = None
        self._closed = False
        self.last_pts = after_pts  # of the last frame written (a piece's writer starts after the piece before)
        self.first_pts: int | None = None  # of the first frame written, on the clock `write` takes
        self.clock: Fraction | None = None  # a tick of the file's clock, in seconds (a video file's, once open)
        self.quiet_losses, self.from_zero = quiet_losses, from_zero

    @property
    def kind(self) -> str:
        """What the output is, in words: its codec's name, or a PNG image."""
        return "a PNG image" if self.image else CODEC_NAMES[self.codec]

    def __enter__(self) -> VideoWriter:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()

    def _open(self, height: int, width: int, channels: int) -> None:
        import av

        self._shape = (height, width, channels)
        colour, alpha = (channels - 1, True) if self.properties.alpha else (channels, False)
        lost = []
        if self.codec == "png":
            if self.properties.sample_aspect_ratio not in (None, 1):
                lost.append(f"its pixel aspect ratio {self.properties.sample_aspect_ratio}")
            if self.properties.interlaced:
                lost.append(f"its interlacing ({self.properties.field_first})")
            tags = dict.fromkeys(name.lower() for name, _ in self.properties.metadata + self.properties.stream_metadata)
            if tags:  # each name once: the file and its stream may both have a title
                lost.append(f"its tags ({', '.join(tags)})")
            if self.properties.mastering_display or self.properties.light_level:
                lost.append("its HDR metadata (mastering display, light level)")
            if self.properties.timecode:
                lost.append(f"its timecode ({self.properties.timecode})")
            if self.properties.chapters:
                lost.append(f"its {len(self.properties.chapters)} chapters")
            self._warn(lost)
            return
        try:
            self._container = av.open(av_path(self.partial), mode="w")
        except (av.FFmpegError, OSError) as error:
            raise VideoWriteError(f"cannot write '{self.path}': {short_error(error)}") from None
        self._container.metadata.update(dict(self.properties.metadata))  # the muxer keeps what its format holds
        encoder = {"h264": "libx264", "h265": "libx265", "ffv1": "ffv1"}[self.codec]
        stream = self._container.add_stream(encoder, rate=self.rate)
        stream.metadata.update(dict(self.properties.stream_metadata))
        if self.properties.chapters:  # MP4, MOV and Matroska hold them, AVI does not
            self._container.set_chapters(chapter_list(self.properties.chapters))
        if self.properties.timecode:  # MP4 and MOV write it as a timecode track, Matroska as a tag
            stream.metadata["timecode"] = self.properties.timecode
        stream.width, stream.height = width, height
        self.clock = self.properties.time_base or 1 / self.rate
        stream.codec_context.time_base = self.clock
        stream.time_base = self.clock
        if self.keyframe_interval:
            stream.codec_context.gop_size = self.keyframe_interval
        stream.pix_fmt, dropped = pixel_format(
            self.codec, colour, alpha, self.properties.bit_depth, width, height, self.properties.chroma
        )
        lost += dropped
        context, properties = stream.codec_context, self.properties
        if self.codec == "h264":
            # libx264 codes interlaced pictures whose fields have whole lines of chroma: a height divisible by 4
            # in 4:2:0 (not NTSC's 486), by 2 in 4:4:4
            if properties.interlaced and height % (4 if stream.pix_fmt.startswith("yuv420") else 2):
                lost.append(f"its interlacing ({properties.field_first}; {height} lines cannot be coded interlaced)")
                properties = dataclasses.replace(properties, field_order=1)
            configure_h264(stream, self.crf, properties)
        elif self.codec == "h265":
            if properties.interlaced:  # libx265 codes fields only when handed them one by one, which FFmpeg does not
                lost.append(f"its interlacing ({properties.field_first}; --format mp4 keeps it)")
            configure_h265(stream, self.crf, properties)
            if self.path.suffix.lower() in HVC1_CONTAINERS:
                stream.codec_tag = "hvc1"
        elif properties.interlaced:  # FFV1 in Matroska records the field order per stream
            context.field_order = properties.field_order
        if self.codec == "ffv1" and (properties.mastering_display or properties.light_level):
            # Matroska records it per stream, which PyAV cannot set: say so rather than lose it quietly
            lost.append("its HDR metadata (mastering display, light level; the default mp4 keeps it)")
        if properties.sample_aspect_ratio:
            context.sample_aspect_ratio = properties.sample_aspect_ratio  # H.264 and HEVC record it in their bitstream
            if self.codec == "ffv1" and properties.sample_aspect_ratio != 1:
                # Matroska records it per stream, which PyAV cannot set: say so rather than lose it quietly
                lost.append(f"its pixel aspect ratio {properties.sample_aspect_ratio} (the default mp4 keeps it)")
        for tag in ("color_range", "colorspace", "color_trc", "color_primaries"):
            setattr(context, tag, getattr(properties, tag))
        if properties.rotation:
            stream.set_display_rotation(properties.rotation)
        self._stream = stream
        self._warn(lost)

    def _warn(self, lost: list[str]) -> None:
        if lost and not self.quiet_losses:
            warnings.warn(
                f"{self.kind} cannot hold {' and '.join(lost)} of the input: '{self.path}' is written "
                "without it (--format lossless keeps bit depth, alpha and interlacing)",
                stacklevel=4,
            )

    def write(self, frame: torch.Tensor | np.ndarray, pts: int | None = None) -> None:
        """Add one frame; pts: its timestamp in `properties.time_base` (None: one frame after the last)."""
        image = to_integer(frame, self.bits)
        if image.shape[2] not in ((2, 4) if self.properties.alpha else (1, 3)):
            expected = "1 or 3 channels" + (", plus alpha" if self.properties.alpha else "")
            raise VideoWriteError(f"frames must have {expected}, got {image.shape[2]}")
        if self._shape is None:
            self._open(*image.shape)
        elif image.shape != self._shape:
            raise VideoWriteError(f"frame {self.n_written} is {image.shape}, the first frame was {self._shape}")
        if self.image and self.n_written:
            raise VideoWriteError(
                f"'{self.path}' is an image, which holds one frame; write a video or a frame folder (a path without a "
                "suffix) for more"
            )
        if self.codec == "png":
            target = self.partial if self.image else self.partial / frame_file_name(self.n_written)
            write_frame_file(target, self._png(image), self.path)
        else:
            video_frame = self._video_frame(image)
            stamp = self._timestamp(pts)
            self.first_pts = stamp if self.first_pts is None else self.first_pts
            video_frame.pts, video_frame.time_base = stamp - (self.first_pts if self.from_zero else 0), self.clock
            self._mux(self._stream.encode(video_frame), self.n_written + 1)
        self.n_written += 1

    def _mux(self, packets, frames_in: int) -> None:
        """Mux the encoder's packets; frames_in: how many frames it has been given."""
        for packet in packets:
            if self.codec == "h265" and frames_in < X265_DELAY_KNOWN_FROM:
                # libx265 computes decoding times from its B-frames' delay, which it learns from a clip's third frame: a
                # clip of one or two frames comes out with decoding times from memory never set (10¹¹ ticks off, or
                # not), which MP4 refused ("pts/dts pair unsupported"). Such a clip has no frame reordered.
                packet.dts = packet.pts
            self._container.mux(packet)

    def _timestamp(self, pts: int | None) -> int:
        """The frame's own timestamp where it has one that moves the clock forward; else one frame
        after the last (the clock is then the frame rate's)."""
        if self.properties.time_base is None or pts is None or (self.last_pts is not None and pts <= self.last_pts):
            pts = 0 if self.last_pts is None else self.last_pts + max(1, round(1 / (self.rate * self.clock)))
        self.last_pts = pts
        return pts

    def _png(self, image: np.ndarray) -> bytes:
        import cv2

        turns = (self.properties.rotation // 90) % 4
        if turns:  # a folder of pictures holds no display matrix: apply the rotation to the pixels
            image = np.ascontiguousarray(np.rot90(image, k=turns))
        conversion = {2: None, 3: cv2.COLOR_RGB2BGR, 4: cv2.COLOR_RGBA2BGRA}.get(image.shape[2])
        if image.shape[2] == 2:  # grey with alpha: PNG has it, OpenCV writes it as BGRA
            image = np.concatenate([np.repeat(image[:, :, :1], 3, axis=2), image[:, :, 1:]], axis=2)
            conversion = cv2.COLOR_RGBA2BGRA
        encoded, data = cv2.imencode(".png", image if conversion is None else cv2.cvtColor(image, conversion))
        if not encoded:
            raise VideoWriteError(f"cannot encode frame {self.n_written} of '{self.path}' as PNG")
        return data.tobytes()

    def _video_frame(self, image: np.ndarray):
        """The frame in the stream's pixel format, converted to YUV with the output's own colour tags."""
        import av

        channels = image.shape[2]
        if channels in (1, 2) and (self.codec in CONTAINERS or channels == 2):  # grey in a colour format
            image = np.concatenate([np.repeat(image[:, :, :1], 3, axis=2), image[:, :, 1:]], axis=2)
            channels = image.shape[2]
        layout = (
            {1: "gray", 3: "rgb24", 4: "rgba"}[channels]
            if self.bits == 8
            else {1: "gray16le", 3: "rgb48le", 4: "rgba64le"}[channels]
        )
        frame = av.VideoFrame.from_ndarray(image if channels > 1 else image[:, :, 0], format=layout)
        tags = self.properties
        frame = frame.reformat(
            format=self._stream.pix_fmt,
            dst_colorspace=tags.colorspace if tags.colorspace not in (0, 2) else None,
            dst_color_range=tags.color_range or None,
            # Subsampled chroma as the mean of the pixels it covers, not libswscale's default bilinear taps: on the
            # clean validation frames this round trip scores 0.16 dB higher read back as PyAV reads (chroma repeated),
            # 0.41 and 0.47 dB as players read it (bilinear, bicubic); benchmarks/results/chroma-area/roundtrip.log.
            interpolation="AREA",
        )
        for tag in ("color_range", "colorspace", "color_trc", "color_primaries"):
            setattr(frame, tag, getattr(tags, tag))
        return frame

    def close(self) -> Path:
        """Flush, then move the finished output to its final name."""
        if self._closed:
            return self.path
        self._closed = True
        try:
            if self._shape is None:
                raise VideoWriteError(f"no frames were written to '{self.path}'")
            if self._container is not None:
                self._mux(self._stream.encode(None), self.n_written)
                self._container.close()
                self._container = None
            if self.streams_from is not None:
                muxed = temporary_name(self.path, "streams")
                try:
                    left_out = mux_streams(
                        [self.partial], self.streams_from, muxed, self.streams_offset, self.streams_window, self.audio
                    )
                    os.replace(muxed, self.partial)
                finally:
                    muxed.unlink(missing_ok=True)
                if left_out:
                    warnings.warn(left_out_message(self.path, self.streams_from, left_out), stacklevel=3)
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


def configure_h264(stream, crf: int, properties: VideoProperties) -> None:
    """libx264's settings for `crf` and an input's properties (interlaced pictures are coded as interlaced,
    the field shown first kept; HDR10's static metadata goes into the stream's SEI), chosen so that the same
    frames give the same bits on every run.

    As PyAV bundles and opens it, libx264 did not: PyAV asks for slice threads (x264's sliced-threads mode),
    and on a CPU with AVX-512 libx264 runs its AVX-512 code. Eight encodes of the same frames gave 4 or 5
    different outputs for three of four clips; held to its AVX2 code, 2 for a 10-bit one; x264's own frame
    threads with its AVX2 code, one for each clip, at the same size. Turning off its macroblock-tree rate
    control was repeatable too, but changed what a CRF gives (51 % more bytes for a denoised clip).
    (benchmarks/results/h264-repeatability.) AVX-512 implies AVX2, and libx264 takes the named instruction
    sets as given, so it is only held to AVX2 where the CPU has AVX-512."""
    options = {"crf": str(crf), "preset": "medium"}
    params = ["asm=avx2"] if cpu_has_avx512() else []
    if properties.interlaced:
        params.append("interlaced=1:" + ("tff=1" if properties.top_field_first else "bff=1"))
    if properties.mastering_display:
        params.append(f"mastering-display={mastering_display(properties.mastering_display)}")
    if properties.light_level:
        params.append("cll={},{}".format(*properties.light_level))
    if params:
        options["x264-params"] = ":".join(params)
    stream.options = options
    stream.codec_context.thread_type = "FRAME"


def configure_h265(stream, crf: int, properties: VideoProperties) -> None:
    """libx265's settings for `crf` and an input's HDR10 static metadata (into the stream's SEI, as for H.264).
    libx265 logs to the terminal on its own, past FFmpeg's logging: told to say nothing, as its errors reach
    PyAV as FFmpeg's. Its output repeats from run to run as it comes (two encodes of the same frames, 320×240
    and 1920×1080, gave the same bytes) and it runs no AVX-512 code unless asked."""
    params = ["log-level=none"]
    if properties.mastering_display:
        params.append(f"master-display={mastering_display(properties.mastering_display)}")
    if properties.light_level:
        params.append("max-cll={},{}".format(*properties.light_level))
    stream.options = {"crf": str(crf), "preset": "medium", "x265-params": ":".join(params)}


def mastering_display(values: tuple[float, ...]) -> str:
    """`VideoProperties.mastering_display` as libx264 and libx265 take it, in the units of H.264's and HEVC's SEI:
    green, blue, red and white point chromaticities in 1/50000, the largest and smallest luminance in 1/10000 cd/m²."""
    rx, ry, gx, gy, bx, by, wx, wy = (round(value * 50000) for value in values[:8])
    brightest, darkest = (round(value * 10000) for value in values[8:])
    return f"G({gx},{gy})B({bx},{by})R({rx},{ry})WP({wx},{wy})L({brightest},{darkest})"


def pixel_format(
    codec: str, colour: int, alpha: bool, bits: int, width: int, height: int, chroma: tuple[int, int] | None = None
) -> tuple[str, list[str]]:
    """The pixel format a stream is written in, and what of the input it cannot hold. chroma: the input's chroma
    subsampling (`VideoProperties.chroma`; None: RGB, grey or unknown)."""
    lost = []
    if codec in CONTAINERS:  # libx264 and libx265: 8 or 10 bits, no alpha; grey as colour, which every player shows
        if alpha:
            lost.append("the alpha channel")
        if bits > 10:
            lost.append(f"{bits}-bit precision (it keeps 10 bits)")
        # as ffmpeg: the input's 4:4:4 or 4:2:2 is kept, not halved; else 4:2:0, which every player shows and which
        # needs even sides (4:4:4 where one is odd)
        across, down = chroma or (2, 2)
        if width % 2 or height % 2 or across == 1:
            layout = "yuv444p"
        else:
            layout = "yuv422p" if down == 1 else "yuv420p"
        return layout + ("10le" if bits > 8 else ""), lost
    depth = min(16, max(10, bits)) if bits > 8 else 8  # FFV1: lossless RGB or grey, 8 to 16 bits
    if colour == 1 and not alpha:
        return ("gray" if depth == 8 else f"gray{depth}le"), lost
    if depth == 8:
        return ("bgra" if alpha else "bgr0"), lost
    return (f"gbrap{depth}le" if alpha and depth != 14 else f"gbrp{depth}le" if not alpha else "gbrap16le"), lost


def chapter_list(chapters: Sequence[tuple[float, float, tuple[tuple[str, str], ...]]]) -> list[dict]:
    """`VideoProperties.chapters` as PyAV's `set_chapters` takes them, counted in milliseconds."""
    milliseconds = Fraction(1, 1000)
    return [
        {
            "id": index,
            "start": round(start * 1000),
            "end": round(end * 1000),
            "time_base": milliseconds,
            "metadata": dict(tags),
        }
        for index, (start, end, tags) in enumerate(chapters, 1)
    ]


X265_DELAY_KNOWN_FROM = 3  # the frame at which libx265 at preset medium (a B-frame delay of 2) knows its decoding delay
CODEC_NAMES = {"h264": "H.264", "h265": "HEVC", "ffv1": "FFV1", "png": "a PNG frame folder"}
IMAGE_SUFFIX = ".png"  # PNG frames under a path with this suffix are one image, not a frame folder


def is_image_output(path: Path, codec: str) -> bool:
    """Whether an output of `codec` at `path` is one image (one frame, as one PNG file)."""
    return codec == "png" and path.suffix.lower() == IMAGE_SUFFIX


def write_frame_file(path: Path, data: bytes, output: Path) -> None:
    """One encoded frame into a PNG folder being written (a function of its own so that tests can
    inject faults such as a full disk)."""
    try:
        with open(path, "wb") as handle:
            handle.write(data)
    except OSError as error:
        raise VideoWriteError(describe_os_error(error, output)) from None


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

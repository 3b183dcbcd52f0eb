"""Writing videos and PNG frame folders, atomically.

H.264 in MP4 by default (plays everywhere), or lossless FFV1 in MKV, or a PNG frame folder. Every
write goes to a hidden temporary name beside the target and is renamed into place only when complete
(`videodenoise.io.atomic`), so an interrupted write never leaves a half-written file under the final
name. The input's audio is copied in when the video is closed.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path

import numpy as np
import torch

from videodenoise.errors import OutputError, VideoWriteError
from videodenoise.io.atomic import AtomicOutput, describe_os_error
from videodenoise.io.frames import to_uint8
from videodenoise.io.readers import short_error

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
            raise VideoWriteError(
                f"the H.264 quality (CRF) must be an integer from 0 (lossless) to {MAX_CRF}, "
                f"got {crf}; 17 is visually lossless"
            )
        self.crf = crf
        self.keyframe_interval = keyframe_interval
        # checks the output (exists without overwrite, folder missing or a file) before any frame
        try:
            self._output = AtomicOutput(
                self.path,
                overwrite=overwrite,
                directory=self.codec == "png",
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
        if self.codec == "png":
            return
        try:
            self._container = av.open(str(self.partial), mode="w")
        except (av.FFmpegError, OSError) as error:
            raise VideoWriteError(f"cannot write '{self.path}': {short_error(error)}") from None
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


def open_writers(options: list[dict]) -> list[VideoWriter]:
    """VideoWriters for every dict of keyword arguments, or none: when one cannot be opened, those
    already open are dropped."""
    writers: list[VideoWriter] = []
    try:
        for option in options:
            writers.append(VideoWriter(**option))
    except BaseException:
        for writer in writers:
            writer.abort()
        raise
    return writers


def write_frame_file(path: Path, data: bytes, output: Path) -> None:
    """One encoded frame into a PNG folder being written (a function of its own so that tests can
    inject faults such as a full disk)."""
    try:
        with open(path, "wb") as handle:
            handle.write(data)
    except OSError as error:
        raise VideoWriteError(describe_os_error(error, output)) from None


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
        with (
            av.open(str(video_file)) as video_in,
            av.open(str(audio_source)) as audio_in,
            av.open(str(output), mode="w") as out,
        ):
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
        raise VideoWriteError(
            f"cannot copy the audio of '{audio_source}' into '{output}': {short_error(error)}"
        ) from None


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

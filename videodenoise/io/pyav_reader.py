"""A video file decoded with PyAV (FFmpeg): the main video stream, every frame with its timestamp,
at the file's bit depth, with its alpha channel, converted to RGB with the file's own colour tags.

The main stream is the one ffmpeg picks: the largest picture, a stream marked default ahead of the
rest, never an attached cover picture. Frame-accurate random access comes from an index of the
packets' presentation timestamps, built by demuxing alone (no decoding).

Damage is reported as ffmpeg reports it, which PyAV keeps quiet by default: a frame whose data the decoder
found broken and concealed (H.264 fills lost macroblocks from their neighbours) comes with a CorruptFrameWarning
naming FFmpeg's own message, and a container the demuxer found broken (a recording cut short) with a
CorruptFileWarning.
"""

from __future__ import annotations

import bisect
import functools
import operator
import struct
import warnings
from collections.abc import Container, Iterator, Sequence
from contextlib import contextmanager
from fractions import Fraction
from pathlib import Path

import numpy as np

from videodenoise.errors import VideoReadError
from videodenoise.io.readers import (
    CorruptFileWarning,
    CorruptFrameWarning,
    VideoInfo,
    VideoProperties,
    VideoReader,
    av_path,
    container_tags,
    stream_tags,
)

# How 8-bit YUV becomes RGB: libswscale's flags, by name, or None for its default path, which `clean` uses. That path
# rounds 4:2:0 and 4:2:2 coarsely (half of a grey ramp's pixels come out one level off; the validation clips' frames
# read back from a lossless 4:2:0 file score 43.10 dB, 45.63 with ("BICUBIC", "ACCURATE_RND", "FULL_CHR_H_INT")). But
# through σ auto and the model, reading exactly gained too little, too unevenly, to pass either of two rules fixed
# before their runs (+0.178 and +0.072 dB over eleven conditions; the Hubble deep field's clips lost 0.39-0.48), so it
# stays a setting for trials (benchmarks/results/read-precision/).
RGB_CONVERSION: tuple[str, ...] | None = None


def main_video_stream(container, index: int | None = None):
    """The video stream ffmpeg maps by default (largest picture, then the default disposition; attached
    pictures such as cover art never), or the video stream numbered `index` among the video streams."""
    streams = list(container.streams.video)
    if index is not None:
        if not 0 <= index < len(streams):
            raise VideoReadError(
                f"'{container.name}' has {len(streams)} video stream(s); --stream must be from 0 to {len(streams) - 1}"
            )
        return streams[index]
    pictures = [s for s in streams if not s.disposition & s.disposition.attached_pic] or streams

    def score(stream) -> int:
        context = stream.codec_context
        return context.width * context.height + 5_000_000 * bool(stream.disposition & stream.disposition.default)

    return max(pictures, key=score)  # the first of equals, as ffmpeg


def is_cover(stream) -> bool:
    """A picture attached to the file (cover art: MP4's, or an image Matroska attaches), not a video."""
    return stream.type == "video" and bool(stream.disposition & stream.disposition.attached_pic)


def extra_streams(container, video_index: int) -> list:
    """What a file carries beside its videos, audio and subtitles that an output copies where its container holds it:
    data streams (a GoPro's telemetry, a phone's metadata tracks) other than a timecode track, which
    `VideoProperties.timecode` carries; cover pictures other than the video read (`video_index`); and attachments (a
    Matroska file's fonts for its subtitles)."""
    data = [s for s in container.streams.data if not any(name.lower() == "timecode" for name in s.metadata)]
    covers = [s for s in container.streams.video if is_cover(s) and s.index != video_index]
    return [*data, *covers, *container.streams.attachments]


def describe_extra(stream) -> str:
    """An extra stream (`extra_streams`) in a few words: what it is and its name, as a message names it."""
    if stream.type == "attachment":
        return f"attachment ({stream.name})"
    if stream.type == "video":
        return f"cover picture ({stream.metadata.get('filename') or stream.codec_context.name})"
    handler = stream.metadata.get("handler_name") or stream.metadata.get("title")
    return f"data stream ({handler or stream.name or 'of no codec FFmpeg knows'})"


def chroma_subsampling(pix_fmt: str) -> tuple[int, int] | None:
    """How many pixels across and down share one chroma sample in a YUV pixel format: (2, 2) for 4:2:0, (2, 1) for
    4:2:2, (1, 1) for 4:4:4; None for RGB, grey or a format FFmpeg does not know."""
    import av

    try:
        descriptor = av.VideoFormat(pix_fmt, 64, 64)
    except (ValueError, TypeError):
        return None
    components = descriptor.components
    if descriptor.is_rgb or len(components) < 3 or not components[0].is_luma:
        return None
    luma, chroma = components[0], components[1]  # FFmpeg's order: Y, then U and V
    return luma.width // chroma.width, luma.height // chroma.height


def pixel_layout(pix_fmt: str) -> tuple[int, bool, int]:
    """(colour channels, alpha, bits per component) of an FFmpeg pixel format."""
    import av

    try:
        descriptor = av.VideoFormat(pix_fmt)
    except (ValueError, TypeError):
        return 3, False, 8
    components = len(descriptor.components)
    alpha = components in (2, 4)
    colour = 1 if components in (1, 2) and not descriptor.has_palette else 3
    return colour, alpha, max(component.bits for component in descriptor.components)


class PyAVReader(VideoReader):
    """A video file decoded with PyAV; see the module notes. stream: which video stream (None: the main)."""

    def __init__(self, path: Path, stream: int | None = None, fps: float | None = None):
        import av

        self.path = Path(path)
        self._pts_index: list[int] | None = None
        self._keyframes: list[int] = []  # positions (in the index) of the frames that begin a group of pictures
        with av.open(av_path(self.path)) as container:
            if not container.streams.video:
                raise VideoReadError(f"'{self.path}' has no video stream")
            chosen = main_video_stream(container, stream)
            self.stream_index = chosen.index
            # a raw stream (.264, .hevc, .m2v) has no container to time its frames: FFmpeg assumes a rate (25 for
            # H.264 and HEVC), which `fps` replaces, and the timestamps it made up from it go
            clockless = bool(container.format.flags & av.format.Flags.no_timestamps.value)
            retimed = clockless and fps is not None
            fps = Fraction(fps).limit_denominator(1001) if retimed else None
            fps = fps or chosen.average_rate or chosen.guessed_rate or chosen.base_rate
            n_frames = chosen.frames
            if n_frames <= 0:  # mkv, webm and gif headers often carry no frame count
                n_frames = len(self._build_pts_index(container, chosen))
            context = chosen.codec_context
            width, height = context.width, context.height
            channels, alpha, bits = pixel_layout(context.pix_fmt or "")
            audio = len(container.streams.audio) > 0
            subtitles = len(container.streams.subtitles)
            extras = tuple(describe_extra(s) for s in extra_streams(container, chosen.index))
            other_videos = sum(not is_cover(s) for s in container.streams.video) - (not is_cover(chosen))
            # FFmpeg's own description of the codec: lossless and never lossy (FFV1, raw video, PNG, HuffYUV, GIF…)
            lossless = bool(context.codec.lossless and not context.codec.lossy)
            self._tags = dict(
                sample_aspect_ratio=chosen.sample_aspect_ratio or context.sample_aspect_ratio or None,
                color_range=int(context.color_range or 0),
                colorspace=int(context.colorspace or 2),
                color_trc=int(context.color_trc or 2),
                color_primaries=int(context.color_primaries or 2),
                time_base=None if retimed else chosen.time_base,
                start_time=None if retimed else chosen.start_time,
                field_order=int(context.field_order or 0),
                metadata=tuple(container_tags(container.metadata).items()),
                stream_metadata=tuple(stream_tags(chosen.metadata).items()),
                chapters=tuple(
                    (
                        float(chapter["start"] * chapter["time_base"]),
                        float(chapter["end"] * chapter["time_base"]),
                        tuple(chapter["metadata"].items()),
                    )
                    for chapter in container.chapters()
                ),
                chroma=chroma_subsampling(context.pix_fmt or ""),
                # ffmpeg's demuxers give it as a tag of the video stream, of a timecode (data) stream, or of the file
                timecode=next(
                    (
                        value
                        for tags in [chosen.metadata, *(s.metadata for s in container.streams.data), container.metadata]
                        for name, value in tags.items()
                        if name.lower() == "timecode"
                    ),
                    None,
                ),
            )
        if n_frames <= 0 or width <= 0 or height <= 0:
            raise VideoReadError(f"'{self.path}' holds no decodable video frames")
        self.info = VideoInfo(
            path=self.path,
            n_frames=n_frames,
            width=width,
            height=height,
            channels=channels,
            fps=float(fps) if fps else None,
            kind="video",
            rate=Fraction(fps.numerator, fps.denominator) if fps else None,
            has_audio=audio,
            subtitles=subtitles,
            extras=extras,
            other_videos=other_videos,
            clockless=clockless,
            alpha=alpha,
            bit_depth=bits,
            lossless=lossless,
        )
        self._format = {  # what to_ndarray converts each frame to, by (grey, alpha, more than 8 bits)
            (True, False, False): "gray",
            (True, False, True): "gray16le",
            (False, False, False): "rgb24",
            (False, False, True): "rgb48le",
        }.get((channels == 1, alpha, bits > 8), "rgba64le" if bits > 8 else "rgba")
        self._conversion = None  # grey reads exactly, and 16-bit RGB interpolates the chroma, by default
        if RGB_CONVERSION is not None and self._format in ("rgb24", "rgba"):
            from av.video.reformatter import Interpolation

            self._conversion = functools.reduce(operator.or_, (Interpolation[flag] for flag in RGB_CONVERSION))

    def properties(self) -> VideoProperties:
        """What the file carries besides its pixels (decodes the first frame for its rotation and HDR metadata)."""
        import av

        rotation, hdr = 0, {}
        with av.open(av_path(self.path)) as container:
            stream = container.streams[self.stream_index]
            for frame, _ in _decode_packets(container, stream):
                if not isinstance(frame, _LostFrame):
                    rotation = int(round(frame.rotation or 0)) % 360
                    hdr = hdr_metadata(frame)
                    break
        tags = self._tags
        return VideoProperties(
            rotation=rotation,
            sample_aspect_ratio=Fraction(tags["sample_aspect_ratio"]) if tags["sample_aspect_ratio"] else None,
            color_range=tags["color_range"],
            colorspace=tags["colorspace"],
            color_trc=tags["color_trc"],
            color_primaries=tags["color_primaries"],
            bit_depth=self.info.bit_depth,
            alpha=self.info.alpha,
            time_base=Fraction(tags["time_base"]) if tags["time_base"] else None,
            start=int(tags["start_time"]) if tags["start_time"] is not None else None,
            field_order=tags["field_order"],
            metadata=tags["metadata"],
            stream_metadata=tags["stream_metadata"],
            chapters=tags["chapters"],
            chroma=tags["chroma"],
            timecode=tags["timecode"],
            **hdr,
        )

    def frame_times(self) -> list[float]:
        """Each frame's presentation time from the stream's start (`properties().start`; its clock's zero where it
        has none), by its timestamp (a variable rate's own); one frame every 1 / rate where the frames carry none."""
        self._index_once()
        clock, start = self._tags["time_base"], self._tags["start_time"] or 0
        if not clock or len(self._pts_index or []) != self.info.n_frames:
            return super().frame_times()
        return [float((pts - start) * clock) for pts in self._pts_index]

    def _index_once(self) -> None:
        if self._pts_index is None:
            import av

            with av.open(av_path(self.path)) as container:
                self._build_pts_index(container, container.streams[self.stream_index])

    def _build_pts_index(self, container, stream) -> list[int]:
        with ffmpeg_errors() as messages:
            packets = [(p.pts, p.is_keyframe) for p in container.demux(stream) if p.size > 0]
        pts = [pts for pts, _ in packets]
        keyframes = sorted(pts for pts, keyframe in packets if keyframe and pts is not None)
        self._pts_index = sorted(pts) if all(p is not None for p in pts) else []
        if self._pts_index:
            self._keyframes = [bisect.bisect_left(self._pts_index, pts) for pts in keyframes]
        # the demuxer's own complaints (the codec's would come from decoding, which this is not)
        reports = [text for level, name, text in messages if level <= ERROR_LEVEL and name != stream.codec_context.name]
        if reports:
            where = ""
            if self._pts_index and stream.time_base:
                last = float((self._pts_index[-1] - (stream.start_time or 0)) * stream.time_base)
                declared = f"; the header declares {container.duration / 1_000_000:.2f} s" if container.duration else ""
                where = f" (the last at {last:.2f} s{declared})"
            warnings.warn(
                f"'{self.path}': FFmpeg reports \"{reports[0].strip()}\" after {len(pts)} frames{where}; the file "
                "looks cut short or damaged, and the frames before that point are used",
                CorruptFileWarning,
                stacklevel=1,  # this line, not the caller's: one report however many times the file is opened
            )
        return pts

    def _passes(self, starts: Sequence[int], count: int) -> list[list[int]]:
        """Runs grouped into passes: a run joins the pass before it unless a keyframe lies between that pass's end
        and the run's start. A seek lands on the keyframe before the frame sought and decodes from there, so a run
        with no keyframe in that gap is reached for less by decoding on (each run sought on its own, eight runs
        of three frames spread over a video with one keyframe in 250 decoded about 125 frames each)."""
        self._index_once()
        # without timestamps every read decodes from the first frame: a keyframe at 0 alone says that
        keyframes = self._keyframes if self._pts_index else [0]
        passes: list[list[int]] = []
        for start in starts:
            sought = keyframes[bisect.bisect_right(keyframes, start) - 1] if keyframes and keyframes[0] <= start else 0
            if passes and sought <= passes[-1][-1] + count:
                passes[-1].append(start)
            else:
                passes.append([start])
        return passes

    def _decode(self, frame, damage: str | None = None) -> tuple[np.ndarray | None, int | None, str | None]:
        if isinstance(frame, _LostFrame):
            return None, frame.pts, None
        if (frame.width, frame.height) != (self.info.width, self.info.height):
            raise VideoReadError(
                f"'{self.path}' changes its picture size mid-stream ({self.info.width}×{self.info.height} → "
                f"{frame.width}×{frame.height}, at {float(frame.time or 0):.3f} s); denoise each part on its own, "
                "or scale it to one size first (ffmpeg -vf scale=W:H)"
            )
        image = frame.to_ndarray(format=self._format, interpolation=self._conversion)  # with its own colour tags
        if self._format in ("rgba", "rgba64le") and self.info.channels == 1:
            image = image[:, :, [0, 3]]  # grey with alpha: the grey value and the alpha
        return (image[:, :, None] if image.ndim == 2 else image), frame.pts, damage

    def _images(
        self, start: int, count: int | None, wanted: Container[int] | None = None
    ) -> Iterator[tuple[np.ndarray | None, int | None]]:
        """The decoded images with their timestamps; a packet the decoder rejects becomes a copy of the
        previous image (the next one when it is the first), so frame indices stay aligned, and a frame decoded
        with concealed damage is kept: either way with a CorruptFrameWarning, the first DAMAGE_LINES frames
        one by one and the rest counted in one line at the end. wanted: None, or the positions to convert; the
        others come as None, decoded (a decoder needs every frame) but neither converted nor reported."""
        troubled = []  # positions of the frames lost or damaged so far

        def report(position: int, what: str) -> None:
            troubled.append(position)
            if len(troubled) <= DAMAGE_LINES:  # stacklevel 1, this line: one report however many passes read it
                warnings.warn(f"frame {position} of '{self.path}' {what}", CorruptFrameWarning, stacklevel=1)

        # lost: (position, pts, reported) of the frames before the first good one, undecodable or not wanted
        previous, lost = None, []
        for position, (image, pts, damage) in enumerate(self._decoded_images(start, count, wanted), start=start):
            if image is _UNWANTED:  # in order: a lost frame before it waits for an image, and so does it
                if lost:
                    lost.append((position, pts, False))
                else:
                    yield None, pts
                continue
            if damage is not None:
                report(
                    position,
                    f"holds damaged data ({damage}); it is decoded as ffmpeg decodes it, the loss concealed from its "
                    "neighbours, and the output shows the same",
                )
            if image is None and previous is None:
                lost.append((position, pts, True))
                continue
            for missing, _, reported in lost + ([(position, pts, True)] if image is None else []):
                if reported:
                    report(missing, "cannot be decoded (corrupt data); repeating its neighbour in its place")
            image = previous if image is None else image
            for _, lost_pts, _ in lost:
                yield image, lost_pts
            lost, previous = [], image
            yield image, pts
        if lost:
            raise VideoReadError(f"no frame of '{self.path}' can be decoded; the file is corrupt")
        if len(troubled) > DAMAGE_LINES:
            more = troubled[DAMAGE_LINES:]
            warnings.warn(
                f"{len(more)} more frames of '{self.path}' are damaged or lost (frames {more[0]}-{more[-1]}; "
                f"{len(troubled)} in all), decoded as ffmpeg decodes them or repeated from a neighbour",
                CorruptFrameWarning,
                stacklevel=1,
            )

    def _decoded_images(
        self, start: int, count: int | None, wanted: Container[int] | None = None
    ) -> Iterator[tuple[np.ndarray | None, int | None, str | None]]:
        import av

        def decoded(frame, damage, position):  # (image, pts, damage); _UNWANTED in place of an image not wanted
            if wanted is None or position in wanted:
                return self._decode(frame, damage)
            return _UNWANTED, frame.pts, None

        with av.open(av_path(self.path)) as container:
            stream = container.streams[self.stream_index]
            # Slice threads only: a frame-threaded decoder returns each frame thread_count packets late, and
            # on a corrupt packet it drops the frames in flight (on a 16-core machine a 12-frame clip with one
            # bad frame decoded to none). Decoding is a small share of `clean`'s time either way.
            stream.thread_type = "SLICE"
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
                for frame, damage in _decode_packets(container, stream):
                    if frame.pts is None:
                        break  # no timestamps after all: fall back to counting from the start
                    if produced == 0 and frame.pts > first_pts:
                        break  # the seek overshot: fall back
                    if frame.pts < first_pts:
                        continue
                    if last_pts is not None and frame.pts > last_pts:
                        return
                    yield decoded(frame, damage, start + produced)
                    produced += 1
                    if count is not None and produced >= count:
                        return
                if produced > 0:
                    return
                container.seek(0)
            # Sequential decode, counting frames: always correct, slower for late starts.
            for position, (frame, damage) in enumerate(_decode_packets(container, stream)):
                if position < start:
                    continue
                if wanted_end is not None and position >= wanted_end:
                    return
                yield decoded(frame, damage, position)


_UNWANTED = object()  # `_decoded_images` gives it for a frame decoded but not converted


class _LostFrame:
    """Stands in for the frame of a packet the decoder rejected."""

    def __init__(self, pts: int | None):
        self.pts = pts


def hdr_metadata(frame) -> dict:
    """A decoded frame's HDR10 static metadata as `VideoProperties` fields: FFmpeg's AVMasteringDisplayMetadata
    (ten AVRationals, red, green, blue, white point, then min and max luminance; two flags) and
    AVContentLightMetadata (two unsigned ints), read from the side data's bytes."""
    from av.sidedata.sidedata import Type

    # looked up by type: iterating the side data gives the entries in PyAV 18.1.0 and their types from 18.1.1 on
    found = {}
    mastering = frame.side_data.get(Type.MASTERING_DISPLAY_METADATA)
    if mastering is not None and len(data := bytes(mastering)) >= 88:
        values = struct.unpack_from("<20i2i", data)
        ratios = [n / d if d else 0.0 for n, d in zip(values[0:20:2], values[1:20:2])]
        if values[20] and values[21]:  # has primaries, has luminance
            found["mastering_display"] = (*ratios[:8], ratios[9], ratios[8])
    light = frame.side_data.get(Type.CONTENT_LIGHT_LEVEL)
    if light is not None and len(data := bytes(light)) >= 8:
        found["light_level"] = struct.unpack_from("<2I", data)
    return found


DAMAGE_LINES = 5  # lost or damaged frames named one by one in a pass over a video; the rest counted in one line
ERROR_LEVEL = 16  # FFmpeg's AV_LOG_ERROR (av.logging.ERROR): errors and worse have this level or a lower one


@contextmanager
def ffmpeg_errors() -> Iterator[list[tuple[int, str, str]]]:
    """FFmpeg's messages logged while the block runs, as (level, name, message), errors among them: the name
    is the component's (a decoder's codec name, a demuxer's format name). PyAV turns FFmpeg's logging off by
    default and drops a message that repeats the one before (a second pass over a damaged frame would hear
    nothing); the block logs errors (a more verbose level is left as it is), every time, and restores both
    after. The capture is process-wide, since FFmpeg logs from its own threads (a decoder's slices): hold it
    around a call, never across a yield."""
    import av.logging

    level, skip = av.logging.get_level(), av.logging.get_skip_repeated()
    if level is None or level < ERROR_LEVEL:
        av.logging.set_level(ERROR_LEVEL)
    av.logging.set_skip_repeated(False)
    try:
        with av.logging.Capture(local=False) as messages:
            yield messages
    finally:
        av.logging.set_level(level)
        av.logging.set_skip_repeated(skip)


def _decode_packets(container, stream) -> Iterator:
    """Decode packet by packet, so that one corrupt packet costs one frame (a _LostFrame in its place)
    instead of ending the decode. Yields (frame, damage): damage is None, or what was said of the frame's
    packet when the decoder reported errors in it and concealed them, or the demuxer marked it corrupt
    (matched by timestamp, since a decoder with reordering returns frames after their packets)."""
    import av

    codec = stream.codec_context.name
    damaged: dict[int | None, str] = {}  # pts of a packet with reported errors → the first report
    for packet in container.demux(stream):
        with ffmpeg_errors() as messages:
            try:
                frames = packet.decode()
            except av.FFmpegError:
                frames = None
        if frames is None:
            if packet.size > 0:
                yield _LostFrame(packet.pts), None
            continue
        errors = [
            f"FFmpeg's {codec} decoder: {text.strip()}"
            for level, name, text in messages
            if level <= ERROR_LEVEL and name == codec
        ]
        if packet.size > 0 and packet.is_corrupt:
            errors.append("the container marks its packet corrupt")
        if errors:
            damaged.setdefault(packet.pts, errors[0])
        for frame in frames:
            yield frame, damaged.pop(frame.pts, None)

"""Copying a video file's audio and subtitle streams into a denoised output, whole and in sync."""

from __future__ import annotations

import os

from videodenoise.errors import VideoWriteError
from videodenoise.io.pyav_reader import main_video_stream
from videodenoise.io.readers import av_path, container_tags, short_error, stream_tags


def mux_streams(
    video_file: str | os.PathLike,
    source: str | os.PathLike,
    output: str | os.PathLike,
    offset: float | None = None,
    window: tuple[float, float | None] | None = None,
    audio: bool = True,
) -> list[str]:
    """Write `output` with the video stream of `video_file` and every audio stream (unless not `audio`) and subtitle
    stream of `source`, whole: what comes before the first video frame and after the last is kept; or, with `window`,
    only the packets that begin in [from, until) seconds of the source's clock (until None: to its end), an excerpt's
    (`videodenoise.io.excerpt`), cut at packet boundaries as ffmpeg's stream copy cuts (a subtitle shown from before
    the window is left out).

    Nothing is re-encoded except audio whose codec the output container cannot hold, which becomes AAC; a subtitle
    stream whose codec it cannot hold (MP4's mov_text in Matroska, SubRip or ASS in MP4) is left out, since FFmpeg
    re-encodes subtitles only through decoded text that PyAV does not encode. Each stream keeps its tags (as
    `stream_tags` keeps them) and its disposition (default, forced…), as ffmpeg copies them.

    offset: seconds subtracted from the streams' timestamps, so that audio in sync with the source's video stays in
    sync with `video_file`: 0 when `video_file` kept the source's timestamps, None for the start time of the source's
    main video stream (a `video_file` that starts at 0). Packets are interleaved by time. Returns the codec names of
    the subtitle streams left out.
    """
    import heapq

    import av

    try:
        with (
            av.open(av_path(video_file)) as video_in,
            av.open(av_path(source)) as source_in,
            av.open(av_path(output), mode="w") as out,
        ):
            video_stream = video_in.streams.video[0]
            # the timecode the writer gave the video: a template carries no tags, and MP4's timecode track needs a rate
            timecode = next((v for k, v in video_stream.metadata.items() if k.lower() == "timecode"), None)
            if timecode is None:
                out_video = out.add_stream_from_template(video_stream)
            else:
                out_video = out.add_stream_from_template(video_stream, rate=video_stream.average_rate)
                out_video.metadata["timecode"] = timecode
            if video_stream.codec_tag.strip("\0"):  # a template leaves it out: MP4's HEVC would go from hvc1 to hev1,
                out_video.codec_tag = video_stream.codec_tag  # which QuickTime and Safari do not play
            out_video.metadata.update(stream_tags(video_stream.metadata))
            out.metadata.update(container_tags(video_in.metadata))
            if video_in.chapters():
                out.set_chapters(video_in.chapters())
            if offset is None:
                offset = 0.0
                first = main_video_stream(source_in) if source_in.streams.video else None
                if first is not None and first.start_time is not None:
                    offset = float(first.start_time * first.time_base)
            routes = {}  # input stream index -> (output stream, resampler or None for a copy)
            left_out = []
            for stream in source_in.streams.audio if audio else ():
                if stream.codec_context.name in out.supported_codecs:
                    routes[stream.index] = (out.add_stream_from_template(stream), None)
                else:
                    rate = stream.codec_context.sample_rate or 48000
                    layout = _named_layout(stream.codec_context.layout)
                    encoder = out.add_stream("aac", rate=rate, layout=layout)
                    # AAC takes planar float in frames of 1024 samples
                    resampler = av.AudioResampler(format="fltp", layout=layout, rate=rate, frame_size=1024)
                    routes[stream.index] = (encoder, resampler)
            for stream in source_in.streams.subtitles:
                if stream.codec_context.name in out.supported_codecs:
                    routes[stream.index] = (out.add_stream_from_template(stream), None)
                else:
                    left_out.append(stream.codec_context.name)
            for index, (target, _) in routes.items():  # a template carries neither
                target.metadata.update(stream_tags(source_in.streams[index].metadata))  # its language, title…
                target.disposition = source_in.streams[index].disposition  # default, forced, for the hard of hearing…

            def timed(packets, shift: float = 0.0, window=None):
                for packet in packets:
                    if packet.size == 0:
                        continue
                    stamp = packet.dts if packet.dts is not None else packet.pts
                    seconds = float(stamp * packet.time_base) if stamp is not None else 0.0
                    if window is not None and not (window[0] <= seconds and (window[1] is None or seconds < window[1])):
                        continue
                    yield seconds - shift, packet

            def shift_packet(packet, shift: float) -> None:
                ticks = round(shift / packet.time_base)
                if packet.pts is not None:
                    packet.pts -= ticks
                if packet.dts is not None:
                    packet.dts -= ticks

            video_packets = timed(video_in.demux(video_stream))
            copied = [source_in.streams[index] for index in routes]
            other_packets = timed(source_in.demux(*copied), offset, window) if routes else iter(())
            for _, packet in heapq.merge(video_packets, other_packets, key=lambda item: item[0]):
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
            return left_out
    except av.FFmpegError as error:
        raise VideoWriteError(
            f"cannot copy the audio or subtitles of '{source}' into '{output}': {short_error(error)}"
        ) from None


def _named_layout(layout) -> str:
    """A channel layout the AAC encoder accepts: the source's own, or FFmpeg's default for its
    channel count when the source only says 'N channels' (e.g. PCM in AVI)."""
    if not layout.name.endswith("channels"):
        return layout.name
    defaults = {1: "mono", 2: "stereo", 3: "3.0", 4: "4.0", 5: "5.0", 6: "5.1", 7: "6.1", 8: "7.1"}
    return defaults.get(layout.nb_channels, "stereo")

"""Copying a video file's other streams into a denoised output: its audio and subtitles, whole and in sync, and its
data streams, cover pictures and attachments; and the one line that says what an output left out or converted."""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from videodenoise.errors import VideoWriteError
from videodenoise.io.pyav_reader import describe_extra, extra_streams, main_video_stream
from videodenoise.io.readers import av_path, container_tags, short_error, stream_tags

# the outputs `clean` writes that can hold a stream another cannot, by suffix, and FFmpeg's muxer for each
HOLDERS = {".mp4": "mp4", ".mov": "mov", ".mkv": "matroska"}
# the muxers that write an attached picture as cover art (ipod: .m4v); MOV's drops it without a word
COVER_ART_MUXERS = {"mp4", "ipod"}
# a cover picture's codec: the extension and type of the file Matroska attaches it as
IMAGE_TYPES = {"mjpeg": ("jpg", "image/jpeg"), "png": ("png", "image/png"), "bmp": ("bmp", "image/bmp")}
# the audio codecs MP4's players play, copied into an MP4 output; another it holds becomes AAC, as ffmpeg encodes an
# MP4's audio (MOV and MKV copy theirs): PCM, which MP4 holds as 'ipcm', which browsers did not play until Safari 18
# (deepch/RTSPtoWSMP4f#13, xqq/mpegts.js#235) nor Chromecast (petrkotek/chromecastize#15), and Vorbis
MP4_AUDIO = {"aac", "mp3", "mp2", "ac3", "eac3", "alac", "opus", "flac"}
# the text subtitle codecs an output is given, the first its muxer holds, as ffmpeg chooses: ASS in Matroska (which
# keeps most styling), mov_text (3GPP timed text) in MP4 and MOV, which hold no other
TEXT_SUBTITLES = ("ass", "mov_text", "subrip", "webvtt")


@dataclass(frozen=True)
class LeftOut:
    """A stream of the source that the output's container cannot hold: what it is, in a few words ("subtitle stream
    (srt)"), and the suffixes of the outputs that would hold it as it is (none: no container `clean` writes). `held_as`:
    the codec it was encoded in instead (e.g. "AAC"), where it is not left out but changed."""

    what: str
    kept_by: tuple[str, ...]
    held_as: str | None = None


def mux_streams(
    video_files: Sequence[str | os.PathLike],
    source: str | os.PathLike | None,
    output: str | os.PathLike,
    offset: float | None = None,
    window: tuple[float, float | None] | None = None,
    audio: bool = True,
    starts: Sequence[Fraction] | None = None,
) -> list[LeftOut]:
    """Write `output` with the video stream of `video_files` (one file, or the pieces of one output one after another:
    `videodenoise.io.pieces`; the first gives the stream's and the file's settings) and every audio stream (unless not
    `audio`), subtitle stream and extra stream (`pyav_reader.extra_streams`) of `source` (None: no other stream),
    whole: what comes before the first video frame and after the last is kept; or, with `window`, only the packets
    that begin in [from, until) seconds of the source's clock (until None: to its end), an excerpt's
    (`videodenoise.io.excerpt`), cut at packet boundaries as ffmpeg's stream copy cuts (a subtitle shown from before
    the window is left out). Cover pictures and attachments have no time: they are always copied.

    Nothing is re-encoded but what the output container cannot hold, or holds where few players play it (PCM in MP4,
    `MP4_AUDIO`), as ffmpeg does it: audio becomes AAC, and text subtitles the container's own text codec (SubRip,
    ASS or WebVTT in MP4 become mov_text, MP4's mov_text in Matroska ASS; `TEXT_SUBTITLES`), their styling kept as
    far as that codec holds it. What the container cannot
    hold is left out, as ffmpeg refuses it: subtitle pictures (DVD's, Blu-ray's, DVB's) outside a container of their
    codec; a data stream of a codec its muxer does not know (MP4 holds a GoPro's telemetry, Matroska no data
    stream); an attachment outside Matroska; a cover picture in MOV or AVI. A cover picture goes into Matroska as an
    attachment, as mkvmerge stores it and FFmpeg reads it back. Each stream keeps its tags (as `stream_tags` keeps
    them) and its disposition (default, forced…), as ffmpeg copies them.

    offset: seconds subtracted from the streams' timestamps, so that audio in sync with the source's video stays in
    sync with the video: 0 when `video_files` kept the source's timestamps, None for the start time of the source's
    main video stream (video that starts at 0). starts: where each of `video_files` starts, in seconds, each file's
    clock starting at 0 (pieces'; None: each file as it is timed). Packets are interleaved by time. Returns what was
    left out.
    """
    import heapq

    import av

    try:
        with contextlib.ExitStack() as files:
            videos_in = [files.enter_context(av.open(av_path(path))) for path in video_files]
            source_in = None if source is None else files.enter_context(av.open(av_path(source)))
            out = files.enter_context(av.open(av_path(output), mode="w"))
            video_in = videos_in[0]
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
                first = main_video_stream(source_in) if source_in is not None and source_in.streams.video else None
                if first is not None and first.start_time is not None:
                    offset = float(first.start_time * first.time_base)
            routes = {}  # input stream index -> (output stream, its `AudioAsAac` or `TextSubtitles`; None: a copy)
            left_out, converted = [], []
            for stream in source_in.streams.audio if audio and source_in is not None else ():
                codec = stream.codec_context.name
                if codec in out.supported_codecs and played_in(out.format.name, codec):
                    routes[stream.index] = (out.add_stream_from_template(stream), None)
                else:
                    recoded = AudioAsAac(stream, out)
                    routes[stream.index] = (recoded.target, recoded)
                    players = [muxer for muxer in codec_holders(codec) if played_in(muxer, codec)]
                    left_out.append(LeftOut(f"{codec} audio", suffixes(players), held_as="AAC"))
            text = next((codec for codec in TEXT_SUBTITLES if codec in out.supported_codecs), None)  # the output's
            for stream in source_in.streams.subtitles if source_in is not None else ():
                codec = stream.codec_context.name
                if codec in out.supported_codecs:
                    routes[stream.index] = (out.add_stream_from_template(stream), None)
                    continue
                recoded = TextSubtitles(stream, out, text) if stream.codec_context.codec.text_sub and text else None
                if recoded is not None:
                    routes[stream.index] = (recoded.target, recoded)
                    converted.append(recoded)
                held_as = text if recoded is not None else None  # else left out: pictures, which no text codec holds
                left_out.append(LeftOut(f"subtitle stream ({codec})", suffixes(codec_holders(codec)), held_as))
            covers = []  # (cover picture, its stream in the output); a Matroska output holds them as attachments
            for stream in extra_streams(source_in, main_video_stream(source_in).index) if source_in is not None else ():
                if stream.type == "data" and out.format.name in data_holders(stream.name):
                    routes[stream.index] = (out.add_data_stream(stream.name), None)
                elif stream.type == "attachment" and out.format.name == "matroska":
                    out.add_attachment(stream.name, stream.mimetype, bytes(stream.data))
                elif stream.type == "video" and out.format.name == "matroska":
                    attach_cover(out, stream, cover_packet(source, stream.index))
                elif stream.type == "video" and out.format.name in COVER_ART_MUXERS:
                    covers.append((stream, out.add_stream_from_template(stream)))
                else:  # what this container cannot hold, and the outputs that can
                    holders = {"data": data_holders(stream.name), "video": ("mp4", "matroska")}  # attachments: Matroska
                    left_out.append(LeftOut(describe_extra(stream), suffixes(holders.get(stream.type, ("matroska",)))))
            for index, (target, _) in [*routes.items(), *((c.index, (t, None)) for c, t in covers)]:
                target.metadata.update(stream_tags(source_in.streams[index].metadata))  # its language, title…
                target.disposition = source_in.streams[index].disposition  # default, forced, for the hard of hearing…
            for cover, target in covers:  # one packet each, with no time
                picture = cover_packet(source, cover.index)
                picture.stream = target
                out.mux(picture)

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

            video_packets = timed(joined(videos_in, starts))
            copied = [source_in.streams[index] for index in routes]
            other_packets = timed(source_in.demux(*copied), offset, window) if routes else iter(())
            for _, packet in heapq.merge(video_packets, other_packets, key=lambda item: item[0]):
                if packet.stream.type == "video":
                    packet.stream = out_video
                    out.mux(packet)
                    continue
                target, recoded = routes[packet.stream.index]
                shift_packet(packet, offset)
                if recoded is None:
                    packet.stream = target
                    out.mux(packet)
                    continue
                out.mux(recoded.packets(packet))
            for _, recoded in routes.values():
                if recoded is not None:
                    out.mux(recoded.packets(None))
            for subtitles in converted:  # cues its encoder refused (mov_text holds at most 65535 bytes a cue)
                if subtitles.refused:
                    cues = f"{subtitles.refused} cue{'s' if subtitles.refused > 1 else ''}"
                    holders = suffixes(codec_holders(subtitles.decoder.name))
                    left_out.append(LeftOut(f"{cues} of the subtitle stream ({subtitles.decoder.name})", holders))
            return left_out
    except av.FFmpegError as error:
        what = f"the audio or subtitles of '{source}'" if source is not None else f"the {len(video_files)} pieces"
        raise VideoWriteError(f"cannot copy {what} into '{output}': {short_error(error)}") from None


class AudioAsAac:
    """An audio stream the output cannot hold (or holds where few players play it), encoded as AAC into `target`, from
    where its sound starts on the output's clock (its first packet's time, moved as the video was)."""

    def __init__(self, stream, out):
        import av

        self.rate = stream.codec_context.sample_rate or 48000
        layout = _named_layout(stream.codec_context.layout)
        self.target = out.add_stream("aac", rate=self.rate, layout=layout)
        # AAC takes planar float in frames of 1024 samples
        self.resampler = av.AudioResampler(format="fltp", layout=layout, rate=self.rate, frame_size=1024)
        self.next_pts: int | None = None  # the next AAC frame's first sample, counted on the output's clock

    def packets(self, packet) -> list:
        """The packets of `packet`'s audio as AAC (None: what the encoder still holds, at the end)."""
        frames = []
        for frame in packet.decode() if packet is not None else [None]:
            if self.next_pts is None and frame is not None and frame.pts is not None:
                self.next_pts = round(frame.pts * frame.time_base * self.rate)
            if frame is not None:
                frame.pts = None
            frames += self.resampler.resample(frame)
        encoded = []
        for frame in frames:
            frame.pts, frame.time_base = self.next_pts or 0, Fraction(1, self.rate)
            self.next_pts = frame.pts + frame.samples
            encoded += self.target.encode(frame)
        return encoded + (list(self.target.encode(None)) if packet is None else [])


class TextSubtitles:
    """A text subtitle stream the output cannot hold, decoded and encoded again as `codec` into `target`, each cue at
    its own time; the styles of the source's header (ASS's, as FFmpeg's decoders give every text codec) go with it."""

    def __init__(self, stream, out, codec: str):
        self.decoder = stream.codec_context
        self.decoder.open()  # its header (the ASS styles the encoder starts from) is there from then on
        self.target = out.add_stream(codec)
        self.target.codec_context.subtitle_header = self.decoder.subtitle_header
        self.target.time_base = stream.time_base
        self.refused = 0  # cues the encoder could not encode, left out

    def packets(self, packet) -> list:
        """`packet`'s cue encoded again, at its time (none for an empty one: mov_text's gaps, which MP4 writes
        itself; nor at the end, None)."""
        import av

        cues = None if packet is None else self.decoder.decode2(packet)
        if cues is None or not len(cues):
            return []
        try:
            encoded = self.target.codec_context.encode_subtitle(cues)
        except av.FFmpegError:
            self.refused += 1
            return []
        encoded.stream, encoded.time_base = self.target, packet.time_base
        encoded.pts, encoded.dts, encoded.duration = packet.pts, packet.dts, packet.duration
        return [encoded]


def joined(containers, starts: Sequence[Fraction] | None = None) -> Iterator:
    """The video packets of each container's first video stream, one container after the other, each moved on by its
    start in seconds (`starts`; None: as they are), with decoding times that never go back: a piece's first packets
    are decoded ahead of its first keyframe's time by the codec's B-frame delay, which may reach back as far as the
    piece before went (a variable frame rate's uneven times), and Matroska stores no decoding times, which FFmpeg
    leaves unset for a piece's first packets; those take one tick after the last, as far as their display time allows
    (a first piece's are left to the muxer, as for one file)."""
    last = None
    for number, container in enumerate(containers):
        for packet in container.demux(container.streams.video[0]):
            if starts is not None and packet.size:  # exact where the file's clock divides the piece's (MP4's does)
                shift = round(starts[number] / packet.time_base)
                packet.pts = None if packet.pts is None else packet.pts + shift
                packet.dts = None if packet.dts is None else packet.dts + shift
            if packet.size and last is not None and (packet.dts is None or packet.dts <= last):
                packet.dts = last + 1 if packet.pts is None else min(last + 1, packet.pts)
            if packet.size and packet.dts is not None:
                last = packet.dts
            yield packet


def played_in(muxer: str, codec: str) -> bool:
    """Whether audio of `codec` is copied into an output of `muxer` that holds it: an MP4's only where its players
    play it (`MP4_AUDIO`)."""
    return muxer not in ("mp4", "ipod") or codec in MP4_AUDIO


def codec_holders(codec: str) -> tuple[str, ...]:
    """The muxers of `HOLDERS` that hold a stream of `codec`."""
    holders = []
    for muxer in HOLDERS.values():
        with _empty_output(muxer) as probe:
            if codec in probe.supported_codecs:
                holders.append(muxer)
    return tuple(holders)


def data_holders(codec: str | None) -> tuple[str, ...]:
    """The muxers of `HOLDERS` that hold a data stream of `codec` (None: of no codec FFmpeg knows, which none holds):
    MP4 a GoPro's telemetry (bin_data), Matroska and MOV no data stream."""
    holders = []
    for muxer in HOLDERS.values() if codec else ():
        with _empty_output(muxer) as probe:
            try:
                probe.add_data_stream(codec)
                holders.append(muxer)
            except ValueError:  # "'matroska' format does not support 'bin_data' codec"
                pass
    return tuple(holders)


def _empty_output(muxer: str):
    """An output of `muxer` in memory, to ask what it holds; closed unwritten."""
    import av

    return av.open(io.BytesIO(), mode="w", format=muxer)


def suffixes(muxers) -> tuple[str, ...]:
    """The suffixes `HOLDERS` names for these muxers."""
    return tuple(suffix for suffix, muxer in HOLDERS.items() if muxer in muxers)


def cover_packet(source: str | os.PathLike, index: int):
    """The picture of the cover stream numbered `index` in `source`, as one packet (FFmpeg hands it first)."""
    import av

    with av.open(av_path(source)) as container:
        return next(packet for packet in container.demux(container.streams[index]) if packet.size)


def attach_cover(out, cover, picture) -> None:
    """A cover picture into a Matroska output as an attachment, named and typed as the source had it (a Matroska
    source's attachment), else as mkvmerge names one: cover.jpg or cover.png."""
    extension, mimetype = IMAGE_TYPES.get(cover.codec_context.name, ("jpg", "image/jpeg"))
    name = cover.metadata.get("filename") or f"cover.{extension}"
    out.add_attachment(name, cover.metadata.get("mimetype") or mimetype, bytes(picture))


def _named_layout(layout) -> str:
    """A channel layout the AAC encoder accepts: the source's own, or FFmpeg's default for its
    channel count when the source only says 'N channels' (e.g. PCM in AVI)."""
    if not layout.name.endswith("channels"):
        return layout.name
    defaults = {1: "mono", 2: "stereo", 3: "3.0", 4: "4.0", 5: "5.0", 6: "5.1", 7: "6.1", 8: "7.1"}
    return defaults.get(layout.nb_channels, "stereo")


def left_out_message(output: Path, source: Path, left_out: list[LeftOut]) -> str:
    """One line: what of `source` the container of `output` could not hold (or held in another codec), and which
    outputs would hold each as it is."""
    changed = [item for item in left_out if item.held_as]
    dropped = [item for item in left_out if not item.held_as]
    said = []
    for item in changed:
        kept = f"an output named {either(item.kept_by)} keeps it as it is" if item.kept_by else "none keeps it as it is"
        said.append(f"'{output}' holds the {item.what} of '{source}' as {item.held_as}; {kept}")
    if dropped:
        said.append(dropped_message(output, source, dropped))
    return "; and ".join(said)


def dropped_message(output: Path, source: Path, left_out: list[LeftOut]) -> str:
    """What of `source` the container of `output` could not hold, and which outputs would hold each."""
    by_holders: dict[tuple[str, ...], list[str]] = {}
    for item in left_out:
        by_holders.setdefault(item.kept_by, []).append(item.what)
    them = "them" if len(left_out) > 1 else "it"

    def which(items: list[str]) -> str:  # "it" or "them" where one sentence covers everything left out
        return f"the {either(items, 'and')}" if len(by_holders) > 1 else them

    where = [
        f"an output named {either(kept_by)} keeps {which(items)}" for kept_by, items in by_holders.items() if kept_by
    ]
    if () in by_holders:
        where.append(f"no output clean writes holds {which(by_holders[()])}")
    what = either([item.what for item in left_out], "and")
    return f"'{output}' cannot hold the {what} of '{source}': it is written without {them}; {'; '.join(where)}"


def either(names: Sequence[str], word: str = "or") -> str:
    """'a', 'a or b', 'a, b or c' (or with another word)."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} {word} {names[-1]}"

"""`clean` keeps everything but the noise, ffmpeg's behaviour as the reference: files with rotation,
variable frame rate, audio before the first frame, 10- and 16-bit pictures, alpha, interlacing, a pixel
aspect ratio, colour tags, HDR metadata, container tags, several video streams, and awkward names, written here with
PyAV and denoised by an identity model, so that what comes out can be compared with what went in."""

from __future__ import annotations

import os
from fractions import Fraction
from pathlib import Path

import av
import cv2
import numpy as np
import pytest
import torch

import videodenoise.denoise.pipeline as pipeline
from videodenoise.denoise.denoiser import Denoiser
from videodenoise.denoise.fields import split_fields, weave_fields
from videodenoise.denoise.pipeline import denoise_video
from videodenoise.denoise.settings import DenoiseSettings
from videodenoise.errors import DenoiseError, VideoReadError
from videodenoise.io.atomic import temporary_name
from videodenoise.io.excerpt import Span
from videodenoise.io.readers import VideoProperties, stream_tags
from videodenoise.io.video import open_video
from videodenoise.io.writers import VideoWriter, write_video
from videodenoise.models.registry import build_model, save_model

from helpers import Identity, audio_span, encode, frame_times, identity, picture, run_cli, size_change_stream, vfr_video


@pytest.fixture(autouse=True, params=["whole", "in pieces"])
def written(request, monkeypatch):
    """Every test here runs twice: outputs written whole, and in pieces of two frames joined (`io/pieces.py`), which
    must keep all the same."""
    if request.param == "in pieces":
        monkeypatch.setattr(pipeline, "PIECE_FRAMES", 2)


def first_stream(path: Path):
    container = av.open(str(path))
    return container, container.streams.video[0]


# ----------------------------------------------------------------------------------------------- geometry


def test_rotation_is_carried_in_files_and_applied_to_frame_folders(tmp_path):
    source = encode(tmp_path / "phone.mp4", [picture(k) for k in range(4)], setup=lambda s: s.set_display_rotation(90))
    result = denoise_video(source, None, identity(), sigma=None)
    with av.open(str(result.output)) as container:
        frame = next(container.decode(video=0))
        assert frame.rotation == 90 and (frame.width, frame.height) == (64, 48)
    folder = denoise_video(source, tmp_path / "upright", identity(), sigma=None).output
    first = cv2.imread(str(sorted(folder.iterdir())[0]))[:, :, ::-1]
    stored = open_video(source).read(0, 1)[0].mul(255).round().byte().permute(1, 2, 0).numpy()
    assert first.shape == (64, 48, 3)  # turned upright, as ffmpeg's autorotation does (checked against it)
    assert np.abs(first.astype(int) - np.rot90(stored, k=1)).max() <= 1


def test_sample_aspect_ratio_and_colour_tags_are_kept_and_used(tmp_path):
    def tag(stream):
        context = stream.codec_context
        context.sample_aspect_ratio = Fraction(4, 3)
        context.color_range, context.colorspace, context.color_trc, context.color_primaries = 2, 1, 1, 1

    source = encode(tmp_path / "tagged.mp4", [picture(k) for k in range(3)], pix_fmt="yuv444p", setup=tag)
    result = denoise_video(source, None, identity(), sigma=None)
    with av.open(str(result.output)) as container:
        stream = container.streams.video[0]
        context = stream.codec_context
        assert stream.sample_aspect_ratio == Fraction(4, 3)
        assert (context.color_range, context.colorspace, context.color_trc, context.color_primaries) == (2, 1, 1, 1)
    # read as RGB with the input's tags and written back with the same: the pictures agree (up to 4:2:0)
    original = open_video(source).read()
    assert (open_video(result.output).read() - original).abs().mean() < 0.02
    # RGB in FFV1 needs no tags; Matroska's pixel aspect ratio is out of PyAV's reach, and it is said
    with pytest.warns(UserWarning, match="FFV1 cannot hold its pixel aspect ratio 4/3"):
        lossless = denoise_video(source, tmp_path / "out.mkv", identity(), sigma=None, format="lossless")
    assert (open_video(lossless.output).read() - original).abs().max() <= 1 / 255 + 1e-6


@pytest.mark.parametrize("order", ["tff", "bff"])
def test_interlaced_video_comes_out_interlaced_with_the_same_field_first(tmp_path, order):
    params = {"x264-params": f"interlaced=1:{order}=1"}
    source = encode(tmp_path / "dvr.mp4", [picture(k) for k in range(4)], setup=lambda s: setattr(s, "options", params))
    field_order = {"tff": 2, "bff": 3}[order]  # FFmpeg's AVFieldOrder: top, bottom field coded and shown first
    assert open_video(source).properties().field_order == field_order
    for output, format in (("out.mp4", None), ("out.mkv", "lossless")):
        with pytest.warns(UserWarning, match=f"is interlaced \\({order[0]}.*denoising its fields \\(--fields\\)"):
            result = denoise_video(source, tmp_path / output, identity(), sigma=None, format=format)
        with av.open(str(result.output)) as container:
            assert container.streams.video[0].codec_context.field_order == field_order
            assert next(container.decode(video=0)).interlaced_frame == (format is None)  # FFV1: a stream tag
    with pytest.warns(UserWarning) as caught:
        denoise_video(source, tmp_path / "frames", identity(), sigma=None)
    messages = " | ".join(str(warning.message) for warning in caught)
    assert f"a PNG frame folder cannot hold its interlacing ({order[0]}" in messages and "--fields" in messages
    progressive = encode(tmp_path / "phone.mp4", [picture(k) for k in range(4)])
    with av.open(str(denoise_video(progressive, None, identity(), sigma=None).output)) as container:
        assert container.streams.video[0].codec_context.field_order == 1


class Recording(Identity):
    """An identity that keeps the height of every picture it is handed."""

    def __init__(self):
        super().__init__()
        self.heights: list[int] = []

    def forward(self, clip: torch.Tensor) -> torch.Tensor:
        self.heights += [clip.shape[-2]] * clip.shape[1]
        return clip


def test_interlaced_heights_h264_cannot_code_as_interlaced_come_out_progressive_and_say_so(tmp_path):
    # NTSC's 486 lines: fields of 243 lines, whose 4:2:0 chroma is not whole; libx264 refuses to code them interlaced
    tagged = VideoProperties(field_order=3)
    with VideoWriter(tmp_path / "ntsc.mkv", fps=25, codec="ffv1", properties=tagged) as writer:
        for k in range(3):
            writer.write(torch.from_numpy(picture(k, height=486, width=64)).permute(2, 0, 1).float() / 255)
    with pytest.warns(UserWarning) as caught:
        result = denoise_video(tmp_path / "ntsc.mkv", tmp_path / "out.mp4", identity(), sigma=None)
    said = " | ".join(str(warning.message) for warning in caught)
    assert "H.264 cannot hold its interlacing (bottom field first; 486 lines cannot be coded interlaced)" in said
    assert "--format lossless keeps bit depth, alpha and interlacing" in said
    with av.open(str(result.output)) as container:
        assert container.streams.video[0].codec_context.field_order == 1 and container.streams.video[0].frames == 3
    with pytest.warns(UserWarning, match="denoising its fields \\(--fields\\) does better"):
        lossless = denoise_video(tmp_path / "ntsc.mkv", tmp_path / "out.mkv", identity(), sigma=None, format="lossless")
    assert open_video(lossless.output).properties().field_order == 3


@pytest.mark.parametrize("order", ["tff", "bff"])
def test_fields_are_denoised_in_the_order_taken_and_woven_back_exactly(tmp_path, order):
    params = {"x264-params": f"interlaced=1:{order}=1"}
    source = encode(tmp_path / "dvr.mp4", [picture(k) for k in range(5)], setup=lambda s: setattr(s, "options", params))
    model = Recording()
    denoiser = Denoiser(model, DenoiseSettings(device="cpu", tile=0, fields=True))
    result = denoise_video(source, tmp_path / "out.mkv", denoiser, sigma=None, format="lossless")
    assert model.heights and set(model.heights) == {24}  # 48-line frames, seen as 24-line fields
    assert torch.equal(open_video(result.output).read(), open_video(source).read())  # woven back line for line
    progressive = encode(tmp_path / "phone.mp4", [picture(k) for k in range(5)])
    model.heights.clear()
    denoise_video(progressive, tmp_path / "still.mkv", denoiser, sigma=None, format="lossless")
    assert set(model.heights) == {48}  # progressive video stays frames, whatever the setting


def test_fields_split_in_time_order_and_weave_back():
    frames = torch.arange(2 * 3 * 4 * 5, dtype=torch.float32).reshape(2, 3, 4, 5)
    for top_first in (True, False):
        fields = list(split_fields(frames, top_first))
        first, second = (
            (frames[0, :, 0::2], frames[0, :, 1::2]) if top_first else (frames[0, :, 1::2], frames[0, :, 0::2])
        )
        assert len(fields) == 4 and torch.equal(fields[0], first) and torch.equal(fields[1], second)
        assert torch.equal(torch.stack(list(weave_fields(fields, top_first))), frames)
    with pytest.raises(DenoiseError, match="fields of two heights; denoise it as frames"):
        list(split_fields([torch.zeros(3, 5, 4)], True))


@pytest.mark.parametrize("audio", [None, 1.0])
def test_the_container_tags_are_kept(tmp_path, audio):
    # a camera's recording time and place, as ffmpeg copies them by default; the muxer's own (brands,
    # encoder) are the output's
    tags = {"creation_time": "2026-11-30T21:14:05.000000Z", "title": "gate camera 3", "location": "+48.8584+002.2945/"}
    source = encode(
        tmp_path / "cam.mp4",
        [picture(k) for k in range(3)],
        setup=lambda stream: stream.container.metadata.update(tags),
        audio_seconds=audio,
    )
    assert tags.items() <= dict(open_video(source).properties().metadata).items()  # (mov adds location-eng)
    for output, format in (("out.mp4", None), ("out.mkv", "lossless")):
        result = denoise_video(source, tmp_path / output, identity(), sigma=None, format=format)
        with av.open(str(result.output)) as container:
            kept = {name.lower(): value for name, value in container.metadata.items()}  # Matroska: TITLE, ENCODER
            assert kept["title"] == tags["title"] and kept["creation_time"].startswith("2026-11-30T21:14:05")
            assert kept["location"] == tags["location"] and kept["encoder"].startswith("Lavf")  # the output's own
    with pytest.warns(UserWarning, match="a PNG frame folder cannot hold its tags \\(creation_time, title, location"):
        denoise_video(source, tmp_path / "frames", identity(), sigma=None, keep_audio=False)


@pytest.mark.parametrize("audio", [None, 1.0])
def test_each_streams_tags_are_kept(tmp_path, audio):
    # a stream's language, title and handler, as ffmpeg copies them; MP4 stores the title as the track's name
    video_tags = {"language": "fra", "title": "gate camera 3", "handler_name": "Core Media Video"}
    audio_tags = {"language": "jpn", "title": "commentary", "handler_name": "Core Media Audio"}
    source = encode(
        tmp_path / "cam.mp4",
        [picture(k) for k in range(3)],
        setup=lambda stream: stream.metadata.update(video_tags),
        audio_seconds=audio,
        audio_tags=audio_tags,
    )
    assert dict(open_video(source).properties().stream_metadata) == video_tags
    for output, format in (("out.mp4", None), ("out.mkv", "lossless")):
        result = denoise_video(source, tmp_path / output, identity(), sigma=None, format=format)
        with av.open(str(result.output)) as container:
            # read back as the reader gives them (MP4's "name" as title; Matroska's HANDLER_NAME in any case)
            kept = [{k.lower(): v for k, v in stream_tags(s.metadata).items()} for s in container.streams]
        assert kept[0] == video_tags
        assert kept[1:] == ([audio_tags] if audio else [])
    with pytest.warns(UserWarning, match="a PNG frame folder cannot hold its tags \\(language, handler_name, title\\)"):
        denoise_video(source, tmp_path / "frames", identity(), sigma=None, keep_audio=False)

    def titled_twice(stream):  # the file and its stream both have a title
        stream.container.metadata["TITLE"] = "gate camera 3"
        stream.metadata.update({"title": "gate camera 3", "language": "fra"})

    titled = encode(tmp_path / "titled.mkv", [picture(0)], setup=titled_twice)
    with pytest.warns(UserWarning, match="cannot hold its tags \\(title, language\\)"):  # each name once, any case
        denoise_video(titled, tmp_path / "frames-2", identity(), sigma=None, keep_audio=False)


def test_stream_tags_leave_out_what_would_be_false_of_the_output():
    read = {
        "language": "und",  # undetermined: nothing to keep
        "handler_name": "VideoHandler",  # FFmpeg's MP4 muxer writes it for every video stream
        "vendor_id": "[0][0][0][0]",
        "encoder": "Lavc61.3.100 libx264",
        "DURATION": "00:01:02.040000000",
        "BPS-eng": "2500000",  # mkvmerge's statistics of the source's stream
        "NUMBER_OF_FRAMES-eng": "1551",
        "_STATISTICS_WRITING_APP-eng": "mkvmerge v80.0",
        "timecode": "01:00:00:00",  # VideoProperties.timecode carries it, moved for an excerpt
        "name": "lobby",
        "comment": "north door",
    }
    assert stream_tags(read) == {"title": "lobby", "comment": "north door"}


@pytest.mark.parametrize("audio", [None, 1.0])
def test_chapters_are_kept_and_an_excerpt_cuts_them(tmp_path, audio):
    def with_chapters(stream):  # 100 frames at 25 fps: 4 s, two chapters
        stream.container.set_chapters(
            [
                {"id": 1, "start": 0, "end": 40, "time_base": Fraction(1, 25), "metadata": {"title": "gate opens"}},
                {"id": 2, "start": 40, "end": 100, "time_base": Fraction(1, 25), "metadata": {"title": "truck"}},
            ]
        )

    def chapters(path: Path) -> list[tuple[float, float, str]]:
        with av.open(str(path)) as container:
            return [
                (
                    round(float(c["start"] * c["time_base"]), 3),
                    round(float(c["end"] * c["time_base"]), 3),
                    c["metadata"]["title"],
                )
                for c in container.chapters()
            ]

    source = encode(
        tmp_path / "cam.mp4", [picture(k % 3) for k in range(100)], setup=with_chapters, audio_seconds=audio
    )
    both = [(0.0, 1.6, "gate opens"), (1.6, 4.0, "truck")]
    assert chapters(source) == both
    for output, format in (("out.mp4", None), ("out.mkv", "lossless")):
        assert chapters(denoise_video(source, tmp_path / output, identity(), sigma=None, format=format).output) == both
    # from 1 s: both, moved back by 1 s; from 2 s for 1.5 s: the second alone, cut to the excerpt (its frames
    # 2.00-3.48 s, the last shown until 3.52)
    for span, kept in (
        (Span(1.0, None), [(0.0, 0.6, "gate opens"), (0.6, 3.0, "truck")]),
        (Span(2.0, 1.5), [(0.0, 1.52, "truck")]),
    ):
        result = denoise_video(source, tmp_path / f"from-{span.start:g}.mp4", identity(), sigma=None, span=span)
        assert chapters(result.output) == kept
    with pytest.warns(UserWarning, match="cannot hold .*its 2 chapters"):
        denoise_video(source, tmp_path / "frames", identity(), sigma=None, keep_audio=False)


def subtitled(path: Path, video: Path, cues: list[tuple[int, int, str]], language: str = "fra") -> Path:
    """`video`'s streams and a SubRip subtitle stream of `cues` ((from, until) in ms, text), remuxed into `path` (an
    .mkv): a film's subtitles as a downloaded Matroska file carries them."""
    srt = path.with_suffix(".srt")
    stamp = lambda ms: f"{ms // 3600000:02d}:{ms // 60000 % 60:02d}:{ms // 1000 % 60:02d},{ms % 1000:03d}"  # noqa: E731
    srt.write_text("\n".join(f"{n}\n{stamp(a)} --> {stamp(b)}\n{text}\n" for n, (a, b, text) in enumerate(cues, 1)))
    with av.open(str(video)) as inside, av.open(str(srt)) as text, av.open(str(path), "w") as out:
        routes = {stream: out.add_stream_from_template(stream) for stream in (*inside.streams, text.streams[0])}
        routes[text.streams[0]].metadata["language"] = language
        routes[text.streams[0]].disposition = av.stream.Disposition.forced  # shown even when subtitles are off
        for packet in [*inside.demux(), *text.demux()]:
            if packet.size:
                packet.stream = routes[packet.stream]
                out.mux(packet)
    srt.unlink()
    return path


def subtitles(path: Path) -> list[tuple[str, str, bool, list[tuple[int, bytes]]]]:
    """Each subtitle stream's codec, language, whether it is forced, and (start in ms, text) of its cues."""
    with av.open(str(path)) as container:
        streams = list(container.streams.subtitles)
        cues = {stream.index: [] for stream in streams}
        for packet in container.demux(*streams) if streams else ():  # no streams named: every stream
            if packet.size:
                cues[packet.stream.index].append((round(packet.pts * packet.time_base * 1000), bytes(packet)))
        forced = {s.index: bool(s.disposition & av.stream.Disposition.forced) for s in streams}
        return [(s.codec_context.name, s.metadata.get("language", ""), forced[s.index], cues[s.index]) for s in streams]


def text_cues(path: Path) -> list[tuple[str, str, bool, list[tuple[int, str, bool]]]]:
    """Each subtitle stream's codec, language, whether it is forced, and (start in ms, text, whether any is in italics)
    of its cues as FFmpeg decodes them, whatever the text codec."""
    found = []
    with av.open(str(path)) as container:
        for stream in container.streams.subtitles:
            cues = []
            for packet in container.demux(stream):
                decoded = stream.codec_context.decode2(packet) if packet.size else None
                for cue in decoded or ():
                    italic = "\\i1" in cue.ass.decode()
                    cues.append((round(packet.pts * packet.time_base * 1000), cue.dialogue.decode(), italic))
            forced = bool(stream.disposition & av.stream.Disposition.forced)
            found.append((stream.codec_context.name, stream.metadata.get("language", ""), forced, cues))
    return found


@pytest.mark.parametrize("audio", [None, 4.0], ids=["video only", "with audio"])
def test_subtitles_are_kept_where_the_container_holds_them_and_an_excerpt_cuts_them(tmp_path, audio):
    frames = [picture(k % 3) for k in range(100)]  # 4 s at 25 fps
    video = encode(tmp_path / "film.mp4", frames, audio_seconds=audio)
    source = subtitled(tmp_path / "film.mkv", video, [(0, 1500, "Bonjour"), (2000, 3500, "Au <i>revoir</i>")])
    both = subtitles(source)  # with audio, the muxer moves every stream on by the AAC encoder's delay (128 ms)
    delay = both[0][3][0][0]
    assert both == [("srt", "fra", True, [(delay, b"Bonjour"), (delay + 2000, b"Au <i>revoir</i>")])]  # .srt's
    kept = denoise_video(source, tmp_path / "out.mkv", identity(), sigma=None).output
    assert subtitles(kept) == both and codec_of(kept) == "h264"
    with av.open(str(kept)) as container:
        assert len(container.streams.audio) == (1 if audio else 0)
    silent = denoise_video(source, tmp_path / "silent.mkv", identity(), sigma=None, keep_audio=False).output
    assert subtitles(silent) == both  # --no-audio drops the audio, not the subtitles
    with av.open(str(silent)) as container:
        assert not container.streams.audio
    # from 1.8 s: the cue that begins in it, moved back with the frames; the one shown from before is left out
    excerpt = denoise_video(source, tmp_path / "late.mkv", identity(), sigma=None, span=Span(1.8, None)).output
    assert subtitles(excerpt) == [("srt", "fra", True, [(delay + 200, b"Au <i>revoir</i>")])]
    # MP4 holds no SubRip: its cues become MP4's own text subtitles (mov_text), as ffmpeg converts them, and MP4's
    # become Matroska's ASS, the italics kept both ways
    said = r"holds the subtitle stream \(srt\) of .* as mov_text; an output named \.mkv keeps it as it is$"
    with pytest.warns(UserWarning, match=said):
        default = denoise_video(source, None, identity(), sigma=None).output
    expected = [(delay, "Bonjour", False), (delay + 2000, "Au revoir", True)]
    assert default.suffix == ".mp4" and text_cues(default) == [("mov_text", "fra", True, expected)]
    with pytest.warns(UserWarning, match=r"\(mov_text\) of .* as ass; an output named \.mp4 or \.mov keeps it as it"):
        back = denoise_video(default, tmp_path / "back.mkv", identity(), sigma=None).output
    assert text_cues(back) == [("ssa", "fra", True, expected)]  # ASS, read back by FFmpeg's decoder of both
    late = denoise_video(source, tmp_path / "late.mp4", identity(), sigma=None, span=Span(1.8, None)).output
    assert text_cues(late) == [("mov_text", "fra", True, [(delay + 200, "Au revoir", True)])]  # cut, then converted
    held = "audio and subtitle stream" if audio else "subtitle stream"
    with pytest.warns(UserWarning, match=f"a frame folder holds no {held}: the {held} of"):
        denoise_video(source, tmp_path / "frames", identity(), sigma=None)
    with pytest.warns(UserWarning, match=f"an image holds no {held}: the {held} of"):  # one frame of it as an image
        denoise_video(source, tmp_path / "still.png", identity(), sigma=None, span=Span(0.52, 0.01))


def test_a_cue_the_output_codec_cannot_hold_is_left_out_and_said(tmp_path):
    video = encode(tmp_path / "film.mp4", [picture(k % 3) for k in range(100)])
    source = subtitled(tmp_path / "film.mkv", video, [(0, 1500, "x" * 70000), (2000, 3500, "Au revoir")])
    with pytest.warns(UserWarning, match=r"cannot hold the 1 cue of the subtitle stream \(srt\) of .*keeps it$"):
        out = denoise_video(source, None, identity(), sigma=None).output  # mov_text: 65535 bytes a cue at most
    assert text_cues(out) == [("mov_text", "fra", True, [(2000, "Au revoir", False)])]


def test_subtitle_pictures_go_where_their_codec_is_held_and_are_named_elsewhere(tmp_path):
    # DVB's subtitles are pictures: no text to carry into mov_text, and MP4 holds none of their codec
    video = encode(tmp_path / "broadcast.mp4", [picture(k % 3) for k in range(10)])
    source = tmp_path / "broadcast.mkv"
    with av.open(str(video)) as inside, av.open(str(source), "w") as out:
        frames = out.add_stream_from_template(inside.streams.video[0])
        pictures = out.add_stream("dvbsub")
        for packet in inside.demux():
            if packet.size:
                packet.stream = frames
                out.mux(packet)
        cue = av.Packet(b"\x20\x00\x0f\x10" + bytes(12))  # one page segment, as muxed; never decoded here
        cue.stream, cue.pts, cue.dts, cue.time_base = pictures, 0, 0, Fraction(1, 1000)
        out.mux(cue)
    kept = denoise_video(source, tmp_path / "out.mkv", identity(), sigma=None).output
    assert [stream[0] for stream in subtitles(kept)] == ["dvbsub"]
    with pytest.warns(
        UserWarning, match=r"cannot hold the subtitle stream \(dvbsub\) of .*; an output named \.mkv keeps"
    ):
        default = denoise_video(source, None, identity(), sigma=None).output
    assert default.suffix == ".mp4" and subtitles(default) == []


def with_extras(path: Path, muxer: str | None = None, data: str | None = None, covers=(), attachments=(), videos=1):
    """A 10-frame 64×48 H.264 video at 25 fps with what a camera's or a film's file carries beside it: a data stream
    of codec `data` (a packet every 40 ms, b"meta0"…), a timecode track when `data` is a GoPro's (bin_data, written as
    GoPro's cameras do, with a timecode), cover pictures ((name, JPEG bytes): Matroska attachments of an image type,
    MP4 attached pictures), attachments ((name, mimetype, bytes)) and `videos` − 1 more video streams."""
    with av.open(str(path), "w", format=muxer) as container:
        streams = [container.add_stream("libx264", rate=25) for _ in range(videos)]
        for stream in streams:
            stream.width, stream.height, stream.pix_fmt = 64, 48, "yuv420p"
        if data == "bin_data":
            streams[0].metadata["timecode"] = "00:00:10:00"
        meta = container.add_data_stream(data) if data else None
        for name, picture in covers:
            if path.suffix == ".mkv":
                container.add_attachment(name, "image/jpeg", picture)
            else:
                cover = container.add_stream("mjpeg")
                cover.width = cover.height = 16
                cover.pix_fmt, cover.disposition = "yuvj420p", av.stream.Disposition.attached_pic
                packet = av.Packet(picture)
                packet.stream, packet.pts, packet.dts = cover, 0, 0
                container.mux(packet)
        for name, mimetype, content in attachments:
            container.add_attachment(name, mimetype, content)
        for index in range(10):
            for stream in streams:
                frame = av.VideoFrame.from_ndarray(picture_of(index), format="rgb24")
                frame.pts = index
                container.mux(stream.encode(frame))
            if meta is not None:
                packet = av.Packet(b"meta%d" % index)
                packet.stream, packet.time_base = meta, Fraction(1, 1000)
                packet.pts = packet.dts = 40 * index
                packet.duration = 40  # without, MP4 drops the last
                container.mux(packet)
        for stream in streams:
            container.mux(stream.encode(None))
    return path


def picture_of(index: int) -> np.ndarray:
    return picture(index, 48, 64)


def extras_of(path: Path) -> dict:
    """What `with_extras` put in, as read back: {"data": [(codec, handler, [(ms, bytes)])], "covers": [bytes],
    "attachments": [(name, mimetype, bytes)], "timecodes": how many timecode tracks, "videos": video streams}."""
    with av.open(str(path)) as container:
        data = [s for s in container.streams.data if "timecode" not in s.metadata]
        covers = [s for s in container.streams.video if s.disposition & av.stream.Disposition.attached_pic]
        packets = {s.index: [] for s in [*data, *covers]}
        for packet in container.demux(*data, *covers) if packets else ():
            if packet.size:
                stamp = None if packet.pts is None else round(packet.pts * packet.time_base * 1000)
                packets[packet.stream.index].append((stamp, bytes(packet)))
        return {
            "data": [(s.name, s.metadata.get("handler_name"), packets[s.index]) for s in data],
            "covers": [packets[s.index][0][1] for s in covers],
            "attachments": [(s.name, s.mimetype, bytes(s.data)) for s in container.streams.attachments],
            "timecodes": sum("timecode" in s.metadata for s in container.streams.data),
            "videos": len(container.streams.video) - len(covers),
        }


def test_a_cameras_data_stream_is_kept_in_mp4_in_sync_and_said_where_not(tmp_path):
    gopro = with_extras(tmp_path / "GX010001.MP4", data="bin_data")
    telemetry = [(40 * k, b"meta%d" % k) for k in range(10)]
    assert extras_of(gopro)["data"] == [("bin_data", "GoPro MET", telemetry)]
    kept = denoise_video(gopro, tmp_path / "out.mp4", identity(), sigma=None).output
    assert extras_of(kept) | {"covers": [], "attachments": []} == {
        "data": [("bin_data", "GoPro MET", telemetry)],  # the same packets at the same times, with its handler name
        "covers": [],
        "attachments": [],
        "timecodes": 1,  # the writer's own timecode track, not a copy of the source's beside it
        "videos": 1,
    }
    excerpt = denoise_video(gopro, tmp_path / "late.mp4", identity(), sigma=None, span=Span(0.2, None)).output
    assert extras_of(excerpt)["data"] == [("bin_data", "GoPro MET", [(t - 200, b) for t, b in telemetry[5:]])]
    silent = denoise_video(gopro, tmp_path / "silent.mp4", identity(), sigma=None, keep_audio=False).output
    assert extras_of(silent)["data"] == extras_of(kept)["data"]  # --no-audio drops audio only
    with pytest.warns(
        UserWarning,
        match=r"'.*out\.mkv' cannot hold the data stream \(GoPro MET\) of '.*GX010001\.MP4': it is written without "
        r"it; an output named \.mp4 keeps it$",
    ):
        elsewhere = denoise_video(gopro, tmp_path / "out.mkv", identity(), sigma=None).output
    assert extras_of(elsewhere)["data"] == []
    # a drone's or a surveillance camera's KLV metadata in MPEG-TS: no container clean writes holds it
    drone = with_extras(tmp_path / "flight.ts", data="klv")
    with pytest.warns(
        UserWarning,
        match=r"cannot hold the data stream \(klv\) of .*: it is written without it; no output clean writes holds it$",
    ):
        denoise_video(drone, tmp_path / "flight.mp4", identity(), sigma=None)


def test_cover_pictures_and_attachments_are_kept_where_the_container_holds_them(tmp_path):
    jpeg = cv2.imencode(".jpg", np.full((16, 16, 3), 90, np.uint8))[1].tobytes()
    font = ("DejaVuSans.ttf", "application/x-truetype-font", b"\x00\x01\x00\x00" * 64)  # an ASS subtitle's font
    film = with_extras(tmp_path / "film.mkv", covers=[("cover.jpg", jpeg)], attachments=[font])
    assert extras_of(film)["covers"] == [jpeg] and extras_of(film)["attachments"] == [font]
    kept = extras_of(denoise_video(film, tmp_path / "out.mkv", identity(), sigma=None).output)
    assert kept["covers"] == [jpeg] and kept["attachments"] == [font] and kept["videos"] == 1
    with pytest.warns(
        UserWarning,
        match=r"cannot hold the attachment \(DejaVuSans\.ttf\) of .*: it is written without it; an output named "
        r"\.mkv keeps it$",
    ):
        in_mp4 = extras_of(denoise_video(film, tmp_path / "out.mp4", identity(), sigma=None).output)
    assert in_mp4["covers"] == [jpeg] and in_mp4["attachments"] == []  # MP4's cover art
    # an MP4's cover art goes into Matroska as mkvmerge stores it: an attachment named cover.jpg
    album = with_extras(tmp_path / "album.mp4", covers=[("", jpeg)])
    assert extras_of(album)["covers"] == [jpeg]
    out = denoise_video(album, tmp_path / "album.mkv", identity(), sigma=None).output
    with av.open(str(out)) as container:
        cover = [s for s in container.streams.video if s.disposition & av.stream.Disposition.attached_pic]
        assert [(s.metadata.get("filename"), s.metadata.get("mimetype")) for s in cover] == [
            ("cover.jpg", "image/jpeg")
        ]
    assert extras_of(out)["covers"] == [jpeg]
    with pytest.warns(UserWarning, match=r"cannot hold the cover picture \(mjpeg\) of .*: it is written without it"):
        denoise_video(album, tmp_path / "album.mov", identity(), sigma=None)  # MOV's muxer would drop it unsaid
    with pytest.warns(
        UserWarning,
        match=r"cannot hold the cover picture \(cover\.jpg\) and attachment \(DejaVuSans\.ttf\) of .*: it is written "
        r"without them; an output named \.mp4 or \.mkv keeps the cover picture \(cover\.jpg\); an output named "
        r"\.mkv keeps the attachment \(DejaVuSans\.ttf\)$",
    ):
        denoise_video(film, tmp_path / "both.avi", identity(), sigma=None)
    with pytest.warns(UserWarning, match=r"a frame folder holds no cover picture \(cover\.jpg\) and attachment"):
        denoise_video(film, tmp_path / "frames", identity(), sigma=None)


def test_other_video_streams_are_said_to_be_left_out(tmp_path):
    angles = with_extras(tmp_path / "two-angles.mkv", videos=2)
    with pytest.warns(UserWarning, match=r"'.*two-angles\.mkv' has 1 more video stream beside the one denoised"):
        out = denoise_video(angles, tmp_path / "out.mkv", identity(), sigma=None).output
    assert extras_of(out)["videos"] == 1


def test_a_raw_stream_takes_its_rate_from_fps_and_says_it_has_none(tmp_path):
    raw = encode(tmp_path / "ch01.264", [picture(k) for k in range(6)], rate=15)  # a DVR's export: no container
    with pytest.warns(
        UserWarning,
        match=r"'.*ch01\.264' is a raw video stream, whose frames carry no timestamps: it is "
        r"read at 25 fps, as ffmpeg reads it; if it was recorded at another rate, give that with --fps$",
    ):
        assumed = denoise_video(raw, tmp_path / "assumed.mp4", identity(), sigma=None).output
    assert frame_times(assumed)[:3] == [0.0, 0.04, 0.08]
    told = denoise_video(raw, tmp_path / "told.mp4", identity(), sigma=None, fps=15).output
    assert frame_times(told) == pytest.approx([k / 15 for k in range(6)])
    filed = encode(tmp_path / "filed.mp4", [picture(k) for k in range(6)], rate=15)  # a container's rate stays
    assert frame_times(denoise_video(filed, None, identity(), sigma=None, fps=30).output) == pytest.approx(
        [k / 15 for k in range(6)]
    )


def test_hdr10_metadata_is_kept_in_mp4_and_ffv1_says_it_cannot(tmp_path):
    hdr = (
        "mastering-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,50):cll=1000,400:"
        "colorprim=bt2020:transfer=smpte2084:colormatrix=bt2020nc"
    )
    frames = [picture(k, peak=65535) for k in range(3)]
    source = encode(
        tmp_path / "hdr.mp4",
        frames,
        pix_fmt="yuv420p10le",
        layout="rgb48le",
        setup=lambda s: setattr(s, "options", {"x264-params": hdr}),
    )
    expected = (0.68, 0.32, 0.265, 0.69, 0.15, 0.06, 0.3127, 0.329, 1000.0, 0.005)  # BT.2020 red … white, cd/m²
    properties = open_video(source).properties()
    assert properties.mastering_display == pytest.approx(expected) and properties.light_level == (1000, 400)
    for format, codec in ((None, "hevc"), ("mp4", "h264")):  # HEVC, the default for 10 bits, and H.264 when asked
        result = denoise_video(source, tmp_path / f"{codec}.mp4", identity(), sigma=None, format=format)
        kept = open_video(result.output).properties()
        assert codec_of(result.output) == codec
        assert kept.mastering_display == pytest.approx(expected) and kept.light_level == (1000, 400)
        assert kept.bit_depth == 10 and kept.color_trc == 16  # SMPTE ST 2084 (PQ), as the colour tags always were
    with pytest.warns(UserWarning, match="FFV1 cannot hold its HDR metadata"):
        denoise_video(source, tmp_path / "out.mkv", identity(), sigma=None, format="lossless")


def test_the_main_video_stream_is_the_one_ffmpeg_picks(tmp_path):
    path = tmp_path / "two.mkv"
    with av.open(str(path), "w") as container:
        preview = container.add_stream("ffv1", rate=25)
        preview.width, preview.height, preview.pix_fmt = 32, 24, "bgr0"
        main = container.add_stream("ffv1", rate=25)
        main.width, main.height, main.pix_fmt = 64, 48, "bgr0"
        for index in range(3):
            for stream, size in ((preview, (24, 32)), (main, (48, 64))):
                frame = av.VideoFrame.from_ndarray(picture(index, *size), format="rgb24")
                frame.pts = index
                for packet in stream.encode(frame):
                    container.mux(packet)
        for stream in (preview, main):
            for packet in stream.encode(None):
                container.mux(packet)
    assert (open_video(path).info.width, open_video(path).info.height) == (64, 48)
    result = denoise_video(path, None, identity(), sigma=None)
    assert (result.width, result.height) == (64, 48)
    preview_only = denoise_video(path, tmp_path / "preview.mkv", identity(), sigma=None, stream=0)
    assert (preview_only.width, preview_only.height) == (32, 24)
    with pytest.raises(VideoReadError, match="has 2 video stream"):
        open_video(path, stream=5)


def test_a_picture_size_that_changes_mid_stream_is_refused_in_one_line(tmp_path):
    joined = size_change_stream(tmp_path / "joined.h264")
    with pytest.raises(VideoReadError, match=r"changes its picture size mid-stream \(64×48 → 48×32"):
        open_video(joined).read()


# ------------------------------------------------------------------------------------------------- timing


def test_variable_frame_rate_keeps_every_timestamp(tmp_path):
    times = [0, 40, 100, 110, 300, 340, 900]  # ms: a phone's irregular frames
    source = vfr_video(tmp_path / "vfr.mkv", times)
    for output, format in (("out.mp4", None), ("out.mkv", None), ("hevc.mp4", "h265")):  # HEVC: B-frames, uneven
        result = denoise_video(source, tmp_path / output, identity(), sigma=None, format=format)
        assert frame_times(result.output) == pytest.approx([t / 1000 for t in times], abs=1e-3)


def test_audio_before_the_first_frame_is_kept_and_stays_in_sync(tmp_path):
    # the video starts 0.48 s after the audio, as a camera's often does
    source = encode(
        tmp_path / "late.mp4", [picture(k) for k in range(12)], pts=[12 + k for k in range(12)], audio_seconds=1.0
    )
    result = denoise_video(source, None, identity(), sigma=None)
    assert result.audio
    assert frame_times(result.output)[0] == pytest.approx(frame_times(source)[0], abs=0.01)
    start, seconds = audio_span(result.output)
    original_start, original_seconds = audio_span(source)
    assert start == pytest.approx(original_start, abs=0.03) and seconds == pytest.approx(original_seconds, abs=0.13)


@pytest.mark.parametrize("codec", ["pcm_mulaw", "pcm_s16le"])
@pytest.mark.parametrize("starts", [0.5, -0.48], ids=["sound after the pictures", "sound before"])
def test_audio_mp4_cannot_hold_or_play_becomes_aac_of_the_same_sound_in_sync(tmp_path, codec, starts):
    # G.711 µ-law and 16-bit PCM, as surveillance cameras record them, in MOV: MP4 holds no µ-law, and holds PCM only
    # as 'ipcm', which few players play; the sound starts about half a second after or before the first picture
    source, rate = tmp_path / "camera.mov", 8000
    tone = (np.sin(2 * np.pi * 440 * np.arange(rate) / rate) * 20000).astype(np.int16)
    with av.open(str(source), "w") as container:
        video = container.add_stream("libx264", rate=25)
        video.width, video.height, video.pix_fmt = 64, 48, "yuv420p"
        audio = container.add_stream(codec, rate=rate, layout="mono")
        for k in range(50):
            picture_k = av.VideoFrame.from_ndarray(picture(k), format="rgb24")
            picture_k.pts = k + (12 if starts < 0 else 0)  # the first picture 0.48 s in, after the sound
            container.mux(video.encode(picture_k))
        sound = av.AudioFrame.from_ndarray(tone[None], format="s16", layout="mono")
        sound.sample_rate, sound.pts = rate, max(0, round(starts * rate))
        container.mux(audio.encode(sound))
        container.mux(audio.encode(None))
        container.mux(video.encode(None))
    kept_by = ".mov" if codec == "pcm_mulaw" else ".mov or .mkv"  # Matroska holds no µ-law
    with pytest.warns(UserWarning, match=f"holds the {codec} audio of '.*' as AAC; an output named {kept_by} keeps it"):
        result = denoise_video(source, None, identity(), sigma=None)
    assert result.audio and result.output.suffix == ".mp4"

    def tone_starts(path: Path) -> float:  # seconds after the first picture
        with av.open(str(path)) as container:
            first_picture = next(container.decode(video=0)).time
        with av.open(str(path)) as container:
            frames = list(container.decode(audio=0))
        scale = 32768 if frames[0].format.name == "s16" else 1
        heard = np.concatenate([frame.to_ndarray().ravel() / scale for frame in frames])
        return frames[0].time + int(np.argmax(np.abs(heard) > 0.2)) / rate - first_picture

    with av.open(str(result.output)) as container:
        assert container.streams.audio[0].codec_context.name == "aac"
    assert tone_starts(result.output) == pytest.approx(tone_starts(source), abs=0.002)
    assert tone_starts(source) == pytest.approx(starts, abs=0.002)
    kept = denoise_video(source, tmp_path / "kept.mov", identity(), sigma=None).output  # MOV plays its own
    with av.open(str(kept)) as container:
        assert container.streams.audio[0].codec_context.name == codec


# -------------------------------------------------------------------------------------------------- storage


def codec_of(path: Path) -> str:
    with av.open(str(path)) as container:
        return container.streams.video[0].codec_context.name


def test_an_input_stored_without_loss_is_written_without_loss_unless_asked_otherwise(tmp_path):
    rng = np.random.default_rng(0)
    frames = [rng.integers(0, 256, (48, 64, 3), dtype=np.uint8) for _ in range(3)]  # grain H.264 cannot keep
    stored = torch.stack([torch.from_numpy(f).permute(2, 0, 1) for f in frames]).float() / 255
    ffv1 = encode(tmp_path / "scan.mkv", frames, codec="ffv1", pix_fmt="bgr0")
    folder = tmp_path / "pngs"
    folder.mkdir()
    for index, image in enumerate(frames):
        cv2.imwrite(str(folder / f"{index:03d}.png"), image[:, :, ::-1])
    for source, name in ((ffv1, "scan.denoised.mkv"), (folder, "pngs.denoised.mkv")):
        assert open_video(source).info.lossless
        result = denoise_video(source, None, identity(), sigma=None)
        assert result.output == tmp_path / name and codec_of(result.output) == "ffv1"
        assert torch.equal(open_video(result.output).read(), stored)  # every value kept
    # an .mkv path keeps it lossless; an .mp4 path or --format mp4 asks for H.264, which loses the grain
    assert codec_of(denoise_video(ffv1, tmp_path / "named.mkv", identity(), sigma=None).output) == "ffv1"
    for output, format in ((tmp_path / "named.mp4", None), (None, "mp4")):
        result = denoise_video(ffv1, output, identity(), sigma=None, format=format)
        assert result.output.suffix == ".mp4" and codec_of(result.output) == "h264"
        assert (open_video(result.output).read() - stored).abs().mean() > 2 / 255
    # a lossy input (H.264, JPEG frames) is written as before: NAME.denoised.mp4, and H.264 in an .mkv path
    jpegs = tmp_path / "jpegs"
    jpegs.mkdir()
    cv2.imwrite(str(jpegs / "000.jpg"), frames[0])
    cv2.imwrite(str(jpegs / "001.png"), frames[1])
    h264 = encode(tmp_path / "phone.mp4", frames)
    for source, name in ((h264, "phone.denoised.mp4"), (jpegs, "jpegs.denoised.mp4")):
        assert not open_video(source).info.lossless
        result = denoise_video(source, None, identity(), sigma=None)
        assert result.output == tmp_path / name and codec_of(result.output) == "h264"
    assert codec_of(denoise_video(h264, tmp_path / "phone.mkv", identity(), sigma=None).output) == "h264"


@pytest.mark.parametrize("pix_fmt", ["yuv420p", "yuv422p", "yuv444p", "yuv422p10le"])
def test_h264_keeps_the_inputs_chroma_subsampling(tmp_path, pix_fmt):
    """Rows alternately red and blue: 4:2:2 and 4:4:4 hold them, 4:2:0 (half the chroma rows) turns them purple."""
    peak = 1023 if "10" in pix_fmt else 255
    rows = np.where(np.arange(48)[:, None, None] % 2 == 0, [0.8, 0.15, 0.15], [0.15, 0.15, 0.8])
    stripes = np.round(np.broadcast_to(rows, (48, 64, 3)) * peak).astype(np.uint16 if peak > 255 else np.uint8)
    layout = "rgb48le" if peak > 255 else "rgb24"
    scale = 64 if peak > 255 else 1  # rgb48le holds 16 bits
    source = encode(tmp_path / "pro.mp4", [stripes * scale] * 3, pix_fmt=pix_fmt, layout=layout)
    assert open_video(source).properties().chroma == {"yuv420p": (2, 2), "yuv444p": (1, 1)}.get(pix_fmt, (2, 1))
    result = denoise_video(source, None, identity(), sigma=None)
    with av.open(str(result.output)) as container:
        assert container.streams.video[0].codec_context.pix_fmt == pix_fmt
    stored = open_video(source).read()
    assert (open_video(result.output).read() - stored).abs().mean() < 0.03  # 4:2:0 output: 0.23-0.24
    if pix_fmt != "yuv420p":
        assert (stored[:, 0, 0::2] - stored[:, 0, 1::2]).mean() > 0.5


def test_h264_chroma_is_the_mean_of_the_pixels_it_covers(tmp_path):
    """Written at 4:2:0, each chroma sample is the mean of its 2×2 pixels' chroma (what reading repeats it over, and
    the least-squares choice for it), not libswscale's default bilinear taps, which reach into the next block."""
    rng = np.random.default_rng(5)
    image = rng.integers(0, 256, (32, 48, 3), dtype=np.uint8)
    frames = torch.from_numpy(np.stack([image] * 2)).permute(0, 3, 1, 2).float() / 255
    path = write_video(tmp_path / "out.mp4", frames, fps=25, codec="h264", crf=0, properties=VideoProperties())
    with av.open(str(path)) as container:
        assert container.streams.video[0].codec_context.pix_fmt == "yuv420p"
        planar = next(container.decode(video=0)).to_ndarray()  # Y over U over V, each chroma plane 16×24
    full = av.VideoFrame.from_ndarray(image, format="rgb24").reformat(format="yuv444p").to_ndarray().astype(float)
    assert np.array_equal(planar[:32], full[0])  # CRF 0 is lossless: luma as converted
    for plane, chroma in zip(planar[32:].reshape(2, 16, 24), full[1:]):
        assert np.abs(plane - chroma.reshape(16, 2, 24, 2).mean(axis=(1, 3))).max() <= 0.75  # the mean, rounded


# -------------------------------------------------------------------------------------- precision and alpha


def planes_file(path: Path, luma: np.ndarray, chroma: tuple[int, int] | np.ndarray = (128, 128)) -> Path:
    """Two pictures of these 8-bit 4:2:0 planes (luma H × W; chroma two values, or two H/2 × W/2 planes), stored
    without loss (libx264 at CRF 0)."""
    height, width = luma.shape
    u, v = (np.full((height // 2, width // 2), value, np.uint8) for value in chroma) if len(chroma) == 2 else chroma
    planes = np.concatenate([luma.ravel(), u.ravel(), v.ravel()]).reshape(height * 3 // 2, width, 1)

    def lossless(stream):  # the planes stack Y over U over V: the picture is two thirds of their height
        stream.height, stream.options = height, {"crf": "0"}

    return encode(path, [planes] * 2, layout="yuv420p", setup=lossless)


def test_the_readers_conversion_to_rgb_can_round_exactly(tmp_path, monkeypatch):
    """libswscale's default path, which `clean` reads with, puts half of a grey ramp's 4:2:0 pixels one level off;
    the setting that trials switch (`RGB_CONVERSION`) rounds each exactly: round((Y − 16) · 255 / 219), and a flat
    colour patch as BT.601's matrix gives it."""
    from videodenoise.io import pyav_reader

    levels = np.arange(16, 236, dtype=np.uint8)
    ramp = np.ascontiguousarray(np.repeat(np.repeat(levels[None, :], 8, axis=0), 2, axis=1))
    path = planes_file(tmp_path / "ramp.mp4", ramp)
    expected = np.broadcast_to(np.round((ramp.astype(np.float64) - 16) * 255 / 219), (3, *ramp.shape))
    missed = (open_video(path).read(0, 1)[0] * 255).round().numpy() != expected
    assert 0.4 < missed.mean() < 0.6  # the default path
    monkeypatch.setattr(pyav_reader, "RGB_CONVERSION", ("BICUBIC", "ACCURATE_RND", "FULL_CHR_H_INT"))
    assert np.array_equal((open_video(path).read(0, 1)[0] * 255).round().numpy(), expected)
    y, cb, cr = 120, 90, 170  # a flat orange: every pixel the same, far from the edges' interpolation
    flat = open_video(planes_file(tmp_path / "flat.mp4", np.full((32, 32), y, np.uint8), (cb, cr))).read(0, 1)[0]
    luma, blue, red = (y - 16) * 255 / 219, (cb - 128) * 255 / 224, (cr - 128) * 255 / 224
    rgb = [luma + 1.402 * red, luma - 0.344136 * blue - 0.714136 * red, luma + 1.772 * blue]
    assert flat.mul(255).round().amax(dim=(1, 2)).tolist() == flat.mul(255).round().amin(dim=(1, 2)).tolist()
    assert flat[:, 0, 0].mul(255).round().tolist() == [round(value) for value in rgb]


def test_ten_bit_video_comes_out_ten_bit_in_hevc_that_players_play(tmp_path, capsys, monkeypatch, weights):
    """By default (and for an .mp4, .mov or .mkv it is given) a 10-bit input comes out in HEVC's Main 10, tagged hvc1
    in MP4 and MOV as QuickTime asks, not H.264's High 10, which few players play; --format mp4 still gives that."""
    frames = [picture(k, peak=65535) for k in range(3)]
    source = encode(tmp_path / "ten.mp4", frames, pix_fmt="yuv420p10le", layout="rgb48le", audio_seconds=0.2)
    info = open_video(source).info
    assert info.bit_depth == 10 and info.has_audio  # the audio is copied in after: the video's tag must survive it
    stored = open_video(source).read()
    assert len(torch.unique(stored[0])) > 256  # read at its own precision
    arms = [  # output, format, codec, profile, tag, pixel format
        (None, None, "hevc", "Main 10", "hvc1", "yuv420p10le"),
        ("out.mov", None, "hevc", "Main 10", "hvc1", "yuv420p10le"),
        ("out.mkv", None, "hevc", "Main 10", None, "yuv420p10le"),
        ("h264.mp4", "mp4", "h264", "High 10", "avc1", "yuv420p10le"),
        ("out.mkv", "lossless", "ffv1", None, None, "gbrp10le"),
    ]
    for output, format, codec, profile, tag, pix_fmt in arms:
        output = None if output is None else tmp_path / output
        result = denoise_video(source, output, identity(), sigma=None, format=format, overwrite=True)
        assert result.output == (output or tmp_path / "ten.denoised.mp4")
        container, stream = first_stream(result.output)
        with container:
            context = stream.codec_context
            assert (context.name, context.pix_fmt) == (codec, pix_fmt)
            assert profile is None or context.profile == profile
            assert tag is None or stream.codec_tag == tag
        decoded = open_video(result.output).read()
        assert len(torch.unique(decoded[0])) > 256
        assert (decoded - stored).abs().mean() < 0.01
    code, out, err = run_cli(["clean", source, "--checkpoint", weights, "--overwrite"], capsys, monkeypatch)
    assert code == 0 and f"wrote {tmp_path / 'ten.denoised.mp4'} (HEVC, as its input has 10 bits):" in out, err
    eight = encode(tmp_path / "eight.mp4", [picture(k) for k in range(3)])  # 8 bits: H.264, which every player plays
    assert codec_of(denoise_video(eight, None, identity(), sigma=None).output) == "h264"
    result = denoise_video(eight, tmp_path / "asked.mp4", identity(), sigma=None, format="h265")
    container, stream = first_stream(result.output)
    with container:
        assert (stream.codec_context.name, stream.codec_context.profile, stream.codec_tag) == ("hevc", "Main", "hvc1")


@pytest.mark.filterwarnings("ignore:.*is denoised as whole frames")
def test_an_interlaced_ten_bit_input_stays_h264_which_codes_its_fields(tmp_path):
    params = {"x264-params": "interlaced=1:tff=1"}
    frames = [picture(k, peak=65535) for k in range(4)]
    setup = lambda stream: setattr(stream, "options", params)  # noqa: E731
    source = encode(tmp_path / "broadcast.mp4", frames, pix_fmt="yuv420p10le", layout="rgb48le", setup=setup)
    result = denoise_video(source, None, identity(), sigma=None)
    kept = open_video(result.output).properties()
    assert codec_of(result.output) == "h264" and kept.field_order == 2 and kept.bit_depth == 10
    with pytest.warns(
        UserWarning, match=r"HEVC cannot hold its interlacing \(top field first; --format mp4 keeps it\)"
    ):
        asked = denoise_video(source, tmp_path / "asked.mp4", identity(), sigma=None, format="h265")
    assert codec_of(asked.output) == "hevc" and not open_video(asked.output).properties().interlaced


def test_sixteen_bit_png_frames_stay_sixteen_bit(tmp_path):
    folder = tmp_path / "scan"
    folder.mkdir()
    for index in range(3):
        cv2.imwrite(str(folder / f"{index:03d}.png"), picture(index, peak=65535)[:, :, ::-1])
    result = denoise_video(folder, tmp_path / "out", identity(), sigma=None)
    written = cv2.imread(str(sorted(result.output.iterdir())[0]), cv2.IMREAD_UNCHANGED)
    original = cv2.imread(str(folder / "000.png"), cv2.IMREAD_UNCHANGED)
    assert written.dtype == np.uint16 and np.abs(written.astype(int) - original).max() <= 1


@pytest.mark.parametrize("output", ["out.mkv", "out"])
def test_alpha_is_carried_through_untouched(tmp_path, output):
    frames = [
        np.concatenate([picture(k), (np.arange(64)[None, :, None] * 4 * np.ones((48, 1, 1))).astype(np.uint8)], axis=2)
        for k in range(3)
    ]
    source = encode(tmp_path / "logo.mkv", frames, codec="ffv1", pix_fmt="bgra", layout="rgba")
    reader = open_video(source)
    assert reader.info.alpha and reader.info.channels == 3 and reader.read().shape[1] == 3  # models see RGB
    result = denoise_video(
        source, tmp_path / output, identity(), sigma=None, format="lossless" if output.endswith(".mkv") else None
    )
    back = next(open_video(result.output).timed_frames())[0]
    assert back.shape[0] == 4
    assert torch.equal(back[3], torch.from_numpy(frames[0][:, :, 3]).float() / 255)


def test_a_format_that_cannot_hold_alpha_says_so_in_one_line(tmp_path):
    frames = [np.concatenate([picture(k), np.full((48, 64, 1), 200, np.uint8)], axis=2) for k in range(2)]
    source = encode(tmp_path / "logo.mkv", frames, codec="ffv1", pix_fmt="bgra", layout="rgba")
    with pytest.warns(UserWarning, match=r"H\.264 cannot hold the alpha channel of the input: .*\(--format lossless"):
        result = denoise_video(source, tmp_path / "flat.mp4", identity(), sigma=None)
    assert not open_video(result.output).info.alpha


def test_hevc_keeps_ten_bits_of_twelve_and_no_alpha_and_says_so_in_one_line(tmp_path):
    frames = [np.concatenate([picture(k, peak=65535), np.full((48, 64, 1), 50000, np.uint16)], axis=2) for k in (0, 1)]
    source = encode(tmp_path / "master.mkv", frames, codec="ffv1", pix_fmt="gbrap12le", layout="rgba64le")
    assert (open_video(source).info.bit_depth, open_video(source).info.alpha) == (12, True)
    said = r"HEVC cannot hold the alpha channel and 12-bit precision \(it keeps 10 bits\) of the input: "
    with pytest.warns(UserWarning, match=said):
        result = denoise_video(source, tmp_path / "master.mp4", identity(), sigma=None, format="h265")
    info = open_video(result.output).info
    assert codec_of(result.output) == "hevc" and (info.bit_depth, info.alpha) == (10, False)


# -------------------------------------------------------------------------------------------- names and batches


@pytest.fixture(scope="module")
def weights(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("weights") / "dust.safetensors"
    save_model(build_model("dust", layers=2, patch_size=4, stride=2), path)
    return path


def test_names_a_shell_user_has_work(tmp_path, capsys, monkeypatch, weights):
    clip = torch.rand(3, 3, 16, 16)
    timed = write_video(tmp_path / "12:30:00.mp4", clip)
    long_name = write_video(tmp_path / ("x" * 240 + ".mp4"), clip)  # 244 bytes: as long as names go, nearly
    code, out, err = run_cli(
        ["clean", timed, long_name, "--checkpoint", weights, "--sigma", "5", "--quiet"], capsys, monkeypatch
    )
    assert code == 0, err
    assert (tmp_path / "12:30:00.denoised.mp4").is_file()
    (made,) = [p for p in tmp_path.iterdir() if p.name.startswith("xxx") and p.name.endswith(".denoised.mp4")]
    assert len(made.name.encode()) <= 255 and open_video(made).info.n_frames == 3
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_no_output_of_a_batch_may_be_one_of_its_inputs(tmp_path, capsys, monkeypatch, weights):
    first = write_video(tmp_path / "a.mp4", torch.rand(3, 3, 16, 16))
    second = write_video(tmp_path / "a.denoised.mp4", torch.rand(3, 3, 16, 16))  # another video, named like it
    before = {path.name: path.read_bytes() for path in (first, second)}
    code, out, err = run_cli(
        ["clean", first, second, "--overwrite", "--checkpoint", weights, "--sigma", "5"], capsys, monkeypatch
    )
    assert code == 1 and "is another input of this batch" in err and err.count("\n") == 1
    assert {path.name: path.read_bytes() for path in (first, second)} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.denoised.mp4", "a.mp4"]


def test_temporaries_of_dead_runs_are_removed_and_live_ones_kept(tmp_path):
    source = write_video(tmp_path / "in.mp4", torch.rand(3, 3, 16, 16))
    target = tmp_path / "in.denoised.mp4"
    dead = temporary_name(target, pid=2**22 + 12345)  # no such process
    alive = temporary_name(target, pid=os.getppid())
    other = tmp_path / ".unrelated.partial-1.mp4"
    for path in (dead, alive, other):
        path.write_bytes(b"left behind")
    denoise_video(source, target, identity(), sigma=None)
    assert target.is_file() and not dead.exists() and alive.exists() and other.exists()


def test_long_names_get_short_temporaries(tmp_path):
    target = tmp_path / ("y" * 250 + ".mp4")
    assert len(temporary_name(target).name.encode()) <= 255
    assert temporary_name(target).suffix == ".mp4" and temporary_name(target).name.startswith(".")


def test_a_window_longer_than_any_video_is_refused(tmp_path):
    with pytest.raises(DenoiseError, match="from 1 to 64 frames"):
        DenoiseSettings(window=100_000)

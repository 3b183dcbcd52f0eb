"""SMPTE timecodes moved on by frames (`videodenoise.io.timecode`), and a camera's timecode kept by `clean`: in MP4
(a timecode track) and Matroska (a tag), moved to an excerpt's first frame, and said to be lost by a PNG folder."""

from __future__ import annotations

from fractions import Fraction

import pytest

from videodenoise.denoise.pipeline import denoise_video
from videodenoise.io.excerpt import Span
from videodenoise.io.timecode import advance_timecode
from videodenoise.io.video import open_video

from helpers import encode, identity, picture

NTSC, NTSC_DOUBLE = Fraction(30000, 1001), Fraction(60000, 1001)


@pytest.mark.parametrize(
    ("timecode", "frames", "rate", "moved"),
    [
        ("10:00:00:00", 10, Fraction(25), "10:00:00:10"),
        ("00:59:59:24", 1, Fraction(25), "01:00:00:00"),
        ("23:59:59:24", 2, Fraction(25), "00:00:00:01"),  # past midnight, as a clock
        ("01:00:00:00", 24, Fraction(24000, 1001), "01:00:01:00"),  # 23.976 counts 24 a second
        ("00:00:59;29", 1, NTSC, "00:01:00;02"),  # drop-frame: ;00 and ;01 skipped at each minute…
        ("00:09:59;29", 1, NTSC, "00:10:00;00"),  # …but each tenth
        ("00:00:00;00", 17982, NTSC, "00:10:00;00"),  # 10 minutes of 29.97 are 17,982 frames
        ("00:00:59.59", 1, NTSC_DOUBLE, "00:01:00.04"),  # 59.94 skips four
    ],
)
def test_a_timecode_moves_on_as_a_camera_counts(timecode, frames, rate, moved):
    assert advance_timecode(timecode, frames, rate) == moved


def test_drop_frame_numbering_one_frame_at_a_time_matches_the_count():
    timecode, labels = "00:00:00;00", set()
    for count in range(1, 20_001):
        timecode = advance_timecode(timecode, 1, NTSC)
        assert timecode == advance_timecode("00:00:00;00", count, NTSC)
        minute, second, frame = int(timecode[3:5]), int(timecode[6:8]), int(timecode[9:])
        assert not (second == 0 and frame < 2 and minute % 10)  # the skipped numbers never appear
        labels.add(timecode)
    assert len(labels) == 20_000


@pytest.mark.parametrize(
    ("timecode", "rate"),
    [("10:00:00", Fraction(25)), ("10:00:00:25", Fraction(25)), ("00:00:00;00", Fraction(25)), ("x", Fraction(25))],
)
def test_a_timecode_that_cannot_be_read_gives_none(timecode, rate):
    assert advance_timecode(timecode, 1, rate) is None


def test_a_cameras_timecode_is_kept_and_an_excerpt_starts_at_its_own(tmp_path):
    source = encode(
        tmp_path / "pro.mov",
        [picture(k) for k in range(12)],
        setup=lambda s: s.metadata.update(timecode="10:00:00:00"),
        audio_seconds=0.6,  # the audio is muxed in afterwards: the timecode must survive that too
    )
    assert open_video(source).properties().timecode == "10:00:00:00"
    for output, format in (("out.mp4", None), ("out.mkv", "lossless")):
        result = denoise_video(source, tmp_path / output, identity(), sigma=None, format=format)
        assert open_video(result.output).properties().timecode == "10:00:00:00"
    excerpt = denoise_video(source, tmp_path / "cut.mp4", identity(), sigma=None, span=Span.parse("0.4", None))
    assert open_video(excerpt.output).properties().timecode == "10:00:00:10"  # 25 frames a second: frame 10
    with pytest.warns(UserWarning, match=r"a PNG frame folder cannot hold .*its timecode \(10:00:00:00\)"):
        denoise_video(source, tmp_path / "frames", identity(), sigma=None, keep_audio=False)
    plain = encode(tmp_path / "phone.mp4", [picture(k) for k in range(3)])
    assert open_video(denoise_video(plain, None, identity(), sigma=None).output).properties().timecode is None

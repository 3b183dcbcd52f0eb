"""`clean --start --duration`: an excerpt of a video denoised as a video of its own (`videodenoise.io.excerpt`):
which frames, their timestamps, the audio that goes with them, the same pixels as the whole run where the
excerpt's ends are out of reach, and one-line errors."""

from __future__ import annotations

import av
import numpy as np
import pytest
import torch

from videodenoise.denoise.denoiser import Denoiser
from videodenoise.denoise.pipeline import denoise_video, stream_pairs
from videodenoise.denoise.settings import DenoiseSettings, FusionSettings
from videodenoise.errors import DenoiseError
from videodenoise.io.excerpt import Excerpt, Span, parse_time
from videodenoise.io.video import open_video
from videodenoise.models.registry import build_model

from helpers import audio_span, encode, frame_times, identity, picture, randomise, run_cli, vfr_video


@pytest.mark.parametrize(
    "text, seconds", [("90", 90), ("1.5", 1.5), (".5", 0.5), ("1:30", 90), ("01:02:03.5", 3723.5), (" 2 ", 2)]
)
def test_times_read_as_ffmpeg_writes_them(text, seconds):
    assert parse_time(text, "--start") == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["abc", "-1", "1:75", "1::2", "1:2:3:4", ""])
def test_a_time_that_is_not_one_is_refused_naming_the_option(text):
    with pytest.raises(DenoiseError, match="--duration"):
        parse_time(text, "--duration")


def test_a_span_from_the_options():
    assert Span.parse(None, None) is None and Span.parse("0", None) is None  # the whole video, its audio too
    assert Span.parse("1:00", None) == Span(60.0, None)
    assert Span.parse(None, "2.5") == Span(0.0, 2.5)
    with pytest.raises(DenoiseError, match="--duration must be longer than 0"):
        Span.parse("1", "0")


def test_an_excerpt_of_a_frame_folder_is_its_frames_by_the_folders_rate(tmp_path):
    folder = tmp_path / "frames"
    folder.mkdir()
    for k in range(20):
        av.VideoFrame.from_ndarray(picture(k), format="rgb24").to_image().save(folder / f"{k:03d}.png")
    source = open_video(folder, fps=10)
    excerpt = Excerpt.of(source, Span(0.5, 1.0))
    assert len(excerpt) == 10 and excerpt.info.n_frames == 10
    assert torch.equal(excerpt.read(), source.read(5, 10))
    assert torch.equal(excerpt.read(3, 2), source.read(8, 2))
    assert excerpt.covers == pytest.approx((0.5, 1.5))
    assert Excerpt.of(source, Span(1.55, 100)).covers == pytest.approx((1.6, 2.0))  # the frames it has
    assert excerpt.frame_times() == pytest.approx([k / 10 for k in range(10)])
    runs = list(excerpt.runs([0, 7], 3))  # σ auto's frame pairs: the last run stops at the excerpt's end
    assert [len(run) for run in runs] == [3, 3]
    assert torch.equal(torch.stack(runs[1]), source.read(12, 3))
    assert len(list(Excerpt.of(source, Span(1.5)).frames())) == 5  # to the end


def test_a_variable_rate_excerpt_takes_the_frames_shown_in_it_and_keeps_their_spacing(tmp_path):
    times = [0, 40, 100, 110, 300, 340, 600, 900]  # ms, a phone's irregular frames
    source = vfr_video(tmp_path / "vfr.mkv", times)
    reader = open_video(source)
    excerpt = Excerpt.of(reader, Span(0.1, 0.25))  # [100, 350) ms: the frames at 100, 110, 300 and 340
    assert len(excerpt) == 4
    assert torch.equal(excerpt.read(), reader.read(2, 4))  # lossless: the very pixels
    assert [pts for _, pts in excerpt.timed_frames()] == [0, 10, 200, 240]
    result = denoise_video(source, tmp_path / "out.mkv", identity(), sigma=None, span=Span(0.1, 0.25))
    assert result.frames == 4
    assert frame_times(result.output) == pytest.approx([0, 0.01, 0.2, 0.24], abs=1e-3)


def test_the_audio_is_cut_to_the_excerpt_and_stays_in_sync(tmp_path):
    # a clip of 30 frames at 10 fps whose brightness climbs, with a second of silence, a beep, silence
    rate = 8000
    source = encode(tmp_path / "beep.mp4", [np.full((48, 64, 3), 8 * k, np.uint8) for k in range(30)], rate=10)
    samples = np.zeros(3 * rate, np.float32)
    samples[int(1.5 * rate) : int(1.6 * rate)] = 0.5 * np.sin(2 * np.pi * 440 * np.arange(int(0.1 * rate)) / rate)
    with_audio = tmp_path / "beep-audio.mp4"
    with av.open(str(source)) as video, av.open(str(with_audio), "w") as out:
        out_video = out.add_stream_from_template(video.streams.video[0])
        audio = out.add_stream("aac", rate=rate, layout="mono")
        for packet in video.demux(video.streams.video[0]):
            if packet.size:
                packet.stream = out_video
                out.mux(packet)
        for start in range(0, len(samples), 1024):
            chunk = av.AudioFrame.from_ndarray(samples[None, start : start + 1024].copy(), format="fltp", layout="mono")
            chunk.sample_rate, chunk.pts = rate, start
            out.mux(audio.encode(chunk))
        out.mux(audio.encode(None))

    result = denoise_video(with_audio, tmp_path / "part.mp4", identity(), sigma=None, span=Span(1.0, 1.5))
    assert result.frames == 15 and result.audio
    with av.open(str(result.output)) as container:
        levels = [frame.to_ndarray(format="gray").mean() for frame in container.decode(video=0)]
    assert levels[0] == pytest.approx(80, abs=3) and levels[-1] == pytest.approx(8 * 24, abs=3)  # frames 10 to 24
    assert frame_times(result.output)[0] == pytest.approx(0, abs=1e-3)
    start, seconds = audio_span(result.output)
    assert 0 <= start < 0.13 and seconds == pytest.approx(1.5, abs=0.13)  # cut at packets of 1024 samples
    with av.open(str(result.output)) as container:
        sound = np.concatenate([frame.to_ndarray()[0] for frame in container.decode(audio=0)])
    loudest = start + np.argmax(np.abs(sound)) / rate
    assert loudest == pytest.approx(0.55, abs=0.07)  # the beep at 1.5-1.6 s of the source, now 0.5-0.6 s


def test_an_excerpt_of_a_video_that_starts_after_its_audio_starts_where_the_video_did(tmp_path):
    # the video's first frame at 0.48 s, as a camera's often is; --start counts from it
    source = encode(
        tmp_path / "late.mp4", [picture(k) for k in range(25)], pts=[12 + k for k in range(25)], audio_seconds=1.5
    )
    result = denoise_video(source, tmp_path / "part.mp4", identity(), sigma=None, span=Span(0.2, 0.4))
    assert result.frames == 10
    assert frame_times(result.output)[0] == pytest.approx(0.48, abs=0.01)
    start, seconds = audio_span(result.output)
    assert start == pytest.approx(0.48, abs=0.13) and seconds == pytest.approx(0.4, abs=0.13)


def test_the_middle_of_an_excerpt_is_denoised_as_in_the_whole_video():
    # with fusion the model's windows are disjoint, counted from the first frame: an excerpt that starts on a
    # window's boundary has the same windows, and those its ends do not reach (fusion's radius) come out the same
    torch.manual_seed(0)
    clip = (torch.rand(1, 1, 48, 64).expand(24, 1, 48, 64) + 0.1 * torch.randn(24, 1, 48, 64)).clamp(0, 1)
    model = randomise(build_model("dust", channels=1, layers=2))
    denoiser = Denoiser(model, DenoiseSettings(device="cpu", tile=0, window=5, fusion=FusionSettings(radius=2)))
    whole = [denoised for _, denoised in stream_pairs(denoiser, iter(clip), 0.1)]
    part = [denoised for _, denoised in stream_pairs(denoiser, iter(clip[5:20]), 0.1)]
    for k in range(5, 10):  # the excerpt's second window, frames 10-14 of the whole
        torch.testing.assert_close(part[k], whole[5 + k])
    assert not torch.allclose(part[0], whole[5])  # at its ends the neighbours are reflected, as at a video's


def test_clean_refuses_an_excerpt_outside_the_video_in_one_line(tmp_path, capsys, monkeypatch):
    source = encode(tmp_path / "short.mp4", [picture(k) for k in range(10)], rate=10)  # frames at 0 … 0.9 s
    code, _, err = run_cli(["clean", source, "--start", "5", "--sigma", "10"], capsys, monkeypatch)
    assert code == 1 and "is after the last frame of" in err and "choose an earlier start" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    code, _, err = run_cli(["clean", source, "--start", "0.31", "--duration", "0.05"], capsys, monkeypatch)
    assert code == 1 and "has no frame from 0.31 s to 0.36 s" in err and "lengthen --duration" in err
    code, _, err = run_cli(["clean", source, "--start", "1:99"], capsys, monkeypatch)
    assert code == 1 and "seconds of a clock time must be under 60" in err
    assert not list(tmp_path.glob("*denoised*"))


def test_clean_writes_the_excerpt(tmp_path, capsys, monkeypatch):
    source = encode(tmp_path / "clip.mp4", [picture(k) for k in range(20)], rate=10)
    code, out, err = run_cli(
        ["clean", source, "--start", "0:00.5", "--duration", "1", "--sigma", "10"], capsys, monkeypatch
    )
    assert code == 0, err
    assert "clip.denoised.mp4 (0.50 s to 1.50 s of the input): 10 frames" in out
    output = tmp_path / "clip.denoised.mp4"
    assert len(frame_times(output)) == 10 and frame_times(output)[0] == pytest.approx(0, abs=1e-3)

"""A long output is written in pieces, and an interrupted `clean` goes on where it stopped with the frames an
uninterrupted run gives (`videodenoise.io.pieces`, `videodenoise.denoise.pipeline`). Pieces of 12 frames here, so
that a clip of a few dozen frames has several."""

from __future__ import annotations

import dataclasses
import json
import os
from fractions import Fraction
from pathlib import Path

import av
import numpy as np
import pytest
import skimage.data
import torch

import videodenoise.denoise.pipeline as pipeline
import videodenoise.denoise.resume as resume
from videodenoise.denoise.camera_bias import GammaBias
from videodenoise.denoise.denoiser import Denoiser
from videodenoise.denoise.pipeline import denoise_video
from videodenoise.denoise.settings import PRESETS, DenoiseSettings, FusionSettings
from videodenoise.errors import OutputError, VideoReadError
from videodenoise.io.pieces import Pieces, pieces_folder
from videodenoise.noise.camera import CameraNoise

from helpers import Identity, encode, identity, picture, run_cli, size_change_stream

PIECE = 12


@pytest.fixture(autouse=True)
def short_pieces(monkeypatch):
    monkeypatch.setattr(pipeline, "PIECE_FRAMES", PIECE)


class Interrupted(KeyboardInterrupt):
    pass


def stop_after(frames: int):
    """A progress callback that interrupts the run once `frames` frames are written, as Ctrl-C would."""

    def progress(done, total):
        if done == frames:
            raise Interrupted()

    return progress


def pan(path: Path, frames: int, interlaced: bool = False, **options) -> Path:
    """A noisy pan across the astronaut picture (real texture, so σ auto's camera step decides on the first frame),
    as H.264 in MP4 (`interlaced`: coded interlaced, top field first, as a DVR's), at the uneven times a phone
    records (milliseconds apart: 30-49)."""
    rng = np.random.default_rng(1)
    picture = skimage.data.astronaut()[100:180, 40:300].astype(float)
    clip = [np.clip(picture[:, k : k + 96] + rng.normal(0, 10, (80, 96, 3)), 0, 255) for k in range(frames)]
    times = [int(t) for t in np.cumsum(rng.integers(30, 50, frames))]
    clip = [image.astype(np.uint8) for image in clip]
    setup = keep_the_noise if not interlaced else lambda stream: keep_the_noise(stream, "interlaced=1:tff=1")
    return encode(path, clip, pts=times, time_base=Fraction(1, 1000), setup=setup, **options)


def keep_the_noise(stream, params: str | None = None) -> None:
    stream.options = {"crf": "12"} | ({"x264-params": params} if params else {})  # x264's CRF 23 takes most of it


def decoded(path: Path) -> tuple[np.ndarray, list[int]]:
    with av.open(str(path)) as container:
        frames = list(container.decode(video=0))
        return np.stack([frame.to_ndarray(format="rgb24") for frame in frames]), [frame.pts for frame in frames]


@pytest.fixture(scope="module")
def fast():
    return Denoiser.from_preset("fast")


def test_an_interrupted_run_goes_on_to_the_frames_of_an_uninterrupted_one(tmp_path, fast, monkeypatch):
    source = pan(tmp_path / "phone.mp4", 70, audio_seconds=2.5)
    whole = denoise_video(source, tmp_path / "whole.mkv", fast, format="lossless").output
    assert not pieces_folder(whole).exists()  # joined, and the pieces gone
    decisions = []
    with pytest.raises(Interrupted):
        denoise_video(source, tmp_path / "out.mkv", fast, format="lossless", progress=stop_after(62))
    folder = pieces_folder(tmp_path / "out.mkv")
    assert sorted(p.name for p in folder.iterdir()) == ["job.json"] + [f"output-{i:06d}.mkv" for i in range(5)]
    assert not (tmp_path / "out.mkv").exists()
    said = []
    resumed = denoise_video(
        source, tmp_path / "out.mkv", fast, format="lossless", on_resume=said.append, on_camera_bias=decisions.append
    )
    assert said == [
        f"going on from frame 60 of 70: the frames before it are in the pieces an interrupted run left in '{folder}'"
    ]
    assert len(decisions) <= 1  # said once, as by an uninterrupted run (when the step is made)
    assert resumed.frames == 70 and resumed.resumed == 60 and not folder.exists()
    (expected, times), (got, got_times) = decoded(whole), decoded(resumed.output)
    assert got_times == times and np.array_equal(got, expected)  # the same frames, to the bit
    with av.open(str(resumed.output)) as container:
        assert len(container.streams.audio) == 1
    # the test can fail: a stream started at the first frame kept sees its neighbours before it reflected
    monkeypatch.setattr(pipeline, "resume_context", lambda settings: 0)
    with pytest.raises(Interrupted):
        denoise_video(source, tmp_path / "short.mkv", fast, format="lossless", progress=stop_after(62))
    short = denoise_video(source, tmp_path / "short.mkv", fast, format="lossless").output
    assert not np.array_equal(decoded(short)[0], expected)


def camera_pan(path: Path, frames: int) -> Path:
    """The astronaut pan under heavy camera noise (shot and read noise in linear light, through the gamma), stored
    without loss: noise skewed as a gamma skews it, so that σ auto's camera step is made."""
    picture = torch.from_numpy(skimage.data.astronaut()[100:180, 40:300].copy()).permute(2, 0, 1).float() / 255
    clean = torch.stack([picture[:, :, k : k + 96] for k in range(frames)])
    camera = CameraNoise(a=0.02, b=0.001, spread=0.0, mix=0.0, codec="none")
    noisy = camera(clean, generator=torch.Generator().manual_seed(0))
    return encode(path, [frame.permute(1, 2, 0).mul(255).round().byte().numpy() for frame in noisy], "ffv1", "bgr0")


@pytest.mark.parametrize("noise", ["gaussian", "camera"])
def test_a_run_going_on_takes_up_the_camera_step_the_first_run_decided(tmp_path, fast, monkeypatch, noise):
    source = pan(tmp_path / "phone.mp4", 70) if noise == "gaussian" else camera_pan(tmp_path / "phone.mkv", 70)
    said = []
    whole = denoise_video(source, tmp_path / "whole.mkv", fast, format="lossless", on_camera_bias=said.append)
    with pytest.raises(Interrupted):  # the stream goes on from frame 20: the decision, on frame 0, is long made
        denoise_video(source, tmp_path / "out.mkv", fast, format="lossless", progress=stop_after(62))
    notes = json.loads((pieces_folder(tmp_path / "out.mkv") / "job.json").read_text())["notes"]
    assert notes["camera_gamma"]["frame"] == 0 and notes["camera_gamma"]["made"] == bool(said) == (noise == "camera")
    fitted = []
    monkeypatch.setattr(
        GammaBias, "_fit", lambda self, *frames, fit=GammaBias._fit: fitted.append(1) or fit(self, *frames)
    )
    again = []
    resumed = denoise_video(source, tmp_path / "out.mkv", fast, format="lossless", on_camera_bias=again.append)
    assert not fitted  # taken up, not decided again on the first frames
    assert [bias.describe() for bias in again] == [bias.describe() for bias in said]
    assert np.array_equal(decoded(resumed.output)[0], decoded(whole.output)[0])


def test_the_stream_goes_back_further_for_settings_that_see_further():
    # the presets' outputs see at most 19 frames back: 40 covers them; a wide fusion over two passes sees further
    assert [resume.resume_context(settings) for settings in PRESETS.values()] == [40, 40, 40]
    wide = dataclasses.replace(PRESETS["fast"], passes=2, fusion=FusionSettings(radius=24))
    assert resume.resume_context(wide) == 2 * 2 * (24 + wide.window)
    assert resume.resume_context(dataclasses.replace(PRESETS["fast"], window=64)) == 2 * (2 + 64)


def test_fields_go_on_as_frames_do(tmp_path):
    source = pan(tmp_path / "dvr.mp4", 70, interlaced=True)
    fields = Denoiser.from_preset("fast", settings=dataclasses.replace(PRESETS["fast"], fields=True))
    whole = denoise_video(source, tmp_path / "whole.mkv", fields, format="lossless").output
    with pytest.raises(Interrupted):
        denoise_video(source, tmp_path / "out.mkv", fields, format="lossless", progress=stop_after(62))
    resumed = denoise_video(source, tmp_path / "out.mkv", fields, format="lossless")
    assert resumed.resumed == 60 and np.array_equal(decoded(resumed.output)[0], decoded(whole)[0])


@pytest.mark.parametrize("format", ["mp4", "h265"])
def test_pieces_join_into_the_file_an_uninterrupted_run_writes(tmp_path, fast, format):
    source = pan(tmp_path / "phone.mp4", 40, audio_seconds=1.5)
    whole = denoise_video(source, tmp_path / "whole.mp4", fast, format=format, side_by_side=True)
    with pytest.raises(Interrupted):
        denoise_video(source, tmp_path / "out.mp4", fast, format=format, side_by_side=True, progress=stop_after(30))
    resumed = denoise_video(source, tmp_path / "out.mp4", fast, format=format, side_by_side=True)
    for first, second in [(whole.output, resumed.output), (whole.side_by_side, resumed.side_by_side)]:
        assert first.read_bytes() == second.read_bytes()
    frames, times = decoded(resumed.output)
    assert len(frames) == 40 and times == decoded(source)[1]  # every frame, at its own uneven time
    with av.open(str(resumed.output)) as container:
        assert len(container.streams.audio) == 1
        assert container.streams.video[0].codec_tag == ("avc1" if format == "mp4" else "hvc1")
    assert not pieces_folder(resumed.output).exists()


def test_a_frame_folder_goes_on_too(tmp_path, fast):
    source = pan(tmp_path / "phone.mp4", 40)
    whole = denoise_video(source, tmp_path / "whole", fast, format="frames", side_by_side=True)
    with pytest.raises(Interrupted):
        denoise_video(source, tmp_path / "out", fast, format="frames", side_by_side=True, progress=stop_after(30))
    folder = pieces_folder(tmp_path / "out")
    assert sorted(p.name for p in folder.iterdir()) == ["job.json"] + [
        f"{tag}-{i:06d}" for tag in ("output", "side-by-side") for i in range(2)
    ]
    (folder / "output-000001" / "000003.png").unlink()  # a frame lost: its piece is made again
    said = []
    resumed = denoise_video(source, tmp_path / "out", fast, format="frames", side_by_side=True, on_resume=said.append)
    assert said[0].startswith("going on from frame 12 of 40") and resumed.resumed == 12
    for first, second in [(whole.output, resumed.output), (whole.side_by_side, resumed.side_by_side)]:
        names = sorted(p.name for p in first.iterdir())
        assert names == [f"{k:06d}.png" for k in range(40)] == sorted(p.name for p in second.iterdir())
        assert all((first / name).read_bytes() == (second / name).read_bytes() for name in names)
    assert not folder.exists()


def test_a_join_keeps_timestamps_exact_at_29_97_frames_a_second(tmp_path):
    # MP4 would time a piece that starts later only to its movie clock's millisecond: 0.1 s for 0.1001
    ntsc = encode(tmp_path / "cam.mp4", [picture(k) for k in range(30)], time_base=Fraction(1001, 30000), pts=range(30))
    out = denoise_video(ntsc, tmp_path / "out.mp4", identity(), sigma=None).output

    def times(path: Path) -> list[Fraction]:
        with av.open(str(path)) as container:
            return [frame.pts * frame.time_base for frame in container.decode(video=0)]

    assert times(out) == times(ntsc) == [Fraction(1001, 30000) * k for k in range(30)]


def test_pieces_of_other_options_or_a_changed_piece_are_made_again(tmp_path, fast):
    source = pan(tmp_path / "phone.mp4", 40)
    whole = decoded(denoise_video(source, tmp_path / "whole.mkv", fast, format="lossless").output)[0]
    with pytest.raises(Interrupted):
        denoise_video(source, tmp_path / "out.mkv", fast, sigma=20 / 255, format="lossless", progress=stop_after(30))
    with pytest.warns(UserWarning, match="were of another input or other options: they were removed, and it is"):
        out = denoise_video(source, tmp_path / "out.mkv", fast, format="lossless").output
    assert np.array_equal(decoded(out)[0], whole)
    # a piece changed on disk (a copy cut short) is made again, and those after it
    with pytest.raises(Interrupted):
        denoise_video(source, tmp_path / "again.mkv", fast, format="lossless", progress=stop_after(30))
    piece = pieces_folder(tmp_path / "again.mkv") / "output-000001.mkv"
    piece.write_bytes(piece.read_bytes()[:-100])
    said = []
    out = denoise_video(source, tmp_path / "again.mkv", fast, format="lossless", on_resume=said.append).output
    assert said[0].startswith("going on from frame 12 of 40")
    assert np.array_equal(decoded(out)[0], whole)


def test_an_input_that_fails_part_way_leaves_no_pieces(tmp_path, monkeypatch):
    monkeypatch.setattr(pipeline, "PIECE_FRAMES", 2)
    changing = size_change_stream(tmp_path / "dvr.h264")  # 64×48 for three frames, then 48×32: fails on any run
    finished = []
    monkeypatch.setattr(
        Pieces, "record", lambda self, *args, record=Pieces.record: finished.append(record(self, *args))
    )
    one_at_a_time = Denoiser(Identity(), DenoiseSettings(device="cpu", tile=0, window=1))  # reads no frame ahead
    with pytest.raises(VideoReadError, match="changes its picture size mid-stream"):
        denoise_video(changing, tmp_path / "out.mp4", one_at_a_time, sigma=None)
    assert len(finished) == 1  # the first piece was done when the input failed
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dvr.h264"]


def test_pieces_another_running_process_writes_are_left_alone(tmp_path, fast):
    source = pan(tmp_path / "phone.mp4", 30)
    with pytest.raises(Interrupted):
        denoise_video(source, tmp_path / "out.mkv", fast, format="lossless", progress=stop_after(20))
    job = pieces_folder(tmp_path / "out.mkv") / "job.json"
    record = json.loads(job.read_text())
    job.write_text(json.dumps(record | {"pid": os.getppid()}))  # a process that runs
    with pytest.raises(OutputError, match=r"another videodenoise \(process \d+\) is writing '.*out\.mkv'; wait"):
        denoise_video(source, tmp_path / "out.mkv", fast, format="lossless")
    assert json.loads(job.read_text())["pieces"] == record["pieces"]  # untouched


def test_clean_says_what_an_interruption_kept_and_goes_on(tmp_path, capsys, monkeypatch):
    source = pan(tmp_path / "phone.mp4", 30)
    original = pipeline.write_frames

    def interrupted(writers, views, pairs, progress=None, timestamps=None, first=0):
        stop = stop_after(20)
        return original(writers, views, pairs, lambda done: stop(done, None), timestamps, first)

    monkeypatch.setattr(pipeline, "write_frames", interrupted)
    code, _, err = run_cli(["clean", source, "--quiet"], capsys, monkeypatch)
    output = tmp_path / "phone.denoised.mp4"
    assert code == 130 and not output.exists()
    assert err.strip().splitlines() == [
        f"interrupted; the first 12 frames of '{output}' are kept, in pieces in '{pieces_folder(output)}': the same "
        "command again goes on from there (removing the folder discards them)"
    ]
    monkeypatch.setattr(pipeline, "write_frames", original)
    code, out, err = run_cli(["clean", source], capsys, monkeypatch)
    assert code == 0 and "going on from frame 12 of 30" in out and output.exists()
    assert f"wrote {output} (its first 12 frames from an interrupted run): 30 frames" in out
    assert not pieces_folder(output).exists()


def test_a_batch_goes_on_with_skip_existing(tmp_path, capsys, monkeypatch):
    first, second = pan(tmp_path / "a.mp4", 20), pan(tmp_path / "b.mp4", 30)
    original, calls = pipeline.write_frames, []

    def interrupted_in_the_second(writers, views, pairs, progress=None, timestamps=None, first=0):
        calls.append(1)
        stop = stop_after(20) if len(calls) == 2 else lambda done, total: None
        return original(writers, views, pairs, lambda done: stop(done, None), timestamps, first)

    monkeypatch.setattr(pipeline, "write_frames", interrupted_in_the_second)
    code, _, err = run_cli(["clean", first, second, "--quiet"], capsys, monkeypatch)
    done, kept = tmp_path / "a.denoised.mp4", pieces_folder(tmp_path / "b.denoised.mp4")
    assert code == 130 and done.exists() and kept.exists()
    assert err.strip().endswith("to go on with the rest, run the same command with --skip-existing")
    finished = done.stat().st_mtime_ns
    monkeypatch.setattr(pipeline, "write_frames", original)
    code, out, err = run_cli(["clean", first, second, "--skip-existing"], capsys, monkeypatch)
    assert code == 0 and "error" not in err
    assert f"{first}: skipped, as '{done}' exists" in out and "going on from frame 12 of 30" in out
    assert done.stat().st_mtime_ns == finished and (tmp_path / "b.denoised.mp4").exists() and not kept.exists()
    code, _, err = run_cli(["clean", first, "--skip-existing", "--overwrite"], capsys, monkeypatch)
    assert code == 1 and err.strip() == (
        "error: --skip-existing leaves existing outputs and --overwrite replaces them; pass one"
    )

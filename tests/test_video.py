"""Video I/O: round trips, metadata, frame folders, random access, bad files, atomic writes."""

from __future__ import annotations

import os
from fractions import Fraction
from pathlib import Path

import av
import cv2
import numpy as np
import pytest
import skimage
import torch

import videodenoise.io.writers as writers
from videodenoise.errors import VideoReadError, VideoWriteError
from videodenoise.io.readers import CorruptFileWarning, CorruptFrameWarning, VideoProperties
from videodenoise.io.video import open_video, probe_video, read_video
from videodenoise.io.writers import VideoWriter, write_video

from helpers import h264_video, png_movie


def smooth_clip(t: int = 12, channels: int = 3, height: int = 48, width: int = 64, seed: int = 0) -> torch.Tensor:
    """A moving smooth pattern quantised to 8 bits, so lossless paths can be compared exactly."""
    y, x = torch.meshgrid(torch.linspace(0, 1, height), torch.linspace(0, 1, width), indexing="ij")
    phase = torch.rand(channels, generator=torch.Generator().manual_seed(seed)) * 6
    frames = [
        torch.stack([0.5 + 0.4 * torch.sin(6 * x + 4 * y + phase[c] + 0.3 * k) for c in range(channels)])
        for k in range(t)
    ]
    return (torch.stack(frames) * 255).round() / 255


def psnr(a: torch.Tensor, b: torch.Tensor) -> float:
    return float(-10 * torch.log10(((a - b) ** 2).mean()))


@pytest.mark.parametrize("channels", [1, 3])
@pytest.mark.parametrize("target", ["clip.mkv", "frames"])
def test_lossless_round_trip_is_bit_exact(tmp_path, channels, target):
    clip = smooth_clip(channels=channels)
    path = write_video(
        tmp_path / target, clip, fps=Fraction(30000, 1001), codec="ffv1" if target.endswith(".mkv") else None
    )
    reader = open_video(path, fps=30000 / 1001)
    info = reader.info
    assert (info.n_frames, info.height, info.width, info.channels) == (12, 48, 64, channels)
    assert info.fps == pytest.approx(30000 / 1001)
    assert torch.equal(reader.read(), clip)
    assert not list(tmp_path.glob(".*partial*"))


def test_h264_round_trip_within_small_error_and_metadata_kept(tmp_path):
    clip = smooth_clip(t=20)
    write_video(tmp_path / "clip.mp4", clip, fps=25)
    info = probe_video(tmp_path / "clip.mp4")
    assert (info.n_frames, info.height, info.width, info.fps, info.kind) == (20, 48, 64, 25.0, "video")
    decoded = read_video(tmp_path / "clip.mp4")
    assert decoded.shape == clip.shape
    # this clip's colour channels have independent phases, i.e. strong chroma detail, which 4:2:0
    # chroma subsampling halves: about 33 dB here, whatever the CRF
    assert psnr(decoded, clip) > 30
    grey_clip = smooth_clip(t=20, channels=1)
    write_video(tmp_path / "grey.mp4", grey_clip, fps=25)
    grey = read_video(tmp_path / "grey.mp4", channels=1)
    assert grey.shape == (20, 1, 48, 64)
    assert psnr(grey, grey_clip) > 40 and (grey - grey_clip).abs().mean() < 0.01  # CRF 17


@pytest.mark.parametrize("codec, bits", [("h264", 8), ("h264", 10), ("h265", 10)])
def test_h264_and_hevc_output_is_the_same_on_every_run(tmp_path, codec, bits, capfd):
    # a noisy pan over a photograph: libx264 as PyAV opens it gave different outputs from write to write of
    # these frames on an AVX-512 CPU, at 8 and at 10 bits (see writers.configure_h264); every run must give
    # the same. libx265, which logs to the terminal past FFmpeg, must say nothing.
    photo = torch.from_numpy(skimage.data.astronaut()).permute(2, 0, 1).float() / 255
    frames = torch.stack([photo[:, 40 + 2 * k : 280 + 2 * k, 60 + 3 * k : 380 + 3 * k] for k in range(30)])
    noise = 0.08 * torch.randn(frames.shape, generator=torch.Generator().manual_seed(0))
    levels = (1 << bits) - 1
    clip = ((frames + noise).clamp(0, 1) * levels).round() / levels
    outputs = []
    for run in range(3):
        path = tmp_path / f"run{run}.mp4"
        with VideoWriter(path, fps=25, codec=codec, properties=VideoProperties(bit_depth=bits)) as writer:
            for frame in clip:
                writer.write(frame)
        outputs.append(path.read_bytes())
    assert outputs[0] == outputs[1] == outputs[2]
    assert capfd.readouterr() == ("", "")
    with av.open(str(path)) as container:
        assert container.streams.video[0].codec_context.name == {"h264": "h264", "h265": "hevc"}[codec]


def test_hevc_writes_clips_of_one_and_two_frames(tmp_path):
    """libx265 as PyAV bundles it gives such clips decoding times from memory never set, which MP4 refused ("pts/dts
    pair unsupported": 9 writes in 10 of a 64×48 clip failed); the writer decodes each when it is shown. Three frames
    and more come with libx265's own."""
    rng = np.random.default_rng(0)
    for _ in range(4):
        for count in (1, 2):
            frames = [rng.integers(0, 65536, (48, 64, 3), dtype=np.uint16) for _ in range(count)]
            path = write_video(
                tmp_path / "short.mp4", frames, codec="h265", properties=VideoProperties(bit_depth=10), overwrite=True
            )
            with av.open(str(path)) as container:
                packets = [packet for packet in container.demux(video=0) if packet.size]
            assert len(packets) == count and all(packet.dts == packet.pts for packet in packets)
            assert len(read_video(path)) == count
    frames = [rng.integers(0, 65536, (48, 64, 3), dtype=np.uint16) for _ in range(8)]
    path = write_video(tmp_path / "eight.mp4", frames, codec="h265", properties=VideoProperties(bit_depth=10))
    with av.open(str(path)) as container:  # B-frames: some decoded before they are shown
        assert any(packet.dts < packet.pts for packet in container.demux(video=0) if packet.size)


class FakeStream:
    def __init__(self):
        self.options, self.codec_context = {}, type("Context", (), {"thread_type": "SLICE"})()


def test_libx264_runs_frame_threads_held_to_avx2_only_where_the_cpu_has_avx512(monkeypatch):
    stream = FakeStream()
    monkeypatch.setattr(writers, "cpu_has_avx512", lambda: True)
    writers.configure_h264(stream, 17, VideoProperties())
    assert stream.options == {"crf": "17", "preset": "medium", "x264-params": "asm=avx2"}
    assert stream.codec_context.thread_type == "FRAME"
    monkeypatch.setattr(writers, "cpu_has_avx512", lambda: False)  # naming AVX2 to a CPU without it would crash
    writers.configure_h264(stream, 23, VideoProperties())
    assert stream.options == {"crf": "23", "preset": "medium"}


def test_h264_odd_size_keeps_the_size(tmp_path):
    clip = smooth_clip(t=5, height=25, width=37)
    write_video(tmp_path / "odd.mp4", clip, fps=10)
    decoded = read_video(tmp_path / "odd.mp4")
    assert decoded.shape == (5, 3, 25, 37)
    assert psnr(decoded, clip) > 35  # odd sides are written 4:4:4 (4:2:0 needs even sides)


def test_random_access_matches_sequential_decoding(tmp_path):
    clip = smooth_clip(t=40, height=32, width=32)
    for name in ("gop.mp4", "gop.mkv"):
        write_video(tmp_path / name, clip, fps=25, keyframe_interval=8)  # seeks land on real keyframes
        reader = open_video(tmp_path / name)
        everything = reader.read()
        for start, count in ((0, 3), (9, 5), (17, 8), (39, 1)):
            assert torch.equal(reader.read(start, count), everything[start : start + count])
    with pytest.raises(VideoReadError, match="outside"):
        reader.read(38, 5)


@pytest.mark.parametrize("suffix", [".tif", ".png", ".jpg", ".bmp"])
def test_frame_folders_of_every_image_type(tmp_path, suffix):
    clip = smooth_clip(t=11, channels=3, height=20, width=24)
    folder = tmp_path / "seq"
    folder.mkdir()
    for k, frame in enumerate(clip):  # 1.ext ... 11.ext: text order would put 10 and 11 after 1
        image = (frame.permute(1, 2, 0).numpy() * 255).round().astype(np.uint8)
        cv2.imwrite(str(folder / f"{k + 1}{suffix}"), image[:, :, ::-1])
    (folder / "._1.png").write_bytes(b"junk")
    (folder / ".DS_Store").write_bytes(b"junk")
    reader = open_video(folder, fps=12)
    assert (reader.info.n_frames, reader.info.fps, reader.info.kind) == (11, 12, "frames")
    frames = reader.read()
    tolerance = 0.03 if suffix == ".jpg" else 0
    assert (frames - clip).abs().mean() <= tolerance
    assert torch.allclose(reader.read(9, 2), frames[9:11])


def test_sixteen_bit_frames_are_scaled_to_unit_range(tmp_path):
    folder = tmp_path / "deep"
    folder.mkdir()
    cv2.imwrite(str(folder / "0.png"), np.full((4, 5), 65535, np.uint16))
    cv2.imwrite(str(folder / "1.png"), np.full((4, 5), 32768, np.uint16))
    frames = read_video(folder)
    assert frames[:, 0, 0, 0].tolist() == pytest.approx([1.0, 32768 / 65535])


def test_other_containers_gif_and_webm(tmp_path):
    gif = Path(skimage.data.__file__).parent / "no_time_for_that_tiny.gif"
    reader = open_video(gif)
    assert (reader.info.n_frames, reader.info.width, reader.info.height) == (24, 14, 25)
    assert torch.equal(reader.read(10, 3, channels=1), reader.read(channels=1)[10:13])
    import av

    with av.open(str(tmp_path / "clip.webm"), "w") as container:  # VP9, as browsers record
        stream = container.add_stream("libvpx-vp9", rate=24)
        stream.width, stream.height, stream.pix_fmt = 32, 32, "yuv420p"
        for frame in smooth_clip(t=6, height=32, width=32):
            image = (frame.permute(1, 2, 0).numpy() * 255).round().astype(np.uint8)
            for packet in stream.encode(av.VideoFrame.from_ndarray(image, format="rgb24")):
                container.mux(packet)
        for packet in stream.encode(None):
            container.mux(packet)
    webm = open_video(tmp_path / "clip.webm")
    assert (webm.info.n_frames, webm.info.fps) == (6, 24.0)
    assert webm.read().shape == (6, 3, 32, 32)


def test_bad_files_give_clear_errors(tmp_path):
    with pytest.raises(VideoReadError, match="does not exist"):
        open_video(tmp_path / "missing.mp4")
    (tmp_path / "notes.mp4").write_text("these are my notes, not a video")
    with pytest.raises(VideoReadError, match="is not a video that PyAV or OpenCV can decode"):
        open_video(tmp_path / "notes.mp4")
    write_video(tmp_path / "good.mp4", smooth_clip(t=30), fps=25)
    data = (tmp_path / "good.mp4").read_bytes()
    (tmp_path / "cut.mp4").write_bytes(data[: len(data) // 3])  # moov atom at the end is lost
    with pytest.raises(VideoReadError, match=r"'.*cut.mp4' is an MP4 or MOV recording without its index \(the moov"):
        read_video(tmp_path / "cut.mp4")
    data = h264_video(tmp_path / "camera.mov", smooth_clip(t=30)).read_bytes()  # MOV's boxes are MP4's
    (tmp_path / "stopped.mov").write_bytes(data[: len(data) // 2])
    with pytest.raises(VideoReadError, match="is an MP4 or MOV recording without its index"):
        open_video(tmp_path / "stopped.mov")
    (tmp_path / "noise.avi").write_bytes(np.random.default_rng(0).integers(0, 255, 4096, dtype=np.uint8).tobytes())
    with pytest.raises(VideoReadError, match="noise.avi"):
        open_video(tmp_path / "noise.avi")
    (tmp_path / "empty").mkdir()
    with pytest.raises(VideoReadError, match="holds no image frames"):
        open_video(tmp_path / "empty")
    (tmp_path / "cut.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(40))
    with pytest.raises(VideoReadError, match=r"'.*cut.png' is not an image OpenCV can read \(empty, truncated or"):
        open_video(tmp_path / "cut.png")


@pytest.mark.parametrize("orientation", range(1, 9))
def test_an_image_file_is_a_clip_of_one_frame_shown_as_its_exif_turns_it(tmp_path, orientation):
    from PIL import Image, ImageOps

    stored = np.random.default_rng(orientation).integers(0, 256, (6, 10, 3), dtype=np.uint8)
    picture = Image.fromarray(stored)
    exif = picture.getexif()
    exif[0x0112] = orientation  # a phone's JPEG: the sensor's pixels, and the turn that shows them upright
    picture.save(tmp_path / "photo.jpg", exif=exif, quality=100)
    reader = open_video(tmp_path / "photo.jpg")
    (frame,) = reader.read(0, None, 3)
    with Image.open(tmp_path / "photo.jpg") as saved:
        upright = np.asarray(ImageOps.exif_transpose(saved))  # Pillow's turn of its own decoding
    assert (reader.info.kind, reader.info.n_frames, reader.info.path) == ("image", 1, tmp_path / "photo.jpg")
    assert (reader.info.height, reader.info.width) == upright.shape[:2] == ((10, 6) if orientation > 4 else (6, 10))
    assert not reader.info.lossless
    turned = frame.permute(1, 2, 0).mul(255).round().numpy()
    assert np.abs(turned - upright).max() <= 3  # two JPEG decoders, the same turn


def test_a_16_bit_image_with_alpha_keeps_its_bits_and_alpha(tmp_path):
    image = np.random.default_rng(0).integers(0, 65536, (5, 7, 4), dtype=np.uint16)
    cv2.imwrite(str(tmp_path / "scan.png"), image)  # BGRA as OpenCV writes it
    reader = open_video(tmp_path / "scan.png")
    info = reader.info
    assert (info.kind, info.n_frames, info.bit_depth, info.alpha, info.channels, info.lossless) == (
        "image",
        1,
        16,
        True,
        3,
        True,
    )
    (frame,) = reader.read(0, None, 3)  # the colour; the alpha travels apart (the writer's test below)
    expected = cv2.cvtColor(image, cv2.COLOR_BGRA2RGB).transpose(2, 0, 1) / 65535
    assert torch.allclose(frame.double(), torch.from_numpy(expected), atol=1e-7)


def test_writes_are_atomic_and_never_overwrite(tmp_path):
    target = tmp_path / "out.mp4"
    with pytest.raises(RuntimeError):
        with VideoWriter(target, fps=25) as writer:
            writer.write(smooth_clip(t=1)[0])
            assert not target.exists()
            raise RuntimeError("killed half way")
    assert not target.exists() and not list(tmp_path.iterdir())  # nothing half-written left
    write_video(target, smooth_clip(t=3), fps=25)
    before = target.read_bytes()
    with pytest.raises(VideoWriteError, match="already exists"):
        write_video(target, smooth_clip(t=5), fps=25)
    assert target.read_bytes() == before
    write_video(target, smooth_clip(t=5), fps=25, overwrite=True)
    assert probe_video(target).n_frames == 5
    with pytest.raises(VideoWriteError, match="does not exist"):
        VideoWriter(tmp_path / "no" / "such" / "dir.mp4")
    with pytest.raises(VideoWriteError, match="needs a .mkv"):
        VideoWriter(tmp_path / "x.mp4", codec="ffv1")
    with pytest.raises(VideoWriteError, match="first frame"):
        with VideoWriter(tmp_path / "sizes.mp4") as writer:
            writer.write(torch.zeros(3, 8, 8))
            writer.write(torch.zeros(3, 8, 10))
    assert not (tmp_path / "sizes.mp4").exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere")
def test_unwritable_folder(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    with pytest.raises(VideoWriteError, match="not writable"):
        VideoWriter(locked / "out.mp4")


def test_a_corrupt_frame_costs_one_frame_however_many_cores_decode(tmp_path, monkeypatch):
    """On a many-core machine FFmpeg would decode with many frame threads; a frame-threaded decoder drops the
    frames in flight at a corrupt packet (a 12-frame clip came back empty on 16 cores). 16 threads asked for
    here: the reader still loses only the corrupt frame, and keeps the others where they were."""
    clip = torch.stack([torch.full((3, 24, 32), k / 16) for k in range(12)])
    source = png_movie(tmp_path / "broken.mov", clip, corrupt=[6])
    opened = av.open

    def sixteen_threads(*args, **kwargs):
        container = opened(*args, **kwargs)
        for stream in container.streams.video:
            stream.thread_count = 16
        return container

    monkeypatch.setattr(av, "open", sixteen_threads)
    with pytest.warns(CorruptFrameWarning, match="frame 6 of .* cannot be decoded"):
        frames = read_video(source)
    assert len(frames) == 12
    levels = [round(float(frame.mean()) * 16) for frame in frames]
    assert levels == [0, 1, 2, 3, 4, 5, 5, 7, 8, 9, 10, 11]  # frame 6: its neighbour's copy


def textured_clip(t: int = 10) -> torch.Tensor:
    """A noisy pattern moving by a pixel a frame: H.264 spends enough bytes on each frame for damage to show."""
    grain = torch.rand(3, 48, 64 + t, generator=torch.Generator().manual_seed(0))
    return torch.stack([grain[:, :, k : k + 64] for k in range(t)])


def test_a_frame_decoded_with_concealed_damage_is_kept_and_reported_on_every_pass(tmp_path):
    """H.264 conceals lost data instead of failing: the frame comes out, and only FFmpeg's log (which PyAV
    silences, and whose repeats it drops) says so. Each pass reports it, and FFmpeg's logging is left as found."""
    source = h264_video(tmp_path / "damaged.mkv", textured_clip(), damaged=(6,))
    level, skip = av.logging.get_level(), av.logging.get_skip_repeated()
    for _ in range(2):  # the second pass decodes the same damage: FFmpeg logs the same words again
        with pytest.warns(CorruptFrameWarning, match=r"frame 6 of .*damaged.mkv' holds damaged data \(FFmpeg's h264"):
            frames = read_video(source)
        assert len(frames) == 10
    assert (av.logging.get_level(), av.logging.get_skip_repeated()) == (level, skip)
    sound = read_video(h264_video(tmp_path / "sound.mkv", textured_clip()))
    error = (frames - sound).abs().mean(dim=(1, 2, 3))
    assert error[:6].max() == 0 and error[6] > 0.01  # the damage is where it was reported, and kept


def test_a_badly_damaged_file_names_five_frames_then_counts_the_rest(tmp_path):
    source = h264_video(tmp_path / "dvr.mkv", textured_clip(t=20), damaged=(2, 4, 6, 8, 10, 12, 14, 16))
    with pytest.warns(CorruptFrameWarning) as caught:
        assert len(read_video(source)) == 20
    lines = [str(warning.message) for warning in caught]
    assert [line.split(" of ")[0] for line in lines[:5]] == [f"frame {k}" for k in (2, 4, 6, 8, 10)]
    assert lines[5:] == [
        f"3 more frames of '{source}' are damaged or lost (frames 12-16; 8 in all), decoded as ffmpeg decodes them "
        "or repeated from a neighbour"
    ]


def test_lost_frames_share_the_five_line_limit(tmp_path):
    clip = torch.stack([torch.full((3, 24, 32), k / 16) for k in range(12)])
    with pytest.warns(CorruptFrameWarning) as caught:
        assert len(read_video(png_movie(tmp_path / "broken.mov", clip, corrupt=[1, 2, 3, 5, 7, 9, 10]))) == 12
    lines = [str(warning.message) for warning in caught]
    assert [line.split(" of ")[0] for line in lines[:5]] == [f"frame {k}" for k in (1, 2, 3, 5, 7)]
    assert "cannot be decoded (corrupt data)" in lines[0]
    assert len(lines) == 6 and lines[5].startswith("2 more frames of ") and "(frames 9-10; 7 in all)" in lines[5]


def test_a_file_cut_short_says_so_and_gives_the_frames_it_holds(tmp_path):
    whole = h264_video(tmp_path / "whole.mkv", textured_clip(t=30))
    cut = tmp_path / "cut.mkv"
    cut.write_bytes(whole.read_bytes()[: whole.stat().st_size * 6 // 10])
    with pytest.warns(CorruptFileWarning, match=r"'.*cut.mkv': FFmpeg reports .* after (\d+) frames .*declares 1.20 s"):
        reader = open_video(cut)
    assert 5 < len(reader) < 30
    assert torch.equal(reader.read(), read_video(whole)[: len(reader)])


def counted_decoding(monkeypatch) -> tuple[list, list]:
    """(the files PyAV opens, the frames it converts to arrays), filled in from now on."""
    opened, converted = [], []
    real_open, real_convert = av.open, av.VideoFrame.to_ndarray
    monkeypatch.setattr(av, "open", lambda *a, **k: opened.append(a) or real_open(*a, **k))
    monkeypatch.setattr(av.VideoFrame, "to_ndarray", lambda f, *a, **k: converted.append(f) or real_convert(f, *a, **k))
    return opened, converted


def test_runs_give_what_reading_each_alone_gives_and_read_close_runs_in_one_pass(tmp_path, monkeypatch):
    """The noise estimate reads eight runs of three frames spread over a video. Sought one by one, each decodes
    from the keyframe before it, up to a whole group of pictures; runs with no keyframe between them are read
    in one pass instead, and only the frames asked for are converted."""
    clip = smooth_clip(t=40, height=32, width=32)
    starts = [0, 1, 9, 17, 30, 38]  # overlapping, apart, and one that the video's end cuts short
    one_keyframe = h264_video(tmp_path / "one.mkv", clip)  # every later frame predicted from the first
    every_eighth = write_video(tmp_path / "gop.mp4", clip, fps=25, keyframe_interval=8)
    # keyframes 0, 8, 16, 24, 32: run 1 lies within run 0's pass, and 38 past 32 within 30's
    for source, passes in ((one_keyframe, 1), (every_eighth, 4)):
        reader = open_video(source)
        alone = [list(reader.frames(start=start, count=3)) for start in starts]
        opened, converted = counted_decoding(monkeypatch)
        together = list(reader.runs(starts, 3))
        monkeypatch.undo()
        assert [len(run) for run in together] == [3, 3, 3, 3, 3, 2]
        for run, single in zip(together, alone):
            assert torch.equal(torch.stack(run), torch.stack(single))
        assert len(opened) == passes
        assert len(converted) == len({p for s in starts for p in range(s, min(s + 3, 40))})  # 15 frames, once each


def test_runs_over_a_lost_frame_keep_their_length(tmp_path):
    clip = torch.stack([torch.full((3, 24, 32), k / 16) for k in range(12)])
    reader = open_video(png_movie(tmp_path / "broken.mov", clip, corrupt=[6]))
    with pytest.warns(CorruptFrameWarning, match="frame 6 of .* cannot be decoded"):
        runs = list(reader.runs([4, 5, 10], 3))
    levels = [[round(float(frame.mean()) * 16) for frame in run] for run in runs]
    assert levels == [[4, 5, 5], [5, 5, 7], [10, 11]]  # frame 6: its neighbour's copy

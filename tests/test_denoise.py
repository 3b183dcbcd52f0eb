"""`videodenoise clean` and its library: frames, sizes, rates and audio kept; windows, tiles, colour
and σ; denoising that helps on real content; the demo; a one-line error for every bad input."""

from __future__ import annotations

import dataclasses
import os
import re
import warnings
from fractions import Fraction
from pathlib import Path

import av
import cv2
import numpy as np
import pytest
import skimage
import torch
import torch.nn as nn

from videodenoise.denoise import calibration, clipping, pipeline
from videodenoise.denoise.calibration import Calibration
from videodenoise.denoise.demo import run_demo
from videodenoise.denoise.denoiser import Denoiser
from videodenoise.denoise.pipeline import denoise_video
from videodenoise.denoise.settings import PRESET_WEIGHTS, PRESETS, DenoiseSettings
from videodenoise.denoise.tiling import reflect, tile_spans
from videodenoise.errors import DenoiseError, VideoWriteError
from videodenoise.io.video import probe_video, read_video
from videodenoise.io.writers import VideoWriter, write_video
from videodenoise.models import checkpoints
from videodenoise.models.registry import build_model, save_model
from videodenoise.noise.estimation import estimate_clip_noise
from videodenoise.noise.noise_level_function import CODEC_LOSS_LEVEL, HEAVY, NoiseLevelFunction
from videodenoise.noise.single_frame import estimate_noise_sigma

from helpers import frames_read_ahead, h264_video, png_movie, run_cli

GIF = Path(skimage.data.__file__).parent / "no_time_for_that_tiny.gif"  # 24 real frames of 25×14


def moving_clip(t: int = 8, channels: int = 3, height: int = 40, width: int = 56, seed: int = 0) -> torch.Tensor:
    """A smooth moving pattern, 8-bit quantised."""
    y, x = torch.meshgrid(torch.linspace(0, 1, height), torch.linspace(0, 1, width), indexing="ij")
    phase = torch.rand(channels, generator=torch.Generator().manual_seed(seed)) * 6
    frames = [
        torch.stack([0.5 + 0.35 * torch.sin(7 * x + 5 * y + phase[c] + 0.4 * k) for c in range(channels)])
        for k in range(t)
    ]
    return (torch.stack(frames) * 255).round() / 255


def add_noise(clip: torch.Tensor, sigma: float, seed: int = 0) -> torch.Tensor:
    noise = torch.randn(clip.shape, generator=torch.Generator().manual_seed(seed))
    return (clip + sigma * noise).clamp(0, 1).mul(255).round().div(255)


def psnr(estimate: torch.Tensor, clean: torch.Tensor) -> float:
    """−20·log10 of the per-frame RMSE averaged over frames, on [0, 1]."""
    rmse = (estimate - clean).square().mean(dim=(1, 2, 3)).sqrt().mean()
    return float(-20 * torch.log10(rmse))


def checkpoint(folder: Path, channels: int = 1, name: str | None = None, **options) -> Path:
    """An untrained DUST (already a sparse-coding denoiser) saved as training saves it."""
    model = build_model("dust", channels=channels, layers=options.pop("layers", 3), **options)
    path = folder / (name or f"dust{channels}.safetensors")
    save_model(model, path, {"mode": "erm", "sigma_train": repr(25 / 255), "step": "0", "dataset": "test"})
    return path


def with_audio(path: Path, clip: torch.Tensor, fps: int = 25, sample_rate: int = 22050) -> Path:
    """An H.264 + AAC mp4 of `clip` with a sine tone as long as the video."""
    with av.open(str(path), "w") as container:
        video = container.add_stream("libx264", rate=fps)
        video.width, video.height, video.pix_fmt = clip.shape[3], clip.shape[2], "yuv420p"
        audio = container.add_stream("aac", rate=sample_rate, layout="mono")
        for index, frame in enumerate(clip):
            image = (frame.permute(1, 2, 0).numpy() * 255).round().astype(np.uint8)
            video_frame = av.VideoFrame.from_ndarray(image, format="rgb24")
            video_frame.pts = index
            for packet in video.encode(video_frame):
                container.mux(packet)
        samples, total = 0, int(len(clip) / fps * sample_rate)
        while samples < total:
            tone = 0.3 * np.sin(2 * np.pi * 440 * np.arange(samples, samples + 1024) / sample_rate)
            audio_frame = av.AudioFrame.from_ndarray(tone.astype(np.float32)[None], format="fltp", layout="mono")
            audio_frame.sample_rate, audio_frame.pts = sample_rate, samples
            for packet in audio.encode(audio_frame):
                container.mux(packet)
            samples += 1024
        for stream in (video, audio):
            for packet in stream.encode(None):
                container.mux(packet)
    return path


def audio_seconds(path: Path) -> float:
    with av.open(str(path)) as container:
        if not container.streams.audio:
            return 0.0
        return sum(frame.samples for frame in container.decode(audio=0)) / container.streams.audio[0].sample_rate


class Recorder(nn.Module):
    """The identity, remembering the frames of every window it is given (frame k holds the value k/64)."""

    def __init__(self, channels: int = 1):
        super().__init__()
        self.unused = nn.Parameter(torch.zeros(()))
        self.config = type("Config", (), {"channels": channels})()
        self.windows: list[list[int]] = []

    def forward(self, clip: torch.Tensor) -> torch.Tensor:
        self.windows.append([round(float(v) * 64) for v in clip[0, :, 0, 0, 0]])
        return clip


class Identity(Recorder):
    def forward(self, clip: torch.Tensor) -> torch.Tensor:
        return clip


def indexed_frames(n: int, size: int = 8) -> list[torch.Tensor]:
    """Frame k holds k/64, but for its last pixel: a window of equal values would not reach the model."""
    frames = [torch.full((1, size, size), k / 64) for k in range(n)]
    for frame in frames:
        frame[0, -1, -1] = 1.0
    return frames


@pytest.fixture(scope="module")
def grey_checkpoint(tmp_path_factory) -> Path:
    return checkpoint(tmp_path_factory.mktemp("weights"))


# ----------------------------------------------------------------------------------------------------
# frames, sizes, rates, audio


def test_frame_count_size_and_exact_frame_rate_are_kept(tmp_path, grey_checkpoint):
    clip = moving_clip(t=11, height=36, width=48)
    source = write_video(tmp_path / "in.mp4", clip, fps=Fraction(30000, 1001))
    result = denoise_video(
        source, None, Denoiser.from_checkpoint(grey_checkpoint, DenoiseSettings(device="cpu")), sigma=10 / 255
    )
    assert result.output == tmp_path / "in.denoised.mp4"
    info = probe_video(result.output)
    assert (info.n_frames, info.width, info.height) == (11, 48, 36)
    with av.open(str(result.output)) as container:
        assert container.streams.video[0].average_rate == Fraction(30000, 1001)
    assert (result.frames, result.sigma_source, result.audio) == (11, "given", False)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_a_frame_folder_written_before_is_that_output_again_not_a_folder_for_outputs(
    tmp_path, grey_checkpoint, capsys, monkeypatch
):
    source = write_video(tmp_path / "in.mp4", moving_clip(t=4, height=36, width=48))
    frames = tmp_path / "frames"
    command = ["clean", source, "-o", frames, "--checkpoint", grey_checkpoint, "--sigma", "10", "--quiet"]
    assert run_cli(command, capsys, monkeypatch)[0] == 0
    written = sorted(p.name for p in frames.iterdir())
    assert written == ["000000.png", "000001.png", "000002.png", "000003.png"]
    # the same command again: the folder is its output, which exists, not a folder to write an .mp4 into
    code, _, err = run_cli(command, capsys, monkeypatch)
    assert code == 1 and err.strip() == f"error: '{frames}' already exists; pass --overwrite to replace it"
    assert run_cli([*command, "--overwrite"], capsys, monkeypatch)[0] == 0
    assert sorted(p.name for p in frames.iterdir()) == written
    code, _, err = run_cli([*command[:-1], source, "--quiet"], capsys, monkeypatch)  # two inputs into it
    assert code == 1 and f"must be an existing folder; '{frames}' is a frame folder an earlier run wrote" in err
    # a folder that holds anything else is where the outputs go, as before
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "photo.png").write_bytes(b"")
    assert run_cli([*command[:3], tmp_path / "mine", *command[4:]], capsys, monkeypatch)[0] == 0
    assert (tmp_path / "mine" / "in.denoised.mp4").is_file()


def test_audio_is_kept_in_mp4_and_lossless_outputs(tmp_path):
    source = with_audio(tmp_path / "talk.mp4", moving_clip(t=25))
    denoiser = Denoiser(
        Identity(channels=3), DenoiseSettings(device="cpu")
    )  # the audio path does not depend on the model
    mp4 = denoise_video(source, None, denoiser, sigma=10 / 255, side_by_side=True)
    mkv = denoise_video(source, tmp_path / "talk.mkv", denoiser, sigma=10 / 255, format="lossless")
    expected = audio_seconds(source)
    assert expected > 0.9
    for result, path in ((mp4, mp4.output), (mp4, mp4.side_by_side), (mkv, mkv.output)):
        assert result.audio
        assert audio_seconds(path) == pytest.approx(expected, abs=0.05)
        assert probe_video(path).n_frames == 25
    with av.open(str(mkv.output)) as container:
        assert container.streams.video[0].codec_context.name == "ffv1"
        assert container.streams.audio[0].codec_context.name == "aac"  # copied, not re-encoded
    silent = denoise_video(source, tmp_path / "silent.mp4", denoiser, sigma=10 / 255, keep_audio=False)
    assert audio_seconds(silent.output) == 0.0 and not silent.audio


def test_side_by_side_holds_noisy_and_denoised(tmp_path, grey_checkpoint):
    clip = add_noise(moving_clip(t=6, channels=1), 25 / 255)
    source = write_video(tmp_path / "frames", clip)
    result = denoise_video(
        source,
        tmp_path / "out",
        Denoiser.from_checkpoint(grey_checkpoint, DenoiseSettings(device="cpu")),
        sigma=25 / 255,
        side_by_side=True,
        format="frames",
    )
    assert result.side_by_side == tmp_path / "out-side-by-side"
    pair, denoised = read_video(result.side_by_side), read_video(result.output)
    assert pair.shape == (6, 1, 40, 112)
    assert torch.equal(pair[..., :56], clip) and torch.equal(pair[..., 56:], denoised)


# ----------------------------------------------------------------------------------------------------
# windows


@pytest.mark.parametrize("stride", [1, 3, 5])
def test_windows_are_reflected_at_both_ends_and_every_frame_comes_out_once(stride):
    model = Recorder()
    denoiser = Denoiser(model, DenoiseSettings(device="cpu", window=5, stride=stride, tile=0))
    out = list(denoiser.denoise_frames(indexed_frames(7), sigma=None))
    assert [round(float(frame[0, 0, 0]) * 64) for frame in out] == list(range(7))
    if stride == 1:
        assert model.windows[0] == [2, 1, 0, 1, 2]
        assert model.windows[1] == [1, 0, 1, 2, 3]
        assert model.windows[-1] == [4, 5, 6, 5, 4]
        assert all(window[2] == index for index, window in enumerate(model.windows))
    if stride == 3:  # keeps frames 1..3 of each window: one neighbour on each side at least
        assert model.windows == [[1, 0, 1, 2, 3], [2, 3, 4, 5, 6], [5, 6, 5, 4, 3]]
    if stride == 5:
        assert model.windows == [[0, 1, 2, 3, 4], [5, 6, 5, 4, 3]]


@pytest.mark.parametrize("n", [1, 2, 3])
def test_videos_shorter_than_the_window(n):
    model = Recorder()
    out = list(
        Denoiser(model, DenoiseSettings(device="cpu", window=5, stride=1, tile=0)).denoise_frames(
            indexed_frames(n), None
        )
    )
    assert len(out) == n
    if n == 1:
        assert model.windows == [[0, 0, 0, 0, 0]]
    if n == 2:
        assert model.windows[0] == [0, 1, 0, 1, 0]


def test_one_frame_video_file(tmp_path, grey_checkpoint):
    source = write_video(tmp_path / "still.mp4", moving_clip(t=1))
    result = denoise_video(
        source, None, Denoiser.from_checkpoint(grey_checkpoint, DenoiseSettings(device="cpu")), sigma="auto"
    )
    assert result.frames == 1 and probe_video(result.output).n_frames == 1
    assert result.sigma_source == "estimated" and 0 <= result.sigma < 0.1


def test_a_photo_comes_out_a_png_photo_with_its_bits_alpha_and_turn(tmp_path, grey_checkpoint, capsys, monkeypatch):
    from PIL import Image

    rng = np.random.default_rng(0)
    scan = rng.integers(0, 65536, (24, 40, 4), dtype=np.uint16)
    cv2.imwrite(str(tmp_path / "scan.png"), scan)  # 16 bits and an alpha channel
    command = ["clean", tmp_path / "scan.png", "--checkpoint", grey_checkpoint, "--sigma", "10", "--side-by-side"]
    code, out, err = run_cli(command, capsys, monkeypatch)
    assert code == 0 and "warning" not in err and "error" not in err, err  # nothing of the input lost
    assert "wrote " in out and ": an image, 40×24; " in out and "fps" not in out
    denoised = cv2.imread(str(tmp_path / "scan.denoised.png"), cv2.IMREAD_UNCHANGED)
    assert denoised.dtype == np.uint16 and denoised.shape == scan.shape
    assert np.array_equal(denoised[:, :, 3], scan[:, :, 3]) and not np.array_equal(denoised[:, :, :3], scan[:, :, :3])
    both = cv2.imread(str(tmp_path / "scan.side-by-side.png"), cv2.IMREAD_UNCHANGED)
    assert both.shape == (24, 80, 4)
    rows, cols = np.mgrid[0:24, 0:40]
    scene = np.stack([rows * 10, cols * 6, 250 - rows * cols // 4], axis=2).astype(np.uint8)  # smooth, no symmetry
    picture = Image.fromarray(scene)
    exif = picture.getexif()
    exif[0x0112] = 6  # a phone held upright: stored on its side, shown turned a quarter clockwise
    picture.save(tmp_path / "phone.jpg", exif=exif, quality=95)
    command = ["clean", tmp_path / "phone.jpg", "--checkpoint", grey_checkpoint, "--sigma", "5", "--quiet"]
    assert run_cli(command, capsys, monkeypatch)[0] == 0
    upright = cv2.cvtColor(cv2.imread(str(tmp_path / "phone.denoised.png")), cv2.COLOR_BGR2RGB).astype(float)
    assert upright.shape == (40, 24, 3)  # turned as shown: a PNG holds no turn to leave to the viewer
    shown, other = np.rot90(scene, k=-1), np.rot90(scene, k=1)
    assert np.abs(upright - shown).mean() < np.abs(upright - other).mean() / 5  # this turn, not another
    still = write_video(tmp_path / "still.mp4", moving_clip(t=1))
    options = ["--checkpoint", grey_checkpoint, "--sigma", "10", "--quiet", "--format", "image"]
    assert run_cli(["clean", still, *options], capsys, monkeypatch)[0] == 0  # a frame of a video, as an image
    assert probe_video(tmp_path / "still.denoised.png").kind == "image"


def test_an_image_takes_one_frame_and_a_second_leaves_nothing(tmp_path):
    with pytest.raises(VideoWriteError, match="is an image, which holds one frame"):
        with VideoWriter(tmp_path / "still.png") as writer:
            writer.write(moving_clip(t=2)[0])
            writer.write(moving_clip(t=2)[1])
    assert not list(tmp_path.iterdir())


def test_a_sigma_scale_multiplies_sigma_for_every_part_and_is_said(tmp_path, grey_checkpoint, capsys, monkeypatch):
    noise = torch.randn(5, 1, 32, 48, generator=torch.Generator().manual_seed(0)) * 10 / 255
    clip = (moving_clip(t=5, height=32, width=48) + noise).clamp(0, 1)
    scaled = Denoiser.from_checkpoint(grey_checkpoint, DenoiseSettings(device="cpu", sigma_scale=2))
    plain = Denoiser.from_checkpoint(grey_checkpoint, DenoiseSettings(device="cpu"))
    assert torch.equal(scaled.denoise_clip(clip, 10 / 255), plain.denoise_clip(clip, 20 / 255))  # fusion too
    read = estimate_clip_noise(clip)
    assert torch.equal(scaled.denoise_clip(clip, "auto"), plain.denoise_clip(clip, read.scaled(2)))  # its curve × 2
    source = write_video(tmp_path / "in.mkv", clip, codec="ffv1")
    command = ["clean", source, "--checkpoint", grey_checkpoint, "--sigma-scale", "1.5", "-o", tmp_path / "out.mkv"]
    code, out, err = run_cli(command, capsys, monkeypatch)
    assert code == 0 and "motion-aligned frame differences (" in out and ", × 1.5 by --sigma-scale: σ ≈ " in out, err
    code, out, err = run_cli([*command, "--sigma", "20", "--overwrite"], capsys, monkeypatch)
    assert code == 0 and "σ = 30 on the 0-255 scale (given, × 1.5 by --sigma-scale; " in out, err
    dark = dataclasses.replace(read, brightness=0.05)  # where the fast preset calibrates what the model is told
    assert dark.dark and calibration.calibrates(DenoiseSettings(calibrate_dark=True), dark)
    assert not calibration.calibrates(DenoiseSettings(calibrate_dark=True, sigma_scale=1.5), dark)  # the user's factor
    assert calibration.calibrates(DenoiseSettings(calibrate=True, sigma_scale=1.5), dark)  # calibration asked for


def test_dark_footage_under_sigma_auto_is_told_where_sigma_auto_is_weakest(tmp_path, grey_checkpoint):
    denoiser = Denoiser.from_checkpoint(grey_checkpoint, DenoiseSettings(device="cpu"))
    clip = moving_clip(t=4, height=48, width=64)
    dark = write_video(tmp_path / "night.mkv", add_noise(clip * 0.25, 5 / 255), codec="ffv1")
    bright = write_video(tmp_path / "day.mkv", add_noise(clip, 5 / 255), codec="ffv1")
    advice = r"'.*night.mkv' is dark \(mean level (\d+) of 255\), where σ auto .* compare the output with --sigma 20"
    with pytest.warns(UserWarning, match=advice) as caught:
        denoise_video(dark, tmp_path / "night-out.mkv", denoiser, sigma="auto")
    level = int(re.search(advice, str(next(w for w in caught if "is dark" in str(w.message)).message)).group(1))
    assert level == pytest.approx(0.25 * 0.5 * 255, abs=2)  # the clip's mean, 0.5, darkened 4×
    for source, sigma in ((bright, "auto"), (dark, 5 / 255)):  # bright footage; a σ told by hand
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            denoise_video(source, tmp_path / "out.mkv", denoiser, sigma=sigma, overwrite=True)
        assert not [w for w in caught if "is dark" in str(w.message)]


def test_a_carried_share_on_little_noise_is_told_it_may_be_a_codecs_loss(tmp_path, grey_checkpoint, monkeypatch):
    """A carried share read on a level under CODEC_LOSS_LEVEL came only from noise-free H.264 on the validation clips:
    `clean` says so in one line; not above that level, without a share, or told a σ by hand."""
    denoiser = Denoiser.from_checkpoint(grey_checkpoint, DenoiseSettings(device="cpu"))
    source = write_video(tmp_path / "sharp.mkv", moving_clip(t=4, height=48, width=64), codec="ffv1")

    def reads(level: float, carried: float) -> NoiseLevelFunction:
        function = NoiseLevelFunction((0.5,), ((level,),), level, "frame pairs", carried=carried)
        monkeypatch.setattr(pipeline, "estimate_video_noise", lambda reader, coarse=False: function)
        return function

    def warned(sigma="auto") -> list[str]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = denoise_video(source, tmp_path / "out.mkv", denoiser, sigma=sigma, overwrite=True)
        assert result.frames == 4
        return [str(w.message) for w in caught if "carries little noise" in str(w.message)]

    assert reads(CODEC_LOSS_LEVEL * 0.9, 0.5).may_be_codec_loss
    (message,) = warned()
    assert re.fullmatch(
        r"'.*sharp.mkv' carries little noise by σ auto's reading \(RMS 3.0 of 255\), 50% of it read as carried over"
        r" from frame to frame: .* compare it with --sigma 2 \(--side-by-side puts the input beside it\)",
        message,
    )
    assert not warned(sigma=2 / 255)  # a σ told by hand, however small: no estimate to doubt
    for level, carried in ((CODEC_LOSS_LEVEL * 1.1, 0.5), (CODEC_LOSS_LEVEL * 0.9, 0.0)):
        assert not reads(level, carried).may_be_codec_loss
        assert not warned()


def test_noise_too_heavy_to_measure_whole_is_told_it_may_read_low(tmp_path, grey_checkpoint):
    """Gaussian σ = 100 clipped at 0 and 255 reads about 66 (at least HEAVY): `clean` says σ auto reads such noise low
    and asks for a comparison with larger σ; not at σ = 40, nor told a σ by hand."""
    level = NoiseLevelFunction((0.5,), ((HEAVY,),), HEAVY, "frame pairs")
    assert level.may_read_low and not dataclasses.replace(level, level=HEAVY * 0.99).may_read_low
    denoiser = Denoiser.from_checkpoint(grey_checkpoint, DenoiseSettings(device="cpu"))
    clip = moving_clip(t=4, height=96, width=128)

    def warned(sigma_noise: float, sigma="auto") -> list[str]:
        source = tmp_path / f"noisy-{sigma_noise:g}.mkv"
        if not source.exists():
            write_video(source, add_noise(clip, sigma_noise / 255), codec="ffv1")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            denoise_video(source, tmp_path / "out.mkv", denoiser, sigma=sigma, overwrite=True)
        return [str(w.message) for w in caught if "very noisy" in str(w.message)]

    (message,) = warned(100)
    match = re.fullmatch(
        r"'.*noisy-100.mkv' is very noisy by σ auto's reading \(RMS (\d+) of 255\): noise this heavy is clipped at 0"
        r" and 255 .* reads it low .* compare the output with --sigma 75 and 100 on a few seconds of it .*",
        message,
    )
    assert match and HEAVY * 255 <= int(match.group(1)) < 100
    assert not warned(40)
    assert not warned(100, sigma=100 / 255)  # a σ told by hand: no estimate to doubt


def test_a_scene_cut_in_the_runs_sigma_auto_reads_is_told_and_nothing_else_changes(tmp_path, grey_checkpoint):
    """A cut after frame 4 of 8 lies in two of σ auto's runs: `clean` says so in one line (the estimate itself is as
    without the count: test_scene_cuts); a clip of one scene, or a σ told by hand, gets no such line."""
    denoiser = Denoiser.from_checkpoint(grey_checkpoint, DenoiseSettings(device="cpu"))
    first, second = (moving_clip(t=8, height=96, width=128, seed=seed) for seed in (0, 1))

    def warned(clip: torch.Tensor, name: str, sigma="auto") -> list[str]:
        source = tmp_path / f"{name}.mkv"
        write_video(source, add_noise(clip, 2 / 255), codec="ffv1")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            denoise_video(source, tmp_path / "out.mkv", denoiser, sigma=sigma, overwrite=True)
        return [str(w.message) for w in caught if "two different pictures" in str(w.message)]

    (message,) = warned(torch.cat([first[:4], second[4:]]), "cut")
    assert re.fullmatch(
        r"in 2 of the stretches of '.*cut.mkv' σ auto measured on, consecutive frames show two different pictures"
        r" \(a scene cut, or motion too fast to follow\), .* compare it with a lower --sigma, or clean each shot .*",
        message,
    )
    assert not warned(first, "one-scene")
    assert not warned(torch.cat([first[:4], second[4:]]), "told", sigma=2 / 255)


def test_dark_footage_is_calibrated_by_the_fast_preset_and_the_warning_says_so(tmp_path, grey_checkpoint, monkeypatch):
    assert PRESETS["fast"].calibrate_dark and PRESETS["balanced"].calibrate_dark
    assert not DenoiseSettings().calibrate_dark  # the library's bare settings: only what is asked for
    clip = moving_clip(t=4, height=48, width=64)
    dark = write_video(tmp_path / "night.mkv", add_noise(clip * 0.25, 5 / 255), codec="ffv1")
    bright = write_video(tmp_path / "day.mkv", add_noise(clip, 5 / 255), codec="ffv1")
    asked = []  # what calibration was asked about: σ auto's function of the dark video only
    monkeypatch.setattr(
        pipeline, "choose_told_scale", lambda denoiser, frames, sigma: asked.append(sigma) or Calibration(1.6, {}, 1)
    )
    settings = dataclasses.replace(PRESETS["fast"], device="cpu")
    denoiser = Denoiser.from_checkpoint(grey_checkpoint, settings)
    told = []
    with pytest.warns(UserWarning, match="is dark .* was calibrated on the video itself, as its line says; compare"):
        denoise_video(dark, tmp_path / "a.mkv", denoiser, sigma="auto", on_sigma=lambda s, how: told.append(s))
    assert len(asked) == 1 and asked[0].dark and told[0].told_scale == 1.6
    for source, sigma in ((bright, "auto"), (dark, 5 / 255)):  # bright footage; a σ told by hand: never asked
        denoise_video(source, tmp_path / "b.mkv", denoiser, sigma=sigma, overwrite=True)
    assert len(asked) == 1


def test_streaming_holds_a_few_windows_whatever_the_length():
    denoiser = Denoiser(Recorder(), DenoiseSettings(device="cpu", window=5, stride=3, tile=0))
    done, ahead = frames_read_ahead(lambda frames: denoiser.denoise_frames(frames, None), indexed_frames(200, size=4))
    assert done == 200 and ahead <= 5


# ----------------------------------------------------------------------------------------------------
# tiles, sizes, colour, σ


@pytest.mark.parametrize("options", [{}, {"token_set": "spatiotemporal", "layers": 2}])
def test_tiles_give_the_untiled_result(options):
    model = build_model("dust", channels=1, **options)
    clip = add_noise(moving_clip(t=3, channels=1, height=110, width=150), 25 / 255)
    whole = Denoiser(model, DenoiseSettings(device="cpu", tile=0, window=3, stride=3)).denoise_clip(clip, 25 / 255)
    tiled_denoiser = Denoiser(model, DenoiseSettings(device="cpu", tile=80 if not options else 96, window=3, stride=3))
    assert len(tiled_denoiser._tiling(110, 150)[0]) >= 4
    tiled = tiled_denoiser.denoise_clip(clip, 25 / 255)
    assert (tiled - whole).abs().max() < 1e-4


def test_tile_spans_cover_overlap_and_sit_on_the_patch_grid():
    for length in (97, 190, 640, 1081):
        spans = tile_spans(length, 256, 32, 4)
        assert spans[0][0] == 0 and spans[-1][1] == length
        for (a0, a1), (b0, _) in zip(spans, spans[1:]):
            assert b0 % 4 == 0 and a1 - b0 >= 32 and b0 > a0
        assert max(b - a for a, b in spans) <= 256 + 4
    assert tile_spans(200, 256, 32, 4) == [(0, 200)]


def test_reflect():
    assert [reflect(j, 5) for j in range(-3, 8)] == [3, 2, 1, 0, 1, 2, 3, 4, 3, 2, 1]
    assert [reflect(j, 1) for j in (-2, 0, 3)] == [0, 0, 0]
    assert [reflect(j, 4) for j in range(-2, 6)] == [2, 1, 0, 1, 2, 3, 2, 1]  # as bench_quality's copy was tested


@pytest.mark.parametrize("size", [(23, 37), (9, 5), (1, 1)])
def test_odd_and_tiny_sizes(tmp_path, grey_checkpoint, size):
    clip = moving_clip(t=4, height=size[0], width=size[1])
    source = write_video(tmp_path / "odd.mkv", clip, codec="ffv1")
    result = denoise_video(
        source, None, Denoiser.from_checkpoint(grey_checkpoint, DenoiseSettings(device="cpu", tile=64)), sigma=25 / 255
    )
    info = probe_video(result.output)
    assert (info.n_frames, info.height, info.width) == (4, *size)


@pytest.mark.parametrize("model_channels,video_channels", [(1, 1), (1, 3), (3, 3), (3, 1)])
def test_grey_and_colour_models_on_grey_and_colour_video(model_channels, video_channels):
    clean = moving_clip(t=5, channels=video_channels, height=48, width=64)
    noisy = add_noise(clean, 25 / 255)
    denoiser = Denoiser(build_model("dust", channels=model_channels), DenoiseSettings(device="cpu"))
    for colour in ("rgb", "opponent"):
        denoiser.colour = colour
        out = denoiser.denoise_clip(noisy, 25 / 255)
        assert out.shape == clean.shape
        assert psnr(out, clean) > psnr(noisy, clean) + 3


def test_denoised_psnr_beats_noisy_psnr_on_real_video():
    clean = read_video(GIF)
    noisy = add_noise(clean, 25 / 255)
    out = Denoiser(build_model("dust", channels=1), DenoiseSettings(device="cpu")).denoise_clip(noisy, 25 / 255)
    assert psnr(noisy, clean) < 21
    assert psnr(out, clean) > psnr(noisy, clean) + 2


def test_each_preset_applies_its_shipped_weights_and_they_denoise():
    assert set(PRESET_WEIGHTS) == set(PRESETS)  # every preset names its weights
    fast, best = Denoiser.from_preset("fast"), Denoiser.from_preset("best")
    assert fast.checkpoint == checkpoints.DEFAULT_CHECKPOINT and fast.settings == PRESETS["fast"]
    balanced = Denoiser.from_preset("balanced")  # fast's weights, with the sparse Wiener filter after them
    assert balanced.checkpoint == checkpoints.DEFAULT_CHECKPOINT and balanced.settings == PRESETS["balanced"]
    assert best.checkpoint.name == "dust-video-wide.safetensors" and best.settings == PRESETS["best"]
    assert type(best.model) is type(fast.model) and best.model.config.channels == fast.model.config.channels == 1
    assert (fast.model.config.atoms, best.model.config.atoms) == (256, 576)  # best's code is wider
    assert best.model.config.stride == PRESETS["best"].patch_stride == 2  # fine-tuned at the stride best cuts
    # its first pass, which only steers the second's fusion, cuts the sparser grid with the same weights
    assert best._guide.model.config.stride == 4 and best._guide.model.dictionary is best.model.dictionary
    clean = read_video(GIF)[:5, :, :64, :64]
    noisy = add_noise(clean, 25 / 255)
    one_pass = dataclasses.replace(PRESETS["best"], calibrate=False, passes=1, device="cpu")
    out = Denoiser.from_preset("best", settings=one_pass).denoise_clip(noisy, 25 / 255)
    assert psnr(out, clean) > psnr(noisy, clean) + 5
    out = balanced.denoise_clip(noisy, 25 / 255)
    assert psnr(out, clean) > psnr(noisy, clean) + 5
    with pytest.raises(DenoiseError, match="unknown --quality 'finest'; choose one of: fast, balanced, best"):
        Denoiser.from_preset("finest", settings=one_pass)


def test_noise_level_rescaling_beats_the_model_as_trained_below_its_level():
    clean = read_video(GIF)
    model = build_model("dust", channels=1)  # thresholds set for 25/255
    gains = {}
    for sigma in (10 / 255, 50 / 255):
        noisy = add_noise(clean, sigma, seed=1)
        rescaled = Denoiser(model, DenoiseSettings(device="cpu")).denoise_clip(noisy, sigma)
        as_trained = Denoiser(model, DenoiseSettings(device="cpu", scaling="none")).denoise_clip(noisy, sigma)
        gains[round(sigma * 255)] = psnr(rescaled, clean) - psnr(as_trained, clean)
    # measured: +4.4 dB at σ = 10 (the model as trained wipes out detail it takes for noise),
    # +0.2 dB at σ = 50 on this clip (+0.5 dB on bikes)
    assert gains[10] > 3 and gains[50] > -0.3


@pytest.mark.parametrize(
    "model_channels,video_channels,colour",
    [(1, 1, "rgb"), (1, 3, "rgb"), (1, 3, "opponent"), (3, 3, "rgb"), (3, 1, "rgb")],
)
@pytest.mark.parametrize("tile,mirrors", [(72, 1), (0, 4), (72, 4)])
def test_the_pipeline_adds_nothing_of_its_own(model_channels, video_channels, colour, tile, mirrors):
    """With the identity as the model, windows, tiles, mirror images, colour handling and noise-level rescaling
    give back the input exactly: nothing is added, whatever the model does (and a model that hands back its
    own input is not worked on in place), but the clipping's bias undone, told σ, and only that."""
    model = Identity(channels=model_channels)
    noisy = add_noise(moving_clip(t=7, channels=video_channels, height=100, width=90), 25 / 255)
    settings = DenoiseSettings(device="cpu", tile=tile, overlap=36, colour=colour, mirrors=mirrors)
    denoiser = Denoiser(model, settings, sigma_train=25 / 255)
    for sigma in (None, 10 / 255, 50 / 255):
        expected = noisy if sigma is None else clipping.unclip(noisy, sigma)
        assert (denoiser.denoise_clip(noisy, sigma) - expected).abs().max() < 1e-5
    denoiser = Denoiser(model, dataclasses.replace(settings, unclip=False), sigma_train=25 / 255)
    for sigma in (None, 10 / 255, 50 / 255):
        assert (denoiser.denoise_clip(noisy, sigma) - noisy).abs().max() < 1e-5


def test_a_grey_picture_in_a_colour_file_stays_grey_and_the_model_sees_its_luminance_only():
    # a camera's night mode: grey pictures in colour frames, whose colour differences are flat zero
    model, seen = build_model("dust", channels=1), []
    model.register_forward_pre_hook(lambda module, args: seen.append(args[0].shape[0]))
    noisy = add_noise(moving_clip(t=5, channels=1, height=48, width=64), 25 / 255).expand(-1, 3, -1, -1)
    denoiser = Denoiser(model, DenoiseSettings(device="cpu", tile=32, overlap=16))
    for sigma in (25 / 255, torch.full((5, 48, 64), 25 / 255)):
        seen.clear()
        out = denoiser.denoise_clip(noisy, 25 / 255) if not torch.is_tensor(sigma) else None
        if out is None:  # a noise map, as fusion tells it
            out = denoiser.denoise_window(noisy, 25 / 255, noise_map=sigma)
        assert (out - out.mean(dim=1, keepdim=True)).abs().max() < 1e-6  # no tint (the model's bias gave 1e-3)
        assert seen and set(seen) == {1}  # one clip a tile: the luminance, not the two flat colour differences
    flat = torch.full((5, 3, 48, 64), 0.25)
    # a flat screen: nothing to remove but the bias σ = 25 would have left clipped (0.04 of a level, undone)
    assert (denoiser.denoise_clip(flat, 25 / 255) - clipping.unclip(flat, 25 / 255)).abs().max() < 1e-6
    seen.clear()
    colour = add_noise(moving_clip(t=5, channels=3, height=48, width=64), 25 / 255)
    denoiser.denoise_clip(colour, 25 / 255)
    assert set(seen) == {3}


def test_denoising_is_deterministic():
    denoiser = Denoiser(build_model("dust", channels=1), DenoiseSettings(device="cpu"))
    noisy = add_noise(moving_clip(t=6), 25 / 255)
    assert torch.equal(denoiser.denoise_clip(noisy, 25 / 255), denoiser.denoise_clip(noisy, 25 / 255))


def test_sigma_estimate_is_close_to_the_true_noise_level():
    clean = moving_clip(t=5, channels=3, height=96, width=128)
    for sigma in (10 / 255, 25 / 255, 50 / 255):
        estimate = estimate_noise_sigma(
            clean + sigma * torch.randn(clean.shape, generator=torch.Generator().manual_seed(2))
        )
        assert estimate == pytest.approx(sigma, rel=0.15)


# ----------------------------------------------------------------------------------------------------
# the demo


def test_demo_writes_three_videos_and_denoising_raises_psnr(tmp_path):
    denoiser = Denoiser(build_model("dust", channels=1), DenoiseSettings(device="cpu"))
    result = run_demo(tmp_path / "demo", denoiser, clip=GIF, seed=3)
    assert result.frames == 24
    assert result.noisy_psnr == pytest.approx(20.6, abs=0.8)  # σ = 25 on [0, 1] is 20.2 dB before clipping
    assert result.denoised_psnr > result.noisy_psnr + 2
    names = sorted(p.name for p in (tmp_path / "demo").iterdir())
    assert names == [f"{GIF.stem}.denoised.mp4", f"{GIF.stem}.noisy.mp4", f"{GIF.stem}.side-by-side.mp4"]
    assert probe_video(result.side_by_side).width == 2 * 14 and probe_video(result.denoised).n_frames == 24
    again = run_demo(
        tmp_path / "demo", denoiser, clip=GIF, seed=3, overwrite=True
    )  # reproducible; replacing needs overwrite
    assert again.noisy_psnr == result.noisy_psnr and again.denoised_psnr == result.denoised_psnr


def test_demo_command_prints_both_psnrs(tmp_path, capsys, monkeypatch, grey_checkpoint):
    monkeypatch.setattr("videodenoise.datasets.samples.fetch_sample_clips", lambda cache_dir=None: {"bikes": GIF})
    code, out, err = run_cli(
        ["demo", "--output-dir", str(tmp_path), "--checkpoint", str(grey_checkpoint), "--frames", "10", "--quiet"],
        capsys,
        monkeypatch,
    )
    assert code == 0, err
    noisy, denoised = (float(line.split()[2]) for line in out.splitlines() if "PSNR" in line)
    assert denoised > noisy + 1
    assert (tmp_path / f"{GIF.stem}.denoised.mp4").is_file()


# ----------------------------------------------------------------------------------------------------
# the command


def test_clean_command_several_inputs_progress_and_quiet(tmp_path, capsys, monkeypatch, grey_checkpoint):
    """clip0 is H.264, clip1 FFV1: each output is stored as its input is, and the lossless one says so."""
    sources = [
        write_video(tmp_path / name, add_noise(moving_clip(t=5, seed=k), 20 / 255), codec=codec)
        for k, (name, codec) in enumerate([("clip0.mp4", "h264"), ("clip1.mkv", "ffv1")])
    ]
    code, out, err = run_cli(["clean", *map(str, sources), "--checkpoint", str(grey_checkpoint)], capsys, monkeypatch)
    assert code == 0, err
    assert out.count("noise estimated from motion-aligned frame differences") == 2
    assert out.count("wrote") == 2 and "5 frames" in out
    assert f"wrote {tmp_path / 'clip1.denoised.mkv'} (without loss, as its input is stored): 5 frames" in out
    assert out.count("without loss") == 1
    assert "frames" in err and "fps" in err  # the progress bar (rendered once when not on a terminal)
    assert (tmp_path / "clip0.denoised.mp4").is_file() and (tmp_path / "clip1.denoised.mkv").is_file()
    folder = tmp_path / "out"
    folder.mkdir()
    code, out, err = run_cli(
        [
            "clean",
            *map(str, sources),
            "-o",
            str(folder),
            "--checkpoint",
            str(grey_checkpoint),
            "--sigma",
            "20",
            "--quiet",
        ],
        capsys,
        monkeypatch,
    )
    assert code == 0, err
    assert out == "" and err == ""
    assert sorted(p.name for p in folder.iterdir()) == ["clip0.denoised.mp4", "clip1.denoised.mkv"]


def test_crf_where_the_output_is_not_h264_is_said_not_ignored(tmp_path, capsys, monkeypatch, grey_checkpoint):
    lossless = write_video(tmp_path / "scan.mkv", moving_clip(t=3), codec="ffv1")
    phone = write_video(tmp_path / "phone.mp4", moving_clip(t=3))
    args = ["--checkpoint", str(grey_checkpoint), "--sigma", "5", "--crf", "20", "--quiet"]
    code, out, err = run_cli(["clean", str(lossless), str(phone), *args], capsys, monkeypatch)
    assert code == 0, err
    assert err == (
        f"warning: --crf sets H.264's and HEVC's quality, but '{tmp_path / 'scan.denoised.mkv'}' is written in FFV1, "
        "without loss as its input is stored; pass --format mp4 for H.264\n"
    )
    code, out, err = run_cli(["clean", str(lossless), "--format", "mp4", *args, "--overwrite"], capsys, monkeypatch)
    assert code == 0 and err == "", err
    with av.open(str(tmp_path / "scan.denoised.mp4")) as container:
        assert container.streams.video[0].codec_context.name == "h264"


def test_torchrun_ranks_share_the_inputs(tmp_path, capsys, monkeypatch, grey_checkpoint):
    sources = [write_video(tmp_path / f"clip{k}.mp4", moving_clip(t=3, seed=k)) for k in range(3)]
    monkeypatch.setenv("RANK", "1")
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.setenv("LOCAL_RANK", "1")
    code, out, err = run_cli(
        ["clean", *map(str, sources), "--checkpoint", str(grey_checkpoint), "--sigma", "10", "--device", "cpu"],
        capsys,
        monkeypatch,
    )
    assert code == 0, err
    assert [p.exists() for p in (tmp_path / f"clip{k}.denoised.mp4" for k in range(3))] == [False, True, False]
    assert "[rank 1] wrote" in out


def test_a_corrupt_first_frame_takes_the_next_one(tmp_path):
    clip = moving_clip(t=4)
    with pytest.warns(UserWarning, match="frame 0 of .* cannot be decoded"):
        frames = read_video(png_movie(tmp_path / "first.mov", clip, corrupt=[0]))
    assert len(frames) == 4 and torch.equal(frames[0], frames[1]) and torch.equal(frames[1:], clip[1:])


def test_corrupt_frame_mid_video_warns_and_keeps_alignment(tmp_path, capsys, monkeypatch, grey_checkpoint):
    clip = moving_clip(t=12)
    source = png_movie(tmp_path / "broken.mov", clip, corrupt=[6])
    code, out, err = run_cli(
        ["clean", str(source), "--checkpoint", str(grey_checkpoint), "--sigma", "3", "--format", "lossless", "--quiet"],
        capsys,
        monkeypatch,
    )
    assert code == 0, err
    assert f"warning: frame 6 of '{source}' cannot be decoded (corrupt data); repeating its neighbour" in err
    out_clip = read_video(tmp_path / "broken.denoised.mkv")
    assert len(out_clip) == 12
    # every other frame is where it was: closer to its own clean frame than to its neighbours
    for index in (0, 5, 7, 11):
        own = psnr(out_clip[index : index + 1], clip[index : index + 1])
        assert own > 30 and all(
            own > psnr(out_clip[index : index + 1], clip[k : k + 1]) + 3 for k in (index - 1, index + 1) if 0 <= k < 12
        )


def test_concealed_damage_is_reported_once_with_the_noise_estimated_first(
    tmp_path, capsys, monkeypatch, grey_checkpoint
):
    """With σ auto the estimator decodes the damaged frame first, quietly; the denoising pass still reports it."""
    source = h264_video(tmp_path / "damaged.mkv", moving_clip(t=10), damaged=(4,))
    code, out, err = run_cli(
        ["clean", str(source), "--checkpoint", str(grey_checkpoint), "--format", "lossless", "--quiet"],
        capsys,
        monkeypatch,
    )
    assert code == 0, err
    assert err.count(f"warning: frame 4 of '{source}' holds damaged data (FFmpeg's h264 decoder: ") == 1
    assert len(read_video(tmp_path / "damaged.denoised.mkv")) == 10


def write_garbage(path: Path) -> Path:
    path.write_bytes(os.urandom(4096))
    return path


def empty_video(path: Path) -> Path:
    """A valid container whose video stream has no frames."""
    with av.open(str(path), "w") as container:
        stream = container.add_stream("ffv1", rate=25)
        stream.width, stream.height, stream.pix_fmt = 32, 32, "bgr0"
        container.start_encoding()
    return path


def foreign_safetensors(path: Path) -> Path:
    from safetensors.torch import save_file

    save_file({"weight": torch.zeros(3)}, str(path))
    return path


def mismatched_checkpoint(path: Path) -> Path:
    """Our metadata for one DUST, the tensors of another (a different code size)."""
    import json

    from safetensors.torch import save_file

    model = build_model("dust", channels=1, code_size=128)
    config = dict(json.loads(json.dumps(model.config.__dict__)), code_size=None)
    save_file(
        {k: v.contiguous() for k, v in model.state_dict().items()},
        str(path),
        metadata={"videodenoise_model": "dust", "config": json.dumps(config), "format_version": "1"},
    )
    return path


@pytest.mark.parametrize(
    "case,message",
    [
        ("missing", "error: '{tmp}/nope.mp4' does not exist; check the path"),
        ("not a video", "error: '{tmp}/text.mp4' is not a video that PyAV or OpenCV can decode"),
        ("zero frames", "error: '{tmp}/empty.mkv' is not a video that PyAV or OpenCV can decode"),
        ("no decodable frame", "error: no frame of '{tmp}/dead.mov' can be decoded; the file is corrupt"),
        ("empty folder", "error: '{tmp}/nothing' holds no image frames"),
        (
            "folder of videos",
            "error: '{tmp}/recordings' holds no image frames (.bmp, .jpeg, .jpg, .png, .tif, .tiff); it holds 2 video "
            "file(s) (cam1.mp4, cam2.ts): give those as the inputs ('{tmp}/recordings'/*)",
        ),
        ("not our checkpoint", "is not a safetensors weights file"),
        ("foreign safetensors", "has no videodenoise model metadata; pass a file written by save_model"),
        ("mismatched checkpoint", "does not fit a dust model with this config"),
        ("missing checkpoint", "error: weights file not found: {tmp}/none.safetensors"),
        (
            "default checkpoint missing",
            "error: the shipped checkpoint {tmp}/no-install/dust-video.safetensors is missing "
            "(reinstall videodenoise); or pass --checkpoint PATH",
        ),
        ("output exists", "error: '{tmp}/in.denoised.mp4' already exists; pass --overwrite to replace it"),
        ("output is input", "error: the output '{tmp}/in.mp4' is the input; choose another output name"),
        ("no output folder", "error: cannot write '{tmp}/missing/out.mp4': folder '{tmp}/missing' does not exist"),
        (
            "output folder is a file",
            "error: cannot write '{tmp}/in.mp4/out.mp4': '{tmp}/in.mp4' is a file, not a folder",
        ),
        ("wrong suffix", "error: the lossless format needs a .mkv path, got '{tmp}/out.mp4'"),
        ("hevc in avi", "error: the h265 format needs a .mp4, .m4v, .mkv or .mov path, got '{tmp}/out.avi'"),
        ("bad sigma", "error: --sigma must be a number on the 0-255 scale, auto or none; got 'loud'"),
        ("two inputs one file", "error: with 2 inputs, --output must be an existing folder"),
        ("same output twice", "would both write"),
        ("bad window", "error: the temporal window must be from 1 to 64 frames, got 0"),
    ],
)
def test_bad_input_gives_one_line_and_exit_code_1(tmp_path, capsys, monkeypatch, grey_checkpoint, case, message):
    source = write_video(tmp_path / "in.mp4", moving_clip(t=3))
    weights = str(grey_checkpoint)
    args = {
        "missing": [str(tmp_path / "nope.mp4")],
        "not a video": [str(write_garbage(tmp_path / "text.mp4"))],
        "zero frames": [str(empty_video(tmp_path / "empty.mkv"))],
        "no decodable frame": [str(png_movie(tmp_path / "dead.mov", moving_clip(t=3), corrupt=[0, 1, 2]))],
        "empty folder": [str(tmp_path / "nothing")],
        "folder of videos": [str(tmp_path / "recordings")],
        "not our checkpoint": [str(source), "--checkpoint", str(write_garbage(tmp_path / "x.safetensors"))],
        "foreign safetensors": [str(source), "--checkpoint", str(foreign_safetensors(tmp_path / "f.safetensors"))],
        "mismatched checkpoint": [str(source), "--checkpoint", str(mismatched_checkpoint(tmp_path / "m.safetensors"))],
        "missing checkpoint": [str(source), "--checkpoint", str(tmp_path / "none.safetensors")],
        "default checkpoint missing": [str(source)],
        "output exists": [str(source)],
        "output is input": [str(source), "-o", str(source), "--overwrite"],
        "no output folder": [str(source), "-o", str(tmp_path / "missing" / "out.mp4")],
        "output folder is a file": [str(source), "-o", str(source / "out.mp4")],
        "wrong suffix": [str(source), "-o", str(tmp_path / "out.mp4"), "--format", "lossless"],
        "hevc in avi": [str(source), "-o", str(tmp_path / "out.avi"), "--format", "h265"],
        "bad sigma": [str(source), "--sigma", "loud"],
        "two inputs one file": [str(source), str(source), "-o", str(tmp_path / "x.mp4")],
        "same output twice": [str(source), str(source)],
        "bad window": [str(source), "--window", "0"],
    }[case]
    if case == "empty folder":
        (tmp_path / "nothing").mkdir()
    if case == "folder of videos":
        (tmp_path / "recordings").mkdir()
        for name in ("cam1.mp4", "cam2.ts"):
            (tmp_path / "recordings" / name).write_bytes(source.read_bytes())
    if case == "output exists":
        (tmp_path / "in.denoised.mp4").write_bytes(b"keep me")
    if case == "default checkpoint missing":
        monkeypatch.setattr(checkpoints, "SHIPPED", tmp_path / "no-install")
    elif "--checkpoint" not in args:
        args += ["--checkpoint", weights]
    before = sorted(p.name for p in tmp_path.iterdir())
    code, out, err = run_cli(["clean", *args, "--quiet"], capsys, monkeypatch)
    assert code == 1
    assert message.replace("{tmp}", str(tmp_path)) in err and err.startswith("error: ")
    assert err.count("\n") == 1 and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing written, nothing half-written
    if case == "output exists":
        assert (tmp_path / "in.denoised.mp4").read_bytes() == b"keep me"


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere")
def test_unwritable_output_folder(tmp_path, capsys, monkeypatch, grey_checkpoint):
    source = write_video(tmp_path / "in.mp4", moving_clip(t=3))
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        code, out, err = run_cli(
            ["clean", str(source), "-o", str(locked), "--checkpoint", str(grey_checkpoint)], capsys, monkeypatch
        )
    finally:
        locked.chmod(0o700)
    assert code == 1 and "is not writable" in err and err.count("\n") == 1


def test_a_failure_mid_video_leaves_no_output(tmp_path, grey_checkpoint):
    class Failing(Recorder):
        def forward(self, clip):
            if len(self.windows) == 2:
                raise RuntimeError("out of memory")
            return super().forward(clip)

    source = with_audio(tmp_path / "in.mp4", moving_clip(t=12))
    with pytest.raises(RuntimeError):
        denoise_video(
            source, None, Denoiser(Failing(channels=3), DenoiseSettings(device="cpu")), sigma=None, side_by_side=True
        )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.mp4"]


def test_several_inputs_continue_past_a_failure(tmp_path, capsys, monkeypatch, grey_checkpoint):
    good = write_video(tmp_path / "good.mp4", moving_clip(t=3))
    bad = write_video(tmp_path / "bad.mkv", moving_clip(t=3), codec="ffv1")
    calls = []

    denoise_plan = pipeline.denoise_plan

    def flaky(plan, *args, **kwargs):
        calls.append(plan.input.name)
        if plan.input.name == "bad.mkv":
            raise DenoiseError("simulated failure")
        return denoise_plan(plan, *args, **kwargs)

    monkeypatch.setattr(pipeline, "denoise_plan", flaky)  # the CLI calls it through its module
    code, out, err = run_cli(
        ["clean", str(bad), str(good), "--checkpoint", str(grey_checkpoint), "--sigma", "5", "--quiet"],
        capsys,
        monkeypatch,
    )
    assert code == 1
    assert calls == ["bad.mkv", "good.mp4"]
    assert err.strip().splitlines() == [
        f"error: {bad}: simulated failure",
        "error: 1 of 2 inputs failed (see above); the others were written",
    ]
    assert (tmp_path / "good.denoised.mp4").is_file() and not (tmp_path / "bad.denoised.mp4").exists()


def test_a_full_disk_is_one_line_and_leaves_no_output(tmp_path, capsys, monkeypatch, grey_checkpoint):
    from videodenoise.io.writers import VideoWriter

    source = write_video(tmp_path / "in.mp4", moving_clip(t=8))
    write = VideoWriter.write

    def write_until_full(self, frame, pts=None):
        if self.n_written == 3:
            raise OSError(28, "No space left on device")
        write(self, frame, pts)

    monkeypatch.setattr(VideoWriter, "write", write_until_full)
    code, out, err = run_cli(
        ["clean", str(source), "--checkpoint", str(grey_checkpoint), "--sigma", "10", "--quiet"], capsys, monkeypatch
    )
    assert code == 1
    assert err == f"error: cannot denoise '{source}' into '{tmp_path / 'in.denoised.mp4'}': No space left on device\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.mp4"]


@pytest.mark.parametrize(
    "model_channels,video_channels,colour",
    [(1, 1, "rgb"), (1, 3, "rgb"), (1, 3, "opponent"), (3, 3, "rgb"), (3, 1, "rgb")],
)
@pytest.mark.parametrize("mirrors", [1, 2])
def test_denoise_window_leaves_its_inputs_alone(model_channels, video_channels, colour, mirrors):
    """denoise_window works in place on tensors of its own (memory on large frames): the caller's window and
    noise map stay as they were, and the output shares no memory with them; a flat clip too."""
    model = build_model("dust", layers=2, channels=model_channels)
    settings = DenoiseSettings(fusion=None, device="cpu", tile=32, overlap=16, colour=colour, mirrors=mirrors)
    denoiser = Denoiser(model, settings)
    generator = torch.Generator().manual_seed(5)
    noisy = add_noise(moving_clip(t=5, channels=video_channels, height=40, width=48), 25 / 255)
    for clip in (noisy, torch.full_like(noisy, 0.25)):
        for noise_map in (
            None,
            0.05 + 0.05 * torch.rand(5, 40, 48, generator=generator),
            0.05 + 0.05 * torch.rand(5, video_channels, 40, 48, generator=generator),
        ):
            given = (clip.clone(), None if noise_map is None else noise_map.clone())
            out = denoiser.denoise_window(clip, 0.1, start=1, count=3, noise_map=noise_map, grain=(1.5,) * 3)
            assert out.shape == (3, video_channels, 40, 48)
            assert torch.equal(clip, given[0]) and (noise_map is None or torch.equal(noise_map, given[1]))
            out.fill_(2.0)
            assert torch.equal(clip, given[0]) and (noise_map is None or torch.equal(noise_map, given[1]))


@pytest.mark.parametrize("tile", [0, 64])
def test_mirrors_average_the_model_over_mirror_images_turned_back(tile):
    """mirrors = 2 is the mean of the model's estimate and its estimate of the left-right mirror image,
    flipped back; 4 adds up-down and both; with a per-pixel noise map mirrored along, tiled or not."""
    model = build_model("dust", layers=2, channels=1)
    generator = torch.Generator().manual_seed(3)
    clip = torch.rand(5, 1, 40, 96, generator=generator)
    noise_map = 0.05 + 0.05 * torch.rand(5, 40, 96, generator=generator)

    def denoise(x, mirrors=1, noise=None):
        denoiser = Denoiser(model, DenoiseSettings(fusion=None, device="cpu", tile=tile, mirrors=mirrors))
        return denoiser.denoise_window(x, 0.1, noise_map=noise)

    for noise in (None, noise_map):
        flips = [(), (-1,), (-2,), (-2, -1)]
        each = [
            denoise(clip.flip(f) if f else clip, noise=noise.flip(f) if f and noise is not None else noise)
            for f in flips
        ]
        each = [e.flip(f) if f else e for e, f in zip(each, flips)]
        torch.testing.assert_close(denoise(clip, 2, noise), (each[0] + each[1]) / 2, atol=1e-5, rtol=0)
        torch.testing.assert_close(denoise(clip, 4, noise), sum(each) / 4, atol=1e-5, rtol=0)
        assert not torch.allclose(each[0], each[1], atol=1e-3)  # the mirror images do differ
    with pytest.raises(DenoiseError, match="mirrors must be 1, 2 or 4"):
        DenoiseSettings(mirrors=3)


@pytest.mark.parametrize(
    "clip, message",
    [
        (np.zeros((5, 3, 8, 8), np.float32), "got ndarray: convert it with torch.from_numpy"),
        (torch.zeros(5, 8, 8), r"expects a \(T, C, H, W\) tensor, got \(5, 8, 8\)"),
        (torch.zeros(5, 8, 8, 3), r"got \(5, 8, 8, 3\): channels last\? use clip.permute\(0, 3, 1, 2\)"),
        (torch.zeros(5, 2, 8, 8), r"C = 1 or 3, got \(5, 2, 8, 8\)$"),
        (
            torch.zeros(5, 3, 8, 8, dtype=torch.uint8),
            "float frames on the \\[0, 1\\] scale, got torch.uint8: divide by 255",
        ),
        (torch.zeros(5, 3, 8, 8, dtype=torch.int32), "got torch.int32: divide by 2147483647"),
        (torch.full((5, 3, 8, 8), 200.0), r"values up to 200; .* \(divide 8-bit values by 255\)"),
        (torch.full((5, 3, 8, 8), float("nan")), "NaN or infinite"),
    ],
)
def test_a_clip_the_library_cannot_take_is_refused_in_one_line(clip, message):
    """Frames in an integer dtype or on the 0-255 scale would come back clamped to [0, 1], silently wrong."""
    denoiser = Denoiser(build_model("dust", layers=1, patch_size=4, stride=2), DenoiseSettings(device="cpu", tile=0))
    with pytest.raises(DenoiseError, match=message):
        denoiser.denoise_clip(clip, 0.1)
    # unclipped noise strays a little outside [0, 1]: still taken
    noisy = (torch.rand(3, 1, 8, 8) + 0.3 * torch.randn(3, 1, 8, 8)).clamp(-1.5, 2.5)
    assert denoiser.denoise_clip(noisy, 0.1).shape == (3, 1, 8, 8)

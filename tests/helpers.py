"""Helpers shared by the test modules."""

from __future__ import annotations

import importlib.util
import sys
from fractions import Fraction
from pathlib import Path

import av
import cv2
import numpy as np
import skimage.data
import torch
import torch.nn as nn

from videodenoise.cli.app import main
from videodenoise.denoise.denoiser import Denoiser
from videodenoise.denoise.settings import DenoiseSettings

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def load_benchmark(name: str):
    """benchmarks/NAME.py as the module NAME, once: the scripts import each other by those names."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def run_cli(args, capsys, monkeypatch) -> tuple[int, str, str]:
    """Run `videodenoise ARGS` in-process: (exit code, stdout, stderr)."""
    monkeypatch.setattr(sys, "argv", ["videodenoise", *map(str, args)])
    monkeypatch.setenv("COLUMNS", "250")  # rich wraps tables to the terminal width
    try:
        main()
        code = 0
    except SystemExit as exit:
        code = exit.code or 0
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def frames_read_ahead(stream, frames) -> tuple[int, int]:
    """(frames yielded, the most input frames `stream(iterator)` had read beyond those it had yielded)."""
    pulled, ahead, done = 0, 0, 0

    def counted():
        nonlocal pulled
        for frame in frames:
            pulled += 1
            yield frame

    for done, _ in enumerate(stream(counted()), start=1):
        ahead = max(ahead, pulled - done)
    return done, ahead


def png_movie(path: Path, clip: torch.Tensor, corrupt: list[int]) -> Path:
    """A lossless PNG-in-MOV video (every frame a PNG, whose checksums make damage detectable) with
    the packets of the frames in `corrupt` overwritten by random bytes."""
    with av.open(str(path), "w") as container:
        stream = container.add_stream("png", rate=25)
        stream.width, stream.height, stream.pix_fmt = clip.shape[3], clip.shape[2], "rgb24"
        for index, frame in enumerate(clip):
            video_frame = av.VideoFrame.from_ndarray(
                (frame.permute(1, 2, 0).numpy() * 255).round().astype(np.uint8), format="rgb24"
            )
            video_frame.pts = index
            container.mux(stream.encode(video_frame))
        container.mux(stream.encode(None))
    with av.open(str(path)) as container:
        packets = [(p.pos, p.size) for p in container.demux(container.streams.video[0]) if p.size]
    data = bytearray(path.read_bytes())
    for index in corrupt:
        position, size = packets[index]
        data[position + size // 4 : position + size // 4 + size // 2] = np.random.default_rng(index).bytes(size // 2)
    path.write_bytes(bytes(data))
    return path


def h264_video(
    path: Path, clip: torch.Tensor, damaged: tuple[int, ...] = (), dropped: int = 0, options: dict | None = None
) -> Path:
    """An H.264 video (the container from the suffix) as a recording with lost data would be: the packets of
    the frames in `damaged` cut to half their bytes (the decoder reports errors in them and conceals what is
    missing: a frame comes out, damaged), the first `dropped` packets left out (a recording that starts after
    a keyframe, as a DVR cuts a stream into files: the frames before the next one lack their references).
    By default no B-frames and one keyframe, so packet k is frame k and every later frame is predicted from it."""
    with av.open(str(path), "w") as container:
        stream = container.add_stream("libx264", rate=25, options=options or {"x264-params": "bframes=0:keyint=100"})
        stream.width, stream.height, stream.pix_fmt = clip.shape[3], clip.shape[2], "yuv420p"
        images = (clip.permute(0, 2, 3, 1).numpy() * 255).round().astype(np.uint8)
        packets = [p for image in images for p in stream.encode(av.VideoFrame.from_ndarray(image, format="rgb24"))]
        packets += list(stream.encode(None))
        for index, packet in enumerate(packets[dropped:], start=dropped):
            if index in damaged:
                cut = av.Packet(bytes(packet)[: packet.size // 2])
                cut.pts, cut.dts, cut.time_base, cut.stream = packet.pts, packet.dts, packet.time_base, stream
                packet = cut
            container.mux(packet)
    return path


def picture(index: int, height: int = 48, width: int = 64, channels: int = 3, peak: int = 255) -> np.ndarray:
    """A smooth frame that differs from frame to frame, as integers up to `peak`."""
    y, x = np.mgrid[0:height, 0:width] / max(height, width)
    planes = [0.5 + 0.4 * np.sin(5 * x + 3 * y + c + 0.4 * index) for c in range(channels)]
    return np.round(np.stack(planes, axis=2) * peak).astype(np.uint16 if peak > 255 else np.uint8)


def encode(
    path: Path,
    frames,
    codec: str = "libx264",
    pix_fmt: str = "yuv420p",
    rate: int = 25,
    layout="rgb24",
    pts=None,
    time_base=None,
    setup=None,
    audio_seconds: float | None = None,
    sample_rate: int = 8000,
    audio_tags: dict[str, str] | None = None,
) -> Path:
    """Write `frames` (H, W, C integer arrays) with PyAV; setup(stream) sets anything else; audio_tags are the audio
    stream's."""
    with av.open(str(path), "w") as container:
        stream = container.add_stream(codec, rate=rate)
        stream.height, stream.width = frames[0].shape[:2]
        stream.pix_fmt = pix_fmt
        if time_base is not None:
            stream.codec_context.time_base = stream.time_base = time_base
        if setup is not None:
            setup(stream)
        audio = container.add_stream("aac", rate=sample_rate, layout="mono") if audio_seconds else None
        if audio is not None and audio_tags:
            audio.metadata.update(audio_tags)
        for index, image in enumerate(frames):
            frame = av.VideoFrame.from_ndarray(image if image.shape[2] > 1 else image[:, :, 0], format=layout)
            frame.pts = index if pts is None else pts[index]
            if time_base is not None:
                frame.time_base = time_base
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode(None):
            container.mux(packet)
        if audio is not None:
            for start in range(0, int(audio_seconds * sample_rate), 1024):
                tone = 0.3 * np.sin(2 * np.pi * 440 * np.arange(start, start + 1024) / sample_rate)
                chunk = av.AudioFrame.from_ndarray(tone.astype(np.float32)[None], format="fltp", layout="mono")
                chunk.sample_rate, chunk.pts = sample_rate, start
                for packet in audio.encode(chunk):
                    container.mux(packet)
            for packet in audio.encode(None):
                container.mux(packet)
    return path


def vfr_video(path: Path, times: list[int]) -> Path:
    """A lossless FFV1 video (path: .mkv) whose frames are shown at `times` milliseconds, as a phone's irregular
    frames are: `picture(k)` for frame k."""
    frames = [picture(k) for k in range(len(times))]
    return encode(path, frames, codec="ffv1", pix_fmt="bgr0", pts=times, time_base=Fraction(1, 1000))


def size_change_stream(path: Path) -> Path:
    """An H.264 elementary stream whose picture size changes half-way (64×48, then 48×32)."""
    parts = []
    for size, name in (((48, 64), "a.h264"), ((32, 48), "b.h264")):
        part = path.with_name(f".{path.stem}-{name}")
        encode(part, [picture(k, *size) for k in range(3)])
        parts.append(part.read_bytes())
        part.unlink()
    path.write_bytes(b"".join(parts))
    return path


TINY_MODEL = {"layers": 3, "patch_size": 4, "stride": 2}


def tiny_config(root: Path, data: dict | None = None, **overrides):
    """A tiny training run on a synthetic UCSD Ped2 replica at `root`: a 3-layer DUST, constrained, two epochs of 4
    batches of 4 16×16 clips on the CPU; `data` overrides DataConfig fields, the rest TrainConfig fields."""
    from videodenoise.training.config import DataConfig, TrainConfig

    fields = dict(
        dataset="ucsd-ped2",
        root=str(root),
        clip_length=3,
        crop=16,
        val_crop=24,
        samples_per_epoch=16,
        val_clips_per_video=2,
    )
    values = dict(
        model="dust",
        model_options=dict(TINY_MODEL),
        mode="constrained",
        epochs=2,
        batch_size=4,
        device="cpu",
    )
    return TrainConfig(**{**values, "data": DataConfig(**{**fields, **(data or {})}), **overrides})


def sigma_range_config(root: Path, data: dict | None = None, **overrides):
    """A tiny noise-conditional training run on a synthetic UCSD Ped2 replica at `root`: a 2-layer DUST by
    ERM over σ ∈ [0, 0.2], one epoch of 2 batches of 4 16×16 clips on the CPU; `data` overrides
    DataConfig fields, the rest TrainConfig fields."""
    values = dict(model_options=dict(TINY_MODEL, layers=2), mode="erm", sigma_range=[0.0, 0.2], epochs=1)
    fields = {"samples_per_epoch": 8, "val_clips_per_video": 1, **(data or {})}
    return tiny_config(root, fields, **{**values, **overrides})


def randomise(model: torch.nn.Module, seed: int = 0) -> torch.nn.Module:
    """Perturb every parameter, so zero-initialised gains stop hiding paths (and outputs are non-trivial)."""
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.add_(0.05 * torch.randn(parameter.shape, generator=generator))
    return model


def panned_clip(frames: int = 4, step=(0.4, 0.7), height: int = 64, width: int = 80) -> torch.Tensor:
    """A textured photograph panned by a sub-pixel step per frame (bicubic), (T, 1, H, W)."""
    canvas = cv2.GaussianBlur(skimage.data.camera().astype(np.float32) / 255, (0, 0), 1.5)
    pictures = []
    for k in range(frames):
        shift = np.float32([[1, 0, 230 + step[0] * k], [0, 1, 180 + step[1] * k]])
        pictures.append(cv2.warpAffine(canvas, shift, (width, height), flags=cv2.INTER_CUBIC | cv2.WARP_INVERSE_MAP))
    return torch.from_numpy(np.stack(pictures))[:, None]


class Identity(nn.Module):
    """Hands the clip back: every difference between input and output is the pipeline's."""

    def __init__(self, channels: int = 3):
        super().__init__()
        self.unused = nn.Parameter(torch.zeros(()))
        self.config = type("Config", (), {"channels": channels})()

    def forward(self, clip: torch.Tensor) -> torch.Tensor:
        return clip


def identity(channels: int = 3) -> Denoiser:
    return Denoiser(Identity(channels), DenoiseSettings(device="cpu", tile=0))


def frame_times(path: Path) -> list[float]:
    with av.open(str(path)) as container:
        return [float(frame.time) for frame in container.decode(video=0)]


def audio_span(path: Path) -> tuple[float, float]:
    with av.open(str(path)) as container:
        frames = list(container.decode(audio=0))
        return float(frames[0].time), sum(frame.samples for frame in frames) / frames[0].sample_rate

"""Is the harm particular to the benchmark's encoder settings? Three moving-object clips with no noise through x264 at
CRF 18 as a software re-encode would be (x264's defaults, mbtree on) and as the benchmark encodes (`mbtree=0`, as
cameras' hardware encoders do), 5 and 10 frames; σ auto's estimate and `clean` fast (no output encode), PSNR against
the clean frames. After the decision, deciding nothing.

    .venv/bin/python benchmarks/results/faint-share/x264_defaults.py > benchmarks/results/faint-share/x264_defaults.log
"""

import sys
from fractions import Fraction
from pathlib import Path

import av
import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT  # noqa: E402
from videodenoise.noise.estimation import estimate_clip_noise  # noqa: E402

import bench_quality as quality  # noqa: E402
from _machine import cpu_name  # noqa: E402


def encoded(frames: np.ndarray, options: dict[str, str]) -> np.ndarray:
    """uint8 RGB frames (T, 3, H, W) through libx264 (yuv420p, CRF 18 with `options`) and back."""
    encoder = av.CodecContext.create("libx264", "w")
    encoder.width, encoder.height, encoder.pix_fmt = frames.shape[3], frames.shape[2], "yuv420p"
    encoder.time_base, encoder.framerate = Fraction(1, 25), Fraction(25)
    encoder.options = {"crf": "18", **options}
    packets = []
    for index, frame in enumerate(frames):
        picture = av.VideoFrame.from_ndarray(np.ascontiguousarray(frame.transpose(1, 2, 0)), format="rgb24")
        picture = picture.reformat(format="yuv420p")
        picture.pts = index
        packets += encoder.encode(picture)
    packets += encoder.encode(None)
    decoder = av.CodecContext.create("h264", "r")
    decoded = []
    for packet in packets + [None]:
        decoded += [f.to_ndarray(format="rgb24").transpose(2, 0, 1) for f in decoder.decode(packet)]
    return np.stack(decoded)


print(f"machine: {cpu_name()}, {torch.get_num_threads()} torch threads")
denoiser = quality.load_denoiser(DEFAULT_CHECKPOINT, {})
for name in ("gravel-objects", "grass-objects", "aero-objects"):
    for count in (5, 10):
        clip = quality.build_clips([name], count, quality.DEFAULT_SIZE)[0]
        for label, options in (("x264 defaults", {}), ("mbtree=0", {"x264-params": "mbtree=0"})):
            frames = encoded(clip.frames, options)
            noisy = torch.from_numpy(frames).float() / 255
            estimate = estimate_clip_noise(noisy)
            before = quality.measure(frames.astype(np.float32) / 255, clip.frames)["psnr"]
            after = quality.measure(denoiser.denoise_clip(noisy, estimate).numpy(), clip.frames)["psnr"]
            print(
                f"{name}, {count} frames, {label}: level {estimate.level * 255:.2f}, carried {estimate.carried:.2f}, "
                f"grain {estimate.luminance_grain:.2f} | input {before:.2f}, clean {after:.2f} ({after - before:+.2f})",
                flush=True,
            )

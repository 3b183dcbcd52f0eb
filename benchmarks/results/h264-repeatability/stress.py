"""Does libx264, as PyAV bundles and opens it, give the same bits for the same frames on every run?

Each clip is encoded --runs times in this process with each configuration, and the distinct outputs are
counted (1: repeatable), with the bytes of the first. Configurations: PyAV's default (its slice threads, and
libx264's AVX-512 code where the CPU has it); libx264 held to its AVX2 code; x264's frame threads with its
AVX2 code (what `videodenoise.io.writers.configure_h264` sets on an AVX-512 CPU); macroblock-tree rate
control off. All at CRF 17, preset medium. Clips: bikes' 320×240 centre, 40 frames, σ = 25 noise (8 bits);
its `clean` output (fast preset, told σ = 25), whose encoding a user gets; a noisy pan over the astronaut
photograph, 30 frames at 10 bits and at 321×241 in 4:4:4 (8 bits).

    .venv/bin/python benchmarks/results/h264-repeatability/stress.py      # stress.log
"""

from __future__ import annotations

import argparse
import hashlib
import io
import sys
from pathlib import Path

import av
import numpy as np
import skimage
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import bench_clean as bench  # noqa: E402
from _machine import cpu_name  # noqa: E402
from bench_quality import centre_crop  # noqa: E402

from videodenoise.datasets.samples import fetch_sample_clips  # noqa: E402
from videodenoise.denoise.settings import PRESETS  # noqa: E402
from videodenoise.devices import cpu_has_avx512  # noqa: E402

CONFIGURATIONS = {  # name: (x264-params, thread type)
    "PyAV's default": ("", "SLICE"),
    "AVX2 code": ("asm=avx2", "SLICE"),
    "frame threads + AVX2 (ours)": ("asm=avx2", "FRAME"),
    "mb-tree off": ("mbtree=0", "SLICE"),
}


def encode(frames: np.ndarray, bits: int, pix_fmt: str, params: str, thread_type: str) -> bytes:
    """(T, H, W, 3) frames, uint8 or uint16, to H.264 in MP4, in memory."""
    buffer = io.BytesIO()
    with av.open(buffer, mode="w", format="mp4") as container:
        stream = container.add_stream("libx264", rate=25)
        stream.height, stream.width = frames.shape[1:3]
        stream.pix_fmt = pix_fmt
        stream.options = {"crf": "17", "preset": "medium", **({"x264-params": params} if params else {})}
        stream.codec_context.thread_type = thread_type
        for index, image in enumerate(frames):
            frame = av.VideoFrame.from_ndarray(image, format="rgb24" if bits == 8 else "rgb48le")
            frame = frame.reformat(format=pix_fmt)
            frame.pts = index
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode(None):
            container.mux(packet)
    return buffer.getvalue()


def clips() -> list[tuple[str, np.ndarray, int, str]]:
    bikes = bench.load_clip(fetch_sample_clips()["bikes"], 40)
    bikes = centre_crop(bikes.transpose(0, 3, 1, 2), (240, 320)).transpose(0, 2, 3, 1)
    noisy = bench.add_noise(bikes, 25)
    denoiser, _ = bench.make_denoiser(None, PRESETS["fast"])
    cleaned = denoiser.denoise_clip(torch.from_numpy(noisy).permute(0, 3, 1, 2).float() / 255, 25 / 255)
    cleaned = (cleaned * 255).round().byte().permute(0, 2, 3, 1).numpy()
    photo = skimage.data.astronaut().astype(np.float64) / 255
    pan = np.stack([photo[40 + 2 * k : 281 + 2 * k, 60 + 3 * k : 381 + 3 * k] for k in range(30)])
    pan = np.clip(pan + 0.08 * np.random.default_rng(0).standard_normal(pan.shape), 0, 1)
    return [
        ("bikes 320×240, σ = 25, 8 bits", np.ascontiguousarray(noisy), 8, "yuv420p"),
        ("bikes 320×240, cleaned, 8 bits", np.ascontiguousarray(cleaned), 8, "yuv420p"),
        ("pan 320×240, 10 bits", np.round(pan[:, :240, :320] * 65535).astype(np.uint16), 10, "yuv420p10le"),
        ("pan 321×241, 4:4:4, 8 bits", np.round(pan * 255).astype(np.uint8), 8, "yuv444p"),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=8)
    args = parser.parse_args()
    print(f"machine: {cpu_name()}; AVX-512: {cpu_has_avx512()}; PyAV {av.__version__}; {args.runs} encodes each")
    print(f"{'clip':<34}" + "".join(f"{name:>30}" for name in CONFIGURATIONS))
    for name, frames, bits, pix_fmt in clips():
        cells = []
        for params, thread_type in CONFIGURATIONS.values():
            outputs = [encode(frames, bits, pix_fmt, params, thread_type) for _ in range(args.runs)]
            distinct = len({hashlib.md5(data).hexdigest() for data in outputs})
            cells.append(f"{distinct} distinct, {len(outputs[0]) // 1024} kB")
        print(f"{name:<34}" + "".join(f"{cell:>30}" for cell in cells), flush=True)


if __name__ == "__main__":
    main()

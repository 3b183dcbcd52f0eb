"""How the writer's RGB → 4:2:0 step should form each chroma sample. The twelve validation clips' clean frames (first
frame, 240×320; none a benchmark clip) converted by libswscale to 8-bit 4:2:0 YUV with each candidate filter for
the chroma, converted back to RGB as three readers do (PyAV's default, which repeats each chroma sample over its 2×2
pixels and is what `clean` and the benchmarks read with; bilinear and bicubic, as players do), and scored against
the frames. No codec: this is the conversion alone. Printed: mean PSNR over clips per filter and reader, then the
time per 1920×1080 frame of the conversion with each filter.

    R=benchmarks/results/chroma-area; .venv/bin/python $R/roundtrip.py > $R/roundtrip.log
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import av
import numpy as np
import torch
from av.video.reformatter import Interpolation

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import validation_sweep as validation  # noqa: E402

import bench_quality as quality  # noqa: E402
from _machine import cpu_name  # noqa: E402

WRITE = {  # None is libswscale's default as PyAV calls it (bilinear)
    "default": None,
    "area": Interpolation.AREA,
    "bicubic": Interpolation.BICUBIC,
    "gauss": Interpolation.GAUSS,
    "lanczos": Interpolation.LANCZOS,
}
FULL_CHROMA = Interpolation.FULL_CHR_H_INT | Interpolation.ACCURATE_RND
READ = {
    "repeated (PyAV)": None,
    "bilinear": Interpolation.BILINEAR | FULL_CHROMA,
    "bicubic": Interpolation.BICUBIC | FULL_CHROMA,
}


def psnr(a: np.ndarray, b: np.ndarray) -> float:
    return float(10 * np.log10(255.0**2 / np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)))


def main() -> None:
    print(f"# {cpu_name()}, {torch.get_num_threads()} threads; PyAV {av.__version__}")
    clips = quality.build_clips(validation.VALIDATION_CLIPS, 1, quality.DEFAULT_SIZE)
    scores = {(write, read): [] for write in WRITE for read in READ}
    for clip in clips:
        image = np.ascontiguousarray(np.transpose(clip.frames[0], (1, 2, 0)))  # (H, W, 3) uint8
        for write, flag in WRITE.items():
            planes = av.VideoFrame.from_ndarray(image, format="rgb24").reformat(format="yuv420p", interpolation=flag)
            for read, back in READ.items():
                back_to_rgb = planes.reformat(format="rgb24", interpolation=back).to_ndarray()
                scores[write, read].append(psnr(back_to_rgb, image))
    print("| chroma written as | " + " | ".join(f"read {read}" for read in READ) + " |")
    print("|---|" + "---:|" * len(READ))
    for write in WRITE:
        print(f"| {write} | " + " | ".join(f"{np.mean(scores[write, read]):.2f}" for read in READ) + " |")
    gains = [np.mean(np.subtract(scores["area", read], scores["default", read])) for read in READ]
    print("| area − default | " + " | ".join(f"**{gain:+.2f}**" for gain in gains) + " |")
    frame = av.VideoFrame.from_ndarray(np.random.default_rng(0).integers(0, 256, (1080, 1920, 3), np.uint8), "rgb24")
    for write, flag in WRITE.items():
        start = time.perf_counter()
        for _ in range(20):
            frame.reformat(format="yuv420p", interpolation=flag)
        print(f"# 1920x1080 rgb24 -> yuv420p, {write}: {(time.perf_counter() - start) / 20 * 1000:.1f} ms a frame")


if __name__ == "__main__":
    main()

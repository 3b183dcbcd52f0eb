"""How exactly `clean` reads a file's 8-bit 4:2:0 pictures. (1) A grey ramp (every luma level 16-235, neutral chroma)
stored as 4:2:0 and converted to RGB by each conversion: how many pixels miss the limited-range formula
round((Y − 16)·255/219). (2) The twelve validation clips' clean frames (first frame, 240×320; none a benchmark clip)
written by `VideoWriter` as H.264 at CRF 0 (lossless YUV, 4:2:0), decoded, converted to RGB by each conversion and
scored against the frames: what reading alone costs. Conversions: libswscale's default path (the reader's) and,
with exact rounding (ACCURATE_RND|FULL_CHR_H_INT), chroma taken by POINT, BILINEAR and BICUBIC.

    R=benchmarks/results/read-precision; .venv/bin/python $R/roundtrip.py > $R/roundtrip.log
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import av
import numpy as np
import torch
from av.video.reformatter import Interpolation

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import validation_sweep as validation  # noqa: E402

from videodenoise.io.writers import write_video  # noqa: E402

import bench_quality as quality  # noqa: E402
from _machine import cpu_name  # noqa: E402

EXACT = Interpolation.ACCURATE_RND | Interpolation.FULL_CHR_H_INT
CONVERSIONS = {
    "default": None,
    "point, exact": Interpolation.POINT | EXACT,
    "bilinear, exact": Interpolation.BILINEAR | EXACT,
    "bicubic, exact": Interpolation.BICUBIC | EXACT,
}


def psnr(a: np.ndarray, b: np.ndarray) -> float:
    return float(10 * np.log10(255.0**2 / np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)))


def ramp_misses() -> None:
    levels = np.arange(16, 236, dtype=np.uint8)
    luma = np.repeat(np.repeat(levels[None, :], 16, axis=0), 2, axis=1)  # 16 × 440
    planes = np.concatenate([luma.ravel(), np.full(luma.size // 2, 128, np.uint8)]).reshape(24, -1)
    expected = np.round((luma.astype(np.float64) - 16) * 255 / 219)
    frame = av.VideoFrame.from_ndarray(planes, format="yuv420p")
    for name, flags in CONVERSIONS.items():
        grey = frame.to_ndarray(format="rgb24", interpolation=flags)[:, :, 1].astype(np.float64)
        missed = np.abs(grey - expected)
        print(f"# grey ramp, {name}: {np.mean(missed > 0):.0%} of pixels off, by up to {missed.max():.0f}")


def main() -> None:
    print(f"# {cpu_name()}, PyAV {av.__version__}")
    ramp_misses()
    clips = quality.build_clips(validation.VALIDATION_CLIPS, 1, quality.DEFAULT_SIZE)
    scores = {name: [] for name in CONVERSIONS}
    print("| clip | " + " | ".join(CONVERSIONS) + " |")
    print("|---|" + "---:|" * len(CONVERSIONS))
    with tempfile.TemporaryDirectory() as folder:
        for clip in clips:
            image = np.ascontiguousarray(np.transpose(clip.frames[0], (1, 2, 0)))
            frames = torch.from_numpy(clip.frames[:1]).float() / 255
            path = write_video(Path(folder) / "clip.mp4", frames, fps=25, codec="h264", crf=0, overwrite=True)
            with av.open(str(path)) as container:
                frame = next(container.decode(video=0))
                row = [psnr(frame.to_ndarray(format="rgb24", interpolation=f), image) for f in CONVERSIONS.values()]
            for name, score in zip(CONVERSIONS, row):
                scores[name].append(score)
            print(f"| {clip.name} | " + " | ".join(f"{score:.2f}" for score in row) + " |")
    print("| **mean** | " + " | ".join(f"**{np.mean(scores[name]):.2f}**" for name in CONVERSIONS) + " |")


if __name__ == "__main__":
    main()

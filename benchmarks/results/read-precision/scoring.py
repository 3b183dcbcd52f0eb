"""How much of the default `.mp4`'s shortfall is the file and how much is how it is read back. `lossless-output/
camera.py`'s held-out run (the six benchmark clips, 10 frames, through the camera model's sensor and libx264 at CRF
18, 23 and 28, then `videodenoise clean` as a user runs it, σ auto, the default `.mp4` and `--format lossless`), each
file scored twice: read as `clean` and every benchmark read it (libswscale's default path, coarse rounding) and read
with exact rounding and bicubic chroma, as players convert. `clean` itself is unchanged (it reads its input by the
default path). bikes and carphone are themselves read from files: their clean frames are read by the same reading as
the file scored against them. Nothing is chosen here. Printed per condition: the mean PSNR of the input and of both
outputs under each reading, and the lossless output's lead over the `.mp4` under each.

    R=benchmarks/results/read-precision; .venv/bin/python $R/scoring.py > $R/scoring.log
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lossless-output"))
from camera import camera_file  # noqa: E402
from outputs import clean_run, psnr  # noqa: E402

from videodenoise.io import pyav_reader  # noqa: E402

import bench_quality as quality  # noqa: E402
import bench_realnoise as realnoise  # noqa: E402
from _machine import cpu_name  # noqa: E402

READINGS = {"default": None, "exact": ("BICUBIC", "ACCURATE_RND", "FULL_CHR_H_INT")}


def read_clips() -> dict[str, list[quality.Clip]]:
    """The benchmark's clips under each reading (only bikes and carphone, read from files, differ)."""
    clips = {}
    for reading, flags in READINGS.items():
        pyav_reader.RGB_CONVERSION = flags
        clips[reading] = quality.build_clips()
    pyav_reader.RGB_CONVERSION = None
    return clips


def scored(path: Path, references: list[torch.Tensor]) -> list[float]:
    scores = []
    for flags, clean in zip(READINGS.values(), references):
        pyav_reader.RGB_CONVERSION = flags
        scores.append(psnr(path, clean))
    pyav_reader.RGB_CONVERSION = None
    return scores


def main() -> None:
    print(f"# {cpu_name()}, torch {torch.__version__}; readings: default path, then exact (bicubic chroma)")
    readings = read_clips()
    clips = readings["default"]
    print(f"# clips: {', '.join(clip.name for clip in clips)}")
    print(
        "| condition | input | mp4 | lossless | lossless − mp4 | input, exact | mp4, exact | lossless, exact "
        "| lossless − mp4, exact |"
    )
    print("|---|" + "---:|" * 8)
    for level in realnoise.DEFAULT_LEVELS:
        for crf in realnoise.DEFAULT_CRFS:
            rows = []
            for index, clip in enumerate(clips):
                references = [torch.from_numpy(readings[r][index].frames).float().div(255) for r in READINGS]
                with tempfile.TemporaryDirectory() as folder:
                    noisy = camera_file(Path(folder) / f"{clip.name}.mp4", clip, level, crf)
                    default, lossless = clean_run(noisy, "auto"), clean_run(noisy, "auto", "--format", "lossless")
                    rows.append([scored(path, references) for path in (noisy, default, lossless)])  # (file, reading)
            means = np.mean(rows, axis=0)  # (3 files, 2 readings)
            cells = []
            for reading in range(len(READINGS)):
                entry, mp4, kept = means[:, reading]
                cells += [f"{entry:.2f}", f"{mp4:.2f}", f"{kept:.2f}", f"{kept - mp4:+.2f}"]
            print(f"| {level} h264 crf{crf} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()

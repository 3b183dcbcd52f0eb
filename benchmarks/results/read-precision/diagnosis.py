"""Why the second trial's Hubble deep field clips lost under exact reading (a diagnosis after both trials; it
chooses nothing). Its two clips and brick's pan (the trial's largest gain) at the conditions where the gains were
largest either way, read by `arms.py`'s two arms: σ auto's reading (level, grain, carried share, 0-255 scale), the
input's PSNR and the output's as in `arms.py`.

    R=benchmarks/results/read-precision; .venv/bin/python $R/diagnosis.py > $R/diagnosis.log
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np
import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE))
from arms import ARMS, FRAMES, noisy_file, psnr  # noqa: E402

from videodenoise.denoise.denoiser import Denoiser  # noqa: E402
from videodenoise.denoise.pipeline import denoise_video  # noqa: E402
from videodenoise.io import pyav_reader  # noqa: E402
from videodenoise.io.video import read_video  # noqa: E402
from videodenoise.noise.estimation import estimate_clip_noise  # noqa: E402

import bench_quality as quality  # noqa: E402
from _machine import cpu_name  # noqa: E402

CLIPS = ["hubble-deep-field-pan", "hubble-deep-field-objects", "brick-pan"]
CONDITIONS = [("heavy", 28), ("medium", 23), ("gaussian-25", 18)]


def main() -> None:
    print(f"# {cpu_name()}, {torch.get_num_threads()} threads; {FRAMES} frames")
    denoiser = Denoiser.from_preset("fast")
    clips = quality.build_clips(CLIPS, FRAMES, quality.DEFAULT_SIZE)
    print("| clip | condition | mean level | arm | level | grain | carried | input | output |")
    print("|---|---|---:|---|---:|---:|---:|---:|---:|")
    for clip in clips:
        for level, crf in CONDITIONS:
            with tempfile.TemporaryDirectory() as folder:
                noisy = noisy_file(Path(folder) / f"{clip.name}.mp4", clip, level, crf)
                for arm in ("default", "bicubic"):
                    pyav_reader.RGB_CONVERSION = ARMS[arm]
                    frames = read_video(noisy)
                    frames = frames if isinstance(frames, torch.Tensor) else frames[0]
                    reading = estimate_clip_noise(frames)
                    out = Path(folder) / f"{arm}.mkv"
                    denoise_video(noisy, out, denoiser, "auto", format="lossless", overwrite=True, keep_audio=False)
                    grain = np.mean(reading.grain) if reading.grain else 1.0
                    print(
                        f"| {clip.name} | {level} crf{crf} | {255 * frames.mean():.0f} | {arm} | "
                        f"{255 * reading.level:.2f} | {grain:.2f} | {reading.carried:.2f} | "
                        f"{psnr(noisy, clip.frames):.2f} | {psnr(out, clip.frames):.2f} |",
                        flush=True,
                    )


if __name__ == "__main__":
    main()

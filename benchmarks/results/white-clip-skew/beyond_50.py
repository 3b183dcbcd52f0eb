"""Gaussian noise past the quality table's σ = 50, on two held-out clips (a look after the fix, deciding nothing): the
default (fast) with σ auto, with the camera gamma's step on and off, and told the true σ; what σ auto reads.

    R=benchmarks/results/white-clip-skew; .venv/bin/python $R/beyond_50.py > $R/beyond_50.log
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from videodenoise.denoise.denoiser import Denoiser  # noqa: E402
from videodenoise.denoise.settings import PRESETS  # noqa: E402
from videodenoise.noise.estimation import estimate_clip_noise  # noqa: E402

import bench_quality as quality  # noqa: E402
from _machine import cpu_name  # noqa: E402

CHECKPOINT = "videodenoise/checkpoints/dust-video.safetensors"


def main() -> None:
    print(f"machine: {cpu_name()}, {torch.get_num_threads()} torch threads; 5 frames; PSNR (dB)")
    print("clip | σ | input | σ auto read (0-255) | σ auto, step on | σ auto, step off | told σ")
    fast = dataclasses.replace(PRESETS["fast"], device="cpu")
    on = Denoiser.from_checkpoint(CHECKPOINT, fast)
    off = Denoiser.from_checkpoint(CHECKPOINT, dataclasses.replace(fast, camera_bias=False))
    for clip in quality.build_clips(["bikes", "astronaut-pan"], 5, quality.DEFAULT_SIZE):
        for sigma in (50, 75, 100):
            frames = quality.add_noise_uint8(clip.frames, sigma, quality.noise_seed(clip.name, sigma, 0))
            noisy = torch.from_numpy(frames).float() / 255
            read = estimate_clip_noise(noisy).level * 255
            outputs = [
                on.denoise_clip(noisy, "auto"),
                off.denoise_clip(noisy, "auto"),
                on.denoise_clip(noisy, sigma / 255),
            ]
            scores = [quality.measure(frames.astype(np.float32) / 255, clip.frames)["psnr"]]
            scores += [quality.measure(output.numpy(), clip.frames)["psnr"] for output in outputs]
            print(
                f"{clip.name} | {sigma} | {scores[0]:.2f} | {read:.1f} | " + " | ".join(f"{s:.2f}" for s in scores[1:])
            )


if __name__ == "__main__":
    main()

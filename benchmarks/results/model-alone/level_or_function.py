"""Bikes and carphone at Gaussian σ = 2 (the benchmark's noise draws), the default checkpoint without fusion (as
`bench_quality.py --checkpoint alone=…,fusion=off` builds it), told the noise level function σ auto estimates, as
`clean` does; the same function with its grain set to 1 in every channel (the noise taken as white); or that
function's level as one σ, as the benchmark told it before 2d1842a.

    R=benchmarks/results/model-alone; .venv/bin/python $R/level_or_function.py > $R/level_or_function.log
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from videodenoise.noise.estimation import estimate_clip_noise  # noqa: E402

import bench_quality as quality  # noqa: E402
from _machine import cpu_name  # noqa: E402

CHECKPOINT = Path("videodenoise/checkpoints/dust-video.safetensors")


def main() -> None:
    print(f"machine: {cpu_name()}, {torch.get_num_threads()} torch threads; 5 frames, σ = 2; PSNR (dB)")
    denoiser = quality.load_denoiser(CHECKPOINT, {"fusion": "off"}, device="cpu")
    for clip in quality.build_clips(["bikes", "carphone"], 5, quality.DEFAULT_SIZE):
        frames = quality.add_noise_uint8(clip.frames, 2, quality.noise_seed(clip.name, 2, 0))
        noisy = torch.from_numpy(frames).float() / 255
        function = estimate_clip_noise(noisy)
        white = dataclasses.replace(function, grain=tuple(1.0 for _ in function.grain))
        told = {"the function": function, "its grain set to 1": white, "its level as one σ": function.level}
        outputs = {name: denoiser.denoise_clip(noisy, sigma).numpy() for name, sigma in told.items()}
        scores = {name: quality.measure(output, clip.frames) for name, output in outputs.items()}
        shown = ", ".join(f"{name} {value['psnr']:.2f}" for name, value in scores.items())
        noisy_psnr = quality.measure(frames.astype("float32") / 255, clip.frames)["psnr"]
        grain = ", ".join(f"{g:.2f}" for g in function.grain)
        print(f"{clip.name}: input {noisy_psnr:.2f}; level {function.level * 255:.2f}; grain {grain}; {shown}")


if __name__ == "__main__":
    main()

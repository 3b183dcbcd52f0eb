"""σ auto's level on Gaussian noise heavy enough to be clipped at 0 and 255 (σ = 40-100, the benchmark's draws), and
what telling the true σ by hand gives there: the default (fast, CPU), σ auto against told, at σ = 60, 75 and 100.
`validation`: the twelve validation clips (HEAVY is chosen on these, by the rule in README.md); `held-out`: the
benchmark's six (a check after, deciding nothing).

    R=benchmarks/results/heavy-hint; .venv/bin/python $R/probe.py validation > $R/validation.log
    R=benchmarks/results/heavy-hint; .venv/bin/python $R/probe.py held-out > $R/held-out.log
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from validation_sweep import VALIDATION_CLIPS  # noqa: E402

from videodenoise.denoise.denoiser import Denoiser  # noqa: E402
from videodenoise.denoise.settings import PRESETS  # noqa: E402
from videodenoise.noise.estimation import estimate_clip_noise  # noqa: E402

import bench_quality as quality  # noqa: E402
from _machine import cpu_name  # noqa: E402

SIGMAS = (40.0, 50.0, 60.0, 75.0, 100.0)
DENOISED = (60.0, 75.0, 100.0)  # σ auto against told the true σ


def main(argv: list[str]) -> None:
    names = quality.available_clip_names() if argv[:1] == ["held-out"] else VALIDATION_CLIPS
    settings = dataclasses.replace(PRESETS["fast"], device="cpu")
    denoiser = Denoiser.from_checkpoint("videodenoise/checkpoints/dust-video.safetensors", settings)
    print(f"machine: {cpu_name()}, {torch.get_num_threads()} torch threads; 5 frames; levels and σ on the 0-255 scale")
    print("clip | σ | σ auto's level | PSNR (dB): input, σ auto, told σ")
    levels: dict[float, list[float]] = {sigma: [] for sigma in SIGMAS}
    gains: dict[float, list[float]] = {sigma: [] for sigma in DENOISED}
    for clip in quality.build_clips(names, 5, quality.DEFAULT_SIZE):
        for sigma in SIGMAS:
            frames = quality.add_noise_uint8(clip.frames, sigma, quality.noise_seed(clip.name, sigma, 0))
            noisy = torch.from_numpy(frames).float() / 255
            function = estimate_clip_noise(noisy)
            levels[sigma].append(function.level * 255)
            line = f"{clip.name} | {sigma:g} | {function.level * 255:.1f}"
            if sigma in DENOISED:
                auto = quality.measure(denoiser.denoise_clip(noisy, function).numpy(), clip.frames)["psnr"]
                told = quality.measure(denoiser.denoise_clip(noisy, sigma / 255).numpy(), clip.frames)["psnr"]
                noisy_psnr = quality.measure(frames.astype("float32") / 255, clip.frames)["psnr"]
                gains[sigma].append(told - auto)
                line += f" | {noisy_psnr:.2f}, {auto:.2f}, {told:.2f}"
            print(line, flush=True)
    print()
    for sigma in SIGMAS:
        read = levels[sigma]
        print(f"σ = {sigma:g}: level read {min(read):.1f} to {max(read):.1f} over {len(read)} clips")
    for sigma in DENOISED:
        gain, mean = gains[sigma], sum(gains[sigma]) / len(gains[sigma])
        print(f"σ = {sigma:g}: told the true σ − σ auto {min(gain):+.2f} to {max(gain):+.2f} dB, mean {mean:+.2f}")
    low, high = max(levels[50.0]), min(levels[75.0])
    if high - low >= 5:
        print(f"the rule: HEAVY = round(({low:.1f} + {high:.1f}) / 2) = {round((low + high) / 2)}")
    else:
        print(f"the rule: σ = 50's highest reading {low:.1f} is not 5 under σ = 75's lowest {high:.1f}: no hint")


if __name__ == "__main__":
    main(sys.argv[1:])

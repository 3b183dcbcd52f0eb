"""How much should fusion widen its bandwidth for grainy noise? Chosen on the validation photographs only.

    .venv/bin/python benchmarks/fusion_grain.py --powers 0,1,2 --frames 5

For each power p in --powers (videodenoise.denoise.fusion.GRAIN_POWER set to it; p = 0 is fusion as it
was), `clean --sigma auto` (the shipped default checkpoint, the fast preset, the estimate made once per
clip and condition) on pans over VALIDATION_PHOTOS (never the benchmark's clips), through the real-noise
benchmark's camera model at light, medium and heavy, H.264 CRF 18, 23 and 28 (the noise draws
bench_realnoise.py would make for these clips), and with added Gaussian noise at σ = 0, 2, 10 and 25
(bench_quality's draws): mean PSNR per condition and over the camera conditions.

The rule, fixed before the first run: the power with the highest mean PSNR over the nine camera
conditions, among those whose mean PSNR at every Gaussian condition is within 0.05 dB of p = 0's; a
power within 0.05 dB of a smaller one's camera mean gives way to the smaller. The script applies it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_realnoise as realnoise  # noqa: E402

import bench_quality as quality  # noqa: E402
from _machine import cpu_name  # noqa: E402

GAUSSIAN_SIGMAS = (0.0, 2.0, 10.0, 25.0)
TOLERANCE_DB = 0.05


def noisy_clips(clips: list[quality.Clip]) -> list[tuple[str, list[np.ndarray]]]:
    """(condition name, the noisy uint8 frames of every clip) for the camera and Gaussian conditions."""
    out = []
    for level in realnoise.DEFAULT_LEVELS:
        for crf in realnoise.DEFAULT_CRFS:
            noise = realnoise.camera_noise(level, "h264", crf)
            draws = [
                realnoise.add_camera_noise(clip.frames, noise, realnoise.camera_seed(clip.name, level, "h264", crf))
                for clip in clips
            ]
            out.append((realnoise.condition_name(level, "h264", crf), draws))
    for sigma in GAUSSIAN_SIGMAS:
        draws = [quality.add_noise_uint8(clip.frames, sigma, quality.noise_seed(clip.name, sigma, 0)) for clip in clips]
        out.append((f"gaussian σ={sigma:g}", draws))
    return out


def choose(powers: list[float], camera: dict[float, float], gaussian: dict[float, list[float]]) -> float:
    """The rule of the module notes."""
    allowed = [p for p in powers if all(abs(a - b) <= TOLERANCE_DB for a, b in zip(gaussian[p], gaussian[powers[0]]))]
    best = max(allowed, key=lambda p: camera[p])
    return min(p for p in allowed if camera[p] >= camera[best] - TOLERANCE_DB)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--powers", default="0,1,2", help="the first is the reference (0: fusion as it was)")
    parser.add_argument("--frames", type=int, default=5)
    args = parser.parse_args(argv)
    from videodenoise.datasets.motion import VALIDATION_PHOTOS
    from videodenoise.denoise import fusion
    from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT
    from videodenoise.noise.estimation import estimate_clip_noise

    denoiser = realnoise.load_clean(DEFAULT_CHECKPOINT, {}, "auto")
    names = [quality.photo_clip_name(photo) for photo in VALIDATION_PHOTOS]
    clips = quality.build_clips(names, args.frames, quality.DEFAULT_SIZE)
    powers = [float(p) for p in args.powers.split(",")]
    print(f"clips: {', '.join(names)}; {args.frames} frames; {cpu_name()}, {torch.get_num_threads()} threads")
    print("| condition | luminance grain | " + " | ".join(f"p = {p:g}" for p in powers) + " |")
    print("|---|---:|" + "---:|" * len(powers))
    camera: dict[float, list[float]] = {p: [] for p in powers}
    gaussian: dict[float, list[float]] = {p: [] for p in powers}
    for condition, draws in noisy_clips(clips):
        frames = [torch.from_numpy(draw).float() / 255 for draw in draws]
        estimates = [estimate_clip_noise(noisy) for noisy in frames]
        means = []
        for power in powers:
            fusion.GRAIN_POWER = power
            psnrs = [
                quality.measure(denoiser.denoise_clip(noisy, estimate).numpy(), clip.frames)["psnr"]
                for noisy, estimate, clip in zip(frames, estimates, clips)
            ]
            means.append(float(np.mean(psnrs)))
            (gaussian if condition.startswith("gaussian") else camera)[power].append(means[-1])
        grain = np.mean([estimate.luminance_grain for estimate in estimates])
        print(f"| {condition} | {grain:.2f} | " + " | ".join(f"{m:.2f}" for m in means) + " |", flush=True)
    camera_mean = {p: float(np.mean(camera[p])) for p in powers}
    print("| camera mean | | " + " | ".join(f"**{camera_mean[p]:.2f}**" for p in powers) + " |")
    print(f"chosen by the rule: GRAIN_POWER = {choose(powers, camera_mean, gaussian):g}")


if __name__ == "__main__":
    main()

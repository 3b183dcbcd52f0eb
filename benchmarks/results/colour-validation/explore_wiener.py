"""Would the colour validation clips have chosen the Wiener filter's constants as the grey-heavy ones did?
Exploration only: nothing is chosen from it.

`--quality PRESET` (calibration off) on validation clips at one Gaussian σ (σ estimated as `clean` does), with
the filter's module constants set by hand, one arm at a time (`wiener.TOLD`, `wiener.MIX_WHITE`); prints each clip's
PSNR and each arm's mean gain over the shipped constants. The noisy frames are bench_quality's.

    .venv/bin/python benchmarks/results/colour-validation/explore_wiener.py --preset best \
        --clips china-pan,flower-pan,china-objects,flower-objects --arms TOLD=0.5,TOLD=0.7,MIX_WHITE=0.4,MIX_WHITE=0.6
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import bench_quality as quality  # noqa: E402
from _machine import cpu_name  # noqa: E402

import videodenoise.denoise.wiener as wiener  # noqa: E402
from videodenoise.denoise.denoiser import Denoiser  # noqa: E402
from videodenoise.denoise.settings import PRESETS  # noqa: E402


def psnr(frames: np.ndarray, reference: np.ndarray) -> float:
    return float(10 * np.log10(255.0**2 / np.mean((frames.astype(np.float64) - reference) ** 2)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--preset", default="best")
    parser.add_argument("--clips", default="china-pan,flower-pan,china-objects,flower-objects")
    parser.add_argument("--frames", type=int, default=12)
    parser.add_argument("--sigma", type=float, default=25.0)
    parser.add_argument("--arms", default="TOLD=0.5,TOLD=0.7,MIX_WHITE=0.4,MIX_WHITE=0.6")
    args = parser.parse_args()
    arms = {"shipped": None} | {arm: arm.split("=") for arm in args.arms.split(",")}
    settings = dataclasses.replace(PRESETS[args.preset], calibrate=False)
    denoiser = Denoiser.from_preset(args.preset, settings=settings)
    print(f"machine: {cpu_name()}; {torch.get_num_threads()} torch threads; --quality {args.preset}, σ = {args.sigma:g}")
    scores: dict[str, list[float]] = {arm: [] for arm in arms}
    for clip in quality.build_clips(args.clips.split(","), args.frames):
        noisy = quality.add_noise_uint8(clip.frames, args.sigma, quality.noise_seed(clip.name, args.sigma))
        frames = torch.from_numpy(noisy).float() / 255
        for arm, change in arms.items():
            kept = None if change is None else getattr(wiener, change[0])
            if change is not None:
                setattr(wiener, change[0], float(change[1]))
            try:
                scores[arm].append(psnr(quality.to_uint8(denoiser.denoise_clip(frames, sigma="auto")), clip.frames))
            finally:
                if change is not None:
                    setattr(wiener, change[0], kept)
        print(clip.name, " ".join(f"{arm} {scores[arm][-1]:.2f}" for arm in arms), flush=True)
    for arm in arms:
        gains = [a - b for a, b in zip(scores[arm], scores["shipped"])]
        print(f"{arm}: mean {statistics.mean(scores[arm]):.2f} dB, {statistics.mean(gains):+.3f} over shipped")


if __name__ == "__main__":
    main()

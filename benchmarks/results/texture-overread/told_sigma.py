"""Where `clean --sigma auto` makes a clip worse than its input: what the estimator says, and what σ told by hand
gives instead, on validation clips under camera noise (the benchmark's draws, 5 frames, the fast preset).

    .venv/bin/python benchmarks/results/texture-overread/told_sigma.py \
        > benchmarks/results/texture-overread/told_sigma.log      # from the repository's root
"""

from __future__ import annotations

import argparse
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
import bench_realnoise as realnoise  # noqa: E402
from _machine import cpu_name  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clips", default="china-pan,china-objects,cell-pan,page-pan")
    parser.add_argument("--conditions", default="light:28,light:23,medium:28")
    parser.add_argument("--sigmas", default="3,6,10,15,20", help="σ told by hand, 0-255")
    args = parser.parse_args()
    print(f"machine: {cpu_name()}, {torch.get_num_threads()} torch threads")
    settings = dataclasses.replace(PRESETS["fast"], device="cpu")
    denoiser = Denoiser.from_checkpoint("videodenoise/checkpoints/dust-video.safetensors", settings)
    sigmas = [float(s) for s in args.sigmas.split(",")]
    print(
        "clip | condition | error std of the input | estimate: level, carried, luminance grain, told level | "
        f"PSNR: input, auto, told {', '.join(f'{s:g}' for s in sigmas)}"
    )
    for clip in quality.build_clips(args.clips.split(","), frames=5):
        for condition in args.conditions.split(","):
            level, crf = condition.split(":")
            noisy = realnoise.camera_draw(clip, level, "h264", int(crf))
            frames = torch.from_numpy(noisy).float().div_(255.0)
            function = estimate_clip_noise(frames)
            error = (noisy.astype(np.float64) - clip.frames).std()
            scores = [quality.measure(noisy.astype(np.float32) / 255, clip.frames)["psnr"]]
            for sigma in ["auto", *[s / 255 for s in sigmas]]:
                scores.append(quality.measure(denoiser.denoise_clip(frames, sigma=sigma).numpy(), clip.frames)["psnr"])
            print(
                f"{clip.name} | {level} CRF {crf} | {error:.1f} | {255 * function.level:.1f}, {function.carried:.2f}, "
                f"{function.luminance_grain:.2f}, {255 * function.told_level:.1f} | "
                + ", ".join(f"{score:.2f}" for score in scores)
            )


if __name__ == "__main__":
    main()

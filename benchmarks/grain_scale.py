"""Which block size should the noise's grain be measured at? Chosen on the validation photographs only.

    .venv/bin/python benchmarks/grain_scale.py --scales 4,8 --frames 5

For each block side in --scales (videodenoise.noise.grain.GRAIN_SCALE set to it), `clean --sigma auto`
(the shipped default checkpoint, the fast preset) on pans over VALIDATION_PHOTOS (never the benchmark's
clips) through the real-noise benchmark's camera model at light, medium and heavy, H.264 CRF 18, 23 and
28 (the same noise draws as bench_realnoise.py would make for these clips): mean PSNR per condition and
over all, and the mean grain the estimator read in luminance.
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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scales", default="4,8")
    parser.add_argument("--frames", type=int, default=5)
    args = parser.parse_args(argv)
    from videodenoise.datasets.motion import VALIDATION_PHOTOS
    from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT
    from videodenoise.noise import grain
    from videodenoise.noise.estimation import estimate_clip_noise

    denoiser = realnoise.load_clean(DEFAULT_CHECKPOINT, {}, "auto")
    names = [quality.photo_clip_name(photo) for photo in VALIDATION_PHOTOS]
    clips = quality.build_clips(names, args.frames, quality.DEFAULT_SIZE)
    scales = [int(s) for s in args.scales.split(",")]
    print(f"clips: {', '.join(names)}; {args.frames} frames; {cpu_name()}")
    print("| condition | " + " | ".join(f"block {s}: PSNR, luminance grain" for s in scales) + " |")
    print("|---|" + "---:|" * len(scales))
    totals = {s: [] for s in scales}
    for level in realnoise.DEFAULT_LEVELS:
        for crf in realnoise.DEFAULT_CRFS:
            noise = realnoise.camera_noise(level, "h264", crf)
            cells = []
            for scale in scales:
                grain.GRAIN_SCALE = scale
                psnrs, grains = [], []
                for clip in clips:
                    seed = realnoise.camera_seed(clip.name, level, "h264", crf)
                    noisy = torch.from_numpy(realnoise.add_camera_noise(clip.frames, noise, seed)).float() / 255
                    estimate = estimate_clip_noise(noisy)
                    grains.append(estimate.grain[0] if estimate.grain else 1.0)
                    psnrs.append(quality.measure(denoiser.denoise_clip(noisy, estimate).numpy(), clip.frames)["psnr"])
                totals[scale].append(float(np.mean(psnrs)))
                cells.append(f"{np.mean(psnrs):.2f}, {np.mean(grains):.2f}")
            print(f"| {realnoise.condition_name(level, 'h264', crf)} | " + " | ".join(cells) + " |", flush=True)
    print("| mean | " + " | ".join(f"{np.mean(totals[s]):.2f}" for s in scales) + " |")


if __name__ == "__main__":
    main()

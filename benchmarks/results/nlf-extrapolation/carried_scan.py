"""How often the trend moves the carried share (the defect of README.md): on the twelve validation clips, as taken and
darkened 8×, the nine H.264 conditions, three without a codec and Gaussian σ = 0, 2, 10, 25 (the validation run's
draws), σ auto's carried share with the curve flat beyond the bins read and continued; the clip-conditions where
the two differ by more than 0.01, and their count.

    .venv/bin/python benchmarks/results/nlf-extrapolation/carried_scan.py > carried_scan.log
"""

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from validation_sweep import VALIDATION_CLIPS, clip_draws  # noqa: E402

from videodenoise.noise import curve  # noqa: E402
from videodenoise.noise.estimation import estimate_clip_noise  # noqa: E402

import bench_quality as quality  # noqa: E402

moved = total = 0
for exposure in (1.0, 0.125):
    for clip in quality.build_clips(VALIDATION_CLIPS, 5, quality.DEFAULT_SIZE):
        clip = quality.underexposed(clip, exposure) if exposure != 1 else clip
        for condition, draw in clip_draws(clip, sigmas=(0.0, 2.0, 10.0, 25.0)):
            noisy, shares = torch.from_numpy(draw).float() / 255, []
            for limit in (1.0, 1.5):
                curve.EXTRAPOLATION_LIMIT = limit
                shares.append(estimate_clip_noise(noisy).carried)
            total += 1
            if abs(shares[1] - shares[0]) > 0.01:
                moved += 1
                print(
                    f"×{exposure:g} {clip.name:24s} {condition:18s} carried {shares[0]:.3f} → {shares[1]:.3f}",
                    flush=True,
                )
print(f"the carried share moved by more than 0.01 at {moved} of {total} clip-conditions")

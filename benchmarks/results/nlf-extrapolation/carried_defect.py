"""The held-out loss at grace-hopper-pan darkened 8×, Gaussian σ = 2 (`held-out-gaussian.log`): the clip's share of
pixels per intensity bin, and σ auto's estimate with the curve flat beyond the bins read and with their trend: the
read range, σ per channel and bin (0-255), the level and the carried share.

    .venv/bin/python benchmarks/results/nlf-extrapolation/carried_defect.py > carried_defect.log
"""

import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from videodenoise.noise import curve  # noqa: E402
from videodenoise.noise.estimation import estimate_clip_noise  # noqa: E402

import bench_quality as quality  # noqa: E402

torch.set_num_threads(1)
clip = quality.underexposed(quality.build_clips(["grace-hopper-pan"], 5, quality.DEFAULT_SIZE)[0], 0.125)
share = np.histogram(clip.frames / 255, bins=curve.BINS, range=(0, 1))[0] / clip.frames.size
print(f"grace-hopper-pan ×1/8, Gaussian σ = 2; mean level {clip.frames.mean():.1f}; share per bin {np.round(share, 3)}")
noisy = quality.add_noise_uint8(clip.frames, 2.0, quality.noise_seed(clip.name, 2.0, 0))
for limit in (1.0, 1.5):
    curve.EXTRAPOLATION_LIMIT = limit
    function = estimate_clip_noise(torch.from_numpy(noisy).float() / 255)
    print(
        f"limit {limit:g}: read {function.read_range}, level {function.level * 255:.2f}, carried {function.carried:.3f}"
    )
    for row in np.array(function.sigmas) * 255:
        print("   ", " ".join(f"{value:5.2f}" for value in row))

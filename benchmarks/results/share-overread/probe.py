"""Does σ auto's overread on the tests' fast smooth pattern (`../heavy-hint/overread.log`: a spurious carried share
under white Gaussian noise) happen on photographs panned fast? Estimates only, no denoising, on photographs already
spent on estimator choices (`motion.ESTIMATOR_VALIDATION_PHOTOS`, `motion.LATE_VALIDATION_PHOTOS`): camera pans of up
to 3 (the default), 8 and 16 pixels a frame, 5 frames, QCIF and 240×320, white Gaussian σ = 25, 40 and 50, one draw.
Printed per clip-condition: σ auto's level, the single frames' finest band, the carried share, the luminance grain;
after "→", the level and share with the share checked on the finest band (`estimation.SHARE_CHECKED_ON_FINEST`).

    R=benchmarks/results/share-overread; .venv/bin/python $R/probe.py > $R/probe.log
"""

from __future__ import annotations

import dataclasses

import torch

from videodenoise.datasets.motion import (
    ESTIMATOR_VALIDATION_PHOTOS,
    LATE_VALIDATION_PHOTOS,
    MotionLimits,
    camera_motion_clip,
    load_photo,
)
from videodenoise.noise import estimation
from videodenoise.noise.estimation import estimate_clip_noise
from videodenoise.noise.single_frame import estimate_noise_sigma

SIZES = ((144, 176), (240, 320))
PANS = (3.0, 8.0, 16.0)
SIGMAS = (25, 40, 50)


def main() -> None:
    print(f"{torch.get_num_threads()} torch threads; level / finest band (0-255), share, luminance grain")
    overreads = cells = 0
    for name in ESTIMATOR_VALIDATION_PHOTOS + LATE_VALIDATION_PHOTOS:
        photo = load_photo(name)
        for size in SIZES:
            for pan in PANS:
                limits = dataclasses.replace(MotionLimits(), pan=pan)
                clip = camera_motion_clip(photo, 5, size, seed=7, limits=limits)
                row = []
                for sigma in SIGMAS:
                    noise = torch.randn(clip.shape, generator=torch.Generator().manual_seed(sigma))
                    noisy = (clip + sigma / 255 * noise).clamp(0, 1).mul(255).round().div(255)
                    function = estimate_clip_noise(noisy)
                    level, finest = function.level * 255, estimate_noise_sigma(noisy) * 255
                    grain = function.luminance_grain
                    cells += 1
                    flag = ""
                    if function.carried > 0:
                        overreads += 1
                        flag = " *"
                    estimation.SHARE_CHECKED_ON_FINEST = True
                    checked = estimate_clip_noise(noisy)
                    estimation.SHARE_CHECKED_ON_FINEST = False
                    moved = f" → {checked.level * 255:.1f}, {checked.carried:.2f}" if checked != function else ""
                    row.append(f"{level:.1f} / {finest:.1f}, {function.carried:.2f}, {grain:.2f}{flag}{moved}")
                print(f"{name} {size[0]}×{size[1]} pan {pan:g} | " + " | ".join(row), flush=True)
    print(f"a carried share (*) read under white noise at {overreads} of {cells} clip-conditions")


if __name__ == "__main__":
    main()

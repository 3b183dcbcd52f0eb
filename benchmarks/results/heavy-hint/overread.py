"""Found after the hint shipped, on synthetic clips (not the validation or benchmark clips): σ auto's level against
the finest wavelet band of single frames (`single_frame.estimate_noise_sigma`, which a failed flow cannot fool) on a
smooth sinusoidal pattern moving about 4-10 px a frame (the tests' `moving_clip`: 8 frames, 3 channels), Gaussian
σ = 10, 25 and 40, at several frame sizes. Where the flow fails on such a picture under heavy noise, the frame
differences keep part of the scene, and the level reads high, into the hint's range.

    R=benchmarks/results/heavy-hint; .venv/bin/python $R/overread.py > $R/overread.log
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests"))
from test_denoise import add_noise, moving_clip  # noqa: E402

from videodenoise.noise.estimation import estimate_clip_noise  # noqa: E402
from videodenoise.noise.noise_level_function import HEAVY  # noqa: E402
from videodenoise.noise.single_frame import estimate_noise_sigma  # noqa: E402

SIZES = ((40, 56), (56, 72), (64, 80), (80, 104), (96, 128), (144, 176), (240, 320))


def main() -> None:
    threads = torch.get_num_threads()
    print(f"{threads} torch threads; level (0-255) by σ auto / by single frames' finest band; σ auto's carried share")
    print("size | σ = 10 | σ = 25 | σ = 40")
    for height, width in SIZES:
        clip = moving_clip(t=8, height=height, width=width)
        cells = []
        for sigma in (10, 25, 40):
            noisy = add_noise(clip, sigma / 255)
            function = estimate_clip_noise(noisy)
            level, single = function.level * 255, estimate_noise_sigma(noisy) * 255
            hint = " (hint)" if level >= HEAVY * 255 else ""
            cells.append(f"{level:.1f} / {single:.1f}, share {function.carried:.2f}{hint}")
        print(f"{height}×{width} | " + " | ".join(cells))


if __name__ == "__main__":
    main()

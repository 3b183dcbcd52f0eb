"""How far σ auto's level can rise over single frames' finest wavelet band on real noise, for a future cross-check of
the overread in `overread.log` (a measurement for a plan not yet written; it decides nothing). Each clip-condition:
the level (`estimate_clip_noise(...).level`) over the finest band's σ (`single_frame.estimate_noise_sigma`), on the
twelve validation clips as taken and darkened 4× and 8× (`bench_quality.underexposed`), under the camera model's
nine H.264 conditions and Gaussian σ = 10, 25, 50 (the benchmark's draws). The benchmark's clips are not read.

    R=benchmarks/results/heavy-hint; .venv/bin/python $R/level_against_finest.py > $R/level_against_finest.log
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from validation_sweep import VALIDATION_CLIPS, clip_draws  # noqa: E402

from videodenoise.noise.estimation import estimate_clip_noise  # noqa: E402
from videodenoise.noise.single_frame import estimate_noise_sigma  # noqa: E402

import bench_quality as quality  # noqa: E402
from _machine import cpu_name  # noqa: E402

EXPOSURES = (1.0, 0.25, 0.125)


def main() -> None:
    print(f"machine: {cpu_name()}, {torch.get_num_threads()} torch threads; 5 frames; levels on the 0-255 scale")
    print("exposure and clip | condition | level | finest band | ratio")
    ratios: dict[str, list[tuple[float, str]]] = defaultdict(list)
    taken = quality.build_clips(VALIDATION_CLIPS, 5, quality.DEFAULT_SIZE)
    for exposure in EXPOSURES:
        for clip in (quality.underexposed(c, exposure) if exposure != 1 else c for c in taken):
            for condition, frames in clip_draws(clip, codecs=("h264",), sigmas=(10.0, 25.0, 50.0)):
                noisy = torch.from_numpy(frames).float() / 255
                level, finest = estimate_clip_noise(noisy).level * 255, estimate_noise_sigma(noisy) * 255
                ratio = level / max(finest, 1e-6)
                where = f"×{exposure:g} {clip.name}"
                ratios[condition].append((ratio, where))
                print(f"{where} | {condition} | {level:.2f} | {finest:.2f} | {ratio:.2f}", flush=True)
    print()
    print("condition | clip-conditions | ratio: median, highest (where)")
    for condition, values in ratios.items():
        values.sort()
        median, (highest, where) = values[len(values) // 2][0], values[-1]
        print(f"{condition} | {len(values)} | {median:.2f}, {highest:.2f} ({where})")


if __name__ == "__main__":
    main()

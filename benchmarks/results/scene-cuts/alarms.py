"""How often `clean`'s warning about frames showing two pictures fires where there is no cut: σ auto's estimate
(`NoiseLevelFunction.unlike_runs`) on the benchmark's six held-out clips (5 frames), at the three exposures of
`estimator_knob.py`, under its nineteen conditions (camera noise, Gaussian σ = 0-25, H.264 alone). The validation
clips were read the same way by the fourth trial's check, which this count is (`validation-fourth.log`: not one of
684 clip-conditions moved, so none fired).

    .venv/bin/python benchmarks/results/scene-cuts/alarms.py > benchmarks/results/scene-cuts/alarms.log
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from estimator_knob import EXPOSURES, draws  # noqa: E402

from videodenoise.noise.estimation import estimate_clip_noise  # noqa: E402

import bench_quality as quality  # noqa: E402
from _machine import cpu_name  # noqa: E402


def main() -> None:
    names = quality.available_clip_names()
    print(f"clips: {', '.join(names)}; 5 frames; {cpu_name()}, {torch.get_num_threads()} threads")
    taken = quality.build_clips(names, 5, quality.DEFAULT_SIZE)
    fired, total = [], 0
    for exposure in EXPOSURES:
        for clip in [quality.underexposed(clip, exposure) for clip in taken] if exposure != 1 else taken:
            for condition, draw in draws(clip):
                total += 1
                runs = estimate_clip_noise(torch.from_numpy(draw).float() / 255).unlike_runs
                if runs:
                    fired.append(f"×{exposure:g} {clip.name} {condition}: {runs} run{'s' * (runs > 1)}")
    print(f"the warning fires on {len(fired)} of {total} clip-conditions")
    for line in fired:
        print(f"  {line}")


if __name__ == "__main__":
    main()

"""What else σ auto's estimate says where it reads a faint share (a share whose lift leaves the level under 3.3):
light camera noise at CRF 28 on dead leaves against a codec's loss with no noise, on the clip-conditions the trial
moved (`validation.log`, `in-sample.log`; all read already). Estimates only, no denoising.

    .venv/bin/python benchmarks/results/faint-share/probe_separate.py > benchmarks/results/faint-share/probe_separate.log
"""

import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from estimator_knob import draws  # noqa: E402

from videodenoise.noise.estimation import estimate_clip_noise  # noqa: E402
from videodenoise.noise.noise_level_function import CODEC_LOSS_LEVEL  # noqa: E402

import bench_quality as quality  # noqa: E402

CLIPS = (
    "dead-leaves-2-pan,dead-leaves-3-pan,dead-leaves-grey-2-pan,dead-leaves-grey-3-pan,dead-leaves-2-objects,"
    "dead-leaves-3-objects,gravel-pan,gravel-objects,coins-objects,grass-pan,china-pan,flower-objects,aero-objects"
).split(",")

print("exposure | clip | condition | level, carried | grain per channel | luminance σ over its knots (of 255)")
for exposure in (1.0, 0.25, 0.125):
    for clip in quality.build_clips(CLIPS, 5, quality.DEFAULT_SIZE):
        clip = quality.underexposed(clip, exposure) if exposure != 1 else clip
        for condition, draw in draws(clip):
            if not ("crf" in condition or condition.startswith("gaussian σ=2")):
                continue
            function = estimate_clip_noise(torch.from_numpy(draw).float() / 255)
            if not (function.carried and function.level < CODEC_LOSS_LEVEL):
                continue
            sigmas = np.array(function.sigmas[0]) * 255
            print(
                f"×{exposure:g} | {clip.name} | {condition} | {function.level * 255:.2f}, {function.carried:.2f} | "
                + ", ".join(f"{g:.2f}" for g in function.grain)
                + " | "
                + " ".join(f"{s:.1f}" for s in sigmas),
                flush=True,
            )

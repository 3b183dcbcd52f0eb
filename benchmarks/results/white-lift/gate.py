"""Part 4 of the rule (README): which clip-conditions of the validation clips read as white noise to the estimator
(`NoiseLevelFunction.codec_shaped` False), under the camera model through H.264 (the nine conditions) and without a
codec, as taken and darkened 4× and 8×. Where H.264 footage reads as white, WHITE_LIFT would reach it.

    .venv/bin/python benchmarks/results/white-lift/gate.py > benchmarks/results/white-lift/gate.log
"""

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import bench_quality as quality  # noqa: E402
import bench_realnoise as realnoise  # noqa: E402
from validation_sweep import VALIDATION_CLIPS, camera_conditions  # noqa: E402

from videodenoise.noise.estimation import estimate_clip_noise  # noqa: E402

CLIPS = VALIDATION_CLIPS

taken = quality.build_clips(CLIPS, 5, quality.DEFAULT_SIZE)
for exposure in (1.0, 0.25, 0.125):
    clips = taken if exposure == 1 else [quality.underexposed(clip, exposure) for clip in taken]
    for codec in ("h264", "none"):
        white, shaped = [], []
        for level, crf in camera_conditions(codec):
            for clip in clips:
                noisy = torch.from_numpy(realnoise.camera_draw(clip, level, codec, crf)).float() / 255
                estimate = estimate_clip_noise(noisy)
                name = f"{clip.name} {realnoise.condition_name(level, codec, crf)}"
                read = f"{name} (grain {estimate.luminance_grain:.2f}, carried {estimate.carried:.2f})"
                (shaped if estimate.codec_shaped else white).append(read)
        total = len(white) + len(shaped)
        print(f"×{exposure:g} {codec}: {len(white)} of {total} clip-conditions read as white", flush=True)
        for line in white if codec == "h264" else shaped:  # the exceptions: H.264 read as white, raw as a codec's
            print(f"    {line}: {'white' if codec == 'h264' else 'codec-shaped'}", flush=True)

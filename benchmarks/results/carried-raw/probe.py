"""The carried share before its cap: is the share read on noise-free, compressed texture one that carried noise
could give? (Exploration on validation clips; no change made.)

With a share c carried one frame apart and c² two apart, σ₂²/σ₁² − 1 = c, at most 1: a reading above 1 is
something other than carried noise. σ auto caps the reading at MAX_CARRIED (0.5). Here the cap is lifted (to 0.999,
which stands for 1 or more: a function's share must be under 1), on the twelve validation clips, 5 frames, as
`clean` estimates: H.264 with no noise at CRF 18, 23 and 28 (`codec_ceiling.codec_encoded`) and the camera model's
three levels at the same CRFs. Printed: the reading per clip, one column per condition, then per condition.

    .venv/bin/python benchmarks/results/carried-raw/probe.py > probe.log
"""

import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from codec_ceiling import codec_encoded  # noqa: E402
from validation_sweep import VALIDATION_CLIPS  # noqa: E402

from videodenoise.noise import estimation  # noqa: E402

import bench_quality as quality  # noqa: E402
import bench_realnoise as realnoise  # noqa: E402

estimation.MAX_CARRIED = 0.999  # the reading itself, up to 1 (a function's share must be under 1): 0.999 is 1 or more
estimation.CARRIED_LIFT = 0.0  # no lift: (1 − c)^−1 is undefined past 1, and the map is not used here
readings: dict[str, list[float]] = {}
for clip in quality.build_clips(VALIDATION_CLIPS, 5, quality.DEFAULT_SIZE):
    draws = [(f"no noise CRF {crf}", codec_encoded(clip.frames, "h264", crf)) for crf in (18, 23, 28)]
    draws += [
        (f"{level} CRF {crf}", realnoise.camera_draw(clip, level, "h264", crf))
        for level in realnoise.DEFAULT_LEVELS
        for crf in (18, 23, 28)
    ]
    cells = []
    for condition, noisy in draws:
        carried = estimation.estimate_clip_noise(torch.from_numpy(noisy).float() / 255).carried
        readings.setdefault(condition, []).append(carried)
        cells.append(f"{carried:.2f}")
    print(f"{clip.name:24s} " + " ".join(cells), flush=True)
print("conditions in order: " + ", ".join(readings))
for condition, values in readings.items():
    values = np.array(values)
    print(
        f"{condition:16s} median {np.median(values):.2f}, max {values.max():.2f}; over 0.5: {int((values > 0.5).sum())}"
        f", 1 or more: {int((values >= 0.999).sum())} of {len(values)}"
    )

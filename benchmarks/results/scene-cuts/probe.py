"""What the idea was found on: σ auto's level / carried share (0-255) on clips with one scene cut (page's pan, then
flower's), 12 and 24 frames at 240×320, Gaussian σ = 2, 5, 15, the cut after frame k (k:level/share). Argument: the
scene-cut check's switch (`noise.estimation.CUT_CHECK`, 1-3 on; in the first three trials' commits `CUT_RATIO`, 2 on;
0: off). probe-off.log and probe-2.log ran at ccaa1e3, probe-2-second.log at 2c3a60b, the others at their trials'
commits (b66d684, ae9dc80, 0b47723, e3fdd1e); no check shipped, so the switch is gone here.

    R=benchmarks/results/scene-cuts
    .venv/bin/python $R/probe.py 0 > $R/probe-off.log; .venv/bin/python $R/probe.py 2 > $R/probe-2.log
    .venv/bin/python $R/probe.py 2 > $R/probe-2-second.log
    .venv/bin/python $R/probe.py 2 > $R/probe-3.log   # at b66d684 (the third trial's switch, CUT_RATIO)
    .venv/bin/python $R/probe.py 1 > $R/probe-4.log   # the fourth and fifth trials' (CUT_CHECK; README.md)
    .venv/bin/python $R/probe.py 2 > $R/probe-6.log   # the sixth trial's
    .venv/bin/python $R/probe.py 3 > $R/probe-7.log   # the seventh's
"""

import sys

import torch

from videodenoise.datasets.motion import camera_motion_clip, load_photo
from videodenoise.noise import estimation
from videodenoise.noise.estimation import estimate_clip_noise

estimation.CUT_CHECK = float(sys.argv[1])
A = camera_motion_clip(load_photo("skimage:page"), 24, (240, 320), seed=1).mean(1, keepdim=True).expand(-1, 3, -1, -1)
B = camera_motion_clip(load_photo("videodenoise:flower"), 24, (240, 320), seed=2)
for T in (12, 24):
    for sigma in (2, 5, 15):
        row = []
        for cut in range(1, T, max(1, T // 12)):
            clip = torch.cat([A[:cut], B[cut:T]])
            noisy = (
                (clip + sigma / 255 * torch.randn(clip.shape, generator=torch.Generator().manual_seed(sigma)))
                .clamp(0, 1)
                .mul(255)
                .round()
                .div(255)
            )
            f = estimate_clip_noise(noisy)
            row.append(f"{cut}:{f.level * 255:.1f}/{f.carried:.2f}")
        print(f"{T} frames, σ = {sigma}:", " ".join(row), flush=True)

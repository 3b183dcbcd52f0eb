"""Rule 4 of carried-gate: the late validation clips with no noise, through H.264 at CRF 18, 23 and 28, 5 frames,
`clean` (the fast preset) with σ auto, `noise.estimation.DROP_FAINT_SHARE` off and on; PSNR against the clean
frames. Only clip-CRFs whose estimate the switch moves are denoised twice. The switch was taken out after the rule
failed (fa9a072): run this, and the validation command in the README, at 2262acd, where it is.

    .venv/bin/python benchmarks/results/carried-gate/late.py > benchmarks/results/carried-gate/late.log
"""

import dataclasses
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from codec_ceiling import codec_encoded  # noqa: E402

from videodenoise.denoise.denoiser import Denoiser  # noqa: E402
from videodenoise.denoise.settings import PRESETS  # noqa: E402
from videodenoise.noise import estimation  # noqa: E402

import bench_quality as quality  # noqa: E402
from _machine import cpu_name  # noqa: E402

CLIPS = ["aero-pan", "aero-objects", "ascent-pan", "ascent-objects"]

print(f"machine: {cpu_name()}, {torch.get_num_threads()} torch threads")
denoiser = Denoiser.from_checkpoint(
    "videodenoise/checkpoints/dust-video.safetensors", dataclasses.replace(PRESETS["fast"], device="cpu")
)
gains = []
for clip in quality.build_clips(CLIPS, 5, quality.DEFAULT_SIZE):
    for crf in (18, 23, 28):
        noisy = torch.from_numpy(codec_encoded(clip.frames, "h264", crf)).float() / 255
        estimates = []
        for value in (False, True):
            estimation.DROP_FAINT_SHARE = value
            estimates.append(estimation.estimate_clip_noise(noisy))
        estimation.DROP_FAINT_SHARE = False
        if estimates[0] == estimates[1]:
            print(f"{clip.name} CRF {crf}: not moved (carried {estimates[0].carried:.2f})", flush=True)
            continue
        scores = [quality.measure(denoiser.denoise_clip(noisy, e).numpy(), clip.frames)["psnr"] for e in estimates]
        gains.append(scores[1] - scores[0])
        print(
            f"{clip.name} CRF {crf}: carried {estimates[0].carried:.2f} → {estimates[1].carried:.2f}, level "
            f"{estimates[0].level * 255:.2f} → {estimates[1].level * 255:.2f}, PSNR {scores[0]:.2f} → {scores[1]:.2f} "
            f"({gains[-1]:+.2f})",
            flush=True,
        )
if gains:
    print(f"moved {len(gains)}: mean gain {np.mean(gains):+.3f} dB, lowest {min(gains):+.3f}")

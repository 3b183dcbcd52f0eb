"""What `--calibrate` would do on dark H.264 footage where the test for a codec's noise does see one (exploration on
six validation pans darkened 8×; no choice is made on it): the gate (`NoiseLevelFunction.codec_shaped`) bypassed,
the scale calibration chooses, and `clean`'s PSNR told 1, told what calibration chose, and told each scale of its grid.

    .venv/bin/python benchmarks/results/dark-calibration/ungated.py > benchmarks/results/dark-calibration/ungated.log
"""

import dataclasses
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from videodenoise.denoise import calibration  # noqa: E402
from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT  # noqa: E402
from videodenoise.noise.estimation import estimate_clip_noise  # noqa: E402
from videodenoise.noise.noise_level_function import NoiseLevelFunction  # noqa: E402

import bench_quality as quality  # noqa: E402
import bench_realnoise as realnoise  # noqa: E402
from _machine import cpu_name  # noqa: E402

CLIPS = "motorcycle-right-pan,cell-pan,clock-motion-pan,page-pan,china-pan,flower-pan".split(",")
CONDITIONS = (("light", 28), ("medium", 23), ("heavy", 28))

denoiser = quality.load_denoiser(DEFAULT_CHECKPOINT, {})
gate = NoiseLevelFunction.codec_shaped


def psnr(noisy: torch.Tensor, function, clip: quality.Clip) -> float:
    return quality.measure(denoiser.denoise_clip(noisy, function).numpy(), clip.frames)["psnr"]


print(f"six validation pans darkened 8×, H.264, the gate bypassed; `clean` fast, σ auto; {cpu_name()}")
print("| clip, condition | grain | chosen | told 1 | told chosen | best scale: PSNR |")
print("|---|---:|---:|---:|---:|---:|")
found = []
for clip in [quality.underexposed(clip, 0.125) for clip in quality.build_clips(CLIPS, 5, quality.DEFAULT_SIZE)]:
    for level, crf in CONDITIONS:
        noisy = torch.from_numpy(realnoise.camera_draw(clip, level, "h264", crf)).float() / 255
        estimate = estimate_clip_noise(noisy)
        if not estimate.codec_shaped:
            continue  # probe.py has these
        told = {s: psnr(noisy, dataclasses.replace(estimate, told_scale=s), clip) for s in calibration.SCALES}
        NoiseLevelFunction.codec_shaped = property(lambda self: False)  # the gate bypassed
        try:
            chosen = calibration.choose_told_scale(denoiser, noisy, estimate)
        finally:
            NoiseLevelFunction.codec_shaped = gate
        calibrated = psnr(noisy, chosen.applied_to(estimate), clip)
        best = max(told, key=told.get)
        found.append((told[1.0], calibrated, told[best]))
        print(
            f"| {clip.name}, {realnoise.condition_name(level, 'h264', crf)} | {estimate.luminance_grain:.2f} "
            f"| {chosen.scale:g} | {told[1.0]:.2f} | {calibrated:.2f} | {best:g}: {told[best]:.2f} |",
            flush=True,
        )
one, calibrated, best = np.array(found).T
print(
    f"{len(found)} clip-conditions: told 1 {one.mean():.2f}, calibrated {calibrated.mean():.2f} "
    f"({(calibrated - one).mean():+.2f}; {int((calibrated < one - 0.05).sum())} more than 0.05 dB below), "
    f"best scale {best.mean():.2f}"
)

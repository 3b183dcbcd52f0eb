"""What `--calibrate` does where the test for a codec's noise is blind (exploration on the validation clips; no
choice is made on it). In dark H.264 footage the grain can go unmeasured (too few flat blocks off black), and the
noise then reads as white (`white-lift/gate.log`), so calibration runs on codec noise, where its frame-to-frame
criterion is biased towards keeping noise (`videodenoise/denoise/calibration.py`). For every validation clip-condition
darkened 4× and 8× whose noise reads as white: under H.264 (the camera model's nine conditions) and, for comparison,
Gaussian σ = 10 and 25: the scale calibration chooses, `clean`'s PSNR told each scale of calibration's grid, told 1,
and told what calibration chose (with the step it hands on).

    .venv/bin/python benchmarks/results/dark-calibration/probe.py > benchmarks/results/dark-calibration/probe.log
"""

import dataclasses
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from validation_sweep import VALIDATION_CLIPS, camera_conditions  # noqa: E402

from videodenoise.denoise.calibration import SCALES, choose_told_scale  # noqa: E402
from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT  # noqa: E402
from videodenoise.noise.estimation import estimate_clip_noise  # noqa: E402

import bench_quality as quality  # noqa: E402
import bench_realnoise as realnoise  # noqa: E402
from _machine import cpu_name  # noqa: E402

CLIPS = VALIDATION_CLIPS

denoiser = quality.load_denoiser(DEFAULT_CHECKPOINT, {})


def psnr(noisy: torch.Tensor, function, clip: quality.Clip) -> float:
    return quality.measure(denoiser.denoise_clip(noisy, function).numpy(), clip.frames)["psnr"]


taken = quality.build_clips(CLIPS, 5, quality.DEFAULT_SIZE)
print(
    f"validation clips darkened, noise reading as white; `clean` fast, σ auto; {cpu_name()}, "
    f"{torch.get_num_threads()} threads"
)
print("| exposure | clip, condition | grain | chosen | told 1 | told chosen | best scale: PSNR |")
print("|---|---|---:|---:|---:|---:|---:|")
rows = {"h264": [], "gaussian": []}
for exposure in (0.25, 0.125):
    clips = [quality.underexposed(clip, exposure) for clip in taken]
    for clip in clips:
        draws = [
            (realnoise.condition_name(level, "h264", crf), "h264", realnoise.camera_draw(clip, level, "h264", crf))
            for level, crf in camera_conditions("h264")
        ]
        draws += [
            (
                f"gaussian σ={sigma:g}",
                "gaussian",
                quality.add_noise_uint8(clip.frames, sigma, quality.noise_seed(clip.name, sigma, 0)),
            )
            for sigma in (10.0, 25.0)
        ]
        for condition, kind, draw in draws:
            noisy = torch.from_numpy(draw).float() / 255
            estimate = estimate_clip_noise(noisy)
            if estimate.codec_shaped:
                continue

            told = {s: psnr(noisy, dataclasses.replace(estimate, told_scale=s), clip) for s in SCALES}
            calibration = choose_told_scale(denoiser, noisy, estimate)
            chosen = psnr(noisy, calibration.applied_to(estimate), clip)
            best = max(told, key=told.get)
            unmeasured = "" if estimate.grain else " (unmeasured)"
            rows[kind].append((told[1.0], chosen, told[best]))
            print(
                f"| ×{exposure:g} | {clip.name}, {condition} | {estimate.luminance_grain:.2f}{unmeasured} "
                f"| {calibration.scale:g} | {told[1.0]:.2f} | {chosen:.2f} | {best:g}: {told[best]:.2f} |",
                flush=True,
            )
for kind, found in rows.items():
    if found:
        one, chosen, best = np.array(found).T
        print(
            f"{kind}: {len(found)} clip-conditions; told 1 {one.mean():.2f}, calibrated {chosen.mean():.2f} "
            f"({(chosen - one).mean():+.2f}; {int((chosen < one - 0.05).sum())} more than 0.05 dB below told 1), "
            f"best scale {best.mean():.2f}"
        )

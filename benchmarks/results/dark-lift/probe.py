"""Exploration (validation pans only): in dark footage whose noise the camera gamma's step recognises as a camera's,
would the whole estimated curve told × L (fusion, the model, both corrections; night-hint/lift.py's "curve" variant)
do better? night-hint/lift.py found × 1.4 gaining on 17 of 18 dark camera clip-conditions but losing on 11 of 12
Gaussian ones, with no gate before the pass; the step's skew test never engages on Gaussian noise, and here it is the
gate: the step engaged on the σ auto pass. Today's σ auto (both lifts). The six validation pans darkened 4× and 8×
(and as taken where their mean is under 48), camera noise (H.264 CRF 23) and Gaussian σ = 10, 25, 5 frames; only
clip-conditions whose noisy mean level is under 48 (`pipeline.DARK`). Log beside it.

    .venv/bin/python benchmarks/results/dark-lift/probe.py > benchmarks/results/dark-lift/probe.log
"""

import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import bench_quality as quality  # noqa: E402
import bench_realnoise as realnoise  # noqa: E402
from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT  # noqa: E402
from videodenoise.noise.estimation import estimate_clip_noise  # noqa: E402

CLIPS = sys.argv[1].split(",") if sys.argv[1:] else [
    "cell-pan", "flower-pan", "china-pan", "motorcycle-right-pan", "clock-motion-pan", "page-pan"
]
LIFTS = (1.2, 1.4, 1.7)
denoiser = quality.load_denoiser(DEFAULT_CHECKPOINT, {})


def noisy_frames(clip, name, noise):
    if isinstance(noise, str):
        camera = realnoise.camera_noise(noise, "h264", 23)
        return realnoise.add_camera_noise(clip.frames, camera, realnoise.camera_seed(name, noise, "h264", 23))
    return quality.add_noise_uint8(clip.frames, noise, quality.noise_seed(name, noise))


def psnr(frames, clip, function, engaged=None):
    hook = None if engaged is None else engaged.append
    output = torch.stack(list(denoiser.denoise_frames(frames, function, on_camera_bias=hook)))
    return quality.measure(output.numpy(), clip.frames)["psnr"]


gains = {lift: [] for lift in LIFTS}
for exposure in (1.0, 0.25, 0.125):
    for name in CLIPS:
        clip = quality.build_clips([name], 5, quality.DEFAULT_SIZE)[0]
        clip = quality.underexposed(clip, exposure) if exposure != 1 else clip
        for noise in ("light", "medium", "heavy", 10, 25):
            noisy = noisy_frames(clip, name, noise)
            if noisy.mean() >= 48:
                continue
            frames = torch.from_numpy(noisy).float() / 255
            function = estimate_clip_noise(frames)
            engaged = []
            auto = psnr(frames, clip, function, engaged)
            lifted = {lift: psnr(frames, clip, function.scaled(lift)) for lift in LIFTS}
            camera = isinstance(noise, str)
            for lift in LIFTS:
                gains[lift].append((camera, bool(engaged), lifted[lift] - auto))
            text = " ".join(f"×{lift:g} {lifted[lift] - auto:+.2f}" for lift in LIFTS)
            print(
                f"{name:22s} ×{exposure:<6g} {str(noise):6s} mean {noisy.mean():5.1f} step {'on ' if engaged else 'off'}"
                f" auto {auto:.2f} | {text}",
                flush=True,
            )
for lift in LIFTS:
    for camera, step in ((True, True), (True, False), (False, True), (False, False)):
        mine = [g for c, e, g in gains[lift] if c == camera and e == step]
        if mine:
            print(
                f"×{lift:g}, {'camera' if camera else 'Gaussian'}, step {'on ' if step else 'off'}: {len(mine)} "
                f"clip-conditions, mean {np.mean(mine):+.2f}, {min(mine):+.2f} to {max(mine):+.2f}, up on "
                f"{sum(g > 0 for g in mine)}"
            )

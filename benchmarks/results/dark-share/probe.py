"""Exploration (validation pans only): in dark footage the camera gamma's step often never engages, so neither its
raise nor the clipping's lifted σ applies. Is that the share test (too little of a frame in the mid-tone bins S is
read from, `camera_bias.MIN_SHARE`) or the skew itself (S under SKEW_THRESHOLD)? And would the step help there if it
were decided on the first frame whatever its share? The six validation pans darkened 4×, 8× and 32× in linear light,
the camera model's light, medium and heavy noise through H.264 CRF 23, 5 frames; per clip-condition the first
frame's S and share, and `clean` σ auto's PSNR with MIN_SHARE as shipped and at 0. Log beside it.

    .venv/bin/python benchmarks/results/dark-share/probe.py > benchmarks/results/dark-share/probe.log
"""

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from videodenoise.denoise import camera_bias  # noqa: E402
from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT  # noqa: E402
from videodenoise.noise.estimation import estimate_clip_noise  # noqa: E402

import bench_quality as quality  # noqa: E402
import bench_realnoise as realnoise  # noqa: E402

PANS = ["cell-pan", "flower-pan", "china-pan", "motorcycle-right-pan", "clock-motion-pan", "page-pan"]
denoiser = quality.load_denoiser(DEFAULT_CHECKPOINT, {})
calls = []
skew_ratio = camera_bias.skew_ratio
camera_bias.skew_ratio = lambda noisy, output: calls.append(skew_ratio(noisy, output)) or calls[-1]
shipped = camera_bias.MIN_SHARE

for exposure in (0.25, 0.125, 0.03125):
    for name in PANS:
        clip = quality.underexposed(quality.build_clips([name], 5, quality.DEFAULT_SIZE)[0], exposure)
        for level in ("light", "medium", "heavy"):
            noisy = realnoise.camera_draw(clip, level, "h264", 23)
            frames = torch.from_numpy(noisy).float() / 255
            function = estimate_clip_noise(frames)
            scores = {}
            for share in (shipped, 0.0):
                camera_bias.MIN_SHARE, calls[:], fitted = share, [], []
                output = torch.stack(list(denoiser.denoise_frames(frames, function, on_camera_bias=fitted.append)))
                first = calls[0]
                scores[share] = (quality.measure(output.numpy(), clip.frames)["psnr"], bool(fitted))
            camera_bias.MIN_SHARE = shipped
            text = " ".join(f"{k:g}: {v:.2f}{'*' if on else ''}" for k, (v, on) in scores.items())
            print(
                f"{name:20s} ×{exposure:<8g} {level:6s} mean {noisy.mean():5.1f} S {first[0]:5.2f} share {first[1]:.3f}"
                f" | MIN_SHARE {text} ({scores[0.0][0] - scores[shipped][0]:+.2f})",
                flush=True,
            )

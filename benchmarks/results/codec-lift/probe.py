"""Exploration before the plan (README.md): the camera gamma's step with its fit, or its fit and the clipping's
correction, reading σ auto's curve times k = 1, 1.2, 1.4, 1.7. The six validation pans as taken and darkened 4×
and 8× (`bench_quality.underexposed`), the camera model's light, medium and heavy noise through H.264 CRF 23, 5
frames; the model's output computed once per clip-condition, the corrections applied to it as
`Denoiser.denoise_frames` applies them. `*`: the step engaged. Logs beside it.

    .venv/bin/python benchmarks/results/codec-lift/probe.py fit > benchmarks/results/codec-lift/probe-fit.log
    .venv/bin/python benchmarks/results/codec-lift/probe.py both > benchmarks/results/codec-lift/probe-both.log
"""

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from videodenoise.denoise import camera_bias, clipping  # noqa: E402
from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT  # noqa: E402
from videodenoise.noise.estimation import estimate_clip_noise  # noqa: E402

import bench_quality as quality  # noqa: E402
import bench_realnoise as realnoise  # noqa: E402

camera_bias.CODEC_LIFT = 1.0  # as run, before codec-lift (the gamma step's fit reading the curve as measured)

PANS = ["cell-pan", "flower-pan", "china-pan", "motorcycle-right-pan", "clock-motion-pan", "page-pan"]
both = sys.argv[1:] == ["both"]  # the clipping's correction reads the lifted curve too
denoiser = quality.load_denoiser(DEFAULT_CHECKPOINT, {})




for exposure in (1.0, 0.25, 0.125):
    for name in PANS:
        clip = quality.build_clips([name], 5, quality.DEFAULT_SIZE)[0]
        clip = quality.underexposed(clip, exposure) if exposure != 1 else clip
        for level in ("light", "medium", "heavy"):
            camera = realnoise.camera_noise(level, "h264", 23)
            noisy = realnoise.add_camera_noise(clip.frames, camera, realnoise.camera_seed(name, level, "h264", 23))
            frames = torch.from_numpy(noisy).float() / 255
            function = estimate_clip_noise(frames)
            raw = list(denoiser._stream(iter(frames), function))
            scores = {}
            for factor in (1.0, 1.2, 1.4, 1.7):
                lifted, fitted = function.scaled(factor), []
                gamma = camera_bias.gamma_bias(lifted, fitted.append)
                list(gamma.watching(iter(frames)))
                clipped_with = lifted if both else function
                out = []
                for f in raw:  # as `Denoiser.denoise_frames` takes each frame: decided on, unclipped, undone
                    gamma.decide(f)
                    out.append(gamma.undo(f, clipping.unclip(f, clipping.clipped_sigma(clipped_with, f))))
                scores[factor] = (quality.measure(torch.stack(out).numpy(), clip.frames)["psnr"], bool(fitted))
            text = " ".join(f"{k} {v:.2f}{'*' if on else ''}" for k, (v, on) in scores.items())
            print(f"{name:20s} x{exposure:<6g} {level:6s} mean {noisy.mean():5.1f} {text}", flush=True)

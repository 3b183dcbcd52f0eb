"""Does `--calibrate`'s told scale switch the gamma step off? (forty-seventh session; validation pans only.)

Calibration (`videodenoise.denoise.calibration`) runs on white noise only, so under the camera model it runs where
no codec shaped the noise ("raw": camera noise stored as it is, as in a lossless capture or a folder of developed
frames). It chooses how much the model is told on passes without the gamma step, and the video's pass then decides
the step on its own first frame, told the chosen scale. Here: the six validation pans as taken and darkened 4×, the
camera model's light, medium and heavy noise without a codec, the fast preset's model and fusion; for each, the
scale calibration chooses (`choose_told_scale` on the 5 frames), then a pass told × 1 and one told the chosen scale,
each with the PSNR and whether the step was made. The pass told the chosen scale decides the step itself, as every
pass did before `calibrated-step/`, which hands on the step made told the curve (this script, run before that
change, reads the same at any later commit).

    cd benchmarks/results/camera-gamma && ../../../.venv/bin/python calibrated_step.py > calibrated_step.log
"""

import dataclasses
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from videodenoise.denoise.calibration import choose_told_scale  # noqa: E402
from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT  # noqa: E402
from videodenoise.noise.estimation import estimate_clip_noise  # noqa: E402

import bench_quality as quality  # noqa: E402
import bench_realnoise as realnoise  # noqa: E402

CLIPS = ("cell-pan", "flower-pan", "china-pan", "motorcycle-right-pan", "clock-motion-pan", "page-pan")
denoiser = quality.load_denoiser(DEFAULT_CHECKPOINT, {})
switched = []
for exposure in (1.0, 0.25):
    for name in CLIPS:
        clip = quality.build_clips([name], 5, quality.DEFAULT_SIZE)[0]
        clip = quality.underexposed(clip, exposure) if exposure != 1 else clip
        for level in ("light", "medium", "heavy"):
            frames = torch.from_numpy(realnoise.camera_draw(clip, level, "none", None)).float() / 255
            function = estimate_clip_noise(frames)
            chosen = choose_told_scale(denoiser, frames, function).scale
            results = {}
            for scale in sorted({1.0, chosen}):
                made = []
                told = dataclasses.replace(function, told_scale=scale)
                output = torch.stack(list(denoiser.denoise_frames(frames, told, on_camera_bias=made.append)))
                results[scale] = (quality.measure(output.numpy(), clip.frames)["psnr"], bool(made))
            text = "; ".join(f"× {s:g}: {p:.2f} dB, step {'made' if m else 'not'}" for s, (p, m) in results.items())
            print(f"{name:22s} ×{exposure:<5g} {level:6s} raw: chose × {chosen:g} | {text}", flush=True)
            if results[1.0][1] and not results[chosen][1]:
                switched.append(f"{name} ×{exposure:g} {level}")
print(f"step made told × 1, not told the chosen scale: {len(switched)} of {len(CLIPS) * 6} ({', '.join(switched)})")

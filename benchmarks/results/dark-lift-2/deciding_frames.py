"""Which frame decides the gamma step, and what it reads, on the clip where the dark lift switched the step off
(cell-pan darkened 4×, light camera noise, H.264 CRF 28; `flip.log`): the model told the estimated curve × 1.1 and
× 1.15, and for each frame the step reads until it decides, its skew S and whether it holds picture enough to tell
(its share of usable mid-tones at least MIN_SHARE). Runs at any commit from bd01e97 on.

    .venv/bin/python benchmarks/results/dark-lift-2/deciding_frames.py > benchmarks/results/dark-lift-2/deciding_frames.log
"""

import dataclasses
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import bench_quality as quality  # noqa: E402
import bench_realnoise as realnoise  # noqa: E402
from videodenoise.denoise import camera_bias  # noqa: E402
from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT  # noqa: E402
from videodenoise.noise.estimation import estimate_clip_noise  # noqa: E402

NAME, EXPOSURE, LEVEL, CRF = "cell-pan", 0.25, "light", 28
denoiser = quality.load_denoiser(DEFAULT_CHECKPOINT, {})
clip = quality.underexposed(quality.build_clips([NAME], 5, quality.DEFAULT_SIZE)[0], EXPOSURE)
frames = torch.from_numpy(realnoise.camera_draw(clip, LEVEL, "h264", CRF)).float() / 255
function = estimate_clip_noise(frames)
read = []
fit = camera_bias.GammaBias._fit


def traced(bias, noisy, output):
    lift = fit(bias, noisy, output)
    read.append(f"frame {bias.frame + 1}: S = {bias.skew:.3f}, " + ("cannot tell" if lift is None else "tells"))
    return lift


camera_bias.GammaBias._fit = traced
for scale in (1.1, 1.15):
    made, read[:] = [], []
    output = torch.stack(
        list(
            denoiser.denoise_frames(frames, dataclasses.replace(function, told_scale=scale), on_camera_bias=made.append)
        )
    )
    psnr = quality.measure(output.numpy(), clip.frames)["psnr"]
    print(
        f"told × {scale:g}: {psnr:.2f} dB, step {'made' if made else 'not made'} (threshold "
        f"{camera_bias.SKEW_THRESHOLD}); {'; '.join(read)}"
    )

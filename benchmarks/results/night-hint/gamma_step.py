"""Why one σ told by hand can lose so much on dark footage: the camera gamma's step, which σ auto alone gets. cell-pan
×1/4, the camera model's light noise through H.264 CRF 23 (the clip-condition where told 28 lost 8.8 dB in
brightness.log): `clean` σ auto with and without the step. Log beside it.

    .venv/bin/python benchmarks/results/night-hint/gamma_step.py > benchmarks/results/night-hint/gamma_step.log
"""

import dataclasses
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import bench_quality as quality  # noqa: E402
import bench_realnoise as realnoise  # noqa: E402
from videodenoise.denoise import camera_bias  # noqa: E402
from videodenoise.denoise.denoiser import Denoiser  # noqa: E402
from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT  # noqa: E402

camera_bias.CODEC_LIFT = 1.0  # as run, before codec-lift (the gamma step's fit reading the curve as measured)

shipped = quality.load_denoiser(DEFAULT_CHECKPOINT, {})
without = Denoiser(shipped.model, dataclasses.replace(shipped.settings, camera_bias=False), shipped.sigma_train)
clip = quality.underexposed(quality.build_clips(["cell-pan"], 5, quality.DEFAULT_SIZE)[0], 0.25)
camera = realnoise.camera_noise("light", "h264", 23)
noisy = realnoise.add_camera_noise(clip.frames, camera, realnoise.camera_seed("cell-pan", "light", "h264", 23))
frames = torch.from_numpy(noisy).float() / 255
for label, denoiser in (("with the gamma step", shipped), ("without it", without)):
    psnr = quality.measure(denoiser.denoise_clip(frames, "auto").numpy(), clip.frames)["psnr"]
    print(f"cell-pan ×1/4, light camera noise, H.264 CRF 23: σ auto {label}: {psnr:.2f} dB")

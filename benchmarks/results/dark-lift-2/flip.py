"""Exploration (a validation clip): why the dark lift lost 4.3 dB on cell-pan darkened 4× at light camera noise and
H.264 CRF 28 (`dark-lift/`, ×1/4 light CRF 28 −0.31 dB over twelve clips, −4.34 of it this clip's). Told a little
more, the model's output is smoother, and the gamma step's skew test, which decides on the first denoised frame,
flips from made to not made: the lifted pass lost the step's correction, worth 4.3 dB on this dark smooth clip.
First the model told the estimated curve × 1 to 1.2 (`told_scale`), the test run on each pass as before this
folder; then `lifted_in_the_dark` with this folder's fix, whose lifted pass makes the step its first frames' pass
decided on. Run at 84cd68b, where the lift's code is (it failed this folder's rule and was taken out again; the first
half runs at any later commit):

    .venv/bin/python benchmarks/results/dark-lift-2/flip.py > benchmarks/results/dark-lift-2/flip.log
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
camera = realnoise.camera_noise(LEVEL, "h264", CRF)
noisy = realnoise.add_camera_noise(clip.frames, camera, realnoise.camera_seed(NAME, LEVEL, "h264", CRF))
frames = torch.from_numpy(noisy).float() / 255
function = estimate_clip_noise(frames)
print(f"{NAME} ×{EXPOSURE:g}, {LEVEL} camera noise, H.264 CRF {CRF}: mean level {noisy.mean():.1f}")
for scale in (1.0, 1.05, 1.1, 1.15, 1.2):
    made = []
    told = dataclasses.replace(function, told_scale=scale)
    output = torch.stack(list(denoiser.denoise_frames(frames, told, on_camera_bias=made.append)))
    psnr = quality.measure(output.numpy(), clip.frames)["psnr"]
    print(f"the model told × {scale:<4g}: {psnr:.2f} dB, gamma step {'made' if made else 'not made'}")
for lift in (1.0, 1.2, 1.4):
    camera_bias.DARK_LIFT = lift
    output = denoiser.denoise_clip(frames, "auto")
    psnr = quality.measure(output.numpy(), clip.frames)["psnr"]
    print(f"lifted_in_the_dark, DARK_LIFT = {lift:g}: {psnr:.2f} dB")

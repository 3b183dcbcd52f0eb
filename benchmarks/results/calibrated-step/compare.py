"""`--calibrate` with the camera gamma's step made as told the curve as estimated, against each pass deciding it
(before this folder): camera noise stored without a codec (where calibration runs: white noise), light, medium and
heavy, as taken and darkened 4×, and Gaussian σ = 25 as taken (where the step never engages), 5 frames, the fast
preset's model and fusion, σ auto. Per clip-condition: the scale calibration chose, then the pass told it with the
step carried (`Calibration.applied_to`, today) and without (`gamma_fit` None: the pass decides, as before), the
PSNR and whether the step was made; the means and the worst difference last.

    .venv/bin/python benchmarks/results/calibrated-step/compare.py aero-pan,ascent-pan,aero-objects,ascent-objects
"""

import dataclasses
import sys
from pathlib import Path

import numpy as np
import torch

from videodenoise.denoise.calibration import choose_told_scale
from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT
from videodenoise.noise.estimation import estimate_clip_noise

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import bench_quality as quality  # noqa: E402
import bench_realnoise as realnoise  # noqa: E402

denoiser = quality.load_denoiser(DEFAULT_CHECKPOINT, {})
gains, gaussian = [], []
for name in sys.argv[1].split(","):
    clip = quality.build_clips([name], 5, quality.DEFAULT_SIZE)[0]
    for exposure, noise in [(1.0, level) for level in ("light", "medium", "heavy", 25.0)] + [
        (0.25, level) for level in ("light", "medium", "heavy")
    ]:
        truth = quality.underexposed(clip, exposure) if exposure != 1 else clip
        if isinstance(noise, str):
            noisy = realnoise.camera_draw(truth, noise, "none", None)
        else:
            noisy = quality.add_noise_uint8(truth.frames, noise, quality.noise_seed(name, noise))
        frames = torch.from_numpy(noisy).float() / 255
        function = estimate_clip_noise(frames)
        calibration = choose_told_scale(denoiser, frames, function)
        carried = calibration.applied_to(function)
        decided = dataclasses.replace(carried, gamma_fit=None) if carried is not function else function
        results = []
        for told in (carried, decided):
            made = []
            output = torch.stack(list(denoiser.denoise_frames(frames, told, on_camera_bias=made.append)))
            results.append((quality.measure(output.numpy(), truth.frames)["psnr"], bool(made)))
        (after, made_after), (before, made_before) = results
        (gains if isinstance(noise, str) else gaussian).append(after - before)
        print(
            f"{name:16s} ×{exposure:<5g} {str(noise):6s} chose × {calibration.scale:g} | carried {after:.2f} dB step "
            f"{'made' if made_after else 'not'} | each pass decides {before:.2f} dB step "
            f"{'made' if made_before else 'not'} | {after - before:+.2f}",
            flush=True,
        )
print(
    f"camera noise: {len(gains)} clip-conditions, mean {np.mean(gains):+.3f} dB, worst {min(gains):+.2f}, best "
    f"{max(gains):+.2f}, changed {sum(abs(g) > 0.005 for g in gains)}; Gaussian: largest change "
    f"{max(abs(g) for g in gaussian):.3f}"
)

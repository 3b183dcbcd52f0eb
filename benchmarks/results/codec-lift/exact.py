"""The rule's borderline figures to more places than validation_sweep.py prints (two), the same computation (its
draws, `clean` σ auto, the twelve validation clips): the camera conditions' means for CODEC_LIFT = 1 and 1.2 darkened
4× and 8× (part 2: a mean gain of at least +0.2 dB over the 18), and, as taken, light CRF 28 for 1 and 1.4 (part 1:
no condition more than 0.05 dB below). `gaussian`: as taken, Gaussian σ = 0, 2, 10, 25 (the sweep's draws),
CODEC_LIFT = 1, 1.2 and 1.4 (part 1: within 0.01 dB), which clips moved and where the gamma step engaged. Logs
beside it.

    .venv/bin/python benchmarks/results/codec-lift/exact.py > benchmarks/results/codec-lift/exact.log
    .venv/bin/python benchmarks/results/codec-lift/exact.py gaussian > benchmarks/results/codec-lift/gaussian_exact.log
"""

import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import bench_quality as quality  # noqa: E402
from validation_sweep import GAUSSIAN_SIGMAS, VALIDATION_CLIPS, noisy_clips  # noqa: E402

from videodenoise.denoise import camera_bias  # noqa: E402
from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT  # noqa: E402
from videodenoise.noise.estimation import estimate_clip_noise  # noqa: E402

NAMES = VALIDATION_CLIPS
camera_bias.LIFT_CLIPPING = False  # as run, before clipping-lift (the clipping's correction reading the curve as measured)
denoiser = quality.load_denoiser(DEFAULT_CHECKPOINT, {})


def condition_means(exposure: float, lifts: tuple[float, ...], only: str | None = None) -> dict:
    """{condition: {lift: mean PSNR over the clips}} for the camera conditions (or the one named)."""
    clips = quality.build_clips(NAMES, 5, quality.DEFAULT_SIZE)
    clips = [quality.underexposed(clip, exposure) for clip in clips] if exposure != 1 else clips
    out = {}
    for condition, draws in noisy_clips(clips):
        if condition.startswith("gaussian") or (only and condition != only):
            continue
        frames = [torch.from_numpy(draw).float() / 255 for draw in draws]
        estimates = [estimate_clip_noise(noisy) for noisy in frames]
        out[condition] = {}
        for lift in lifts:
            camera_bias.CODEC_LIFT = lift
            scores = [
                quality.measure(denoiser.denoise_clip(noisy, estimate).numpy(), clip.frames)["psnr"]
                for noisy, estimate, clip in zip(frames, estimates, clips)
            ]
            out[condition][lift] = float(np.mean(scores))
        camera_bias.CODEC_LIFT = 1.0
        print(f"×{exposure:g} {condition}: " + ", ".join(f"{k:g}: {v:.4f}" for k, v in out[condition].items()), flush=True)
    return out


def gaussian_means() -> None:
    """As taken, per Gaussian σ: the condition mean at each CODEC_LIFT, the clips 1.2 moved, where the step engaged."""
    clips = quality.build_clips(NAMES, 5, quality.DEFAULT_SIZE)
    for sigma in GAUSSIAN_SIGMAS:
        scores, engaged = {1.0: [], 1.2: [], 1.4: []}, []
        for clip in clips:
            noisy = quality.add_noise_uint8(clip.frames, sigma, quality.noise_seed(clip.name, sigma, 0))
            frames = torch.from_numpy(noisy).float() / 255
            estimate = estimate_clip_noise(frames)
            for lift in scores:
                camera_bias.CODEC_LIFT, fitted = lift, []
                output = torch.stack(list(denoiser.denoise_frames(frames, estimate, on_camera_bias=fitted.append)))
                scores[lift].append(quality.measure(output.numpy(), clip.frames)["psnr"])
            engaged.append(bool(fitted))
        camera_bias.CODEC_LIFT = 1.0
        means = " ".join(f"{lift:g}: {np.mean(values):.4f}" for lift, values in scores.items())
        moved = ", ".join(f"{n} {b - a:+.4f}" for n, a, b in zip(NAMES, scores[1.0], scores[1.2]) if a != b)
        steps = ", ".join(n for n, on in zip(NAMES, engaged) if on)
        print(f"σ = {sigma:g}: {means}; moved at 1.2: {moved or 'none'}; the step engaged on: {steps or 'none'}")


if sys.argv[1:] == ["gaussian"]:
    gaussian_means()
    sys.exit()
taken = condition_means(1.0, (1.0, 1.4), only="light h264 crf28")
print(f"as taken, light CRF 28: 1.4 − 1 = {taken['light h264 crf28'][1.4] - taken['light h264 crf28'][1.0]:+.4f}")
gains = []
for exposure in (0.25, 0.125):
    means = condition_means(exposure, (1.0, 1.2))
    gains += [m[1.2] - m[1.0] for m in means.values()]
print(f"darkened, 18 camera conditions: 1.2 − 1 mean {np.mean(gains):+.4f}, lowest {min(gains):+.4f}")

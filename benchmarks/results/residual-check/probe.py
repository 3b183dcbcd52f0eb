"""Does `clean`'s output say when it removed texture rather than noise? (A probe on clips already read, deciding
nothing.) For each clip-condition: the RMS of what σ auto's output removed (decoded input − output) over the noise's
std that σ auto read (its level without the carried share's lift), overall and as a high quantile over 16×16 blocks
of the luminance; next to the gain over the input. If the noise-free clips that lose read a clearly higher ratio than
every noisy clip-condition, a cap on what the output may remove is worth a trial.

    .venv/bin/python benchmarks/results/residual-check/probe.py > benchmarks/results/residual-check/probe.log
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from estimator_knob import draws  # noqa: E402

from videodenoise.denoise.denoiser import Denoiser  # noqa: E402
from videodenoise.denoise.settings import PRESETS  # noqa: E402
from videodenoise.noise import estimation  # noqa: E402
from videodenoise.noise.estimation import estimate_clip_noise  # noqa: E402

import bench_quality as quality  # noqa: E402
from _machine import cpu_name  # noqa: E402

# where the harm was found (texture-overread/), the estimator's photographs that lost most (faint-share/), and the
# dead-leaves clips where light camera noise at CRF 28 read a faint share (faint-share/): all read before
CLIPS = [
    "aero-objects",
    "aero-pan",
    "china-pan",
    "flower-objects",
    "gravel-objects",
    "grass-objects",
    "grass-pan",
    "ihc-pan",
    "dead-leaves-1-objects",
    "dead-leaves-3-objects",
    "dead-leaves-grey-2-pan",
    "motorcycle-right-pan",
]
BLOCK = 16


def noise_std(function) -> float:
    """σ auto's level without the carried share's lift: the std of the noise it read (0-255)."""
    lift = (1 - function.carried) ** -estimation.CARRIED_LIFT if function.carried else 1.0
    return function.level / lift * 255


def block_rms(removed: np.ndarray) -> np.ndarray:
    """RMS of the luminance of `removed` (T, C, H, W on 0-255) in BLOCK×BLOCK blocks, all frames."""
    luma = removed.mean(axis=1)
    t, h, w = luma.shape
    h, w = h // BLOCK * BLOCK, w // BLOCK * BLOCK
    blocks = luma[:, :h, :w].reshape(t, h // BLOCK, BLOCK, w // BLOCK, BLOCK)
    return np.sqrt((blocks**2).mean(axis=(2, 4))).ravel()


def main() -> None:
    print(f"machine: {cpu_name()}, {torch.get_num_threads()} torch threads")
    settings = dataclasses.replace(PRESETS["fast"], device="cpu")
    denoiser = Denoiser.from_checkpoint("videodenoise/checkpoints/dust-video.safetensors", settings)
    print("clip | condition | std read, carried, grain | removed RMS / std: all, blocks q90, q99 | gain over input")
    for clip in quality.build_clips(CLIPS, 5, quality.DEFAULT_SIZE):
        for condition, frames in draws(clip):
            if condition.startswith("gaussian σ=0"):
                continue
            noisy = torch.from_numpy(frames).float() / 255
            function = estimate_clip_noise(noisy)
            output = denoiser.denoise_clip(noisy, function)
            removed = frames.astype(np.float64) - output.numpy().astype(np.float64) * 255
            std = max(noise_std(function), 1e-3)
            blocks = block_rms(removed) / std
            scores = [quality.measure(x.numpy(), clip.frames)["psnr"] for x in (output, noisy)]
            gain = scores[0] - scores[1]
            print(
                f"{clip.name} | {condition} | {std:.2f}, {function.carried:.2f}, {function.luminance_grain:.2f} | "
                f"{np.sqrt((removed**2).mean()) / std:.2f}, {np.quantile(blocks, 0.9):.2f}, "
                f"{np.quantile(blocks, 0.99):.2f} | {gain:+.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()

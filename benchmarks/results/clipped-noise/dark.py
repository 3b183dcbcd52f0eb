"""What the probes of this folder share: the dark camera-noise clip-conditions (validation pans underexposed in
linear light, the camera model's medium and heavy noise through H.264 CRF 23, the real-noise benchmark's draws),
and the shipped denoiser with and without its two corrections (clipping, camera gamma)."""

import dataclasses
import sys
from collections.abc import Iterator
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import bench_quality as quality  # noqa: E402
import bench_realnoise as realnoise  # noqa: E402

from videodenoise.denoise.denoiser import Denoiser  # noqa: E402
from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT  # noqa: E402

PANS = ("cell-pan", "flower-pan", "china-pan", "motorcycle-right-pan")
shipped = quality.load_denoiser(DEFAULT_CHECKPOINT, {})
bare = Denoiser(shipped.model, dataclasses.replace(shipped.settings, unclip=False, camera_bias=False), shipped.sigma_train)


def draws(exposures=(0.125, 0.03125)) -> Iterator[tuple[str, float, str, quality.Clip, object, torch.Tensor]]:
    """(pan, exposure, level, the clean clip as exposed, its CameraNoise, the noisy frames in [0, 1]) for each."""
    for name in PANS:
        for exposure in exposures:
            clip = quality.build_clips([name], 5, quality.DEFAULT_SIZE)[0]
            clip = quality.underexposed(clip, exposure) if exposure != 1 else clip
            for level in ("medium", "heavy"):
                noise = realnoise.camera_noise(level, "h264", 23)
                noisy = realnoise.add_camera_noise(clip.frames, noise, realnoise.camera_seed(name, level, "h264", 23))
                yield name, exposure, level, clip, noise, torch.from_numpy(noisy).float() / 255


def psnr(output, clip: quality.Clip) -> float:
    """PSNR (dB) of (T, C, H, W) output in [0, 1], tensor or array, against the clean clip."""
    return quality.measure(output.numpy() if isinstance(output, torch.Tensor) else output, clip.frames)["psnr"]

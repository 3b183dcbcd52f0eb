"""Interlaced footage: denoise whole frames (what `clean` does) or their fields? A measurement, nothing chosen.

An interlaced frame holds two fields taken 1/50 s apart, on alternate lines. From 40 progressive frames of a
sample clip, frame k of an interlaced clip takes its even lines (the top field) from frame 2k and its odd
lines from frame 2k + 1, as a camera filming twice as fast motion would; Gaussian noise σ = 25 (seed 0),
8 bits. Three ways through the fast preset, told σ: the 20 frames as they are; the 40 fields in the order
they were taken (half height, top first), woven back; the top and the bottom fields as two streams of 20.
PSNR against the noise-free interlaced frames.

    .venv/bin/python benchmarks/results/interlaced/fields_or_frames.py      # fields_or_frames.log
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from _machine import cpu_name  # noqa: E402

from videodenoise import Denoiser, read_video  # noqa: E402
from videodenoise.datasets.samples import fetch_sample_clips  # noqa: E402

SIGMA = 25 / 255


def psnr(estimate: torch.Tensor, clean: torch.Tensor) -> float:
    return float(-10 * torch.log10(((estimate - clean) ** 2).mean()))


def weave(top: torch.Tensor, bottom: torch.Tensor) -> torch.Tensor:
    frames = torch.empty(top.shape[0], top.shape[1], 2 * top.shape[2], top.shape[3])
    frames[:, :, 0::2], frames[:, :, 1::2] = top, bottom
    return frames


def main() -> None:
    print(f"machine: {cpu_name()}; fast preset, σ = 25 told")
    denoiser = Denoiser.from_preset("fast")
    clips = fetch_sample_clips()
    for name, size in (("bigbuckbunny", (360, 640)), ("bikes", None)):
        progressive = read_video(clips[name], max_frames=40)
        if size is not None:
            progressive = F.interpolate(progressive, size=size, mode="area")
        progressive = (progressive * 255).round() / 255
        clean = weave(progressive[0::2, :, 0::2], progressive[1::2, :, 1::2])
        noise = SIGMA * torch.randn(clean.shape, generator=torch.Generator().manual_seed(0))
        noisy = ((clean + noise).clamp(0, 1) * 255).round() / 255
        frames = denoiser.denoise_clip(noisy, SIGMA)
        fields = torch.stack([field for frame in noisy for field in (frame[:, 0::2], frame[:, 1::2])])
        fields = denoiser.denoise_clip(fields, SIGMA)
        by_parity = [denoiser.denoise_clip(noisy[:, :, parity::2].contiguous(), SIGMA) for parity in (0, 1)]
        print(
            f"{name} {clean.shape[-1]}×{clean.shape[-2]}, {len(clean)} interlaced frames: noisy {psnr(noisy, clean):.2f} dB, "
            f"as frames {psnr(frames, clean):.2f}, as fields in time order {psnr(weave(fields[0::2], fields[1::2]), clean):.2f}, "
            f"as two field streams {psnr(weave(*by_parity), clean):.2f}",
            flush=True,
        )


if __name__ == "__main__":
    main()

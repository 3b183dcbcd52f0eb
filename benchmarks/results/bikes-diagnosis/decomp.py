"""Throwaway diagnosis: one pass vs fusion with clean flow (noisy weights) vs clean flow+weights, per clip."""

import dataclasses
import sys

import torch

sys.path.insert(0, "benchmarks")
from videodenoise.denoise.denoiser import Denoiser
from videodenoise.denoise.settings import PRESETS
from videodenoise.noise.estimation import estimate_clip_noise

import bench_quality as quality

names = sys.argv[1].split(",")
sigma = float(sys.argv[2]) if len(sys.argv) > 2 else 25
fast = PRESETS["fast"]


def with_fusion(**kw):
    return Denoiser.from_checkpoint(None, dataclasses.replace(fast, fusion=dataclasses.replace(fast.fusion, **kw)))


variants = {
    "one": (Denoiser.from_checkpoint(None, fast), None),
    "clean flow, noisy w": (with_fusion(guided_mix=0.0), "clean"),
    "clean flow+w": (with_fusion(guided_mix=1.0), "clean"),
    "first-pass flow, noisy w": (with_fusion(guided_mix=0.0), "first"),
}
for clip in quality.build_clips(names, 5, quality.DEFAULT_SIZE):
    noisy = (
        torch.from_numpy(quality.add_noise_uint8(clip.frames, sigma, quality.noise_seed(clip.name, sigma, 0))).float()
        / 255
    )
    clean = torch.from_numpy(clip.frames).float() / 255
    f = estimate_clip_noise(noisy)
    first = None
    out = []
    for label, (den, guide) in variants.items():
        est = den.denoise_clip(noisy, f, guides=None if guide is None else clean if guide == "clean" else first)
        if label == "one":
            first = est
        out.append(f"{label} {quality.measure(est.numpy(), clip.frames)['psnr']:.2f}")
    print(clip.name, " | ".join(out), flush=True)

"""Throwaway: fusion's ceiling on real (animated) motion: bigbuckbunny windows, not a benchmark clip."""

import dataclasses
import sys

import cv2
import numpy as np
import torch

sys.path.insert(0, "benchmarks")
from videodenoise.datasets.samples import fetch_sample_clips
from videodenoise.denoise.denoiser import Denoiser
from videodenoise.denoise.settings import PRESETS
from videodenoise.io.video import open_video
from videodenoise.noise.estimation import estimate_clip_noise

import bench_quality as quality

torch.set_num_threads(1)
names = sys.argv[1].split(",") if len(sys.argv) > 1 else ["bbb"]
variants = {}
fast = PRESETS["fast"]


def with_fusion(**kw):
    return Denoiser.from_checkpoint(None, dataclasses.replace(fast, fusion=dataclasses.replace(fast.fusion, **kw)))


variants["one"] = (Denoiser.from_checkpoint(None, fast), None)
variants["clean flow, noisy weights"] = (with_fusion(guided_mix=0.0), "clean")
variants["clean flow+weights 0.35"] = (with_fusion(guided_mix=1.0, guided_strength=0.35), "clean")
variants["first-pass flow, noisy weights"] = (with_fusion(guided_mix=0.0), "first")
variants["first-pass mix .5"] = (with_fusion(), "first")
for blur in [float(b) for b in (sys.argv[2].split(",") if len(sys.argv) > 2 else [])]:
    variants[f"blur {blur}"] = (with_fusion(flow_blur=blur), None)


def clips():
    frames = [f for f in open_video(fetch_sample_clips()["bigbuckbunny"]).frames(channels=3)]
    video = quality.to_uint8(torch.stack(frames))  # T,3,H,W
    for start in (5, 35, 65, 95, 125):
        window = video[start : start + 5]
        small = np.stack(
            [
                cv2.resize(f.transpose(1, 2, 0), (640, 360), interpolation=cv2.INTER_AREA).transpose(2, 0, 1)
                for f in window
            ]
        )
        yield f"bbb{start}", quality.centre_crop(small, (240, 320))


res = {}
for name, frames in clips():
    noisy = quality.add_noise_uint8(frames, 25, quality.noise_seed(name, 25, 0))
    noisy = torch.from_numpy(noisy).float() / 255
    clean = torch.from_numpy(frames).float() / 255
    f = estimate_clip_noise(noisy)
    first = None
    out = []
    for label, (den, guide) in variants.items():
        g = None if guide is None else clean if guide == "clean" else first
        est = den.denoise_clip(noisy, f, guides=g)
        if label == "one":
            first = est
        p = quality.measure(est.numpy(), frames)["psnr"]
        res.setdefault(label, []).append(p)
        out.append(f"{label}: {p:.2f}")
    print(name, " | ".join(out), flush=True)
base = np.array(res["one"])
for label, v in res.items():
    d = np.array(v) - base
    print(f"{label:32s} mean {np.mean(v):.2f}  diff {d.mean():+.2f}  per-window {' '.join(f'{x:+.2f}' for x in d)}")

"""Throwaway: flow from noisy (σ=25, blurred as fusion does) vs flow from clean, endpoint error, per DIS config."""

import sys

import cv2
import numpy as np
import torch

sys.path.insert(0, "benchmarks")
from videodenoise.datasets.samples import fetch_sample_clips
from videodenoise.io.video import open_video

import bench_quality as quality


def bbb(scale):
    frames = [f for f in open_video(fetch_sample_clips()["bigbuckbunny"]).frames(channels=3, count=132)]
    video = quality.to_uint8(torch.stack(frames))
    for start in (5, 65, 125):
        w = video[start : start + 5]
        if scale != 1:
            w = np.stack(
                [
                    cv2.resize(
                        f.transpose(1, 2, 0), (int(1280 * scale), int(720 * scale)), interpolation=cv2.INTER_AREA
                    ).transpose(2, 0, 1)
                    for f in w
                ]
            )
        yield f"bbb{start}x{scale}", quality.centre_crop(w, (240, 320))


def held(name):
    yield name, quality.build_clips([name], 5, quality.DEFAULT_SIZE)[0].frames


def grey(f, blur):
    g = cv2.cvtColor(f.transpose(1, 2, 0), cv2.COLOR_RGB2GRAY).astype(np.float32)
    if blur > 0:
        g = cv2.GaussianBlur(g, (0, 0), blur)
    return np.clip(np.round(g), 0, 255).astype(np.uint8)


def make(preset, **kw):
    d = cv2.DISOpticalFlow_create(getattr(cv2, f"DISOPTICAL_FLOW_PRESET_{preset.upper()}"))
    for k, v in kw.items():
        getattr(d, "set" + k)(v)
    return d


configs = {
    "medium blur.8": (lambda: make("medium"), 0.8),
    "fast blur.8": (lambda: make("fast"), 0.8),
    "medium blur1.6": (lambda: make("medium"), 1.6),
    "medium patch16": (lambda: make("medium", PatchSize=16, PatchStride=8), 0.8),
    "medium vr10": (lambda: make("medium", VariationalRefinementIterations=10), 0.8),
    "medium alpha5": (lambda: make("medium", VariationalRefinementAlpha=5.0), 0.8),
    "medium alpha80": (lambda: make("medium", VariationalRefinementAlpha=80.0), 0.8),
}
sources = []
for a in sys.argv[1].split(","):
    sources += list(bbb(float(a[3:])) if a.startswith("bbb") else held(a))
for name, clip in sources:
    noisy = quality.add_noise_uint8(clip, 25, quality.noise_seed(name, 25, 0))
    ref = make("medium")
    line = []
    for label, (mk, blur) in configs.items():
        epes = []
        for k in (1, 2):
            truth = ref.calc(grey(clip[2], 0), grey(clip[2 + k], 0), None)
            est = mk().calc(grey(noisy[2], blur), grey(noisy[2 + k], blur), None)
            epes.append(np.median(np.hypot(*(est - truth).transpose(2, 0, 1))))
        line.append(f"{label} {epes[0]:.2f}/{epes[1]:.2f}")
    t = ref.calc(grey(clip[2], 0), grey(clip[3], 0), None)
    print(name, f"|d|med {np.median(np.hypot(t[..., 0], t[..., 1])):.1f}", " | ".join(line), flush=True)

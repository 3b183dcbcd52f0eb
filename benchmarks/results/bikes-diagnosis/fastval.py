"""Throwaway: does a fast pan with moving objects over the validation photos reproduce bikes' fusion gap?"""

import dataclasses
import sys

import numpy as np
import torch

sys.path.insert(0, "benchmarks")
from videodenoise.datasets import motion
from videodenoise.denoise.denoiser import Denoiser
from videodenoise.denoise.settings import PRESETS
from videodenoise.noise.estimation import estimate_clip_noise

import bench_quality as quality

torch.set_num_threads(1)
pan, obj = float(sys.argv[1]), float(sys.argv[2])
fast = PRESETS["fast"]


def with_fusion(**kw):
    return Denoiser.from_checkpoint(None, dataclasses.replace(fast, fusion=dataclasses.replace(fast.fusion, **kw)))


variants = {
    "one": (Denoiser.from_checkpoint(None, fast), None),
    "clean flow": (with_fusion(guided_mix=0.0), "clean"),
    "clean flow+w": (with_fusion(guided_mix=1.0), "clean"),
}
photos = [motion.load_photo(p) for p in motion.VALIDATION_PHOTOS]
res = {k: [] for k in variants}
for i, name in enumerate(motion.VALIDATION_PHOTOS):
    clip = motion.camera_motion_clip(photos[i], 5, (240, 320), seed=100 + i, limits=motion.MotionLimits(pan=pan))
    if obj > 0:
        clip = motion.paste_moving_objects(clip, photos, 3, np.random.default_rng(7 + i), speed=obj)
    frames = quality.to_uint8(clip)
    noisy = torch.from_numpy(quality.add_noise_uint8(frames, 25, quality.noise_seed(name, 25, 0))).float() / 255
    clean = torch.from_numpy(frames).float() / 255
    f = estimate_clip_noise(noisy)
    out = []
    for label, (den, g) in variants.items():
        p = quality.measure(den.denoise_clip(noisy, f, guides=clean if g else None).numpy(), frames)["psnr"]
        res[label].append(p)
        out.append(f"{label} {p:.2f}")
    print(name, " | ".join(out), flush=True)
base = np.array(res["one"])
print(
    f"pan {pan} obj {obj}: "
    + "  ".join(f"{k} {np.mean(v):.2f} ({np.mean(np.array(v) - base):+.2f})" for k, v in res.items())
)

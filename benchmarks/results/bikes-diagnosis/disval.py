"""Throwaway: DIS parameter candidates for fusion's flow on validation pans with moving objects."""

import sys

import cv2
import numpy as np
import torch

sys.path.insert(0, "benchmarks")
import videodenoise.denoise.fusion as fusion_module
from videodenoise.datasets import motion
from videodenoise.denoise.denoiser import Denoiser
from videodenoise.denoise.settings import PRESETS
from videodenoise.noise.estimation import estimate_clip_noise

import bench_quality as quality

torch.set_num_threads(1)
original = cv2.DISOpticalFlow_create
params = {}


def patched(preset):
    d = original(preset)
    for k, v in params.items():
        getattr(d, "set" + k)(v)
    return d


fusion_module.cv2.DISOpticalFlow_create = patched
candidates = {
    "as is": {},
    "vr10": dict(VariationalRefinementIterations=10),
    "gd50": dict(GradientDescentIterations=50),
    "stride2": dict(PatchStride=2),
    "alpha80": dict(VariationalRefinementAlpha=80.0),
    "delta2": dict(VariationalRefinementDelta=2.0),
}
photos = [motion.load_photo(p) for p in motion.VALIDATION_PHOTOS]
for pan, obj in [(3, 4), (12, 12)]:
    res = {k: [] for k in candidates}
    for i, name in enumerate(motion.VALIDATION_PHOTOS):
        clip = motion.camera_motion_clip(photos[i], 5, (240, 320), seed=100 + i, limits=motion.MotionLimits(pan=pan))
        clip = motion.paste_moving_objects(clip, photos, 3, np.random.default_rng(7 + i), speed=obj)
        frames = quality.to_uint8(clip)
        noisy = torch.from_numpy(quality.add_noise_uint8(frames, 25, quality.noise_seed(name, 25, 0))).float() / 255
        f = estimate_clip_noise(noisy)
        for label, p in candidates.items():
            params.clear()
            params.update(p)
            den = Denoiser.from_checkpoint(None, PRESETS["fast"])
            res[label].append(quality.measure(den.denoise_clip(noisy, f).numpy(), frames)["psnr"])
    base = np.array(res["as is"])
    print(
        f"pan {pan} obj {obj}: "
        + "  ".join(
            f"{k} {np.mean(v):.2f} ({np.mean(np.array(v) - base):+.3f}, {sum(np.array(v) > base)}/4)"
            for k, v in res.items()
        ),
        flush=True,
    )

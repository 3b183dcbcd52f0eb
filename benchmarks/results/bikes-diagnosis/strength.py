import dataclasses
import sys

import torch

sys.path.insert(0, "benchmarks")
from videodenoise.denoise.denoiser import Denoiser
from videodenoise.denoise.settings import PRESETS
from videodenoise.noise.estimation import estimate_clip_noise

import bench_quality as quality

names = sys.argv[1].split(",")
strengths = [float(s) for s in sys.argv[2].split(",")]
box = [int(b) for b in sys.argv[3].split(",")] if len(sys.argv) > 3 else [5]
fast = PRESETS["fast"]
for clip in quality.build_clips(names, 5, quality.DEFAULT_SIZE):
    noisy = (
        torch.from_numpy(quality.add_noise_uint8(clip.frames, 25, quality.noise_seed(clip.name, 25, 0))).float() / 255
    )
    f = estimate_clip_noise(noisy)
    out = []
    for b in box:
        for s in strengths:
            d = Denoiser.from_checkpoint(
                None, dataclasses.replace(fast, fusion=dataclasses.replace(fast.fusion, strength=s, box=b))
            )
            out.append(f"s{s} b{b} {quality.measure(d.denoise_clip(noisy, f).numpy(), clip.frames)['psnr']:.2f}")
    print(clip.name, " | ".join(out), flush=True)

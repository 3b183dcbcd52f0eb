import dataclasses
import sys

import torch

sys.path.insert(0, "benchmarks")
from videodenoise.denoise.denoiser import Denoiser
from videodenoise.denoise.settings import PRESETS
from videodenoise.noise.estimation import estimate_clip_noise

import bench_quality as quality

torch.set_num_threads(1)
clips = quality.build_clips(["bikes", "carphone", "coffee-pan"], 5, quality.DEFAULT_SIZE)
fast = PRESETS["fast"]
one = Denoiser.from_checkpoint(None, fast)
fusion = dataclasses.replace(fast.fusion, guided_strength=0.35, guided_mix=1.0)
ceil = Denoiser.from_checkpoint(None, dataclasses.replace(fast, fusion=fusion))
nofuse = Denoiser.from_checkpoint(None, dataclasses.replace(fast, fusion=None))
for clip in clips:
    noisy = quality.add_noise_uint8(clip.frames, 25, quality.noise_seed(clip.name, 25, 0))
    noisy = torch.from_numpy(noisy).float() / 255
    clean = torch.from_numpy(clip.frames).float() / 255
    f = estimate_clip_noise(noisy)
    a = quality.measure(one.denoise_clip(noisy, f).numpy(), clip.frames)["psnr"]
    b = quality.measure(ceil.denoise_clip(noisy, f, guides=clean).numpy(), clip.frames)["psnr"]
    c = quality.measure(nofuse.denoise_clip(noisy, f).numpy(), clip.frames)["psnr"]
    print(
        clip.name,
        clip.frames.shape,
        f"one {a:.2f} clean-guided {b:.2f} (+{b - a:.2f}) no-fusion {c:.2f} fusion gain {a - c:+.2f}",
        flush=True,
    )

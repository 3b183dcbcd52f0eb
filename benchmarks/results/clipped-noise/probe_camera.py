"""Before the change (the problem): four validation pans darkened 8× and 32× in linear light, camera noise
(medium, heavy) through H.264 CRF 23; `clean` σ auto against a sweep of told σ. Log beside it.

    .venv/bin/python benchmarks/results/clipped-noise/probe_camera.py
"""
import sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import numpy as np, torch
import bench_quality as quality, bench_realnoise as realnoise
from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT
from videodenoise.noise.camera import srgb_to_linear, linear_to_srgb
from videodenoise.noise.estimation import estimate_clip_noise

names = "cell-pan,flower-pan,china-pan,motorcycle-right-pan".split(",")
clips = quality.build_clips(names, 5, quality.DEFAULT_SIZE)
den = quality.load_denoiser(DEFAULT_CHECKPOINT, {})
def psnr(a, b): return 10 * np.log10(255**2 / np.mean((a.astype(float) - b.astype(float))**2))
for exposure in [0.125, 1/32]:
    for level in ["medium", "heavy"]:
        for clip in clips:
            clean = torch.from_numpy(clip.frames).float() / 255
            dark = (linear_to_srgb(srgb_to_linear(clean) * exposure) * 255).round().clamp(0, 255).to(torch.uint8).numpy()
            noisy = realnoise.add_camera_noise(dark, realnoise.camera_noise(level, "h264", 23), realnoise.camera_seed(clip.name, level, "h264", 23))
            x = torch.from_numpy(noisy).float() / 255
            nlf = estimate_clip_noise(x)
            auto = psnr((den.denoise_clip(x, sigma="auto").numpy() * 255).round().clip(0, 255), dark)
            sweep = {s: psnr((den.denoise_clip(x, sigma=s / 255).numpy() * 255).round().clip(0, 255), dark) for s in (10, 14, 20, 28, 36, 48)}
            best = max(sweep, key=sweep.get)
            print(f"{clip.name:22s} exp {exposure:.3f} {level}: mean {dark.mean():.0f} noisy {psnr(noisy, dark):.2f} auto {auto:.2f} (σ̂ {nlf.level*255:.1f}) best told σ={best} {sweep[best]:.2f} | " + " ".join(f"{v:.2f}" for v in sweep.values()), flush=True)

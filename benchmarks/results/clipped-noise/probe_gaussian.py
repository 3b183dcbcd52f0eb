"""Before the change (the problem, found on four validation pans): the pans darkened 8× in linear light (night
footage), Gaussian noise σ = 10 and 25; `clean` σ auto against the same told the true σ. Log beside it.

    .venv/bin/python benchmarks/results/clipped-noise/probe_gaussian.py
"""
import sys, time
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import numpy as np, torch
import bench_quality as quality
from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT
from videodenoise.noise.camera import srgb_to_linear, linear_to_srgb
from videodenoise.noise.estimation import estimate_clip_noise

names = "motorcycle-right-pan,cell-pan,clock-motion-pan,page-pan,china-pan,flower-pan".split(",")
clips = quality.build_clips(names, 5, quality.DEFAULT_SIZE)
den = quality.load_denoiser(DEFAULT_CHECKPOINT, {})
def psnr(a, b): return 10 * np.log10(255**2 / np.mean((a.astype(float) - b.astype(float))**2))
for exposure in [1.0, 0.125]:
    for sigma in [10, 25]:
        rows = []
        for clip in clips:
            clean = torch.from_numpy(clip.frames).float() / 255
            dark = (linear_to_srgb(srgb_to_linear(clean) * exposure) * 255).round().clamp(0, 255).to(torch.uint8).numpy()
            noisy = quality.add_noise_uint8(dark, sigma, quality.noise_seed(clip.name, sigma))
            x = torch.from_numpy(noisy).float() / 255
            nlf = estimate_clip_noise(x)
            auto = (den.denoise_clip(x, sigma="auto").numpy() * 255).round().clip(0, 255)
            told = (den.denoise_clip(x, sigma=sigma / 255).numpy() * 255).round().clip(0, 255)
            rows.append((psnr(noisy, dark), psnr(auto, dark), psnr(told, dark), nlf.level * 255, dark.mean()))
            print(f"  {clip.name:22s} exp {exposure} σ {sigma}: noisy {rows[-1][0]:.2f} auto {rows[-1][1]:.2f} told {rows[-1][2]:.2f} σ̂ {rows[-1][3]:.1f} mean {rows[-1][4]:.0f}", flush=True)
        r = np.array(rows).mean(0)
        print(f"exposure {exposure} σ {sigma}: noisy {r[0]:.2f} auto {r[1]:.2f} told {r[2]:.2f} (auto − told {r[1]-r[2]:+.2f})", flush=True)

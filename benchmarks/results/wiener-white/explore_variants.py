"""Throwaway: Wiener variants (radius, second pass, mix) on the exploration pans (training photos)."""
import dataclasses, sys, time
from pathlib import Path
import numpy as np, torch
sys.path.insert(0, "/work/main/benchmarks")
from tune_fusion import VALIDATION_PHOTOS as PHOTOS
import bench_quality as bq
from videodenoise.denoise import wiener
from videodenoise.denoise.denoiser import Denoiser
from videodenoise.denoise.settings import PRESETS
from videodenoise.noise.camera import CAMERA_PRESETS
from videodenoise.noise.estimation import estimate_clip_noise

def psnr(e, c):
    mse = (e.clamp(0, 1) - c).square().mean(dim=(1, 2, 3))
    return float((10 * torch.log10(1 / mse)).mean())

settings = dataclasses.replace(PRESETS["best"], calibrate=False, wiener=False, device="cpu")
den = Denoiser.from_preset("best", settings=settings)
clips = [bq.make_pan_clip(p, 7, (240, 320)) for p in PHOTOS]
conds = [("g", 10), ("g", 25), ("g", 50), ("cam", 23), ("cam", 28)]
if len(sys.argv) > 1:
    conds = [c for c in conds if f"{c[0]}{c[1]}" in sys.argv[1].split(",")]
res = {}
wiener.MIX = 1.0
for kind, level in conds:
    for clip in clips:
        clean = torch.from_numpy(clip.frames).float() / 255
        if kind == "g":
            noisy = torch.from_numpy(bq.add_noise_uint8(clip.frames, level, bq.noise_seed(clip.name, level))).float() / 255
            sigma = level / 255
        else:
            cam = dataclasses.replace(CAMERA_PRESETS["medium"], crf=level)
            noisy = cam(clean, generator=torch.Generator().manual_seed(7))
            sigma = estimate_clip_noise(noisy, coarse=True)
        t = time.time()
        pilot = den.denoise_clip(noisy, sigma=sigma)
        base = psnr(pilot, clean)
        out = {}
        for radius in (2, 3):
            wiener.RADIUS = radius
            f = torch.stack(list(wiener.wiener_refine(noisy, pilot, sigma)))
            for mix in (0.3, 0.4, 0.5):
                out[f"R{radius} mix{mix}"] = psnr(mix * f + (1 - mix) * pilot, clean) - base
            if radius == 2:
                first = 0.3 * f + 0.7 * pilot
                f2 = torch.stack(list(wiener.wiener_refine(noisy, first, sigma)))
                for mix in (0.3, 0.5):
                    out[f"R2 2pass mix{mix}"] = psnr(mix * f2 + (1 - mix) * first, clean) - base
        wiener.RADIUS = 2
        key = f"{kind}{level}"
        res.setdefault(key, []).append(out)
        print(key, clip.name, f"pilot {base:.2f}", " ".join(f"{k}:{v:+.3f}" for k, v in out.items()), f"{time.time()-t:.0f}s", flush=True)
print()
for key, outs in res.items():
    print(key, " ".join(f"{k}:{np.mean([o[k] for o in outs]):+.3f}" for k in outs[0]))

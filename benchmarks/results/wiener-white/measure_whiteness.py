import dataclasses, sys
import numpy as np, torch
sys.path.insert(0, "/work/main/benchmarks")
from tune_fusion import VALIDATION_PHOTOS as PHOTOS
import bench_quality as bq
from videodenoise.denoise import wiener
from videodenoise.denoise.denoiser import Denoiser
from videodenoise.denoise.settings import PRESETS
from videodenoise.noise.camera import CAMERA_PRESETS
from videodenoise.noise.estimation import estimate_clip_noise
settings = dataclasses.replace(PRESETS["best"], calibrate=False, wiener=False, device="cpu")
den = Denoiser.from_preset("best", settings=settings)
clips = [bq.make_pan_clip(p, 5, (240, 320)) for p in PHOTOS[:2]]
rec = []
orig = wiener.noise_spectrum
def spy(residual, variance):
    s = orig(residual, variance); rec.append(s.clone()); return s
wiener.noise_spectrum = spy
conds = [("g", 10, "given"), ("g", 25, "given"), ("g", 50, "given"), ("g", 25, "auto"), ("g", 10, "auto"),
         ("light", 18, "auto"), ("medium", 23, "auto"), ("medium", 28, "auto"), ("heavy", 23, "auto")]
for kind, level, mode in conds:
    for clip in clips:
        clean = torch.from_numpy(clip.frames).float() / 255
        if kind == "g":
            noisy = torch.from_numpy(bq.add_noise_uint8(clip.frames, level, bq.noise_seed(clip.name, level))).float() / 255
            sigma = level / 255 if mode == "given" else estimate_clip_noise(noisy, coarse=True)
        else:
            noisy = dataclasses.replace(CAMERA_PRESETS[kind], crf=level)(clean, generator=torch.Generator().manual_seed(7))
            sigma = estimate_clip_noise(noisy, coarse=True)
        pilot = den.denoise_clip(noisy, sigma=sigma)
        rec.clear()
        list(wiener.wiener_refine(noisy, pilot, sigma))
        S = torch.stack(rec)  # frames, C, 64
        L = S.clamp_min(1e-6).log()
        rms = float(L.square().mean().sqrt())
        per_ch = L.square().mean(dim=(0, 2)).sqrt().tolist()
        mean_ch = S.mean(dim=(0, 2)).tolist()
        print(f"{kind}{level} {mode} {clip.name}: rms log S {rms:.3f} per channel {[round(x,2) for x in per_ch]} mean S {[round(x,2) for x in mean_ch]}", flush=True)

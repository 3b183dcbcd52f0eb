"""How dark must footage be before σ auto falls behind a σ told by hand? Validation pans as taken and underexposed in
linear light (×1/4, ×1/8: night footage, `bench_quality.underexposed`), 5 frames; the camera model's light, medium and
heavy noise through H.264 CRF 23, and Gaussian σ = 10 and 25. Per clip-condition: the clip's mean level (0-255) as
`clean` reads it off the noisy frames, `clean` σ auto's PSNR, and the best of a sweep of told σ. Log beside it.

    .venv/bin/python benchmarks/results/night-hint/brightness.py > benchmarks/results/night-hint/brightness.log
    .venv/bin/python benchmarks/results/night-hint/brightness.py today > benchmarks/results/night-hint/brightness-today.log

`today`: σ auto as the code now runs it (the gamma step's fit and, since clipping-lift, the clipping's correction
reading the lifted curve); without it, as first run, before codec-lift. A told σ gets neither: its sweep is the same.
`held-out` (forty-sixth session): the benchmark's six held-out clips in place of the validation pans, to see whether
what `clean`'s dark-footage warning says holds on clips that played no part in choosing anything (a measurement:
nothing is chosen on it):

    .venv/bin/python benchmarks/results/night-hint/brightness.py today held-out > benchmarks/results/night-hint/brightness-held-out.log
"""

import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import bench_quality as quality  # noqa: E402
import bench_realnoise as realnoise  # noqa: E402
from videodenoise.denoise import camera_bias  # noqa: E402
from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT  # noqa: E402
from videodenoise.noise.estimation import estimate_clip_noise  # noqa: E402

if "today" not in sys.argv[1:]:
    camera_bias.CODEC_LIFT = 1.0  # as run, before codec-lift (the gamma step's fit reading the curve as measured)

PANS = ["cell-pan", "flower-pan", "china-pan", "motorcycle-right-pan", "clock-motion-pan", "page-pan"]
if "held-out" in sys.argv[1:]:
    PANS = quality.available_clip_names()  # bikes, carphone and four pans over the benchmark's photographs
SWEEP = (6, 10, 14, 20, 28, 36, 48)
denoiser = quality.load_denoiser(DEFAULT_CHECKPOINT, {})


def psnr(frames: torch.Tensor, clip: quality.Clip, sigma) -> float:
    return quality.measure(denoiser.denoise_clip(frames, sigma=sigma).numpy(), clip.frames)["psnr"]


def auto_psnr(frames: torch.Tensor, clip: quality.Clip) -> tuple[float, bool]:
    """σ auto's PSNR (what `denoise_clip(sigma="auto")` gives: the fast preset does not calibrate), and whether the
    camera gamma's step engaged."""
    engaged = []
    function = estimate_clip_noise(frames)
    output = torch.stack(list(denoiser.denoise_frames(frames, function, on_camera_bias=engaged.append)))
    return quality.measure(output.numpy(), clip.frames)["psnr"], bool(engaged)


rows = []
for exposure in (1.0, 0.25, 0.125):
    for name in PANS:
        clip = quality.build_clips([name], 5, quality.DEFAULT_SIZE)[0]
        clip = quality.underexposed(clip, exposure) if exposure != 1 else clip
        for noise in ("light", "medium", "heavy", 10, 25):
            if isinstance(noise, str):
                camera = realnoise.camera_noise(noise, "h264", 23)
                noisy = realnoise.add_camera_noise(clip.frames, camera, realnoise.camera_seed(name, noise, "h264", 23))
            else:
                noisy = quality.add_noise_uint8(clip.frames, noise, quality.noise_seed(name, noise))
            frames = torch.from_numpy(noisy).float() / 255
            told = {sigma: psnr(frames, clip, sigma / 255) for sigma in SWEEP}
            best = max(told, key=told.get)
            auto, engaged = auto_psnr(frames, clip)
            level = float(noisy.mean())
            rows.append((exposure, name, noise, level, auto - told[best], engaged))
            sweep = " ".join(f"{told[s]:.2f}" for s in SWEEP)
            print(
                f"{name:22s} ×{exposure:<6g} {str(noise):6s} mean {level:5.1f}: σ auto {auto:.2f} (gamma step "
                f"{'on' if engaged else 'off'}), best told {best} "
                f"{told[best]:.2f} ({auto - told[best]:+.2f}); sweep {sweep}",
                flush=True,
            )
print("σ auto − best told σ by the noisy clip's mean level, noise, and whether the gamma step engaged:")
for low, high in ((0, 32), (32, 48), (48, 64), (64, 96), (96, 256)):
    for kind, step in ((str, True), (str, False), (int, False)):
        gaps = [g for _, _, n, m, g, e in rows if isinstance(n, kind) and e == step and low <= m < high]
        text = f"{len(gaps)} clip-conditions, mean {np.mean(gaps):+.2f}, worst {min(gaps):+.2f}" if gaps else "none"
        what = f"camera, step {'on ' if step else 'off'}" if kind is str else "Gaussian"
        print(f"  mean {low:3d}-{high:3d} {what:16s}: {text}")

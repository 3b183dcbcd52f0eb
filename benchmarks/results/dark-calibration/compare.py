"""`clean` (the fast preset, σ auto) with `calibrate_dark` off (as before this folder) and on, on clips as taken or
darkened in linear light (`bench_quality.underexposed`): the camera model's noise through H.264 (the nine conditions)
and without a codec (three levels), and Gaussian σ = 10 and 25, 5 frames, the shipped default. Per clip-condition the
PSNR off and on (on is off's own output where the switch does not calibrate: a bright clip, or a number told), then
per exposure and condition the means, and the rule's three figures (README).

    .venv/bin/python benchmarks/results/dark-calibration/compare.py CLIPS EXPOSURES
    .venv/bin/python benchmarks/results/dark-calibration/compare.py aero-pan,ascent-pan 0.125,0.0625
"""

import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from validation_sweep import clip_draws  # noqa: E402

from videodenoise.denoise.calibration import calibrates, choose_told_scale  # noqa: E402
from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT  # noqa: E402
from videodenoise.noise.estimation import estimate_clip_noise  # noqa: E402

import bench_quality as quality  # noqa: E402
from _machine import cpu_name  # noqa: E402

names, exposures = sys.argv[1].split(","), [float(e) for e in sys.argv[2].split(",")]
off = quality.load_denoiser(DEFAULT_CHECKPOINT, {"calibrate_dark": "off"})  # as before this folder
on = quality.load_denoiser(DEFAULT_CHECKPOINT, {"calibrate_dark": "on"})
print(f"calibrate_dark off against on; {', '.join(names)}; exposures {sys.argv[2]}; {cpu_name()}, 2 threads")
taken = quality.build_clips(names, 5, quality.DEFAULT_SIZE)
table: dict[str, list[tuple[float, float]]] = {}
for exposure in exposures:
    for clip in [quality.underexposed(clip, exposure) if exposure != 1 else clip for clip in taken]:
        for condition, draw in clip_draws(clip):
            noisy = torch.from_numpy(draw).float() / 255
            estimate = estimate_clip_noise(noisy)
            before = quality.measure(off.denoise_clip(noisy, estimate).numpy(), clip.frames)["psnr"]
            after, what = before, "not dark" if not estimate.dark else ""
            if calibrates(on.settings, estimate):  # as on.denoise_clip does (a 5-frame clip: calibrated on all 5)
                calibration = choose_told_scale(on, noisy, estimate)
                after = quality.measure(off.denoise_clip(noisy, calibration.applied_to(estimate)).numpy(), clip.frames)
                after, what = after["psnr"], f"chose × {calibration.scale:g}"
            table.setdefault(f"×{exposure:g} {condition}", []).append((before, after))
            print(
                f"{clip.name:16s} ×{exposure:<6g} {condition:18s} level {estimate.brightness * 255:5.1f} "
                f"{what:12s} off {before:.2f} on {after:.2f} ({after - before:+.2f})",
                flush=True,
            )
print("| exposure, condition | off | on | on − off |\n|---|---:|---:|---:|")
means = []
for name, pairs in table.items():
    before, after = np.array(pairs).T
    means.append(after.mean() - before.mean())
    print(f"| {name} | {before.mean():.2f} | {after.mean():.2f} | {after.mean() - before.mean():+.2f} |")
every = np.array([after - before for pairs in table.values() for before, after in pairs])
changed = int((abs(every) > 0.005).sum())
print(
    f"(1) mean over {len(means)} condition-means {np.mean(means):+.3f} dB; (2) condition-means more than 0.10 dB "
    f"below: {sum(m < -0.10 for m in means)} (lowest {min(means):+.2f}); (3) clip-conditions more than 0.50 dB "
    f"below: {int((every < -0.50).sum())} of {len(every)} (lowest {every.min():+.2f}; changed {changed})"
)

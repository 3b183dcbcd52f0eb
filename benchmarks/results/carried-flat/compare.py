"""The carried share read off the curves carried flat beyond the bins read (`estimation.CARRIED_FROM_FLAT` True)
against the levels with their trends (False, as shipped): on the twelve validation clips (or, with `--held-out`,
the benchmark's six, once, after the decision), as taken and darkened 4× and 8×, camera noise at the nine H.264
conditions and the three without a codec, Gaussian noise at σ = 0, 2, 10, 25 (`validation_sweep.clip_draws`).
`clean` fast, σ auto, the shipped default, 5 frames.

The switch is read by the estimate alone, so where both estimates are equal (every field of the
NoiseLevelFunction), so is `clean`'s output, and the clip-condition gains exactly 0 without being denoised;
elsewhere it is denoised both ways. Printed: each clip-condition whose estimate moved (carried share, level,
PSNR both ways), each condition's mean gain over the clips, the rule's three figures (README.md) and the gain
paired by clip per exposure over the camera conditions. With `--held-out`, also each condition's mean PSNR as
taken with True (clip-conditions whose estimate did not move denoised once): the README's real-noise row.

    .venv/bin/python benchmarks/results/carried-flat/compare.py > validation.log
    .venv/bin/python benchmarks/results/carried-flat/compare.py --held-out > held-out.log

They ran with the switch in place, `validation.log` at commit 3c7ca8d and `held-out.log` at 9372508; it was taken
out after the decision, so run them at those commits.
"""

import argparse
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from validation_sweep import VALIDATION_CLIPS, clip_draws  # noqa: E402

from videodenoise.evaluation.statistics import paired_difference  # noqa: E402
from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT  # noqa: E402
from videodenoise.noise import estimation  # noqa: E402

import bench_quality as quality  # noqa: E402
from _machine import cpu_name  # noqa: E402

EXPOSURES = (1.0, 0.25, 0.125)
SIGMAS = (0.0, 2.0, 10.0, 25.0)

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--held-out", action="store_true", help="the benchmark's six clips (once, after the decision)")
args = parser.parse_args()
names = quality.available_clip_names() if args.held_out else VALIDATION_CLIPS
denoiser = quality.load_denoiser(DEFAULT_CHECKPOINT, {})
taken = quality.build_clips(names, 5, quality.DEFAULT_SIZE)
print(f"clips: {', '.join(names)}; 5 frames; {cpu_name()}, {torch.get_num_threads()} threads")
gains: dict[tuple[float, str], list[float]] = {}  # (exposure, condition) → gain per clip
taken_psnr: dict[str, list[float]] = {}  # condition → PSNR per clip with True, as taken (--held-out)
for exposure in EXPOSURES:
    clips = [quality.underexposed(clip, exposure) for clip in taken] if exposure != 1 else taken
    for clip in clips:
        for condition, draw in clip_draws(clip, sigmas=SIGMAS):
            noisy, estimates = torch.from_numpy(draw).float() / 255, []
            for flat in (False, True):
                estimation.CARRIED_FROM_FLAT = flat
                estimates.append(estimation.estimate_clip_noise(noisy))
            gain = 0.0
            if args.held_out and exposure == 1 and estimates[0] == estimates[1]:
                output = denoiser.denoise_clip(noisy, estimates[1]).numpy()
                taken_psnr.setdefault(condition, []).append(quality.measure(output, clip.frames)["psnr"])
            if estimates[0] != estimates[1]:
                outputs = [denoiser.denoise_clip(noisy, estimate).numpy() for estimate in estimates]
                psnr = [quality.measure(output, clip.frames)["psnr"] for output in outputs]
                gain = psnr[1] - psnr[0]
                if args.held_out and exposure == 1:
                    taken_psnr.setdefault(condition, []).append(psnr[1])
                print(
                    f"×{exposure:g} {clip.name:24s} {condition:18s} carried {estimates[0].carried:.3f} → "
                    f"{estimates[1].carried:.3f}, level {estimates[0].level * 255:.2f} → {estimates[1].level * 255:.2f}"
                    f", PSNR {psnr[0]:.2f} → {psnr[1]:.2f} ({gain:+.2f})",
                    flush=True,
                )
            gains.setdefault((exposure, condition), []).append(gain)

print("\n| condition (mean gain over the clips, dB) | " + " | ".join(f"×{e:g}" for e in EXPOSURES) + " |")
print("|---|" + "---:|" * len(EXPOSURES))
for condition in dict.fromkeys(c for _, c in gains):
    print(f"| {condition} | " + " | ".join(f"{np.mean(gains[e, condition]):+.3f}" for e in EXPOSURES) + " |")
camera = {key: float(np.mean(value)) for key, value in gains.items() if not key[1].startswith("gaussian")}
gaussian = {key: float(np.mean(value)) for key, value in gains.items() if key[1].startswith("gaussian")}
print(f"(1) mean over the {len(camera)} camera condition-means: {np.mean(list(camera.values())):+.3f} dB")
print(f"(2) lowest Gaussian condition-mean: {min(gaussian.values()):+.3f} dB")
print(f"(3) lowest camera condition-mean: {min(camera.values()):+.3f} dB")
for exposure in EXPOSURES:
    per_clip = np.mean([gains[key] for key in camera if key[0] == exposure], axis=0)
    paired = paired_difference(per_clip, np.zeros_like(per_clip))
    print(
        f"×{exposure:g}, camera conditions, paired by clip: {paired.mean:+.3f} "
        f"[{paired.low:+.3f}, {paired.high:+.3f}]; "
        f"per clip " + ", ".join(f"{n} {g:+.2f}" for n, g in zip(names, per_clip))
    )
if taken_psnr:
    print("\nAs taken, True: " + ", ".join(f"{c} {np.mean(v):.2f}" for c, v in taken_psnr.items()))

"""`clean` (fast, σ auto, the shipped default) with σ auto's carried share checked on the finest band or not
(`noise.estimation.SHARE_CHECKED_ON_FINEST` off, on), on photographs panned fast: camera pans of up to 3 (the
default), 8 and 16 pixels a frame, 5 frames, at QCIF (144×176) and 240×320, one motion draw (seed 7); white Gaussian
noise σ = 10, 25, 40 and 50 and the camera model's twelve conditions (`validation_sweep.clip_draws`).

    R=benchmarks/results/share-overread
    .venv/bin/python $R/fast_pans.py > $R/fast_pans-validation.log             # the six validation photographs
    .venv/bin/python $R/fast_pans.py --held-out > $R/fast_pans-held-out.log    # the benchmark's four (once, after)

Both ran at 244490a, where the switch still was. `--switch NAME=OFF,ON` compares another constant of
`noise.estimation` on the same clips (the scene-cut check's fourth trial: `../scene-cuts/README.md`).

Where both settings give the same noise level function the clip-condition gains exactly 0 and is not denoised.
Printed: each clip-condition whose estimate moved, then per group (Gaussian, camera) and pan the figures the rule in
README.md is written on.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from estimator_knob import compare_values  # noqa: E402
from validation_sweep import clip_draws  # noqa: E402

from videodenoise.datasets import motion  # noqa: E402
from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT  # noqa: E402
from videodenoise.noise import estimation  # noqa: E402

import bench_quality as quality  # noqa: E402
from _machine import cpu_name  # noqa: E402

SIZES = ((144, 176), (240, 320))
PANS = (3.0, 8.0, 16.0)
SIGMAS = (10.0, 25.0, 40.0, 50.0)


def panned(photo: str, size: tuple[int, int], pan: float) -> quality.Clip:
    limits = dataclasses.replace(motion.MotionLimits(), pan=pan)
    frames = motion.camera_motion_clip(motion.load_photo(photo), 5, size, seed=7, limits=limits)
    uint8 = (frames * 255).round().clamp(0, 255).to(torch.uint8).numpy()
    name = f"{quality.photo_clip_name(photo)}-{size[0]}x{size[1]}-pan{pan:g}"
    return quality.Clip(name, "pan", photo, uint8)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--held-out", action="store_true", help="the benchmark's photographs (once, after a decision)")
    parser.add_argument("--switch", default="SHARE_CHECKED_ON_FINEST=0,1", help="NAME=OFF,ON of noise.estimation")
    args = parser.parse_args(argv)
    switch, _, values = args.switch.partition("=")
    off, on = (float(value) for value in values.split(","))
    photos = motion.BENCHMARK_PHOTOS if args.held_out else motion.VALIDATION_PHOTOS + motion.COLOUR_VALIDATION_PHOTOS
    denoiser = quality.load_denoiser(DEFAULT_CHECKPOINT, {})
    print(f"{args.switch}; photos: {', '.join(photos)}; 5 frames; {cpu_name()}, {torch.get_num_threads()} threads")
    gains: dict[tuple[str, float], list[float]] = {}  # (group, pan) → gain per clip-condition
    moved: dict[tuple[str, float], list[float]] = {}
    for photo in photos:
        for size in SIZES:
            for pan in PANS:
                clip = panned(photo, size, pan)
                for condition, draw in clip_draws(clip, sigmas=SIGMAS):
                    group = "gaussian" if condition.startswith("gaussian") else "camera"
                    noisy = torch.from_numpy(draw).float() / 255
                    estimates, scores, gain = compare_values(
                        denoiser, noisy, clip.frames, estimation, switch, [off, on]
                    )
                    if estimates[0] != estimates[1]:
                        moved.setdefault((group, pan), []).append(gain)
                        before, after = estimates
                        print(
                            f"{clip.name:36s} {condition:20s} carried {before.carried:.3f} → {after.carried:.3f}, "
                            f"level {before.level * 255:.2f} → {after.level * 255:.2f}, PSNR {scores[0]:.2f} → "
                            f"{scores[1]:.2f} ({gain:+.2f}; the input "
                            f"{quality.measure(draw.astype(np.float32) / 255, clip.frames)['psnr']:.2f})",
                            flush=True,
                        )
                    gains.setdefault((group, pan), []).append(gain)
    print()
    for group in ("gaussian", "camera"):
        for pan in PANS:
            part, changed = gains[group, pan], moved.get((group, pan), [])
            figures = f", mean {np.mean(changed):+.3f} dB, lowest {min(changed):+.3f}" if changed else ""
            print(
                f"{group}, pan {pan:g}: mean gain over all {len(part)} {np.mean(part):+.3f} dB; "
                f"moved {len(changed)}{figures}"
            )
    for group in ("gaussian", "camera"):
        part = [g for (kind, _), v in moved.items() if kind == group for g in v]
        every = [g for (kind, _), v in gains.items() if kind == group for g in v]
        figures = f", mean {np.mean(part):+.3f} dB, lowest {min(part):+.3f}" if part else ""
        overall = f"{group}, every pan: mean gain over all {len(every)} {np.mean(every):+.3f} dB"
        print(f"{overall}; moved {len(part)}{figures}")


if __name__ == "__main__":
    main()

"""`clean` (fast, σ auto, the shipped default) with σ auto's scene-cut check off and on
(`noise.estimation.CUT_RATIO` 0 and 2), on clips with one scene cut: 12 frames (240×320 in the first trial, 144×176
in the second: `--trial`), the first frames a camera moving over one photograph (seed 1), the rest over another
(seed 2), the cut after frame 1, 2, …, 11; white Gaussian noise σ = 2, 5, 15, 25 and the camera model's twelve
conditions (`validation_sweep.clip_draws`). Neither check shipped, so the switch is only in the trials' commits:

    R=benchmarks/results/scene-cuts
    .venv/bin/python $R/cuts.py > $R/cuts-validation.log    # at ccaa1e3 (the first check; no --trial there)
    .venv/bin/python $R/cuts.py > $R/cuts-second.log        # at 2c3a60b (the second check, --trial 2 the default)

Held out (`--held-out`) was never run: both trials failed their rules first.

Where both settings give the same noise level function the clip-condition gains exactly 0 and is not denoised.
Printed: each clip-condition whose estimate moved, then per group (Gaussian, camera) the figures the rule in
README.md is written on.
"""

from __future__ import annotations

import argparse
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

# two pairs of dead-leaves pictures no run had read (new seeds), and two validation photographs in an order the probe
# did not use (README.md)
VALIDATION_PAIRS = (
    ("generated:dead_leaves_11", "generated:dead_leaves_grey_textured_12"),
    ("generated:dead_leaves_textured_13", "generated:dead_leaves_14"),
    ("videodenoise:china", "skimage:page"),
)
# the second trial's: two more pairs of dead-leaves pictures of new seeds, and two validation photographs no cut clip
# had shown (motorcycle_right was read, in another pair, by a look before the probe: README.md)
SECOND_PAIRS = (
    ("generated:dead_leaves_15", "generated:dead_leaves_grey_16"),
    ("generated:dead_leaves_textured_17", "generated:dead_leaves_grey_textured_18"),
    ("skimage:clock_motion", "skimage:motorcycle_right"),
)
HELD_OUT_PAIRS = (
    ("skimage:astronaut", "skimage:coffee"),
    ("skimage:chelsea", "matplotlib:grace_hopper"),
)
FRAMES = 12
SIZES = {1: (240, 320), 2: (144, 176)}  # by trial
SIGMAS = (2.0, 5.0, 15.0, 25.0)
VALUES = (0.0, 2.0)


def scene(photo: str, seed: int, size: tuple[int, int]) -> torch.Tensor:
    frames = motion.camera_motion_clip(motion.load_photo(photo), FRAMES, size, seed=seed)
    return frames.expand(-1, 3, -1, -1) if frames.shape[1] == 1 else frames


def cut_clip(first: str, second: str, cut: int, size: tuple[int, int]) -> quality.Clip:
    frames = torch.cat([scene(first, 1, size)[:cut], scene(second, 2, size)[cut:]])
    uint8 = (frames * 255).round().clamp(0, 255).to(torch.uint8).numpy()
    short = lambda photo: photo.partition(":")[2].replace("_", "-")  # noqa: E731
    name = f"{short(first)}-{short(second)}-cut{cut}"
    return quality.Clip(name, "pan", f"{first}, {second}", uint8)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--held-out", action="store_true", help="the benchmark's photographs (once, after a decision)")
    parser.add_argument("--trial", type=int, choices=(1, 2), default=2, help="which trial's clips and frame size")
    args = parser.parse_args(argv)
    pairs = HELD_OUT_PAIRS if args.held_out else VALIDATION_PAIRS if args.trial == 1 else SECOND_PAIRS
    size = SIZES[args.trial]
    denoiser = quality.load_denoiser(DEFAULT_CHECKPOINT, {})
    print(f"pairs: {pairs}; {FRAMES} frames of {size[0]}×{size[1]}; {cpu_name()}, {torch.get_num_threads()} threads")
    gains: dict[str, list[float]] = {}
    moved: dict[str, list[float]] = {}
    for first, second in pairs:
        for cut in range(1, FRAMES):
            clip = cut_clip(first, second, cut, size)
            for condition, draw in clip_draws(clip, sigmas=SIGMAS):
                group = "gaussian" if condition.startswith("gaussian") else "camera"
                noisy = torch.from_numpy(draw).float() / 255
                estimates, scores, gain = compare_values(
                    denoiser, noisy, clip.frames, estimation, "CUT_RATIO", list(VALUES)
                )
                if estimates[0] != estimates[1]:
                    moved.setdefault(group, []).append(gain)
                    before, after = estimates
                    print(
                        f"{clip.name:40s} {condition:20s} carried {before.carried:.3f} → {after.carried:.3f}, "
                        f"level {before.level * 255:.2f} → {after.level * 255:.2f}, PSNR {scores[0]:.2f} → "
                        f"{scores[1]:.2f} ({gain:+.2f}; the input "
                        f"{quality.measure(draw.astype(np.float32) / 255, clip.frames)['psnr']:.2f})",
                        flush=True,
                    )
                gains.setdefault(group, []).append(gain)
    print()
    for group in ("gaussian", "camera"):
        part, changed = gains[group], moved.get(group, [])
        figures = f", mean {np.mean(changed):+.3f} dB, lowest {min(changed):+.3f}" if changed else ""
        print(f"{group}: mean gain over all {len(part)} {np.mean(part):+.3f} dB; moved {len(changed)}{figures}")


if __name__ == "__main__":
    main()

"""`clean` (fast, σ auto, the shipped default) with σ auto's scene-cut check off and on
(`noise.estimation.CUT_RATIO` 0 and 2 in the first three trials, `CUT_CHECK` 0 and 1 in the fourth), on clips with
one scene cut: 12 frames (240×320 in the first trial, 144×176 since: `--trial`), the first frames a camera moving over
one photograph (seed 1), the rest over another (seed 2), the cut after frame 1, 2, …, 11; white Gaussian noise
σ = 2, 5, 15, 25 and the camera model's twelve conditions (`validation_sweep.clip_draws`). No check shipped, so each
switch is only in its trial's commit:

    R=benchmarks/results/scene-cuts
    .venv/bin/python $R/cuts.py --trial 1 > $R/cuts-validation.log   # at ccaa1e3 (the first check; no --trial there)
    .venv/bin/python $R/cuts.py --trial 2 > $R/cuts-second.log       # at 2c3a60b (the second check; no 3 there)
    .venv/bin/python $R/cuts.py --trial 3 > $R/cuts-third.log        # at b66d684 (the third check)
    .venv/bin/python $R/cuts.py --trial 4 > $R/cuts-fourth.log       # at ae9dc80 (the fourth check, CUT_CHECK 1)

The fifth to seventh trials (`--trial 5`, `6`, `7`, at e3fdd1e) failed on fast pans before their cut clips ran, and
no check shipped: at this commit the switches are gone and the script runs nothing it compares.

Where both settings give the same noise level function the clip-condition gains exactly 0 and is not denoised. The
third and fourth trials also read the *knowing* estimate: the check off, and the runs that hold the cut giving only
their first frame (no differences: what the check does where it finds the cut right), denoised where it differs from
the check's. Printed: each clip-condition whose estimate moved, then per group (Gaussian, camera) the figures the rule
in README.md is written on.
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
# the third trial's: dead-leaves pictures of new seeds, and two photographs no cut clip or cut probe had shown (ihc was
# read by two estimator trials, ascent by one; neither with a cut)
THIRD_PAIRS = (
    ("generated:dead_leaves_19", "generated:dead_leaves_grey_20"),
    ("generated:dead_leaves_textured_21", "generated:dead_leaves_grey_textured_22"),
    ("skimage:ihc", "pywt:ascent"),
)
# the fourth trial's: dead-leaves pictures of new seeds, and two photographs no cut clip, probe or threshold had shown
# (hubble_deep_field, dark and flat, was read by two estimator trials, grass by three; neither with a cut)
FOURTH_PAIRS = (
    ("generated:dead_leaves_23", "generated:dead_leaves_grey_24"),
    ("generated:dead_leaves_textured_25", "generated:dead_leaves_grey_textured_26"),
    ("skimage:hubble_deep_field", "skimage:grass"),
)
# the fifth trial's (the fourth's check under another rule): dead-leaves pictures of new seeds, and two photographs no
# cut clip, probe or threshold had shown (both read by estimator trials, brick by the fast-pan probe)
FIFTH_PAIRS = (
    ("generated:dead_leaves_27", "generated:dead_leaves_grey_28"),
    ("generated:dead_leaves_textured_29", "generated:dead_leaves_grey_textured_30"),
    ("skimage:coins", "skimage:brick"),
)
# the sixth trial's: dead-leaves pictures of new seeds, and two photographs no cut clip, probe or threshold had shown
# (gravel was read by the share-overread demonstration, moon by nothing of the estimator's)
SIXTH_PAIRS = (
    ("generated:dead_leaves_31", "generated:dead_leaves_grey_32"),
    ("generated:dead_leaves_textured_33", "generated:dead_leaves_grey_textured_34"),
    ("skimage:gravel", "skimage:moon"),
)
HELD_OUT_PAIRS = (
    ("skimage:astronaut", "skimage:coffee"),
    ("skimage:chelsea", "matplotlib:grace_hopper"),
)
FRAMES = 12
SIZES = {trial: (144, 176) for trial in range(2, 8)} | {1: (240, 320)}  # by trial
PAIRS = {1: VALIDATION_PAIRS, 2: SECOND_PAIRS, 3: THIRD_PAIRS, 4: FOURTH_PAIRS, 5: FIFTH_PAIRS, 6: SIXTH_PAIRS}
PAIRS[7] = SIXTH_PAIRS  # the sixth trial failed before its cut clips ran: unread
SWITCHES = {1: ("CUT_RATIO", 2.0), 2: ("CUT_RATIO", 2.0), 3: ("CUT_RATIO", 2.0), 4: ("CUT_CHECK", 1.0)}  # name, on
SWITCHES |= {5: SWITCHES[4], 6: ("CUT_CHECK", 2.0), 7: ("CUT_CHECK", 3.0)}
SIGMAS = (2.0, 5.0, 15.0, 25.0)


def scene(photo: str, seed: int, size: tuple[int, int]) -> torch.Tensor:
    frames = motion.camera_motion_clip(motion.load_photo(photo), FRAMES, size, seed=seed)
    return frames.expand(-1, 3, -1, -1) if frames.shape[1] == 1 else frames


def cut_clip(first: str, second: str, cut: int, size: tuple[int, int]) -> quality.Clip:
    frames = torch.cat([scene(first, 1, size)[:cut], scene(second, 2, size)[cut:]])
    uint8 = (frames * 255).round().clamp(0, 255).to(torch.uint8).numpy()
    short = lambda photo: photo.partition(":")[2].replace("_", "-")  # noqa: E731
    name = f"{short(first)}-{short(second)}-cut{cut}"
    return quality.Clip(name, "pan", f"{first}, {second}", uint8)


def knowing_estimate(noisy: torch.Tensor, cut: int, switch: str, pairs_alone: bool = False):
    """σ auto's estimate with the check off and the runs that hold the cut (frames cut − 1 and cut) giving only
    their first frame: where the check finds the cut right, its estimate is this one. pairs_alone (the sixth trial):
    a run whose pair two apart alone holds the cut gives its pair one apart."""
    starts = estimation._spread(max(len(noisy) - 1, 1), estimation.MAX_PAIRS)

    def run(start: int) -> torch.Tensor:
        if not start < cut <= start + 2 or start + 1 >= len(noisy):
            return noisy[start : start + 3]
        return noisy[start : start + 2] if pairs_alone and cut == start + 2 else noisy[start : start + 1]

    original = getattr(estimation, switch)
    setattr(estimation, switch, 0.0)
    try:
        return estimation.estimate_noise(run(start) for start in starts)
    finally:
        setattr(estimation, switch, original)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--held-out", action="store_true", help="the benchmark's photographs (once, after a decision)")
    parser.add_argument("--trial", type=int, choices=tuple(SIZES), default=7, help="which trial's clips and frame size")
    args = parser.parse_args(argv)
    pairs = HELD_OUT_PAIRS if args.held_out else PAIRS[args.trial]
    size = SIZES[args.trial]
    switch, on = SWITCHES[args.trial]
    denoiser = quality.load_denoiser(DEFAULT_CHECKPOINT, {})
    print(f"pairs: {pairs}; {FRAMES} frames of {size[0]}×{size[1]}; {cpu_name()}, {torch.get_num_threads()} threads")
    gains: dict[str, list[float]] = {}
    moved: dict[str, list[float]] = {}
    behind: dict[str, list[float]] = {}  # the check's PSNR − the knowing estimate's, where their estimates differ
    own_losses: dict[str, list[str]] = {}  # under −0.2 dB against no check, the check's estimate not the knowing one
    newly_under: dict[str, list[str]] = {}  # under the input with the check, at or above it without
    for first, second in pairs:
        for cut in range(1, FRAMES):
            clip = cut_clip(first, second, cut, size)
            for condition, draw in clip_draws(clip, sigmas=SIGMAS):
                group = "gaussian" if condition.startswith("gaussian") else "camera"
                noisy = torch.from_numpy(draw).float() / 255
                estimates, scores, gain = compare_values(denoiser, noisy, clip.frames, estimation, switch, [0.0, on])
                entry = quality.measure(draw.astype(np.float32) / 255, clip.frames)["psnr"]
                checked = scores[1] if estimates[0] != estimates[1] else None
                if estimates[0] != estimates[1]:
                    moved.setdefault(group, []).append(gain)
                    before, after = estimates
                    print(
                        f"{clip.name:40s} {condition:20s} carried {before.carried:.3f} → {after.carried:.3f}, "
                        f"level {before.level * 255:.2f} → {after.level * 255:.2f}, PSNR {scores[0]:.2f} → "
                        f"{scores[1]:.2f} ({gain:+.2f}; the input {entry:.2f})",
                        flush=True,
                    )
                    if scores[1] < entry <= scores[0]:
                        newly_under.setdefault(group, []).append(f"{clip.name} {condition}")
                if args.trial >= 3:
                    knowing = knowing_estimate(noisy, cut, switch, pairs_alone=args.trial == 6)
                    if knowing != estimates[1]:
                        if checked is None:
                            checked = quality.measure(denoiser.denoise_clip(noisy, estimates[1]).numpy(), clip.frames)
                            checked = checked["psnr"]
                        known = quality.measure(denoiser.denoise_clip(noisy, knowing).numpy(), clip.frames)["psnr"]
                        behind.setdefault(group, []).append(checked - known)
                        if estimates[0] != estimates[1] and gain < -0.2:
                            own_losses.setdefault(group, []).append(f"{clip.name} {condition} ({gain:+.2f})")
                        under = " (the knowing one under the input too)" if known < entry else ""
                        print(
                            f"{clip.name:40s} {condition:20s} the knowing estimate differs: level "
                            f"{knowing.level * 255:.2f}, carried {knowing.carried:.3f}, PSNR {known:.2f}; the check's "
                            f"{checked:.2f} ({checked - known:+.2f}){under}",
                            flush=True,
                        )
                gains.setdefault(group, []).append(gain)
    print()
    for group in ("gaussian", "camera"):
        part, changed = gains[group], moved.get(group, [])
        figures = f", mean {np.mean(changed):+.3f} dB, lowest {min(changed):+.3f}" if changed else ""
        print(f"{group}: mean gain over all {len(part)} {np.mean(part):+.3f} dB; moved {len(changed)}{figures}")
        differ = behind.get(group, [])
        if args.trial >= 3:
            lowest = f", the check at worst {min(differ):+.3f} dB from it" if differ else ""
            print(f"  the knowing estimate differs from the check's on {len(differ)}{lowest}")
            print(f"  under -0.2 dB, the check's estimate not the knowing one: {own_losses.get(group) or 'none'}")
        print(f"  newly under the input with the check: {newly_under.get(group, []) or 'none'}")


if __name__ == "__main__":
    main()

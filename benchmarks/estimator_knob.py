"""Decide a constant that only σ auto's estimator reads: its reference value against a new one, on the validation
clips (or, once, after the decision, on the benchmark's six held-out clips).

    .venv/bin/python benchmarks/estimator_knob.py --knob noise.curve.EXTRAPOLATION_LIMIT=1.5,2
    .venv/bin/python benchmarks/estimator_knob.py --knob noise.curve.EXTRAPOLATION_LIMIT=1.5,2 --held-out

Clips: the twelve validation clips (`validation_sweep.VALIDATION_CLIPS`; `--held-out`: the benchmark's; `--clips`:
other validation clips, never a benchmark clip), 5 frames, as taken and darkened 4× and 8× in linear light
(`bench_quality.underexposed`). Conditions: the camera model's nine H.264 conditions and three without a codec,
Gaussian σ = 0, 2, 10 and 25 (`validation_sweep.clip_draws`), and H.264 alone at CRF 18, 23 and 28 with no noise
(`codec_ceiling.codec_encoded`: sharp footage a codec compressed, which `clean` should leave as it is). `clean` fast,
σ auto, the shipped default.

Why it is quick: a constant of ESTIMATOR_MODULES changes `clean`'s output only through the estimate (given a
noise level function, the denoiser and its calibration estimate nothing), so where both values give the same
function (every field) the clip-condition gains exactly 0 and is not denoised; elsewhere it is denoised with each.
Printed: each clip-condition whose estimate moved (carried share, level, PSNR both ways and the input's), each
condition's mean gain over the clips per exposure, the figures rules are written on (per group of conditions: the
mean and lowest condition-mean, and the mean and lowest gain over the clip-conditions whose estimate moved), the gain
paired by clip per exposure over the camera conditions, and with `--held-out` each condition's mean PSNR as taken
with the new value (clip-conditions whose estimate did not move denoised once).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import NamedTuple

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from codec_ceiling import codec_encoded  # noqa: E402
from validation_sweep import (  # noqa: E402
    VALIDATION_CLIPS,
    clip_draws,
    parse_knob,
    validation_clip_names,
    value_reader,
)

import bench_quality as quality  # noqa: E402
from _machine import cpu_name  # noqa: E402
from _script import run_main  # noqa: E402

ESTIMATOR_MODULES = ("noise.estimation", "noise.curve", "noise.grain", "noise.single_frame", "noise.robust")
EXPOSURES = (1.0, 0.25, 0.125)
SIGMAS = (0.0, 2.0, 10.0, 25.0)
CRFS = (18, 23, 28)


def draws(clip: quality.Clip) -> list[tuple[str, np.ndarray]]:
    """(condition, noisy uint8 frames) of one clip: camera noise, Gaussian noise, then the codec with no noise."""
    alone = [(f"no noise h264 crf{crf}", codec_encoded(clip.frames, "h264", crf)) for crf in CRFS]
    return clip_draws(clip, sigmas=SIGMAS) + alone


def group(condition: str) -> str:
    return "gaussian" if condition.startswith("gaussian") else "no noise" if condition.startswith("no") else "camera"


class Compared(NamedTuple):
    """One noisy clip under both values of an estimator constant: the two noise level functions, and where they
    differ the PSNR of `clean` with each (else empty) and the gain of the second over the first (else 0)."""

    estimates: list
    scores: list[float]
    gain: float

    @property
    def moved(self) -> bool:
        return self.estimates[0] != self.estimates[1]


def compare_values(denoiser, noisy: torch.Tensor, clean: np.ndarray, module, name: str, values: list) -> Compared:
    """`clean` with σ auto's estimate under each of two values of `module.name`, denoising only where the estimate
    moved (the notes' premise); the constant is left as it was."""
    from videodenoise.noise.estimation import estimate_clip_noise

    original, estimates = getattr(module, name), []
    try:
        for value in values:
            setattr(module, name, value)
            estimates.append(estimate_clip_noise(noisy))
    finally:
        setattr(module, name, original)
    if estimates[0] == estimates[1]:
        return Compared(estimates, [], 0.0)
    scores = [quality.measure(denoiser.denoise_clip(noisy, e).numpy(), clean)["psnr"] for e in estimates]
    return Compared(estimates, scores, scores[1] - scores[0])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--knob", required=True, help="MODULE.NAME=REFERENCE,NEW, a constant of an estimator module")
    parser.add_argument("--held-out", action="store_true", help="the benchmark's six clips (once, after a decision)")
    parser.add_argument("--clips", help="other validation clips, comma-separated (never a benchmark clip)")
    args = parser.parse_args(argv)
    module, name, values = parse_knob(args.knob)
    if module is None or module.__name__.removeprefix("videodenoise.") not in ESTIMATOR_MODULES or len(values) != 2:
        raise SystemExit(f"--knob: give MODULE.NAME=REFERENCE,NEW with MODULE one of {', '.join(ESTIMATOR_MODULES)}")
    from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT

    read = value_reader(module, name)
    if args.held_out and args.clips:
        raise SystemExit("--held-out and --clips: give one")
    if args.held_out:
        names = quality.available_clip_names()
    else:
        names = validation_clip_names(args.clips) if args.clips else VALIDATION_CLIPS
    denoiser = quality.load_denoiser(DEFAULT_CHECKPOINT, {})
    taken = quality.build_clips(names, 5, quality.DEFAULT_SIZE)
    print(f"{args.knob}; clips: {', '.join(names)}; 5 frames; {cpu_name()}, {torch.get_num_threads()} threads")
    gains: dict[tuple[float, str], list[float]] = {}  # (exposure, condition) → gain per clip
    as_taken: dict[str, list[float]] = {}  # condition → PSNR per clip with the new value, as taken (--held-out)
    moved_gains: dict[str, list[float]] = {}  # group → the gain of each clip-condition whose estimate moved
    for exposure in EXPOSURES:
        clips = [quality.underexposed(clip, exposure) for clip in taken] if exposure != 1 else taken
        for clip in clips:
            for condition, draw in draws(clip):
                noisy = torch.from_numpy(draw).float() / 255
                compared = compare_values(denoiser, noisy, clip.frames, module, name, [read(v) for v in values])
                estimates, scores, gain = compared
                moved, table = compared.moved, args.held_out and exposure == 1
                if table and not moved:  # the table's PSNR with the new value: the estimate did not move
                    output = denoiser.denoise_clip(noisy, estimates[1]).numpy()
                    scores = [quality.measure(output, clip.frames)["psnr"]]
                if moved:
                    moved_gains.setdefault(group(condition), []).append(gain)
                    before, after = estimates
                    print(
                        f"×{exposure:g} {clip.name:24s} {condition:20s} carried {before.carried:.3f} → "
                        f"{after.carried:.3f}, level {before.level * 255:.2f} → {after.level * 255:.2f}, "
                        f"PSNR {scores[0]:.2f} → {scores[1]:.2f} ({gain:+.2f}; the input "
                        f"{quality.measure(draw.astype(np.float32) / 255, clip.frames)['psnr']:.2f})",
                        flush=True,
                    )
                if table:
                    as_taken.setdefault(condition, []).append(scores[-1])
                gains.setdefault((exposure, condition), []).append(gain)
    report(gains, names, as_taken, moved_gains)


def report(
    gains: dict[tuple[float, str], list[float]],
    names: list[str],
    as_taken: dict[str, list[float]],
    moved_gains: dict[str, list[float]],
) -> None:
    """The tables and figures of the module notes."""
    from videodenoise.evaluation.statistics import paired_difference

    print("\n| condition (mean gain over the clips, dB) | " + " | ".join(f"×{e:g}" for e in EXPOSURES) + " |")
    print("|---|" + "---:|" * len(EXPOSURES))
    for condition in dict.fromkeys(c for _, c in gains):
        print(f"| {condition} | " + " | ".join(f"{np.mean(gains[e, condition]):+.3f}" for e in EXPOSURES) + " |")
    means = {key: float(np.mean(value)) for key, value in gains.items()}
    for kind in ("camera", "gaussian", "no noise"):
        for where, exposures in (("all exposures", EXPOSURES), ("as taken", (1.0,))):
            part = [m for (e, c), m in means.items() if group(c) == kind and e in exposures]
            print(
                f"{kind}, {where}: mean of the {len(part)} condition-means {np.mean(part):+.3f} dB, "
                f"lowest {min(part):+.3f}"
            )
    for kind in ("camera", "gaussian", "no noise"):
        moved, count = moved_gains.get(kind, []), sum(len(v) for key, v in gains.items() if group(key[1]) == kind)
        figures = f": mean gain {np.mean(moved):+.3f} dB, lowest {min(moved):+.3f}" if moved else ""
        print(f"{kind}, the clip-conditions whose estimate moved: {len(moved)} of {count}{figures}")
    for exposure in EXPOSURES:
        per_clip = np.mean([gains[key] for key in gains if key[0] == exposure and group(key[1]) == "camera"], axis=0)
        result = paired_difference(per_clip, np.zeros_like(per_clip))
        print(
            f"×{exposure:g}, camera conditions, paired by clip: {result.mean:+.3f} [{result.low:+.3f}, "
            f"{result.high:+.3f}]; per clip " + ", ".join(f"{n} {g:+.2f}" for n, g in zip(names, per_clip))
        )
    if as_taken:
        print("\nAs taken, the new value: " + ", ".join(f"{c} {np.mean(v):.2f}" for c, v in as_taken.items()))


if __name__ == "__main__":
    run_main(main)

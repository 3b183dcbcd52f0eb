"""Choose one constant of `clean --sigma auto`'s estimator or fusion on the validation photographs only.

    .venv/bin/python benchmarks/validation_sweep.py --knob denoise.fusion.GRAIN_POWER=0,1,2
    .venv/bin/python benchmarks/validation_sweep.py --knob noise.estimation.MAX_CARRIED=0,0.5,0.9
    .venv/bin/python benchmarks/validation_sweep.py --knob noise.grain.GRAIN_SCALE=4,6,8 --no-rule
    .venv/bin/python benchmarks/validation_sweep.py --knob ... --clips cell-pan,page-pan,china-pan,flower-pan

`--knob MODULE.NAME=v1,v2,...` sets the constant NAME of videodenoise.MODULE to each value in turn (the
first is the reference: today's value or the simplest); `--knob OPTION=v1,v2,...` builds the denoiser with each
value of one of bench_quality's --checkpoint options instead (e.g. `camera_bias=off,on`). For each,
`clean --sigma auto` (the shipped default checkpoint, the fast preset, the noise estimated again for every
value) on pans over VALIDATION_PHOTOS (never the benchmark's clips), through the real-noise benchmark's camera model at
light, medium and heavy, H.264 CRF 18, 23 and 28 (the noise draws bench_realnoise.py makes for these clips; `--codec
none`: the three levels without a codec, a lossless capture's noise), and with added Gaussian noise at σ = 0, 2, 10
and 25 (bench_quality's draws): mean PSNR per condition and over the camera conditions, and the mean luminance grain
and told σ estimated.

The rule: the value with the highest mean PSNR over the camera conditions, among those whose
mean PSNR at every Gaussian condition is at most 0.05 dB below the first value's; a value within 0.05 dB
of an earlier-listed value's camera mean gives way to the earlier one. The script applies it
(`--no-rule`: only the tables). Before commit 9d3405b the Gaussian test was two-sided (within 0.05 dB
either way), which is how fusion's GRAIN_POWER (1) and the estimator's pair lag (1, not 2 or 4: they
were 0.44 and 4.3 dB better at σ = 0) were chosen (benchmarks/results/fusion-grain, estimation-lag);
those choices stand as that rule made them.

`--clips` names other validation clips instead of those four pans: the pans (or moving-object clips) over
COLOUR_VALIDATION_PHOTOS too, say, which foretold the held-out clips' gains where the grey-heavy four had
over-promised 2× (benchmarks/results/colour-validation), or over LATE_VALIDATION_PHOTOS for a choice whose idea was
found on the others (benchmarks/results/dark-lift-2); the benchmark's clips are refused. `--exposure E` takes
the clips underexposed E× in linear light first (`bench_quality.underexposed`: night footage), the truth the
noise is added to and measured against. `--conditions` runs only the conditions named (no camera mean, no rule) and
`--places N` prints N decimals: a hand-written rule's borderline figure, computed again to more places by the same
code.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_quality as quality  # noqa: E402
import bench_realnoise as realnoise  # noqa: E402
from _machine import cpu_name  # noqa: E402
from _script import run_main  # noqa: E402

GAUSSIAN_SIGMAS = (0.0, 2.0, 10.0, 25.0)
# the twelve clips over VALIDATION_PHOTOS and COLOUR_VALIDATION_PHOTOS (pans and moving objects) in the order the
# camera-gamma work first named them (benchmarks/results/camera-gamma), which later runs and their logs keep
VALIDATION_CLIPS = (
    "motorcycle-right-pan,cell-pan,clock-motion-pan,page-pan,china-pan,flower-pan,china-objects,flower-objects,"
    "motorcycle-right-objects,cell-objects,clock-motion-objects,page-objects"
).split(",")
TOLERANCE_DB = 0.05


def camera_conditions(codec: str = "h264") -> list[tuple[str, int | None]]:
    """(level, CRF) of the camera conditions: each level at each CRF through a codec, each level once without one
    ("none": a lossless capture)."""
    crfs = (None,) if codec == "none" else realnoise.DEFAULT_CRFS
    return [(level, crf) for level in realnoise.DEFAULT_LEVELS for crf in crfs]


def condition_names(codec: str = "h264") -> list[str]:
    """The camera conditions, then the Gaussian ones, in the tables' order."""
    camera = [realnoise.condition_name(level, codec, crf) for level, crf in camera_conditions(codec)]
    return camera + [f"gaussian σ={sigma:g}" for sigma in GAUSSIAN_SIGMAS]


def clip_draws(
    clip: quality.Clip, codecs: tuple[str, ...] = ("h264", "none"), sigmas: tuple[float, ...] = (10.0, 25.0)
) -> list[tuple[str, np.ndarray]]:
    """(condition name, noisy uint8 frames) of one clip: its camera conditions through each codec, then Gaussian
    noise at each σ (the draws `noisy_clips` makes)."""
    out = [
        (realnoise.condition_name(level, codec, crf), realnoise.camera_draw(clip, level, codec, crf))
        for codec in codecs
        for level, crf in camera_conditions(codec)
    ]
    seeds = [quality.noise_seed(clip.name, sigma, 0) for sigma in sigmas]
    return out + [(f"gaussian σ={s:g}", quality.add_noise_uint8(clip.frames, s, n)) for s, n in zip(sigmas, seeds)]


def noisy_clips(
    clips: list[quality.Clip], only: list[str] | None = None, codec: str = "h264"
) -> list[tuple[str, list[np.ndarray]]]:
    """(condition name, the noisy uint8 frames of every clip) for the camera and Gaussian conditions (or those
    named in `only`)."""
    out = []
    for level, crf in camera_conditions(codec):
        name = realnoise.condition_name(level, codec, crf)
        if only is None or name in only:
            out.append((name, [realnoise.camera_draw(clip, level, codec, crf) for clip in clips]))
    for sigma in GAUSSIAN_SIGMAS:
        name = f"gaussian σ={sigma:g}"
        if only is None or name in only:
            seeds = [quality.noise_seed(clip.name, sigma, 0) for clip in clips]
            out.append((name, [quality.add_noise_uint8(clip.frames, sigma, seed) for clip, seed in zip(clips, seeds)]))
    return out


def choose(values: list[str], camera: dict[str, float], gaussian: dict[str, list[float]]) -> str:
    """The rule of the module notes."""
    reference = gaussian[values[0]]
    allowed = [v for v in values if all(a >= b - TOLERANCE_DB for a, b in zip(gaussian[v], reference))]
    best = max(allowed, key=lambda v: camera[v])
    return next(v for v in allowed if camera[v] >= camera[best] - TOLERANCE_DB)


def parse_knob(text: str) -> tuple[object, str, list[str]]:
    """'denoise.fusion.GRAIN_POWER=0,1,2' → (the module videodenoise.denoise.fusion, 'GRAIN_POWER', values);
    'camera_bias=off,on' (no module: one of bench_quality's --checkpoint options) → (None, 'camera_bias', values)."""
    target, _, values = text.partition("=")
    module_name, _, name = target.rpartition(".")
    if not module_name:
        if target not in quality.CHECKPOINT_OPTIONS or not values:
            known = ", ".join(quality.CHECKPOINT_OPTIONS)
            raise SystemExit(f"--knob: give OPTION=v1,v2,... with OPTION one of {known}")
        return None, target, values.split(",")
    try:
        module = importlib.import_module(f"videodenoise.{module_name}")
    except ImportError:
        raise SystemExit(f"--knob: no module videodenoise.{module_name}") from None
    if not name or not hasattr(module, name) or not values:
        raise SystemExit(f"--knob: give MODULE.NAME=v1,v2,... with NAME a constant of videodenoise.{module_name}")
    return module, name, values.split(",")


def value_reader(module, name: str) -> Callable[[str], object]:
    """How a knob's value is read from its text: as the constant's type ("0" a switch's off, where bool("0") is
    True); text for an option."""
    if module is None:
        return str
    kind = type(getattr(module, name))
    return (lambda text: text.lower() in ("1", "true", "on")) if kind is bool else kind


def validation_clip_names(clips: str | None) -> list[str]:
    """The clips a sweep runs on: the names given (comma-separated), or the pans over VALIDATION_PHOTOS; a
    benchmark clip is refused (SystemExit), since the held-out numbers must play no part in a choice."""
    from videodenoise.datasets.motion import VALIDATION_PHOTOS

    if not clips:
        return [quality.photo_clip_name(photo) for photo in VALIDATION_PHOTOS]
    names = [name.strip() for name in clips.split(",") if name.strip()]
    held_out = sorted(set(names) & set(quality.available_clip_names()))
    if held_out:
        raise SystemExit(f"{', '.join(held_out)}: held out by the benchmark, never for choosing; name validation clips")
    return names


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--knob", required=True, help="MODULE.NAME=v1,v2,...; the first value is the reference")
    parser.add_argument("--frames", type=int, default=5)
    parser.add_argument("--no-rule", action="store_true", help="print the tables without choosing")
    parser.add_argument("--clips", help="validation clips, comma-separated (default: the pans over VALIDATION_PHOTOS)")
    parser.add_argument("--exposure", type=float, default=1.0, help="the clips underexposed this much (night footage)")
    parser.add_argument("--conditions", help="only these conditions, comma-separated as the tables name them")
    parser.add_argument("--places", type=int, default=2, help="decimal places of the PSNRs (a rule's borderline)")
    parser.add_argument(
        "--codec", default="h264", choices=("h264", "none"), help="the camera noise's codec (none: a lossless capture)"
    )
    args = parser.parse_args(argv)
    only = None if args.conditions is None else args.conditions.split(",")
    if only is not None and (unknown := sorted(set(only) - set(condition_names(args.codec)))):
        raise SystemExit(
            f"--conditions: no condition {', '.join(unknown)}; give some of {', '.join(condition_names(args.codec))}"
        )
    module, name, values = parse_knob(args.knob)
    kind = value_reader(module, name)
    from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT
    from videodenoise.noise.estimation import estimate_clip_noise

    names = validation_clip_names(args.clips)
    # a constant is set on the one denoiser in turn; an option builds a denoiser per value
    options = [{name: value} if module is None else {} for value in values]
    denoisers = {value: quality.load_denoiser(DEFAULT_CHECKPOINT, given) for value, given in zip(values, options)}
    clips = quality.build_clips(names, args.frames, quality.DEFAULT_SIZE)
    if args.exposure != 1:
        clips = [quality.underexposed(clip, args.exposure) for clip in clips]
    machine = f"{cpu_name()}, {torch.get_num_threads()} threads"
    exposure = f"; exposure × {args.exposure:g}" if args.exposure != 1 else ""
    print(f"{args.knob}; clips: {', '.join(names)}; {args.frames} frames{exposure}; {machine}")
    print("| condition | " + " | ".join(f"{name} = {v}: PSNR, grain, told σ" for v in values) + " |")
    print("|---|" + "---:|" * len(values))
    camera: dict[str, list[float]] = {v: [] for v in values}
    gaussian: dict[str, list[float]] = {v: [] for v in values}
    original = getattr(module, name) if module is not None else None
    try:
        for condition, draws in noisy_clips(clips, only, args.codec):
            frames = [torch.from_numpy(draw).float() / 255 for draw in draws]
            cells = []
            for value in values:
                if module is not None:
                    setattr(module, name, kind(value))
                estimates = [estimate_clip_noise(noisy) for noisy in frames]
                psnr = np.mean(
                    [
                        quality.measure(denoisers[value].denoise_clip(noisy, estimate).numpy(), clip.frames)["psnr"]
                        for noisy, estimate, clip in zip(frames, estimates, clips)
                    ]
                )
                (gaussian if condition.startswith("gaussian") else camera)[value].append(float(psnr))
                grain = np.mean([e.luminance_grain for e in estimates])
                told = np.mean([e.told_level for e in estimates]) * 255
                cells.append(f"{psnr:.{args.places}f}, {grain:.2f}, {told:.1f}")
            print(f"| {condition} | " + " | ".join(cells) + " |", flush=True)
    finally:
        if module is not None:
            setattr(module, name, original)
    if only is None:  # the rule needs every condition
        camera_mean = {v: float(np.mean(camera[v])) for v in values}
        print("| camera mean | " + " | ".join(f"**{camera_mean[v]:.{args.places}f}**" for v in values) + " |")
        if not args.no_rule:
            print(f"chosen by the rule: {name} = {choose(values, camera_mean, gaussian)}")


if __name__ == "__main__":
    run_main(main)

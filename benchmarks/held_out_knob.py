"""The held-out run once a rule has decided a constant on the validation clips: the real-noise benchmark's six
held-out clips (5 frames, its noise draws: light, medium and heavy camera noise through H.264 CRF 18, 23 and 28), as
taken and darkened 4× and 8× (`bench_quality.underexposed`), `clean` σ auto with the shipped default, the
constant at its reference value against the one chosen; per exposure and condition the means, then the gain paired by
clip (mean of the conditions per clip, 95 % t interval over the six clips). Run it once, after the decision:
these clips must play no part in a choice.

    .venv/bin/python benchmarks/held_out_knob.py --knob denoise.camera_bias.LIFT_CLIPPING=0,1
    .venv/bin/python benchmarks/held_out_knob.py --knob denoise.camera_bias.LIFT_CLIPPING=0,1 --gaussian

`--codec none`: the camera noise without a codec (a lossless capture's), the three levels. `--knob
MODULE.NAME=REFERENCE,CHOSEN` as validation_sweep.py reads it; `--pin MODULE.NAME=VALUE` (repeatable) sets
another constant for the whole run (to run again as an earlier run ran, before a later choice). `--gaussian`: the
quality benchmark's Gaussian draws instead (σ = 0, 2, 5, 10, 25, σ auto), as taken (or `--exposures 1,0.25,0.125`:
darkened too), with the clips each value moved.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from validation_sweep import camera_conditions, parse_knob, value_reader  # noqa: E402

import bench_quality as quality  # noqa: E402
import bench_realnoise as realnoise  # noqa: E402
from _machine import cpu_name  # noqa: E402
from _script import run_main  # noqa: E402

GAUSSIAN_SIGMAS = (0.0, 2.0, 5.0, 10.0, 25.0)
EXPOSURES = (1.0, 0.25, 0.125)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--knob", required=True, help="MODULE.NAME=REFERENCE,CHOSEN")
    parser.add_argument("--pin", action="append", default=[], help="MODULE.NAME=VALUE held for the whole run")
    parser.add_argument("--gaussian", action="store_true", help="Gaussian noise as taken instead of camera noise")
    parser.add_argument(
        "--exposures", default="1", help="with --gaussian: the exposures, comma-separated (e.g. 1,0.25,0.125)"
    )
    parser.add_argument(
        "--codec", default="h264", choices=("h264", "none"), help="the camera noise's codec (none: a lossless capture)"
    )
    args = parser.parse_args(argv)
    module, name, values = parse_knob(args.knob)
    if module is None or len(values) != 2:
        raise SystemExit(
            "--knob: give MODULE.NAME=REFERENCE,CHOSEN, a constant of a videodenoise module and two values"
        )
    from videodenoise.evaluation.statistics import paired_difference
    from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT
    from videodenoise.noise.estimation import estimate_clip_noise

    for pin in args.pin:
        try:
            pinned, constant, value = parse_knob(pin)
        except SystemExit:
            pinned = value = None
        if pinned is None or len(value) != 1:
            raise SystemExit(f"--pin: give MODULE.NAME=VALUE, a constant of a videodenoise module, got {pin!r}")
        setattr(pinned, constant, value_reader(pinned, constant)(value[0]))
    read, original = value_reader(module, name), getattr(module, name)
    denoiser = quality.load_denoiser(DEFAULT_CHECKPOINT, {})
    names = quality.available_clip_names()

    def scores(frames: torch.Tensor, clip: quality.Clip) -> list[float]:
        """PSNR of `clean` σ auto on one noisy clip, the constant at each value (the noise estimated again for each,
        as validation_sweep.py does: an estimator's constant changes the estimate itself)."""
        out = []
        try:
            for value in values:
                setattr(module, name, read(value))
                estimate = estimate_clip_noise(frames)
                out.append(quality.measure(denoiser.denoise_clip(frames, estimate).numpy(), clip.frames)["psnr"])
        finally:
            setattr(module, name, original)
        return out

    if args.gaussian:
        taken = quality.build_clips(names, 5, quality.DEFAULT_SIZE)
        for exposure in (float(e) for e in args.exposures.split(",")):
            clips = [quality.underexposed(clip, exposure) for clip in taken] if exposure != 1 else taken
            where = f"×{exposure:g} " if exposure != 1 else ""
            for sigma in GAUSSIAN_SIGMAS:
                draws = [quality.add_noise_uint8(c.frames, sigma, quality.noise_seed(c.name, sigma, 0)) for c in clips]
                pairs = [scores(torch.from_numpy(d).float() / 255, c) for d, c in zip(draws, clips)]
                before, after = np.array(pairs).T
                moved = ", ".join(f"{n} {b - a:+.4f}" for n, a, b in zip(names, before, after) if a != b) or "none"
                print(
                    f"{where}Gaussian σ = {sigma:g}: {before.mean():.4f} → {after.mean():.4f}; moved: {moved}",
                    flush=True,
                )
        return
    machine = f"{cpu_name()}, {torch.get_num_threads()} threads"
    codec = "; camera noise without a codec" if args.codec == "none" else ""
    print(f"{name} {values[0]} against {values[1]}; clips: {', '.join(names)}; 5 frames{codec}; {machine}")
    for exposure in EXPOSURES:
        clips = quality.build_clips(names, 5, quality.DEFAULT_SIZE)
        clips = [quality.underexposed(clip, exposure) for clip in clips] if exposure != 1 else clips
        conditions = []  # per condition: (before, after) per clip
        for level, crf in camera_conditions(args.codec):
            draws = [torch.from_numpy(realnoise.camera_draw(c, level, args.codec, crf)).float() / 255 for c in clips]
            before, after = np.array([scores(frames, clip) for frames, clip in zip(draws, clips)]).T
            conditions.append((before, after))
            gains = " ".join(f"{b - a:+.2f}" for a, b in zip(before, after))
            print(
                f"×{exposure:g} {level} {'raw' if crf is None else f'CRF {crf}'}: {before.mean():.2f} → "
                f"{after.mean():.2f} ({after.mean() - before.mean():+.2f}; per clip {gains})",
                flush=True,
            )
        before, after = (np.mean([pair[i] for pair in conditions], axis=0) for i in (0, 1))  # per clip
        paired = paired_difference(after, before)
        print(
            f"×{exposure:g}: {before.mean():.2f} → {after.mean():.2f}, paired by clip {paired.mean:+.2f} "
            f"[{paired.low:+.2f}, {paired.high:+.2f}], {int((after > before).sum())} of {len(after)} ahead; "
            f"per clip " + ", ".join(f"{n} {b - a:+.2f}" for n, a, b in zip(names, before, after)),
            flush=True,
        )


if __name__ == "__main__":
    run_main(main)

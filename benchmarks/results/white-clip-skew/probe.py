"""The camera gamma's skew test (`camera_bias.skew_ratio`) with its bins kept 3σ from white as well as from black:
S on the same frames both ways: the deciding frame of the default (fast, σ auto) as the code the probe runs at
decides (`validation.log` ran before the fix, `held-out.log` after). Gaussian noise σ = 10, 25, 35, 50 and the
camera model's nine H.264 conditions; the validation clips, or with `held-out` the benchmark's (a measurement after
the fix, deciding nothing: the fix has no constant to choose).

    R=benchmarks/results/white-clip-skew; .venv/bin/python $R/probe.py > $R/validation.log
    R=benchmarks/results/white-clip-skew; .venv/bin/python $R/probe.py held-out > $R/held-out.log
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from validation_sweep import VALIDATION_CLIPS, clip_draws  # noqa: E402

from videodenoise.denoise import camera_bias  # noqa: E402
from videodenoise.denoise.denoiser import Denoiser  # noqa: E402
from videodenoise.denoise.settings import PRESETS  # noqa: E402

import bench_quality as quality  # noqa: E402
from _machine import cpu_name  # noqa: E402

SIGMAS = (10.0, 25.0, 35.0, 50.0)
EXPOSURES = (1.0, 0.25, 0.125)  # as taken and darkened in linear light (`bench_quality.underexposed`)


def skew_ratio_bins(noisy, output, white_margin: bool):
    """`camera_bias.skew_ratio` (its S) with or without the bins' margin from white (3σ), all else as it is: the test
    as it was before the fix, kept here beside the fixed one for the comparison (the library holds only the fixed)."""
    num = den = 0.0
    bins = camera_bias.SKEW_BINS
    centres = (torch.arange(bins, dtype=torch.float64) + 0.5) / bins
    for value, residual in zip(output.double().cpu(), (noisy - output).double().cpu()):
        index = (value * bins).long().clamp_(0, bins - 1).flatten()
        residual = residual.flatten()
        count = torch.bincount(index, minlength=bins).double()
        per_bin = count.clamp(min=1)
        centred = residual - (torch.bincount(index, residual, bins) / per_bin)[index]
        variance = torch.bincount(index, centred**2, bins) / per_bin
        third = torch.bincount(index, centred**3, bins) / per_bin
        usable = (centres > 0.1) & (centres < 0.8) & (count > 500) & (variance > camera_bias.NOISE_FLOOR**2)
        usable &= 3 * variance.sqrt() < centres
        if white_margin:
            usable &= centres + 3 * variance.sqrt() < 1
        predicted = 6 * (-0.7 * variance / (centres + 0.055)) * variance
        num += float((count * third * predicted)[usable].sum())
        den += float((count * predicted**2)[usable].sum())
    return num / den if den > 0 else 0.0


def main(argv: list[str]) -> None:
    names = quality.available_clip_names() if argv[:1] == ["held-out"] else VALIDATION_CLIPS
    settings = dataclasses.replace(PRESETS["fast"], device="cpu")
    denoiser = Denoiser.from_checkpoint("videodenoise/checkpoints/dust-video.safetensors", settings)
    recorded: list[tuple[float, float]] = []
    shipped = camera_bias.skew_ratio

    def recording(noisy, output):
        recorded.append((skew_ratio_bins(noisy, output, False), skew_ratio_bins(noisy, output, True)))
        return shipped(noisy, output)

    threshold = camera_bias.SKEW_THRESHOLD
    print(f"machine: {cpu_name()}, {torch.get_num_threads()} torch threads; 5 frames; the step where S > {threshold}")
    print("clip | condition | S (the deciding frame): without, with the margin from white | the step: before, after")
    camera_bias.skew_ratio = recording
    flips = 0
    try:
        taken = quality.build_clips(names, 5, quality.DEFAULT_SIZE)
        for exposure, clip in ((e, quality.underexposed(c, e) if e != 1 else c) for e in EXPOSURES for c in taken):
            for condition, frames in clip_draws(clip, codecs=("h264",), sigmas=SIGMAS):
                where = f"×{exposure:g} {clip.name}"
                recorded.clear()
                denoiser.denoise_clip(torch.from_numpy(frames).float() / 255, "auto")
                if not recorded:
                    print(f"{where} | {condition} | no frame decided", flush=True)
                    continue
                before, after = recorded[-1]
                steps = [s > camera_bias.SKEW_THRESHOLD for s in (before, after)]
                flips += steps[0] != steps[1]
                print(
                    f"{where} | {condition} | {before:+.3f}, {after:+.3f} | "
                    + ", ".join("made" if s else "not made" for s in steps),
                    flush=True,
                )
    finally:
        camera_bias.skew_ratio = shipped
    print(f"decisions that change: {flips}")


if __name__ == "__main__":
    main(sys.argv[1:])

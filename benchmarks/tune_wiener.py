"""Explore the Wiener filter's constants (`videodenoise.denoise.wiener`) on clips no rule or benchmark uses.

    .venv/bin/python benchmarks/tune_wiener.py           # about 6 min on a 2-core CPU

The pilot is `best` with calibration off and the filter off (σ given), on `tune_fusion.py`'s pans over four
*training* photographs (rocket, motorcycle_left, Minduka, retina; 7 frames of 240×320; noise as in the quality
benchmark). For each told factor (TOLD) the filter runs once, and each mix (MIX) is the same filter output mixed
in at another share. Prints the mean gain over the pilot per σ, and per clip; writes
benchmarks/results/wiener/exploration.json.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import platform
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tune_fusion import VALIDATION_PHOTOS as EXPLORATION_PHOTOS  # noqa: E402  (training photographs)

from videodenoise.denoise import wiener  # noqa: E402
from videodenoise.denoise.denoiser import Denoiser  # noqa: E402
from videodenoise.denoise.settings import PRESETS  # noqa: E402

import bench_quality as bq  # noqa: E402
from _machine import cpu_name  # noqa: E402
from _script import run_main  # noqa: E402


def psnr(estimate: torch.Tensor, clean: torch.Tensor) -> float:
    """Mean over frames of each frame's PSNR, as the quality benchmark."""
    mse = (estimate.clamp(0, 1) - clean).square().mean(dim=(1, 2, 3))
    return float((10 * torch.log10(1 / mse)).mean())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sigmas", default="10,25,50", help="noise levels on the 0-255 scale")
    parser.add_argument("--told", default="1.0,0.6", help="told factors to try (TOLD)")
    parser.add_argument("--mixes", default="0.2,0.3,0.4", help="shares of the filter's output to try (MIX)")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/wiener/exploration.json"))
    args = parser.parse_args(argv)
    sigmas = [float(s) for s in args.sigmas.split(",")]
    tolds, mixes = [float(t) for t in args.told.split(",")], [float(m) for m in args.mixes.split(",")]
    settings = dataclasses.replace(PRESETS["best"], calibrate=False, wiener=False, device="cpu")
    denoiser = Denoiser.from_preset("best", settings=settings)
    clips = [bq.make_pan_clip(photo, 7, (240, 320)) for photo in EXPLORATION_PHOTOS]
    gains: dict[str, dict[str, list[float]]] = {}
    default_told, default_mix = wiener.TOLD, wiener.MIX
    try:
        wiener.MIX = 1.0  # the filter's own output; mixed below
        for sigma in sigmas:
            for clip in clips:
                clean = torch.from_numpy(clip.frames).float() / 255
                noisy_uint8 = bq.add_noise_uint8(clip.frames, sigma, bq.noise_seed(clip.name, sigma))
                noisy = torch.from_numpy(noisy_uint8).float() / 255
                pilot = denoiser.denoise_clip(noisy, sigma=sigma / 255)
                base = psnr(pilot, clean)
                for told in tolds:
                    wiener.TOLD = told
                    filtered = torch.stack(list(wiener.wiener_refine(noisy, pilot, sigma / 255)))
                    for mix in mixes:
                        key = f"told {told:g}, mix {mix:g}"
                        gain = psnr(mix * filtered + (1 - mix) * pilot, clean) - base
                        gains.setdefault(f"{sigma:g}", {}).setdefault(key, []).append(gain)
                print(f"σ = {sigma:g}, {clip.name}: pilot {base:.2f} dB", flush=True)
    finally:
        wiener.TOLD, wiener.MIX = default_told, default_mix
    names = ", ".join(c.name for c in clips)
    print(f"\n{cpu_name() or platform.processor()}; gain over the pilot (dB), mean and per clip ({names})")
    for sigma, rows in gains.items():
        for key, values in rows.items():
            per_clip = " ".join(f"{v:+.2f}" for v in values)
            print(f"σ = {sigma:>3}  {key:<22} {np.mean(values):+.3f}   {per_clip}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"clips": names.split(", "), "gains": gains}, indent=1) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    run_main(main)

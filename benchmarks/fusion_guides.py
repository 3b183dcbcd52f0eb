"""How much is there left in fusion's weights? Fusion steered by a first pass's output, and by the clean frames.

    .venv/bin/python benchmarks/fusion_guides.py [--clips validation|benchmark] [--sigmas 10,25,50]
        [--strengths 0.35,0.7] [--mix 1] [--frames 5]

`clean`'s fusion reads its optical flow and its per-pixel weights off the noisy frames (squared
differences less the noise expected in them). This runs, on Gaussian noise (bench_quality's draws), σ
estimated as `clean --sigma auto` does, the shipped default checkpoint and the fast preset:

* one pass: `clean` as it is;
* two passes: the same again, with fusion's flow and weights read from the first pass's output
  (`Denoiser.denoise_clip(guides=...)`, `MotionFusion.stream(guides=...)`), at each fusion strength of
  --strengths (`FusionSettings.guided_strength`, the bandwidth of weights read off guides; the noisy
  frames' own is `strength`, 0.7, chosen for noisy evidence), with --mix of each weight read off the
  guides and the rest off the noisy frames (`guided_mix`; default 1 here, as in the logs of
  benchmarks/results/fusion-guides; `clean --passes 2` runs this row with the library's default);
* the ceiling: fusion steered by the clean frames themselves, what no denoiser has, at the same
  strengths: what perfect flow and weights could add to this model.

Mean PSNR over the clips per σ, and each row's paired difference with one pass (95 % t interval over the
clips; clips ahead). --clips validation: the pans over VALIDATION_PHOTOS; benchmark: bench_quality's
held-out clips (nothing is chosen here: the script only measures).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_quality as quality  # noqa: E402
from _machine import cpu_name  # noqa: E402
from _script import run_main  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clips", choices=("validation", "benchmark"), default="validation")
    parser.add_argument("--sigmas", default="10,25,50", help="Gaussian σ, 0-255 scale")
    parser.add_argument("--strengths", default="0.35,0.7", help="guided strengths of the steered rows")
    parser.add_argument("--mix", type=float, default=1.0, help="guided_mix of the two-pass rows (the ceiling: 1)")
    parser.add_argument("--frames", type=int, default=5)
    args = parser.parse_args(argv)
    from videodenoise.datasets.motion import VALIDATION_PHOTOS
    from videodenoise.denoise.denoiser import Denoiser
    from videodenoise.denoise.settings import PRESETS
    from videodenoise.evaluation.statistics import paired_difference
    from videodenoise.noise.estimation import estimate_clip_noise

    sigmas = [float(s) for s in args.sigmas.split(",")]
    strengths = [float(s) for s in args.strengths.split(",")]
    names = (
        [quality.photo_clip_name(photo) for photo in VALIDATION_PHOTOS]
        if args.clips == "validation"
        else quality.available_clip_names()
    )
    clips = quality.build_clips(names, args.frames, quality.DEFAULT_SIZE)
    fast = PRESETS["fast"]
    one_pass = Denoiser.from_checkpoint(None, fast)

    def steered_by(strength: float, mix: float) -> Denoiser:
        fusion = dataclasses.replace(fast.fusion, guided_strength=strength, guided_mix=mix)
        return Denoiser.from_checkpoint(None, dataclasses.replace(fast, fusion=fusion))

    steered = {strength: steered_by(strength, args.mix) for strength in strengths}
    ceilings = {strength: steered_by(strength, 1.0) for strength in strengths}
    print(f"clips: {', '.join(names)}; {args.frames} frames; {cpu_name()}, {torch.get_num_threads()} threads")
    rows = ["one pass", *(f"two passes, strength {s:g}" for s in strengths)]
    rows += [f"clean frames as guides, strength {s:g}" for s in strengths]
    psnr: dict[tuple[str, float], list[float]] = {(row, sigma): [] for row in rows for sigma in sigmas}
    seconds = {row: 0.0 for row in rows[: 1 + len(strengths)]}  # one pass and the second passes
    for sigma in sigmas:
        for clip in clips:
            noisy = quality.add_noise_uint8(clip.frames, sigma, quality.noise_seed(clip.name, sigma, 0))
            noisy = torch.from_numpy(noisy).float() / 255
            clean = torch.from_numpy(clip.frames).float() / 255
            function = estimate_clip_noise(noisy)
            started = time.perf_counter()
            first = one_pass.denoise_clip(noisy, function)
            seconds["one pass"] += time.perf_counter() - started
            psnr["one pass", sigma].append(quality.measure(first.numpy(), clip.frames)["psnr"])
            for strength, denoiser in steered.items():
                started = time.perf_counter()
                second = denoiser.denoise_clip(noisy, function, guides=first)
                seconds[f"two passes, strength {strength:g}"] += time.perf_counter() - started
                psnr[f"two passes, strength {strength:g}", sigma].append(
                    quality.measure(second.numpy(), clip.frames)["psnr"]
                )
                ceiling = ceilings[strength].denoise_clip(noisy, function, guides=clean)
                psnr[f"clean frames as guides, strength {strength:g}", sigma].append(
                    quality.measure(ceiling.numpy(), clip.frames)["psnr"]
                )
            print(f"σ = {sigma:g}, {clip.name}: done", flush=True)
    print()
    print(
        "| mean PSNR (dB) | "
        + " | ".join(f"σ = {s:g}" for s in sigmas)
        + " | − one pass, each σ: mean [95 % interval] (clips ahead) |"
    )
    print("|---|" + "---:|" * len(sigmas) + "---|")
    for row in rows:
        cells = [f"{np.mean(psnr[row, s]):.2f}" for s in sigmas]
        differences = []
        for s in sigmas:
            if row == "one pass":
                break
            d = paired_difference(psnr[row, s], psnr["one pass", s])
            ahead = sum(a > b for a, b in zip(psnr[row, s], psnr["one pass", s]))
            differences.append(f"{d.mean:+.2f} [{d.low:+.2f}, {d.high:+.2f}] ({ahead}/{len(clips)})")
        print(f"| {row} | " + " | ".join(cells) + f" | {'; '.join(differences) or '—'} |")
    print()
    print(
        "time of a second pass against the first (the ceiling's second pass is the same work, not timed): "
        + ", ".join(
            f"strength {s:g} {seconds[f'two passes, strength {s:g}'] / seconds['one pass']:.2f}×" for s in strengths
        )
    )


if __name__ == "__main__":
    run_main(main)

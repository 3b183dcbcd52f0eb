"""A grey video in a colour file (as a camera's night mode writes it) through `clean`, with and without the
flat colour differences handed to the model, in turns in one process.

bikes' 320×240 centre, 60 frames, made grey (the luminance of its RGB) and written in all three channels, then
Gaussian noise σ = 25 added to that grey picture (the same in R, G and B: a monochrome sensor's noise) and
stored losslessly as colour. The fast preset, told σ, lossless output. Arm "before" sets
`videodenoise.denoise.denoiser.FLAT` below zero, so no clip counts as flat and the model sees the two flat
colour differences as it did before; "now" is the library as it is. Seconds per frame (median of --repeats),
PSNR against the noise-free grey frames, and how far the output strays from grey (max |channel − mean of the
three| over all pixels, on the [0, 1] scale).

    .venv/bin/python benchmarks/results/grey-in-colour/night_mode.py      # night_mode.log
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import bench_clean as bench  # noqa: E402
from _machine import cpu_name  # noqa: E402
from bench_quality import centre_crop  # noqa: E402

import videodenoise.denoise.denoiser as denoiser_module  # noqa: E402
from videodenoise import read_video  # noqa: E402
from videodenoise.datasets.samples import fetch_sample_clips  # noqa: E402
from videodenoise.denoise.settings import PRESETS  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--frames", type=int, default=60)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"machine: {cpu_name()}; {torch.get_num_threads()} torch threads; fast preset, σ = 25 told")
    colour = bench.load_clip(fetch_sample_clips()["bikes"], args.frames)
    colour = centre_crop(colour.transpose(0, 3, 1, 2), (240, 320)).astype(float)  # (T, 3, H, W)
    grey = (colour.mean(axis=1, keepdims=True).round()).repeat(3, axis=1)
    clean = torch.from_numpy(grey).float() / 255
    noise = 25 / 255 * torch.randn((len(grey), 1, 240, 320), generator=torch.Generator().manual_seed(0))
    noisy = ((clean + noise).clamp(0, 1) * 255).round().byte().permute(0, 2, 3, 1).numpy()
    denoiser, _ = bench.make_denoiser(None, PRESETS["fast"])
    flat = denoiser_module.FLAT
    times, results = {"before": [], "now": []}, {}
    with tempfile.TemporaryDirectory() as folder:
        source = bench.write_lossless(Path(folder) / "night.mkv", noisy)
        for _ in range(args.repeats):
            for arm, threshold in (("before", -1.0), ("now", flat)):
                denoiser_module.FLAT = threshold
                start = time.perf_counter()
                _, frames = bench.time_clean(denoiser, source, Path(folder) / "out.mkv", 25)
                times[arm].append((time.perf_counter() - start) / len(noisy))
                results[arm] = read_video(Path(folder) / "out.mkv")
        denoiser_module.FLAT = flat
    for arm in times:
        out = results[arm]
        psnr = float(-10 * torch.log10(((out - clean) ** 2).mean()))
        tint = float((out - out.mean(dim=1, keepdim=True)).abs().max())
        runs = ", ".join(f"{t:.4f}" for t in times[arm])
        print(f"{arm:>6}: {statistics.median(times[arm]):.4f} s/frame ({runs}), PSNR {psnr:.2f} dB, off grey {tint:.4f}")
    print(f"now/before time: {statistics.median(times['now']) / statistics.median(times['before']):.3f}")


if __name__ == "__main__":
    main()

"""The Wiener filter's band on the CPU: 16,384 patch positions (before) against the models' L2-sized CPU_BAND_BYTES
(after), `clean` end to end in turns.

`best` as shipped (its wide weights; calibration off) on the first --best-frames frames of the long clip of `bench_clean.py` part 1 (bikes'
320×240 centre, σ = 25, seed 0, stored losslessly), and the fast preset with the filter at stride 5 (the middle
setting of this folder's README) on the whole long clip; each arm timed --repeats times, alternating, the medians
printed with their ratio and OpenCV NLM's (timed once on the long clip, as part 1 does), and how far apart the
two arms' outputs are (the bands change only the order of float sums).

    .venv/bin/python benchmarks/results/wiener-fast/band_size.py [--repeats 3] [--best-frames 20]
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import bench_clean as bench  # noqa: E402
from bench_quality import centre_crop  # noqa: E402
from _machine import cpu_name  # noqa: E402

import videodenoise.denoise.wiener as wiener  # noqa: E402
from videodenoise.datasets.samples import fetch_sample_clips  # noqa: E402
from videodenoise.denoise.denoiser import Denoiser  # noqa: E402
from videodenoise.denoise.settings import PRESETS  # noqa: E402

# the bytes of 16,384 positions of 5-frame colour stacks, noisy and pilot: the band before, on this footage
BEFORE = wiener.BAND_PATCHES * 2 * 5 * 3 * wiener.PATCH**2 * 4


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--frames", type=int, default=100)
    parser.add_argument("--best-frames", type=int, default=20)
    args = parser.parse_args()
    after = wiener.CPU_BAND_BYTES
    arms = {"16,384 positions (before)": BEFORE, f"{after >> 20} MiB (after)": after}
    print(f"machine: {cpu_name()}; {torch.get_num_threads()} torch threads")
    clean = bench.load_clip(fetch_sample_clips()["bikes"], args.frames)
    clean = centre_crop(clean.transpose(0, 3, 1, 2), (240, 320)).transpose(0, 2, 3, 1)
    noisy = bench.add_noise(clean, bench.SIGMA_255)
    middle = dataclasses.replace(PRESETS["fast"], wiener=True, wiener_stride=5, wiener_flow="ultrafast")
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        long_file = bench.write_lossless(folder / "noisy.mkv", noisy)
        short_file = bench.write_lossless(folder / "short.mkv", noisy[: args.best_frames])
        start = time.perf_counter()
        bench.nlm_opencv(noisy, bench.SIGMA_255)
        nlm = (time.perf_counter() - start) / len(noisy)
        print(f"OpenCV NLM on the long clip: {nlm:.4f} s/frame")
        best = dataclasses.replace(PRESETS["best"], calibrate=False, device="cpu")
        for preset, denoiser, file, frames in (
            ("best (its wide weights), calibration off", Denoiser.from_preset("best", settings=best), short_file, args.best_frames),
            ("fast + the filter at stride 5", bench.make_denoiser(None, middle)[0], long_file, args.frames),
        ):
            times, outputs = {name: [] for name in arms}, {}
            for _ in range(args.repeats):
                for name, band in arms.items():
                    wiener.CPU_BAND_BYTES = band
                    fps, outputs[name] = bench.time_clean(denoiser, file, folder / "out.mkv", bench.SIGMA_255)
                    times[name].append(1 / fps)
            wiener.CPU_BAND_BYTES = after
            first, second = (statistics.median(times[name]) for name in arms)
            apart = np.abs(np.subtract(*[o.astype(np.int16) for o in outputs.values()])).max()
            runs = "; ".join(f"{name}: " + ", ".join(f"{t:.4f}" for t in times[name]) for name in arms)
            print(f"\n{preset}, {frames} frames of 320×240, s/frame ({runs})")
            print(f"  medians {first:.4f} → {second:.4f}: {first / second:.3f}× as fast; outputs at most {apart} apart")
            print(f"  × OpenCV NLM's time: {first / nlm:.3f} → {second / nlm:.3f}")


if __name__ == "__main__":
    main()

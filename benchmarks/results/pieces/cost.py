"""What writing `clean`'s output in pieces costs: time, bytes and PSNR, against one piece, in turns.

bikes' 250 frames at 640×272, forward, backward and forward again (750 frames, 30 s at 25 fps), Gaussian noise
σ = 15 (seed 0) stored losslessly; `clean` as the command runs it by default (the fast preset, σ auto, H.264 out),
once with pieces of 250 frames (the default, `videodenoise.io.pieces.PIECE_FRAMES`) and once as one piece (the
output before pieces), --repeats times in turns; PSNR of each output against the noise-free frames.

    .venv/bin/python benchmarks/results/pieces/cost.py      # cost.log
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import bench_clean as bench  # noqa: E402

import videodenoise.denoise.pipeline as pipeline  # noqa: E402
from videodenoise.datasets.samples import fetch_sample_clips  # noqa: E402
from videodenoise.denoise.settings import PRESETS  # noqa: E402

from _machine import cpu_name  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    print(f"machine: {cpu_name()}; {torch.get_num_threads()} torch threads; fast preset, σ auto, H.264 out")
    forward = bench.load_clip(fetch_sample_clips()["bikes"], 250)
    clean = np.concatenate([forward, forward[::-1], forward])
    noisy = bench.add_noise(clean, 15)
    denoiser, described = bench.make_denoiser(None, PRESETS["fast"])
    print(f"{len(clean)} frames of {clean.shape[2]}×{clean.shape[1]}; {described}")
    arms = {"pieces of 250": 250, "one piece": 10**9}
    rows = {name: [] for name in arms}
    with tempfile.TemporaryDirectory() as folder:
        source = bench.write_lossless(Path(folder) / "bikes.mkv", noisy)
        for repeat in range(args.repeats):
            for name, frames in arms.items():
                pipeline.PIECE_FRAMES = frames
                output = Path(folder) / f"out-{frames}-{repeat}.mp4"
                start = time.perf_counter()
                pipeline.denoise_video(source, output, denoiser, "auto")
                seconds = time.perf_counter() - start
                quality = bench.psnr(bench.read_frames(output), clean)
                rows[name].append((seconds, output.stat().st_size, quality))
                size = output.stat().st_size
                print(f"{name:>14}, run {repeat + 1}: {seconds:.1f} s, {size:,} bytes, {quality:.3f} dB")
    best = {name: min(r[0] for r in runs) for name, runs in rows.items()}
    size = {name: runs[0][1] for name, runs in rows.items()}
    quality = {name: runs[0][2] for name, runs in rows.items()}
    print(
        f"pieces against one piece: time {best['pieces of 250'] / best['one piece']:.3f}× (best of {args.repeats}), "
        f"bytes {size['pieces of 250'] / size['one piece']:.4f}×, "
        f"PSNR {quality['pieces of 250'] - quality['one piece']:+.3f} dB"
    )


if __name__ == "__main__":
    main()

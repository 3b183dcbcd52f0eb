"""How long `clean` takes on HD footage: the first --frames frames of bigbuckbunny at its own 1280×720.

Gaussian noise σ = 25 (seed 0), stored losslessly; `clean` as the command runs it by default (the fast preset,
σ given, H.264 out), timed end to end after the model is loaded, --repeats times.

    .venv/bin/python benchmarks/results/speed/hd/clean_720p.py      # clean_720p.log
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

import bench_clean as bench  # noqa: E402
from _machine import cpu_name  # noqa: E402

from videodenoise.datasets.samples import fetch_sample_clips  # noqa: E402
from videodenoise.denoise.pipeline import denoise_video  # noqa: E402
from videodenoise.denoise.settings import PRESETS  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--frames", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    print(f"machine: {cpu_name()}; {torch.get_num_threads()} torch threads; fast preset, σ = 25 given, H.264 out")
    clean = bench.load_clip(fetch_sample_clips()["bigbuckbunny"], args.frames)
    noisy = bench.add_noise(clean, 25)
    denoiser, described = bench.make_denoiser(None, PRESETS["fast"])
    with tempfile.TemporaryDirectory() as folder:
        source = bench.write_lossless(Path(folder) / "hd.mkv", noisy)
        for _ in range(args.repeats):
            start = time.perf_counter()
            result = denoise_video(source, Path(folder) / "out.mp4", denoiser, sigma=25 / 255, overwrite=True)
            seconds = (time.perf_counter() - start) / result.frames
            print(
                f"{result.width}×{result.height}, {result.frames} frames: {seconds:.3f} s a frame "
                f"({1 / seconds:.2f} frames/s; a minute of 25 fps video: {seconds * 1500 / 60:.0f} minutes)",
                flush=True,
            )


if __name__ == "__main__":
    main()

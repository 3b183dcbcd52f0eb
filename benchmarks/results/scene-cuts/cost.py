"""What the scene-cut check costs: σ auto's estimate alone on the long clip of `bench_clean.py` part 1 (100 frames of
bikes' 320×240 centre, Gaussian σ = 25, stored losslessly) with `noise.estimation.CUT_RATIO` 0 and 2 in turns (best
of three each), over `clean`'s time told σ = 25 on the same file (one run; the shipped default, fast).

    .venv/bin/python benchmarks/results/scene-cuts/cost.py > benchmarks/results/scene-cuts/cost.log

The first two trials failed their rules before it ran (their switch is in 2c3a60b and ccaa1e3); the third trial runs it.
"""

from __future__ import annotations

import dataclasses
import sys
import tempfile
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import bench_clean as bench  # noqa: E402

from videodenoise.denoise.denoiser import Denoiser  # noqa: E402
from videodenoise.denoise.settings import PRESETS  # noqa: E402
from videodenoise.io.video import open_video  # noqa: E402
from videodenoise.noise import estimation  # noqa: E402

from _machine import cpu_name  # noqa: E402

FRAMES = 100


def main() -> None:
    print(f"machine: {cpu_name()}; {torch.get_num_threads()} torch threads")
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        noisy, _, _ = bench.long_clip_files(folder, FRAMES, 1)
        denoiser = Denoiser.from_preset("fast", settings=dataclasses.replace(PRESETS["fast"], device="cpu"))
        fps, _ = bench.time_clean(denoiser, noisy, folder / "out.mkv", bench.SIGMA_255)
        told = FRAMES / fps
        seconds: dict[float, list[float]] = {0.0: [], 2.0: []}
        for _ in range(3):
            for ratio in seconds:
                estimation.CUT_RATIO = ratio
                start = time.perf_counter()
                estimation.estimate_video_noise(open_video(noisy))
                seconds[ratio].append(time.perf_counter() - start)
        estimation.CUT_RATIO = 0.0
    print(f"clean told σ = 25: {told:.2f} s for {FRAMES} frames")
    for ratio, runs in seconds.items():
        best = min(runs)
        print(
            f"CUT_RATIO {ratio:g}: the estimate {', '.join(f'{s:.3f}' for s in runs)} s; best {best:.3f} s, "
            f"{best / told:.1%} of clean's time told σ"
        )


if __name__ == "__main__":
    main()

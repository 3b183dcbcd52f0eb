"""What the scene-cut check costs: σ auto's estimate alone on the long clip of `bench_clean.py` part 1 (100 frames of
bikes' 320×240 centre, Gaussian σ = 25, stored losslessly) with the check off and on in turns (best of three each),
over `clean`'s time told σ = 25 on the same file (one run; the shipped default, fast). The switch is the fourth
trial's, `noise.estimation.CUT_CHECK` 0 and 1 (the first three trials' `CUT_RATIO` failed their rules before this ran);
it ran at ecb629b. The test it times (`scene_cuts.across_cut` on every pair) is what σ auto now runs to warn.

    .venv/bin/python benchmarks/results/scene-cuts/cost.py > benchmarks/results/scene-cuts/cost.log
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
        seconds: dict[float, list[float]] = {0.0: [], 1.0: []}
        for _ in range(3):
            for value in seconds:
                estimation.CUT_CHECK = value
                start = time.perf_counter()
                estimation.estimate_video_noise(open_video(noisy))
                seconds[value].append(time.perf_counter() - start)
        estimation.CUT_CHECK = 0.0
    print(f"clean told σ = 25: {told:.2f} s for {FRAMES} frames")
    for value, runs in seconds.items():
        best = min(runs)
        print(
            f"CUT_CHECK {value:g}: the estimate {', '.join(f'{s:.3f}' for s in runs)} s; best {best:.3f} s, "
            f"{best / told:.1%} of clean's time told σ"
        )


if __name__ == "__main__":
    main()

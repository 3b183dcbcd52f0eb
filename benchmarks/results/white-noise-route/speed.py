"""Issue 19's aligned model attending at its first layer (`depth-1`), alone, against the fast preset (fusion and the
default's model) on the long clip of `bench_clean.py` part 1 (bikes' 320×240 centre, Gaussian σ = 25, seed 0, stored
losslessly): timed in turns, σ estimated (`--sigma auto`) and told (σ = 25), each over OpenCV NLM's time a frame on
the same clip, the measure of issue 19's speed bound (at most 0.25× for `clean`). Also what the estimator reads there,
and its own time.

    .venv/bin/python benchmarks/results/white-noise-route/speed.py [--aligned PATH] [--repeats 3] > speed.log
"""

from __future__ import annotations

import dataclasses
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import bench_clean as bench  # noqa: E402

from videodenoise.denoise.denoiser import Denoiser  # noqa: E402
from videodenoise.denoise.settings import PRESETS  # noqa: E402
from videodenoise.io.video import open_video  # noqa: E402
from videodenoise.noise.estimation import estimate_video_noise  # noqa: E402

from _machine import cpu_name  # noqa: E402

ALIGNED = "runs/ablation-depth-1/last.safetensors"  # trained by the command in ../aligned-depth/README.md


def main() -> None:
    parser = bench.in_turns_parser(__doc__.split("\n")[0])
    parser.add_argument("--aligned", default=ALIGNED, help="the aligned model's weights, run without fusion")
    args = parser.parse_args()
    print(f"machine: {cpu_name()}; {torch.get_num_threads()} torch threads; aligned weights {args.aligned}")
    fast = dataclasses.replace(PRESETS["fast"], device="cpu")
    default = Denoiser.from_preset("fast", settings=fast)
    aligned = Denoiser.from_checkpoint(args.aligned, dataclasses.replace(fast, fusion=None))
    runs = [("default → depth-1 alone, σ auto", "auto", True), ("default → depth-1 alone, σ = 25 told", 25, True)]
    for title, sigma, noisy_file, out_file, nlm in bench.long_clip_runs(args, runs):
        if sigma == "auto":  # what the estimator reads, and its own time (the best of three)
            seconds = []
            for _ in range(3):
                start = time.perf_counter()
                estimate = estimate_video_noise(open_video(noisy_file))
                seconds.append(time.perf_counter() - start)
            print(f"the estimate: {estimate.summary()}; grain {estimate.grain}, carried {estimate.carried:.2f}")
            print(f"the estimate alone: {min(seconds):.3f} s, {min(seconds) / args.frames:.4f} s a frame")
        arms = {"default": lambda: default, "depth-1": lambda: aligned}
        bench.report_in_turns(title, arms, noisy_file, out_file, args.repeats, nlm, sigma_255=sigma)


if __name__ == "__main__":
    main()

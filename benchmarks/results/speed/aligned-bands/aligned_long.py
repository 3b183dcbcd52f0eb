"""`clean` on the long clip of `bench_clean.py` part 1 (bikes' 320×240 centre, Gaussian σ = 25, seed 0, stored
losslessly) with the shipped default and with issue 19's aligned model (the fresh `observation` arm of
ablation-observation, without fusion, each frame at its window's centre), timed in turns; each over OpenCV NLM's time a
frame on the same clip, the measure of issue 19's speed bound (at most 0.25× for `clean`). The outputs differ (two
models).

    .venv/bin/python benchmarks/results/speed/aligned-bands/aligned_long.py [--repeats 2] > aligned-long.log

--checkpoint and --label time another aligned model the same way (benchmarks/results/aligned-depth: the one that
attends at its first layer only, `--checkpoint runs/ablation-depth-1/last.safetensors --label depth-1`). --sigma:
what `clean` is told, 25 (default) or auto (estimated, as `clean` does by default; then also what the estimator
reads and its own time, the best of three).
"""

from __future__ import annotations

import dataclasses
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

import bench_clean as bench  # noqa: E402

from videodenoise.denoise.denoiser import Denoiser  # noqa: E402
from videodenoise.denoise.settings import PRESETS  # noqa: E402
from videodenoise.io.video import open_video  # noqa: E402
from videodenoise.noise.estimation import estimate_video_noise  # noqa: E402

from _machine import cpu_name  # noqa: E402

ALIGNED = "runs/ablation-fresh-observation/last.safetensors"  # trained by the command in ablation-observation/README.md


def report_estimate(noisy_file: Path, frames: int) -> None:
    """What `clean --sigma auto` estimates on the clip, and the estimator's own time (the best of three)."""
    seconds = []
    for _ in range(3):
        start = time.perf_counter()
        estimate = estimate_video_noise(open_video(noisy_file))
        seconds.append(time.perf_counter() - start)
    print(f"the estimate: {estimate.summary()}; grain {estimate.grain}, carried {estimate.carried:.2f}")
    print(f"the estimate alone: {min(seconds):.3f} s, {min(seconds) / frames:.4f} s a frame")


def main() -> None:
    parser = bench.in_turns_parser(__doc__.split("\n")[0])
    parser.add_argument("--checkpoint", default=ALIGNED, help="the aligned model, run without fusion")
    parser.add_argument("--label", default="aligned", help="its name in the output")
    parser.add_argument("--sigma", default="25", help="σ told to `clean` (0-255), or auto")
    args = parser.parse_args()
    sigma = args.sigma if args.sigma == "auto" else float(args.sigma)
    print(f"machine: {cpu_name()}; {torch.get_num_threads()} torch threads; checkpoint {args.checkpoint}")
    fast = dataclasses.replace(PRESETS["fast"], device="cpu")
    default = Denoiser.from_preset("fast", settings=fast)
    aligned = Denoiser.from_checkpoint(args.checkpoint, dataclasses.replace(fast, fusion=None))
    runs = [(f"default → {args.label}, σ {args.sigma}", None, True)]
    for title, _, noisy_file, out_file, nlm in bench.long_clip_runs(args, runs):
        if sigma == "auto":
            report_estimate(noisy_file, args.frames)
        arms = {"default": lambda: default, args.label: lambda: aligned}
        bench.report_in_turns(title, arms, noisy_file, out_file, args.repeats, nlm, sigma_255=sigma)


if __name__ == "__main__":
    main()

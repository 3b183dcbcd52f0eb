"""`clean` on the long clip of `bench_clean.py` part 1 (bikes' 320×240 centre, σ = 25 told, seed 0, stored losslessly)
with the shipped default and with the aligned model that attends at its first layer only (`aligned_depth=1`,
`runs/ablation-depth-1`, trained by the command in README.md; without fusion, each frame at its window's centre),
timed in turns; each over OpenCV NLM's time a frame on the same clip, the measure of issue 19's speed bound (at most
0.25× for `clean`). The outputs differ (two models).

    .venv/bin/python benchmarks/results/aligned-depth/speed.py [--repeats 3] > …/aligned-depth/speed.log
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import bench_clean as bench  # noqa: E402

from videodenoise.denoise.denoiser import Denoiser  # noqa: E402
from videodenoise.denoise.settings import PRESETS  # noqa: E402

from _machine import cpu_name  # noqa: E402


def main() -> None:
    parser = bench.in_turns_parser(__doc__.split("\n")[0])
    parser.add_argument("--checkpoint", default="runs/ablation-depth-1/last.safetensors")
    args = parser.parse_args()
    print(f"machine: {cpu_name()}; {torch.get_num_threads()} torch threads; checkpoint {args.checkpoint}")
    fast = dataclasses.replace(PRESETS["fast"], device="cpu")
    default = Denoiser.from_preset("fast", settings=fast)
    depth = Denoiser.from_checkpoint(args.checkpoint, dataclasses.replace(fast, fusion=None))
    for title, _, noisy_file, out_file, nlm in bench.long_clip_runs(args, [("default → depth-1", None, True)]):
        arms = {"default": lambda: default, "depth-1": lambda: depth}
        bench.report_in_turns(title, arms, noisy_file, out_file, args.repeats, nlm)


if __name__ == "__main__":
    main()

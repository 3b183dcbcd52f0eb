"""`clean` on the long clip of `bench_clean.py` part 1 (bikes' 320×240 centre, σ = 25 told, seed 0, stored losslessly)
with the shipped default and with issue 19's aligned model (the fresh `observation` arm of ablation-observation,
without fusion, each frame at its window's centre), timed in turns; each over OpenCV NLM's time a frame on the same
clip, the measure of issue 19's speed bound (at most 0.25× for `clean`). The outputs differ (two models).

    .venv/bin/python benchmarks/results/speed/aligned-bands/aligned_long.py [--repeats 2] > aligned-long.log

--checkpoint and --label time another aligned model the same way (benchmarks/results/aligned-depth: the one that
attends at its first layer only, `--checkpoint runs/ablation-depth-1/last.safetensors --label depth-1`).
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

import bench_clean as bench  # noqa: E402

from videodenoise.denoise.denoiser import Denoiser  # noqa: E402
from videodenoise.denoise.settings import PRESETS  # noqa: E402

from _machine import cpu_name  # noqa: E402

ALIGNED = "runs/ablation-fresh-observation/last.safetensors"  # trained by the command in ablation-observation/README.md


def main() -> None:
    parser = bench.in_turns_parser(__doc__.split("\n")[0])
    parser.add_argument("--checkpoint", default=ALIGNED, help="the aligned model, run without fusion")
    parser.add_argument("--label", default="aligned", help="its name in the output")
    args = parser.parse_args()
    print(f"machine: {cpu_name()}; {torch.get_num_threads()} torch threads; checkpoint {args.checkpoint}")
    fast = dataclasses.replace(PRESETS["fast"], device="cpu")
    default = Denoiser.from_preset("fast", settings=fast)
    aligned = Denoiser.from_checkpoint(args.checkpoint, dataclasses.replace(fast, fusion=None))
    for title, _, noisy_file, out_file, nlm in bench.long_clip_runs(args, [(f"default → {args.label}", None, True)]):
        arms = {"default": lambda: default, args.label: lambda: aligned}
        bench.report_in_turns(title, arms, noisy_file, out_file, args.repeats, nlm)


if __name__ == "__main__":
    main()

"""Does the default have room for another step? `clean`'s fast preset against it with two scales (`--scales 2`) and
with the Wiener filter at its sparsest stride (`--wiener --wiener-stride 8 --wiener-flow ultrafast`), timed in turns
on the long clip of `bench_clean.py` (bikes' 320×240 centre, 100 frames, σ = 25), over OpenCV temporal NLM's time
there: issue 19 holds the default to 0.25× of it.

    .venv/bin/python benchmarks/results/default-budget/budget.py > benchmarks/results/default-budget/budget.log
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
    args = bench.in_turns_parser(__doc__.split("\n")[0]).parse_args()
    print(f"machine: {cpu_name()}; {torch.get_num_threads()} torch threads")
    fast = dataclasses.replace(PRESETS["fast"], device="cpu")
    candidates = {
        "two scales": dataclasses.replace(fast, scales=2),
        "Wiener at stride 8": dataclasses.replace(fast, wiener=True, wiener_stride=8, wiener_flow="ultrafast"),
    }
    default = Denoiser.from_preset("fast", settings=fast)
    for name, settings in candidates.items():
        candidate = Denoiser.from_preset("fast", settings=settings)
        for title, _, file, out, nlm in bench.long_clip_runs(args, [(f"fast → fast + {name}", default, True)]):
            arms = {"fast": lambda: default, name: lambda candidate=candidate: candidate}
            bench.report_in_turns(title, arms, file, out, args.repeats, nlm)


if __name__ == "__main__":
    main()

"""`clean --sigma auto` on the long clip of `bench_clean.py` part 1 (bikes' 320×240 centre, Gaussian σ = 25, seed 0,
stored losslessly) with the fast preset as it was (`default`: fusion and the default's model) and handing white noise
to the aligned model (`route`), timed in turns; each over OpenCV NLM's time a frame on the same clip, the measure of
issue 19's speed bound (at most 0.25× for `clean`).

    .venv/bin/python benchmarks/results/white-noise-route/speed.py [--aligned PATH] [--repeats 3] > speed.log
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
    parser.add_argument("--aligned", default=None, help="the aligned weights (default: the shipped ones)")
    args = parser.parse_args()
    print(f"machine: {cpu_name()}; {torch.get_num_threads()} torch threads; aligned weights {args.aligned or 'shipped'}")
    fast = dataclasses.replace(PRESETS["fast"], device="cpu", white_noise_model=False)
    default = Denoiser.from_preset("fast", settings=fast)
    route = Denoiser.from_preset("fast", settings=fast).with_white_noise_model(args.aligned)
    for title, _, noisy_file, out_file, nlm in bench.long_clip_runs(args, [("default → route, σ auto", None, True)]):
        arms = {"default": lambda: default, "route": lambda: route}
        bench.report_in_turns(title, arms, noisy_file, out_file, args.repeats, nlm, sigma_255="auto")


if __name__ == "__main__":
    main()

"""`clean` end to end with the CPU bands of before (2 MiB) and of the L2 rule (`band_bytes`), in turns.

The long clip of `bench_clean.py` part 1 (bikes' 320×240 centre, σ = 25, seed 0, stored losslessly) through
the fast preset, and its first --best-frames frames through `best` (calibration off: a per-video cost that
runs the same model); each arm timed --repeats times, alternating, the medians printed with their ratio,
and the outputs checked equal (bands are exact). OpenCV NLM is timed once on the long clip, as part 1 does,
for the ratio issue 19 asks of the fast preset.

    .venv/bin/python benchmarks/results/speed/l2-bands/clean_bands.py [--repeats 3] [--best-frames 20]
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

import bench_clean as bench  # noqa: E402
from _machine import cpu_name  # noqa: E402

import videodenoise.models.base as model_base  # noqa: E402
from videodenoise.denoise.settings import PRESETS  # noqa: E402


def main() -> None:
    args = bench.in_turns_parser(__doc__.split("\n")[0]).parse_args()
    rule = model_base.CPU_BAND_BYTES
    arms = {"2 MiB (before)": 2 << 20, f"{rule >> 20} MiB (L2 rule)": rule}
    print(f"machine: {cpu_name()}; {torch.get_num_threads()} torch threads; L2 rule gives {rule >> 20} MiB")
    best = dataclasses.replace(PRESETS["best"], calibrate=False)
    runs = [
        ("fast", bench.make_denoiser(None, PRESETS["fast"])[0], True),
        ("best, calibration off", bench.make_denoiser(None, best)[0], False),
    ]
    for title, denoiser, file, out_file, nlm in bench.long_clip_runs(args, runs):
        bench.compare_in_turns(title, denoiser, model_base, "CPU_BAND_BYTES", arms, file, out_file, args.repeats, nlm)


if __name__ == "__main__":
    main()

"""The Wiener filter's band on the CPU: 16,384 patch positions (before) against the models' L2-sized CPU_BAND_BYTES
(after), `clean` end to end in turns.

`best` as shipped (its wide weights; calibration off) on the first --best-frames frames of the long clip of `bench_clean.py` part 1 (bikes'
320×240 centre, σ = 25, seed 0, stored losslessly), and the fast preset with the filter at stride 5 (the middle
setting of this folder's README) on the whole long clip; each arm timed --repeats times, alternating, the medians
printed with their ratio and OpenCV NLM's (timed once on the long clip, as part 1 does), and how far apart the
two arms' outputs are (the bands change only the order of float sums).

    .venv/bin/python benchmarks/results/wiener-fast/band_size.py [--repeats 3] [--best-frames 20]
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import bench_clean as bench  # noqa: E402
from _machine import cpu_name  # noqa: E402

import videodenoise.denoise.wiener as wiener  # noqa: E402
from videodenoise.denoise.denoiser import Denoiser  # noqa: E402
from videodenoise.denoise.settings import PRESETS  # noqa: E402

# the bytes of 16,384 positions of 5-frame colour stacks, noisy and pilot: the band before, on this footage
BEFORE = wiener.BAND_PATCHES * 2 * 5 * 3 * wiener.PATCH**2 * 4


def main() -> None:
    args = bench.in_turns_parser(__doc__.split("\n")[0]).parse_args()
    after = wiener.CPU_BAND_BYTES
    arms = {"16,384 positions (before)": BEFORE, f"{after >> 20} MiB (after)": after}
    print(f"machine: {cpu_name()}; {torch.get_num_threads()} torch threads")
    middle = dataclasses.replace(PRESETS["fast"], wiener=True, wiener_stride=5, wiener_flow="ultrafast")
    best = dataclasses.replace(PRESETS["best"], calibrate=False, device="cpu")
    runs = [
        ("best (its wide weights), calibration off", Denoiser.from_preset("best", settings=best), False),
        ("fast + the filter at stride 5", bench.make_denoiser(None, middle)[0], True),
    ]
    for title, denoiser, file, out_file, nlm in bench.long_clip_runs(args, runs):
        bench.compare_in_turns(title, denoiser, wiener, "CPU_BAND_BYTES", arms, file, out_file, args.repeats, nlm)


if __name__ == "__main__":
    main()

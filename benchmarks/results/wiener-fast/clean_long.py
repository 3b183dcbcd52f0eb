"""`clean`'s fast preset end to end with and without a sparse Wiener filter, in turns: is it within issue 19's
0.25× OpenCV NLM's time?

The long clip of `bench_clean.py` part 1 (bikes' 320×240 centre, σ = 25, seed 0, stored losslessly) through the
fast preset as shipped and through each candidate (the fast preset with `wiener=True` at a patch stride, its flow
at DIS ultrafast); each arm timed --repeats times, alternating, the medians printed with their ratio to
OpenCV's temporal NLM, timed once on the same frames as part 1 does. Quality is not read here: bikes is a
benchmark clip, and the candidates are chosen on the validation clips (README).

    .venv/bin/python benchmarks/results/wiener-fast/clean_long.py [--repeats 3] [--strides 4,5]
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import statistics
import sys
import tempfile
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import bench_clean as bench  # noqa: E402
from _machine import cpu_name  # noqa: E402

from videodenoise.denoise.settings import PRESETS  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--frames", type=int, default=100)
    parser.add_argument("--strides", default="4,5")
    args = parser.parse_args()
    shipped = dataclasses.replace(PRESETS["fast"], wiener=False)
    arms = {"shipped": shipped} | {
        f"w{s}": dataclasses.replace(shipped, wiener=True, wiener_stride=int(s), wiener_flow="ultrafast")
        for s in args.strides.split(",")
    }
    print(f"machine: {cpu_name()}; {torch.get_num_threads()} torch threads")
    noisy = bench.long_clip(args.frames)
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        file = bench.write_lossless(folder / "noisy.mkv", noisy)
        nlm = bench.nlm_seconds_per_frame(noisy)
        print(f"OpenCV NLM on the long clip ({args.frames} frames of 320×240): {nlm:.4f} s/frame")
        denoisers = {name: bench.make_denoiser(None, settings)[0] for name, settings in arms.items()}
        turns = {name: functools.partial(lambda d: d, denoiser) for name, denoiser in denoisers.items()}
        times, _ = bench.time_in_turns(turns, file, folder / "out.mkv", args.repeats)
        for name in arms:
            median = statistics.median(times[name])
            runs = ", ".join(f"{t:.4f}" for t in times[name])
            ratio = median / statistics.median(times["shipped"])
            print(f"{name}: {median:.4f} s/frame (runs {runs}), {ratio:.3f}× shipped, {median / nlm:.3f}× OpenCV NLM")


if __name__ == "__main__":
    main()

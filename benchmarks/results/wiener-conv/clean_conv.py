"""The Wiener filter before and after its patches' DCTs became a convolution (2026-12-05), `clean` end to end in
turns.

`best` as shipped (its wide weights; calibration off) on the first --best-frames frames of the long clip of
`bench_clean.py` part 1 (bikes' 320×240 centre, σ = 25, seed 0, stored losslessly), and `--quality balanced` on the
whole long clip; each arm timed --repeats times, alternating, the medians printed with their ratio and OpenCV NLM's
(timed once on the long clip, as part 1 does), and how far apart the two arms' outputs are. The filter before is
`wiener_estimate` as it was at commit BEFORE, read from git; with `--function wiener_refine --before 487860d`, the
whole refinement as it was then (the neighbours resampled by `cv2.remap` instead of one gather).

    .venv/bin/python benchmarks/results/wiener-conv/clean_conv.py [--repeats 3] [--best-frames 20]
    .venv/bin/python benchmarks/results/wiener-conv/clean_conv.py --function wiener_refine --before 487860d
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import types
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import bench_clean as bench  # noqa: E402
from _machine import cpu_name  # noqa: E402

import videodenoise.denoise.denoiser as denoiser_module  # noqa: E402
import videodenoise.denoise.wiener as wiener  # noqa: E402
from videodenoise.denoise.denoiser import Denoiser  # noqa: E402
from videodenoise.denoise.settings import PRESETS  # noqa: E402

BEFORE = "77ed6d9"  # the last commit whose filter gathered each patch in group order


def function_before(commit: str, name: str):
    """The function `name` of videodenoise/denoise/wiener.py as it was at `commit`."""
    root = Path(__file__).resolve().parents[3]
    source = subprocess.run(
        ["git", "show", f"{commit}:videodenoise/denoise/wiener.py"], cwd=root, check=True, capture_output=True
    ).stdout.decode()
    module = types.ModuleType("wiener_before")
    exec(compile(source, f"{commit}:wiener.py", "exec"), module.__dict__)
    return getattr(module, name)


def main() -> None:
    parser = bench.in_turns_parser(__doc__.split("\n")[0])
    parser.add_argument("--before", default=BEFORE)
    parser.add_argument("--function", choices=("wiener_estimate", "wiener_refine"), default="wiener_estimate")
    args = parser.parse_args()
    # the Denoiser calls wiener_refine by the name it imported; wiener_refine calls wiener_estimate in its module
    module = denoiser_module if args.function == "wiener_refine" else wiener
    now = "one gather (now)" if args.function == "wiener_refine" else "convolution (now)"
    before = "cv2.remap" if args.function == "wiener_refine" else "gather"
    arms = {
        f"{before} ({args.before})": function_before(args.before, args.function),
        now: getattr(module, args.function),
    }
    print(f"machine: {cpu_name()}; {torch.get_num_threads()} torch threads")
    best = dataclasses.replace(PRESETS["best"], calibrate=False, device="cpu")
    runs = [
        ("best (its wide weights), calibration off", Denoiser.from_preset("best", settings=best), False),
        ("balanced", bench.make_denoiser(None, PRESETS["balanced"])[0], True),
    ]
    for title, denoiser, file, out_file, nlm in bench.long_clip_runs(args, runs):
        bench.compare_in_turns(title, denoiser, module, args.function, arms, file, out_file, args.repeats, nlm)


if __name__ == "__main__":
    main()

"""`clean` end to end with the models' patches cut and folded as before (F.unfold, a transposing copy; the bands
joined, a transposing copy, F.fold) and as now (strided views: `videodenoise.models.layers`), in turns.

The long clip of `bench_clean.py` part 1 (bikes' 320×240 centre, σ = 25, seed 0, stored losslessly) through the
fast and balanced presets, and its first --best-frames frames through `best` (calibration off: a per-video cost
that runs the same model); each arm timed --repeats times, alternating, the medians printed with their ratio, and
how far apart the outputs are (the sums over a pixel's patches are taken in another order: float rounding).
OpenCV NLM is timed once on the long clip, as part 1 does, for the ratio issue 19 asks of the fast preset.

    .venv/bin/python benchmarks/results/speed/strided-patches/clean_patches.py [--repeats 3] [--best-frames 20]
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

import bench_clean as bench  # noqa: E402
from _machine import cpu_name  # noqa: E402

import videodenoise.models.base as model_base  # noqa: E402
from videodenoise.denoise.denoiser import Denoiser  # noqa: E402
from videodenoise.denoise.settings import PRESETS  # noqa: E402
from videodenoise.models.layers import _padded_frames  # noqa: E402


def extract_before(video: torch.Tensor, patch_size: int, stride: int):
    """extract_patches as it was until 2026-12-05: F.unfold's columns, then a transposing copy."""
    images, grid = _padded_frames(video, patch_size, stride)
    columns = F.unfold(images, patch_size, stride=stride)  # (B·T, n, rows·cols)
    tokens = columns.view(grid.batch, grid.frames, -1, grid.rows, grid.cols).permute(0, 3, 4, 1, 2).contiguous()
    return tokens, grid


def fold_before(tokens, grid):
    """fold_patches as it was: the bands joined, a transposing copy, F.fold, divided by F.fold of ones."""
    if not isinstance(tokens, torch.Tensor):
        tokens = torch.cat(list(tokens), dim=1)
    batch, frames, p = grid.batch, grid.frames, grid.patch_size
    size, kernel = (grid.padded_height, grid.padded_width), dict(kernel_size=p, stride=grid.stride)
    columns = tokens.permute(0, 3, 4, 1, 2).reshape(batch * frames, -1, grid.rows * grid.cols)
    summed = F.fold(columns, size, **kernel)
    counts = F.fold(torch.ones(1, p * p, grid.rows * grid.cols, dtype=tokens.dtype), size, **kernel)
    images = (summed / counts)[
        :, :, grid.pad_top : grid.pad_top + grid.height, grid.pad_left : grid.pad_left + grid.width
    ]
    return images.reshape(batch, frames, grid.channels, grid.height, grid.width)


def main() -> None:
    args = bench.in_turns_parser(__doc__.split("\n")[0]).parse_args()
    now = (model_base.extract_patches, model_base.fold_patches)
    print(f"machine: {cpu_name()}; {torch.get_num_threads()} torch threads")
    best = dataclasses.replace(PRESETS["best"], calibrate=False)
    # each preset with its own weights (best's are the wide ones), on the CPU
    runs = [
        (label, Denoiser.from_preset(name, settings=dataclasses.replace(settings, device="cpu")), name != "best")
        for name, label, settings in (
            ("fast", "fast", PRESETS["fast"]),
            ("balanced", "balanced", PRESETS["balanced"]),
            ("best", "best, calibration off", best),
        )
    ]
    for title, denoiser, file, out_file, nlm in bench.long_clip_runs(args, runs):

        def arm(functions, denoiser=denoiser):
            model_base.extract_patches, model_base.fold_patches = functions
            return denoiser

        arms = {"before": lambda: arm((extract_before, fold_before)), "now": lambda: arm(now)}
        try:
            bench.report_in_turns(title, arms, file, out_file, args.repeats, nlm)
        finally:
            model_base.extract_patches, model_base.fold_patches = now


if __name__ == "__main__":
    main()

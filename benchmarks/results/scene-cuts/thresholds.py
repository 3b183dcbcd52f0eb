"""What the fourth trial's two limits were fixed on (`videodenoise.noise.scene_cuts`): the two shares `cut_shares`
reads on every pair of frames one and two apart, across a cut and within a scene, and where the two groups part.

    .venv/bin/python benchmarks/results/scene-cuts/thresholds.py > benchmarks/results/scene-cuts/thresholds.log

Within a scene: the twelve validation clips (5 frames) at the three exposures of `estimator_knob.py` under its
nineteen conditions. Across a cut and within a scene: 12-frame clips at 144×176 with a cut after frame 2, 6 or 11
(`cuts.py`), under the sixteen conditions, on four pairs all read before (dead-leaves 19-20 and ihc-ascent by the
third trial, page-flower by the probe, cell-clock_motion by the second trial's look). The limits were set between the
groups from a first run of the same measurement (`/tmp`, not kept), which this script repeats.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from cuts import SIGMAS, cut_clip  # noqa: E402
from estimator_knob import EXPOSURES, draws  # noqa: E402
from validation_sweep import VALIDATION_CLIPS, clip_draws  # noqa: E402

from videodenoise.denoise.fusion import FrameAligner  # noqa: E402
from videodenoise.denoise.settings import FusionSettings  # noqa: E402
from videodenoise.noise.scene_cuts import NOISE_SHARE, PICTURE_SHARE, cut_shares  # noqa: E402

import bench_quality as quality  # noqa: E402
from _machine import cpu_name  # noqa: E402

CUT_PAIRS = (
    ("generated:dead_leaves_19", "generated:dead_leaves_grey_20"),
    ("skimage:page", "videodenoise:flower"),
    ("skimage:ihc", "pywt:ascent"),
    ("skimage:cell", "skimage:clock_motion"),
)


def shares(aligner: FrameAligner, first: torch.Tensor, second: torch.Tensor) -> tuple[float, float] | None:
    image, guide = aligner.prepare(first)
    other, other_guide = aligner.prepare(second)
    warped, _, map_x, map_y = aligner.align(guide, other, other_guide)
    height, width = image.shape[:2]
    trusted = (map_x >= 0) & (map_x <= width - 1) & (map_y >= 0) & (map_y <= height - 1)
    return cut_shares(image - warped, image, trusted)


def pairs_of(aligner: FrameAligner, noisy: torch.Tensor, cut: int | None) -> list[tuple[float, float, bool]]:
    """(picture share, noise share, across the cut) of every pair one and two frames apart."""
    rows = []
    for t in range(len(noisy) - 1):
        for gap in (1, 2):
            if t + gap < len(noisy) and (read := shares(aligner, noisy[t], noisy[t + gap])) is not None:
                rows.append((*read, cut is not None and t < cut <= t + gap))
    return rows


def main() -> None:
    print(f"{cpu_name()}, {torch.get_num_threads()} threads")
    aligner, rows = FrameAligner(FusionSettings()), []
    taken = quality.build_clips(VALIDATION_CLIPS, 5, quality.DEFAULT_SIZE)
    for exposure in EXPOSURES:
        for clip in [quality.underexposed(clip, exposure) for clip in taken] if exposure != 1 else taken:
            for _, draw in draws(clip):
                rows += pairs_of(aligner, torch.from_numpy(draw).float() / 255, None)
    for first, second in CUT_PAIRS:
        for cut in (2, 6, 11):
            clip = cut_clip(first, second, cut, (144, 176))
            for _, draw in clip_draws(clip, sigmas=SIGMAS):
                rows += pairs_of(aligner, torch.from_numpy(draw).float() / 255, cut)
    table = np.array(rows)
    across, within = table[table[:, 2] == 1], table[table[:, 2] == 0]
    quantiles = (0, 0.01, 0.5, 0.99, 1)
    for name, part in (("across a cut", across), ("within a scene", within)):
        print(f"{name}: {len(part)} pairs")
        for column, share in ((0, "picture"), (1, "noise")):
            print(f"  {share} share at quantiles {quantiles}: {np.quantile(part[:, column], quantiles).round(3)}")
    for column, other, share, other_share in ((0, 1, "picture", "noise"), (1, 0, "noise", "picture")):
        print(
            f"within a scene, over 0.4 of the {other_share}: at most {within[within[:, other] > 0.4, column].max():.3f}"
            f" of the {share}"
        )
    called = (table[:, 0] > PICTURE_SHARE) & (table[:, 1] > NOISE_SHARE)
    missed, false = int((~called[table[:, 2] == 1]).sum()), int(called[table[:, 2] == 0].sum())
    print(f"PICTURE_SHARE {PICTURE_SHARE}, NOISE_SHARE {NOISE_SHARE}: cuts missed {missed}, within called {false}")


if __name__ == "__main__":
    main()

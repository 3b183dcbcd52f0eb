"""The second trial of HEVC's default CRF (plan and rule in README.md, "Second trial", committed before its run): the
measure of `crf.py` on the twelve clips over the estimator's six photographs; a candidate passes where its mean and
worst-clip loss are each within 0.05 dB of H.264 High 10 at CRF 10's, at every condition.

    R=benchmarks/results/output-crf-h265; .venv/bin/python $R/trial2.py > $R/trial2.log
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import validation_sweep as validation  # noqa: E402
from crf import FLOOR, FRAMES, TODAY, condition, table_header  # noqa: E402

from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT  # noqa: E402

import bench_quality as quality  # noqa: E402
import bench_realnoise as realnoise  # noqa: E402
from _machine import cpu_name  # noqa: E402

CRFS = (16, 13, 10, 8, 6, 4)
MARGIN_DB = 0.05  # over H.264 High 10 at CRF 10, on the mean and on the worst clip


def main() -> None:
    print(f"# {cpu_name()}, {torch.get_num_threads()} threads, torch {torch.__version__}")
    photos = quality.motion_module().ESTIMATOR_VALIDATION_PHOTOS
    names = [quality.photo_clip_name(p) for p in photos] + [quality.objects_clip_name(p) for p in photos]
    clips = quality.build_clips(names, FRAMES, quality.DEFAULT_SIZE)
    print(f"# clips: {', '.join(clip.name for clip in clips)}; {FRAMES} frames")
    denoiser = quality.load_denoiser(DEFAULT_CHECKPOINT, {})
    arms = [("h265", crf) for crf in CRFS] + [TODAY, FLOOR]
    table_header(arms)
    passing = set(CRFS)
    for level, crf_in in validation.camera_conditions("h264"):
        losses, sizes = condition(denoiser, clips, level, crf_in, arms)
        before_mean, before_worst = float(np.mean(losses[TODAY])), max(losses[TODAY])
        for crf in CRFS:
            mean, worst = float(np.mean(losses[("h265", crf)])), max(losses[("h265", crf)])
            if mean > before_mean + MARGIN_DB or worst > before_worst + MARGIN_DB:
                passing.discard(crf)
        cells = [f"{np.mean(losses[arm]):.2f}, {max(losses[arm]):.2f}, {np.mean(sizes[arm]):.1f}" for arm in arms]
        print(f"| {realnoise.condition_name(level, 'h264', crf_in)} | " + " | ".join(cells) + " |", flush=True)
    chosen = max(passing) if passing else min(CRFS)
    print(
        f"HEVC within {MARGIN_DB} dB of H.264 High 10 at CRF 10 on the mean and worst clip at every condition: "
        f"{sorted(passing) or 'none'}; chosen: CRF {chosen}"
    )


if __name__ == "__main__":
    main()

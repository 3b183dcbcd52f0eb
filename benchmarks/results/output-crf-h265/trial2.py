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
from crf import FLOOR, FRAMES, TODAY, sweep  # noqa: E402

from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT  # noqa: E402

import bench_quality as quality  # noqa: E402
from _machine import cpu_name  # noqa: E402

CRFS = (16, 13, 10, 8, 6, 4)
MARGIN_DB = 0.05  # over H.264 High 10 at CRF 10, on the mean and on the worst clip


def worse_than_before(losses: dict, arm: tuple) -> bool:
    """The rule: a candidate fails where its mean or worst-clip loss exceeds H.264 High 10's by more than the margin."""
    if arm[0] != "h265":
        return False
    mean, before = float(np.mean(losses[arm])), float(np.mean(losses[TODAY]))
    return mean > before + MARGIN_DB or max(losses[arm]) > max(losses[TODAY]) + MARGIN_DB


def main() -> None:
    print(f"# {cpu_name()}, {torch.get_num_threads()} threads, torch {torch.__version__}")
    photos = quality.motion_module().ESTIMATOR_VALIDATION_PHOTOS
    names = [quality.photo_clip_name(p) for p in photos] + [quality.objects_clip_name(p) for p in photos]
    clips = quality.build_clips(names, FRAMES, quality.DEFAULT_SIZE)
    print(f"# clips: {', '.join(clip.name for clip in clips)}; {FRAMES} frames")
    denoiser = quality.load_denoiser(DEFAULT_CHECKPOINT, {})
    failed = sweep(denoiser, clips, [("h265", crf) for crf in CRFS] + [TODAY, FLOOR], worse_than_before)
    passing = sorted(crf for crf in CRFS if ("h265", crf) not in failed)
    print(
        f"HEVC within {MARGIN_DB} dB of H.264 High 10 at CRF 10 on the mean and worst clip at every condition: "
        f"{passing or 'none'}; chosen: CRF {max(passing) if passing else min(CRFS)}"
    )


if __name__ == "__main__":
    main()

"""Is the carried share that σ auto reads on noise-free moving-object clips a matter of which pixels each pair keeps?
(A probe, deciding nothing; runs at the commit that added `noise.estimation.SHARE_ON_SAME_PIXELS`.) The share off
σ₁ and σ₂ of the pixels both pairs keep, against today's (each pair its own pixels), on three clips read before.

    R=benchmarks/results/same-pixels; .venv/bin/python $R/same_pixels.py > $R/same_pixels.log
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from estimator_knob import draws  # noqa: E402

from videodenoise.noise import estimation  # noqa: E402

import bench_quality as quality  # noqa: E402


def main() -> None:
    if not hasattr(estimation, "SHARE_ON_SAME_PIXELS"):
        raise SystemExit("the switch this probe sets is out again: run it at a73a786 (git worktree add)")
    print("clip | condition | carried share: each pair's pixels, the same pixels | level (0-255): the same two")
    for clip in quality.build_clips(["dead-leaves-3-objects", "flower-objects", "china-pan"], 5, quality.DEFAULT_SIZE):
        for condition, frames in draws(clip):
            noisy = torch.from_numpy(frames).float() / 255
            functions = []
            for same in (False, True):
                estimation.SHARE_ON_SAME_PIXELS = same
                functions.append(estimation.estimate_clip_noise(noisy))
            estimation.SHARE_ON_SAME_PIXELS = False
            shares = ", ".join(f"{f.carried:.3f}" for f in functions)
            levels = ", ".join(f"{f.level * 255:.2f}" for f in functions)
            print(f"{clip.name} | {condition} | {shares} | {levels}", flush=True)


if __name__ == "__main__":
    main()

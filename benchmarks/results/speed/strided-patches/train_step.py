"""The time of one training step of a run config (default: the default model's stage-2 recipe, fused clips, a σ
per clip), median over --steps steps after two of warm-up, the same batches each time; run it in two code trees in
turns to compare them.

    .venv/bin/python benchmarks/results/speed/strided-patches/train_step.py [--config configs/train/dust-video-fused-2.toml]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import torch

from videodenoise.io.config_files import read_config_file
from videodenoise.training.config import TrainConfig
from videodenoise.training.trainer import Trainer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--config", default="configs/train/dust-video-fused-2.toml")
    parser.add_argument("--steps", type=int, default=8)
    args = parser.parse_args()
    config = TrainConfig.from_dict(read_config_file(args.config))
    with tempfile.TemporaryDirectory() as folder:
        trainer = Trainer(config, Path(folder) / "run", quiet=True)
        batches = iter(trainer.batches(0))
        clips = [next(batches) for _ in range(2 + args.steps)]  # loaded (and fused) before any timing
        for clip in clips[:2]:
            trainer.train_step(clip)
        times = []
        for clip in clips[2:]:
            start = time.perf_counter()
            trainer.train_step(clip)
            times.append(time.perf_counter() - start)
    print(
        f"{args.config}: {statistics.median(times) * 1000:.0f} ms a step (median of {args.steps}; "
        f"{torch.get_num_threads()} torch threads)"
    )


if __name__ == "__main__":
    main()

"""`videodenoise clean` as a user runs it, σ auto, on one fast pan: 20 frames of gravel (a spent training photograph,
not a benchmark clip) panned up to 16 px a frame at 320×240, Gaussian σ = 25 (seed 3), stored losslessly; each code
tree given (a worktree of an earlier commit, or this one) cleans it in its own process. Printed: the line `clean` says
about the estimate, and the PSNR of each output and of the input against the clean frames.

    git worktree add /tmp/old fa2d617
    R=benchmarks/results/share-overread; .venv/bin/python $R/cli_demo.py /tmp/old . > $R/cli_demo.log
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import tempfile
from fractions import Fraction
from pathlib import Path

import torch

from videodenoise.datasets.motion import MotionLimits, camera_motion_clip, load_photo
from videodenoise.io.video import read_video
from videodenoise.io.writers import write_video


def psnr(path: Path, clean: torch.Tensor) -> float:
    frames = read_video(path)
    frames = frames if isinstance(frames, torch.Tensor) else frames[0]
    mse = (frames.float() - clean).square().mean(dim=(1, 2, 3))
    return float((-10 * torch.log10(mse)).mean())


def main() -> None:
    limits = dataclasses.replace(MotionLimits(), pan=16.0)
    clip = camera_motion_clip(load_photo("skimage:gravel"), 20, (240, 320), seed=7, limits=limits)
    clean = (clip * 255).round() / 255
    noise = 25 / 255 * torch.randn(clip.shape, generator=torch.Generator().manual_seed(3))
    with tempfile.TemporaryDirectory() as folder:
        noisy = Path(folder) / "fastpan.mkv"
        write_video(noisy, (clip + noise).clamp(0, 1).mul(255).round().div(255), fps=Fraction(25), codec="ffv1")
        print(f"input: {psnr(noisy, clean):.2f} dB")
        for index, tree in enumerate(sys.argv[1:]):
            out = Path(folder) / f"out-{index}.mkv"
            environment = {**os.environ, "PYTHONPATH": str(Path(tree).resolve())}
            done = subprocess.run(  # run from the tree: `-m` puts the working folder first on the path
                [sys.executable, "-m", "videodenoise", "clean", str(noisy), "-o", str(out)],
                cwd=tree,
                env=environment,
                capture_output=True,
                text=True,
                check=True,
            )
            said = next(line for line in (done.stdout + done.stderr).splitlines() if "noise estimated" in line)
            print(f"{tree}: {psnr(out, clean):.2f} dB\n  {said.split(': ', 1)[1]}")


if __name__ == "__main__":
    main()

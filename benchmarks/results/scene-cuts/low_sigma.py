"""`clean` told σ = 2 by hand (`--sigma 2`, the default preset; and `--no-fusion`, the model alone) on the clips of
`cli_demo.py` without a cut: page's pan, flower's pan, and the cut clip itself, 12 frames at 240×320, Gaussian σ = 2
(seed 3), stored losslessly, and so written by `clean` (FFV1, since 2026-12-07; before, H.264 at CRF 17, whose loss
the first log measured). Printed: the PSNR of the input and of each output against the clean frames. What it shows:
told σ = 2, `clean` gains over the input on every clip, the cut one included.

    .venv/bin/python benchmarks/results/scene-cuts/low_sigma.py > benchmarks/results/scene-cuts/low_sigma.log
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from fractions import Fraction
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cli_demo import CUT, FRAMES, SIZE, psnr  # noqa: E402

from videodenoise.datasets.motion import camera_motion_clip, load_photo  # noqa: E402
from videodenoise.io.writers import write_video  # noqa: E402


def main() -> None:
    page = camera_motion_clip(load_photo("skimage:page"), FRAMES, SIZE, seed=1).expand(-1, 3, -1, -1)
    flower = camera_motion_clip(load_photo("videodenoise:flower"), FRAMES, SIZE, seed=2)
    for name, clip in (("page", page), ("flower", flower), ("page then flower", torch.cat([page[:CUT], flower[CUT:]]))):
        clean = (clip * 255).round() / 255
        noise = 2 / 255 * torch.randn(clip.shape, generator=torch.Generator().manual_seed(3))
        with tempfile.TemporaryDirectory() as folder:
            noisy = Path(folder) / "noisy.mkv"
            write_video(noisy, (clip + noise).clamp(0, 1).mul(255).round().div(255), fps=Fraction(25), codec="ffv1")
            scores = []
            for extra in ([], ["--no-fusion"]):
                out = Path(folder) / "out.mkv"
                command = [sys.executable, "-m", "videodenoise", "clean", str(noisy), "-o", str(out), "--sigma", "2"]
                subprocess.run([*command, *extra, "--overwrite"], capture_output=True, check=True)
                scores.append(psnr(out, clean))
            entry = psnr(noisy, clean)
            print(f"{name}: input {entry:.2f} dB; --sigma 2 {scores[0]:.2f}; with --no-fusion {scores[1]:.2f}")


if __name__ == "__main__":
    main()

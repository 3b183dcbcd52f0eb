"""`videodenoise clean` as a user runs it on footage with a scene cut: 12 frames at 240×320, a camera moving over page
(grey) for frames 0-4 and over flower from frame 5 (the probe's clips: spent, not a benchmark clip), Gaussian σ = 2
(seed 3), stored losslessly. Cleaned with σ auto, then as the warning asks, told a lower σ (`--sigma 2`). Printed: what
`clean` says about the estimate and the warning, and the PSNR of each output and of the input against the clean frames.

    R=benchmarks/results/scene-cuts; .venv/bin/python $R/cli_demo.py > $R/cli_demo.log
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from fractions import Fraction
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from videodenoise.datasets.motion import camera_motion_clip, load_photo  # noqa: E402
from videodenoise.io.video import read_video  # noqa: E402
from videodenoise.io.writers import write_video  # noqa: E402

import bench_quality as quality  # noqa: E402

CUT, FRAMES, SIZE = 5, 12, (240, 320)


def psnr(path: Path, clean: torch.Tensor) -> float:
    frames = read_video(path)
    frames = frames if isinstance(frames, torch.Tensor) else frames[0]
    return quality.measure(frames.numpy(), clean.mul(255).round().to(torch.uint8).numpy())["psnr"]


def main() -> None:
    page = camera_motion_clip(load_photo("skimage:page"), FRAMES, SIZE, seed=1).expand(-1, 3, -1, -1)
    flower = camera_motion_clip(load_photo("videodenoise:flower"), FRAMES, SIZE, seed=2)
    clip = torch.cat([page[:CUT], flower[CUT:]])
    clean = (clip * 255).round() / 255
    noise = 2 / 255 * torch.randn(clip.shape, generator=torch.Generator().manual_seed(3))
    with tempfile.TemporaryDirectory() as folder:
        noisy = Path(folder) / "cut.mkv"
        write_video(noisy, (clip + noise).clamp(0, 1).mul(255).round().div(255), fps=Fraction(25), codec="ffv1")
        print(f"input: {psnr(noisy, clean):.2f} dB")
        for told in ([], ["--sigma", "2"]):
            out = Path(folder) / f"out{len(told)}.mkv"
            command = [sys.executable, "-m", "videodenoise", "clean", str(noisy), "-o", str(out), *told]
            done = subprocess.run(command, capture_output=True, text=True, check=True)
            said = [
                line.strip()
                for line in (done.stdout + done.stderr).splitlines()
                if "noise estimated" in line or "two different pictures" in line or "σ = 2 " in line
            ]
            print(f"clean {' '.join(told) or '(σ auto)'}: {psnr(out, clean):.2f} dB")
            for line in said:
                print(f"  {line.replace(f'{folder}/', '')}")


if __name__ == "__main__":
    main()

"""What `clean`'s output format costs: the same denoised frames stored as `clean` now stores a lossless input's output
(FFV1, `NAME.denoised.mkv`) and as it stored every output before (H.264 at CRF 17, `--format mp4 --crf 17`).

Clips: 12 frames at 240×320 of a camera moving over page (grey), flower and astronaut (`camera_motion_clip`, seeds 1,
2 and 4), Gaussian noise σ = 2, 5, 10 and 25 (seed 3), stored losslessly (FFV1), cleaned by `videodenoise clean` as a
user runs it (σ told, the default preset). Nothing is chosen here, so nothing is held out. Printed per clip and σ: the
PSNR against the clean frames of the input, of `clean`'s default output, of `clean --format mp4`, and of the clean
frames themselves through H.264 at CRF 17 (the codec's own cost on the picture); and each output's kB a frame.

    R=benchmarks/results/lossless-output; .venv/bin/python $R/outputs.py > $R/outputs.log
"""

from __future__ import annotations

import re
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
from _machine import cpu_name  # noqa: E402

FRAMES, SIZE, SIGMAS = 12, (240, 320), (2, 5, 10, 25)
CLIPS = {"page": ("skimage:page", 1), "flower": ("videodenoise:flower", 2), "astronaut": ("skimage:astronaut", 4)}


def psnr(path: Path, clean: torch.Tensor) -> float:
    frames = read_video(path)
    frames = frames if isinstance(frames, torch.Tensor) else frames[0]
    return quality.measure(frames.numpy(), clean.mul(255).round().to(torch.uint8).numpy())["psnr"]


def clean_run(noisy: Path, sigma: int | str, *extra: str) -> Path:
    command = [sys.executable, "-m", "videodenoise", "clean", str(noisy), "--sigma", str(sigma), "--overwrite"]
    done = subprocess.run([*command, *extra], capture_output=True, text=True, check=True)
    (wrote,) = [line for line in done.stdout.splitlines() if line.startswith("wrote ")]
    return Path(re.match(r"wrote (.+?)(?: \(without loss, as its input is stored\))?: \d+ frames", wrote)[1])


def kb_per_frame(path: Path) -> float:
    return path.stat().st_size / FRAMES / 1000


def main() -> None:
    print(f"# {cpu_name()}, torch {torch.__version__}")
    print("clip       σ   input  default (codec, kB/frame)   --format mp4 (kB/frame)   clean frames via H.264")
    for name, (photo, seed) in CLIPS.items():
        clip = camera_motion_clip(load_photo(photo), FRAMES, SIZE, seed=seed)
        clip = clip.expand(-1, 3, -1, -1)
        clean = (clip * 255).round() / 255
        with tempfile.TemporaryDirectory() as folder:
            reference = write_video(Path(folder) / "clean.mp4", clean, fps=Fraction(25), codec="h264", crf=17)
            for sigma in SIGMAS:
                noise = sigma / 255 * torch.randn(clip.shape, generator=torch.Generator().manual_seed(3))
                noisy = Path(folder) / "noisy.mkv"
                frames = (clip + noise).clamp(0, 1).mul(255).round().div(255)
                write_video(noisy, frames, fps=25, codec="ffv1", overwrite=True)
                default = clean_run(noisy, sigma)
                mp4 = clean_run(noisy, sigma, "--format", "mp4", "--crf", "17")
                print(
                    f"{name:9s} {sigma:2d}  {psnr(noisy, clean):6.2f}  {psnr(default, clean):6.2f} "
                    f"({default.suffix}, {kb_per_frame(default):6.1f})        {psnr(mp4, clean):6.2f} "
                    f"({kb_per_frame(mp4):5.1f})            {psnr(reference, clean):6.2f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()

"""What writing `clean`'s output in H.264 costs on footage as a camera delivers it: the benchmark's six held-out clips
(10 frames, 240×320 centre crops) through the camera model's sensor (each level of `CAMERA_PRESETS`), encoded as a
camera would into an H.264 .mp4 at CRF 18, 23 and 28, then cleaned by `videodenoise clean` as a user runs it (σ auto,
the default preset): its default output for such an input (`NAME.denoised.mp4`, H.264 at the default CRF) against the
same run with `--format lossless` (FFV1). Nothing is chosen here, so nothing is held out. Printed per condition: the
mean PSNR over the clips of the input, of each output and their difference, with its lowest and highest over clips.

    R=benchmarks/results/lossless-output; .venv/bin/python $R/camera.py > $R/camera.log  # CRF 17, before 2026-12-07
    .venv/bin/python $R/camera.py > $R/camera-crf10.log  # CRF 10, the default since
"""

from __future__ import annotations

import sys
import tempfile
from fractions import Fraction
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from outputs import clean_run, psnr  # noqa: E402

from videodenoise.io.crf import DEFAULT_CRF  # noqa: E402
from videodenoise.io.writers import write_video  # noqa: E402

import bench_quality as quality  # noqa: E402
import bench_realnoise as realnoise  # noqa: E402
from _machine import cpu_name  # noqa: E402


def camera_file(path: Path, clip: quality.Clip, level: str, crf: int) -> Path:
    """The clip through the camera's sensor (seeded as the real-noise benchmark seeds it), coded by libx264."""
    noise = realnoise.camera_noise(level, "h264", crf)
    seed = realnoise.camera_seed(clip.name, level, "h264", crf)
    frames = torch.from_numpy(clip.frames).float().div(255)
    codes = noise.sensor_codes(frames[None], generator=torch.Generator().manual_seed(seed))[0]
    return write_video(path, codes / 255, fps=Fraction(25), codec="h264", crf=crf)


def main() -> None:
    print(f"# {cpu_name()}, torch {torch.__version__}; clean's default H.264 CRF {DEFAULT_CRF['h264']}")
    clips = quality.build_clips()
    print(f"# clips: {', '.join(clip.name for clip in clips)}")
    print("condition          input   mp4 (default)  lossless   lossless − mp4 (min, max)")
    for level in realnoise.DEFAULT_LEVELS:
        for crf in realnoise.DEFAULT_CRFS:
            scores = []
            for clip in clips:
                clean = torch.from_numpy(clip.frames).float().div(255)
                with tempfile.TemporaryDirectory() as folder:
                    noisy = camera_file(Path(folder) / f"{clip.name}.mp4", clip, level, crf)
                    default, lossless = clean_run(noisy, "auto"), clean_run(noisy, "auto", "--format", "lossless")
                    assert default.suffix == ".mp4" and lossless.suffix == ".mkv"
                    scores.append([psnr(noisy, clean), psnr(default, clean), psnr(lossless, clean)])
            entry, mp4, kept = np.array(scores).T
            gain = kept - mp4
            print(
                f"{level:6s} h264 crf{crf}  {entry.mean():6.2f}  {mp4.mean():6.2f}         {kept.mean():6.2f}"
                f"     {gain.mean():+.2f} ({gain.min():+.2f}, {gain.max():+.2f})",
                flush=True,
            )


if __name__ == "__main__":
    main()

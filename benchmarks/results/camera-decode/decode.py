"""Does the benchmark's camera noise read as a camera's file reads? The camera model (`noise/camera.py`) codes its
frames through libx264 and decodes them itself, upsampling the chroma bilinearly; `clean` reads a file through PyAV,
whose conversion to RGB (libswscale's fast path) repeats each chroma sample over its 2×2 pixels. The twelve validation
clips (8 frames, 240×320) at three camera conditions: the same sensor codes (`CameraNoise.sensor_codes`, the
benchmark's seeds) (a) through the camera model's codec step, as `bench_realnoise.py` and training see them, and (b)
written by `VideoWriter` as an H.264 file at the condition's CRF and read back by `read_video`, as `clean` sees a
camera's file. Each denoised in memory as `clean` does by default (σ auto). Printed per condition: the mean PSNR of the
input and of the output for (a) and (b), and the output's difference (b − a) with its lowest and highest over clips.

    R=benchmarks/results/camera-decode; .venv/bin/python $R/decode.py > $R/decode.log
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import validation_sweep as validation  # noqa: E402

from videodenoise.io.video import read_video  # noqa: E402
from videodenoise.io.writers import write_video  # noqa: E402
from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT  # noqa: E402
from videodenoise.noise.estimation import estimate_clip_noise  # noqa: E402

import bench_quality as quality  # noqa: E402
import bench_realnoise as realnoise  # noqa: E402
from _machine import cpu_name  # noqa: E402

FRAMES = 8
CONDITIONS = (("light", 18), ("medium", 23), ("heavy", 28))


def as_file(clip: quality.Clip, level: str, crf: int, folder: Path) -> torch.Tensor:
    """The clip's sensor codes (the benchmark's seed) as a camera's H.264 file, read as `clean` reads it."""
    noise = realnoise.camera_noise(level, "h264", crf)
    generator = torch.Generator().manual_seed(realnoise.camera_seed(clip.name, level, "h264", crf))
    codes = noise.sensor_codes(torch.from_numpy(clip.frames).float()[None] / 255, generator=generator)[0]
    frames = read_video(write_video(folder / "camera.mp4", codes / 255, fps=25, codec="h264", crf=crf))
    return frames if isinstance(frames, torch.Tensor) else frames[0]


def main() -> None:
    print(f"# {cpu_name()}, {torch.get_num_threads()} threads; {FRAMES} frames")
    clips = quality.build_clips(validation.VALIDATION_CLIPS, FRAMES, quality.DEFAULT_SIZE)
    print(f"# clips: {', '.join(clip.name for clip in clips)}")
    denoiser = quality.load_denoiser(DEFAULT_CHECKPOINT, {})
    print("| condition | (a) model's decode: input, output | (b) file via PyAV: input, output | b − a (min, max) |")
    print("|---|---:|---:|---:|")
    for level, crf in CONDITIONS:
        rows = []
        for clip in clips:
            model = torch.from_numpy(realnoise.camera_draw(clip, level, "h264", crf)).float() / 255
            with tempfile.TemporaryDirectory() as folder:
                read = as_file(clip, level, crf, Path(folder))
            row = []
            for noisy in (model, read):
                out = denoiser.denoise_clip(noisy, estimate_clip_noise(noisy)).clamp(0, 1)
                row += [quality.measure(x.numpy(), clip.frames)["psnr"] for x in (noisy, out)]
            rows.append(row)
        a_in, a_out, b_in, b_out = np.mean(rows, axis=0)
        gap = np.array(rows)[:, 3] - np.array(rows)[:, 1]
        print(
            f"| {level} h264 crf{crf} | {a_in:.2f}, {a_out:.2f} | {b_in:.2f}, {b_out:.2f} | "
            f"{gap.mean():+.2f} ({gap.min():+.2f}, {gap.max():+.2f}) |",
            flush=True,
        )


if __name__ == "__main__":
    main()

"""What the H.264 output's CRF costs `clean`'s output on camera footage, on the validation clips (the plan and rule in
README.md, committed before the run).

    R=benchmarks/results/output-crf; .venv/bin/python $R/crf.py > $R/crf.log
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

FRAMES = 24
CRFS = (17, 14, 12, 10, 8, 6)
FLOOR = 0  # x264 lossless on the YUV pictures: what is left is the RGB → 4:2:0 YUV → RGB round trip
BUDGET_DB = 0.15  # above the floor


def written(frames: torch.Tensor, crf: int, folder: Path) -> tuple[np.ndarray, float]:
    """The frames (in [0, 1]) as `clean` writes them at `crf`, decoded (in [0, 1]), and the file's kB a frame."""
    path = write_video(folder / f"out{crf}.mp4", frames, fps=25, codec="h264", crf=crf, overwrite=True)
    decoded = read_video(path)
    decoded = decoded if isinstance(decoded, torch.Tensor) else decoded[0]
    return decoded.numpy(), path.stat().st_size / len(frames) / 1000


def main() -> None:
    print(f"# {cpu_name()}, {torch.get_num_threads()} threads, torch {torch.__version__}")
    clips = quality.build_clips(validation.VALIDATION_CLIPS, FRAMES, quality.DEFAULT_SIZE)
    print(f"# clips: {', '.join(clip.name for clip in clips)}; {FRAMES} frames")
    denoiser = quality.load_denoiser(DEFAULT_CHECKPOINT, {})
    tried = (*CRFS, FLOOR)
    header = " | ".join(f"CRF {crf}: mean loss, worst, kB/frame" for crf in tried)
    print(f"| condition | input kB/frame | {header} |")
    print("|---|---:|" + "---:|" * len(tried))
    passing = set(CRFS)
    for level, crf_in in validation.camera_conditions("h264"):
        losses = {crf: [] for crf in tried}
        sizes = {crf: [] for crf in tried}
        inputs = []
        for clip in clips:
            noisy = torch.from_numpy(realnoise.camera_draw(clip, level, "h264", crf_in)).float() / 255
            denoised = denoiser.denoise_clip(noisy, estimate_clip_noise(noisy)).clamp(0, 1)
            frames = torch.from_numpy(quality.to_uint8(denoised)).float() / 255  # the 8 bits a file holds
            kept = quality.measure(frames.numpy(), clip.frames)["psnr"]
            with tempfile.TemporaryDirectory() as folder:
                inputs.append(written(noisy, crf_in, Path(folder))[1])
                for crf in tried:
                    decoded, size = written(frames, crf, Path(folder))
                    losses[crf].append(kept - quality.measure(decoded, clip.frames)["psnr"])
                    sizes[crf].append(size)
        floor = float(np.mean(losses[FLOOR]))
        cells = []
        for crf in tried:
            mean = float(np.mean(losses[crf]))
            if crf != FLOOR and mean - floor > BUDGET_DB:
                passing.discard(crf)
            cells.append(f"{mean:.2f}, {max(losses[crf]):.2f}, {np.mean(sizes[crf]):.1f}")
        condition = realnoise.condition_name(level, "h264", crf_in)
        print(f"| {condition} | {np.mean(inputs):.1f} | " + " | ".join(cells) + " |", flush=True)
    chosen = max(passing) if passing else min(CRFS)
    print(
        f"within {BUDGET_DB} dB of CRF {FLOOR}'s loss at every condition: {sorted(passing) or 'none'}; "
        f"chosen: CRF {chosen}"
    )


if __name__ == "__main__":
    main()

"""Where lossless x264's loss on `clean`'s output comes from: the chroma. The twelve validation clips (8 frames,
240×320) through the camera model at light noise and H.264 CRF 18 (the condition with the largest loss in
`crf.log`), denoised in memory as `clean` does by default; the 8-bit frames then written by `VideoWriter` in 4:2:0 (what
`clean` writes for a 4:2:0 input) and in 4:4:4 (what it writes for a 4:4:4 one), each at CRF 0, 10 and 17, decoded,
and scored against the clean frames. Printed per clip and mean: the loss against the frames unwritten.

    R=benchmarks/results/output-crf; .venv/bin/python $R/floor.py > $R/floor.log
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import validation_sweep as validation  # noqa: E402

from videodenoise.io.readers import VideoProperties  # noqa: E402
from videodenoise.io.video import read_video  # noqa: E402
from videodenoise.io.writers import write_video  # noqa: E402
from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT  # noqa: E402
from videodenoise.noise.estimation import estimate_clip_noise  # noqa: E402

import bench_quality as quality  # noqa: E402
import bench_realnoise as realnoise  # noqa: E402
from _machine import cpu_name  # noqa: E402

FRAMES = 8
ARMS = [(chroma, crf) for chroma in ("4:2:0", "4:4:4") for crf in (0, 10, 17)]
SUBSAMPLING = {"4:2:0": (2, 2), "4:4:4": (1, 1)}


def decoded(frames: torch.Tensor, chroma: str, crf: int, folder: Path) -> np.ndarray:
    properties = VideoProperties(chroma=SUBSAMPLING[chroma])
    path = write_video(folder / "out.mp4", frames, fps=25, codec="h264", crf=crf, properties=properties, overwrite=True)
    out = read_video(path)
    return (out if isinstance(out, torch.Tensor) else out[0]).numpy()


def main() -> None:
    print(f"# {cpu_name()}, {torch.get_num_threads()} threads; light h264 crf18, {FRAMES} frames")
    clips = quality.build_clips(validation.VALIDATION_CLIPS, FRAMES, quality.DEFAULT_SIZE)
    denoiser = quality.load_denoiser(DEFAULT_CHECKPOINT, {})
    print("| clip | in memory | " + " | ".join(f"{chroma} CRF {crf}" for chroma, crf in ARMS) + " |")
    print("|---|---:|" + "---:|" * len(ARMS))
    losses = []
    for clip in clips:
        noisy = torch.from_numpy(realnoise.camera_draw(clip, "light", "h264", 18)).float() / 255
        denoised = denoiser.denoise_clip(noisy, estimate_clip_noise(noisy)).clamp(0, 1)
        frames = torch.from_numpy(quality.to_uint8(denoised)).float() / 255
        kept = quality.measure(frames.numpy(), clip.frames)["psnr"]
        with tempfile.TemporaryDirectory() as folder:
            row = [kept - quality.measure(decoded(frames, *arm, Path(folder)), clip.frames)["psnr"] for arm in ARMS]
        losses.append(row)
        print(f"| {clip.name} | {kept:.2f} | " + " | ".join(f"{loss:.2f}" for loss in row) + " |", flush=True)
    print("| mean loss | | " + " | ".join(f"**{loss:.2f}**" for loss in np.mean(losses, axis=0)) + " |")


if __name__ == "__main__":
    main()

"""Which frame decides the gamma's step on each clip the project measures on, and how much of it the skew test
reads from (the share of its values in the bins S is read from): `clean --sigma auto` (the shipped default, the
fast preset) on the real-noise benchmark's draws (5 frames, every level and CRF) of the benchmark's held-out clips
and of the validation clips, the skew test's calls recorded. Checks that deferring the decision to the first
frame that can tell (`camera_bias.MIN_SHARE`) leaves it with the first frame on all of them, so that every
measurement made before is the code's as it is.

    .venv/bin/python benchmarks/results/camera-gamma/first_frame_share.py > benchmarks/results/camera-gamma/first_frame_share.log
"""

import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_quality as quality  # noqa: E402
import bench_realnoise as realnoise  # noqa: E402
from _machine import cpu_name  # noqa: E402
from validation_sweep import VALIDATION_CLIPS  # noqa: E402

from videodenoise.denoise import camera_bias  # noqa: E402
from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT  # noqa: E402

VALIDATION = ",".join(VALIDATION_CLIPS)

calls: list[tuple[float, float]] = []
skew_ratio = camera_bias.skew_ratio
camera_bias.skew_ratio = lambda noisy, output: calls.append(skew_ratio(noisy, output)) or calls[-1]

denoiser = quality.load_denoiser(DEFAULT_CHECKPOINT, {})
names = quality.available_clip_names() + VALIDATION.split(",")
clips = quality.build_clips(names, 5, quality.DEFAULT_SIZE)
conditions = [(level, crf) for level in realnoise.DEFAULT_LEVELS for crf in realnoise.DEFAULT_CRFS]
print(f"share of the deciding frame read (S; frame if not the first); {cpu_name()}, {torch.get_num_threads()} threads")
print("| clip | " + " | ".join(f"{level} {crf}" for level, crf in conditions) + " |")
print("|---|" + "---:|" * len(conditions))
lowest, later = (1.0, ""), 0
for clip in clips:
    cells = []
    for level, crf in conditions:
        calls.clear()
        noisy = torch.from_numpy(realnoise.camera_draw(clip, level, "h264", crf)).float().div_(255)
        denoiser.denoise_clip(noisy, sigma="auto")
        skew, share = calls[-1]
        later += len(calls) > 1
        lowest = min(lowest, (calls[0][1], f"{clip.name}, {level} CRF {crf}"))
        cells.append(f"{share:.2f} ({skew:.2f})" + (f" frame {len(calls)}" if len(calls) > 1 else ""))
    print(f"| {clip.name} | " + " | ".join(cells) + " |", flush=True)
print(f"first frame's lowest share: {lowest[0]:.3f} ({lowest[1]}); MIN_SHARE {camera_bias.MIN_SHARE}")
print(f"clip-conditions decided after the first frame: {later} of {len(clips) * len(conditions)}")

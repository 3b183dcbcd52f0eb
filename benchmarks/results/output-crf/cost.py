"""What the lower CRF costs in time: `VideoWriter` writing the same 1920×1080 frames (a camera pan over a photograph,
30 frames, with light Gaussian noise then smoothed a little, as a denoised picture is) in H.264 at CRF 17 and CRF 10,
alternating, three times each, in one run. Printed: seconds a frame and kB a frame for each, and their ratios.

    R=benchmarks/results/output-crf; .venv/bin/python $R/cost.py > $R/cost.log
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from videodenoise.datasets.motion import camera_motion_clip, load_photo  # noqa: E402
from videodenoise.io.writers import write_video  # noqa: E402

from _machine import cpu_name  # noqa: E402

FRAMES, SIZE, REPEATS = 30, (1080, 1920), 3


def main() -> None:
    print(f"# {cpu_name()}, {torch.get_num_threads()} threads; {FRAMES} frames at {SIZE[1]}×{SIZE[0]}")
    clip = camera_motion_clip(load_photo("skimage:astronaut"), FRAMES, SIZE, seed=4)
    noisy = clip + 3 / 255 * torch.randn(clip.shape, generator=torch.Generator().manual_seed(0))
    frames = torch.nn.functional.avg_pool2d(noisy, 3, stride=1, padding=1, count_include_pad=False).clamp(0, 1)
    seconds = {17: [], 10: []}
    sizes = {}
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(REPEATS):
            for crf in seconds:
                start = time.perf_counter()
                path = write_video(Path(folder) / f"{crf}.mp4", frames, fps=25, crf=crf, overwrite=True)
                seconds[crf].append((time.perf_counter() - start) / FRAMES)
                sizes[crf] = path.stat().st_size / FRAMES / 1000
    for crf, times in seconds.items():
        print(
            f"CRF {crf}: {min(times):.3f} s a frame (best of {REPEATS}; all {', '.join(f'{t:.3f}' for t in times)}), "
            f"{sizes[crf]:.0f} kB a frame"
        )
    print(f"CRF 10 / CRF 17: time {min(seconds[10]) / min(seconds[17]):.2f}×, size {sizes[10] / sizes[17]:.2f}×")


if __name__ == "__main__":
    main()

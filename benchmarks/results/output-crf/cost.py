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


def denoised_frames(bits: int = 8) -> torch.Tensor:
    """A camera pan over a photograph at 1920×1080, with light Gaussian noise then smoothed a little, as a denoised
    picture is; rounded to `bits`."""
    clip = camera_motion_clip(load_photo("skimage:astronaut"), FRAMES, SIZE, seed=4)
    noisy = clip + 3 / 255 * torch.randn(clip.shape, generator=torch.Generator().manual_seed(0))
    frames = torch.nn.functional.avg_pool2d(noisy, 3, stride=1, padding=1, count_include_pad=False).clamp(0, 1)
    levels = (1 << bits) - 1
    return (frames * levels).round() / levels


def timed_writes(frames: torch.Tensor, arms: dict[str, dict]) -> tuple[dict[str, float], dict[str, float]]:
    """Each arm (name: `write_video`'s keyword arguments) written alternately, REPEATS times; printed, and returned:
    the best seconds a frame and the kB a frame."""
    seconds = {name: [] for name in arms}
    sizes = {}
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(REPEATS):
            for name, options in arms.items():
                start = time.perf_counter()
                path = write_video(Path(folder) / "out.mp4", frames, fps=25, overwrite=True, **options)
                seconds[name].append((time.perf_counter() - start) / FRAMES)
                sizes[name] = path.stat().st_size / FRAMES / 1000
    for name, times in seconds.items():
        print(
            f"{name}: {min(times):.3f} s a frame (best of {REPEATS}; all {', '.join(f'{t:.3f}' for t in times)}), "
            f"{sizes[name]:.0f} kB a frame"
        )
    return {name: min(times) for name, times in seconds.items()}, sizes


def main() -> None:
    print(f"# {cpu_name()}, {torch.get_num_threads()} threads; {FRAMES} frames at {SIZE[1]}×{SIZE[0]}")
    best, sizes = timed_writes(denoised_frames(), {"CRF 17": {"crf": 17}, "CRF 10": {"crf": 10}})
    time_ratio, size_ratio = best["CRF 10"] / best["CRF 17"], sizes["CRF 10"] / sizes["CRF 17"]
    print(f"CRF 10 / CRF 17: time {time_ratio:.2f}×, size {size_ratio:.2f}×")


if __name__ == "__main__":
    main()

"""What HEVC costs in time against the H.264 it replaces for 10-bit inputs: `VideoWriter` writing the same 1920×1080
frames at 10 bits (a camera pan over a photograph, 30 frames, light Gaussian noise then smoothed a little, as a denoised
picture is) in H.264 High 10 and HEVC Main 10, each at its default CRF, alternating, three times each, in one run.
Printed: seconds a frame and kB a frame for each, and their ratios.

    R=benchmarks/results/output-crf-h265; .venv/bin/python $R/cost.py > $R/cost.log
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from videodenoise.datasets.motion import camera_motion_clip, load_photo  # noqa: E402
from videodenoise.io.crf import DEFAULT_CRF  # noqa: E402
from videodenoise.io.readers import VideoProperties  # noqa: E402
from videodenoise.io.writers import write_video  # noqa: E402

from _machine import cpu_name  # noqa: E402

FRAMES, SIZE, REPEATS = 30, (1080, 1920), 3


def main() -> None:
    print(f"# {cpu_name()}, {torch.get_num_threads()} threads; {FRAMES} frames at {SIZE[1]}×{SIZE[0]}, 10 bits")
    clip = camera_motion_clip(load_photo("skimage:astronaut"), FRAMES, SIZE, seed=4)
    noisy = clip + 3 / 255 * torch.randn(clip.shape, generator=torch.Generator().manual_seed(0))
    frames = torch.nn.functional.avg_pool2d(noisy, 3, stride=1, padding=1, count_include_pad=False).clamp(0, 1)
    frames = (frames * 1023).round() / 1023
    seconds = {"h264": [], "h265": []}
    sizes = {}
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(REPEATS):
            for codec in seconds:
                start = time.perf_counter()
                path = Path(folder) / f"{codec}.mp4"
                write_video(path, frames, fps=25, codec=codec, properties=VideoProperties(bit_depth=10), overwrite=True)
                seconds[codec].append((time.perf_counter() - start) / FRAMES)
                sizes[codec] = path.stat().st_size / FRAMES / 1000
    for codec, times in seconds.items():
        print(
            f"{codec} at CRF {DEFAULT_CRF[codec]}: {min(times):.3f} s a frame (best of {REPEATS}; all "
            f"{', '.join(f'{t:.3f}' for t in times)}), {sizes[codec]:.0f} kB a frame"
        )
    time_ratio, size_ratio = min(seconds["h265"]) / min(seconds["h264"]), sizes["h265"] / sizes["h264"]
    print(f"HEVC / H.264: time {time_ratio:.2f}×, size {size_ratio:.2f}×")


if __name__ == "__main__":
    main()

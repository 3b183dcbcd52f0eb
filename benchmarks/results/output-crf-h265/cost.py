"""What HEVC costs in time against the H.264 it replaces for 10-bit inputs: `VideoWriter` writing the same 1920×1080
frames at 10 bits (a camera pan over a photograph, 30 frames, light Gaussian noise then smoothed a little, as a denoised
picture is) in H.264 High 10 and HEVC Main 10, each at its default CRF, alternating, three times each, in one run.
Printed: seconds a frame and kB a frame for each, and their ratios.

    R=benchmarks/results/output-crf-h265; .venv/bin/python $R/cost.py > $R/cost.log
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "output-crf"))
from cost import FRAMES, SIZE, denoised_frames, timed_writes  # noqa: E402

from videodenoise.io.crf import DEFAULT_CRF  # noqa: E402
from videodenoise.io.readers import VideoProperties  # noqa: E402

from _machine import cpu_name  # noqa: E402


def main() -> None:
    print(f"# {cpu_name()}, {torch.get_num_threads()} threads; {FRAMES} frames at {SIZE[1]}×{SIZE[0]}, 10 bits")
    ten_bits = VideoProperties(bit_depth=10)
    arms = {f"{c} at CRF {DEFAULT_CRF[c]}": {"codec": c, "properties": ten_bits} for c in ("h264", "h265")}
    best, sizes = timed_writes(denoised_frames(bits=10), arms)
    (h264, h265) = arms
    print(f"HEVC / H.264: time {best[h265] / best[h264]:.2f}×, size {sizes[h265] / sizes[h264]:.2f}×")


if __name__ == "__main__":
    main()

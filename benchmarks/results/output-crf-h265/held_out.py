"""The chosen HEVC CRF on the benchmark's six held-out clips, once, to report (nothing is chosen here): the same
measure as `crf.py` (camera footage at the nine conditions, denoised in memory as `clean` does, rounded to 10 bits,
written as `clean` writes a 10-bit input's), for HEVC at its default CRF, H.264 High 10 at its own (what `clean` wrote
before), and lossless H.264.

    R=benchmarks/results/output-crf-h265; .venv/bin/python $R/held_out.py > $R/held_out.log
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from crf import FLOOR, FRAMES, TODAY, sweep  # noqa: E402

from videodenoise.io.crf import DEFAULT_CRF  # noqa: E402
from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT  # noqa: E402

import bench_quality as quality  # noqa: E402
from _machine import cpu_name  # noqa: E402


def main() -> None:
    print(f"# {cpu_name()}, {torch.get_num_threads()} threads, torch {torch.__version__}")
    clips = quality.build_clips(frames=FRAMES)
    print(f"# held-out clips: {', '.join(clip.name for clip in clips)}; {FRAMES} frames")
    sweep(quality.load_denoiser(DEFAULT_CHECKPOINT, {}), clips, [("h265", DEFAULT_CRF["h265"]), TODAY, FLOOR])


if __name__ == "__main__":
    main()

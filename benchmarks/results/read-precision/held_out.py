"""What the reader's conversion moves in the README's held-out quality table: only the two clips read from files
(bikes and carphone; the pans are made in memory) change, their clean frames and so everything scored on them.
`bench_quality.py` on those two clips (5 frames, σ = 0, 2, 10, 25, the default preset with σ auto, and the input),
with the reader converting by ARM (`default`: libswscale's default path, as before 2026-12-07; any other: the flags
of `arms.py`'s arm of that name).

    R=benchmarks/results/read-precision
    for ARM in default bicubic; do .venv/bin/python $R/held_out.py $ARM; done    # → held-out-ARM/
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE))
from arms import ARMS  # noqa: E402

from videodenoise.io import pyav_reader  # noqa: E402

import bench_quality as quality  # noqa: E402


def main() -> int:
    arm = sys.argv[1]
    pyav_reader.RGB_CONVERSION = ARMS[arm]
    checkpoint = "videodenoise/checkpoints/dust-video.safetensors"
    return quality.main(
        ["--frames", "5", "--sigmas", "0,2,10,25", "--clips", "bikes,carphone", "--methods", "noisy,models"]
        + ["--modes", "auto", "--checkpoint", f"fast={checkpoint}", "--out", str(HERE / f"held-out-{arm}")]
    )


if __name__ == "__main__":
    sys.exit(main())

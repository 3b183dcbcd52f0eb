"""The real-noise benchmark's run of the shipped default with the fit's lift, for the README's table: its six held-out
clips, 5 frames, every level and CRF, the default alone (ffmpeg's filters and the σ sweep come from earlier runs on
the same noisy frames); `presets`: the balanced and best presets (as camera-gamma/held_out.py ran them); then merged
with them. The merge's command:

    .venv/bin/python benchmarks/results/codec-lift/benchmark.py [presets]
    .venv/bin/python benchmarks/bench_realnoise.py --from-csv benchmarks/results/realnoise/realnoise.csv \
        --from-csv benchmarks/results/fftdnoiz/held-out/realnoise.csv \
        --from-csv benchmarks/results/camera-gamma/held-out/camera-gamma/realnoise.csv \
        --from-csv benchmarks/results/codec-lift/held-out/codec-lift/realnoise.csv \
        --from-csv benchmarks/results/codec-lift/held-out/codec-lift-presets/realnoise.csv \
        --noisy-tolerance 0.03 --merged-out benchmarks/results/codec-lift/held-out/merged
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

import bench_realnoise  # noqa: E402

from videodenoise.denoise import camera_bias  # noqa: E402
from videodenoise.denoise.settings import PRESET_WEIGHTS  # noqa: E402
from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT, shipped_checkpoint  # noqa: E402

camera_bias.LIFT_CLIPPING = False  # as run, before clipping-lift (the clipping's correction reading the curve as measured)
if sys.argv[1:] == ["presets"]:  # as camera-gamma/held_out.py ran them: best without its calibration
    name = "codec-lift-presets"
    models = ["--checkpoint", f"balanced={DEFAULT_CHECKPOINT},quality=balanced", "--checkpoint"]
    models.append(f"best={shipped_checkpoint(PRESET_WEIGHTS['best'])},quality=best,calibrate=off")
else:
    name, models = "codec-lift", ["--checkpoint", f"codec-lift={DEFAULT_CHECKPOINT}"]
# the models alone: every comparator left out (ffmpeg's filters and the σ sweep are merged from earlier runs)
skip = ",".join(bench_realnoise.SKIPPABLE)
bench_realnoise.main(["--frames", "5", "--skip", skip, *models, "--out", str(HERE / "held-out" / name)])

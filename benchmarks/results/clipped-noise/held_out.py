"""The held-out runs of README.md, once the rule had decided, each with the change on and off (`CLIPPED_NOISE`, set
in this process): the quality benchmark's six held-out clips under Gaussian noise (σ = 0, 2, 5, 10, 25; σ auto),
the real-noise benchmark's nine camera conditions on its six held-out clips, and those clips underexposed 8× and
32× (validation_sweep's conditions, its table, on the benchmark's clips: this script lifts its refusal of them,
for this one run after the decision).

    .venv/bin/python benchmarks/results/clipped-noise/held_out.py                 # all, or name some of:
    .venv/bin/python benchmarks/results/clipped-noise/held_out.py gaussian camera dark-0.125 dark-0.03125
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_quality  # noqa: E402
import bench_realnoise  # noqa: E402
import validation_sweep  # noqa: E402

from videodenoise.noise import clipped_bins  # noqa: E402

OUT = ROOT / "benchmarks/results/clipped-noise/held-out"
SKIP = "sigma-sweep,one-sigma,nlm-opencv,cbm3d,dctdnoiz,nlmeans,atadenoise,bm3d,fftdnoiz,fftdnoiz-temporal"
WEIGHTS = str(ROOT / "videodenoise/checkpoints/dust-video.safetensors")
HELD_OUT = ",".join(bench_quality.available_clip_names())

for run in sys.argv[1:] or ["gaussian", "camera", "dark-0.125", "dark-0.03125"]:
    if run.startswith("dark-"):
        validation_sweep.validation_clip_names = lambda clips: clips.split(",")  # the held-out clips, this once
        knob = ["--knob", "noise.clipped_bins.CLIPPED_NOISE=0,1", "--no-rule", "--clips", HELD_OUT]
        validation_sweep.main([*knob, "--exposure", run.removeprefix("dark-")])
        continue
    for switch in (False, True):
        clipped_bins.CLIPPED_NOISE = switch
        name = f"{run}-{'on' if switch else 'off'}"
        checkpoint = ["--checkpoint", f"{name}={WEIGHTS}", "--out", str(OUT / name)]
        if run == "camera":
            bench_realnoise.main(["--frames", "5", "--skip", SKIP, *checkpoint])
        else:
            common = ["--frames", "5", "--methods", "noisy,models", "--modes", "auto", "--sigmas", "0,2,5,10,25"]
            bench_quality.main([*common, *checkpoint])

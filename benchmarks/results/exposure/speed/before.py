"""bench_clean.py part 1 with the `fast` preset as it was before this change (radius 2, direct flows, exposure as
is), for a before/after on one machine: python benchmarks/results/exposure/speed/before.py (repository root)."""

import dataclasses
import runpy
import sys

import videodenoise.denoise.settings as settings

settings.PRESETS["fast"] = dataclasses.replace(settings.PRESETS["fast"], fusion=settings.FusionSettings())
sys.path.insert(0, "benchmarks")
sys.argv = ["bench_clean.py", "--parts", "1"]
runpy.run_path("benchmarks/bench_clean.py", run_name="__main__")

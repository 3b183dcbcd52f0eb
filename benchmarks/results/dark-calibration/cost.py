"""What calibrating dark footage costs `clean`: a validation pan (ascent) of 30 frames, 320×240, darkened 8×, with
the camera model's heavy noise and no codec (where calibration runs), written as FFV1 and cleaned by the fast preset
with `calibrate_dark` on and off, 2 threads, in turns, twice each; the seconds and the told scale.

    .venv/bin/python benchmarks/results/dark-calibration/cost.py > benchmarks/results/dark-calibration/cost.log
"""

import dataclasses
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from videodenoise.denoise.denoiser import Denoiser  # noqa: E402
from videodenoise.denoise.pipeline import denoise_video  # noqa: E402
from videodenoise.denoise.settings import PRESETS  # noqa: E402
from videodenoise.io.writers import write_video  # noqa: E402

import bench_quality as quality  # noqa: E402
import bench_realnoise as realnoise  # noqa: E402
from _machine import cpu_name  # noqa: E402

torch.set_num_threads(2)
clip = quality.underexposed(quality.build_clips(["ascent-pan"], 30, quality.DEFAULT_SIZE)[0], 0.125)
noisy = torch.from_numpy(realnoise.camera_draw(clip, "heavy", "none", None)).float() / 255
folder = Path(tempfile.mkdtemp())
source = write_video(folder / "night.mkv", noisy, fps=Fraction(25), codec="ffv1")
denoisers = {
    switch: Denoiser.from_checkpoint(None, dataclasses.replace(PRESETS["fast"], calibrate_dark=switch))
    for switch in (False, True)
}
print(f"ascent-pan ×1/8, heavy camera noise, no codec, 30 frames 320×240; `clean` fast; {cpu_name()}, 2 threads")
told = []
for run in range(2):
    for switch, denoiser in denoisers.items():
        start = time.perf_counter()
        result = denoise_video(
            source, folder / "out.mkv", denoiser, sigma="auto", overwrite=True, on_sigma=lambda s, how: told.append(s)
        )
        seconds = time.perf_counter() - start
        print(
            f"run {run + 1}, calibrate_dark {'on ' if switch else 'off'}: {seconds:.1f} s for {result.frames} frames, "
            f"told × {told[-1].told_scale:g}",
            flush=True,
        )

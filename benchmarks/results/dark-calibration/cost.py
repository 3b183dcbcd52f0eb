"""What calibrating dark footage costs `clean`: two validation pans (ascent, a grey picture in a colour file;
flower, colour) of 30 frames, 320×240, darkened 8×, with the camera model's heavy noise and no codec (where
calibration runs), written as FFV1 and cleaned by the fast preset with `calibrate_dark` on and off, 2 threads, in turns, twice each; the seconds, the part
`clean` reports as choosing the told σ, and the told scale.

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
denoisers = {
    switch: Denoiser.from_checkpoint(None, dataclasses.replace(PRESETS["fast"], calibrate_dark=switch))
    for switch in (False, True)
}
folder = Path(tempfile.mkdtemp())
print(f"30 frames 320×240 darkened 8×, heavy camera noise, no codec; `clean` fast; {cpu_name()}, 2 threads")
told = []
for name in ("ascent-pan", "flower-pan"):
    clip = quality.underexposed(quality.build_clips([name], 30, quality.DEFAULT_SIZE)[0], 0.125)
    noisy = torch.from_numpy(realnoise.camera_draw(clip, "heavy", "none", None)).float() / 255
    source = write_video(folder / f"{name}.mkv", noisy, fps=Fraction(25), codec="ffv1")
    for run in range(2):
        for switch, denoiser in denoisers.items():
            start = time.perf_counter()
            result = denoise_video(
                source, folder / "out.mkv", denoiser, sigma="auto", overwrite=True, on_sigma=lambda s, _: told.append(s)
            )
            seconds = time.perf_counter() - start
            print(
                f"{name}, run {run + 1}, calibrate_dark "
                f"{'on ' if switch else 'off'}: {seconds:.1f} s for {result.frames} frames, of it choosing the told σ "
                f"{result.calibration_seconds:.1f} s; told × {told[-1].told_scale:g}",
                flush=True,
            )

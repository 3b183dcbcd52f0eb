"""What recording σ auto's camera-step decision in the pieces' job.json saves a run that goes on after an interruption.

bikes' 250 frames at 640×272 forward, then 150 backward (400 frames), divided by --darken, with Gaussian noise of
σ = --sigma (seed 0), stored losslessly; `clean` as the command runs it (fast preset, σ auto, H.264 out), stopped after
260 frames (a piece of 250 kept). The same pieces are then gone on from, twice in turns: as the job file records them
(the decision taken up), and with the decision struck from it (decided again on the video's first frames, as every run
did before it was recorded). Both must write the same file. The saving is where the decision comes late: footage with
no noise to read (bikes as it comes, the default) tells on no frame, and the step is off after MAX_WAIT frames.

    .venv/bin/python benchmarks/results/pieces/camera_record.py                       # camera_record.log
    .venv/bin/python benchmarks/results/pieces/camera_record.py --darken 8 --sigma 3  # camera_record-dark8.log
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import bench_clean as bench  # noqa: E402

import videodenoise.denoise.pipeline as pipeline  # noqa: E402
from videodenoise.datasets.samples import fetch_sample_clips  # noqa: E402
from videodenoise.denoise.settings import PRESETS  # noqa: E402
from videodenoise.io.pieces import pieces_folder  # noqa: E402

from _machine import cpu_name  # noqa: E402

STOP = 260


class Stopped(Exception):
    pass


def stop_at(done: int, total: int) -> None:
    if done == STOP:
        raise Stopped


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--darken", type=float, default=1)
    parser.add_argument("--sigma", type=float, default=0)
    args = parser.parse_args()
    print(f"machine: {cpu_name()}; {torch.get_num_threads()} torch threads; fast preset, σ auto, H.264 out")
    forward = bench.load_clip(fetch_sample_clips()["bikes"], 250) / args.darken
    clean = np.concatenate([forward, forward[::-1][:150]])
    noisy = bench.add_noise(clean, args.sigma)
    print(f"darkened {args.darken:g}×, Gaussian noise σ = {args.sigma:g} (seed 0)")
    denoiser, described = bench.make_denoiser(None, PRESETS["fast"])
    print(f"{len(clean)} frames of {clean.shape[2]}×{clean.shape[1]}, mean level {clean.mean():.1f}; {described}")
    with tempfile.TemporaryDirectory() as folder:
        source = bench.write_lossless(Path(folder) / "night.mkv", noisy)
        output = Path(folder) / "night.mp4"
        try:
            pipeline.denoise_video(source, output, denoiser, "auto", progress=stop_at)
        except Stopped:
            pass
        pieces = pieces_folder(output)
        job = json.loads((pieces / "job.json").read_text())
        print(f"stopped after {STOP} frames; kept {sum(p['frames'] for p in job['pieces']['output'])} in pieces;")
        print(f"  the camera step as recorded: {job['notes'].get('camera_gamma')}")
        kept = Path(folder) / "kept"
        shutil.copytree(pieces, kept)
        files, times = {}, {"recorded": [], "struck": []}
        for repeat in range(2):
            for arm in times:
                shutil.rmtree(pieces, ignore_errors=True)
                shutil.copytree(kept, pieces)
                if arm == "struck":
                    (pieces / "job.json").write_text(json.dumps(job | {"notes": {}}))
                start = time.perf_counter()
                result = pipeline.denoise_video(source, output, denoiser, "auto", overwrite=True)
                times[arm].append(time.perf_counter() - start)
                files[arm] = output.read_bytes()
                print(f"  {arm:>8}, run {repeat + 1}: went on from frame {result.resumed}, {times[arm][-1]:.1f} s")
    best = {arm: min(runs) for arm, runs in times.items()}
    print(
        f"best of 2: recorded {best['recorded']:.1f} s, struck {best['struck']:.1f} s; "
        f"ratio {best['recorded'] / best['struck']:.3f}; the same file: {files['recorded'] == files['struck']}"
    )


if __name__ == "__main__":
    main()

"""`clean` on 1920×1080 frames: the code at OLD (a worktree of an earlier commit) against this tree with tiles of
512 px (as OLD) and of 1024 px, in turns, each run in its own process: seconds a frame, the process's peak memory,
and the outputs compared pixel for pixel.

The clip: the first 12 frames of bikes (`bench_clean.py`'s sample) scaled to 1920×1080 (bicubic), Gaussian noise
σ = 25 added at that size (seed 0), stored losslessly (FFV1); `clean` told σ = 25 (the shipped default, lossless
output), then once each with σ auto.

    git worktree add /tmp/old 77adf90
    .venv/bin/python benchmarks/results/speed/large-frames/in_turns.py /tmp/old [--repeats 3] > in-turns.log
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[4]
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_clean as bench  # noqa: E402

from _machine import cpu_name  # noqa: E402

# run in the code under test (its tree first on the path): one `clean` of the clip with tiles of TILE px
ONE_RUN = """
import json, resource, sys, dataclasses
from pathlib import Path
import numpy as np
sys.path.insert(0, str(Path.cwd() / "benchmarks"))
import bench_clean as bench
from videodenoise.denoise.denoiser import Denoiser
from videodenoise.denoise.settings import PRESETS
noisy, out, keep, tile, sigma = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
settings = dataclasses.replace(PRESETS["fast"], device="cpu", tile=tile)
denoiser = Denoiser.from_preset("fast", settings=settings)
fps, frames = bench.time_clean(denoiser, noisy, out, sigma if sigma == "auto" else float(sigma))
np.save(keep, frames)
print(json.dumps(dict(seconds=1 / fps, peak_mib=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)))
"""


def run(tree: Path, noisy: Path, folder: Path, tile: int, sigma: str, keep: Path) -> dict:
    environment = dict(os.environ, PYTHONPATH=str(tree))
    command = [sys.executable, "-c", ONE_RUN, str(noisy), str(folder / "out.mkv"), str(keep), str(tile), sigma]
    done = subprocess.run(command, cwd=tree, env=environment, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"the run in {tree} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def large_clip(folder: Path) -> Path:
    from videodenoise.datasets.samples import fetch_sample_clips

    clean = bench.load_clip(fetch_sample_clips()["bikes"], 12)
    large = np.stack([cv2.resize(frame, (1920, 1080), interpolation=cv2.INTER_CUBIC) for frame in clean])
    return bench.write_lossless(folder / "large.mkv", bench.add_noise(large, bench.SIGMA_255))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", type=Path, help="a worktree of the code before")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    arms = {"old, tiles of 512": (args.old, 512), "new, tiles of 512": (ROOT, 512), "new, tiles of 1024": (ROOT, 1024)}
    print(f"{cpu_name()}, {os.cpu_count()} threads; old = {args.old}, new = {ROOT}", flush=True)
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        noisy = large_clip(folder)
        for sigma, repeats in ((str(bench.SIGMA_255), args.repeats), ("auto", 1)):
            results = {name: [] for name in arms}
            for _ in range(repeats):
                for index, (name, (tree, tile)) in enumerate(arms.items()):
                    results[name].append(run(tree, noisy, folder, tile, sigma, folder / f"arm{index}.npy"))
            print(f"σ {'auto' if sigma == 'auto' else 'told ' + sigma}, 12 frames of 1920×1080:")
            base = statistics.median(r["seconds"] for r in results["old, tiles of 512"])
            for name, rows in results.items():
                seconds = [r["seconds"] for r in rows]
                listed, ratio = ", ".join(f"{s:.3f}" for s in seconds), statistics.median(seconds) / base
                peak = max(r["peak_mib"] for r in rows)
                print(f"    {name}: {listed} s/frame (× old {ratio:.3f}); peak memory {peak:.0f} MiB")
            outputs = [np.load(folder / f"arm{index}.npy") for index in range(len(arms))]
            for index, name in enumerate(list(arms)[1:], start=1):
                differ = outputs[index] != outputs[0]
                print(
                    f"    {name} against old: {int(differ.sum())} of {differ.size} values differ, by at most "
                    f"{int(np.abs(outputs[index].astype(int) - outputs[0]).max())} (8-bit levels)",
                    flush=True,
                )


if __name__ == "__main__":
    from _script import run_main

    run_main(main)

"""`clean`'s peak memory on large frames: the code at OLD (a worktree of an earlier commit) against this tree, in turns,
each run in its own process: seconds a frame, the process's peak resident set, and the outputs compared value for value.

Clips: bikes' first frames scaled to 1920×1080 (12 frames) and 3840×2160 (6 frames), bicubic, Gaussian noise σ = 25
added at that size (seed 0), stored losslessly (FFV1); and bikes' long 320×240 clip (30 frames, `bench_clean.py`).
`clean` is the shipped default (fast preset, lossless output), told σ = 25 and with σ auto. The peak is VmHWM from
/proc/self/status (Python, torch and the model included), read at the end of the run.

    git worktree add /tmp/old 11d5463
    .venv/bin/python benchmarks/results/speed/window-memory/in_turns.py /tmp/old > in-turns.log
    git worktree add /tmp/old 1dbec54       # then the freed memory handed back after the estimate
    .venv/bin/python benchmarks/results/speed/window-memory/in_turns.py /tmp/old --auto-only > in-turns-trim.log
"""

from __future__ import annotations

import argparse
import json
import os
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

# run in the code under test (its tree first on the path): one `clean` of a clip
ONE_RUN = """
import json, sys
from pathlib import Path
import numpy as np
sys.path.insert(0, str(Path.cwd() / "benchmarks"))
import bench_clean as bench
from videodenoise.denoise.denoiser import Denoiser
noisy, out, keep, sigma = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4]
denoiser = Denoiser.from_preset("fast")
fps, frames = bench.time_clean(denoiser, noisy, out, sigma if sigma == "auto" else float(sigma))
np.save(keep, frames)
peak = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM"))
print(json.dumps(dict(seconds=1 / fps, peak_mib=peak / 1024)))
"""


def run(tree: Path, noisy: Path, folder: Path, sigma: str, keep: Path) -> dict:
    environment = dict(os.environ, PYTHONPATH=str(tree))
    command = [sys.executable, "-c", ONE_RUN, str(noisy), str(folder / "out.mkv"), str(keep), sigma]
    done = subprocess.run(command, cwd=tree, env=environment, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"the run in {tree} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def clips(folder: Path) -> dict[str, Path]:
    from videodenoise.datasets.samples import fetch_sample_clips

    clean = bench.load_clip(fetch_sample_clips()["bikes"], 12)
    scaled = lambda size, n: np.stack([cv2.resize(f, size, interpolation=cv2.INTER_CUBIC) for f in clean[:n]])  # noqa: E731
    return {
        "320×240, 30 frames": bench.write_lossless(folder / "small.mkv", bench.long_clip(30)),
        "1920×1080, 12 frames": bench.write_lossless(folder / "hd.mkv", bench.add_noise(scaled((1920, 1080), 12), 25)),
        "3840×2160, 6 frames": bench.write_lossless(folder / "uhd.mkv", bench.add_noise(scaled((3840, 2160), 6), 25)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", type=Path, help="a worktree of the code before")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--auto-only", action="store_true", help="σ auto only, on the large clips")
    args = parser.parse_args()
    trees = {"before": args.old, "now": ROOT}
    print(f"{cpu_name()}, {os.cpu_count()} threads; before = {args.old}, now = {ROOT}", flush=True)
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        for label, noisy in clips(folder).items():
            if args.auto_only and label.startswith("320"):
                continue
            for sigma in ("auto",) if args.auto_only else (str(bench.SIGMA_255), "auto"):
                repeats = 1 if label.startswith("3840") and sigma == "auto" else args.repeats
                rows = {name: [] for name in trees}
                for _ in range(repeats):
                    for name, tree in trees.items():
                        rows[name].append(run(tree, noisy, folder, sigma, folder / f"{name}.npy"))
                said = "auto" if sigma == "auto" else f"told {sigma}"
                print(f"{label}, σ {said}:")
                for name, results in rows.items():
                    seconds = ", ".join(f"{r['seconds']:.3f}" for r in results)
                    peaks = ", ".join(f"{r['peak_mib']:.0f}" for r in results)
                    print(f"    {name}: {seconds} s/frame; peak {peaks} MiB")
                before, now = (np.load(folder / f"{name}.npy") for name in trees)
                differ = int((before != now).sum())
                print(f"    now against before: {differ} of {now.size} values differ", flush=True)


if __name__ == "__main__":
    from _script import run_main

    run_main(main)

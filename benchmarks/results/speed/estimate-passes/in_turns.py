"""The noise estimate on files as cameras write them (H.264 with groups of pictures), in the code at OLD (a worktree
of an earlier commit) and in this tree, in turns, each in its own process: seconds of `estimate_video_noise` (the
best of three; once on the large clip) and `clean --sigma auto`'s seconds a frame end to end, the shipped default,
lossless output.

The clips: `bench_clean.py`'s long clip (bikes' 320×240 centre, 100 frames, Gaussian σ = 25, seed 0) stored three
ways: H.264 at CRF 23 with x264's default group of pictures (a keyframe in 250 frames: one here), H.264 with a
keyframe every 30 frames (a phone's second), and FFV1 (every frame a keyframe, as `bench_clean.py` stores it); and
its first 24 frames scaled to 1920×1080 (bicubic, the same noise scaled with them), H.264 CRF 23, for the estimate
alone. The two codes' estimates are compared (curve, grain, carried share).

    git worktree add /tmp/old HEAD~1
    .venv/bin/python benchmarks/results/speed/estimate-passes/in_turns.py /tmp/old [--repeats 3] > in-turns.log
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

ROOT = Path(__file__).resolve().parents[4]
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_clean as bench  # noqa: E402

from _machine import cpu_name  # noqa: E402

# run in the code under test (its tree first on the path): the estimate (best of three), and `clean` σ auto
ONE_CODE = """
import json, sys, time, dataclasses
from pathlib import Path
sys.path.insert(0, str(Path.cwd() / "benchmarks"))
import bench_clean as bench
from videodenoise.denoise.denoiser import Denoiser
from videodenoise.denoise.settings import PRESETS
from videodenoise.io.video import open_video
from videodenoise.noise.estimation import estimate_video_noise
noisy, out, end_to_end = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3] == "1"
seconds = []
for _ in range(3 if end_to_end else 1):
    start = time.perf_counter()
    function = estimate_video_noise(open_video(noisy))
    seconds.append(time.perf_counter() - start)
result = dict(estimate=min(seconds), sigmas=[list(row) for row in function.sigmas], grain=list(function.grain),
              carried=function.carried)
if end_to_end:
    denoiser = Denoiser.from_preset("fast", settings=dataclasses.replace(PRESETS["fast"], device="cpu"))
    fps, _ = bench.time_clean(denoiser, noisy, out, "auto")
    result["clean"] = 1 / fps
print(json.dumps(result))
"""


def run_code(tree: Path, noisy: Path, folder: Path, end_to_end: bool) -> dict:
    environment = dict(os.environ, PYTHONPATH=str(tree))
    command = [sys.executable, "-c", ONE_CODE, str(noisy), str(folder / "out.mkv"), "1" if end_to_end else "0"]
    done = subprocess.run(command, cwd=tree, env=environment, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"the run in {tree} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def clips(folder: Path) -> dict[str, tuple[Path, bool]]:
    """name → (file, whether `clean` is timed on it end to end)."""
    from videodenoise.io.writers import write_video

    noisy = bench.long_clip(100)
    large = [cv2.resize(frame, (1920, 1080), interpolation=cv2.INTER_CUBIC) for frame in noisy[:24]]
    return {
        "H.264, one keyframe": (write_video(folder / "default.mp4", list(noisy), fps=25, crf=23), True),
        "H.264, keyframe every 30": (
            write_video(folder / "gop30.mp4", list(noisy), fps=25, crf=23, keyframe_interval=30),
            True,
        ),
        "FFV1 (every frame a keyframe)": (bench.write_lossless(folder / "ffv1.mkv", noisy), True),
        "1920×1080 H.264, 24 frames, one keyframe": (write_video(folder / "large.mp4", large, fps=25, crf=23), False),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", type=Path, help="a worktree of the code before")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"{cpu_name()}, {os.cpu_count()} threads; old = {args.old}, new = {ROOT}")
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        for name, (noisy, end_to_end) in clips(folder).items():
            results = {"old": [], "new": []}
            for _ in range(args.repeats):
                for code, tree in (("old", args.old), ("new", ROOT)):
                    results[code].append(run_code(tree, noisy, folder, end_to_end))
            same = all(
                r[key] == results["old"][0][key]
                for r in results["old"] + results["new"]
                for key in ("sigmas", "grain", "carried")
            )
            line = [f"{name}: the estimate ({'best of 3' if end_to_end else 'once'} in each run)"]
            for code in ("old", "new"):
                seconds = ", ".join(f"{r['estimate']:.3f}" for r in results[code])
                line.append(f"{code} {seconds} s")
            old, new = (statistics.median(r["estimate"] for r in results[c]) for c in ("old", "new"))
            line.append(f"new/old {new / old:.2f}; the same estimate in every run: {same}")
            print("; ".join(line))
            if end_to_end:
                times = {c: [r["clean"] for r in results[c]] for c in ("old", "new")}
                old, new = (statistics.median(times[c]) for c in ("old", "new"))
                print(
                    f"    clean --sigma auto, s/frame: old {', '.join(f'{t:.4f}' for t in times['old'])}; "
                    f"new {', '.join(f'{t:.4f}' for t in times['new'])}; new/old {new / old:.3f}"
                )


if __name__ == "__main__":
    from _script import run_main

    run_main(main)

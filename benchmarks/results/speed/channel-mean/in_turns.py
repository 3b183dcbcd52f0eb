"""`clean` with the shipped default on the long clip of `bench_clean.py` part 1 (bikes' 320×240 centre, Gaussian
σ = 25, seed 0, stored losslessly), told σ = 25 and with σ auto, in the code at OLD (a worktree of an earlier commit)
and in this tree, in turns: s/frame of each, σ auto over σ told in each code (what the estimate and the noise maps
cost), new over old, each over OpenCV NLM's time a frame on the same clip, and the estimator alone (the best of
three). Each code runs in its own process; the outputs of the two codes are compared pixel for pixel.

    git worktree add /tmp/old e0fdce7
    .venv/bin/python benchmarks/results/speed/channel-mean/in_turns.py /tmp/old [--frames 100] [--repeats 3] > in-turns.log
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[4]
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_clean as bench  # noqa: E402

from _machine import cpu_name  # noqa: E402

# run in the code under test (its tree first on the path): times `clean` told σ = 25 and σ auto, and the estimator
ONE_CODE = """
import json, sys, time, dataclasses
from pathlib import Path
import numpy as np
sys.path.insert(0, str(Path.cwd() / "benchmarks"))
import bench_clean as bench
from videodenoise.denoise.denoiser import Denoiser
from videodenoise.denoise.settings import PRESETS
from videodenoise.io.video import open_video
from videodenoise.noise.estimation import estimate_video_noise
noisy, out, keep = (Path(p) for p in sys.argv[1:4])
fast = dataclasses.replace(PRESETS["fast"], device="cpu")
denoiser = Denoiser.from_preset("fast", settings=fast)
result = {}
for name, sigma in (("told", bench.SIGMA_255), ("auto", "auto")):
    fps, frames = bench.time_clean(denoiser, noisy, out, sigma)
    result[name] = 1 / fps
    np.save(keep.with_name(f"{keep.stem}-{name}.npy"), frames)
seconds = []
for _ in range(3):
    start = time.perf_counter()
    estimate_video_noise(open_video(noisy))
    seconds.append(time.perf_counter() - start)
result["estimate"] = min(seconds)
print(json.dumps(result))
"""


def run_code(tree: Path, noisy: Path, folder: Path, label: str) -> dict:
    environment = {**os.environ, "PYTHONPATH": str(tree)}
    command = [sys.executable, "-c", ONE_CODE, str(noisy), str(folder / f"out-{label}.mkv"), str(folder / label)]
    done = subprocess.run(command, cwd=tree, env=environment, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = bench.in_turns_parser(__doc__.split("\n")[0])
    parser.add_argument("old", type=Path, help="a worktree of the earlier commit")
    args = parser.parse_args()
    print(f"machine: {cpu_name()}; {torch.get_num_threads()} torch threads; old code {args.old}, new code {ROOT}")
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        noisy, _, nlm = bench.long_clip_files(folder, args.frames, 1)
        times = {code: {"told": [], "auto": [], "estimate": []} for code in ("old", "new")}
        for _ in range(args.repeats):
            for code, tree in (("old", args.old), ("new", ROOT)):
                for key, value in run_code(tree, noisy, folder, code).items():
                    times[code][key].append(value)
        for sigma in ("told", "auto"):
            old, new = (np.load(folder / f"{code}-{sigma}.npy") for code in ("old", "new"))
            differ = int((old != new).any(axis=-1).sum())
            print(f"σ {sigma}: the two codes' outputs differ at {differ} of {old.shape[0] * old.shape[1] * old.shape[2]} pixels")
    print(f"\n{args.frames} frames of 320×240, s/frame in turns, {args.repeats} runs each:")
    median = {code: {key: statistics.median(v) for key, v in arms.items()} for code, arms in times.items()}
    for code in ("old", "new"):
        told, auto = median[code]["told"], median[code]["auto"]
        print(
            f"  {code}: told {', '.join(f'{v:.4f}' for v in times[code]['told'])}; "
            f"auto {', '.join(f'{v:.4f}' for v in times[code]['auto'])}\n"
            f"    medians told {told:.4f} ({told / nlm:.3f}× NLM), auto {auto:.4f} ({auto / nlm:.3f}× NLM): "
            f"σ auto costs {auto / told - 1:+.1%}; the estimate alone {median[code]['estimate']:.3f} s "
            f"({median[code]['estimate'] / args.frames:.4f} s a frame, {median[code]['estimate'] / (told * args.frames):.1%} "
            "of told's time)"
        )
    for sigma in ("told", "auto"):
        print(f"  new over old, σ {sigma}: {median['old'][sigma] / median['new'][sigma]:.3f}× as fast")


if __name__ == "__main__":
    main()

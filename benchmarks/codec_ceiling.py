"""How much room does a codec leave? The real-noise benchmark's targets beside what the codec alone gives.

Issue 18 asks `clean --sigma auto` for ffmpeg's best filter per clip + 1.5 dB at every level and CRF of
`bench_realnoise.py`. A codec at a high CRF removes detail whether or not the footage was noisy, so this
script encodes each clip's *clean* frames with the same codec and CRF (no noise: `CameraNoise(a=0, b=0)`,
the same gamma, 8 bits and libx264) and scores what comes back. That is not a strict bound (a restorer
could also undo some of the codec's own loss, and noise changes how the encoder spends its bits), but a
target above it asks a denoiser to return noisy, compressed footage closer to the original than the
codec returns noise-free footage.

The other numbers come from a `bench_realnoise.py` CSV (repeat `--from-csv` to merge runs as it does):
for each condition, the mean over clips of the codec alone, ffmpeg's oracle (`ffmpeg:any best/clip`),
the target (oracle + `--margin`), `clean` σ auto (`--clean`, default the first checkpoint found), and on
how many clips the target lies above the codec alone.

    .venv/bin/python benchmarks/codec_ceiling.py --from-csv benchmarks/results/realnoise/realnoise.csv \
        --from-csv benchmarks/results/carried-lift/held-out/realnoise-lift.csv --clean clean:lift
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import numpy as np
import torch

from videodenoise.noise.camera import CameraNoise

import bench_quality as quality
import bench_realnoise as realnoise
from _machine import cpu_name
from _script import run_main

ORACLE = "ffmpeg:any best/clip (oracle)"
CONDITION = re.compile(r"^(?P<level>\S+) (?P<codec>\S+) crf(?P<crf>\d+)$")


def codec_encoded(frames: np.ndarray, codec: str, crf: int) -> np.ndarray:
    """A clip's clean uint8 frames (T, 3, H, W) through the codec alone (no noise), decoded back to uint8."""
    return realnoise.add_camera_noise(frames, CameraNoise(a=0.0, b=0.0, codec=codec, crf=crf), seed=0)


def codec_alone(frames: np.ndarray, codec: str, crf: int) -> float:
    """PSNR of a clip's clean uint8 frames after the codec alone (`codec_encoded`), on its own frames."""
    return quality.measure(codec_encoded(frames, codec, crf).astype(np.float32) / 255.0, frames)["psnr"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--from-csv", type=Path, action="append", required=True, help="a bench_realnoise CSV")
    parser.add_argument("--clean", default=None, help="the clean checkpoint's method name (e.g. clean:current)")
    parser.add_argument("--margin", type=float, default=1.5, help="dB over ffmpeg's oracle the target asks")
    parser.add_argument("--frames", type=int, default=5, help="frames a clip, as the CSV's run had")
    parser.add_argument("--size", type=quality.parse_size, default=(240, 320), help="as the CSV's run had")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    rows = realnoise.merge_runs(
        [quality.read_csv(p, realnoise.CSV_NUMERIC, realnoise.CSV_INTEGER) for p in args.from_csv]
    )
    derived = realnoise.derived_rows(rows)
    cleans = [m for m in dict.fromkeys(r["method"] for r in rows) if m.startswith("clean:") and m.count(":") == 1]
    method = args.clean or (cleans[0] if cleans else None)
    if method not in cleans:
        raise SystemExit(f"no clean method '{method}' in the CSV; choose --clean from: {', '.join(cleans)}")
    clean_label = realnoise.method_label(method)
    conditions = realnoise.conditions_of(rows)
    parsed = {c: CONDITION.match(c) for c in conditions}
    if not all(parsed.values()):
        raise SystemExit("every condition must have a codec and a CRF (a --codec none run has no codec to measure)")
    clips = realnoise.load_clips(realnoise.clips_of(rows), args.frames, args.size, args.seed)
    print(f"machine: {cpu_name()}; clips: {', '.join(c.name for c in clips)}; {args.frames} frames each")

    alone: dict[tuple[str, str, int], float] = {}
    for clip in clips:
        for codec, crf in sorted({(m["codec"], int(m["crf"])) for m in parsed.values()}):
            alone[clip.name, codec, crf] = codec_alone(clip.frames, codec, crf)
            print(f"  {clip.name} {codec} CRF {crf}: codec alone {alone[clip.name, codec, crf]:.2f} dB")

    header = (
        f"| condition | codec alone | {clean_label} | ffmpeg oracle | target (+{args.margin:g}) "
        "| target − codec alone | clips where target > codec alone |"
    )
    print("\n" + header + "\n" + "|---" * 7 + "|")
    for condition in conditions:
        codec, crf = parsed[condition]["codec"], int(parsed[condition]["crf"])
        measured = set(realnoise.clips_of(rows, condition))
        names = [c.name for c in clips if c.name in measured]
        ceiling = [alone[name, codec, crf] for name in names]
        oracle = [realnoise.cell(derived, ORACLE, condition, "psnr", name) for name in names]
        ours = realnoise.cell(derived, clean_label, condition, "psnr")
        above = sum(o + args.margin > c for o, c in zip(oracle, ceiling))
        target = float(np.mean(oracle)) + args.margin
        print(
            f"| {condition} | {np.mean(ceiling):.2f} | {ours:.2f} | {np.mean(oracle):.2f} | {target:.2f} "
            f"| {target - np.mean(ceiling):+.2f} | {above} of {len(names)} |"
        )
    return 0


if __name__ == "__main__":
    torch.set_grad_enabled(False)
    run_main(main)

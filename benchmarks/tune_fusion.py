"""Choose `FusionSettings`' defaults on clips the quality benchmark never uses, one setting at a time.

    .venv/bin/python benchmarks/tune_fusion.py                 # about 10 min on a 2-core CPU
    .venv/bin/python benchmarks/tune_fusion.py --start strength=0.7 --variants "box 3,radius 3" --out ...  # round 2

Model selection must not see the test clips, so this sweep runs on *validation* clips only: a camera
pan (benchmarks/bench_quality.py's generator and seed rule) over four photographs of
`videodenoise.datasets.motion.TRAINING_PHOTOS` and the first frames of the `bigbuckbunny` sample clip
(centre crop); bikes, carphone and `BENCHMARK_PHOTOS`, the benchmark's clips, play no part. Each
variant changes one field of the starting settings and runs the shipped checkpoint through `clean`'s
pipeline (`Denoiser.from_checkpoint(settings=DenoiseSettings(fusion=..., stride=3))`, σ given; the last
variants change the window stride and patches instead) at σ ∈ {10, 25, 50}; noise as in the
benchmark (added to 8-bit frames, rounded and clipped). Prints mean PSNR per σ, the gain over the model
alone and s/frame; writes benchmarks/results/fusion-tuning/tuning.json.
"""

from __future__ import annotations

import argparse
import dataclasses
import platform
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from validation_sweep import parse_knob  # noqa: E402

from videodenoise.denoise.denoiser import Denoiser  # noqa: E402
from videodenoise.denoise.settings import (
    DenoiseSettings,  # noqa: E402
    FusionSettings,  # noqa: E402
)
from videodenoise.errors import DenoiseError  # noqa: E402
from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT  # noqa: E402

import bench_quality as bq  # noqa: E402
from _machine import cpu_name  # noqa: E402
from _script import run_main  # noqa: E402

VALIDATION_PHOTOS = (
    "skimage:rocket",
    "skimage:motorcycle_left",
    "matplotlib:Minduka_Present_Blue_Pack",
    "skimage:retina",
)
VALIDATION_REAL = "bigbuckbunny"
# one field changed at a time from the starting settings (None: the model alone, without fusion), and
# the Denoiser options each variant runs with besides (window stride 3: the centre frames of each
# window; 5: disjoint windows; patch_stride 2: the best preset's denser patches)
VARIANTS: list[tuple[str, dict | None, dict]] = [
    ("model alone", None, {}),
    ("start", {}, {}),
    ("strength 0.5", {"strength": 0.5}, {}),
    ("strength 0.7", {"strength": 0.7}, {}),
    ("strength 1.4", {"strength": 1.4}, {}),
    ("box 3", {"box": 3}, {}),
    ("box 7", {"box": 7}, {}),
    ("flow_blur 0", {"flow_blur": 0.0}, {}),
    ("flow_blur 1.5", {"flow_blur": 1.5}, {}),
    ("flow fast", {"flow_preset": "fast"}, {}),
    ("radius 1", {"radius": 1}, {}),
    ("radius 3", {"radius": 3}, {}),
    ("box 3 + radius 3", {"box": 3, "radius": 3}, {}),
    ("disjoint windows", {}, {"stride": 5}),
    ("best centred windows", {"radius": 3}, {"patch_stride": 2}),
    ("best disjoint windows", {"radius": 3}, {"patch_stride": 2, "stride": 5}),
    # two scales (videodenoise.denoise.scales), the coarse pass's band below a Gaussian of COARSE_BLUR px; a
    # "knob" sets a constant of the package for that variant only, as validation_sweep.py's --knob does
    ("scales 2 blur 1.5", {}, {"scales": 2, "knob": "denoise.scales.COARSE_BLUR=1.5"}),
    ("scales 2 blur 2", {}, {"scales": 2, "knob": "denoise.scales.COARSE_BLUR=2"}),
    ("scales 2 blur 3", {}, {"scales": 2, "knob": "denoise.scales.COARSE_BLUR=3"}),
    ("scales 2 blur 4", {}, {"scales": 2, "knob": "denoise.scales.COARSE_BLUR=4"}),
    ("scales 2 blur 6", {}, {"scales": 2, "knob": "denoise.scales.COARSE_BLUR=6"}),
]


def validation_clips(frames: int, size: tuple[int, int], seed: int = 0) -> list[bq.Clip]:
    clips = [bq.load_real_clip(VALIDATION_REAL, frames, size)]
    return clips + [bq.make_pan_clip(photo, frames, size, seed) for photo in VALIDATION_PHOTOS]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=7, help="frames per clip (default 7: radius 3 gets full windows)")
    parser.add_argument("--size", type=bq.parse_size, default=bq.DEFAULT_SIZE)
    parser.add_argument("--sigmas", type=bq.parse_floats, default=[10.0, 25.0, 50.0])
    parser.add_argument(
        "--start",
        action="append",
        default=[],
        metavar="FIELD=VALUE",
        help="change the starting settings (repeatable), e.g. strength=0.7",
    )
    parser.add_argument(
        "--variants",
        type=lambda text: [v.strip() for v in text.split(",") if v.strip()],
        default=None,
        help="comma-separated labels of VARIANTS to run (default: all; the model alone and the start always run)",
    )
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/fusion-tuning"))
    args = parser.parse_args(argv)
    import cv2

    if args.threads:
        torch.set_num_threads(args.threads)
        cv2.setNumThreads(args.threads)
    fields = {f.name: f.type for f in dataclasses.fields(FusionSettings)}
    changes = {}
    for item in args.start:
        name, _, value = item.partition("=")
        if name not in fields or not value:
            raise SystemExit(f"--start takes FIELD=VALUE with a field of {', '.join(fields)}, got '{item}'")
        try:
            changes[name] = (
                value if name == "flow_preset" else (int(value) if name in ("radius", "box") else float(value))
            )
        except ValueError:
            raise SystemExit(f"--start {item}: {name} takes a number") from None
    try:
        start = FusionSettings(**changes)
    except DenoiseError as error:  # a radius, box or strength out of range
        raise SystemExit(f"--start: {error}") from None
    variants = [
        v for v in VARIANTS if v[0] in ("model alone", "start") or args.variants is None or v[0] in args.variants
    ]
    labels = [v[0] for v in VARIANTS]
    unknown = set(args.variants or []) - set(labels)
    if unknown:
        raise SystemExit(f"unknown variant(s) {', '.join(sorted(unknown))}; choose from: {', '.join(labels)}")
    print(
        f"machine: {cpu_name()}, {torch.get_num_threads()} torch threads; checkpoint {DEFAULT_CHECKPOINT.name}; "
        f"starting settings {dataclasses.asdict(start)}"
    )
    clips = validation_clips(args.frames, args.size)
    for clip in clips:
        print(f"clip {clip.name}: {clip.shape[0]} frames, {clip.shape[3]}×{clip.shape[2]}, {clip.source}")
    noisy = {(c.name, s): bq.add_noise_uint8(c.frames, s, bq.noise_seed(c.name, s)) for c in clips for s in args.sigmas}
    results = []
    for label, change, options in variants:
        settings = None if change is None else dataclasses.replace(start, **change)
        options = dict(options)
        knob = options.pop("knob", None)
        if knob is not None:
            module, name, (value,) = parse_knob(knob)
            original = getattr(module, name)
            setattr(module, name, type(original)(value))
        denoiser = Denoiser.from_checkpoint(
            DEFAULT_CHECKPOINT, DenoiseSettings(fusion=settings, **{"stride": 3, **options})
        )
        psnr, seconds, frames = {}, 0.0, 0
        for sigma in args.sigmas:
            values = []
            for clip in clips:
                began = time.perf_counter()
                estimate = denoiser.denoise_clip(
                    torch.from_numpy(noisy[clip.name, sigma]).float().div_(255), sigma / 255
                )
                seconds += time.perf_counter() - began
                frames += clip.shape[0]
                values.append(bq.measure(estimate.numpy(), clip.frames)["psnr"])
            psnr[f"{sigma:g}"] = float(np.mean(values))
        if knob is not None:
            setattr(module, name, original)
        results.append(
            {
                "variant": label,
                "settings": None if settings is None else dataclasses.asdict(settings),
                "denoiser_options": {"stride": 3, **options, **({"knob": knob} if knob else {})},
                "psnr": psnr,
                "seconds_per_frame": seconds / frames,
            }
        )
        print(
            f"{label:>14}: "
            + "  ".join(f"σ={s}: {v:6.3f}" for s, v in psnr.items())
            + f"  {seconds / frames:.3f} s/frame",
            flush=True,
        )
    alone = results[0]["psnr"]
    print("\ngain over the model alone, dB (mean over the validation clips):")
    for row in results[1:]:
        gains = {s: row["psnr"][s] - alone[s] for s in alone}
        print(
            f"{row['variant']:>14}: "
            + "  ".join(f"σ={s}: {g:+.3f}" for s, g in gains.items())
            + f"  mean {np.mean(list(gains.values())):+.3f}"
        )
    summary = {
        "command": " ".join(["tune_fusion.py"] + (argv if argv is not None else sys.argv[1:])),
        "machine": {"cpu": cpu_name(), "torch": torch.__version__, "python": platform.python_version()},
        "checkpoint": str(DEFAULT_CHECKPOINT.name),
        "start": dataclasses.asdict(start),
        "sigmas": args.sigmas,
        "frames": args.frames,
        "clips": [{"name": c.name, "source": c.source, "shape": list(c.shape)} for c in clips],
        "results": results,
    }
    path = bq.write_json(summary, args.out / "tuning.json")
    print(f"\nwrote {path}")
    return 0


if __name__ == "__main__":
    run_main(main)

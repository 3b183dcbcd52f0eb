"""How fast do the default denoisers run, and how close to this machine's matrix speed?

For DUST and UT with default options, grey and colour, this times a forward pass (torch.no_grad) on a
640×360 clip and prints frames per second. It also counts the pass's FLOPs (its matrix
products, in place or not; elementwise ops, softmax and patch folding are not counted) and divides by the
time: the achieved GFLOP/s. Next to it it times a plain float32 torch.matmul of the shape the model
spends most of its FLOPs on (recorded from the forward pass itself), repeated to the pass's FLOPs, in
turns with the passes (this VM's speed drifts), and prints the ratio achieved / matmul: 1 would mean
the model runs at matrix speed, and the gap is what the elementwise work, attention and memory traffic
between the matrix products cost.

--token-sets temporal,aligned,none times each model with those attention token sets; an aligned model
is handed the clip's frames warped onto each other (`align_clip`), whose flows are timed apart and
printed per frame (they are computed once per window in `clean`, not per model pass).

--band-bytes 8388608,2097152 times each model with the CPU's patch-row bands sized for those many bytes
in their widest tensor (`videodenoise.models.base.CPU_BAND_BYTES`; default: the library's), side by
side in one run. --precisions fp32,bf16 also times each under the library's bfloat16 autocast
(what `--precision bf16` runs) and prints how far its output lies from float32's (RMS, on the [0, 1]
scale). --sigma map tells each model a per-pixel noise map, as `clean` does after fusion (DUST's
thresholds then vary per token); by default a model runs at its own reference σ.

    .venv/bin/python benchmarks/bench_models.py [--frames 5] [--repeats 7] [--threads N] [--token-sets ...]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections import Counter
from functools import partial

import numpy as np
import torch
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode

import videodenoise.models.base as model_base
from videodenoise.denoise.fusion import align_clip
from videodenoise.devices import autocast, resolve_precision
from videodenoise.models.registry import build_model, count_parameters

from _machine import cpu_name
from _script import run_main

aten = torch.ops.aten


def synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def interleaved_medians(functions: list, repeats: int, device: torch.device) -> list[float]:
    """The median time of each function over `repeats` passes, the functions taking turns, so that a
    machine whose speed drifts during the run (a shared VM) slows all of them alike."""
    for function in functions:  # warm-up: first-touch allocations, kernel selection
        function()
    synchronize(device)
    times = [[] for _ in functions]
    for _ in range(repeats):
        for function, kept in zip(functions, times):
            start = time.perf_counter()
            function()
            synchronize(device)
            kept.append(time.perf_counter() - start)
    return [statistics.median(kept) for kept in times]


def repeated_matmul(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor, count: int) -> None:
    for _ in range(count):
        torch.matmul(a, b, out=out)


class MatrixProducts(TorchDispatchMode):
    """Counts the FLOPs of every matrix product run under it, in place or not (torch.utils.flop_counter
    misses the in-place addmm_ of the layers' inference path): `total`, and per (m, k, n) of the plain
    ones in `flops` (a batched product of tiny matrices is not a matmul to match; batched as m·batch)."""

    PRODUCTS = {aten.mm.default, aten.addmm.default, aten.addmm_.default, aten.bmm.default, aten.baddbmm.default}

    def __init__(self):
        super().__init__()
        self.flops = Counter()
        self.total = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if func in self.PRODUCTS:
            a, b = (args[0], args[1]) if func in (aten.mm.default, aten.bmm.default) else (args[1], args[2])
            batch = a.shape[0] if a.dim() == 3 else 1
            m, k, n = a.shape[-2] * batch, a.shape[-1], b.shape[-1]
            self.total += 2 * m * k * n
            if a.dim() == 2:
                self.flops[(m, k, n)] += 2 * m * k * n
        return func(*args, **(kwargs or {}))


def test_clip(frames: int, channels: int, height: int, width: int, device: torch.device) -> torch.Tensor:
    """A real image panning across the frame, with σ = 25/255 noise: (1, T, C, H, W)."""
    import skimage.data

    image = torch.from_numpy(skimage.data.astronaut().astype(np.float32) / 255).permute(2, 0, 1)
    image = F.interpolate(image[None], size=(height + 4 * frames, width + 4 * frames), mode="bilinear")[0]
    if channels == 1:
        image = image.mean(dim=0, keepdim=True)
    clip = torch.stack([image[:, 2 * t : 2 * t + height, 4 * t : 4 * t + width] for t in range(frames)])[None]
    generator = torch.Generator().manual_seed(0)
    return (clip + 25 / 255 * torch.randn(clip.shape, generator=generator)).to(device)


def benchmark(name: str, channels: int, token_set: str, args, device: torch.device) -> list[dict]:
    """One row per band size of --band-bytes and precision of --precisions, timed in turns on the same
    model and clip."""
    options = {} if args.neighbourhood is None else {"neighbourhood": args.neighbourhood}
    model = build_model(name, channels=channels, token_set=token_set, **options).to(device).eval()
    clip = test_clip(args.frames, channels, args.height, args.width, device)
    told, align_seconds = {}, 0.0
    if model.attends_aligned:
        start = time.perf_counter()
        told["aligned"] = align_clip(clip.cpu()).to(device)
        align_seconds = time.perf_counter() - start
    bands = [int(value) for value in args.band_bytes.split(",")]
    variants = [(band, precision) for band in bands for precision in args.precisions.split(",")]

    if args.sigma == "map":  # what `clean` tells the model after fusion: a σ per pixel (here all 25/255)
        told["sigma"] = torch.full((1, args.frames, args.height, args.width), 25 / 255, device=device)

    def run(band: int, precision: str) -> torch.Tensor:
        model_base.CPU_BAND_BYTES = band
        with autocast(device, resolve_precision(precision, device)):
            return model(clip, **told)

    rows = []
    with torch.no_grad():
        reference = run(bands[0], "fp32")
        measured, timed = [], []
        for band, precision in variants:
            difference = (run(band, precision).float() - reference).square().mean().sqrt().item()
            with MatrixProducts() as shapes:
                run(band, precision)
            flops = shapes.total
            (m, k, n), _ = shapes.flops.most_common(1)[0]
            # the reference: that matmul into one buffer, repeated to the pass's FLOPs, timed in turns with them
            a, b = torch.randn(m, k, device=device), torch.randn(k, n, device=device)
            count = -(-flops // (2 * m * k * n))
            measured.append((difference, flops, (m, k, n), count))
            timed += [lambda v=(band, precision): run(*v), partial(repeated_matmul, a, b, a.new_empty(m, n), count)]
        seconds = interleaved_medians(timed, args.repeats, device)
        for index, ((band, precision), (difference, flops, (m, k, n), count)) in enumerate(zip(variants, measured)):
            band_seconds, matmul_seconds = seconds[2 * index], seconds[2 * index + 1]
            achieved = flops / band_seconds / 1e9
            matmul = 2 * m * k * n * count / matmul_seconds / 1e9
            rows.append(
                dict(
                    model=name,
                    token_set=token_set,
                    band=band,
                    precision=precision,
                    difference=difference,
                    align=align_seconds / args.frames,
                    channels=channels,
                    params=count_parameters(model),
                    fps=args.frames / band_seconds,
                    gflop_frame=flops / args.frames / 1e9,
                    achieved=achieved,
                    shape=f"{m}x{k}x{n}",
                    matmul=matmul,
                    ratio=achieved / matmul,
                )
            )
    model_base.CPU_BAND_BYTES = bands[0]
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=5, help="frames in the clip (default 5)")
    parser.add_argument("--height", type=int, default=360)
    parser.add_argument("--width", type=int, default=640)
    parser.add_argument("--repeats", type=int, default=7, help="timed passes per model; the median is shown")
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: torch's choice)")
    parser.add_argument("--models", nargs="+", default=["dust", "ut"])
    parser.add_argument("--channels", nargs="+", type=int, default=[1, 3])
    parser.add_argument("--token-sets", default="temporal", help="comma-separated attention token sets")
    parser.add_argument("--neighbourhood", type=int, default=None, help="window of the windowed token sets")
    parser.add_argument(
        "--band-bytes",
        default=str(model_base.CPU_BAND_BYTES),
        help="comma-separated CPU band sizes (bytes of a band's widest tensor) to time side by side",
    )
    parser.add_argument("--precisions", default="fp32", help="comma-separated: fp32, bf16 (autocast)")
    parser.add_argument(
        "--sigma",
        choices=["none", "map"],
        default="none",
        help="none: the model at its own σ; map: told a per-pixel noise map, as `clean` tells it after fusion",
    )
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    device = torch.device(args.device)

    where = cpu_name() if device.type == "cpu" else torch.cuda.get_device_name(device)
    print(
        f"machine: {where}; {os.cpu_count()} logical CPUs, {torch.get_num_threads()} torch threads; "
        f"torch {torch.__version__}; device {device}"
    )
    print(
        f"clip: {args.frames} frames of {args.width}x{args.height}, forward pass under no_grad, "
        f"median of {args.repeats}; σ {args.sigma}; FLOPs = matrix products (in place or not)"
    )
    print(
        "matmul: float32 torch.matmul (m x k) @ (k x n) of the shape the model spends most FLOPs on, repeated to "
        "the pass's FLOPs and timed in turns with the passes; ratio = GFLOP/s over matmul GFLOP/s\n"
    )
    header = (
        f"{'model':<6} {'token set':<10} {'C':>1} {'band':>5} {'prec':>4} {'params':>9} {'frames/s':>9} "
        f"{'RMS vs fp32':>11} {'flows s/frame':>13} "
        f"{'GFLOP/frame':>12} {'GFLOP/s':>8} "
        f"{'matmul m x k x n':>18} {'matmul GFLOP/s':>15} {'ratio':>6}"
    )
    print(header)
    print("-" * len(header))
    for name in args.models:
        for token_set in args.token_sets.split(","):
            for channels in args.channels:
                for row in benchmark(name, channels, token_set, args, device):
                    print(
                        f"{row['model']:<6} {row['token_set']:<10} {row['channels']:>1} "
                        f"{row['band'] / 2**20:>4.3g}M {row['precision']:>4} {row['params']:>9,} "
                        f"{row['fps']:>9.2f} {row['difference']:>11.1e} {row['align']:>13.3f} "
                        f"{row['gflop_frame']:>12.2f} "
                        f"{row['achieved']:>8.1f} {row['shape']:>18} "
                        f"{row['matmul']:>15.1f} {row['ratio']:>6.2f}",
                        flush=True,
                    )


if __name__ == "__main__":
    run_main(main)

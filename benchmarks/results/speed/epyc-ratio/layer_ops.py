"""Each step of one DUST grey layer, timed alone on one CPU band (805 patch locations × 5 frames = 4,025 tokens of 256
atoms), with `perf_counter`, median of 200 calls; and the layer as a whole. The default grey DUST's second layer, its
attention gains set to 0.3 (at init they are 0, which skips nothing but makes the lerp trivial). No grad. (The layer
as a whole, timed the same way on a copy of the codes, took anything from 2.9 to 7.2 ms over four runs, against the
2.3 ms its steps sum to: its fresh temporaries, and this VM; not printed.)

    R=benchmarks/results/speed/epyc-ratio; .venv/bin/python $R/layer_ops.py > $R/layer_ops.log
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from videodenoise.models.attention import rms_scale, softmax_over_few  # noqa: E402
from videodenoise.models.registry import build_model  # noqa: E402

from _machine import cpu_name  # noqa: E402

LOCATIONS, FRAMES, ATOMS, PIXELS, QUERY = 805, 5, 256, 64, 16


def median_us(function, repeats: int = 200) -> float:
    function()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def main() -> None:
    torch.manual_seed(0)
    model = build_model("dust", channels=1).eval()
    layer, dictionary = model.layers[1], model.dictionary.detach()
    attention = layer.attention
    codes = torch.randn(1, LOCATIONS, 1, FRAMES, ATOMS) * 0.1
    patches = torch.randn(1, LOCATIONS, 1, FRAMES, PIXELS) * 0.1
    print(f"machine: {cpu_name()}, {torch.get_num_threads()} torch threads; one band of {LOCATIONS * FRAMES} tokens")
    with torch.no_grad():
        attention.gain.fill_(0.3)
        flat, analysis = codes.reshape(-1, ATOMS), layer.analysis.detach()
        thresholds = layer.shrink.threshold.detach().clamp(min=0)
        query = attention.query(codes) * rms_scale(codes)
        query = query.view(1, LOCATIONS, 1, FRAMES, 1, QUERY).transpose(3, 4)
        scores = query @ query.transpose(-1, -2)
        weights = softmax_over_few(scores * QUERY**-0.5)
        mixed = weights.squeeze(3) @ codes
        observed = patches.reshape(-1, PIXELS)
        residual = torch.addmm(observed, flat, dictionary.T, alpha=-1)
        steps = {
            "query projection (N×256 @ 256×16)": lambda: attention.query(codes),
            "RMS of the codes": lambda: rms_scale(codes),
            "scores (5×16 @ 16×5 a location)": lambda: query @ query.transpose(-1, -2),
            "scaling and softmax over five": lambda: softmax_over_few(scores * QUERY**-0.5),
            "mix (5×5 @ 5×256 a location)": lambda: weights.squeeze(3) @ codes,
            "lerp, in place": lambda: torch.lerp(codes, mixed, attention.gain, out=mixed),
            "step: residual (N×256 @ 256×64)": lambda: torch.addmm(
                patches.reshape(-1, PIXELS), flat, dictionary.T, alpha=-1
            ),
            "step: update, in place (N×64 @ 64×256)": lambda: flat.clone().addmm_(residual, analysis),
            "a copy of the codes (the update's and the threshold's operand)": lambda: flat.clone(),
            "soft threshold: clamp": lambda: torch.clamp(flat, -thresholds, thresholds),
            "soft threshold: subtraction, in place": lambda: flat.clone().sub_(flat),
        }
        for name, function in steps.items():
            print(f"{name:64s} {median_us(function):8.1f} µs")


if __name__ == "__main__":
    main()

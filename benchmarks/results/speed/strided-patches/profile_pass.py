"""Where a model's forward pass spends its time, op by op: `torch.profiler` over five passes of a 5-frame 640×360
clip (no_grad, float32, the model as built, at its own σ), the ops by their own time, and the matrix products'
share of it. (Not with_flops=True: on this VM it made the batched products and the clamp 5-10× slower.)

    .venv/bin/python benchmarks/results/speed/strided-patches/profile_pass.py dust 1 > profile-dust-grey.log
"""

from __future__ import annotations

import sys

import torch
from torch.profiler import ProfilerActivity, profile

from videodenoise.models.registry import build_model

MATRIX_OPS = ("aten::addmm", "aten::addmm_", "aten::mm", "aten::bmm")


def main() -> None:
    name, channels = sys.argv[1], int(sys.argv[2])
    model = build_model(name, channels=channels).eval()
    clip = torch.rand(1, 5, channels, 360, 640)
    with torch.no_grad():
        for _ in range(2):
            model(clip)
        with profile(activities=[ProfilerActivity.CPU]) as run:
            for _ in range(5):
                model(clip)
    events = run.key_averages()
    print(f"{name}, {channels} channel(s), five passes of 5×640×360, {torch.get_num_threads()} torch threads")
    print(events.table(sort_by="self_cpu_time_total", row_limit=16))
    total = sum(event.self_cpu_time_total for event in events)
    matrix = [event for event in events if event.key in MATRIX_OPS]
    share = sum(event.self_cpu_time_total for event in matrix) / total
    print(f"matrix products ({', '.join(MATRIX_OPS)}): {share:.0%} of the self time")


if __name__ == "__main__":
    main()

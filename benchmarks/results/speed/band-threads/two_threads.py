"""Would two bands at once, one torch thread each, beat one band at a time on two threads? A model's pass over a
5-frame 640×360 clip (`bench_models.test_clip`), timed three ways in turns, medians of 7: the whole clip on two torch
threads (as `clean` runs it); its top and bottom halves (rows 0-183 and 176-359, 8 rows shared as a band's halo
would be) each in a Python thread of its own with torch on one thread (torch's kernels release the GIL); the whole
clip on one torch thread. No grad (grad mode is per thread: each worker sets it).

    R=benchmarks/results/speed/band-threads
    for m in "dust 1" "ut 1" "dust 3"; do .venv/bin/python $R/two_threads.py $m; done > $R/two_threads.log
"""

from __future__ import annotations

import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # benchmarks/
from bench_models import test_clip  # noqa: E402

from videodenoise.models.registry import build_model  # noqa: E402

from _machine import cpu_name  # noqa: E402


def main() -> None:
    name, channels = sys.argv[1], int(sys.argv[2])
    torch.manual_seed(0)
    model = build_model(name, channels=channels).eval()
    clip = test_clip(5, channels, 360, 640, torch.device("cpu"))
    halves = [clip[..., :184, :].contiguous(), clip[..., 176:, :].contiguous()]
    pool = ThreadPoolExecutor(2)

    def half(part: torch.Tensor) -> torch.Tensor:
        with torch.no_grad():
            return model(part)

    def whole_on_two_threads() -> None:
        torch.set_num_threads(2)
        model(clip)

    def halves_in_two_python_threads() -> None:
        torch.set_num_threads(1)
        list(pool.map(half, halves))
        torch.set_num_threads(2)

    def whole_on_one_thread() -> None:
        torch.set_num_threads(1)
        model(clip)
        torch.set_num_threads(2)

    ways = [whole_on_two_threads, halves_in_two_python_threads, whole_on_one_thread]
    times: dict[str, list[float]] = {way.__name__: [] for way in ways}
    with torch.no_grad():
        for way in ways:
            way()
        for _ in range(7):
            for way in ways:
                start = time.perf_counter()
                way()
                times[way.__name__].append(time.perf_counter() - start)
    print(f"# {cpu_name()}; {name} {'grey' if channels == 1 else 'colour'}")
    for way, seconds in times.items():
        print(f"{name} {channels} {way:30s} {statistics.median(seconds) * 1e3:8.1f} ms")


if __name__ == "__main__":
    main()

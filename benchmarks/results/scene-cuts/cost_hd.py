"""What counting the runs that show two pictures costs σ auto on 1920×1080: the estimate of a 12-frame camera pan
over astronaut (a benchmark photograph, only timed here), Gaussian σ = 10, with `scene_cuts.across_cut` as shipped and
replaced by a stub that says no (in turns, best of three each; AMD EPYC, 2 threads).

    .venv/bin/python benchmarks/results/scene-cuts/cost_hd.py > benchmarks/results/scene-cuts/cost_hd.log
"""

import time

import torch

from videodenoise.datasets.motion import camera_motion_clip, load_photo
from videodenoise.noise import estimation


def seconds(noisy: torch.Tensor) -> float:
    start = time.perf_counter()
    estimation.estimate_clip_noise(noisy)
    return time.perf_counter() - start


def main() -> None:
    clip = camera_motion_clip(load_photo("skimage:astronaut"), 12, (1080, 1920), seed=1)
    noisy = (clip + 10 / 255 * torch.randn(clip.shape, generator=torch.Generator().manual_seed(0))).clamp(0, 1)
    shipped, times = estimation.across_cut, {True: [], False: []}
    for _ in range(3):  # in turns, so that a slower spell of the machine falls on both
        for counting in times:
            estimation.across_cut = shipped if counting else lambda *_: False
            times[counting].append(seconds(noisy))
    counted, without = min(times[True]), min(times[False])
    print(f"1080p, 12 frames, 8 runs: the estimate {counted:.2f} s with the count, {without:.2f} s without")


if __name__ == "__main__":
    main()

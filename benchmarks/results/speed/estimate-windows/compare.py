"""The noise estimate on large frames: whole frames (as before) against one window of 640×480 per run (now), on the
same noisy clips in one process, in turns: the functions side by side, their seconds, and `clean`'s PSNR told each.

Clips (first 24 frames): bigbuckbunny at its own 1280×720, and bigbuckbunny and bikes scaled to 1920×1080
(bicubic). Noise (seed 0): Gaussian σ = 10 and 25 (0-255), and the camera model (`videodenoise.noise.camera`) at the
light, medium and heavy presets through H.264 at CRF 18, 23 and 28. "Whole frames" sets
`estimation.WINDOW_PIXELS` above the frame's size, which is the code before to the line (`_windowed` passes runs
on as they are). In memory (`estimate_clip_noise`), so decoding is not in the seconds; then `estimate_video_noise`
on the 1920×1080 bikes clip stored as H.264 (CRF 23, one keyframe) and as FFV1, decoding included, three turns.
`clean` (the shipped default, fast preset) denoises the first 6 frames of the 1280×720 clip told each function.

    .venv/bin/python benchmarks/results/speed/estimate-windows/compare.py > compare.log
"""

from __future__ import annotations

import dataclasses
import os
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[4]
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_clean as bench  # noqa: E402

from _machine import cpu_name  # noqa: E402
from videodenoise.datasets.samples import fetch_sample_clips  # noqa: E402
from videodenoise.noise import estimation  # noqa: E402
from videodenoise.noise.camera import CAMERA_PRESETS  # noqa: E402

FRAMES, CLEAN_FRAMES = 24, 6
CONDITIONS = {
    "gaussian 10": None,
    "gaussian 25": None,
    "camera light, CRF 18": ("light", 18),
    "camera medium, CRF 23": ("medium", 23),
    "camera heavy, CRF 28": ("heavy", 28),
}
WHOLE = 10**12


def clips() -> dict[str, np.ndarray]:
    samples = fetch_sample_clips()
    bunny = bench.load_clip(samples["bigbuckbunny"], FRAMES)
    bikes = bench.load_clip(samples["bikes"], FRAMES)
    scale = lambda clip: np.stack([cv2.resize(f, (1920, 1080), interpolation=cv2.INTER_CUBIC) for f in clip])  # noqa: E731
    return {"bigbuckbunny 1280×720": bunny, "bigbuckbunny 1920×1080": scale(bunny), "bikes 1920×1080": scale(bikes)}


def noisy_clip(clean: np.ndarray, condition: str) -> torch.Tensor:
    """(T, 3, H, W) float in [0, 1]: the clip with `condition`'s noise, 8-bit."""
    camera = CONDITIONS[condition]
    tensor = torch.from_numpy(clean).permute(0, 3, 1, 2).float() / 255
    if camera is None:
        sigma = float(condition.split()[-1])
        return torch.from_numpy(bench.add_noise(clean, sigma)).permute(0, 3, 1, 2).float() / 255
    level, crf = camera
    return dataclasses.replace(CAMERA_PRESETS[level], crf=crf)(tensor, generator=torch.Generator().manual_seed(0))


def estimate(clip: torch.Tensor, window: int):
    estimation.WINDOW_PIXELS = window
    start = time.perf_counter()
    function = estimation.estimate_clip_noise(clip)
    return function, time.perf_counter() - start


def described(function) -> str:
    curve = " ".join(f"{255 * s:.1f}" for s in np.mean(function.sigmas, axis=0))
    grain = ",".join(f"{g:.2f}" for g in function.grain)
    return f"level {255 * function.level:.2f}, curve (mean of channels) {curve}, carried {function.carried:.2f}, grain {grain}"


def psnr(denoised: torch.Tensor, clean: torch.Tensor) -> float:
    rmse = torch.sqrt(torch.mean((denoised.clamp(0, 1) - clean) ** 2, dim=(1, 2, 3)))
    return float(torch.mean(-20 * torch.log10(rmse)))


def main() -> None:
    from videodenoise.denoise.denoiser import Denoiser
    from videodenoise.io.video import open_video
    from videodenoise.io.writers import write_video

    default_window = estimation.WINDOW_PIXELS
    print(f"{cpu_name()}, {os.cpu_count()} threads, torch threads {torch.get_num_threads()}", flush=True)
    denoiser = Denoiser.from_preset("fast")
    ratios, gaps = [], []
    for name, clean in clips().items():
        for condition in CONDITIONS:
            noisy = noisy_clip(clean, condition)
            truth = float(torch.sqrt(torch.mean((noisy - torch.from_numpy(clean).permute(0, 3, 1, 2) / 255) ** 2)))
            whole, whole_s = estimate(noisy, WHOLE)
            windowed, windowed_s = estimate(noisy, default_window)
            ratio = windowed.level / whole.level
            worst = float(np.max(np.abs(np.asarray(windowed.sigmas) / np.asarray(whole.sigmas) - 1)))
            ratios.append(ratio)
            print(f"{name}, {condition} (the error's RMS {255 * truth:.2f}):", flush=True)
            print(f"    whole frames {whole_s:6.2f} s: {described(whole)}")
            print(f"    windows      {windowed_s:6.2f} s: {described(windowed)}")
            print(f"    windows/whole: level {ratio:.3f}, curve points within {100 * worst:.1f} %, "
                  f"time {windowed_s / whole_s:.3f}", flush=True)
            if name.endswith("1280×720"):
                target = torch.from_numpy(clean[:CLEAN_FRAMES]).permute(0, 3, 1, 2).float() / 255
                told = [psnr(denoiser.denoise_clip(noisy[:CLEAN_FRAMES], sigma=f), target) for f in (whole, windowed)]
                gaps.append(told[1] - told[0])
                print(f"    clean, first {CLEAN_FRAMES} frames told each: whole {told[0]:.2f} dB, windows "
                      f"{told[1]:.2f} dB ({told[1] - told[0]:+.2f})", flush=True)
    print(f"level windows/whole over all: {min(ratios):.3f} to {max(ratios):.3f}; clean's PSNR windows − whole: "
          f"{min(gaps):+.2f} to {max(gaps):+.2f} dB", flush=True)

    large = clips()["bikes 1920×1080"]
    noisy = bench.add_noise(large, 25.0)
    with tempfile.TemporaryDirectory() as scratch:
        files = {
            "H.264 CRF 23, one keyframe": write_video(Path(scratch) / "large.mp4", list(noisy), fps=25, crf=23),
            "FFV1": bench.write_lossless(Path(scratch) / "large.mkv", noisy),
        }
        for label, path in files.items():
            seconds = {"whole frames": [], "windows": []}
            for _ in range(3):
                for arm, window in (("whole frames", WHOLE), ("windows", default_window)):
                    estimation.WINDOW_PIXELS = window
                    start = time.perf_counter()
                    estimation.estimate_video_noise(open_video(path))
                    seconds[arm].append(time.perf_counter() - start)
            listed = {arm: ", ".join(f"{s:.2f}" for s in values) for arm, values in seconds.items()}
            ratio = np.median(seconds["windows"]) / np.median(seconds["whole frames"])
            print(f"estimate_video_noise, bikes 1920×1080 σ = 25, {FRAMES} frames, {label}: whole frames "
                  f"{listed['whole frames']} s; windows {listed['windows']} s; windows/whole {ratio:.3f}", flush=True)


if __name__ == "__main__":
    from _script import run_main

    run_main(main)

"""How fast is `videodenoise clean`, how good against OpenCV's temporal non-local means, and is its
memory bounded whatever the video's length?

1. Speed and quality. Real colour clips: the first --frames frames of the bikes sample clip (640×272)
   and of bigbuckbunny downscaled to 640×360 (cv2.INTER_AREA), and a long one, the first
   --long-frames frames of bikes' 320×240 centre. Gaussian noise σ = 25 (0-255 scale, seed 0) is
   added once, clipped and rounded to 8 bits and stored losslessly (FFV1), so both methods see
   exactly the same noisy frames. `clean` runs as the command does (its default, the fast preset:
   decode, fuse, denoise, encode; lossless output so its PSNR is of its own frames, σ given) and is
   timed end to end after the model is loaded. OpenCV `fastNlMeansDenoisingColoredMulti` runs in the
   same process on the same frames with a centred 5-frame temporal window (OpenCV's window must lie
   inside the clip, so it shrinks to 3 and 1 frames at the ends), template 7, search 21, h = 0.4·σ,
   hColor = 0.6·σ (the settings of videodenoise.evaluation), timed over the frames alone.
   PSNR = −20·log10(RMSE), RMSE per frame on [0, 1] RGB, averaged over frames.
2. Window strategy. On a 320×272 crop of bikes, `clean`'s stride (centre frames kept per 5-frame
   window: 1, 3, 5; the model alone, no fusion) and, for a grey model, its colour handling (rgb,
   opponent): frames/s and PSNR.
4. Estimation's share. bikes, 320×240 centre crop, --estimation-frames frames through the camera model
   (`videodenoise.noise.camera`, medium preset, H.264 CRF 23) and stored as H.264 (CRF 18), as a
   camera file would come: `clean --sigma auto` (the fast preset, lossless output) timed end to end,
   and `estimate_video_noise` on the same file alone (what `auto` adds to it), each the best of two.
3. Memory. `clean` (the library call the CLI makes, default options, σ given, H.264 out) on a
   100-frame and a 1,000-frame colour clip of the same size, each in a fresh subprocess: the
   process's peak resident set (VmHWM from /proc/self/status, which includes Python, torch and the
   model; not getrusage's ru_maxrss, which on Linux inherits the parent's resident set at fork) and
   that peak minus the resident set once the model is loaded, just before denoising starts.

    .venv/bin/python benchmarks/bench_clean.py [--checkpoint PATH] [--frames 30] [--threads N] [--parts 1,2,3,4]

Without --checkpoint it uses the shipped checkpoint when present, else an untrained DUST (which is
already a sparse-coding denoiser) and says so.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import torch

from videodenoise.metrics import frame_rmse, psnr_from_rmse

from _machine import cpu_name
from _script import run_main
from bench_quality import centre_crop

SIGMA_255 = 25.0
NLM_WINDOW = 5
MEMORY_SIZE = (112, 192)  # H, W of the memory clips
MEMORY_FRAMES = (100, 1000)


def psnr(estimate: np.ndarray, clean: np.ndarray) -> float:
    """Frames (T, H, W, C) uint8: PSNR as `videodenoise evaluate` defines it (per frame, then averaged)."""
    return float(psnr_from_rmse(frame_rmse(estimate / 255.0, clean / 255.0)).mean())


def load_clip(path: Path, frames: int, size: tuple[int, int] | None = None) -> np.ndarray:
    """The first `frames` RGB frames (T, H, W, 3) uint8, resized to size=(H, W) with INTER_AREA."""
    import cv2

    from videodenoise.io.frames import to_uint8
    from videodenoise.io.video import open_video

    images = []
    for frame in open_video(path).frames(channels=3, count=frames):
        image = to_uint8(frame)
        if size is not None:
            image = cv2.resize(image, (size[1], size[0]), interpolation=cv2.INTER_AREA)
        images.append(image)
    return np.stack(images)


def add_noise(clean: np.ndarray, sigma_255: float, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    noisy = clean.astype(np.float64) + sigma_255 * rng.standard_normal(clean.shape)
    return np.clip(np.round(noisy), 0, 255).astype(np.uint8)


def write_lossless(path: Path, frames: np.ndarray, fps: float = 25) -> Path:
    from videodenoise.io.writers import write_video

    return write_video(path, list(frames), fps=fps, codec="ffv1", overwrite=True)


def read_frames(path: Path) -> np.ndarray:
    from videodenoise.io.frames import to_uint8
    from videodenoise.io.video import open_video

    return np.stack([to_uint8(frame) for frame in open_video(path).frames()])


def nlm_opencv(noisy: np.ndarray, sigma_255: float) -> np.ndarray:
    """fastNlMeansDenoisingColoredMulti, 5-frame centred window, h = 0.4σ, hColor = 0.6σ, template 7,
    search 21. OpenCV takes only centred windows inside the clip, so within 2 frames of an end the
    window shrinks to the largest centred odd one (the first and last frames are denoised alone)."""
    import cv2

    bgr = [np.ascontiguousarray(frame[:, :, ::-1]) for frame in noisy]
    out = []
    for index in range(len(bgr)):
        span = min(NLM_WINDOW, 2 * min(index, len(bgr) - 1 - index) + 1)
        first = index - span // 2
        if span == 1:
            image = cv2.fastNlMeansDenoisingColored(bgr[index], None, 0.4 * sigma_255, 0.6 * sigma_255, 7, 21)
        else:
            image = cv2.fastNlMeansDenoisingColoredMulti(
                bgr[first : first + span], span // 2, span, None, 0.4 * sigma_255, 0.6 * sigma_255, 7, 21
            )
        out.append(image[:, :, ::-1])
    return np.stack(out)


def make_denoiser(checkpoint: str | None, settings=None):
    """A denoiser on the CPU with `settings` (default: the model alone, DenoiseSettings())."""
    import dataclasses

    from videodenoise.denoise.denoiser import Denoiser
    from videodenoise.denoise.settings import DenoiseSettings
    from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT
    from videodenoise.models.registry import build_model

    settings = dataclasses.replace(settings or DenoiseSettings(), device="cpu")
    if checkpoint is not None or DEFAULT_CHECKPOINT.is_file():
        denoiser = Denoiser.from_checkpoint(checkpoint, settings)
        return denoiser, f"{denoiser.model.name} from {denoiser.checkpoint}"
    return Denoiser(build_model("dust", channels=1), settings), "an untrained grey DUST (no shipped checkpoint yet)"


def time_clean(denoiser, noisy_file: Path, out_file: Path, sigma_255: float | str) -> tuple[float, np.ndarray]:
    """`clean` on one file, told sigma_255 (0-255) or "auto": (frames/s, its output frames)."""
    from videodenoise.denoise.pipeline import denoise_video

    sigma = sigma_255 if sigma_255 == "auto" else sigma_255 / 255
    start = time.perf_counter()
    result = denoise_video(noisy_file, out_file, denoiser, sigma=sigma, format="lossless", overwrite=True)
    seconds = time.perf_counter() - start
    return result.frames / seconds, read_frames(out_file)


def long_clip(frames: int) -> np.ndarray:
    """Part 1's long clip as it is denoised: the first `frames` frames of bikes' 320×240 centre, σ = 25 (seed 0),
    uint8 (T, H, W, 3)."""
    from videodenoise.datasets.samples import fetch_sample_clips

    clean = load_clip(fetch_sample_clips()["bikes"], frames)
    return add_noise(centre_crop(clean.transpose(0, 3, 1, 2), (240, 320)).transpose(0, 2, 3, 1), SIGMA_255)


def nlm_seconds_per_frame(noisy: np.ndarray) -> float:
    """OpenCV NLM's time a frame on `noisy` (uint8 frames with σ = 25 noise), as part 1 times it."""
    start = time.perf_counter()
    nlm_opencv(noisy, SIGMA_255)
    return (time.perf_counter() - start) / len(noisy)


def long_clip_files(folder: Path, frames: int, short_frames: int) -> tuple[Path, Path, float]:
    """The long clip (`long_clip`) stored losslessly in `folder`, whole and its first `short_frames` frames (for the
    slow presets), and OpenCV NLM's s/frame on it, printed: (long file, short file, NLM's s/frame)."""
    noisy = long_clip(frames)
    long_file = write_lossless(folder / "noisy.mkv", noisy)
    short_file = write_lossless(folder / "short.mkv", noisy[:short_frames])
    nlm = nlm_seconds_per_frame(noisy)
    print(f"OpenCV NLM on the long clip ({frames} frames of 320×240): {nlm:.4f} s/frame")
    return long_file, short_file, nlm


def time_in_turns(
    arms: dict, noisy_file: Path, out_file: Path, repeats: int, sigma_255: float | str = SIGMA_255
) -> tuple[dict, dict]:
    """`clean` on one file with each arm in turn, `repeats` rounds: arms maps a name to a function that sets the arm
    up and returns its denoiser; told sigma_255 or "auto". → ({name: [s/frame of each round]}, {name: its last
    output frames})."""
    times, outputs = {name: [] for name in arms}, {}
    for _ in range(repeats):
        for name, arm in arms.items():
            fps, outputs[name] = time_clean(arm(), noisy_file, out_file, sigma_255)
            times[name].append(1 / fps)
    return times, outputs


def in_turns_parser(description: str) -> argparse.ArgumentParser:
    """The options of the scripts that time `clean` in turns on the long clip (benchmarks/results/*/): --repeats,
    --frames of the long clip, --best-frames of its start for the slow presets."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--frames", type=int, default=100)
    parser.add_argument("--best-frames", type=int, default=20)
    return parser


def long_clip_runs(args, runs: list[tuple[str, object, bool]]) -> Iterator[tuple[str, object, Path, Path, float]]:
    """For each (name, denoiser, long) of `runs`: (title, denoiser, its noisy file, an output file, OpenCV NLM's
    s/frame), the file the long clip of args.frames frames (long) or its first args.best_frames; the files written
    once (`long_clip_files`) in a folder that lasts until the runs are done."""
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        long_file, short_file, nlm = long_clip_files(folder, args.frames, args.best_frames)
        for name, denoiser, long in runs:
            frames = args.frames if long else args.best_frames
            yield (
                f"{name}, {frames} frames of 320×240",
                denoiser,
                long_file if long else short_file,
                folder / "out.mkv",
                nlm,
            )


def compare_in_turns(
    title: str, denoiser, module, name: str, values: dict, noisy_file: Path, out_file: Path, repeats: int, nlm: float
) -> None:
    """`report_in_turns` with `denoiser` and the module constant `module.name` at each of two values (before, after:
    a label each), the constant restored after."""
    kept = getattr(module, name)

    def arm(value):
        setattr(module, name, value)
        return denoiser

    try:
        arms = {label: (lambda value=value: arm(value)) for label, value in values.items()}
        report_in_turns(title, arms, noisy_file, out_file, repeats, nlm)
    finally:
        setattr(module, name, kept)


def report_in_turns(
    title: str,
    arms: dict,
    noisy_file: Path,
    out_file: Path,
    repeats: int,
    nlm: float,
    sigma_255: float | str = SIGMA_255,
) -> None:
    """`clean` with two arms (before, after: a label each, mapped to a function that sets the arm up and returns its
    denoiser), timed in turns (`time_in_turns`, told sigma_255 or "auto"); prints each round's s/frame, the medians,
    their ratio, each over OpenCV NLM's `nlm` s/frame, and how far apart the two outputs are."""
    times, outputs = time_in_turns(arms, noisy_file, out_file, repeats, sigma_255)
    first, second = (statistics.median(times[label]) for label in arms)
    apart = np.abs(np.subtract(*[o.astype(np.int32) for o in outputs.values()])).max()
    runs = "; ".join(f"{label}: " + ", ".join(f"{t:.4f}" for t in times[label]) for label in arms)
    print(f"\n{title}, s/frame ({runs})")
    print(f"  medians {first:.4f} → {second:.4f}: {first / second:.3f}× as fast; outputs at most {apart} levels apart")
    print(f"  × OpenCV NLM's time: {first / nlm:.3f} → {second / nlm:.3f}")


def speed_and_quality(args, folder: Path) -> None:
    from videodenoise.datasets.samples import fetch_sample_clips
    from videodenoise.denoise.settings import PRESETS

    clips = fetch_sample_clips()
    denoiser, described = make_denoiser(args.checkpoint, PRESETS["fast"])
    print(
        f"model: {described}; window {denoiser.window}, stride {denoiser.stride}, tile {denoiser.tile}, "
        f"colour {denoiser.colour}, σ_train {denoiser.sigma_train * 255:.3g}"
    )
    print(f"\n1. speed and PSNR at σ = {SIGMA_255:g}, `clean` (fast preset) and OpenCV NLM on the same noisy frames")
    print(
        f"{'clip':<34}{'noisy dB':>9}{'clean dB':>9}{'clean fps':>10}{'NLM dB':>8}{'NLM fps':>9}"
        f"{'clean/NLM speed':>17}{'clean/NLM time':>16}"
    )
    for name, path, frames, size, crop in (
        (f"bikes 640×272, {args.frames} frames", clips["bikes"], args.frames, None, None),
        (f"bigbuckbunny → 640×360, {args.frames} fr.", clips["bigbuckbunny"], args.frames, (360, 640), None),
        (f"bikes 320×240, {args.long_frames} frames", clips["bikes"], args.long_frames, None, (240, 320)),
    ):
        clean = load_clip(path, frames, size)
        if crop is not None:
            clean = centre_crop(clean.transpose(0, 3, 1, 2), crop).transpose(0, 2, 3, 1)
        noisy = add_noise(clean, SIGMA_255)
        noisy_file = write_lossless(folder / "noisy.mkv", noisy)
        fps, denoised = time_clean(denoiser, noisy_file, folder / "clean.mkv", SIGMA_255)
        start = time.perf_counter()
        nlm = nlm_opencv(noisy, SIGMA_255)
        nlm_fps = len(noisy) / (time.perf_counter() - start)
        print(
            f"{name:<34}{psnr(noisy, clean):9.2f}{psnr(denoised, clean):9.2f}{fps:10.3f}{psnr(nlm, clean):8.2f}"
            f"{nlm_fps:9.3f}{fps / nlm_fps:16.2f}×{nlm_fps / fps:15.2f}×",
            flush=True,
        )


def window_strategy(args, folder: Path) -> None:
    from videodenoise.datasets.samples import fetch_sample_clips
    from videodenoise.denoise.settings import DenoiseSettings

    clean = load_clip(fetch_sample_clips()["bikes"], args.strategy_frames)[:, :, 160:480]
    noisy = add_noise(clean, SIGMA_255, seed=1)
    noisy_file = write_lossless(folder / "crop.mkv", noisy)
    print(
        f"\n2. window strategy on a 320×272 crop of bikes, {len(clean)} frames, σ = {SIGMA_255:g} "
        f"(noisy {psnr(noisy, clean):.2f} dB)"
    )
    print(f"{'stride':>6}  {'colour':<9}{'model calls/frame':>18}{'fps':>8}{'PSNR dB':>9}")
    for stride, colour in ((1, "rgb"), (3, "rgb"), (5, "rgb"), (3, "opponent")):
        denoiser, _ = make_denoiser(args.checkpoint, DenoiseSettings(stride=stride, colour=colour))
        if colour == "opponent" and denoiser.channels != 1:
            continue
        fps, denoised = time_clean(denoiser, noisy_file, folder / "crop.out.mkv", SIGMA_255)
        print(
            f"{stride:>6}  {colour:<9}{denoiser.window / stride:18.2f}{fps:8.3f}{psnr(denoised, clean):9.2f}",
            flush=True,
        )


def memory_child(clip: str, output: str, checkpoint: str | None) -> None:
    """Run in a fresh process: load the model, denoise as the CLI does (H.264 out), report memory."""
    from videodenoise.denoise.pipeline import denoise_video
    from videodenoise.denoise.settings import PRESETS

    denoiser, _ = make_denoiser(checkpoint, PRESETS["fast"])  # clean's defaults: fusion included
    with open("/proc/self/status") as file:  # resident set with Python, torch and the model loaded
        baseline = next(int(line.split()[1]) for line in file if line.startswith("VmRSS"))
    result = denoise_video(clip, output, denoiser, sigma=SIGMA_255 / 255, overwrite=True)
    # VmHWM, the peak of this process's own memory map: getrusage's ru_maxrss is not usable here,
    # since Linux carries the parent's resident set at fork over into the child's ru_maxrss
    with open("/proc/self/status") as file:
        peak = next(int(line.split()[1]) for line in file if line.startswith("VmHWM"))
    print(json.dumps({"frames": result.frames, "peak_kib": peak, "baseline_kib": baseline, "seconds": result.seconds}))


def memory(args, folder: Path) -> None:
    from videodenoise.io.writers import VideoWriter

    height, width = MEMORY_SIZE
    print(f"\n3. peak memory of clean on colour {width}×{height} clips (each run in a fresh process)")
    print(f"{'frames':>7}{'peak RSS MiB':>14}{'added by denoising MiB':>24}{'fps':>8}")
    rows = []
    y, x = np.meshgrid(np.linspace(0, 1, height), np.linspace(0, 1, width), indexing="ij")
    rng = np.random.default_rng(0)
    for count in MEMORY_FRAMES:
        path = folder / f"memory{count}.mp4"
        with VideoWriter(path, fps=25, overwrite=True) as writer:
            for k in range(count):
                image = np.stack([0.5 + 0.3 * np.sin(9 * x + 6 * y + 0.2 * k + c) for c in range(3)], axis=2)
                image += (SIGMA_255 / 255) * rng.standard_normal(image.shape)
                writer.write(np.clip(np.round(image * 255), 0, 255).astype(np.uint8))
        command = [sys.executable, __file__, "--memory-child", str(path), str(folder / f"memory{count}.out.mp4")]
        if args.checkpoint:
            command += ["--checkpoint", args.checkpoint]
        if args.threads:
            command += ["--threads", str(args.threads)]
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        row = json.loads(done.stdout.strip().splitlines()[-1])
        rows.append(row)
        print(
            f"{row['frames']:>7}{row['peak_kib'] / 1024:14.1f}{(row['peak_kib'] - row['baseline_kib']) / 1024:24.1f}"
            f"{row['frames'] / row['seconds']:8.2f}",
            flush=True,
        )

    def added(row: dict) -> float:  # what denoising adds to the process's memory, in KiB
        return max(row["peak_kib"] - row["baseline_kib"], 1)

    print(
        f"ratio of peaks 1000/100 frames: {rows[1]['peak_kib'] / rows[0]['peak_kib']:.3f} "
        f"(added by denoising: {added(rows[1]) / added(rows[0]):.3f})"
    )


def estimation_share(args, folder: Path) -> None:
    from videodenoise.datasets.samples import fetch_sample_clips
    from videodenoise.denoise.pipeline import denoise_video
    from videodenoise.denoise.settings import PRESETS
    from videodenoise.io.video import open_video
    from videodenoise.io.writers import write_video
    from videodenoise.noise.camera import CAMERA_PRESETS
    from videodenoise.noise.estimation import estimate_video_noise

    frames = load_clip(fetch_sample_clips()["bikes"], args.estimation_frames)  # (T, H, W, 3)
    clip = torch.from_numpy(centre_crop(frames.transpose(0, 3, 1, 2), (240, 320))).float() / 255
    noisy = CAMERA_PRESETS["medium"](clip, generator=torch.Generator().manual_seed(0))
    video = folder / "camera.mp4"
    write_video(video, list(noisy), fps=25, crf=18)
    denoiser, described = make_denoiser(args.checkpoint, PRESETS["fast"])

    def best_of_two(run) -> float:
        times = []
        for _ in range(2):
            start = time.perf_counter()
            run()
            times.append(time.perf_counter() - start)
        return min(times)

    estimate = best_of_two(lambda: estimate_video_noise(open_video(video)))
    whole = best_of_two(
        lambda: denoise_video(video, folder / "out.mkv", denoiser, sigma="auto", format="lossless", overwrite=True)
    )
    print(
        f"\n4. estimation's share of `clean --sigma auto` ({described}, fast preset), "
        f"{len(noisy)} frames of 320×240 camera noise in H.264"
    )
    print(f"estimation {estimate:.2f} s, clean {whole:.2f} s in all: {100 * estimate / whole:.1f} %")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", default=None)
    parser.add_argument("--frames", type=int, default=30, help="frames of each clip for part 1")
    parser.add_argument("--long-frames", type=int, default=100, help="frames of part 1's long 320×240 clip")
    parser.add_argument("--strategy-frames", type=int, default=15, help="frames of the crop for part 2")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--estimation-frames", type=int, default=100, help="frames of the clip for part 4")
    parser.add_argument("--parts", default="1,2,3,4")
    parser.add_argument("--memory-child", nargs=2, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    if args.memory_child:
        memory_child(*args.memory_child, args.checkpoint)
        return
    import cv2

    print(
        f"{cpu_name()}, {os.cpu_count()} cores, torch {torch.__version__} ({torch.get_num_threads()} threads), "
        f"OpenCV {cv2.__version__} ({cv2.getNumThreads()} threads); load average at start "
        f"{', '.join(f'{v:.2f}' for v in os.getloadavg())}"
    )
    with tempfile.TemporaryDirectory(prefix="bench-clean-") as tmp:
        folder = Path(tmp)
        parts = {part.strip() for part in args.parts.split(",")}
        if "1" in parts:
            speed_and_quality(args, folder)
        if "2" in parts:
            window_strategy(args, folder)
        if "3" in parts:
            memory(args, folder)
        if "4" in parts:
            estimation_share(args, folder)
    print(f"load average at end {', '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    run_main(main)

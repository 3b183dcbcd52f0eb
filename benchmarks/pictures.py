"""Before and after pictures of `clean --sigma auto`: what a user sees, crop by crop.

    .venv/bin/python benchmarks/pictures.py                      # writes docs/pictures/*.png
    .venv/bin/python benchmarks/pictures.py --out /tmp/pictures --checkpoint runs/x/last.safetensors

Three cases, each one PNG of crops (2× nearest-neighbour, so single pixels show) from the middle frame
of a 5-frame clip, the noise estimate's one-line summary in the caption:

* `bikes-as-it-comes`: the sample clip bikes.mp4 as it is decoded: a real camera's footage with its
  own grain and H.264 residue, no clean reference. Input | `clean` | ffmpeg's dctdnoiz told the σ the
  estimator reports (what a user who trusts the estimate would set).
* `bikes-shadows-lifted`: the same frames four times brighter in linear light (shadows lifted as in
  an editor, what one does with dark footage), re-quantised to 8 bits: the real noise and codec residue
  of the file's dark parts, amplified four times, no clean reference. Same columns.
* `camera-heavy-crf23`: a held-out benchmark pan (astronaut) through the camera model at the real-noise
  benchmark's heavy level, H.264 CRF 23, with its clean reference: input | `clean` | ffmpeg's best
  filter and setting for this clip (chosen on the reference: an oracle) | reference, with PSNRs.

bikes is a benchmark clip and astronaut a benchmark photograph: neither played a part in training or
in choosing a checkpoint.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_realnoise as realnoise  # noqa: E402

import bench_quality as quality  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "docs" / "pictures"
FRAMES = 5
CROP = (112, 160)  # rows, columns of each crop, before the 2× zoom
ZOOM = 2
LIFT = 4.0  # exposure gain in linear light for the shadows-lifted case


def middle_crop(frames: np.ndarray, top: int, left: int) -> np.ndarray:
    """uint8 (T, 3, H, W) → the middle frame's crop as (h·ZOOM, w·ZOOM, 3) uint8."""
    frame = frames[len(frames) // 2, :, top : top + CROP[0], left : left + CROP[1]].transpose(1, 2, 0)
    return np.repeat(np.repeat(frame, ZOOM, axis=0), ZOOM, axis=1)


def lift_shadows(frames: np.ndarray) -> np.ndarray:
    """uint8 sRGB frames LIFT times brighter in linear light, clipped and rounded back to 8 bits."""
    from videodenoise.noise.camera import linear_to_srgb, srgb_to_linear

    linear = srgb_to_linear(torch.from_numpy(frames).float() / 255.0)
    return quality.to_uint8(linear_to_srgb((LIFT * linear).clamp(0, 1)).numpy())


def denoise(denoiser, frames: np.ndarray):
    """(`clean`'s output as uint8, the estimate) for uint8 frames."""
    from videodenoise.noise.estimation import estimate_clip_noise

    clip = torch.from_numpy(frames).float() / 255.0
    estimate = estimate_clip_noise(clip)
    return quality.to_uint8(denoiser.denoise_clip(clip, estimate).numpy()), estimate


def dctdnoiz(frames: np.ndarray, sigma_255: float) -> np.ndarray:
    return realnoise.ffmpeg_filter(frames, "dctdnoiz", f"sigma={sigma_255:.3g}")


def best_ffmpeg(noisy: np.ndarray, clean: np.ndarray) -> tuple[np.ndarray, str, float]:
    """ffmpeg's best filter and setting on this clip, judged against its clean frames (an oracle)."""
    best = None
    for spec in realnoise.FFMPEG_FILTERS.values():
        for value in spec.values:
            out = realnoise.ffmpeg_filter(noisy, spec.name, spec.args(value))
            psnr = quality.measure(out.astype(np.float32) / 255.0, clean)["psnr"]
            if best is None or psnr > best[2]:
                best = (out, f"ffmpeg {spec.name} {spec.setting(value)}", psnr)
    return best


def figure(path: Path, panels: list[tuple[str, np.ndarray]], caption: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from videodenoise.io.atomic import temporary_name

    height, width = panels[0][1].shape[:2]
    fig, axes = plt.subplots(1, len(panels), figsize=(len(panels) * width / 100, height / 100 + 0.7), dpi=100)
    for axis, (title, image) in zip(np.atleast_1d(axes), panels):
        axis.imshow(image, interpolation="nearest")
        axis.set_title(title, fontsize=8)
        axis.axis("off")
    fig.text(0.5, 0.01, caption, ha="center", fontsize=7, wrap=True)
    fig.subplots_adjust(left=0.005, right=0.995, top=0.9, bottom=0.1, wspace=0.02)
    temporary = temporary_name(path)
    fig.savefig(temporary, format="png")
    plt.close(fig)
    temporary.replace(path)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--checkpoint", type=Path, default=None, help="default: the shipped default checkpoint")
    args = parser.parse_args(argv)
    from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT

    denoiser = realnoise.load_clean(args.checkpoint or DEFAULT_CHECKPOINT, {}, "auto")
    args.out.mkdir(parents=True, exist_ok=True)

    bikes = quality.load_real_clip("bikes", FRAMES, quality.DEFAULT_SIZE).frames
    top, left = (bikes.shape[2] - CROP[0]) // 2, (bikes.shape[3] - CROP[1]) // 2
    for name, frames in (("bikes-as-it-comes", bikes), ("bikes-shadows-lifted", lift_shadows(bikes))):
        out, estimate = denoise(denoiser, frames)
        told = estimate.told_level * 255
        panels = [
            ("input (no clean reference)", middle_crop(frames, top, left)),
            ("videodenoise clean --sigma auto", middle_crop(out, top, left)),
            (f"ffmpeg dctdnoiz sigma={told:.3g} (the estimate)", middle_crop(dctdnoiz(frames, told), top, left)),
        ]
        figure(args.out / f"{name}.png", panels, f"estimated: {estimate.summary()}")
        print(f"{name}: {estimate.summary()}")

    photo = quality.make_pan_clip("skimage:astronaut", FRAMES, quality.DEFAULT_SIZE)
    noise = realnoise.camera_noise("heavy", "h264", 23)
    noisy = realnoise.add_camera_noise(photo.frames, noise, realnoise.camera_seed(photo.name, "heavy", "h264", 23))
    out, estimate = denoise(denoiser, noisy)
    ffmpeg, label, ffmpeg_psnr = best_ffmpeg(noisy, photo.frames)
    score = {
        name: quality.measure(x.astype(np.float32) / 255.0, photo.frames)["psnr"]
        for name, x in (("in", noisy), ("out", out))
    }
    top, left = 40, (photo.frames.shape[3] - CROP[1]) // 2
    panels = [
        (f"input, {score['in']:.2f} dB", middle_crop(noisy, top, left)),
        (f"videodenoise clean --sigma auto, {score['out']:.2f} dB", middle_crop(out, top, left)),
        (f"{label} (best for this clip), {ffmpeg_psnr:.2f} dB", middle_crop(ffmpeg, top, left)),
        ("clean reference", middle_crop(photo.frames, top, left)),
    ]
    caption = f"camera noise a={noise.a:g}, b={noise.b:g}, H.264 CRF 23; estimated: {estimate.summary()}"
    figure(args.out / "camera-heavy-crf23.png", panels, caption)
    print(f"camera-heavy-crf23: input {score['in']:.2f} dB, clean {score['out']:.2f} dB, {label} {ffmpeg_psnr:.2f} dB")


if __name__ == "__main__":
    main()

"""Before and after pictures of `clean --sigma auto`: what a user sees, crop by crop.

    .venv/bin/python benchmarks/pictures.py                      # writes docs/pictures/*.png
    .venv/bin/python benchmarks/pictures.py --out /tmp/pictures --checkpoint runs/x/last.safetensors
    .venv/bin/python benchmarks/pictures.py --cases texture      # one case only

Five cases, each one PNG of crops (2× nearest-neighbour, so single pixels show) from the middle frame
of a 5-frame clip (for bikes its darkest part, where a camera's noise shows most), the noise
estimate's one-line summary in the caption:

* `bikes-as-it-comes`: the sample clip bikes.mp4 as it is decoded: a real camera's footage with its
  own grain and H.264 residue, no clean reference. Input | `clean` | ffmpeg's dctdnoiz told the σ the
  estimator reports (what a user who trusts the estimate would set).
* `camera-heavy-crf23`, `camera-medium-crf28`: a held-out benchmark pan (astronaut) through the camera
  model at the real-noise benchmark's heavy level, H.264 CRF 23 (where `clean` is ahead of ffmpeg), and
  at its medium level, CRF 28 (where it was behind on average until the carried-noise lift), with the
  clean reference: input | `clean` | ffmpeg's best filter and setting for this clip (chosen on the
  reference: an oracle) | reference, with PSNRs.
* `texture-no-noise-crf18` (fifty-second session): where `clean` does harm, a validation clip of fine texture with
  pieces moving on their own (gravel-objects) through H.264 CRF 18 with no noise at all: input | `clean` σ auto |
  `clean --sigma 2` | reference (`benchmarks/results/faint-share/codec_only.log`: 2.65 dB under the input).
* `camera-dark-medium-crf23` (forty-sixth session): the same pan darkened 8× in linear light under the medium level
  at CRF 23, where σ auto is weakest: input | `clean` σ auto | `clean --sigma 28` | `--sigma 36` | reference (the
  comparison `clean`'s dark-footage warning asks for; `benchmarks/results/night-hint/brightness-held-out.log`).

bikes is the only real footage the project has offline, and it is nearly noise-free (σ ≈ 0.2-0.6):
its picture shows that `clean` leaves such footage alone, not how it removes a camera's noise.

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
import bench_quality as quality  # noqa: E402
import bench_realnoise as realnoise  # noqa: E402
from _script import run_main  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "docs" / "pictures"
FRAMES = 5
CROP = (112, 160)  # rows, columns of each crop, before the 2× zoom
ZOOM = 2


def middle_crop(frames: np.ndarray, top: int, left: int) -> np.ndarray:
    """uint8 (T, 3, H, W) → the middle frame's crop as (h·ZOOM, w·ZOOM, 3) uint8."""
    frame = frames[len(frames) // 2, :, top : top + CROP[0], left : left + CROP[1]].transpose(1, 2, 0)
    return np.repeat(np.repeat(frame, ZOOM, axis=0), ZOOM, axis=1)


def darkest_crop(frames: np.ndarray) -> tuple[int, int]:
    """(top, left) of the CROP-sized window with the darkest mean in the middle frame (on a 16-pixel grid):
    where a camera's noise shows most."""
    grey = frames[len(frames) // 2].astype(np.float64).mean(axis=0)
    corners = [
        (top, left)
        for top in range(0, grey.shape[0] - CROP[0] + 1, 16)
        for left in range(0, grey.shape[1] - CROP[1] + 1, 16)
    ]
    return min(corners, key=lambda c: grey[c[0] : c[0] + CROP[0], c[1] : c[1] + CROP[1]].mean())


def denoise(denoiser, frames: np.ndarray):
    """(`clean`'s output as uint8, the estimate) for uint8 frames."""
    from videodenoise.noise.estimation import estimate_clip_noise

    clip = torch.from_numpy(frames).float() / 255.0
    estimate = estimate_clip_noise(clip)
    return quality.to_uint8(denoiser.denoise_clip(clip, estimate).numpy()), estimate


def psnr_of(frames: np.ndarray, reference: np.ndarray) -> float:
    """PSNR of uint8 frames against the clean uint8 reference, as the benchmarks measure it."""
    return quality.measure(frames.astype(np.float32) / 255.0, reference)["psnr"]


def dctdnoiz(frames: np.ndarray, sigma_255: float) -> np.ndarray:
    return realnoise.ffmpeg_filter(frames, "dctdnoiz", f"sigma={sigma_255:.3g}")


def best_ffmpeg(noisy: np.ndarray, clean: np.ndarray) -> tuple[np.ndarray, str, float]:
    """ffmpeg's best filter and setting on this clip, judged against its clean frames (an oracle)."""
    best = None
    for spec in realnoise.FFMPEG_FILTERS.values():
        for value in spec.values:
            out = spec.apply(noisy, value)
            psnr = psnr_of(out, clean)
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
    parser.add_argument("--cases", default=",".join(CASES), help=f"comma-separated, of: {', '.join(CASES)}")
    args = parser.parse_args(argv)
    cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    if not cases or set(cases) - set(CASES):
        raise SystemExit(f"--cases: choose from {', '.join(CASES)}")
    from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT

    denoiser = quality.load_denoiser(args.checkpoint or DEFAULT_CHECKPOINT, {})
    args.out.mkdir(parents=True, exist_ok=True)

    if "bikes" in cases:
        bikes_case(denoiser, args.out)
    if "camera" in cases or "dark" in cases:  # the astronaut pan both draw on
        photo = quality.make_pan_clip("skimage:astronaut", FRAMES, quality.DEFAULT_SIZE)
    if "camera" in cases:
        for level, crf in (("heavy", 23), ("medium", 28)):
            camera_case(denoiser, photo, level, crf, args.out)
    if "dark" in cases:
        dark_case(denoiser, photo, args.out)
    if "texture" in cases:
        texture_case(denoiser, args.out)


def bikes_case(denoiser, out_folder: Path) -> None:
    bikes = quality.load_real_clip("bikes", FRAMES, None).frames  # the whole 640×272 frame
    top, left = darkest_crop(bikes)
    out, estimate = denoise(denoiser, bikes)
    told = estimate.told_level * 255
    panels = [
        ("input (no clean reference)", middle_crop(bikes, top, left)),
        ("videodenoise clean --sigma auto", middle_crop(out, top, left)),
        (f"ffmpeg dctdnoiz sigma={told:.2g} (the estimate)", middle_crop(dctdnoiz(bikes, told), top, left)),
    ]
    figure(out_folder / "bikes-as-it-comes.png", panels, f"estimated: {estimate.summary()}")
    print(f"bikes-as-it-comes: {estimate.summary()}")


def camera_case(denoiser, photo, level: str, crf: int, out_folder: Path) -> None:
    noisy = realnoise.camera_draw(photo, level, "h264", crf)
    out, estimate = denoise(denoiser, noisy)
    ffmpeg, label, ffmpeg_psnr = best_ffmpeg(noisy, photo.frames)
    score = {"in": psnr_of(noisy, photo.frames), "out": psnr_of(out, photo.frames)}
    top, left = 40, (photo.frames.shape[3] - CROP[1]) // 2
    panels = [
        (f"input, {score['in']:.2f} dB", middle_crop(noisy, top, left)),
        (f"videodenoise clean --sigma auto, {score['out']:.2f} dB", middle_crop(out, top, left)),
        (f"{label} (best for this clip), {ffmpeg_psnr:.2f} dB", middle_crop(ffmpeg, top, left)),
        ("clean reference", middle_crop(photo.frames, top, left)),
    ]
    noise = realnoise.camera_noise(level, "h264", crf)
    caption = f"camera noise a={noise.a:g}, b={noise.b:g}, H.264 CRF {crf}; estimated: {estimate.summary()}"
    name = f"camera-{level}-crf{crf}"
    figure(out_folder / f"{name}.png", panels, caption)
    print(f"{name}: input {score['in']:.2f} dB, clean {score['out']:.2f} dB, {label} {ffmpeg_psnr:.2f} dB")


def dark_case(denoiser, photo, out_folder: Path) -> None:
    """Where σ auto is weakest: the pan darkened 8× in linear light (night footage), the camera model's medium noise
    through H.264 CRF 23, as `night-hint/brightness.py held-out` measures it; σ auto against the σ told by hand
    that `clean`'s dark-footage warning asks to compare."""
    dark = quality.underexposed(photo, 0.125)
    noisy = realnoise.camera_draw(dark, "medium", "h264", 23)  # the draw brightness.py made (the clip keeps its name)
    panels, score, estimate = auto_against_told(
        denoiser, noisy, dark.frames, (28, 36), 40, f"mean level {noisy.mean():.0f}"
    )
    camera = realnoise.camera_noise("medium", "h264", 23)
    caption = f"darkened 8×, camera noise a={camera.a:g}, b={camera.b:g}, H.264 CRF 23; estimated: {estimate.summary()}"
    figure(out_folder / "camera-dark-medium-crf23.png", panels, caption)
    told_text = ", ".join(f"--sigma {s} {score[s]:.2f} dB" for s in (28, 36))
    print(f"camera-dark-medium-crf23: input {score['in']:.2f} dB, σ auto {score['out']:.2f} dB, {told_text}")


def texture_case(denoiser, out_folder: Path) -> None:
    """Where `clean` does harm: fine texture compressed with no noise at all, σ auto against `--sigma 2`, the
    comparison its codec-loss hint asks for (`benchmarks/results/faint-share/codec_only.log`)."""
    from codec_ceiling import codec_encoded

    clip = quality.build_clips(["gravel-objects"], FRAMES, quality.DEFAULT_SIZE)[0]
    noisy = codec_encoded(clip.frames, "h264", 18)
    panels, score, estimate = auto_against_told(denoiser, noisy, clip.frames, (2,), 64)
    hint = "; clean warns that this may be a codec's loss" if estimate.may_be_codec_loss else ""
    caption = f"no noise, H.264 CRF 18; estimated: {estimate.summary()}{hint}"
    figure(out_folder / "texture-no-noise-crf18.png", panels, caption)
    scores = f"input {score['in']:.2f} dB, σ auto {score['out']:.2f} dB, --sigma 2 {score[2]:.2f} dB"
    print(f"texture-no-noise-crf18: {scores}{hint}")


def auto_against_told(denoiser, noisy: np.ndarray, reference: np.ndarray, sigmas, top: int, about_input: str = ""):
    """The comparison `clean`'s warnings ask for: (panels input | σ auto | each σ told | reference, PSNR by "in",
    "out" and σ, σ auto's estimate), the crops `top` rows down and centred."""
    out, estimate = denoise(denoiser, noisy)
    clip = torch.from_numpy(noisy).float() / 255.0
    told = {sigma: quality.to_uint8(denoiser.denoise_clip(clip, sigma / 255).numpy()) for sigma in sigmas}
    score = {name: psnr_of(x, reference) for name, x in (("in", noisy), ("out", out), *told.items())}
    left = (reference.shape[3] - CROP[1]) // 2
    about = f" ({about_input})" if about_input else ""
    panels = [
        (f"input{about}, {score['in']:.2f} dB", middle_crop(noisy, top, left)),
        (f"clean --sigma auto, {score['out']:.2f} dB", middle_crop(out, top, left)),
        *[(f"clean --sigma {s}, {score[s]:.2f} dB", middle_crop(told[s], top, left)) for s in told],
        ("clean reference", middle_crop(reference, top, left)),
    ]
    return panels, score, estimate


CASES = ("bikes", "camera", "dark", "texture")

if __name__ == "__main__":
    run_main(main)

"""How `clean` should turn a file's 8-bit YUV into RGB: the reader's three candidate conversions, each through the
whole of `clean` on files as a camera writes them. The twelve validation clips (10 frames, 240×320; none a benchmark
clip) through the camera model's sensor at each level of `CAMERA_PRESETS`, coded by libx264 at CRF 18, 23 and 28 into
a 4:2:0 .mp4 as `lossless-output/camera.py` codes them; and with Gaussian noise (σ = 5 and 25) coded at CRF 18. Each
file is cleaned in process as `clean` does by default (the `fast` preset, σ auto) with the reader set to each arm,
written without loss (FFV1 RGB, read back exactly) and scored against the clean frames. The arms
(`videodenoise.io.pyav_reader.RGB_CONVERSION`):

- `default`: libswscale's default path (the reader's, which both trials left in place): chroma repeated, coarse
  rounding;
- `bilinear`: chroma interpolated bilinearly, exact rounding (`BILINEAR|ACCURATE_RND|FULL_CHR_H_INT`);
- `bicubic`: chroma interpolated bicubically, exact rounding (`BICUBIC|ACCURATE_RND|FULL_CHR_H_INT`).

(Chroma repeated with exact rounding, `POINT|ACCURATE_RND|FULL_CHR_H_INT`, is no arm: on decoded H.264 frames, whose
chroma is sited left as H.264 assumes by default, it picks the neighbouring sample for every other column and the
colour clips' round trip falls 2.6 dB under the default path's: `roundtrip.py`.)

Printed per condition: the input's and the output's mean PSNR under each arm, and the output's gain over `default`
with its lowest and highest over clips; then each clip's gain averaged over the conditions, with the 95 % t interval
of their mean. The rules are in this folder's README, each fixed before its run.

    R=benchmarks/results/read-precision; .venv/bin/python $R/arms.py > $R/arms.log   # first trial
    .venv/bin/python $R/arms.py 2 > $R/arms-second.log   # second: fresh clips, bicubic against the default only
"""

from __future__ import annotations

import sys
import tempfile
from fractions import Fraction
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import validation_sweep as validation  # noqa: E402

from videodenoise.denoise.denoiser import Denoiser  # noqa: E402
from videodenoise.denoise.pipeline import denoise_video  # noqa: E402
from videodenoise.evaluation.statistics import mean_interval  # noqa: E402
from videodenoise.io import pyav_reader  # noqa: E402
from videodenoise.io.video import read_video  # noqa: E402
from videodenoise.io.writers import write_video  # noqa: E402

import bench_quality as quality  # noqa: E402
import bench_realnoise as realnoise  # noqa: E402
from _machine import cpu_name  # noqa: E402

FRAMES = 10
ARMS = {
    "default": None,
    "bilinear": ("BILINEAR", "ACCURATE_RND", "FULL_CHR_H_INT"),
    "bicubic": ("BICUBIC", "ACCURATE_RND", "FULL_CHR_H_INT"),
}
CONDITIONS = [(level, crf) for level in realnoise.DEFAULT_LEVELS for crf in realnoise.DEFAULT_CRFS]
CONDITIONS += [("gaussian-5", 18), ("gaussian-25", 18)]


def noisy_file(path: Path, clip: quality.Clip, level: str, crf: int) -> Path:
    """The clip as a camera's H.264 file: its sensor (seeded as the real-noise benchmark seeds it) or Gaussian noise."""
    frames = torch.from_numpy(clip.frames).float().div(255)
    if frames.shape[1] == 1:
        frames = frames.expand(-1, 3, -1, -1)
    if level.startswith("gaussian"):
        sigma = float(level.split("-")[1]) / 255
        generator = torch.Generator().manual_seed(realnoise.camera_seed(clip.name, level, "h264", crf))
        codes = (frames + sigma * torch.randn(frames.shape, generator=generator)).clamp(0, 1).mul(255).round()
    else:
        noise = realnoise.camera_noise(level, "h264", crf)
        seed = realnoise.camera_seed(clip.name, level, "h264", crf)
        codes = noise.sensor_codes(frames[None], generator=torch.Generator().manual_seed(seed))[0]
    return write_video(path, codes / 255, fps=Fraction(25), codec="h264", crf=crf)


def psnr(path: Path, clean: np.ndarray) -> float:
    frames = read_video(path)
    frames = frames if isinstance(frames, torch.Tensor) else frames[0]
    if clean.shape[1] == 1:
        frames = frames[:, :1]
    return quality.measure(frames.numpy(), clean)["psnr"]


def trial_clips(trial: int) -> list[str]:
    """The first trial's clips are the validation clips; the second's the pans and moving-object clips over the
    estimator's six photographs, which no choice of the reader had read."""
    if trial == 1:
        return list(validation.VALIDATION_CLIPS)
    photos = quality.motion_module().ESTIMATOR_VALIDATION_PHOTOS
    return [quality.photo_clip_name(p) for p in photos] + [quality.objects_clip_name(p) for p in photos]


def main() -> None:
    trial = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    arms = ARMS if trial == 1 else {arm: ARMS[arm] for arm in ("default", "bicubic")}  # the first's better arm
    print(
        f"# {cpu_name()}, {torch.get_num_threads()} threads, torch {torch.__version__}; {FRAMES} frames; trial {trial}"
    )
    clips = quality.build_clips(trial_clips(trial), FRAMES, quality.DEFAULT_SIZE)
    print(f"# clips: {', '.join(clip.name for clip in clips)}")
    denoiser = Denoiser.from_preset("fast")
    print(
        "| condition | "
        + " | ".join(f"input {arm}" for arm in arms)
        + " | "
        + " | ".join(arms)
        + " | "
        + " | ".join(f"{arm} − default (min, max)" for arm in list(arms)[1:])
        + " |"
    )
    print("|---|" + "---:|" * (3 * len(arms) - 1))
    gains = {arm: [] for arm in list(arms)[1:]}
    per_clip = {arm: [] for arm in gains}  # per condition, each clip's gain
    for level, crf in CONDITIONS:
        inputs, outputs = {arm: [] for arm in arms}, {arm: [] for arm in arms}
        for clip in clips:
            with tempfile.TemporaryDirectory() as folder:
                noisy = noisy_file(Path(folder) / f"{clip.name}.mp4", clip, level, crf)
                for arm, flags in arms.items():
                    pyav_reader.RGB_CONVERSION = flags
                    inputs[arm].append(psnr(noisy, clip.frames))
                    out = Path(folder) / f"{arm}.mkv"
                    denoise_video(noisy, out, denoiser, "auto", format="lossless", overwrite=True, keep_audio=False)
                    outputs[arm].append(psnr(out, clip.frames))
        row = [np.mean(inputs[arm]) for arm in arms] + [np.mean(outputs[arm]) for arm in arms]
        cells = [f"{value:.2f}" for value in row]
        for arm in gains:
            gain = np.subtract(outputs[arm], outputs["default"])
            gains[arm].append(gain.mean())
            per_clip[arm].append(gain)
            cells.append(f"{gain.mean():+.3f} ({gain.min():+.2f}, {gain.max():+.2f})")
        print(f"| {level} crf{crf} | " + " | ".join(cells) + " |", flush=True)
    for arm, values in gains.items():
        print(
            f"# {arm} − default over the {len(values)} condition means: mean {np.mean(values):+.3f}, "
            f"lowest {np.min(values):+.3f}"
        )
        clip_gains = np.mean(per_clip[arm], axis=0)
        mean, half = mean_interval(clip_gains)
        named = ", ".join(f"{clip.name} {gain:+.3f}" for clip, gain in zip(clips, clip_gains))
        print(f"# {arm} − default per clip, over the conditions: {named}")
        print(
            f"# {arm} − default over clips: mean {mean:+.3f}, 95 % t interval [{mean - half:+.3f}, {mean + half:+.3f}]"
        )
    if "bilinear" in gains:
        bicubic = np.subtract(gains["bicubic"], gains["bilinear"])
        print(f"# bicubic − bilinear over the condition means: mean {bicubic.mean():+.3f}, lowest {bicubic.min():+.3f}")


if __name__ == "__main__":
    main()

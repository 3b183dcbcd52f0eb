"""Where `clean`'s loss on sharp footage compressed with no noise comes from (a diagnosis on clips already seen, no
choice made): each clip-CRF whose σ auto reads a carried share, denoised with σ auto's estimate as it is, without its
carried share (the curve divided by its lift, share 0), without its grain (grain 1), without both, and with neither
the camera gamma's step nor the clipping's correction (`DenoiseSettings.camera_bias`, `unclip`); PSNR against the
clean frames, next to the decoded input's. The fast preset, 5 frames, H.264 at CRF 18, 23 and 28.

    .venv/bin/python benchmarks/results/texture-overread/where_harm.py > benchmarks/results/texture-overread/where_harm.log
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from videodenoise.denoise.denoiser import Denoiser  # noqa: E402
from videodenoise.denoise.settings import PRESETS  # noqa: E402
from videodenoise.noise import estimation  # noqa: E402
from videodenoise.noise.estimation import estimate_clip_noise  # noqa: E402

import bench_quality as quality  # noqa: E402
from _machine import cpu_name  # noqa: E402
from codec_ceiling import codec_encoded  # noqa: E402

# the clips where σ auto read a share with no noise and came out under its input (texture-overread/, overread-hint/)
CLIPS = ["aero-objects", "aero-pan", "china-pan", "china-objects", "flower-objects"]


def without_share(function):
    if not function.carried:
        return function
    lift = (1 - function.carried) ** -estimation.CARRIED_LIFT
    sigmas = tuple(tuple(s / lift for s in row) for row in function.sigmas)
    return dataclasses.replace(function, sigmas=sigmas, level=function.level / lift, carried=0.0)


def without_grain(function):
    return dataclasses.replace(function, grain=tuple(1.0 for _ in function.grain))


def main() -> None:
    print(f"machine: {cpu_name()}, {torch.get_num_threads()} torch threads")
    settings = dataclasses.replace(PRESETS["fast"], device="cpu")
    plain = Denoiser.from_checkpoint("videodenoise/checkpoints/dust-video.safetensors", settings)
    print(f"clean's settings: camera_bias {settings.camera_bias}, clipping {settings.unclip}")
    bare = Denoiser.from_checkpoint(
        "videodenoise/checkpoints/dust-video.safetensors",
        dataclasses.replace(settings, camera_bias=False, unclip=False),
    )
    print(
        "clip | CRF | level, carried, luminance grain, gamma step | PSNR: input, σ auto, no share, no grain, neither,"
        " no gamma step or clipping correction"
    )
    for clip in quality.build_clips(CLIPS, 5, quality.DEFAULT_SIZE):
        for crf in (18, 23, 28):
            noisy = torch.from_numpy(codec_encoded(clip.frames, "h264", crf)).float() / 255
            function = estimate_clip_noise(noisy)
            if not function.carried:
                continue
            variants = [function, without_share(function), without_grain(function)]
            variants.append(without_grain(variants[1]))
            outputs = [plain.denoise_clip(noisy, v) for v in variants] + [bare.denoise_clip(noisy, function)]
            scores = [quality.measure(noisy.numpy(), clip.frames)["psnr"]]
            scores += [quality.measure(o.numpy(), clip.frames)["psnr"] for o in outputs]
            print(
                f"{clip.name} | {crf} | {function.level * 255:.2f}, {function.carried:.2f}, "
                f"{function.luminance_grain:.2f}, {'yes' if function.gamma_fit else 'no'} | "
                + ", ".join(f"{s:.2f}" for s in scores),
                flush=True,
            )


if __name__ == "__main__":
    main()

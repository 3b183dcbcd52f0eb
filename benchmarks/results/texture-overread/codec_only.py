"""`clean --sigma auto` on footage with no noise at all, only a codec: what the estimator reads, and whether the
output stays at its input. The clips' clean frames through H.264 at CRF 18, 23 and 28 (`codec_ceiling.codec_encoded`,
as `benchmarks/codec_ceiling.py` scores them), 5 frames, the fast preset; PSNR against the clean frames of the
decoded input, of `clean` with σ auto, and of `clean` told σ = 2 by hand.

    .venv/bin/python benchmarks/results/texture-overread/codec_only.py \
        > benchmarks/results/texture-overread/codec_only.log      # from the repository's root
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from videodenoise.denoise.denoiser import Denoiser  # noqa: E402
from videodenoise.denoise.settings import PRESETS  # noqa: E402
from videodenoise.noise.estimation import estimate_clip_noise  # noqa: E402

import bench_quality as quality  # noqa: E402
from _machine import cpu_name  # noqa: E402
from codec_ceiling import codec_encoded  # noqa: E402

VALIDATION = "china-pan,china-objects,flower-pan,flower-objects"  # the colour validation clips
HELD_OUT = "bikes,carphone,astronaut-pan,coffee-pan,chelsea-pan,grace-hopper-pan"  # the benchmark's


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clips", default=f"{VALIDATION},{HELD_OUT}")
    parser.add_argument("--crfs", default="18,23,28")
    args = parser.parse_args()
    print(f"machine: {cpu_name()}, {torch.get_num_threads()} torch threads")
    settings = dataclasses.replace(PRESETS["fast"], device="cpu")
    denoiser = Denoiser.from_checkpoint("videodenoise/checkpoints/dust-video.safetensors", settings)
    print(
        "clip | CRF | codec error std | estimate: level, carried, luminance grain, told level | "
        "PSNR: input, auto, told 2 | auto − input"
    )
    for clip in quality.build_clips(args.clips.split(","), frames=5):
        for crf in (int(c) for c in args.crfs.split(",")):
            decoded = codec_encoded(clip.frames, "h264", crf)
            frames = torch.from_numpy(decoded).float().div_(255.0)
            function = estimate_clip_noise(frames)
            error = (decoded.astype(np.float64) - clip.frames).std()
            scores = [quality.measure(decoded.astype(np.float32) / 255, clip.frames)["psnr"]]
            for sigma in ("auto", 2 / 255):
                scores.append(quality.measure(denoiser.denoise_clip(frames, sigma=sigma).numpy(), clip.frames)["psnr"])
            print(
                f"{clip.name} | {crf} | {error:.2f} | {255 * function.level:.2f}, {function.carried:.2f}, "
                f"{function.luminance_grain:.2f}, {255 * function.told_level:.2f} | "
                + ", ".join(f"{score:.2f}" for score in scores)
                + f" | {scores[1] - scores[0]:+.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()

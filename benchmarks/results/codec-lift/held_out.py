"""The held-out run of README.md, once the rule had decided: the real-noise benchmark's six held-out clips (5 frames,
its noise draws: light, medium and heavy camera noise through H.264 CRF 18, 23 and 28), as taken and darkened 4×
and 8× (`bench_quality.underexposed`), `clean` σ auto with the shipped default, CODEC_LIFT = 1 against the value
given; per exposure and condition the means, then the gain paired by clip (mean of the nine conditions per clip,
95 % t interval over the six clips). Log beside it.

    .venv/bin/python benchmarks/results/codec-lift/held_out.py 1.2 > benchmarks/results/codec-lift/held_out.log
    .venv/bin/python benchmarks/results/codec-lift/held_out.py 1.2 gaussian > benchmarks/results/codec-lift/held_out-gaussian.log

`gaussian`: the quality benchmark's Gaussian draws instead (σ = 0, 2, 5, 10, 25, σ auto), as taken: where the gamma
step engages (it can at σ = 2, on 8 bits' rounding) the change can move them.
"""

import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import bench_quality as quality  # noqa: E402
import bench_realnoise as realnoise  # noqa: E402
from _machine import cpu_name  # noqa: E402

from videodenoise.denoise import camera_bias  # noqa: E402
from videodenoise.evaluation.statistics import paired_difference  # noqa: E402
from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT  # noqa: E402
from videodenoise.noise.estimation import estimate_clip_noise  # noqa: E402

lift = float(sys.argv[1])
denoiser = quality.load_denoiser(DEFAULT_CHECKPOINT, {})
names = quality.available_clip_names()
if sys.argv[2:] == ["gaussian"]:
    clips = quality.build_clips(names, 5, quality.DEFAULT_SIZE)
    for sigma in (0.0, 2.0, 5.0, 10.0, 25.0):
        row = {1.0: [], lift: []}
        for clip in clips:
            noisy = quality.add_noise_uint8(clip.frames, sigma, quality.noise_seed(clip.name, sigma, 0))
            frames = torch.from_numpy(noisy).float() / 255
            estimate = estimate_clip_noise(frames)
            for value in row:
                camera_bias.CODEC_LIFT = value
                row[value].append(quality.measure(denoiser.denoise_clip(frames, estimate).numpy(), clip.frames)["psnr"])
        camera_bias.CODEC_LIFT = 1.0
        moved = ", ".join(f"{n} {b - a:+.4f}" for n, a, b in zip(names, row[1.0], row[lift]) if a != b) or "none"
        means = f"{np.mean(row[1.0]):.4f} → {np.mean(row[lift]):.4f}"
        print(f"Gaussian σ = {sigma:g}: {means}; moved: {moved}", flush=True)
    sys.exit()
print(f"CODEC_LIFT 1 against {lift:g}; clips: {', '.join(names)}; 5 frames; {cpu_name()}, {torch.get_num_threads()} threads")
for exposure in (1.0, 0.25, 0.125):
    clips = quality.build_clips(names, 5, quality.DEFAULT_SIZE)
    clips = [quality.underexposed(clip, exposure) for clip in clips] if exposure != 1 else clips
    scores = {1.0: [], lift: []}  # per condition: per clip
    for level in realnoise.DEFAULT_LEVELS:
        for crf in realnoise.DEFAULT_CRFS:
            row = {1.0: [], lift: []}
            for clip in clips:
                noisy = torch.from_numpy(realnoise.camera_draw(clip, level, "h264", crf)).float() / 255
                estimate = estimate_clip_noise(noisy)
                for value in row:
                    camera_bias.CODEC_LIFT = value
                    output = denoiser.denoise_clip(noisy, estimate).numpy()
                    row[value].append(quality.measure(output, clip.frames)["psnr"])
            camera_bias.CODEC_LIFT = 1.0
            for value in row:
                scores[value].append(row[value])
            gains = " ".join(f"{b - a:+.2f}" for a, b in zip(row[1.0], row[lift]))
            print(
                f"×{exposure:g} {level} CRF {crf}: {np.mean(row[1.0]):.2f} → {np.mean(row[lift]):.2f} "
                f"({np.mean(row[lift]) - np.mean(row[1.0]):+.2f}; per clip {gains})",
                flush=True,
            )
    before, after = (np.mean(scores[value], axis=0) for value in (1.0, lift))  # per clip, over the conditions
    paired = paired_difference(after, before)
    print(
        f"×{exposure:g}: {before.mean():.2f} → {after.mean():.2f}, paired by clip {paired.mean:+.2f} "
        f"[{paired.low:+.2f}, {paired.high:+.2f}], {int((after > before).sum())} of {len(after)} ahead; "
        f"per clip " + ", ".join(f"{n} {b - a:+.2f}" for n, a, b in zip(names, before, after)),
        flush=True,
    )

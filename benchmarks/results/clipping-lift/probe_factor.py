"""Exploration after the decision (validation pans only; nothing chosen on it): where the gamma step is made, would
the clipping's correction do better reading the curve × a larger factor than the fit's CODEC_LIFT? The step is a
gate the night-hint exploration lacked (camera noise only, decided after the pass). The six validation pans as taken
and darkened 4× and 8×, the camera model's light, medium and heavy noise through H.264 CRF 23, 5 frames; the model's
output computed once per clip-condition, the fit at CODEC_LIFT as shipped, the clipping's factor k = 1.2 (shipped),
1.5, 2. `*`: the step engaged (elsewhere k changes nothing). Log beside it.

    .venv/bin/python benchmarks/results/clipping-lift/probe_factor.py > probe_factor.log   # in this folder
"""

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from videodenoise.denoise import camera_bias, clipping  # noqa: E402
from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT  # noqa: E402
from videodenoise.noise.estimation import estimate_clip_noise  # noqa: E402

import bench_quality as quality  # noqa: E402
import bench_realnoise as realnoise  # noqa: E402

PANS = ["cell-pan", "flower-pan", "china-pan", "motorcycle-right-pan", "clock-motion-pan", "page-pan"]
FACTORS = (1.2, 1.5, 2.0)
denoiser = quality.load_denoiser(DEFAULT_CHECKPOINT, {})




gains = {k: [] for k in FACTORS}
for exposure in (1.0, 0.25, 0.125):
    for name in PANS:
        clip = quality.build_clips([name], 5, quality.DEFAULT_SIZE)[0]
        clip = quality.underexposed(clip, exposure) if exposure != 1 else clip
        for level in ("light", "medium", "heavy"):
            noisy = realnoise.camera_draw(clip, level, "h264", 23)
            frames = torch.from_numpy(noisy).float() / 255
            function = estimate_clip_noise(frames)
            raw = list(denoiser._stream(iter(frames), function))
            scores, engaged = {}, False
            for factor in FACTORS:  # each frame as `Denoiser.denoise_frames` takes it, the clipping's lift set to k
                gamma, out = camera_bias.GammaBias(function), []
                list(gamma.watching(iter(frames)))
                for f in raw:
                    lifted = gamma.decide(f) is not function
                    clipped = function.scaled(factor) if lifted else function
                    out.append(gamma.undo(f, clipping.unclip(f, clipping.clipped_sigma(clipped, f))))
                    engaged |= lifted
                scores[factor] = quality.measure(torch.stack(out).numpy(), clip.frames)["psnr"]
                if engaged:
                    gains[factor].append((exposure, scores[factor] - scores[FACTORS[0]]))
            text = " ".join(f"{k:g}: {v:.2f}" for k, v in scores.items())
            print(f"{name:20s} ×{exposure:<6g} {level:6s} mean {noisy.mean():5.1f}{' *' if engaged else '  '} {text}")
for factor in FACTORS[1:]:
    for exposure in (1.0, 0.25, 0.125):
        mine = [g for e, g in gains[factor] if e == exposure]
        mean, spread = sum(mine) / len(mine), f"{min(mine):+.2f} to {max(mine):+.2f}"
        print(f"k = {factor:g} − 1.2, ×{exposure:g}, step engaged: {len(mine)}, mean {mean:+.2f}, {spread}")

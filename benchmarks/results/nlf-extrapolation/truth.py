"""How far σ auto's curve lies from the noise it describes, with the curve flat beyond the bins read (today) and with
their trend continued (`noise.curve.EXTRAPOLATION_LIMIT` 1.5 and 2): per clip-condition, the RMS over pixels of
log(σ told / the error's std), per channel and intensity bin (bins of the noisy frames' local mean, as the map reads
them; bins of under 500 pixels left out), and the read range; then per condition the mean of that score and the
median of (σ told / the error's std) over the (clip, channel, bin) cells under the bins read (shadows the flow could
not read). The error is noisy − clean, after the codec where
there is one (what the model must remove) and clipped (so the clipped bins of Gaussian noise read under its σ: a flat
curve scores better there than the noise before the clip, which the clipping's correction wants). Validation clips
only, 5 frames, one thread.

    .venv/bin/python benchmarks/results/nlf-extrapolation/truth.py CLIPS [EXPOSURE]
"""

import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from videodenoise.noise import curve, estimation  # noqa: E402
from videodenoise.noise.noise_level_function import local_mean  # noqa: E402

import bench_quality as quality  # noqa: E402
import bench_realnoise as realnoise  # noqa: E402

LIMITS = (1.0, 1.5, 2.0)
CONDITIONS = (("medium", "none", None), ("heavy", "none", None), ("medium", "h264", 23), ("light", "h264", 28))

torch.set_num_threads(1)
names, exposure = sys.argv[1].split(","), float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
print(f"RMS log(σ told / error std) per clip-condition, limits {LIMITS}; exposure ×{exposure:g}")
scores: dict[tuple[str, float], list[float]] = {}
shadows: dict[tuple[str, float], list[float]] = {}  # σ told / error std, in the bins under those read
for clip in quality.build_clips(names, 5, quality.DEFAULT_SIZE):
    clip = quality.underexposed(clip, exposure) if exposure != 1 else clip
    draws = [(realnoise.condition_name(*c), realnoise.camera_draw(clip, *c)) for c in CONDITIONS]
    draws.append(("gaussian σ=25", quality.add_noise_uint8(clip.frames, 25.0, quality.noise_seed(clip.name, 25.0))))
    for condition, draw in draws:
        noisy = torch.from_numpy(draw).float() / 255
        error = noisy.numpy() - clip.frames.astype(np.float32) / 255
        intensity = np.stack([local_mean(np.ascontiguousarray(f.transpose(1, 2, 0))) for f in noisy.numpy()])
        line = f"{clip.name:22s} {condition:18s}"
        for limit in LIMITS:
            curve.EXTRAPOLATION_LIMIT = limit
            function = estimation.estimate_clip_noise(noisy)
            squares, pixels = 0.0, 0
            for channel in range(noisy.shape[1]):
                for bin_ in range(8):
                    inside = (intensity[..., channel] >= bin_ / 8) & (intensity[..., channel] < (bin_ + 1) / 8)
                    if inside.sum() < 500:
                        continue
                    told = function.at((bin_ + 0.5) / 8)[channel if function.channels > 1 else 0]
                    ratio = told / error[:, channel][inside].std()
                    squares += inside.sum() * np.log(ratio) ** 2
                    pixels += inside.sum()
                    if (bin_ + 1) / 8 <= function.read_range[0]:
                        shadows.setdefault((condition, limit), []).append(ratio)
            score = float(np.sqrt(squares / pixels))
            scores.setdefault((condition, limit), []).append(score)
            line += f"  ×{limit:g}: {score:.3f}"
        print(f"{line}  read {function.read_range}", flush=True)
print("| condition | " + " | ".join(f"limit {limit:g}: score, shadows' ratio" for limit in LIMITS) + " |")
print("|---|" + "---:|" * len(LIMITS))
for condition in dict.fromkeys(condition for condition, _ in scores):
    cells = [
        f"{np.mean(scores[condition, limit]):.3f}, {np.median(shadows.get((condition, limit), [np.nan])):.2f}"
        for limit in LIMITS
    ]
    print(f"| {condition} | " + " | ".join(cells) + " |")

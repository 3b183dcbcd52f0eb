"""For a next plan, deciding nothing: does a single frame tell light camera noise that a heavy codec mostly removed
from a codec's loss on texture with no noise, where the level and the share do not? On clip-conditions already read
(this folder's logs), σ auto's level, share and grain beside two single-frame figures of the luminance
(`noise.single_frame`): the flat blocks' σ (the 20 % quantile of 8×8 blocks' variance around their plane) and the
finest wavelet band's σ; all on the 0-255 scale, the middle frame.

    .venv/bin/python benchmarks/results/faint-share/probe_single_frame.py \
        > benchmarks/results/faint-share/probe_single_frame.log
"""

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from codec_ceiling import codec_encoded  # noqa: E402

from videodenoise.noise.estimation import estimate_clip_noise  # noqa: E402
from videodenoise.noise.single_frame import block_statistics, estimate_noise_sigma, flat_sigma  # noqa: E402

import bench_quality as quality  # noqa: E402
import bench_realnoise as realnoise  # noqa: E402

# (clip, camera level or None for no noise, CRF): light noise where the share helped (the change lost), light noise
# elsewhere for reference, and no noise where the share and the grain did harm
CASES = [
    *[(c, "light", 28) for c in ("dead-leaves-2-pan", "dead-leaves-grey-2-pan", "dead-leaves-grey-3-pan")],
    *[(c, "light", 28) for c in ("dead-leaves-2-objects", "gravel-pan", "grass-pan", "china-pan", "aero-objects")],
    *[(c, "light", 18) for c in ("dead-leaves-grey-2-pan", "gravel-objects", "grass-objects")],
    *[(c, None, 18) for c in ("gravel-objects", "gravel-pan", "grass-objects", "grass-pan", "ihc-pan")],
    *[(c, None, 18) for c in ("aero-objects", "china-pan", "flower-objects")],
    *[(c, None, 23) for c in ("gravel-objects", "dead-leaves-3-objects", "aero-objects")],
]

print("clip | noise | CRF | σ auto: level, carried, grain | flat blocks σ | finest band σ | level / flat")
clips = {c.name: c for c in quality.build_clips(sorted({c for c, _, _ in CASES}), 5, quality.DEFAULT_SIZE)}
for name, level, crf in CASES:
    clip = clips[name]
    frames = realnoise.camera_draw(clip, level, "h264", crf) if level else codec_encoded(clip.frames, "h264", crf)
    noisy = torch.from_numpy(frames).float() / 255
    estimate = estimate_clip_noise(noisy)
    middle = noisy[len(noisy) // 2]
    luminance = middle.mean(dim=0).numpy()
    flat = flat_sigma(block_statistics(luminance)[1]) * 255
    finest = estimate_noise_sigma([middle.mean(dim=0, keepdim=True)]) * 255
    print(
        f"{name} | {level or 'none'} | {crf} | {estimate.level * 255:.2f}, {estimate.carried:.2f}, "
        f"{estimate.luminance_grain:.2f} | {flat:.2f} | {finest:.2f} | {estimate.level * 255 / max(flat, 1e-6):.2f}",
        flush=True,
    )

"""The same correction after BM4D: is the gain over BM4D the correction's, which any denoiser could take? The quality
benchmark's six held-out clips at σ = 25 (5 frames, its noise draws), BM4D as bench_quality runs it (opponent-colour
volumes, told σ), then `unclip` with σ = 25; PSNR as bench_quality measures it. Needs `pip install -e '.[compare]'`.

    .venv/bin/python benchmarks/results/clipping/bm4d_unclipped.py
"""

import sys
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_quality as bq  # noqa: E402

from videodenoise.denoise.clipping import unclip  # noqa: E402

SIGMA = 25.0
rows = []
for clip in bq.build_clips(None, 5, bq.DEFAULT_SIZE):
    noisy = bq.add_noise_uint8(clip.frames, SIGMA, bq.noise_seed(clip.name, SIGMA, 0))
    estimate, _ = bq.run_bm4d(noisy, SIGMA)
    corrected = unclip(torch.from_numpy(estimate), SIGMA / 255).numpy()
    raw, fixed = (bq.measure(e, clip.frames)["psnr"] for e in (estimate, corrected))
    rows.append((raw, fixed))
    print(f"{clip.name:18s} BM4D {raw:.2f} dB, then unclipped {fixed:.2f} dB ({fixed - raw:+.2f})", flush=True)
raw, fixed = np.mean(rows, axis=0)
print(f"mean over {len(rows)} clips: BM4D {raw:.2f} dB, then unclipped {fixed:.2f} dB ({fixed - raw:+.2f})")

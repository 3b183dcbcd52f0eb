"""Throwaway: reject neighbour pixels whose forward and backward flows disagree by more than TAU px."""

import sys

import cv2
import numpy as np
import torch

sys.path.insert(0, "benchmarks")
import videodenoise.denoise.fusion as fm
from videodenoise.denoise.denoiser import Denoiser
from videodenoise.denoise.settings import PRESETS
from videodenoise.noise.estimation import estimate_clip_noise

import bench_quality as quality

torch.set_num_threads(1)
TAU = [None]
original_align = fm.FrameAligner.align


def align(self, guide, other, other_guide):
    a = original_align(self, guide, other, other_guide)
    if TAU[0] is None:
        return a
    back = self.optical_flow(other_guide, guide)
    bx = cv2.remap(back[..., 0], a.map_x, a.map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    by = cv2.remap(back[..., 1], a.map_x, a.map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    h, w = guide.shape
    cols, rows = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
    err = np.hypot(a.map_x - cols + bx, a.map_y - rows + by)
    warped = a.warped.copy()
    warped[err > TAU[0]] += 100.0  # its weight becomes 0 (and its box's)
    return fm.Alignment(warped, a.variance, a.map_x, a.map_y)


fm.FrameAligner.align = align
names = sys.argv[1].split(",")
res = {}
for clip in quality.build_clips(names, 5, quality.DEFAULT_SIZE):
    noisy = (
        torch.from_numpy(quality.add_noise_uint8(clip.frames, 25, quality.noise_seed(clip.name, 25, 0))).float() / 255
    )
    f = estimate_clip_noise(noisy)
    out = []
    for tau in [None, 1.0, 2.0, 4.0]:
        TAU[0] = tau
        p = quality.measure(
            Denoiser.from_checkpoint(None, PRESETS["fast"]).denoise_clip(noisy, f).numpy(), clip.frames
        )["psnr"]
        res.setdefault(tau, []).append(p)
        out.append(f"tau {tau} {p:.2f}")
    TAU[0] = None
    print(clip.name, " | ".join(out), flush=True)
b = np.array(res[None])
for t, v in res.items():
    print(t, f"{np.mean(v):.3f}", f"{np.mean(np.array(v) - b):+.3f}", " ".join(f"{x:+.2f}" for x in np.array(v) - b))

"""Where on a long real clip the aligned model loses to hand fusion + model: per-frame PSNR against motion.

    python benchmarks/results/ablation-observation/long/bikes_frames.py \
        fused=runs/ablation-long-fused/last.safetensors \
        observation-1=runs/ablation-long-observation-1/last.safetensors,fusion=off [more LABEL=PATH[,fusion=off]]

The first checkpoint is the reference. The first 60 frames of bikes, σ = 25 as bench_quality.py draws it (same
seed), σ estimated, one thread. Per frame: each model's PSNR, the difference to the reference, and two measures
of what the flow has to cope with, both on the clean frames: the mean flow length to the neighbours one and two
frames away (DIS, as fusion's "fast" preset), and the share of pixels whose warped neighbour still differs from the
frame by more than 25/255 (where alignment fails: occlusion, blur, flow error). Prints Spearman's correlation of
the difference with each and with the reference's own PSNR (how easy the frame is), and the difference over the
frames in quartiles of each.
"""

import sys

import cv2
import numpy as np
import torch
from scipy.stats import spearmanr

sys.path.insert(0, "benchmarks")
from videodenoise.metrics import frame_rmse, psnr_from_rmse  # noqa: E402

import bench_quality as quality  # noqa: E402

torch.set_num_threads(1)
SIGMA, FRAMES = 25.0, 60


def parse(argument: str) -> tuple[str, str, dict]:
    label, rest = argument.split("=", 1)
    path, *options = rest.split(",")
    return label, path, dict(option.split("=", 1) for option in options)


def motion_per_frame(grey: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean flow length to the neighbours at ±1, ±2 and the share of pixels they fail to align."""
    dis = cv2.DISOpticalFlow_create(cv2.DISOPTICAL_FLOW_PRESET_FAST)
    height, width = grey.shape[1:]
    xs, ys = np.meshgrid(np.arange(width, dtype=np.float32), np.arange(height, dtype=np.float32))
    length, failed = np.zeros(len(grey)), np.zeros(len(grey))
    for t in range(len(grey)):
        neighbours = [s for s in (t - 2, t - 1, t + 1, t + 2) if 0 <= s < len(grey)]
        for s in neighbours:
            flow = dis.calc(grey[t], grey[s], None)
            warped = cv2.remap(grey[s], xs + flow[..., 0], ys + flow[..., 1], cv2.INTER_LINEAR)
            length[t] += np.hypot(flow[..., 0], flow[..., 1]).mean() / len(neighbours)
            failed[t] += (np.abs(warped.astype(np.int16) - grey[t]) > SIGMA).mean() / len(neighbours)
    return length, failed


def main() -> None:
    runs = [parse(argument) for argument in sys.argv[1:]]
    clip = quality.load_real_clip("bikes", FRAMES, (240, 320))
    noisy = quality.add_noise_uint8(clip.frames, SIGMA, quality.noise_seed(clip.name, SIGMA))
    reference = clip.frames.astype(np.float64) / 255.0
    psnr = {}
    for label, path, options in runs:
        runner = quality.make_model_runner(quality.load_denoiser(path, options, device="cpu"), "auto")
        estimate, _ = runner(noisy, SIGMA)
        rounded = quality.to_uint8(estimate).astype(np.float64) / 255.0
        psnr[label] = psnr_from_rmse(frame_rmse(rounded, reference))
        print(f"{label}: {psnr[label].mean():.2f} dB over {FRAMES} frames", flush=True)
    grey = np.stack([cv2.cvtColor(frame.transpose(1, 2, 0), cv2.COLOR_RGB2GRAY) for frame in clip.frames])
    length, failed = motion_per_frame(grey)
    first = runs[0][0]
    print(f"\n| frame | flow (px) | unaligned share | {' | '.join(label for label, _, _ in runs)} |")
    print("|---:|---:|---:|" + "---:|" * len(runs))
    for t in range(FRAMES):
        cells = [f"{psnr[first][t]:.2f}"] + [f"{psnr[label][t] - psnr[first][t]:+.2f}" for label, _, _ in runs[1:]]
        print(f"| {t} | {length[t]:.2f} | {failed[t]:.3f} | {' | '.join(cells)} |")
    for label, _, _ in runs[1:]:
        gap = psnr[label] - psnr[first]
        print(f"\n{label} − {first}: mean {gap.mean():+.2f} dB")
        for name, measure in (("flow length", length), ("unaligned share", failed), (f"{first}'s PSNR", psnr[first])):
            rho, p = spearmanr(gap, measure)
            edges = np.quantile(measure, [0.25, 0.5, 0.75])
            bins = np.digitize(measure, edges)
            by_quartile = ", ".join(f"{gap[bins == q].mean():+.2f}" for q in range(4))
            print(f"  against {name}: Spearman {rho:+.2f} (p {p:.3f}); by quartile, least to most: {by_quartile}")


if __name__ == "__main__":
    main()

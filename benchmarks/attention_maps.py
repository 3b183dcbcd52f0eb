"""What does a trained model's attention do on a clip? Per layer: its gains, and where its weights go.

    .venv/bin/python benchmarks/attention_maps.py \
        --checkpoint fused=runs/ablation-fused/last.safetensors \
        --checkpoint aligned=runs/ablation-aligned/last.safetensors,fusion=off \
        --photo skimage:cell --sigma 25 --out benchmarks/results/attention

Each checkpoint denoises the same noisy clip as `clean` would (grey; a camera pan over a photograph,
the validation photographs by default, never a benchmark clip), with every attention layer recording
its weights (`TokenAttention.recording`). Per layer it prints:

* gain: the mean over units of g in Y ← Y + g ⊙ (attention average − Y), and its largest unit;
  g = 0 is no attention at all, g = 1 replaces a code by its attention average;
* β: the aligned token set's learned weight on the mismatch term of its score;
* g_y: with `mix_observation`, the share of the layer's noisy patches taken from the frames its weights
  point at (y ← y + g_y·(Σ w·y_s − y));
* others: the weight a token gives to the other frames (1 − its weight on its own frame), mean over
  tokens; sources: the effective number of tokens attended to, 1 / Σ w², mean over tokens;
* borrowed: mean gain × others, how far a code moves towards the other frames' codes: the share of the
  layer's update that is temporal.

and draws, per checkpoint, the middle frame's `others` per token and layer (`<name>-others.png`).
Options after a checkpoint's path are bench_quality.py's (fusion=off: the model alone).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import torch

from videodenoise.evaluation.plots import plot_maps
from videodenoise.models.attention import TokenAttention

from _script import run_main
from bench_quality import (
    add_noise_uint8,
    load_denoiser,
    make_pan_clip,
    measure,
    noise_seed,
    parse_checkpoints,
    parse_size,
)


def layer_summaries(records: list[list[torch.Tensor]], attentions: list[TokenAttention]) -> list[dict]:
    """One row per layer from its recorded weights (B, rows, cols, heads, T, offsets, S) and parameters."""
    rows = []
    for index, (weights, attention) in enumerate(zip(records, attentions)):
        gain = attention.gain.detach().float()
        row = {  # a layer whose attention is off (an aligned_depth past it) keeps gains it does not use
            "layer": index + 1,
            "gain": None if attention.off else float(gain.mean()),
            "gain_max": None if attention.off else float(gain.max()),
            "beta": float(attention.mismatch.detach().clamp(min=0)) if attention.aligned else None,
            "observation_gain": (float(attention.observation_gain.detach()) if attention.mixes_observation else None),
        }
        if weights:
            others, sources = [], []
            for w in weights:
                itself = torch.eye(w.shape[4], dtype=torch.bool)[:, None, :]  # (T, 1, S): a token's own frame
                others.append((1 - (w * itself).sum((-1, -2))).flatten())  # (B, rows, cols, heads, T)
                sources.append((1 / w.square().sum((-1, -2))).flatten())
            row["others"] = float(torch.cat(others).mean())
            row["sources"] = float(torch.cat(sources).mean())
            row["borrowed"] = row["gain"] * row["others"]
        rows.append(row)
    return rows


def middle_frame_map(weights: list[torch.Tensor]) -> np.ndarray | None:
    """The middle frame's weight on the other frames per token, from the largest recorded grid."""
    if not weights:
        return None
    w = max(weights, key=lambda w: w.shape[1] * w.shape[2])[0]  # (rows, cols, heads, T, offsets, S)
    frames = w.shape[3]
    middle = frames // 2
    own = w[:, :, :, middle, :, middle].sum(-1).mean(-1)  # (rows, cols)
    return (1 - own).numpy()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--checkpoint", action="append", required=True, metavar="NAME=PATH[,key=value...]")
    parser.add_argument("--photo", default="skimage:cell", help="photograph the camera pans over")
    parser.add_argument("--sigma", type=float, default=25.0, help="Gaussian noise, 0-255 scale")
    parser.add_argument("--frames", type=int, default=5)
    parser.add_argument("--size", type=parse_size, default=(160, 160), help="HxW (default 160x160)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/attention"))
    args = parser.parse_args()

    # the benchmark's clip and 8-bit noise, in grey: (T, 1, H, W) uint8
    clip = make_pan_clip(args.photo, args.frames, args.size, seed=args.seed)
    grey = np.round(clip.frames.astype(np.float64).mean(1, keepdims=True)).astype(np.uint8)
    noisy_uint8 = add_noise_uint8(grey, args.sigma, noise_seed(clip.name, args.sigma, args.seed))
    noisy = torch.from_numpy(noisy_uint8.astype(np.float32) / 255)
    print(f"{clip.source}: {args.frames} frames of {args.size[0]}×{args.size[1]}, grey, σ = {args.sigma:g}\n")

    for name, (path, options) in parse_checkpoints(args.checkpoint).items():
        denoiser = load_denoiser(path, options, device="cpu")
        attentions = [m for m in denoiser.model.modules() if isinstance(m, TokenAttention)]
        for attention in attentions:
            attention.recording, attention.recorded = True, []
        with torch.no_grad():
            denoised = denoiser.denoise_clip(noisy, args.sigma / 255)
        psnr = measure(denoised.numpy(), grey)["psnr"]
        records = [attention.recorded for attention in attentions]
        for attention in attentions:
            attention.recording, attention.recorded = False, []
        fusion = "with fusion" if denoiser.settings.fusion is not None else "no fusion"
        token_set = getattr(denoiser.model.config, "token_set", "?")
        print(f"## {name}: {path} (token set {token_set}, {fusion}), {psnr:.2f} dB\n")
        print("| layer | gain (mean) | gain (max) | β | g_y | others | sources | borrowed |")
        print("|---:|---:|---:|---:|---:|---:|---:|---:|")
        for row in layer_summaries(records, attentions):
            beta = "" if row["beta"] is None else f"{row['beta']:.2f}"
            mixed = "" if row["observation_gain"] is None else f"{row['observation_gain']:.3f}"
            rest = (
                f"{row['others']:.3f} | {row['sources']:.2f} | {row['borrowed']:.4f}"
                if "others" in row
                else "(no attention) | | "
            )
            gains = " | " if row["gain"] is None else f"{row['gain']:.3f} | {row['gain_max']:.3f}"
            print(f"| {row['layer']} | {gains} | {beta} | {mixed} | {rest} |")
        maps = {f"layer {i + 1}": m for i, r in enumerate(records) if (m := middle_frame_map(r)) is not None}
        if maps:
            figure = plot_maps(maps, args.out / f"{name}-others.png", label="weight on the other frames")
            print(f"\n{figure}: the middle frame's weight on the other frames, per token and layer")
        print()


if __name__ == "__main__":
    run_main(main)

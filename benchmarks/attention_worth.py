"""What a trained model's attention is worth in `clean`: PSNR with it as trained, with each layer's attention
switched off, and with all of it off, on the same noisy clips.

    .venv/bin/python benchmarks/attention_worth.py --clips cell-pan,page-pan --sigmas 10,25,50 \
        --camera medium:23,light:28 --out benchmarks/results/attention-worth/validation

`benchmarks/attention_maps.py` says where a layer's attention weights go and how large its gains are; this says
what that does to the output. A layer switched off (`TokenAttention.off`) passes its codes on unchanged, so the
step that follows sees the frame's own codes: the model's weights are untouched, nothing is retrained, and the
difference is what the attention, as trained, adds to that model's output. Each arm denoises the benchmark's
noisy frames (`bench_quality.py`'s Gaussian draws, `bench_realnoise.py`'s camera draws) as `clean` does, σ
estimated. Per condition it prints the mean PSNR of each arm over the clips, the paired difference as trained
minus each arm (95 % t interval over clips, clips where the attention helped) and each arm's seconds a frame;
per clip, the PSNRs. It chooses nothing.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import torch

from videodenoise.evaluation.statistics import paired_difference
from videodenoise.models.attention import TokenAttention

import bench_quality as quality
import bench_realnoise as realnoise
from _machine import cpu_name
from _script import run_main


def arms(attentions: list[TokenAttention]) -> dict[str, list[bool]]:
    """Arm label → which attentions are off: none (as trained), each attending layer's alone, and all of them."""
    count = len(attentions)
    chosen = {"as trained": [False] * count}
    chosen.update({f"layer {i + 1} off": [j == i for j in range(count)] for i in range(count) if not attentions[i].off})
    if sum(not attention.off for attention in attentions) > 1:  # with one, its own arm is all of it
        chosen["all off"] = [True] * count
    return chosen


def conditions(sigmas: list[float], camera: list[str]) -> list[tuple[str, object]]:
    """(label, noise) per condition: a Gaussian σ (0-255) or a (level, CRF) of the camera model through H.264."""
    out: list[tuple[str, object]] = [(f"σ = {s:g}", s) for s in sigmas]
    for condition in camera:
        level, _, crf = condition.partition(":")
        out.append((f"{level} CRF {crf}", (level, int(crf))))
    return out


def noisy_frames(clip: quality.Clip, noise) -> np.ndarray:
    """The benchmark's noisy uint8 frames of one clip and condition (the same draws as its tables)."""
    if isinstance(noise, tuple):
        level, crf = noise
        return realnoise.camera_draw(clip, level, "h264", crf)
    return quality.add_noise_uint8(clip.frames, noise, quality.noise_seed(clip.name, noise))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", default="videodenoise/checkpoints/dust-video.safetensors", metavar="PATH[,k=v]")
    parser.add_argument("--clips", required=True, help="bench_quality.py clip names, comma-separated")
    parser.add_argument("--frames", type=int, default=5)
    parser.add_argument("--sigmas", type=quality.parse_floats, default=[10.0, 25.0, 50.0])
    parser.add_argument("--camera", default="", help="camera conditions LEVEL:CRF, comma-separated (H.264)")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)

    path, _, rest = args.checkpoint.partition(",")
    options = dict(item.split("=", 1) for item in rest.split(",") if item)
    denoiser = quality.load_denoiser(Path(path), options, device="cpu")
    attentions = [m for m in denoiser.model.modules() if isinstance(m, TokenAttention)]
    switches = arms(attentions)
    kept = [attention.off for attention in attentions]
    print(f"machine: {cpu_name()}, {torch.get_num_threads()} torch threads; checkpoint {args.checkpoint}")
    print(f"clips ({args.frames} frames): {args.clips}\n")

    clips = quality.build_clips(args.clips.split(","), frames=args.frames)
    rows = []
    for label, noise in conditions(args.sigmas, [c for c in args.camera.split(",") if c]):
        for clip in clips:
            frames = torch.from_numpy(noisy_frames(clip, noise).astype(np.float32) / 255)
            for arm, off in switches.items():
                for attention, switched in zip(attentions, off):
                    attention.off = switched or attention.off
                start = time.perf_counter()
                with torch.no_grad():
                    estimate = denoiser.denoise_clip(frames, sigma="auto").numpy()
                seconds = (time.perf_counter() - start) / len(frames)
                for attention, was in zip(attentions, kept):
                    attention.off = was
                psnr = quality.measure(estimate, clip.frames)["psnr"]
                rows.append({"condition": label, "clip": clip.name, "arm": arm, "psnr": psnr, "s_per_frame": seconds})
            scores = ", ".join(f"{r['arm']} {r['psnr']:.2f}" for r in rows[-len(switches) :])
            print(f"{label} | {clip.name} | {scores}")
        print()
    print(summary(rows, list(switches)))
    args.out.mkdir(parents=True, exist_ok=True)
    quality.write_json({"checkpoint": args.checkpoint, "frames": args.frames, "rows": rows}, args.out / "worth.json")


def summary(rows: list[dict], labels: list[str]) -> str:
    """Per condition and arm: mean PSNR, as trained − arm (interval, clips the attention helped), s/frame."""
    lines = [
        "| condition | arm | mean PSNR | as trained − arm | clips helped | s/frame |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for condition in dict.fromkeys(r["condition"] for r in rows):
        here = [r for r in rows if r["condition"] == condition]
        trained = [r["psnr"] for r in here if r["arm"] == labels[0]]
        for arm in labels:
            values = [r["psnr"] for r in here if r["arm"] == arm]
            seconds = np.median([r["s_per_frame"] for r in here if r["arm"] == arm])
            gap = ""
            helped = ""
            if arm != labels[0]:
                d = paired_difference(trained, values)
                gap = f"{d.mean:+.2f} [{d.low:+.2f}, {d.high:+.2f}]"
                helped = f"{sum(t > v for t, v in zip(trained, values))} of {len(values)}"
            lines.append(f"| {condition} | {arm} | {np.mean(values):.2f} | {gap} | {helped} | {seconds:.3f} |")
    return "\n".join(lines)


if __name__ == "__main__":
    run_main(main)

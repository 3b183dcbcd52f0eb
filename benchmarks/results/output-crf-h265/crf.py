"""What the HEVC output's CRF costs `clean`'s 10-bit output on camera footage: the two trials of its default (plans and
rules in README.md, each committed before its run). The first, on the validation clips, budgets the mean loss against
lossless x264's; the second, on the clips over the estimator's six photographs, against H.264 High 10 at CRF 10 on the
mean and the worst clip.

    R=benchmarks/results/output-crf-h265; .venv/bin/python $R/crf.py > $R/crf.log
    .venv/bin/python $R/crf.py --trial 2 > $R/trial2.log
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from unittest import mock

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import validation_sweep as validation  # noqa: E402

from videodenoise.io import writers  # noqa: E402
from videodenoise.io.crf import DEFAULT_CRF  # noqa: E402
from videodenoise.io.readers import VideoProperties  # noqa: E402
from videodenoise.io.video import read_video  # noqa: E402
from videodenoise.io.writers import write_video  # noqa: E402
from videodenoise.metrics import frame_rmse, psnr_from_rmse  # noqa: E402
from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT  # noqa: E402
from videodenoise.noise.estimation import estimate_clip_noise  # noqa: E402

import bench_quality as quality  # noqa: E402
import bench_realnoise as realnoise  # noqa: E402
from _machine import cpu_name  # noqa: E402

FRAMES = 24
CRFS = {1: (20, 16, 13, 10, 8, 6, 4), 2: (16, 13, 10, 8, 6, 4)}  # HEVC's candidates in each trial
FLOOR = ("h264", "lossless")  # x264 at QP 0 on the 10-bit YUV pictures: what is left is the RGB → YUV → RGB round trip
TODAY = ("h264", DEFAULT_CRF["h264"])  # what `clean` wrote a 10-bit input in before: H.264 High 10
BUDGET_DB = 0.15  # the first trial's: above the floor
MARGIN_DB = 0.05  # the second's: over H.264 High 10 at CRF 10, on the mean and on the worst clip
TEN_BITS = VideoProperties(bit_depth=10)


def psnr(frames: np.ndarray, clean: np.ndarray) -> float:
    """Mean per-frame PSNR of float frames in [0, 1] against clean uint8 frames, not rounded to 8 bits."""
    return float(psnr_from_rmse(frame_rmse(frames, clean.astype(np.float64) / 255)).mean())


def lossless_h264(stream, crf: int, properties: VideoProperties) -> None:
    """libx264 at QP 0, which codes the YUV pictures without loss at any depth (its CRF 0 does only at 8 bits: at 10,
    High 10 with errors up to 10 levels on random pictures)."""
    stream.options = {"qp": "0", "preset": "medium"}


def written(frames: torch.Tensor, codec: str, crf: int | str, folder: Path) -> tuple[np.ndarray, float]:
    """The frames (in [0, 1]) as `clean` writes a 10-bit input's at `crf` ("lossless": H.264 without loss, the same
    conversion to YUV), decoded (in [0, 1]), and the file's kB a frame."""
    path = folder / f"out-{codec}-{crf}.mp4"
    if crf == "lossless":
        with mock.patch.object(writers, "configure_h264", lossless_h264):
            write_video(path, frames, fps=25, codec=codec, properties=TEN_BITS, overwrite=True)
    else:
        write_video(path, frames, fps=25, codec=codec, crf=crf, properties=TEN_BITS, overwrite=True)
    decoded = read_video(path)
    decoded = decoded if isinstance(decoded, torch.Tensor) else decoded[0]
    return decoded.numpy(), path.stat().st_size / len(frames) / 1000


def condition(denoiser, clips: list, level: str, crf_in: int, arms: list) -> tuple[dict, dict]:
    """Each arm's losses (dB, one per clip) and sizes (kB a frame) on the clips through the camera at one condition."""
    losses = {arm: [] for arm in arms}
    sizes = {arm: [] for arm in arms}
    for clip in clips:
        noisy = torch.from_numpy(realnoise.camera_draw(clip, level, "h264", crf_in)).float() / 255
        denoised = denoiser.denoise_clip(noisy, estimate_clip_noise(noisy)).clamp(0, 1)
        frames = (denoised * 1023).round() / 1023  # the 10 bits a file holds
        kept = psnr(frames.numpy(), clip.frames)
        with tempfile.TemporaryDirectory() as folder:
            for arm in arms:
                decoded, size = written(frames, *arm, Path(folder))
                losses[arm].append(kept - psnr(decoded, clip.frames))
                sizes[arm].append(size)
    return losses, sizes


def sweep(denoiser, clips: list, arms: list, fails=lambda losses, arm: False) -> set:
    """The table over the nine camera conditions: each arm's mean loss, worst clip and kB a frame; returns the arms
    `fails(losses, arm)` said failed at some condition (losses: every arm's, one per clip)."""
    names = {"h265": "HEVC", "h264": "H.264"}
    header = " | ".join(f"{names[codec]} {crf}: mean loss, worst, kB/frame" for codec, crf in arms)
    print(f"| condition | {header} |")
    print("|---|" + "---:|" * len(arms))
    failed = set()
    for level, crf_in in validation.camera_conditions("h264"):
        losses, sizes = condition(denoiser, clips, level, crf_in, arms)
        failed |= {arm for arm in arms if fails(losses, arm)}
        cells = [f"{np.mean(losses[arm]):.2f}, {max(losses[arm]):.2f}, {np.mean(sizes[arm]):.1f}" for arm in arms]
        print(f"| {realnoise.condition_name(level, 'h264', crf_in)} | " + " | ".join(cells) + " |", flush=True)
    return failed


def above_the_floor(losses: dict, arm: tuple) -> bool:
    """The first rule: a candidate fails where its mean loss exceeds the floor's by more than the budget."""
    return arm[0] == "h265" and float(np.mean(losses[arm])) - float(np.mean(losses[FLOOR])) > BUDGET_DB


def worse_than_before(losses: dict, arm: tuple) -> bool:
    """The second rule: a candidate fails where its mean or worst-clip loss exceeds H.264 High 10's by more than the
    margin."""
    if arm[0] != "h265":
        return False
    mean, before = float(np.mean(losses[arm])), float(np.mean(losses[TODAY]))
    return mean > before + MARGIN_DB or max(losses[arm]) > max(losses[TODAY]) + MARGIN_DB


def trial_clips(trial: int) -> list[str]:
    """The first trial's clips are the validation clips; the second's the pans and moving-object clips over the
    estimator's six photographs, which no choice of the output's codec had read."""
    if trial == 1:
        return list(validation.VALIDATION_CLIPS)
    photos = quality.motion_module().ESTIMATOR_VALIDATION_PHOTOS
    return [quality.photo_clip_name(p) for p in photos] + [quality.objects_clip_name(p) for p in photos]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--trial", type=int, choices=(1, 2), default=1)
    trial = parser.parse_args().trial
    print(f"# {cpu_name()}, {torch.get_num_threads()} threads, torch {torch.__version__}; trial {trial}")
    clips = quality.build_clips(trial_clips(trial), FRAMES, quality.DEFAULT_SIZE)
    print(f"# clips: {', '.join(clip.name for clip in clips)}; {FRAMES} frames")
    denoiser = quality.load_denoiser(DEFAULT_CHECKPOINT, {})
    rule, said = {
        1: (above_the_floor, f"within {BUDGET_DB} dB of lossless H.264's loss"),
        2: (worse_than_before, f"within {MARGIN_DB} dB of H.264 High 10 at CRF 10 on the mean and worst clip"),
    }[trial]
    failed = sweep(denoiser, clips, [("h265", crf) for crf in CRFS[trial]] + [TODAY, FLOOR], rule)
    passing = sorted(crf for crf in CRFS[trial] if ("h265", crf) not in failed)
    chosen = max(passing) if passing else min(CRFS[trial])
    print(f"HEVC {said} at every condition: {passing or 'none'}; chosen: CRF {chosen}")


if __name__ == "__main__":
    main()

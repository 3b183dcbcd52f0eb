"""The demo: noise added to the bikes sample clip, denoised, both PSNRs measured, three videos written."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import torch

from videodenoise.denoise.calibration import calibrate_told_scale, calibration_span
from videodenoise.denoise.denoiser import Denoiser
from videodenoise.denoise.pipeline import denoised_view, noisy_view, side_by_side_view, stream_pairs, write_frames
from videodenoise.errors import DenoiseError, VideoWriteError
from videodenoise.io.video import open_video
from videodenoise.metrics import frame_rmse, psnr_from_rmse
from videodenoise.noise.kinds import make_noise
from videodenoise.noise.levels import check_sigma
from videodenoise.noise.noise_level_function import scaled_sigma


@dataclass
class DemoResult:
    """What `run_demo` wrote and measured (PSNR in dB, on 8-bit RGB frames, from the mean per-frame RMSE)."""

    clean: Path
    noisy: Path
    denoised: Path
    side_by_side: Path
    frames: int
    sigma: float
    noisy_psnr: float
    denoised_psnr: float
    seconds: float


def run_demo(
    output_dir: str | os.PathLike = "demo_output",
    denoiser: Denoiser | None = None,
    sigma: float = 25 / 255,
    seed: int = 0,
    max_frames: int | None = None,
    clip: str | os.PathLike | None = None,
    progress: Callable[[int, int], None] | None = None,
    overwrite: bool = False,
) -> DemoResult:
    """Add Gaussian noise (σ on the [0, 1] scale, fixed seed) to the bikes sample clip, denoise it,
    and write NAME.noisy.mp4, NAME.denoised.mp4 and NAME.side-by-side.mp4 into `output_dir`.

    PSNR is defined as in `evaluation` (per frame, then averaged). The noisy frames are clipped to
    [0, 1] and rounded to 8 bits, i.e. exactly what an 8-bit video
    file would hold, and go to the denoiser straight from memory: both PSNRs are of the frames the
    denoiser really saw and really produced (rounded to 8 bits as written), not of H.264-decoded
    copies; the .mp4 files (H.264 at its `DEFAULT_CRF`) are for watching. Memory stays bounded: frames stream.
    clip: another video to use instead of bikes (e.g. offline). Existing videos in `output_dir` are
    replaced only with `overwrite` (checked before any work).
    """
    from videodenoise.datasets.samples import fetch_sample_clips

    sigma = check_sigma(sigma, error=DenoiseError, unit_scale=True)
    source = Path(clip) if clip is not None else fetch_sample_clips()["bikes"]
    reader = open_video(source)
    total = len(reader) if max_frames is None else min(max_frames, len(reader))
    folder = Path(output_dir)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise VideoWriteError(f"cannot create the output folder '{folder}' ({error.strerror})") from None
    name = source.stem if source.is_file() else source.name
    paths = [folder / f"{name}.{kind}.mp4" for kind in ("noisy", "denoised", "side-by-side")]
    for path in paths:  # before loading the model or denoising a frame
        if path.exists() and not overwrite:
            raise VideoWriteError(
                f"'{path}' already exists; pass --overwrite to replace it, or choose another --output-dir"
            )
    denoiser = denoiser or Denoiser.from_checkpoint()
    generator = torch.Generator().manual_seed(seed)
    noise = make_noise("gaussian", sigma, clip=True)
    told = scaled_sigma(sigma, denoiser.settings.sigma_scale)
    if denoiser.settings.calibrate:  # on the middle frames, under a draw of their own: the demo's frames stream
        draws = torch.Generator().manual_seed(seed + 1)
        middle = [
            noise(frame, generator=draws).mul_(255).round_().div_(255)
            for frame in reader.read(*calibration_span(total))
        ]
        told = calibrate_told_scale(denoiser, torch.stack(middle), told)
    clean_frames: dict[int, torch.Tensor] = {}  # the clean frames whose noisy copy awaits its output

    def noisy_frames() -> Iterator[torch.Tensor]:
        for index, frame in enumerate(reader.frames(count=total)):
            clean_frames[index] = frame
            yield noise(frame, generator=generator).mul_(255).round_().div_(255)

    def rmse(a: torch.Tensor, b: torch.Tensor) -> float:
        return float(frame_rmse(a.unsqueeze(0), b.unsqueeze(0))[0])

    noisy_rmse, denoised_rmse = [], []

    def measured() -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
        for index, (noisy, denoised) in enumerate(stream_pairs(denoiser, noisy_frames(), told)):
            clean = clean_frames.pop(index)
            denoised = denoised.mul(255).round_().div_(255)  # what the file holds before H.264
            noisy_rmse.append(rmse(noisy, clean))
            denoised_rmse.append(rmse(denoised, clean))
            yield noisy, denoised

    start = time.perf_counter()
    rate = reader.info.frame_rate()
    write_frames(
        [dict(path=path, fps=rate, overwrite=overwrite) for path in paths],
        [noisy_view, denoised_view, side_by_side_view],
        measured(),
        None if progress is None else lambda count: progress(count, total),
    )
    return DemoResult(
        clean=source,
        noisy=paths[0],
        denoised=paths[1],
        side_by_side=paths[2],
        frames=len(noisy_rmse),
        sigma=sigma,
        noisy_psnr=float(psnr_from_rmse(noisy_rmse).mean()),
        denoised_psnr=float(psnr_from_rmse(denoised_rmse).mean()),
        seconds=time.perf_counter() - start,
    )

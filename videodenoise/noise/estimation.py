"""Estimating the noise level σ of a video from its frames.

σ is on the [0, 1] scale here (the CLI takes 0-255). The estimate is the median over up to
SIGMA_ESTIMATE_FRAMES frames spread over the video of skimage.restoration.estimate_sigma (Donoho's
wavelet MAD); frames that cannot be decoded are skipped, as the denoising pass skips them.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Iterator

import torch

from videodenoise.errors import VideoReadError

SIGMA_ESTIMATE_FRAMES = 5


def _spread(total: int, count: int) -> list[int]:
    """Up to `count` frame indices spread evenly over [0, total)."""
    count = min(count, total)
    return sorted({round(i * (total - 1) / max(count - 1, 1)) for i in range(count)})


def estimate_noise_sigma(frames: Iterable[torch.Tensor]) -> float:
    """The median over frames of skimage.restoration.estimate_sigma (wavelet MAD, averaged over
    channels): a Gaussian noise σ on the [0, 1] scale. Image texture makes it read a little high on
    clean frames; video compression that has already smoothed the noise makes it read low."""
    from skimage.restoration import estimate_sigma

    values = []
    for frame in frames:
        image = frame.float().cpu().numpy().transpose(1, 2, 0)
        if image.shape[2] == 1:
            values.append(float(estimate_sigma(image[:, :, 0])))
        else:
            values.append(float(estimate_sigma(image, channel_axis=-1, average_sigmas=True)))
    if not values:
        raise VideoReadError("there are no frames to estimate the noise level on")
    values.sort()
    middle = len(values) // 2
    return values[middle] if len(values) % 2 else 0.5 * (values[middle - 1] + values[middle])


def estimate_clip_sigma(clip: torch.Tensor, count: int = SIGMA_ESTIMATE_FRAMES) -> float:
    """σ of a (T, C, H, W) clip in memory, estimated on up to `count` frames spread over it (what
    `Denoiser.denoise_clip(sigma="auto")` uses)."""
    return estimate_noise_sigma(clip[_spread(len(clip), count)])


def estimate_video_sigma(reader, count: int = SIGMA_ESTIMATE_FRAMES) -> float:
    """σ of an opened video, estimated on up to `count` frames spread over it.

    Frames that cannot be decoded (a corrupt packet, a file cut short of what its header says) are
    skipped, as the denoising pass skips them; only when none of them decodes, the frames from the
    start are tried, and failing that it is a one-line error."""

    def decodable(index: int) -> torch.Tensor | None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the denoising pass warns about each corrupt frame once
                return next(iter(reader.frames(start=index, count=1)), None)
        except VideoReadError:
            return None

    frames = [frame for frame in map(decodable, _spread(len(reader), count)) if frame is not None]
    if not frames:
        frames = [frame for frame, _ in zip(_decodable_frames(reader), range(count))]
    if not frames:
        raise VideoReadError(
            f"no frame of '{reader.info.path}' can be decoded; the file is corrupt "
            "(not even the noise level can be estimated)"
        )
    return estimate_noise_sigma(frames)


def _decodable_frames(reader) -> Iterator[torch.Tensor]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield from reader.frames()
    except VideoReadError:
        return

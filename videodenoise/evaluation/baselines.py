"""Classical baselines the models are compared with, each given the true σ of the noise.

Every baseline maps a (T, C, H, W) float noisy clip and the σ it carries ([0, 1] scale) to a
(T, C, H, W) estimate. Their factors were chosen once on images that are not evaluation data (see
BASELINE_NOTE) and are then held fixed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = [
    "Baseline",
    "BASELINES",
    "BASELINE_NAMES",
    "BASELINE_NOTE",
    "denoise_noisy",
    "denoise_nlm_opencv",
    "denoise_nlm_skimage",
    "denoise_tv",
    "denoise_wavelet_bayes",
]


OPENCV_H_GREY = 0.8  # h = 0.8·σ₂₅₅ for grey clips
OPENCV_H_COLOUR = 0.4  # h = 0.4·σ₂₅₅ (luminance) and hColor = 0.6·σ₂₅₅ for colour clips
OPENCV_H_CHROMA = 0.6
OPENCV_TEMPORAL_WINDOW = 5
NLM_H = 0.6  # skimage non-local means: h = 0.6·σ with sigma=σ passed, fast mode
TV_WEIGHT = 0.75  # total variation (Chambolle): weight = 0.75·σ


def _to_uint8(frames: np.ndarray) -> np.ndarray:
    return np.round(np.clip(frames, 0.0, 1.0) * 255.0).astype(np.uint8)


def denoise_noisy(noisy: np.ndarray, sigma: float) -> np.ndarray:
    """The noisy input itself (the floor every denoiser must beat)."""
    return noisy


def denoise_nlm_opencv(noisy: np.ndarray, sigma: float, window: int = OPENCV_TEMPORAL_WINDOW) -> np.ndarray:
    """OpenCV temporal non-local means: `fastNlMeansDenoisingMulti` (grey) or
    `fastNlMeansDenoisingColoredMulti` (colour) on the clip as 8-bit frames (clipped to [0, 1] and
    rounded: the functions take uint8 only), template 7, search 21, and a temporal window of `window`
    frames centred on each frame. OpenCV only takes centred windows, and the window must lie inside
    the clip, so near the clip's ends it shrinks to the largest odd size that fits (the first and
    last frame are denoised alone). h = 0.8·σ₂₅₅ for grey; h = 0.4·σ₂₅₅ and hColor = 0.6·σ₂₅₅ for colour."""
    import cv2

    frames_count, channels = noisy.shape[:2]
    sigma_255 = sigma * 255.0
    images = _to_uint8(np.moveaxis(noisy, 1, -1))  # (T, H, W, C)
    if channels == 3:
        images = np.ascontiguousarray(images[..., ::-1])  # OpenCV's colour functions expect BGR
    else:
        images = np.ascontiguousarray(images[..., 0])
    out = np.empty_like(images)
    for t in range(frames_count):
        span = min(window - 1 + window % 2, 2 * min(t, frames_count - 1 - t) + 1)
        first = t - span // 2
        stack = [images[k] for k in range(first, first + span)]
        if channels == 3:
            h, h_colour = OPENCV_H_COLOUR * sigma_255, OPENCV_H_CHROMA * sigma_255
            if span == 1:
                out[t] = cv2.fastNlMeansDenoisingColored(stack[0], None, h, h_colour, 7, 21)
            else:
                out[t] = cv2.fastNlMeansDenoisingColoredMulti(stack, t - first, span, None, h, h_colour, 7, 21)
        else:
            h = OPENCV_H_GREY * sigma_255
            if span == 1:
                out[t] = cv2.fastNlMeansDenoising(stack[0], None, h, 7, 21)
            else:
                out[t] = cv2.fastNlMeansDenoisingMulti(stack, t - first, span, None, h, 7, 21)
    if channels == 3:
        out = out[..., ::-1]
    else:
        out = out[..., None]
    return np.moveaxis(out.astype(np.float32) / 255.0, -1, 1)


def _per_frame(noisy: np.ndarray, function: Callable[[np.ndarray, bool], np.ndarray]) -> np.ndarray:
    """Apply a single-image denoiser to every frame; it gets (H, W) or (H, W, C) and a colour flag."""
    out = np.empty_like(noisy)
    colour = noisy.shape[1] == 3
    for t in range(noisy.shape[0]):
        image = np.moveaxis(noisy[t], 0, -1) if colour else noisy[t, 0]
        result = function(image, colour)
        out[t] = np.moveaxis(result, -1, 0) if colour else result[None]
    return out


def denoise_nlm_skimage(noisy: np.ndarray, sigma: float) -> np.ndarray:
    """scikit-image `denoise_nl_means` per frame: patch 5, distance 6, fast mode, sigma = σ passed
    and h = 0.6·σ (scikit-image's advice for fast mode with a known σ)."""
    from skimage.restoration import denoise_nl_means

    return _per_frame(
        noisy,
        lambda image, colour: denoise_nl_means(
            image,
            h=NLM_H * sigma,
            sigma=sigma,
            fast_mode=True,
            patch_size=5,
            patch_distance=6,
            channel_axis=-1 if colour else None,
        ),
    )


def denoise_tv(noisy: np.ndarray, sigma: float) -> np.ndarray:
    """scikit-image `denoise_tv_chambolle` per frame with weight = 0.75·σ."""
    from skimage.restoration import denoise_tv_chambolle

    return _per_frame(
        noisy,
        lambda image, colour: denoise_tv_chambolle(
            image, weight=TV_WEIGHT * sigma, channel_axis=-1 if colour else None
        ),
    )


def denoise_wavelet_bayes(noisy: np.ndarray, sigma: float) -> np.ndarray:
    """scikit-image `denoise_wavelet` per frame: BayesShrink, soft thresholds, sigma = σ (known,
    not estimated), rescale_sigma, per RGB channel for colour (no YCbCr conversion)."""
    from skimage.restoration import denoise_wavelet

    return _per_frame(
        noisy,
        lambda image, colour: denoise_wavelet(
            image,
            sigma=sigma,
            method="BayesShrink",
            mode="soft",
            rescale_sigma=True,
            channel_axis=-1 if colour else None,
        ),
    )


@dataclass(frozen=True)
class Baseline:
    name: str
    function: Callable[[np.ndarray, float], np.ndarray]
    parameters: str  # how its noise parameter follows from σ, for the report


BASELINES: dict[str, Baseline] = {
    "noisy": Baseline("noisy", denoise_noisy, "the noisy input, clipped to [0, 1]"),
    "nlm-opencv": Baseline(
        "nlm-opencv",
        denoise_nlm_opencv,
        f"OpenCV fastNlMeansDenoising(Colored)Multi on 8-bit frames, centred temporal window of "
        f"{OPENCV_TEMPORAL_WINDOW} frames (shrunk near the clip's ends to stay inside it), "
        f"template 7, search 21; grey h = "
        f"{OPENCV_H_GREY}·σ₂₅₅; colour h = {OPENCV_H_COLOUR}·σ₂₅₅, hColor = {OPENCV_H_CHROMA}·σ₂₅₅",
    ),
    "nlm": Baseline(
        "nlm",
        denoise_nlm_skimage,
        f"scikit-image denoise_nl_means per frame, patch 5, distance 6, fast mode, sigma = σ, h = {NLM_H}·σ",
    ),
    "tv": Baseline("tv", denoise_tv, f"scikit-image denoise_tv_chambolle per frame, weight = {TV_WEIGHT}·σ"),
    "wavelet": Baseline(
        "wavelet",
        denoise_wavelet_bayes,
        "scikit-image denoise_wavelet per frame, BayesShrink, soft, sigma = σ, rescale_sigma",
    ),
}
BASELINE_NAMES = tuple(BASELINES)
BASELINE_NOTE = (
    "Baseline factors were chosen once to minimise RMSE at σ = 25 on 5-frame 128×128 pans over "
    "scikit-image's camera and astronaut images (not on any evaluation data), then held fixed."
)

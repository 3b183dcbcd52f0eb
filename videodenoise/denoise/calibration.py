"""Choosing, for one video, how much σ the model is told: a frame-to-frame loss over a few told scales.

    calibration = choose_told_scale(denoiser, frames, sigma)   # frames: (T, C, H, W), T >= 3 consecutive
    calibration.scale, calibration.describe()                   # 1.25: the model is to be told 1.25× the map
    sigma = calibration.applied_to(sigma)                       # a NoiseLevelFunction with told_scale 1.25

A noise-conditional model shrinks as much as the σ it is told. The σ the noise carries is not always the
σ that denoises best: on smooth content (a microscope cell, a clock face) the default model does best
told 1.25-1.6× the true σ of added Gaussian noise (+0.6 to +0.9 dB on two validation pans at σ = 25),
on textured content told σ itself. Which one a video needs can be measured from the video, without its
clean frames, because neighbouring frames carry the same scene under independent noise (Noise2Noise
across frames: Ehret et al., "Model-blind video denoising via frame-to-frame training", CVPR 2019):

1. Leave one frame s out of a short stretch of frames, denoise the rest as `clean` does (fused, then
   the model, told the map × scale) and take the output at a neighbour t = s ± 1.
2. Follow the optical flow from t to s. Where it lands within PIXEL_TOLERANCE of a pixel centre in both
   axes, and the flow back from s returns within FLOW_CONSISTENCY px (no occlusion), frame s's pixel
   there shows the same scene point as t's, with noise the output never saw. The output's mean squared
   distance to those pixels is its error against the clean frame plus the noise's variance, a constant:
   the scale with the smallest distance is, in expectation, the one with the smallest error.
   Interpolated (bilinear) targets would be blurred and favour over-smoothing: at σ = 25 they chose
   1.6 on a textured pan where 1.0 was best by 0.97 dB; the integer matches chose the best scale, or
   one within 0.02 dB of it, on all four validation pans.
3. Walk the grid SCALES from 1 towards the side that lowers the distance while it keeps lowering it.

This needs noise that is new in every frame and white. A codec's predicted blocks copy a frame's noise
into the next, which frame s then shares with the output's input, so the distance rewards keeping
noise: on H.264 at CRF 28 and heavy noise at CRF 23 it chose the smallest scale tried on every
validation pan, 0.2-0.5 dB below the best. The estimator's carried share does not always see that
(0 on two of four pans at CRF 28); its grain does: every camera-noise condition of the validation pans
measured a luminance grain of 1.31 or more, added Gaussian noise 1.00-1.25 (1.24-1.25 at σ = 2, where
8-bit rounding is a visible part of the noise). So a video keeps the scale 1 where its noise looks like a
codec's, not white or not new in every frame (`NoiseLevelFunction.codec_shaped`). A σ given
as one number says neither, so the frames' noise level function is estimated for the test (the number
is still what the model is told, times the scale): told one σ, calibration chose 1.25-2× on H.264 noise
and gained there (the one-σ estimate reads codec noise low), but a number a user measured or chose
should not be overruled by a criterion that is biased on such noise.

Where the scale is not 1, the camera gamma's step (`videodenoise.denoise.camera_bias`) is decided as the curve told
as it is decides it, and handed on with the scale (`NoiseLevelFunction.gamma_fit`): told another scale, the output is
smoother or rougher, and the video's first frames could decide the step otherwise or not at all.

Cost: the model on (T − 1)·2 windows per scale tried, on at most CROP pixels of the frames' centre, and where the
scale is not 1 one pass over those frames for the step.
`denoiser` below is a `videodenoise.denoise.denoiser.Denoiser`, which calls this module (not imported).
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

import cv2
import numpy as np
import torch

from videodenoise.denoise import camera_bias
from videodenoise.denoise.fusion import FrameAligner
from videodenoise.denoise.tiling import window_frames
from videodenoise.noise.estimation import estimate_clip_noise
from videodenoise.noise.noise_level_function import GammaFit, NoiseLevelFunction

SCALES = (0.64, 0.8, 1.0, 1.25, 1.6, 2.0)  # told σ / σ, a ratio of 1.25 apart
PIXEL_TOLERANCE = 0.15  # px from a pixel centre at which a flow's landing point still counts as on it
FLOW_CONSISTENCY = 0.5  # px: the flow there and back may miss its start by this much
BORDER = 8  # px at the frame's edges left out (the model's patches thin out there)
CALIBRATION_FRAMES = 5  # consecutive frames the scale is chosen on
CROP = (240, 320)  # the largest centre region used, so that the cost does not grow with the frame size


class Calibration(NamedTuple):
    """The chosen scale with the frame-to-frame distance (0-255 scale, squared) of every scale tried,
    and how many pixel matches it was measured on; `reason` says why nothing was tried, else ""."""

    scale: float
    distances: dict[float, float]
    matches: int
    reason: str = ""
    gamma_fit: GammaFit | None = None  # the camera gamma's step as the curve told makes it, if it does

    def applied_to(self, sigma: float | NoiseLevelFunction) -> float | NoiseLevelFunction:
        """`sigma` as it was if the scale is 1, else as a noise level function with this `told_scale`
        (one σ: the constant function of it) and the camera gamma's step as made told the curve as it is."""
        if self.scale == 1:
            return sigma
        return dataclasses.replace(_as_function(sigma), told_scale=self.scale, gamma_fit=self.gamma_fit)

    def describe(self) -> str:
        """One line: what the model is told and why."""
        if self.reason:
            return f"the model is told the noise's σ as it is ({self.reason})"
        tried = ", ".join(f"{scale:g}× {distance:.2f}" for scale, distance in sorted(self.distances.items()))
        return (
            f"the model is told {self.scale:g}× the noise's σ, chosen by the distance to left-out neighbouring "
            f"frames at {self.matches} matched pixels ({tried})"
        )


def calibrates(settings, sigma: float | NoiseLevelFunction | None) -> bool:
    """Whether `clean` with these `DenoiseSettings` chooses the told scale for a video of noise `sigma`: with
    `calibrate`, for any σ; with `calibrate_dark`, for σ auto's function of a dark video (`NoiseLevelFunction.dark`),
    never for a number a user told, nor where a user scaled σ (`sigma_scale`): what a user chose is not overruled."""
    if sigma is None:
        return False
    dark = isinstance(sigma, NoiseLevelFunction) and sigma.dark and settings.sigma_scale == 1
    return settings.calibrate or (settings.calibrate_dark and dark)


def calibrate_told_scale(
    denoiser, frames: torch.Tensor, sigma: float | NoiseLevelFunction
) -> float | NoiseLevelFunction:
    """`sigma` with the told scale chosen on these (T, C, H, W) consecutive frames (module notes)."""
    return choose_told_scale(denoiser, frames, sigma).applied_to(sigma)


def calibration_span(total: int) -> tuple[int, int]:
    """(first, count) of the frames in the middle of a video of `total` frames that the scale is chosen
    on: CALIBRATION_FRAMES, or all of a shorter video."""
    start = max(0, (total - CALIBRATION_FRAMES) // 2)
    return start, min(CALIBRATION_FRAMES, total - start)


def choose_told_scale(denoiser, frames: torch.Tensor, sigma: float | NoiseLevelFunction) -> Calibration:
    """The scale of SCALES with the smallest frame-to-frame distance on these (T, C, H, W) consecutive
    frames, by a walk from 1 (module notes)."""
    function = _as_function(sigma)
    if len(frames) < 3:
        return Calibration(1.0, {}, 0, "fewer than 3 frames")
    if function.level <= 0:
        return Calibration(1.0, {}, 0, "no noise")
    measured = function if isinstance(sigma, NoiseLevelFunction) else estimate_clip_noise(frames.float())
    if measured.codec_shaped:
        return Calibration(1.0, {}, 0, "the noise looks like a codec's: not white, or carried over between frames")
    frames = _centre_crop(frames.float())
    pairs = frame_pairs(frames, denoiser.settings.fusion)
    matches = int(sum(mask.sum() for *_, mask in pairs))
    if matches == 0:
        return Calibration(1.0, {}, 0, "no pixel matched between neighbouring frames")
    inputs = _inputs_without_each_frame(denoiser, frames, function)
    distances: dict[float, float] = {}

    def distance(scale: float) -> float:
        if scale not in distances:
            told = dataclasses.replace(function, told_scale=scale)
            total = 0.0
            for s, t, target, mask in pairs:
                estimate = _estimate_at(denoiser, inputs[s], t, told)
                total += float((np.square(estimate - target).sum(axis=2) * mask).sum())
            distances[scale] = total / (matches * frames.shape[1]) * 255**2
        return distances[scale]

    index = SCALES.index(1.0)
    step = 1 if distance(SCALES[index + 1]) < distance(SCALES[index]) else -1
    while 0 <= index + step < len(SCALES) and distance(SCALES[index + step]) < distance(SCALES[index]):
        index += step
    fit = _gamma_fit(denoiser, frames, sigma) if SCALES[index] != 1 else None
    return Calibration(SCALES[index], distances, matches, gamma_fit=fit)


def _gamma_fit(denoiser, frames: torch.Tensor, sigma) -> GammaFit | None:
    """The camera gamma's step as `clean` makes it on these frames told σ auto's curve as it is (its `gamma_fit`), or
    None where it is not made (or not for this σ). The scale chosen changes the output the step decides on: told 1.6×
    the curve, a dark microscope pan's first frames no longer held picture enough to tell and the step was lost, 1.4 dB
    below the curve told as it is with the step (benchmarks/results/camera-gamma/calibrated_step.log)."""
    made = []
    if camera_bias.gamma_bias(sigma) is not None and denoiser.settings.camera_bias:
        for _ in denoiser.denoise_frames(frames, sigma, on_camera_bias=made.append):
            if made:
                break
    return (made[0].skew, tuple(made[0].shots), tuple(made[0].reads)) if made else None


def _as_function(sigma: float | NoiseLevelFunction) -> NoiseLevelFunction:
    return sigma if isinstance(sigma, NoiseLevelFunction) else NoiseLevelFunction.constant(float(sigma))


def _centre_crop(frames: torch.Tensor) -> torch.Tensor:
    height, width = frames.shape[-2:]
    top, left = max(0, (height - CROP[0]) // 2), max(0, (width - CROP[1]) // 2)
    return frames[..., top : top + CROP[0], left : left + CROP[1]]


def frame_pairs(frames: torch.Tensor, settings) -> list[tuple[int, int, np.ndarray, np.ndarray]]:
    """(s, t, frame s's pixels at the flow's landing points from t (H×W×C), where that is a match (H×W))
    for every pair of neighbours t = s ± 1."""
    aligner = FrameAligner(settings)
    prepared = [aligner.prepare(frame) for frame in frames]
    height, width = prepared[0][1].shape
    columns, rows = np.meshgrid(np.arange(width, dtype=np.float32), np.arange(height, dtype=np.float32))
    flows: dict[tuple[int, int], np.ndarray] = {}  # each pair's flow both ways serves it and its mirror

    def flow(a: int, b: int) -> np.ndarray:
        if (a, b) not in flows:
            flows[a, b] = aligner.optical_flow(prepared[a][1], prepared[b][1])
        return flows[a, b]

    pairs = []
    for t in range(len(frames)):
        for s in (t - 1, t + 1):
            if not 0 <= s < len(frames):
                continue
            forward, backward = flow(t, s), flow(s, t)
            x, y = columns + forward[..., 0], rows + forward[..., 1]
            back = cv2.remap(backward, x, y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
            near_x, near_y = np.rint(x), np.rint(y)
            mask = (  # t's pixel lands on one of s's, away from s's border, and the flow there and back agrees
                (np.hypot(forward[..., 0] + back[..., 0], forward[..., 1] + back[..., 1]) < FLOW_CONSISTENCY)
                & (np.abs(x - near_x) < PIXEL_TOLERANCE)
                & (np.abs(y - near_y) < PIXEL_TOLERANCE)
                & (near_x >= BORDER)
                & (near_x < width - BORDER)
                & (near_y >= BORDER)
                & (near_y < height - BORDER)
            )
            mask[:BORDER], mask[-BORDER:], mask[:, :BORDER], mask[:, -BORDER:] = False, False, False, False  # t's
            inside_x = np.clip(near_x, 0, width - 1).astype(np.intp)
            inside_y = np.clip(near_y, 0, height - 1).astype(np.intp)
            target = prepared[s][0][inside_y, inside_x]
            pairs.append((s, t, target, mask.astype(np.float32)))
    return pairs


def _inputs_without_each_frame(denoiser, frames: torch.Tensor, function: NoiseLevelFunction) -> dict:
    """For each frame s: (the indices of the other frames, what the model sees of them: fused frames and
    their noise maps as `clean` makes them, or the frames and their maps without fusion)."""
    inputs = {}
    for s in range(len(frames)):
        rest = [i for i in range(len(frames)) if i != s]
        if denoiser.fusion is not None:
            seen, maps = denoiser.fusion.fuse_clip(frames[rest], function, function.luminance_grain, function.carried)
        else:
            seen, maps = frames[rest], torch.stack([function(frame) for frame in frames[rest]])
        inputs[s] = (rest, seen, maps)
    return inputs


def _estimate_at(denoiser, inputs: tuple, t: int, function: NoiseLevelFunction) -> np.ndarray:
    """The denoised frame t (H×W×C) from a window of the frames that leave one out, centred on t (moved inside them
    for a model that attends over aligned frames, as `clean` does)."""
    rest, seen, maps = inputs
    window, start = window_frames(rest.index(t), denoiser.window // 2, denoiser.window, len(rest), denoiser.aligns)
    estimate = denoiser.denoise_window(  # no mirror images: they average estimates, the told scale is the model's
        seen[window], function.told_level, start, 1, maps[window], function.told_factors, mirrors=1
    )
    return estimate[0].numpy().transpose(1, 2, 0)

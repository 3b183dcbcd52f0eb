"""Estimating how much noise a video carries: its noise level function, σ per intensity and channel.

    nlf = estimate_video_noise(reader)   # up to MAX_PAIRS pairs of consecutive frames spread over a video
    nlf = estimate_clip_noise(clip)      # the same for a (T, C, H, W) clip in memory
    print(nlf.summary(), nlf.level)      # `NoiseLevelFunction`: nlf(frame) is the frame's noise map

σ is on the [0, 1] scale here (the CLI takes 0-255). What is measured, and why:

* What σ is. The standard deviation of the error each pixel carries, at every spatial frequency. A codec removes
  the finest grain and leaves a correlated, lower-frequency residue that the finest wavelet band (skimage's
  estimate_sigma: `single_frame.estimate_noise_sigma`) barely sees: 8.0 (0-255) on bikes with Poisson-Gaussian
  noise through H.264 at CRF 23, where the error's std is 10.0; a difference of two frames sees 9.9.
* Frame differences. Consecutive frames show the same scene with independent noise. Frame t + 1 is aligned to
  frame t with the flow fusion uses (`videodenoise.denoise.fusion.FrameAligner`) and d = y_t − warp(y_{t+1})
  cancels the scene: where the flow explains the motion, Var(d) = σ_t² + v·σ_{t+1}², v the variance bilinear
  resampling leaves (known per pixel), and both frames show the scene point at the same intensity, so
  σ = std(d / √(1 + v)). (v is exact for white noise; noise a codec has correlated loses less to the resampling,
  so there σ reads high by up to √(2 / (1 + v)), 1.18 for the average sub-pixel offset, and not at all where the
  motion is whole pixels.) Pixels are binned by their local mean intensity (LOCAL_MEAN², as the map is read), per
  channel, and each bin's σ is `robust_sigma`'s. Before that, pixels the flow cannot be trusted on are dropped: on
  edges and texture (a gradient of the pair's mean over EDGE·σ a pixel: a tenth of a pixel of misalignment there
  already leaves scene in d), with structure left in d (a local mean of d over STRUCTURE times its robust spread:
  an occlusion, something the flow missed), warped in from outside the frame, and within RISK σ of 0 or 1 (clipped
  now and then, and cut off on one side when not).
* Single frames: the cross-check and the fallback. A pair whose d holds less than AGREE of the noise the frame's
  finest band shows (Haar HH coefficients) shares its noise (a repeated frame) and is left out. A video with no
  usable pair (one frame, all repeats) takes single frames' figures: per bin, the lower of flat patches and the
  finest band (`videodenoise.noise.single_frame`). Texture lifts both and a codec's smoothing lowers the finest
  band's, so it is rough.
* Two pictures. A pair across a scene cut, or one the flow could not align (a pan too fast), leaves picture in d
  that the tests above let through (σ = 2 read up to 27 with a cut in one run). Runs where a pair shows two pictures
  (`videodenoise.noise.scene_cuts`) are counted, and `clean` says so; they stay in (benchmarks/results/scene-cuts).
* The curve. Each channel's samples are binned by intensity, and a bin still more clipped than CLIPPED, or holding
  under MIN_SAMPLES pixels or MIN_SHARE of them, is not read; the curve runs through the bins read
  (`videodenoise.noise.curve`).
* Carried noise. A codec's skipped and predicted blocks copy the previous frame's noise along with its picture, so
  consecutive frames share some of it, which their difference cancels: σ reads low. With a share c of the noise
  variance shared one frame apart and c² two apart, pairs read σ₁² = σ²(1 − c) and σ₂² = σ²(1 − c²):
  c = σ₂²/σ₁² − 1, at most MAX_CARRIED; fusion is told c. σ₁ and σ₂ are the levels of the two curves carried flat
  beyond the bins read: each curve's trend there is its own, and where most pixels lie beyond, two trends part the
  levels on no evidence (benchmarks/results/carried-flat). c = 0 under MIN_CARRIED, or where σ₂² − σ₁² is under
  MIN_CARRIED_VARIANCE (what noise-free texture leaves). A reading σ₂²/σ₁² − 1 of 1 or more, which carried noise
  cannot give, is capped like any other: taken as no share, it failed its rule (benchmarks/results/carried-raw).
  Where the grain is measured and no channel's is above 1 (noise no codec correlated), a single frame's finest
  band holds all of the noise, σ_f, which a share the pairs cancel would show: σ₁² = σ_f²(1 − c), so c is at most
  1 − σ₁²/σ_f² (σ_f read on the pairs' bins, carried flat the same way). A fast pan fails the flow between frames
  two apart first, their difference keeps scene, and white noise read a share of up to 0.5: σ twice over
  (benchmarks/results/share-overread). Texture lifts σ_f, which only keeps the share.
  σ would be the curve times (1 − c)^−½; the map is lifted further, by (1 − c)^−CARRIED_LIFT: a codec keeps noise
  longer than that and leaves error around texture that flat pixels miss. CARRIED_LIFT = 1 was chosen on the
  validation photographs by a rule fixed before the sweep (benchmarks/results/carried-lift).
* The grain. From the same pairs, how much more σ a model should be told than the map says, per channel it sees:
  noise a codec, chroma subsampling or a colour matrix correlated over neighbouring pixels or channels
  (`videodenoise.noise.grain`). Where such noise leaves the pair mean with blurred gradients of its own above
  EDGE·σ, their median (read off d / 2, whose noise is the mean's) is the edge threshold instead, so the flat
  parts of a frame are still found.
* Cost. Up to MAX_PAIRS runs of three frames spread over the video, two flows each, MAX_SAMPLES pixels a
  channel kept from a pair at most; WORKERS runs measured at once in threads while the next is decoded, their
  samples gathered in the runs' order, so the function is the same as measuring one at a time
  (`benchmarks/bench_clean.py --parts 4`). What the threads freed stays in their own malloc arenas, where the
  denoising pass (the main thread) cannot reuse it: handed back to the system once they are done (on 1920×1080,
  0.8 GiB; `_release_freed_memory`).

`estimate_clip_sigma` and `estimate_video_sigma` give the function's `level` (the RMS of its map) as one σ.
"""

from __future__ import annotations

import collections
import contextlib
import ctypes
import dataclasses
import math
import sys
import threading
import warnings
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple

import cv2
import numpy as np
import torch

from videodenoise.denoise.fusion import FrameAligner, channel_mean
from videodenoise.denoise.scales import with_coarse
from videodenoise.denoise.settings import FusionSettings
from videodenoise.errors import VideoReadError
from videodenoise.noise.curve import BINS, CENTRES, binned, curve_through
from videodenoise.noise.grain import grain_samples, measure_grain
from videodenoise.noise.noise_level_function import NoiseLevelFunction, local_mean
from videodenoise.noise.robust import MAD_TO_SIGMA, robust_sigma
from videodenoise.noise.scene_cuts import across_cut
from videodenoise.noise.single_frame import (
    MAX_SAMPLES,
    at_clip_limits,
    block_statistics,
    finest_band_sigma,
    finest_coefficients,
    flat_sigma,
)

MAX_PAIRS = 8
WORKERS = 2  # runs measured at once (the cost line of the notes)
MIN_CARRIED = 0.1  # a carried share under this is what the two differences waver by: 0
MAX_CARRIED = 0.5  # more would blow σ up on little evidence (σ/√(1 − c)); 0: never carried
CARRIED_LIFT = 1.0  # the map is the curve times (1 − c)^−CARRIED_LIFT; ½ is the geometric model's (notes)
MIN_CARRIED_VARIANCE = (1 / 255) ** 2  # σ₂² − σ₁² under one 8-bit step²: rounding's and resampling's (notes)
MIN_SAMPLES = 400  # pixels for a bin's σ: it then wavers by about 4 %
MIN_SHARE = 0.05
MIN_BLOCKS = 12
EDGE = 0.2  # a gradient (per pixel) of the pair's mean above EDGE·σ is an edge or texture
FALLBACK_Q = 0.1  # an all-texture frame, or one almost free of noise, still keeps its flattest tenth
STRUCTURE = 4.0
STRUCTURE_BOX = 7
EXPOSURE_BOX = 9
BORDER = 3  # pixels at the frame's edge: the box filters reflect there
RISK = 2.0
AGREE = 0.25
HISTOGRAM = 256  # intensity bins the level (RMS of σ) is summed over
HISTOGRAM_CENTRES = (np.arange(HISTOGRAM) + 0.5) / HISTOGRAM


def estimate_noise(runs: Iterable[Sequence[torch.Tensor]]) -> NoiseLevelFunction:
    """The noise level function of runs of consecutive (C, H, W) frames in [0, 1]: each a frame alone, a
    frame and the next, or a frame and the two after it (which also measure the carried share). Runs are
    measured WORKERS at a time while the next is read (`_measure_run`), and their samples gathered in
    order, so the result is the same as one at a time: at most WORKERS + 1 runs are held besides the
    samples kept from each."""
    temporal: list[list[tuple[np.ndarray, np.ndarray]]] = []  # per channel: (intensity, d/√(1 + v)) per pair
    apart: list[list[tuple[np.ndarray, np.ndarray]]] = []  # the same, of frames two apart
    patches: list[list[tuple[np.ndarray, np.ndarray]]] = []  # per channel: (block mean, block variance) per frame
    finest: list[list[tuple[np.ndarray, np.ndarray]]] = []  # per channel: (intensity, Haar HH coefficient) per frame
    histogram = None  # per channel: how many pixels at each local-mean intensity
    grains: list[tuple[np.ndarray, np.ndarray]] = []  # per pair: (pixels, blocks), see grain_samples
    singles, pairs, frames, unlike = [], [0, 0], 0, 0  # pairs measured one and two frames apart; runs unlike
    for run in _measured_in_order(runs):
        channels = len(run.patches)
        if histogram is None:
            temporal, apart, patches, finest = ([[] for _ in range(channels)] for _ in range(4))
            histogram = np.zeros((channels, HISTOGRAM))
        elif histogram.shape[0] != channels:
            raise VideoReadError("the frames to estimate the noise on change their channel count")
        frames += 1
        unlike += run.unlike
        histogram += run.counts
        for channel in range(channels):
            patches[channel].append(run.patches[channel])
            finest[channel].append(run.finest[channel])
        if len(singles) < 3:  # kept for the last resort: the finest wavelet band
            singles.append(run.first)
        if run.pair is None:  # no pair, or one sharing its noise: nor a pair two apart, which is compared with it
            continue
        samples, grain_samples = run.pair
        pairs[0] += 1
        grains.append(grain_samples)
        for channel, sample in enumerate(samples):
            temporal[channel].append(sample)
        pairs[1] += run.apart is not None
        for channel, sample in enumerate(run.apart or ()):
            apart[channel].append(sample)
    if histogram is None:
        raise VideoReadError("there are no frames to estimate the noise level on")
    function, one = _fit(temporal, patches, finest, histogram, singles, pairs, frames, measure_grain(grains))
    # the carried share c = σ₂²/σ₁² − 1 from the pairs two apart, off the levels of the curves carried flat beyond the
    # bins read; the map is σ₁·(1 − c)^−CARRIED_LIFT (notes)
    two_function, two = _fit(apart, patches, finest, histogram, singles, pairs, frames)
    both = function.from_pairs and two_function.from_pairs and one > 0
    carried = min((two / one) ** 2 - 1, MAX_CARRIED) if both else 0.0
    if carried >= MIN_CARRIED and function.grain and max(function.grain) == 1.0:
        # noise measured as no codec's (no grain above 1): a single frame's finest band holds all of it, so a share its
        # pairs cancel shows there (notes)
        whole = _finest_level(temporal, finest, histogram)
        carried = min(carried, 1 - (one / whole) ** 2) if whole > 0 else 0.0  # no noise whole: nothing carried
    function = dataclasses.replace(function, unlike_runs=unlike)
    if carried < MIN_CARRIED or two**2 - one**2 < MIN_CARRIED_VARIANCE:
        return function
    scale = (1 - carried) ** -CARRIED_LIFT
    return dataclasses.replace(
        function,
        sigmas=tuple(tuple(min(s * scale, 1.0) for s in row) for row in function.sigmas),
        level=min(function.level * scale, 1.0),
        carried=carried,
    )


class _RunSamples(NamedTuple):
    """What one run of frames gives the estimate: its first frame's histogram counts (C, HISTOGRAM), block
    statistics and finest-band coefficients per channel, the frame itself (for the last resort), and the
    difference samples of the frame and the next (with the grain's) and of the frame and the one two after
    (None where a run has no such pair, or where the pair shares its noise; the second also where the first is)."""

    counts: np.ndarray
    patches: list[tuple[np.ndarray, np.ndarray]]
    finest: list[tuple[np.ndarray, np.ndarray]]
    first: torch.Tensor
    pair: tuple[list, tuple[np.ndarray, np.ndarray]] | None
    apart: list | None
    unlike: bool  # a pair of the run shows two pictures (`scene_cuts`)


def _measured_in_order(runs: Iterable[Sequence[torch.Tensor]]) -> Iterator[_RunSamples]:
    """`_measure_run` of each run, WORKERS runs at a time (OpenCV and NumPy let go of the GIL), in the
    runs' order; the next run is read (decoded) meanwhile. Each worker thread has its own aligner: an
    OpenCV flow object is not shared between threads."""
    local = threading.local()

    def measure(run: Sequence[torch.Tensor]) -> _RunSamples:
        if not hasattr(local, "aligner"):
            local.aligner = FrameAligner(FusionSettings())
        return _measure_run(local.aligner, run)

    with ThreadPoolExecutor(WORKERS) as pool:
        pending: collections.deque = collections.deque()
        for run in runs:
            pending.append(pool.submit(measure, run))
            if len(pending) > WORKERS:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    _release_freed_memory()


def _release_freed_memory() -> None:
    """glibc's malloc_trim(0): free memory in every malloc arena handed back to the system (a no-op elsewhere)."""
    with contextlib.suppress(OSError, AttributeError):  # AttributeError: a C library without it (musl)
        if sys.platform.startswith("linux"):
            ctypes.CDLL(None).malloc_trim(0)


def _measure_run(aligner: FrameAligner, run: Sequence[torch.Tensor]) -> _RunSamples:
    """What a run of one to three consecutive (C, H, W) frames gives the estimate (`_RunSamples`)."""
    first, *after = run
    image, guide = aligner.prepare(first)
    channels = image.shape[2]
    intensity = local_mean(image)
    index = _histogram_index(intensity)
    counts = np.stack([np.bincount(index[..., c].ravel(), minlength=HISTOGRAM) for c in range(channels)])
    patches = [block_statistics(image[..., c]) for c in range(channels)]
    finest = [finest_coefficients(image[..., c], intensity[..., c]) for c in range(channels)]
    pair = two = measured = None
    if after:
        # a pair with d under AGREE of the frame's finest band's noise shares it (a repeated frame): left out
        shared_below = AGREE * robust_sigma(np.concatenate([f[1] for f in finest]))
        pair = _difference_samples(aligner, image, guide, *aligner.prepare(after[0]), shared_below)
        if pair is not None and len(after) > 1:  # a like pair of frames two apart
            measured = _difference_samples(aligner, image, guide, *aligner.prepare(after[1]), shared_below)
            two = None if measured is None else measured[0]
    unlike = any(p is not None and p[2] for p in (pair, measured))
    return _RunSamples(counts, patches, finest, first, None if pair is None else pair[:2], two, unlike)


def estimate_clip_noise(clip: torch.Tensor, pairs: int = MAX_PAIRS, coarse: bool = False) -> NoiseLevelFunction:
    """The noise level function of a (T, C, H, W) clip in memory, from up to `pairs` runs of three frames
    (two at the end) spread over it (what `Denoiser.denoise_clip(sigma="auto")` uses). coarse: with the
    function of the clip halved too (`NoiseLevelFunction.coarse`, for two scales)."""
    if len(clip) == 0:
        raise VideoReadError("there are no frames to estimate the noise level on")
    runs = lambda: (clip[i : i + 3] for i in _spread(max(len(clip) - 1, 1), pairs))  # noqa: E731
    return with_coarse(estimate_noise(runs()), estimate_noise, runs) if coarse else estimate_noise(runs())


def estimate_video_noise(reader, pairs: int = MAX_PAIRS, coarse: bool = False) -> NoiseLevelFunction:
    """The noise level function of an opened video, from up to `pairs` runs of three consecutive frames
    spread over it (as `estimate_clip_noise`, coarse too).

    Frames that cannot be decoded (a corrupt packet, a file cut short of what its header says) are
    skipped, as the denoising pass skips them; only when none of them decodes, the frames from the
    start are tried, and failing that it is a one-line error."""
    found = False

    def spread() -> Iterator[list[torch.Tensor]]:
        nonlocal found
        for frames in _quietly(reader.runs(_spread(max(len(reader) - 1, 1), pairs), 3)):
            if frames:
                found = True
                yield frames

    def from_start() -> Iterator[list[torch.Tensor]]:
        previous, count = None, 0
        for frame in _decodable_frames(reader):
            if previous is not None:
                yield [previous, frame]
                count += 1
                if count == pairs:
                    return
            previous = frame
        if previous is not None and count == 0:
            yield [previous]

    for runs in (spread, from_start):
        try:
            function = estimate_noise(runs())
            return with_coarse(function, estimate_noise, runs) if coarse else function
        except VideoReadError:
            if found:
                raise
    raise VideoReadError(
        f"no frame of '{reader.info.path}' can be decoded; the file is corrupt (not even its noise can be estimated)"
    )


def estimate_clip_sigma(clip: torch.Tensor, count: int = MAX_PAIRS) -> float:
    """One σ for a (T, C, H, W) clip: the level (RMS over its pixels) of `estimate_clip_noise`."""
    return estimate_clip_noise(clip, count).level


def estimate_video_sigma(reader, count: int = MAX_PAIRS) -> float:
    """One σ for an opened video: the level (RMS over its pixels) of `estimate_video_noise`."""
    return estimate_video_noise(reader, count).level


# ---- the measurements ----------------------------------------------------------------------------
def _difference_samples(
    aligner: FrameAligner,
    image: np.ndarray,
    guide: np.ndarray,
    other: np.ndarray,
    other_guide: np.ndarray,
    shared_below: float = 0.0,
) -> tuple[list[tuple[np.ndarray, np.ndarray, np.ndarray]], tuple[np.ndarray, np.ndarray], bool] | None:
    """Per channel, (local mean intensity, d / √(1 + v), clipped) of the pixels of a pair where the flow
    is trusted (clipped ones are kept, flagged, to count them), the grain's samples, and whether the pair shows two
    pictures; None when the frames are too small to say anything, or when d's overall σ is under `shared_below`
    (the frames share their noise)."""
    height, width, channels = image.shape
    if height <= 2 * BORDER or width <= 2 * BORDER or other.shape != image.shape:
        return None
    warped, variance, map_x, map_y = aligner.align(guide, other, other_guide)
    mean = 0.5 * (image + warped)
    trusted = (map_x >= 0) & (map_x <= width - 1) & (map_y >= 0) & (map_y <= height - 1)
    if not trusted.any():
        return None
    raw = image - warped
    unlike = across_cut(raw, image, trusted)  # before the exposure fit, which takes a picture out
    difference = _without_exposure_change(raw, mean, trusted)
    normalised = difference / np.sqrt(1 + variance)[..., None]
    spread = robust_sigma(normalised[trusted])
    if spread < shared_below:
        return None
    # on edges and texture a fraction of a pixel of misalignment leaves scene in d
    gradient = _gradient(mean)
    # noise correlated over a few pixels (a codec's) has gradients of its own after that blur, which
    # are not the scene's: the pair mean's noise is distributed as d / 2's, whose median gradient is
    # then the floor of what counts as an edge (white noise's median lies under EDGE·σ)
    noise_gradient = float(np.median(_gradient(0.5 * (image - warped))[trusted]))
    fallback = float(np.quantile(gradient[trusted], FALLBACK_Q))
    # the grain takes flat pixels only, never the flattest tenth of a textured frame: the scene a flow
    # leaves there sits in block means, which is what the grain measures
    flat = trusted & (gradient <= max(EDGE * spread, noise_gradient))
    trusted &= gradient <= max(EDGE * spread, noise_gradient, fallback)
    warped_clipped = cv2.remap(at_clip_limits(other).astype(np.float32), map_x, map_y, cv2.INTER_LINEAR)
    clipped = at_clip_limits(image) | (warped_clipped.reshape(image.shape) > 0)
    # a pixel within RISK σ of 0 or 1 (by its 3×3 mean) is clipped now and then, and when it is not its
    # noise is cut off on one side: left out, so that clipping's σ is not what is measured
    near = cv2.blur(mean, (3, 3), borderType=cv2.BORDER_REFLECT).reshape(image.shape)
    at_risk = (near < RISK * spread) | (near > 1 - RISK * spread)
    structure = cv2.blur(normalised, (STRUCTURE_BOX, STRUCTURE_BOX), borderType=cv2.BORDER_REFLECT)
    structure = np.abs(structure.reshape(image.shape))
    intensity = local_mean(mean)
    samples, kept_everywhere = [], flat
    for channel in range(channels):
        keep = trusted & ~at_risk[..., channel]
        unclipped = keep & ~clipped[..., channel]
        if unclipped.any():
            limit = STRUCTURE * MAD_TO_SIGMA * float(np.median(structure[..., channel][unclipped]))
            keep &= clipped[..., channel] | (structure[..., channel] <= limit)
        kept_everywhere &= keep & ~clipped[..., channel]
        index = np.flatnonzero(keep)
        index = index[:: max(1, math.ceil(len(index) / MAX_SAMPLES))]
        samples.append(
            tuple(plane[..., channel].ravel()[index] for plane in (intensity, normalised, clipped))  # type: ignore[misc]
        )
    return samples, grain_samples(difference, normalised, map_x, map_y, kept_everywhere), unlike


def _without_exposure_change(difference: np.ndarray, mean: np.ndarray, trusted: np.ndarray) -> np.ndarray:
    """d less its least-squares line in the scene's intensity, per channel: a change of exposure or white
    balance between the frames (auto exposure, a flickering light) leaves d = offset + gain × scene,
    which is not noise, and which would sit in the grain's block means whole. The intensity is the pair
    mean's EXPOSURE_BOX² local mean: the mean itself shares noise with d (the warped frame has less, so
    they correlate), which the fit would then take out of d."""
    intensity = cv2.blur(mean, (EXPOSURE_BOX, EXPOSURE_BOX), borderType=cv2.BORDER_REFLECT).reshape(mean.shape)
    out = np.empty_like(difference)
    for channel in range(difference.shape[2]):
        x = intensity[..., channel][trusted].astype(np.float64)
        y = difference[..., channel][trusted].astype(np.float64)
        centred = x - x.mean()
        gain = float((centred * (y - y.mean())).sum() / max(float(np.square(centred).sum()), 1e-12))
        out[..., channel] = difference[..., channel] - (y.mean() + gain * (intensity[..., channel] - x.mean()))
    return out


def _gradient(image: np.ndarray) -> np.ndarray:
    """The gradient magnitude (per pixel) of an H×W×C image's channel mean, blurred just enough to quiet
    white noise but not fine texture."""
    grey = cv2.GaussianBlur(channel_mean(image), (0, 0), 1.0)
    return np.hypot(cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)) / 8


# ---- the curve -----------------------------------------------------------------------------------
def _fit(
    temporal, patches, finest, histogram: np.ndarray, singles, pairs, frames: int, grain: tuple[float, ...] = ()
) -> tuple[NoiseLevelFunction, float]:
    """The noise level function of the samples, and the level of its curves carried flat beyond the bins read (what
    the carried share is read off: each curve's trend there is its own, and would part two levels that the bins read
    agree on)."""
    rows, flat_rows, read, used_pairs, used_patches = [], [], [], False, False
    for channel in range(histogram.shape[0]):
        intensity, values, clipped = _joined(temporal[channel], 3)
        differences = binned(intensity, values, MIN_SAMPLES, robust_sigma, clipped, MIN_SHARE)
        if any(point is not None for point in differences):
            points, used_pairs = differences, True  # bins without samples are read off the measured ones
        else:  # no usable pair: single frames alone (only then are their figures worked out)
            flat = binned(*_joined(patches[channel]), MIN_BLOCKS, flat_sigma)
            fine = binned(*_joined(finest[channel]), MIN_SAMPLES, robust_sigma)
            # of the two single-frame figures the lower: texture lifts both (flat patches much more, where a
            # frame has none), a codec's smoothing lowers the finest band's
            points = [
                min((p for p in both if p is not None), key=lambda p: p[1], default=None) for both in zip(flat, fine)
            ]
            used_patches = any(point is not None for point in points)
        rows.append(curve_through(points))
        flat_rows.append(curve_through(points, limit=1.0))
        read += [bin_ for bin_, point in enumerate(points) if point is not None]
    known = any(row is not None for row in rows)
    if not known:  # frames too small for blocks or pairs
        sigma = finest_band_sigma(singles)
        rows = flat_rows = [np.full(BINS, sigma)] * len(rows)
        source = "the finest wavelet band of single frames"
    else:  # a channel without a curve takes the mean of the others'
        rows, flat_rows = _filled(rows), _filled(flat_rows)
        source = _source(used_pairs, used_patches, pairs, frames)
    sigmas = np.clip(np.asarray(rows), 0, 1)
    brightness = float((histogram @ HISTOGRAM_CENTRES).sum()) / max(float(histogram.sum()), 1.0)
    knots, sigma_rows = tuple(CENTRES.tolist()), tuple(tuple(row.tolist()) for row in sigmas)
    span = (min(read) / BINS, (max(read) + 1) / BINS) if known else None  # of the bins read
    level = min(_level(histogram, sigmas), 1.0)
    function = NoiseLevelFunction(knots, sigma_rows, level, source, grain, brightness=brightness, read_range=span)
    return function, min(_level(histogram, np.clip(np.asarray(flat_rows), 0, 1)), 1.0)


def _finest_level(temporal, finest, histogram: np.ndarray) -> float:
    """The level of the single frames' finest band, read on the bins the frame pairs read and carried flat beyond them
    as the pairs' level is (inf where no bin is read)."""
    rows = []
    for channel in range(histogram.shape[0]):
        intensity, values, clipped = _joined(temporal[channel], 3)
        read = binned(intensity, values, MIN_SAMPLES, robust_sigma, clipped, MIN_SHARE)
        fine = binned(*_joined(finest[channel]), MIN_SAMPLES, robust_sigma)
        rows.append(curve_through([f if r is not None else None for f, r in zip(fine, read)], limit=1.0))
    if all(row is None for row in rows):
        return math.inf
    return _level(histogram, np.clip(np.asarray(_filled(rows)), 0, 1))


def _filled(rows: list[np.ndarray | None]) -> list[np.ndarray]:
    known = [row for row in rows if row is not None]
    return [row if row is not None else np.mean(known, axis=0) for row in rows]


def _level(histogram: np.ndarray, sigmas: np.ndarray) -> float:
    """The RMS of the map (C, BINS rows of σ at CENTRES) over the pixels the histogram (C, HISTOGRAM) counts."""
    power = sum((h * np.square(np.interp(HISTOGRAM_CENTRES, CENTRES, row))).sum() for h, row in zip(histogram, sigmas))
    return math.sqrt(power / max(float(histogram.sum()), 1.0))


def _source(used_pairs: bool, used_patches: bool, pairs: list[int], frames: int) -> str:
    apart = f", {pairs[1]} two frames apart" if pairs[1] else ""
    differences = f"motion-aligned frame differences ({pairs[0]} frame pair{'s' * (pairs[0] != 1)}{apart})"
    if used_pairs and used_patches:
        return f"{differences} and flat patches of single frames"
    if used_pairs:
        return differences
    return f"flat patches of single frames ({frames} frame{'s' * (frames != 1)})"


def _joined(parts: list[tuple[np.ndarray, ...]], columns: int = 2) -> tuple[np.ndarray, ...]:
    if not parts:
        return tuple(np.empty(0) for _ in range(columns))
    return tuple(np.concatenate([p[column] for p in parts]) for column in range(columns))


def _histogram_index(intensity: np.ndarray) -> np.ndarray:
    return np.clip((intensity * HISTOGRAM).astype(np.int64), 0, HISTOGRAM - 1)


# ---- reading frames ------------------------------------------------------------------------------
def _spread(total: int, count: int) -> list[int]:
    """Up to `count` indices spread evenly over [0, total)."""
    count = min(count, total)
    return sorted({round(i * (total - 1) / max(count - 1, 1)) for i in range(count)})


def decode_frames(reader, start: int, count: int) -> list[torch.Tensor]:
    """Frames [start, start + count) of a reader that decode, stopping at the first that does not."""
    return next(_quietly(reader.runs([start], count)))


def _quietly(runs: Iterator[list[torch.Tensor]]) -> Iterator[list[torch.Tensor]]:
    """A reader's runs with its warnings silenced while each is read: the denoising pass warns about each corrupt
    frame once."""
    while True:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            run = next(runs, None)
        if run is None:
            return
        yield run


def _decodable_frames(reader) -> Iterator[torch.Tensor]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield from reader.frames()
    except VideoReadError:
        return

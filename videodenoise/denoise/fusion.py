"""Motion-compensated temporal fusion: average each frame with its neighbours where they show the same thing.

    fusion = MotionFusion()                                   # radius 2: five frames per output frame
    for fused, noise_map in fusion.stream(frames, sigma=25 / 255):
        ...  # fused (C, H, W): the frame with less noise; noise_map (H, W): the σ left at each pixel
    for fused, noise_map in fusion.stream(frames, sigma=nlf):  # σ per pixel and channel, from each frame
        ...  # noise_map (C, H, W)

Block matching is what puts BM4D ahead of single-image methods: it finds the same patch in the other
frames, however the camera or the scene moved, and averages them. A patch token's attention over the
same patch location in the other frames (the models' temporal token set) cannot: with a camera moving
1-3 px a frame, that location shows something else. So before the model, each frame is aligned with
its neighbours and averaged with them, pixel by pixel, where they agree:

1. Flow. Dense optical flow (OpenCV's DIS) from the frame to each neighbour within `radius` frames,
   computed on the grey frames lightly blurred (`flow_blur` px) so the noise does not steer it. With
   `chain_flows`, only consecutive frames' flows are computed (each pair once for the stream), and a
   neighbour k frames away is reached through the frames between: its flow is the chain of k of them.
2. Warp. Each neighbour is resampled onto the frame along the flow (bilinear). Resampling at a
   fractional offset (fx, fy) averages four noisy pixels, which leaves the noise variance times
   v = ((1 − fx)² + fx²)·((1 − fy)² + fy²), between ¼ and 1: known exactly, so it is accounted for.
3. Weigh. Where the flow is right, a warped neighbour differs from the frame by noise alone, whose
   expected squared difference is σ²·(1 + v). The squared difference, averaged over a `box`×`box`
   window, less that expectation, is the evidence that they show different things (occlusion, a
   wrong flow, a scene cut): w = exp(−max(d − σ²(1 + v), 0) / (strength·σ)²), the weight of temporal
   non-local means with the search replaced by the flow. The frame itself weighs 1.
4. Average, and say what is left: fused = Σ w·warped / Σ w, whose noise at each pixel has standard
   deviation σ·√(Σ w²·v) / Σ w (independent noise in different frames). That map is what a
   noise-conditional model is told (`UnrolledDenoiser.forward(sigma=map)`), so it shrinks less where
   the frames agreed and as much as before where nothing matched.

σ may be one number, a map of each pixel's σ ((H, W), or (C, H, W) per channel), or a function that
gives each frame's map from the frame itself (a `NoiseLevelFunction`: real noise grows with intensity).
With a map, σ² in steps 3 and 4 is each pixel's own (the mean over channels of σ_c² for the weights,
whose squared difference is a mean over channels too), taken from the centre frame: where a neighbour
is aligned it shows the same scene point, so the same intensity and the same σ, and where it is not
its weight is ~0 whatever its σ. The map left over has the shape of the map given: σ_c·√(Σ w²·v) / Σ w
per channel.

`FrameAligner` (steps 1 and 2) is also what the noise estimator aligns consecutive frames with
(`videodenoise.noise.estimation`), so the noise is measured through the same flow it is fused along,
and what `align_clip` warps a clip's frames onto each other with, for the models' aligned token set,
which learns step 3's weights instead of having them written down.

Noise a codec has correlated over neighbouring pixels (its grain, `videodenoise.noise.grain`: g times
white noise's σ in block means) has the same expected squared difference, but its box average
fluctuates more around it, having fewer independent pixels in the box; at the bandwidth white noise
needs, aligned neighbours then lose weight they should keep. So the bandwidth is (strength·σ·g^p)²,
with g the luminance grain (`NoiseLevelFunction.luminance_grain`; 1 for white noise, which is left as
it was) and p = GRAIN_POWER, chosen on the validation photographs (`benchmarks/validation_sweep.py`).

Noise a codec carries over from frame to frame (its skipped and predicted blocks copy the previous
frame's noise along with its picture; `NoiseLevelFunction.carried`: frames k apart share c^k of their
noise variance) cancels in their differences and survives their average. So for a neighbour k frames
away the expected squared difference, and with it the bandwidth, is (1 − c^k) times the above, and what
is left of the noise adds the shared part: σ²·(Σ w²·v + Σ_(i≠j) w_i·w_j·c^|t_i − t_j|) / (Σ w)², over
the frame and its neighbours at times t. c = 0 is fusion as above.

Exposure. A camera's auto-exposure, a cloud or mains-flickering light scale a whole frame's intensity from one
frame to the next. The flow does not mind (DIS normalises its patches' means), but step 3 then reads the
change as a difference in content: it gives a neighbour a weight it should not, and the average takes on its
brightness; the farther in time, the larger the change. With `match_exposure`, each aligned neighbour is first
multiplied by the gain, per channel, that brings it to the frame's exposure (`exposure_gain`), and its noise
variance factor v by the gain squared. A gain rather than an offset: exposure scales linear light, and a power-law
gamma turns a scale into a scale.

Guides. Steps 1 and 3 read the noisy frames, so at σ = 25 the flow and the weights are themselves
noisy. Given guides (one frame per frame, nearly noise-free: a first pass's estimate, or in a benchmark
the clean frames), the flow is the guides', and a neighbour's weight is `guided_mix` times one read
from the guides' squared difference, with no noise to subtract from it and a narrower bandwidth
(`guided_strength`·σ: what is left in the guides is a first pass's error, not the noise), plus the rest
times step 3's weight from the noisy frames along that flow: at light noise the noisy frames' own
differences are the better evidence, where a first pass's errors (textures smoothed differently from
frame to frame) make neighbours look unlike. The noisy frames are still what is averaged, and the map
left over is step 4's. `benchmarks/fusion_guides.py` measures what that is worth; `clean --passes 2`
runs it.

At σ = 0 there is nothing to average and a frame comes back as it is. Frames past either end of the
video are not invented: the first frame is fused with the `radius` frames after it only. The work is
OpenCV's, on the CPU, whatever device the model runs on.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import NamedTuple

import cv2
import numpy as np
import torch

from videodenoise.denoise.settings import FusionSettings
from videodenoise.errors import DenoiseError
from videodenoise.noise.noise_level_function import NoiseLevelFunction

MIN_FLOW_SIDE = 16  # DIS refuses frames of under 12 px a side (and some longer thin ones)
EXPOSURE_BLOCK = 16  # side of the blocks whose means exposure_gain compares: their noise is σ/16
EXPOSURE_RANGE = (0.04, 0.96)  # block means outside it say little of a gain (near black) or are clipped
EXPOSURE_LIMITS = (0.5, 2.0)  # a larger change is a cut, not an exposure, and its weights are ~0 anyway
TINY_VARIANCE = 1e-12  # a σ = 0 pixel of a map: only an identical neighbour is averaged in, not NaN
GRAIN_POWER = 1.0  # the bandwidth grows as grain^GRAIN_POWER (module notes; chosen on validation clips)

# one σ, a map (H, W) or (C, H, W), or a function giving a (C, H, W) frame its map
Sigma = float | np.ndarray | torch.Tensor | Callable[[torch.Tensor], torch.Tensor]


class Alignment(NamedTuple):
    """A frame resampled onto another: `warped` (H×W×C), the noise variance factor v (H×W) the bilinear
    resampling leaves, and the coordinates it sampled (H×W each; outside [0, W − 1] × [0, H − 1] the
    frame was reflected at its border)."""

    warped: np.ndarray
    variance: np.ndarray
    map_x: np.ndarray
    map_y: np.ndarray


class FrameAligner:
    """Aligns frames to each other: dense optical flow (OpenCV's DIS) on lightly blurred grey guides, and
    bilinear resampling along it (steps 1 and 2 of the module notes)."""

    def __init__(self, settings: FusionSettings | None = None):
        self.settings = settings or FusionSettings()
        self._flow = cv2.DISOpticalFlow_create(
            getattr(cv2, f"DISOPTICAL_FLOW_PRESET_{self.settings.flow_preset.upper()}")
        )
        self._grids: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}  # pixel coordinates by frame size

    def prepare(self, frame: torch.Tensor) -> tuple[np.ndarray, np.ndarray]:
        """(C, H, W) tensor → (H×W×C float32 image, uint8 grey guide the flow is computed on)."""
        if not isinstance(frame, torch.Tensor) or frame.dim() != 3 or frame.shape[0] not in (1, 3):
            shape = tuple(frame.shape) if isinstance(frame, torch.Tensor) else type(frame).__name__
            raise DenoiseError(f"motion fusion expects (C, H, W) frames with 1 or 3 channels, got {shape}")
        image = np.ascontiguousarray(frame.detach().cpu().float().numpy().transpose(1, 2, 0))
        grey = channel_mean(image)
        if self.settings.flow_blur > 0:
            grey = cv2.GaussianBlur(grey, (0, 0), self.settings.flow_blur)
        return image, np.clip(grey * 255.0 + 0.5, 0, 255).astype(np.uint8)

    def align(self, guide: np.ndarray, other: np.ndarray, other_guide: np.ndarray) -> Alignment:
        """`other` (H×W×C, with its guide) resampled onto the frame whose guide is `guide`."""
        return self.warp(other, self.optical_flow(guide, other_guide))

    def warp(self, other: np.ndarray, flow: np.ndarray) -> Alignment:
        """`other` (H×W×C) resampled along a flow (H, W, 2) from the frame it is aligned onto."""
        columns, rows = self._grid(flow.shape[:2])
        map_x, map_y = columns + flow[..., 0], rows + flow[..., 1]
        warped = cv2.remap(other, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
        if warped.ndim == 2:
            warped = warped[..., None]
        variance = _interpolation_variance(map_x)
        variance *= _interpolation_variance(map_y)
        return Alignment(warped, variance, map_x, map_y)

    def chain(self, flow: np.ndarray, onward: np.ndarray) -> np.ndarray:
        """The flow from a frame A to C, given `flow` from A to B and `onward` from B to C: each pixel goes
        where A's flow takes it in B, and on along B's flow there (read bilinearly, the border replicated)."""
        columns, rows = self._grid(flow.shape[:2])
        carried = cv2.remap(
            onward, columns + flow[..., 0], rows + flow[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        )
        return flow + carried

    def _grid(self, shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
        """The pixel coordinates (columns, rows) of a frame of this (H, W); every frame of a video has the
        same size, so they are built once."""
        if shape not in self._grids:
            height, width = shape
            self._grids[shape] = np.meshgrid(np.arange(width, dtype=np.float32), np.arange(height, dtype=np.float32))
        return self._grids[shape]

    def optical_flow(self, guide: np.ndarray, other: np.ndarray) -> np.ndarray:
        """(H, W, 2) flow with guide(x) ≈ other(x + flow(x)); frames under MIN_FLOW_SIDE a side are
        padded (replicated) for DIS, which refuses them, and the flow cropped back."""
        height, width = guide.shape
        bottom, right = max(0, MIN_FLOW_SIDE - height), max(0, MIN_FLOW_SIDE - width)
        if bottom or right:
            guide, other = (cv2.copyMakeBorder(g, 0, bottom, 0, right, cv2.BORDER_REPLICATE) for g in (guide, other))
        return self._flow.calc(guide, other, None)[:height, :width]


def channel_mean(image: np.ndarray) -> np.ndarray:
    """The mean over the channels of an H×W×C float image (→ H×W), equal bit for bit to image.mean(axis=2) (the
    channels summed in order, then divided by C) but summed plane by plane: NumPy's reduction over a last axis of
    three is about 8× slower, and fusion takes one per frame and per neighbour."""
    total = image[..., 0].copy()
    for channel in range(1, image.shape[2]):
        total += image[..., channel]
    return total / image.dtype.type(image.shape[2])


def clip_coordinates(
    clip: torch.Tensor, settings: FusionSettings | None = None, targets: Sequence[int] | None = None
) -> torch.Tensor:
    """Where each pixel of each frame of a (T, C, H, W) clip lies in every other frame, along the optical
    flow (step 1): (T, T, H, W, 2) pixel coordinates (x, y), [t, s] in frame s for frame t's pixels
    ([t, t] the pixel grid itself). T·(T − 1) flows, on the frames' grey guides. targets: only these frames'
    rows, (len(targets), T, H, W, 2), from len(targets)·(T − 1) flows."""
    if not isinstance(clip, torch.Tensor) or clip.dim() != 4:
        shape = tuple(clip.shape) if isinstance(clip, torch.Tensor) else type(clip).__name__
        raise DenoiseError(f"aligning a clip needs a (T, C, H, W) tensor, got {shape}")
    aligner = FrameAligner(settings)
    guides = [aligner.prepare(frame)[1] for frame in clip]
    height, width = guides[0].shape
    grid = np.stack(np.meshgrid(np.arange(width, dtype=np.float32), np.arange(height, dtype=np.float32)), axis=-1)
    rows = [
        [grid if s == t else grid + aligner.optical_flow(guides[t], other) for s, other in enumerate(guides)]
        for t in (range(len(guides)) if targets is None else targets)
    ]
    return torch.from_numpy(np.stack([np.stack(row) for row in rows]))


def warp_frames(clip: torch.Tensor, coordinates: torch.Tensor) -> torch.Tensor:
    """Resample every frame of a clip (…, S, C, H0, W0) at `coordinates` (T, S, H, W, 2) from
    `clip_coordinates` (step 2, bilinear, reflected at the borders): (…, T, S, C, H, W), [t, s] frame s
    seen from target t (T = S for every frame's row; fewer for some targets' rows). The coordinates may be
    a crop (a tile) of the frames' own; the model's aligned token set takes the result
    (`UnrolledDenoiser.forward(aligned=)`)."""
    *lead, frames, channels, height, width = clip.shape
    targets, sources, out_height, out_width, _ = coordinates.shape
    if sources != frames or targets > frames:
        raise DenoiseError(f"coordinates for {targets}×{sources} frame pairs do not fit a clip of {frames} frames")
    scale = torch.tensor([2 / max(width - 1, 1), 2 / max(height - 1, 1)], dtype=clip.dtype, device=clip.device)
    grid = coordinates.to(clip.device, clip.dtype) * scale - 1  # grid_sample's [−1, 1] (align_corners=True)
    images = clip.reshape(-1, frames, channels, height, width)
    # (N·T·S, C, H0, W0) sources against (N·T·S, H, W, 2) grids: [n, t, s] reads frame s
    sources_flat = images.unsqueeze(1).expand(-1, targets, -1, -1, -1, -1).reshape(-1, channels, height, width)
    grids = grid.unsqueeze(0).expand(images.shape[0], -1, -1, -1, -1, -1).reshape(-1, out_height, out_width, 2)
    warped = torch.nn.functional.grid_sample(
        sources_flat, grids, mode="bilinear", padding_mode="reflection", align_corners=True
    )
    return warped.view(*lead, targets, frames, channels, out_height, out_width)


def align_clip(clip: torch.Tensor, settings: FusionSettings | None = None) -> torch.Tensor:
    """Every frame of a clip warped onto every other: (T, C, H, W) → (T, T, C, H, W), a batch
    (B, T, C, H, W) → (B, T, T, C, H, W) (each clip its own flows); see `clip_coordinates`."""
    if isinstance(clip, torch.Tensor) and clip.dim() == 5:
        return torch.stack([align_clip(one, settings) for one in clip])
    return warp_frames(clip, clip_coordinates(clip.detach().cpu().float(), settings))


class MotionFusion:
    """Fuses every frame of a stream with its aligned neighbours; see the module notes."""

    def __init__(self, settings: FusionSettings | None = None):
        self.settings = settings or FusionSettings()
        self.aligner = FrameAligner(self.settings)

    # ---- streams ---------------------------------------------------------------------------------
    def stream(
        self,
        frames: Iterable[torch.Tensor],
        sigma: Sigma,
        grain: float = 1.0,
        carried: float = 0.0,
        guides: Iterable[torch.Tensor] | None = None,
    ) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
        """Yield (fused frame (C, H, W), noise map) per input frame (C, H, W) in [0, 1], in order.

        Holds 2·radius + 1 frames at a time. sigma: the frames' noise level on the [0, 1] scale: one
        σ, a map (H, W) or (C, H, W) for every frame, or a function giving each frame's map; the noise
        map has the map's shape ((H, W) for one σ). grain: the noise's luminance grain; carried: the share
        of its noise a frame carries over from the one before (module notes). guides: None, or one frame
        per frame, as clean as can be had (a first pass's estimate; the clean frames in a benchmark),
        that the flow and the weights are read from instead of the noisy frames (`fuse`).
        """
        radius = self.settings.radius
        buffer: dict[int, tuple[np.ndarray, ...]] = {}  # index → (H×W×C frame, flow guide[, H×W×C guide])
        steps: dict[tuple[int, int], np.ndarray] = {}  # chain_flows: (i, i ± 1) → the flow between them
        levels: dict[int, float | np.ndarray] = {}  # index → its σ (a number, H×W or H×W×C)
        source, loaded, done, current = iter(frames), 0, False, 0
        guide_source = None if guides is None else iter(guides)
        while True:
            while not done and loaded <= current + radius:
                try:
                    frame = next(source)
                except StopIteration:
                    done = True
                    break
                buffer[loaded] = self.aligner.prepare(frame)
                if guide_source is not None:
                    guide = next(guide_source, None)
                    if guide is None:
                        raise DenoiseError(f"fusion's guides ended at frame {loaded}: give one guide per frame")
                    if not isinstance(guide, torch.Tensor) or guide.shape[-2:] != frame.shape[-2:]:
                        raise DenoiseError(f"fusion's guide for frame {loaded} is not a frame of its size")
                    buffer[loaded] = (buffer[loaded][0], *self.aligner.prepare(guide)[::-1])
                levels[loaded] = _frame_sigma(sigma, frame, buffer[loaded][0])
                loaded += 1
            if current >= loaded:
                return
            offsets = [
                i - current for i in range(current - radius, current + radius + 1) if i in buffer and i != current
            ]
            neighbours = [(buffer[current + k][0], flow, k) for k, flow in self._flows(buffer, current, offsets, steps)]
            evidence = None
            if guide_source is not None:
                evidence = (buffer[current][2], [buffer[current + k][2] for _, _, k in neighbours])
            fused, noise = self.fuse(buffer[current][0], neighbours, levels.pop(current), grain, carried, evidence)
            if noise.ndim == 3:
                noise = noise.transpose(2, 0, 1)
            yield (
                torch.from_numpy(np.ascontiguousarray(fused.transpose(2, 0, 1))),
                torch.from_numpy(np.ascontiguousarray(noise)),
            )
            buffer.pop(current - radius, None)
            for pair in [pair for pair in steps if min(pair) < current - radius]:
                del steps[pair]
            current += 1

    def _flows(
        self, buffer: dict[int, tuple[np.ndarray, ...]], current: int, offsets: list[int], steps: dict
    ) -> Iterator[tuple[int, np.ndarray]]:
        """(offset, flow from frame `current` to that neighbour) for each offset, on the frames' flow guides
        (`buffer[i][1]`). With `chain_flows`, a neighbour k frames away is reached through the k − 1 frames
        between, chaining the flows between consecutive frames (`steps`, (i, i ± 1) → flow, each computed
        once for the whole stream): two dense flows a frame instead of 2·radius."""
        if not self.settings.chain_flows:
            for k in offsets:
                yield k, self.aligner.optical_flow(buffer[current][1], buffer[current + k][1])
            return
        for direction in (-1, 1):
            flow = None
            for k in sorted((k for k in offsets if k * direction > 0), key=abs):
                frame = current + k - direction  # the frame before this neighbour on the way out
                if (frame, frame + direction) not in steps:
                    steps[frame, frame + direction] = self.aligner.optical_flow(
                        buffer[frame][1], buffer[frame + direction][1]
                    )
                step = steps[frame, frame + direction]
                flow = step if flow is None else self.aligner.chain(flow, step)
                yield k, flow

    def fuse_clip(
        self,
        clip: torch.Tensor,
        sigma: Sigma,
        grain: float = 1.0,
        carried: float = 0.0,
        guides: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """A whole (T, C, H, W) clip → (fused clip (T, C, H, W), noise maps (T, H, W) or (T, C, H, W));
        guides: None, or a (T, C, H, W) clip to read the flow and the weights from (`stream`)."""
        if guides is not None and guides.shape != clip.shape:
            raise DenoiseError(
                f"fusion's guides must have the clip's shape {tuple(clip.shape)}, got {tuple(guides.shape)}"
            )
        pairs = list(self.stream(clip, sigma, grain, carried, guides))
        return torch.stack([f for f, _ in pairs]), torch.stack([n for _, n in pairs])

    # ---- one frame -------------------------------------------------------------------------------
    def fuse(
        self,
        image: np.ndarray,
        neighbours: list[tuple[np.ndarray, np.ndarray, int]],
        sigma: float | np.ndarray,
        grain: float = 1.0,
        carried: float = 0.0,
        evidence: tuple[np.ndarray, list[np.ndarray]] | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """(fused H×W×C image, noise map) of one frame (H×W×C) given its neighbours: each H×W×C, with the
        flow (H, W, 2) from the frame to it and how many frames after the frame it is, negative before. sigma:
        the frame's σ, one number (→ an H×W map) or an H×W or H×W×C map (→ a map of that shape); grain: the
        noise's luminance grain; carried: the share of its noise a frame carries over (module notes).

        evidence: None, or guides (the frame's H×W×C image, and each neighbour's), nearly noise-free,
        which the flows were then computed on: a weight mixes one read
        from their squared difference, with no noise to expect in it, with the noisy frames' (module
        notes, `guided_mix`); the noisy frames are still what is averaged, and the noise map is as above."""
        if not (math.isfinite(grain) and grain > 0):
            raise DenoiseError(f"the grain must be a finite factor > 0, got {grain}")
        if not 0 <= carried < 1:
            raise DenoiseError(f"the carried share of the noise must lie in [0, 1), got {carried}")
        widen = np.float32(grain**GRAIN_POWER)
        height, width = image.shape[:2]
        if np.ndim(sigma) == 0:
            if sigma <= 0 or not neighbours:
                return image, np.full((height, width), max(float(sigma), 0.0), dtype=np.float32)
            sigma = np.float32(sigma)
            variance = sigma**2
        else:
            if not neighbours or not np.any(sigma > 0):
                return image, sigma.astype(np.float32, copy=True)
            variance = np.square(sigma) if sigma.ndim == 2 else channel_mean(np.square(sigma))

        def bandwidth(strength: float) -> np.float32 | np.ndarray:  # (strength·σ·g^p)², never 0
            return np.maximum(widen * np.float32(strength**2) * variance, np.float32(TINY_VARIANCE))

        mix = 0.0 if evidence is None else self.settings.guided_mix  # the guides' share of a weight
        noisy_bandwidth = bandwidth(self.settings.strength) if mix < 1 else None
        guided_bandwidth = bandwidth(self.settings.guided_strength) if mix > 0 else None
        total = image.copy()
        weight_sum = np.ones((height, width), np.float32)
        noise_power = np.ones((height, width), np.float32)  # Σ w²·v, the centre's w = v = 1
        weights = [(0, np.float32(1))]  # (time offset, weight) of the frame and each neighbour: for the shared noise
        channels = image.shape[2]

        def difference(a: np.ndarray, b: np.ndarray) -> np.ndarray:  # squared, over channels and the box
            squared = np.subtract(a, b)
            return cv2.boxFilter(channel_mean(np.square(squared, out=squared)), -1, (self.settings.box,) * 2)

        for index, (other, flow, offset) in enumerate(neighbours):
            fresh = np.float32(1 - carried ** abs(offset))  # the share of the noise the two do not share
            if evidence is None:
                warped, shrink, _, _ = self.aligner.warp(other, flow)
            else:  # the neighbour and its guide along the guides' flow, in one resampling
                both, shrink, _, _ = self.aligner.warp(np.concatenate([other, evidence[1][index]], 2), flow)
                warped, seen = both[..., :channels], both[..., channels:]
            if self.settings.match_exposure:
                gain = exposure_gain(image, warped)
                warped = warped * gain
                if evidence is not None:
                    seen = seen * gain
                shrink = shrink * np.float32(np.mean(np.square(gain)))
            if mix < 1:  # the noisy frames' evidence: their difference less the noise expected in it
                excess = np.maximum(difference(warped, image) - fresh * variance * (1 + shrink), 0)
                weight = np.exp(-excess / (fresh * noisy_bandwidth))
            if mix > 0:  # the guides': their difference alone
                guided = np.exp(-difference(seen, evidence[0]) / (fresh * guided_bandwidth))
                weight = guided if mix == 1 else (1 - mix) * weight + mix * guided
            weight = weight.astype(np.float32, copy=False)
            total += np.multiply(warped, weight[..., None], out=warped)  # warped is fresh and not read again
            weight_sum += weight
            noise_power += weight * weight * shrink
            weights.append((offset, weight))
        if carried > 0:
            for index, (first, first_weight) in enumerate(weights):
                for second, second_weight in weights[index + 1 :]:
                    noise_power += np.float32(2 * carried ** abs(first - second)) * first_weight * second_weight
        # in place: on a 1920×1080 frame each fresh array is 8-25 MB that the system maps in anew, page by page
        total /= weight_sum[..., None]
        left = np.divide(np.sqrt(noise_power, out=noise_power), weight_sum, out=noise_power)
        return total, (sigma * (left if np.ndim(sigma) < 3 else left[..., None])).astype(np.float32, copy=False)


def exposure_gain(reference: np.ndarray, other: np.ndarray) -> np.ndarray:
    """The gain per channel ((C,) float32) that brings `other` (H×W×C, aligned onto `reference`) to the
    reference's exposure: the median, over EXPOSURE_BLOCK-pixel blocks whose means lie in EXPOSURE_RANGE in both,
    of the ratio of the two block means. A block mean's noise is σ / 16, so each ratio is nearly noise-free, and
    the median ignores the blocks that a moving object or an occlusion changed, up to half of them. 1 where too
    few blocks say (a dark or small frame); clipped to EXPOSURE_LIMITS."""
    height, width, channels = reference.shape
    rows, columns = height // EXPOSURE_BLOCK, width // EXPOSURE_BLOCK
    gains = np.ones(channels, np.float32)
    if rows * columns < 8:
        return gains

    def block_means(image: np.ndarray) -> np.ndarray:  # (blocks, C); area resampling averages each block
        blocks = image[: rows * EXPOSURE_BLOCK, : columns * EXPOSURE_BLOCK]
        return cv2.resize(blocks, (columns, rows), interpolation=cv2.INTER_AREA).reshape(-1, channels)

    ours, theirs = block_means(reference), block_means(other)
    low, high = EXPOSURE_RANGE
    usable = (ours > low) & (ours < high) & (theirs > low) & (theirs < high)
    for channel in range(channels):
        chosen = usable[:, channel]
        if chosen.sum() >= 8:
            gains[channel] = np.median(ours[chosen, channel] / theirs[chosen, channel])
    return np.clip(gains, *EXPOSURE_LIMITS).astype(np.float32)


def _frame_sigma(sigma: Sigma, frame: torch.Tensor, image: np.ndarray) -> float | np.ndarray:
    """A frame's σ for `MotionFusion.fuse`: one number, or its map as H×W or H×W×C float32, checked. image:
    the frame as fuse takes it (H×W×C), which a noise level function reads its map off directly."""
    if isinstance(sigma, NoiseLevelFunction):  # its map is finite and >= 0 by construction
        return sigma.map_image(image)
    if callable(sigma) and not isinstance(sigma, (torch.Tensor, np.ndarray)):
        sigma = sigma(frame)
    if isinstance(sigma, torch.Tensor):
        sigma = sigma.detach().cpu().float().numpy()
    if np.ndim(sigma) == 0:
        return float(sigma)
    sigma = np.asarray(sigma, dtype=np.float32)
    channels, height, width = frame.shape
    if sigma.shape not in ((height, width), (channels, height, width), (1, height, width)):
        raise DenoiseError(
            f"a noise map must be shaped (H, W) = {(height, width)} or (C, H, W) = {(channels, height, width)} "
            f"like the frame, got {sigma.shape}"
        )
    if not np.isfinite(sigma).all() or (sigma < 0).any():
        raise DenoiseError("a noise map must be finite and >= 0 everywhere (a std on the [0, 1] scale)")
    return np.ascontiguousarray(sigma.transpose(1, 2, 0)) if sigma.ndim == 3 else sigma


def _interpolation_variance(coordinates: np.ndarray) -> np.ndarray:
    """Noise variance left by linear interpolation at these coordinates, per axis: (1 − f)² + f²."""
    fraction = np.floor(coordinates)
    np.subtract(coordinates, fraction, out=fraction)
    variance = 2 * fraction
    variance *= np.subtract(1, fraction, out=fraction)
    return np.subtract(1, variance, out=variance)

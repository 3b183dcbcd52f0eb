"""Motion-compensated temporal fusion: average each frame with its neighbours where they show the same thing.

    fusion = MotionFusion()                                   # radius 2: five frames per output frame
    for fused, noise_map in fusion.stream(frames, sigma=25 / 255):
        ...  # fused (C, H, W): the frame with less noise; noise_map (H, W): the σ left at each pixel

Block matching is what puts BM4D ahead of single-image methods: it finds the same patch in the other
frames, however the camera or the scene moved, and averages them. A patch token's attention over the
same patch location in the other frames (the models' temporal token set) cannot: with a camera moving
1-3 px a frame, that location shows something else. So before the model, each frame is aligned with
its neighbours and averaged with them, pixel by pixel, where they agree:

1. Flow. Dense optical flow (OpenCV's DIS) from the frame to each neighbour within `radius` frames,
   computed on the grey frames lightly blurred (`flow_blur` px) so the noise does not steer it.
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

At σ = 0 there is nothing to average and a frame comes back as it is. Frames past either end of the
video are not invented: the first frame is fused with the `radius` frames after it only. The work is
OpenCV's, on the CPU, whatever device the model runs on.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import cv2
import numpy as np
import torch

from videodenoise.denoise.settings import FusionSettings
from videodenoise.errors import DenoiseError

MIN_FLOW_SIDE = 16  # DIS refuses frames of under 12 px a side (and some longer thin ones)


class MotionFusion:
    """Fuses every frame of a stream with its aligned neighbours; see the module notes."""

    def __init__(self, settings: FusionSettings | None = None):
        self.settings = settings or FusionSettings()
        self._flow = cv2.DISOpticalFlow_create(
            getattr(cv2, f"DISOPTICAL_FLOW_PRESET_{self.settings.flow_preset.upper()}")
        )
        self._grids: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}  # pixel coordinates by frame size

    # ---- streams ---------------------------------------------------------------------------------
    def stream(self, frames: Iterable[torch.Tensor], sigma: float) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
        """Yield (fused frame (C, H, W), noise map (H, W)) per input frame (C, H, W) in [0, 1], in order.

        Holds 2·radius + 1 frames at a time. sigma: the frames' noise level on the [0, 1] scale.
        """
        radius = self.settings.radius
        buffer: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # index → (H×W×C frame, flow guide)
        source, loaded, done, current = iter(frames), 0, False, 0
        while True:
            while not done and loaded <= current + radius:
                try:
                    frame = next(source)
                except StopIteration:
                    done = True
                    break
                buffer[loaded] = self._prepare(frame)
                loaded += 1
            if current >= loaded:
                return
            neighbours = [
                buffer[i] for i in range(current - radius, current + radius + 1) if i in buffer and i != current
            ]
            fused, noise = self.fuse(buffer[current], neighbours, sigma)
            yield torch.from_numpy(np.ascontiguousarray(fused.transpose(2, 0, 1))), torch.from_numpy(noise)
            buffer.pop(current - radius, None)
            current += 1

    def fuse_clip(self, clip: torch.Tensor, sigma: float) -> tuple[torch.Tensor, torch.Tensor]:
        """A whole (T, C, H, W) clip → (fused clip (T, C, H, W), noise maps (T, H, W))."""
        pairs = list(self.stream(clip, sigma))
        return torch.stack([f for f, _ in pairs]), torch.stack([n for _, n in pairs])

    # ---- one frame -------------------------------------------------------------------------------
    def _prepare(self, frame: torch.Tensor) -> tuple[np.ndarray, np.ndarray]:
        """(C, H, W) tensor → (H×W×C float32 image, uint8 grey guide the flow is computed on)."""
        if not isinstance(frame, torch.Tensor) or frame.dim() != 3 or frame.shape[0] not in (1, 3):
            shape = tuple(frame.shape) if isinstance(frame, torch.Tensor) else type(frame).__name__
            raise DenoiseError(f"motion fusion expects (C, H, W) frames with 1 or 3 channels, got {shape}")
        image = np.ascontiguousarray(frame.detach().cpu().float().numpy().transpose(1, 2, 0))
        grey = image.mean(axis=2)
        if self.settings.flow_blur > 0:
            grey = cv2.GaussianBlur(grey, (0, 0), self.settings.flow_blur)
        return image, np.clip(grey * 255.0 + 0.5, 0, 255).astype(np.uint8)

    def fuse(
        self, centre: tuple[np.ndarray, np.ndarray], neighbours: list[tuple[np.ndarray, np.ndarray]], sigma: float
    ) -> tuple[np.ndarray, np.ndarray]:
        """(fused H×W×C image, H×W noise map) of one frame given its neighbours (both from `_prepare`)."""
        image, guide = centre
        height, width = guide.shape
        if sigma <= 0 or not neighbours:
            return image, np.full((height, width), max(float(sigma), 0.0), dtype=np.float32)
        variance = np.float32(sigma) ** 2
        bandwidth = (self.settings.strength * np.float32(sigma)) ** 2
        if (height, width) not in self._grids:  # every frame of a video has the same size: built once
            self._grids[height, width] = np.meshgrid(
                np.arange(width, dtype=np.float32), np.arange(height, dtype=np.float32)
            )
        columns, rows = self._grids[height, width]
        total = image.copy()
        weight_sum = np.ones((height, width), np.float32)
        noise_power = np.ones((height, width), np.float32)  # Σ w²·v, the centre's w = v = 1
        for other, other_guide in neighbours:
            flow = self._optical_flow(guide, other_guide)
            map_x, map_y = columns + flow[..., 0], rows + flow[..., 1]
            warped = cv2.remap(other, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
            if warped.ndim == 2:
                warped = warped[..., None]
            shrink = _interpolation_variance(map_x) * _interpolation_variance(map_y)
            difference = cv2.boxFilter(np.square(warped - image).mean(axis=2), -1, (self.settings.box,) * 2)
            weight = np.exp(-np.maximum(difference - variance * (1 + shrink), 0) / bandwidth).astype(np.float32)
            total += weight[..., None] * warped
            weight_sum += weight
            noise_power += weight * weight * shrink
        fused = total / weight_sum[..., None]
        return fused, (np.float32(sigma) * np.sqrt(noise_power) / weight_sum).astype(np.float32)

    def _optical_flow(self, guide: np.ndarray, other: np.ndarray) -> np.ndarray:
        """(H, W, 2) flow with guide(x) ≈ other(x + flow(x)); frames under MIN_FLOW_SIDE a side are
        padded (replicated) for DIS, which refuses them, and the flow cropped back."""
        height, width = guide.shape
        bottom, right = max(0, MIN_FLOW_SIDE - height), max(0, MIN_FLOW_SIDE - width)
        if bottom or right:
            guide, other = (cv2.copyMakeBorder(g, 0, bottom, 0, right, cv2.BORDER_REPLICATE) for g in (guide, other))
        return self._flow.calc(guide, other, None)[:height, :width]


def _interpolation_variance(coordinates: np.ndarray) -> np.ndarray:
    """Noise variance left by linear interpolation at these coordinates, per axis: (1 − f)² + f²."""
    fraction = coordinates - np.floor(coordinates)
    return 1 - 2 * fraction * (1 - fraction)

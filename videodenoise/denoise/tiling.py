"""Cutting frames into overlapping tiles on a model's patch grid, blending them back, reflecting
windows at a video's ends, and the mirror images of a window (see `videodenoise.denoise.denoiser` for
why each choice is made)."""

from __future__ import annotations

import math

import torch
import torch.nn as nn


def round_up(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


def reflect(index: int, total: int | None) -> int:
    """Frame index `index` reflected into [0, total) without repeating the edge (−1 → 1, total → total − 2).
    total None: the end is not known yet, only negative indices are reflected."""
    if total is None:
        return -index if index < 0 else index
    if total == 1:
        return 0
    period = 2 * (total - 1)
    index %= period
    return period - index if index >= total else index


def window_frames(
    frame: int, before: int, size: int, total: int | None, distinct: bool = False
) -> tuple[list[int], int]:
    """(the frames of the `size`-frame window that denoises `frame`, where `frame` is in it), for a `total`-frame
    video (None: not known yet, and the window's frames all read). The window starts `before` frames ahead of
    `frame`, reflected past either end; or, `distinct`, it is moved inside the video and cut to it (a model that
    averages the frames it sees must not see one twice)."""
    low = frame - before
    if distinct:
        low = max(0, low if total is None else min(low, total - size))
    indices = [reflect(j, total) for j in range(low, low + size)]
    return (sorted(set(indices)), frame - low) if distinct else (indices, before)


def model_margin(model: nn.Module) -> tuple[int, int]:
    """(margin, align): how many pixels past a tile edge the model's output depends on (its `reach`),
    and the pixel step of its patch grid (tiles starting on it cut the same patches as the whole frame
    does). A model without a patch grid: 16 px and no grid."""
    config = getattr(model, "config", None)
    if not hasattr(model, "reach") or not getattr(config, "stride", None):
        return 16, 1
    return model.reach, config.stride


def tile_spans(length: int, tile: int | None, overlap: int, align: int) -> list[tuple[int, int]]:
    """[start, stop) spans covering [0, length) with tiles of at most about `tile` pixels, neighbours
    overlapping by at least `overlap`, starts on multiples of `align`, sizes as even as possible."""
    if not tile or length <= tile:
        return [(0, length)]
    count = math.ceil((length - overlap) / (tile - overlap))
    size = math.ceil((length + (count - 1) * overlap) / count)
    spans, start = [], 0
    for index in range(count):
        stop = length if index == count - 1 else min(length, start + size)
        spans.append((start, stop))
        if stop == length:
            break
        start = max((stop - overlap) // align * align, start + align)
    return spans


def ramp(start: int, stop: int, length: int, overlap: int, margin: int) -> torch.Tensor:
    """Blend weight along one axis of a tile: 0 within `margin` of an edge shared with another tile,
    then a raised cosine up to 1 over the rest of the overlap; 1 at the frame's own borders."""
    distance = torch.arange(stop - start, dtype=torch.float32)
    weight = torch.ones(stop - start)
    width = max(overlap - 2 * margin, 1)

    def rise(d: torch.Tensor) -> torch.Tensor:
        t = ((d - margin + 0.5) / width).clamp(0, 1)
        return torch.where(d < margin, torch.zeros_like(t), 0.5 - 0.5 * torch.cos(math.pi * t))

    if start > 0:
        weight *= rise(distance)
    if stop < length:
        weight *= rise(distance.flip(0))
    return weight


def blend_tiles(
    height: int, width: int, tile: int | None, overlap: int, align: int, margin: int, device
) -> tuple[list, torch.Tensor]:
    """The tiles of a frame ((top, bottom, left, right), blend weight) and the weights' sum, (H, W)."""
    tiles, weight_sum = [], torch.zeros(height, width, device=device)
    for top, bottom in tile_spans(height, tile, overlap, align):
        for left, right in tile_spans(width, tile, overlap, align):
            vertical, horizontal = ramp(top, bottom, height, overlap, margin), ramp(left, right, width, overlap, margin)
            weight = (vertical[:, None] * horizontal[None, :]).to(device)
            weight_sum[top:bottom, left:right] += weight
            tiles.append(((top, bottom, left, right), weight))
    return tiles, weight_sum


def mirror(x, axes: tuple[int, ...]):
    """x flipped along `axes` (its own inverse); one σ or None as it is."""
    return x.flip(axes) if axes and isinstance(x, torch.Tensor) else x


def mirror_coordinates(coordinates: torch.Tensor, axes: tuple[int, ...]) -> torch.Tensor:
    """`clip_coordinates` (T, T, H, W, 2) of a clip, as those of its mirror image along the frame `axes`
    (-1: left-right, -2: up-down): the pixel grid flipped and each x (or y) read from the other side."""
    height, width = coordinates.shape[2:4]
    for axis in axes:
        size, component = (width, 0) if axis == -1 else (height, 1)
        coordinates = coordinates.flip(axis - 1).clone()  # the grid axes sit before the (x, y) axis
        coordinates[..., component] = size - 1 - coordinates[..., component]
    return coordinates

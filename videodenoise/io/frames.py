"""Frames as the package holds them, and the files they come from.

Frames travel through the project as float32 tensors in [0, 1], shaped (C, H, W) for one frame and
(T, C, H, W) for a clip, with C = 1 (grey) or 3 (RGB). This module converts between those tensors and
the integer images files hold, and finds the image frames of a folder.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import torch

from videodenoise.errors import VideoWriteError

IMAGE_SUFFIXES = {".tif", ".tiff", ".png", ".jpg", ".jpeg", ".bmp"}
VIDEO_SUFFIXES = {".mp4", ".avi", ".mkv", ".webm", ".gif", ".mov", ".m4v", ".mpg", ".mpeg", ".wmv", ".flv"}


def is_junk(path: Path) -> bool:
    """Files that real dataset copies carry and that are never frames or videos."""
    name = path.name
    return name.startswith("._") or name.startswith(".") or name in {"Thumbs.db", "desktop.ini"}


def numeric_sort_key(path: Path) -> tuple:
    """Sort key that orders '2.tif' before '10.tif' (natural order, digits compared as numbers)."""
    parts = re.split(r"(\d+)", path.name)
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p.lower()) for p in parts if p != "")


def list_frame_files(folder: Path) -> list[Path]:
    """The image frames of a folder, junk skipped, in numeric order."""
    return sorted(
        (p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES and not is_junk(p)),
        key=numeric_sort_key,
    )


def to_channels(rgb_or_grey: np.ndarray, channels: int | None) -> np.ndarray:
    """An (H, W, C) uint8/uint16 image with C in {1, 3} converted to the requested channel count."""
    import cv2

    have = rgb_or_grey.shape[2]
    if channels is None or channels == have:
        return rgb_or_grey
    if channels == 1:
        return cv2.cvtColor(rgb_or_grey, cv2.COLOR_RGB2GRAY)[:, :, None]
    if channels == 3:
        return np.repeat(rgb_or_grey, 3, axis=2)
    raise ValueError(f"channels must be 1, 3 or None, got {channels}")


def to_tensor(image: np.ndarray) -> torch.Tensor:
    """(H, W, C) integer image -> (C, H, W) float32 tensor in [0, 1]."""
    scale = float(np.iinfo(image.dtype).max) if np.issubdtype(image.dtype, np.integer) else 1.0
    return torch.from_numpy(np.ascontiguousarray(image.transpose(2, 0, 1))).float().div_(scale)


def to_integer(frame: torch.Tensor | np.ndarray, bits: int = 8) -> np.ndarray:
    """A (C, H, W) float frame in [0, 1] (or an (H, W, C) integer array) -> (H, W, C) uint8, or uint16
    with bits = 16, rounded."""
    dtype = np.uint16 if bits > 8 else np.uint8
    if isinstance(frame, np.ndarray) and np.issubdtype(frame.dtype, np.integer):
        frame = frame if frame.ndim == 3 else frame[:, :, None]
        if frame.dtype == dtype:
            return frame
        frame = torch.from_numpy(frame.astype(np.float32) / np.iinfo(frame.dtype).max).permute(2, 0, 1)
    if isinstance(frame, np.ndarray):
        frame = torch.from_numpy(frame)
    if frame.ndim != 3:
        raise VideoWriteError(f"a frame must be (C, H, W), got shape {tuple(frame.shape)}")
    peak = float(np.iinfo(dtype).max)
    array = frame.detach().double().clamp(0, 1).mul(peak).round().cpu().numpy().astype(dtype)
    return np.ascontiguousarray(array.transpose(1, 2, 0))


def to_uint8(frame: torch.Tensor | np.ndarray) -> np.ndarray:
    """A (C, H, W) float frame in [0, 1] (or an (H, W, C) uint8 array) -> (H, W, C) uint8, rounded."""
    return to_integer(frame, 8)

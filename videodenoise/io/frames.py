"""Frames as the package holds them, and the files they come from.

Frames travel through the project as float32 tensors in [0, 1], shaped (C, H, W) for one frame and
(T, C, H, W) for a clip, with C = 1 (grey) or 3 (RGB). This module converts between those tensors and
the integer images files hold, finds the image frames of a folder, and checks that a tensor is such a clip.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import torch

from videodenoise.errors import DenoiseError, VideoWriteError

IMAGE_SUFFIXES = {".tif", ".tiff", ".png", ".jpg", ".jpeg", ".bmp"}
LOSSLESS_IMAGE_SUFFIXES = {".tif", ".tiff", ".png", ".bmp"}
VIDEO_SUFFIXES = {
    *(".mp4", ".avi", ".mkv", ".webm", ".gif", ".mov", ".m4v", ".mpg", ".mpeg", ".wmv", ".flv"),
    *(".ts", ".mts", ".m2ts", ".3gp", ".mxf"),  # broadcast and DVR recordings, camcorders' AVCHD, phones, broadcast
    *(".264", ".h264", ".265", ".h265", ".hevc"),  # raw streams, as DVRs export them
    ".dav",  # Dahua's DVRs' own recordings, which FFmpeg reads (its dhav demuxer)
}


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


EXIF_ORIENTATION = 0x0112  # the tag a camera writes instead of turning the pixels: how to show them upright
# the files whose tag is ours to apply: cameras write it in JPEG; OpenCV turns a TIFF itself (and with IMREAD_UNCHANGED
# fails on the turns by a quarter, in 5.1), and Pillow finds a PNG's only by reading through the picture
ORIENTED_SUFFIXES = {".jpg", ".jpeg"}


def upright(image: np.ndarray, path: Path) -> np.ndarray:
    """An (H, W, C) image read from `path` as stored, turned as its EXIF orientation asks (a phone's JPEG: the
    sensor's pixels, and a tag saying they are shown turned), as viewers and ffmpeg show it. OpenCV reads with alpha
    and full bit depth only as stored; Pillow reads the tag without decoding the picture."""
    from PIL import Image, UnidentifiedImageError

    if path.suffix.lower() not in ORIENTED_SUFFIXES:
        return image
    try:
        with Image.open(path) as picture:
            orientation = int(picture.getexif().get(EXIF_ORIENTATION, 1))
    except (OSError, UnidentifiedImageError, ValueError, SyntaxError, TypeError):
        return image  # no tag to read: as stored
    mirrored = orientation in (2, 4, 5, 7)  # each mirrored one is the turn of its neighbour, mirrored left-right
    turns = {1: 0, 2: 0, 3: 2, 4: 2, 5: 1, 6: 3, 7: 3, 8: 1}.get(orientation, 0)  # quarter turns anticlockwise
    if mirrored:
        image = image[:, ::-1]
    return np.ascontiguousarray(np.rot90(image, k=turns)) if turns or mirrored else image


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


# frames on the [0, 1] scale with unclipped noise stay well under this; 8-bit values do not
OUT_OF_SCALE = 4.0


def check_clip_frames(clip) -> None:
    """What `denoise_clip` takes, said in one line when it is not: a float (T, C, H, W) tensor, C = 1 or 3,
    finite, on the [0, 1] scale. Frames on the 0-255 scale or in an integer dtype would otherwise come
    back clamped to [0, 1], silently wrong."""
    if not isinstance(clip, torch.Tensor):
        hint = ": convert it with torch.from_numpy" if type(clip).__name__ == "ndarray" else ""
        raise DenoiseError(f"denoise_clip expects a (T, C, H, W) tensor, got {type(clip).__name__}{hint}")
    shape = tuple(clip.shape)
    if clip.dim() != 4:
        raise DenoiseError(f"denoise_clip expects a (T, C, H, W) tensor, got {shape}")
    if clip.shape[1] not in (1, 3):
        hint = ": channels last? use clip.permute(0, 3, 1, 2)" if clip.shape[3] in (1, 3) else ""
        raise DenoiseError(f"denoise_clip expects (T, C, H, W) frames with C = 1 or 3, got {shape}{hint}")
    if not clip.is_floating_point():
        top = f"divide by {torch.iinfo(clip.dtype).max}" if clip.dtype != torch.bool else "convert it"
        raise DenoiseError(f"denoise_clip takes float frames on the [0, 1] scale, got {clip.dtype}: {top}")
    if clip.numel() and not bool(torch.isfinite(clip).all()):
        raise DenoiseError("the clip holds NaN or infinite values; denoise_clip takes finite frames in [0, 1]")
    # noisy frames may stray a little outside [0, 1] (unclipped noise); far outside is another scale
    largest = float(clip.abs().max()) if clip.numel() else 0.0
    if largest > OUT_OF_SCALE:
        raise DenoiseError(
            f"the clip holds values up to {largest:.4g}; denoise_clip takes frames on the [0, 1] scale "
            "(divide 8-bit values by 255)"
        )


WRITTEN_FRAME = re.compile(r"(\d{6})\.png")  # a frame of a PNG frame folder `clean` writes: its number, from 0


def frame_file_name(index: int) -> str:
    """The name of frame `index` (from 0) in a PNG frame folder `clean` writes (`WRITTEN_FRAME`)."""
    return f"{index:06d}.png"


def written_frame_folder(path: Path) -> bool:
    """Whether `path` is a folder of frames as `clean` writes them, and of nothing else but hidden files: an earlier
    output, not a folder to write outputs into."""
    try:
        names = [entry.name for entry in path.iterdir() if not entry.name.startswith(".")]
    except OSError:  # unreadable: what it holds is for the writer to find out
        return False
    return bool(names) and all(WRITTEN_FRAME.fullmatch(name) for name in names)

"""Opening a video file or frame folder with the reader that fits it.

    reader = open_video("input.mp4")          # reader.info: frames, size, rate, channels, alpha, bits
    for frame in reader.frames(channels=3):   # lazily, (C, H, W) float32 in [0, 1]
        ...

Files go to PyAV (FFmpeg), falling back to OpenCV for the few PyAV cannot decode; folders of image
frames (tif, png, jpg, bmp) are read in numeric order, and an image file as a clip of one frame.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import torch

from videodenoise.errors import VideoReadError
from videodenoise.io.frames import IMAGE_SUFFIXES
from videodenoise.io.pyav_reader import PyAVReader
from videodenoise.io.readers import FallbackReader, FrameFolderReader, OpenCVReader, VideoInfo, VideoReader, short_error


def open_video(path: str | os.PathLike, fps: float | None = None, stream: int | None = None) -> VideoReader:
    """Open a video file or a folder of frames for lazy reading.

    `fps` sets the frame rate of a frame folder or of a raw stream such as a DVR's .264 (which have none of their own);
    it is ignored for other video files, whose rate comes from the container. `stream`: which of a file's video
    streams (None: the main one, as ffmpeg picks it).
    """
    import av

    path = Path(path)
    if fps is not None and not fps > 0:
        raise VideoReadError(f"the frame rate of an input must be positive, got {fps:g}; e.g. --fps 25")
    if not path.exists():
        address = re.match(r"(rtsp|rtsps|rtmp|rtmps|srt|udp|rtp|https?|ftp):/+(.*)", str(path))
        if address:  # a camera's live stream or a web address, which a path cannot hold (its // became /)
            url = f"{address[1]}://{address[2]}"
            raise VideoReadError(
                f"'{url}' is a network address; clean reads video files: record or download it first (a camera's"
                f" stream, e.g. with ffmpeg -i '{url}' -c copy -t 60 recording.mp4), then pass the file"
            )
        raise VideoReadError(f"'{path}' does not exist; check the path")
    if path.is_dir():
        return FrameFolderReader(path, fps=fps)
    if path.suffix.lower() in IMAGE_SUFFIXES:
        return FrameFolderReader.image(path, fps=fps)
    try:
        return FallbackReader(PyAVReader(path, stream, fps))
    except (av.FFmpegError, UnicodeDecodeError, ValueError, VideoReadError) as pyav_error:
        if isinstance(pyav_error, VideoReadError) and stream is not None:
            raise  # the stream asked for is not there: OpenCV cannot choose streams either
        try:
            return OpenCVReader(path)
        except VideoReadError:
            if index_missing(path):
                raise VideoReadError(
                    f"'{path}' is an MP4 or MOV recording without its index (the moov box its writer adds last): it"
                    " was stopped before the end, by a power cut or a full card, and neither ffmpeg nor a player can"
                    " read it as it is; rebuild the index with a tool such as untrunc (from a whole recording of the"
                    " same camera), then pass the rebuilt file"
                ) from None
            raise VideoReadError(
                f"'{path}' is not a video that PyAV or OpenCV can decode ({short_error(pyav_error)}); "
                "check that the file is complete and is a video"
            ) from None


def index_missing(path: Path) -> bool:
    """Whether `path` is an ISO base media file (MP4, MOV, 3GP: top-level boxes, their size and four-letter type
    first) with pictures (`mdat`) or a file type (`ftyp`) but no index (`moov`): what a camera leaves when it stops
    before writing the index at the end."""
    seen, offset = set(), 0
    try:
        length = path.stat().st_size
        with open(path, "rb") as handle:
            while offset + 8 <= length and len(seen) < 64:
                handle.seek(offset)
                header = handle.read(16)
                size, kind = int.from_bytes(header[:4], "big"), header[4:8]
                if not all(32 <= byte < 127 for byte in kind):
                    break  # not a box: not such a file, or past its last whole box
                seen.add(kind)
                if size == 1:  # a 64-bit size follows the type
                    size = int.from_bytes(header[8:16], "big")
                size = size or length - offset  # 0: to the end of the file
                if size < 8:
                    break
                offset += size
    except OSError:
        return False
    return bool(seen & {b"ftyp", b"mdat"}) and b"moov" not in seen


def probe_video(path: str | os.PathLike) -> VideoInfo:
    """Metadata of a video or frame folder without decoding the frames."""
    return open_video(path).info


def read_video(
    path: str | os.PathLike, channels: int | None = None, start: int = 0, max_frames: int | None = None
) -> torch.Tensor:
    """A whole video (or `max_frames` of it from `start`) as a (T, C, H, W) float32 tensor in [0, 1]."""
    reader = open_video(path)
    count = None if max_frames is None else min(max_frames, len(reader) - start)
    return reader.read(start, count, channels)

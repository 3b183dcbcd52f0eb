"""Helpers shared by the test modules."""

from __future__ import annotations

import sys
from pathlib import Path

import av
import numpy as np
import torch

from videodenoise.cli.app import main


def run_cli(args, capsys, monkeypatch) -> tuple[int, str, str]:
    """Run `videodenoise ARGS` in-process: (exit code, stdout, stderr)."""
    monkeypatch.setattr(sys, "argv", ["videodenoise", *map(str, args)])
    monkeypatch.setenv("COLUMNS", "250")  # rich wraps tables to the terminal width
    try:
        main()
        code = 0
    except SystemExit as exit:
        code = exit.code or 0
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def png_movie(path: Path, clip: torch.Tensor, corrupt: list[int]) -> Path:
    """A lossless PNG-in-MOV video (every frame a PNG, whose checksums make damage detectable) with
    the packets of the frames in `corrupt` overwritten by random bytes."""
    with av.open(str(path), "w") as container:
        stream = container.add_stream("png", rate=25)
        stream.width, stream.height, stream.pix_fmt = clip.shape[3], clip.shape[2], "rgb24"
        for index, frame in enumerate(clip):
            video_frame = av.VideoFrame.from_ndarray(
                (frame.permute(1, 2, 0).numpy() * 255).round().astype(np.uint8), format="rgb24"
            )
            video_frame.pts = index
            container.mux(stream.encode(video_frame))
        container.mux(stream.encode(None))
    with av.open(str(path)) as container:
        packets = [(p.pos, p.size) for p in container.demux(container.streams.video[0]) if p.size]
    data = bytearray(path.read_bytes())
    for index in corrupt:
        position, size = packets[index]
        data[position + size // 4 : position + size // 4 + size // 2] = np.random.default_rng(index).bytes(size // 2)
    path.write_bytes(bytes(data))
    return path

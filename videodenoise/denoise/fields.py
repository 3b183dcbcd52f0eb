"""Interlaced video as fields: each frame split into its two fields, in the order they were taken, and woven back.

An interlaced frame holds two pictures taken half a frame apart, on alternate lines: the top field (lines 0, 2,
4, …) and the bottom field (lines 1, 3, …); the file says which was taken first (`VideoProperties.top_field_first`).
Denoised as one picture, a frame with motion shows the model and fusion a comb where the two disagree; denoised
as a stream of fields (half the height, twice the rate), each picture is one instant, and fusion's flow
between consecutive fields also takes up their half-line offset. On a synthetic interlaced clip with motion
that gained 2.2 dB, and on a nearly still one it lost 0.8, where a frame's full vertical detail is worth more
(benchmarks/results/interlaced): `DenoiseSettings.fields` leaves the choice to the user.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import torch

from videodenoise.errors import DenoiseError


def split_fields(frames: Iterable[torch.Tensor], top_first: bool) -> Iterator[torch.Tensor]:
    """(C, H, W) frames → their (C, H/2, W) fields, the one taken first first."""
    for frame in frames:
        if frame.shape[-2] % 2:
            raise DenoiseError(
                f"an interlaced picture {frame.shape[-2]} lines high has fields of two heights; "
                "denoise it as frames (--no-fields)"
            )
        top, bottom = frame[..., 0::2, :].contiguous(), frame[..., 1::2, :].contiguous()
        yield from (top, bottom) if top_first else (bottom, top)


def weave_fields(fields: Iterable[torch.Tensor], top_first: bool) -> Iterator[torch.Tensor]:
    """The inverse of `split_fields`: consecutive fields → (C, 2·H/2, W) frames."""
    fields = iter(fields)
    for first in fields:
        second = next(fields)  # split_fields always gives two
        top, bottom = (first, second) if top_first else (second, first)
        frame = top.new_empty(*top.shape[:-2], 2 * top.shape[-2], top.shape[-1])
        frame[..., 0::2, :], frame[..., 1::2, :] = top, bottom
        yield frame

"""Pieces both denoisers are built from: patches, soft threshold, the DCT dictionary (token attention:
`videodenoise.models.attention`).

Layout convention. A clip is (B, T, C, H, W). Cut into p×p patches it becomes a *token grid*
(B, rows, cols, T, n) with n = C·p²: one token per patch location and frame, the frame axis next to
the feature axis. That puts the temporal token set of a patch location in one contiguous block
(attention over it is a small batched matmul) while every per-token map is a matmul on the last axis.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

# ----------------------------------------------------------------------------------------------------
# patches


@dataclass(frozen=True)
class PatchGrid:
    """Where the patches of one clip came from, so they can be folded back onto it."""

    batch: int
    frames: int
    channels: int
    height: int  # of the clip, before padding
    width: int
    pad_top: int
    pad_left: int
    padded_height: int
    padded_width: int
    rows: int  # patch locations along H
    cols: int  # patch locations along W
    patch_size: int
    stride: int


def _pad_for_grid(size: int, patch_size: int, stride: int) -> tuple[int, int, int]:
    """Padding (before, after, padded size) so that every pixel lies in the same number of patches.

    Padding p − stride before the first pixel and at least as much after the last one lets the border
    pixels be averaged over as many patch estimates as interior pixels are; without it a corner pixel
    of an overlapping grid would get one estimate instead of (p/stride)², and borders would be noisier.
    """
    before = patch_size - stride
    steps = math.ceil(max(size + 2 * before - patch_size, 0) / stride)
    padded = patch_size + steps * stride
    return before, padded - size - before, padded


def _padded_frames(video: torch.Tensor, patch_size: int, stride: int) -> tuple[torch.Tensor, PatchGrid]:
    """The clip's frames (B·T, C, H', W') padded to a whole number of strides, and where its patches lie."""
    batch, frames, channels, height, width = video.shape
    top, bottom, padded_height = _pad_for_grid(height, patch_size, stride)
    left, right, padded_width = _pad_for_grid(width, patch_size, stride)
    images = video.reshape(batch * frames, channels, height, width)
    if top or bottom or left or right:
        reflectable = max(top, bottom) < height and max(left, right) < width
        images = F.pad(images, (left, right, top, bottom), mode="reflect" if reflectable else "replicate")
    rows = (padded_height - patch_size) // stride + 1
    cols = (padded_width - patch_size) // stride + 1
    grid = PatchGrid(
        batch, frames, channels, height, width, top, left, padded_height, padded_width, rows, cols, patch_size, stride
    )
    return images, grid


def extract_patches(video: torch.Tensor, patch_size: int, stride: int) -> tuple[torch.Tensor, PatchGrid]:
    """Cut a clip (B, T, C, H, W) into a token grid (B, rows, cols, T, C·p²); any H and W.

    The clip is padded (reflected, or replicated when it is smaller than the padding) to a whole
    number of strides; `fold_patches` crops the padding off again. The tokens are gathered in their
    layout in one copy, from a strided view of the padded frames (the same numbers as F.unfold, whose
    (B·T, n, locations) columns would need a second, transposing copy: 4-9× slower together).
    """
    images, grid = _padded_frames(video, patch_size, stride)
    view = _patch_view(images.contiguous(), grid, 0, 0, 1)
    return view.reshape(grid.batch, grid.rows, grid.cols, grid.frames, -1), grid


def _patch_view(
    images: torch.Tensor, grid: PatchGrid, first_row: int, first_col: int, every: int, last_row: int | None = None
) -> torch.Tensor:
    """The patches of every `every`-th location from (first_row, first_col) (rows up to last_row, exclusive;
    None: all) as a view of the padded frames (B·T, C, H', W') (contiguous), shaped (B, rows, cols, T, C, p, p):
    a token grid before flattening."""
    frame, channel, row, col = images.stride()
    step, p = grid.stride * every, grid.patch_size
    rows = len(range(first_row, grid.rows if last_row is None else last_row, every))
    cols = len(range(first_col, grid.cols, every))
    return images.as_strided(
        (grid.batch, rows, cols, grid.frames, grid.channels, p, p),
        (frame * grid.frames, row * step, col * step, frame, channel, row, col),
        images.storage_offset() + (first_row * row + first_col * col) * grid.stride,
    )


def patch_means(video: torch.Tensor, patch_size: int, stride: int) -> torch.Tensor:
    """The mean over each token of `extract_patches(video, ...)`, (B, rows, cols, T, 1), without cutting the
    patches out (an average pool over the same padded frames: p² times less memory than the tokens)."""
    images, grid = _padded_frames(video, patch_size, stride)
    means = F.avg_pool2d(images.mean(dim=1, keepdim=True), patch_size, stride=stride)  # (B·T, 1, rows, cols)
    return means.view(grid.batch, grid.frames, grid.rows, grid.cols).permute(0, 2, 3, 1).unsqueeze(-1)


def fold_patches(tokens: torch.Tensor | Sequence[torch.Tensor], grid: PatchGrid) -> torch.Tensor:
    """Put a token grid (B, rows, cols, T, n) back into a clip (B, T, C, H, W), averaging overlaps. The grid may
    come as its bands of patch rows, in order (B, rows_i, cols, T, n), as a model computes it: they are folded
    where they lie, never joined into one grid.

    Patch locations ⌈p / stride⌉ apart do not overlap, so the grid is added onto the frames in that many²
    groups, each through a strided view (`_patch_view`) in one step: no transposed copy of the tokens, as
    F.fold's columns need (4-8× faster on the CPU at stride 4 and 2). Each pixel is then divided by the
    number of patches over it (with `_pad_for_grid`'s padding, (p / stride)² everywhere when stride divides p).
    """
    bands = [tokens] if isinstance(tokens, torch.Tensor) else list(tokens)
    if sum(band.shape[1] for band in bands) != grid.rows:
        raise ValueError(
            f"the token bands hold {sum(band.shape[1] for band in bands)} patch rows, the grid {grid.rows}"
        )
    batch, frames, p = grid.batch, grid.frames, grid.patch_size
    apart = math.ceil(p / grid.stride)
    summed = bands[0].new_zeros(batch * frames, grid.channels, grid.padded_height, grid.padded_width)
    counts = bands[0].new_zeros(1, 1, grid.padded_height, grid.padded_width)
    single = dataclasses.replace(grid, batch=1, frames=1, channels=1)
    # group by group, each band's part of it: every pixel gets its patches' values in the same order, however the
    # grid is cut into bands (a banded pass equals a whole one to the bit)
    tops = [0]
    for band in bands[:-1]:
        tops.append(tops[-1] + band.shape[1])
    for first_row in range(apart):
        for first_col in range(apart):
            _patch_view(counts, single, first_row, first_col, apart).add_(1)
            for top, band in zip(tops, bands):
                rows, skip = band.shape[1], (first_row - top) % apart  # skip: the band's first row of this group
                patches = band.reshape(batch, rows, grid.cols, frames, grid.channels, p, p)
                view = _patch_view(summed, grid, top + skip, first_col, apart, last_row=top + rows)
                view += patches[:, skip::apart, first_col::apart]
    images = summed / counts
    images = images[:, :, grid.pad_top : grid.pad_top + grid.height, grid.pad_left : grid.pad_left + grid.width]
    return images.reshape(batch, frames, grid.channels, grid.height, grid.width)


# ----------------------------------------------------------------------------------------------------
# sparse coding


class SoftThreshold(nn.Module):
    """S_θ(x) = sign(x)·max(|x| − θ, 0) with a learned θ ≥ 0 per unit: the proximal map of θ‖·‖₁.

    θ is clamped at 0 rather than reparameterised (softplus, exp) so that a unit can start exactly
    unthresholded (the DC atoms of the DCT dictionary) and the initial model is exactly ISTA.
    """

    def __init__(self, initial_thresholds: torch.Tensor):
        super().__init__()
        self.threshold = nn.Parameter(initial_thresholds.clone().float())

    def forward(self, x: torch.Tensor, scale: torch.Tensor | None = None, in_place: bool = False) -> torch.Tensor:
        """scale: None, or a tensor broadcasting against x that multiplies every threshold (σ / σ_ref).
        in_place: overwrite x with the result (a caller's own temporary, outside autograd)."""
        threshold = self.threshold.clamp(min=0).to(x.dtype)  # x may be half precision under autocast
        if scale is not None and scale.numel() > 1:  # one σ per clip or per token: thresholds broadcast like x
            threshold = threshold * scale.to(x.dtype)
            if in_place:  # the clamp written over a tensor of its own, the broadcast thresholds negated in place
                inside = torch.minimum(x, threshold)
                return x.sub_(torch.maximum(inside, threshold.neg_(), out=inside))
        elif scale is not None:  # one σ for the whole batch (clean): scale the (k,) thresholds only
            threshold = threshold * scale.reshape(()).to(x.dtype)
        if torch.is_grad_enabled() and (x.requires_grad or threshold.requires_grad):
            return _Shrink.apply(x, threshold)
        inside = torch.clamp(x, -threshold, threshold)
        return x.sub_(inside) if in_place else x - inside


class _Shrink(torch.autograd.Function):
    """S_θ(x) = x − clamp(x, −θ, θ) for θ ≥ 0 broadcasting against x, with its gradient written out: 1 for x and
    −sign(x) for θ where the output is not 0, else 0, from the output alone. Autograd's own, through the clamp with
    tensor bounds (or the minimum and maximum), builds masks for ties and split gradients: it took 40 % of a DUST
    training step (fused clips, told a noise map); this backward about a seventh of that (benchmarks/results/speed/
    strided-patches, "Training"). Where the output is exactly 0 no gradient passes, also on a unit with θ = 0 whose
    input was exactly 0 (where S is the identity): a case of measure zero for real-valued codes."""

    @staticmethod
    def forward(ctx, x: torch.Tensor, threshold: torch.Tensor) -> torch.Tensor:
        shrunk = x - torch.clamp(x, -threshold, threshold)
        ctx.save_for_backward(shrunk)
        ctx.threshold_shape = threshold.shape
        return shrunk

    @staticmethod
    def backward(ctx, grad: torch.Tensor) -> tuple[torch.Tensor | None, torch.Tensor | None]:
        (shrunk,) = ctx.saved_tensors
        sign = shrunk.sign()  # sign(x) where the output is not 0, else 0
        signed = grad * sign
        grad_x = signed * sign if ctx.needs_input_grad[0] else None  # grad where the output is not 0
        grad_threshold = None
        if ctx.needs_input_grad[1]:
            grad_threshold = signed.sum_to_size(ctx.threshold_shape).neg_()
        return grad_x, grad_threshold


def dct_1d_atoms(length: int, num_atoms: int) -> torch.Tensor:
    """(length, num_atoms) unit-norm cosines cos(π·j·(i + ½)/num_atoms), j = 0..num_atoms−1.

    num_atoms == length gives the orthonormal DCT-II basis; 2·length gives the DCT-II basis together
    with the DCT-IV basis (the half-integer frequencies), a union of two orthonormal bases and so a
    tight frame, A Aᵀ = 2·I. Tightness is what makes one gradient step well conditioned: with DDᵀ = c·I
    the step 1/c reconstructs every direction equally, so ISTA on it converges in few layers (an
    untight overcomplete DCT, e.g. K-SVD's mean-removed one, has eigenvalues from 1 to 8 in 2-D and
    ISTA would need dozens of layers just to restore the patch mean).
    """
    position = torch.arange(length, dtype=torch.float64) + 0.5
    frequency = torch.arange(num_atoms, dtype=torch.float64)
    atoms = torch.cos(math.pi * position[:, None] * frequency[None, :] / num_atoms)
    return atoms / atoms.norm(dim=0, keepdim=True)


def colour_basis(channels: int) -> torch.Tensor:
    """(channels, channels) orthonormal colour transform: luminance first, then two opponent colours."""
    if channels == 1:
        return torch.ones(1, 1, dtype=torch.float64)
    if channels == 3:
        rows = torch.tensor([[1.0, 1.0, 1.0], [1.0, 0.0, -1.0], [1.0, -2.0, 1.0]], dtype=torch.float64)
        return (rows / rows.norm(dim=1, keepdim=True)).T.contiguous()
    raise ValueError(f"colour_basis supports 1 or 3 channels, got {channels}")


def dct_dictionary(patch_size: int, channels: int = 1, num_atoms: int | None = None) -> torch.Tensor:
    """Overcomplete 2-D DCT dictionary (n, k) for patches of n = C·p² values, unit-norm columns.

    Atoms are colour-basis ⊗ vertical cosine ⊗ horizontal cosine (the flattening order of F.unfold:
    channel, row, column), ordered by increasing spatial frequency. num_atoms defaults to 4n
    (16 cosines per axis for p = 8), a tight frame with DDᵀ = 4·I; other counts take the
    lowest-frequency atoms of the next larger square grid (no longer tight). Only the atom that is
    constant in space (one per colour) carries nothing but the patch mean; see `dc_atoms`.
    """
    n = channels * patch_size**2
    num_atoms = 4 * n if num_atoms is None else num_atoms
    per_axis = max(patch_size, math.ceil(math.sqrt(num_atoms / channels)))
    axis_atoms = dct_1d_atoms(patch_size, per_axis)
    spatial = torch.kron(axis_atoms, axis_atoms)  # (p², per_axis²), atom (i, j) at column i·per_axis + j
    atoms = torch.kron(colour_basis(channels), spatial)  # (n, C·per_axis²)

    # atom a is colour a // per_axis², spatial frequency i + j with (i, j) = divmod(a % per_axis², per_axis);
    # plain integers, so the order is also known when the model is built on the "meta" device (shapes only)
    def frequency_colour(a: int) -> tuple[int, int, int]:
        colour, spatial_index = divmod(a, per_axis**2)
        return sum(divmod(spatial_index, per_axis)), colour, a

    order = sorted(range(atoms.shape[1]), key=frequency_colour)
    return atoms[:, order[:num_atoms]].float()


def dc_atoms(dictionary: torch.Tensor, channels: int) -> torch.Tensor:
    """Boolean mask of the atoms that are constant within every channel (they carry the patch mean)."""
    per_channel = dictionary.reshape(channels, -1, dictionary.shape[1])
    return (per_channel.std(dim=1) < 1e-6).all(dim=0)

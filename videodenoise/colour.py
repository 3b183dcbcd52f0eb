"""The orthonormal opponent colour transform: how a grey model sees colour video.

Rows are luminance (R+G+B)/√3, red−blue (R−B)/√2 and green−magenta (R−2G+B)/√6, as in CBM3D. The
transform is orthonormal, so i.i.d. noise stays i.i.d. with the same σ and its inverse is its
transpose; it puts the structure in one channel and leaves two smooth ones. `clean` hands each
channel to a grey model as a grey clip, and training shows a grey model the same channels.
"""

from __future__ import annotations

import torch

OPPONENT = torch.tensor([[1.0, 1.0, 1.0], [1.0, 0.0, -1.0], [1.0, -2.0, 1.0]])
OPPONENT = OPPONENT / OPPONENT.norm(dim=1, keepdim=True)


def opponent_channel(clip: torch.Tensor, channel: int) -> torch.Tensor:
    """One opponent channel of RGB frames (..., 3, H, W) as grey frames (..., 1, H, W), centred on ½
    exactly as `clean` hands it to a grey model (luminance spans about [−0.37, 1.37])."""
    row = OPPONENT[channel].to(clip.device, clip.dtype)
    return (torch.einsum("c,...chw->...hw", row, clip) - 0.5 * row.sum() + 0.5).unsqueeze(-3)


def opponent_sigma(noise_map: torch.Tensor) -> torch.Tensor:
    """Per-pixel σ of R, G and B (..., 3, H, W) → the σ of each opponent channel (..., 3, H, W), the
    three taken as independent: σ_k = √(Σ_c O[k, c]²·σ_c²)."""
    weights = OPPONENT.to(noise_map.device, noise_map.dtype).square()
    return torch.einsum("oc,...chw->...ohw", weights, noise_map.square()).sqrt()

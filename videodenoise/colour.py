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

"""UT: a generic unrolled transformer (after Yang, Huang, Wipf, "Transformers from an Optimization
Perspective", NeurIPS 2022), as a patch-token video denoiser.

Tokens y ∈ R^n are embedded, Y = y E (d wide), and each layer alternates the two descent steps of the
energy view of a transformer block:

    Y ← Y + g ⊙ (softmax(Y W Yᵀ) Y − Y),  W = W_a W_aᵀ      attention step, tied query/key
    Y ← Y + ReLU(Y U₁ + b) U₂                              feed-forward step

(with token normalisation before each when normalize_tokens), and every layer is read out through one
shared map R, x̂ = Y R, then folded back by averaging. E starts as the orthonormal DCT basis of the
patch (zero-padded to d) and R as its transpose, so the readout of the embedding is the input itself
(layer 0 = input holds for the representation, not only by definition), and the attention gain and
U₂ start at zero, so an untrained UT is the identity at every depth (for colour with d < n: a fixed
low-pass projection); the learned steps move the estimate from there.
"""

from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F

from .base import UnrolledDenoiser
from .config import UTConfig
from .layers import TokenAttention, dct_dictionary


class UTLayer(nn.Module):
    """One unrolled transformer layer: attention step, then ReLU feed-forward step, each residual."""

    def __init__(self, config: UTConfig):
        super().__init__()
        self.normalize_tokens = config.normalize_tokens
        self.attention = TokenAttention(config.width, config.heads, config.head_dim, config.tied_qk,
                                        config.normalize_tokens, config.token_set, config.neighbourhood,
                                        config.attention_gain)
        self.expand = nn.Linear(config.width, config.hidden)  # U₁, b
        self.project = nn.Linear(config.hidden, config.width, bias=False)  # U₂
        # U₂ = 0 (and a zero attention gain): every layer starts as the identity, so the untrained UT
        # returns its input at every depth instead of adding random-feature noise to it
        nn.init.zeros_(self.project.weight)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        tokens = self.attention(tokens)
        normalized = F.rms_norm(tokens, (tokens.shape[-1],)) if self.normalize_tokens else tokens
        hidden = F.relu(self.expand(normalized), inplace=True)  # safe: Linear's backward keeps no output
        return tokens + self.project(hidden)


class UT(UnrolledDenoiser):
    """Unrolled transformer denoiser: `model(noisy)` on (B, T, C, H, W), see `forward`."""

    name = "ut"

    def __init__(self, config: UTConfig | None = None):
        super().__init__()
        self.config = config = config or UTConfig()
        n, d = config.patch_dim, config.width
        basis = dct_dictionary(config.patch_size, config.channels, n)  # orthonormal, low frequencies first
        embedding = torch.zeros(n, d)
        embedding[:, :min(n, d)] = basis[:, :min(n, d)]  # d < n keeps the lowest frequencies: a low-pass start
        self.embedding = nn.Parameter(embedding)  # E (n, d): Y = y E
        self.readout_map = nn.Parameter(embedding.T.clone())  # R (d, n): x̂ = Y R, shared by all layers
        count = 1 if config.tied_layers else config.layers
        self.layers = nn.ModuleList(UTLayer(config) for _ in range(count))

    @property
    def state_width(self) -> int:
        return max(self.config.width, self.config.hidden)

    def initial_state(self, tokens: torch.Tensor) -> torch.Tensor:
        return tokens @ self.embedding

    def apply_layer(self, index: int, state: torch.Tensor, tokens: torch.Tensor,
                    noise_scale: torch.Tensor | None = None) -> torch.Tensor:
        return self.layer(index)(state)  # UT has no noise-level parameter: σ reaches it by rescaling

    def readout_patches(self, state: torch.Tensor) -> torch.Tensor:
        return state @ self.readout_map

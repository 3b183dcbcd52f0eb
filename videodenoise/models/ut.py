"""UT: an unrolled transformer (Yang, Huang, Wipf, "Transformers from an Optimization Perspective",
NeurIPS 2022) as a patch-token video denoiser.

Tokens y ∈ R^n are embedded in a d-wide representation, and every layer is two descent steps on one
energy of the token set Y = {y_i}, as Yang, Huang & Wipf derive a transformer block:

    E(Y) = E₁(Y) + E₂(Y)
    E₁(Y) = Σ_i Σ_j∈N(i) ρ(½‖W(ỹ_i − ỹ_j)‖²/√d_k),   ρ(z) = −e^(−z) (concave, increasing)
    E₂(Y) = Σ_i ½ y_iᵀ(I − S)y_i − bᵀy_i + ι₊(y_i),   S = Sᵀ, ι₊ = 0 on y ≥ 0 and +∞ elsewhere

  attention step (E₁): majorise ρ at the current tokens; the majoriser's minimiser over y_i is the
      ρ'-weighted mean of its set, Σ_j softmax_j(−½‖W ỹ_i − W ỹ_j‖²/√d_k) y_j: softmax attention
      with tied query/key W (ỹ: RMS-normalised tokens when normalize_tokens). The step moves each
      token a learned fraction g ∈ [0, 1] per unit towards it: y ← y + g ⊙ (attention(Y) − y).
  proximal step (E₂): a unit gradient step on the smooth part, y − (y(I − S) − b) = yS + b, then the
      proximal map of ι₊, the projection onto y ≥ 0: y ← ReLU(yS + b). One symmetric d×d linear
      map and a ReLU: no hidden expansion, no residual branch.

On the split representation below, ReLU(y + b) with b < 0 shrinks each coefficient's positive and
negative part by −b: the proximal step is a learned shrinkage, whose bias plays the part of ISTA's
threshold. Told the clip's noise level (`model(noisy, sigma=σ)`), UT scales b by σ / config.sigma,
as DUST scales its thresholds, so one model trained over a range of σ serves light and heavy noise.

Since the energy lives on y ≥ 0, the representation is non-negative from the start: the embedding
is E = [B, −B] (B: the d/2 lowest-frequency DCT atoms of the patch) and Y⁰ = ReLU(yE), which keeps
every coefficient as its positive and negative part. The shared readout R starts as Eᵀ, so
x̂ = YR = (yB)Bᵀ: the input itself when d ≥ 2n. With S = I, b = 0 and g = 0 at initialisation, an
untrained UT is the identity at every depth (for d < 2n a fixed low-pass projection); training
moves it from there.

feed_forward="mlp" keeps the earlier layer instead of the proximal step: a residual two-layer ReLU
MLP, Y ← Y + ReLU(norm(Y) U₁ + b) U₂ (hidden width ffn_hidden, U₂ = 0 at init), on a signed
embedding Y⁰ = yE with E = the d lowest DCT atoms. Only its attention half is the paper's.
"""

from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F

from videodenoise.models.attention import AlignedContext, TokenAttention
from videodenoise.models.base import UnrolledDenoiser
from videodenoise.models.config import UTConfig
from videodenoise.models.layers import dct_dictionary


class ProximalStep(nn.Module):
    """y ← ReLU(y S + b) with S symmetric: the proximal-gradient step on E₂ (see the module docstring)."""

    def __init__(self, width: int):
        super().__init__()
        self.weight = nn.Parameter(torch.eye(width))  # A; S = (A + Aᵀ)/2, so S is symmetric by construction
        self.bias = nn.Parameter(torch.zeros(width))

    @property
    def symmetric_weight(self) -> torch.Tensor:
        return 0.5 * (self.weight + self.weight.T)

    def forward(self, tokens: torch.Tensor, scale: torch.Tensor | None = None) -> torch.Tensor:
        """scale: None, or σ / σ_ref as one number, one per clip (B, 1, 1, 1, 1) or one per token
        (B, rows, cols, T, 1) from a noise map: it multiplies the bias b."""
        bias = self.bias.to(tokens.dtype)
        flat = tokens.reshape(-1, tokens.shape[-1])
        if scale is not None and scale.numel() > 1:  # a bias per clip or token, laid out like the tokens
            bias = (bias * scale.to(tokens.dtype)).expand(tokens.shape).reshape(flat.shape)
        elif scale is not None:  # one σ: scale the (d,) bias
            bias = bias * scale.reshape(()).to(tokens.dtype)
        # y S + b in one GEMM (S = Sᵀ), then the projection in place: addmm's backward keeps no output
        step = torch.addmm(bias, flat, self.symmetric_weight.to(tokens.dtype))
        return F.relu(step, inplace=True).view(tokens.shape)


class FeedForwardStep(nn.Module):
    """The MLP option: Y ← Y + ReLU(norm(Y) U₁ + b) U₂, U₂ = 0 at init so the step starts as the identity."""

    def __init__(self, width: int, hidden: int, normalize_tokens: bool):
        super().__init__()
        self.normalize_tokens = normalize_tokens
        self.expand = nn.Linear(width, hidden)  # U₁, b
        self.project = nn.Linear(hidden, width, bias=False)  # U₂
        nn.init.zeros_(self.project.weight)

    def forward(self, tokens: torch.Tensor, scale: None = None) -> torch.Tensor:
        normalized = F.rms_norm(tokens, (tokens.shape[-1],)) if self.normalize_tokens else tokens
        hidden = F.relu(self.expand(normalized), inplace=True)  # safe: Linear's backward keeps no output
        return tokens + self.project(hidden)


class UTLayer(nn.Module):
    """One unrolled transformer layer: the attention step on E₁, then the proximal (or MLP) step."""

    def __init__(self, config: UTConfig):
        super().__init__()
        faithful = config.feed_forward == "proximal"
        # the faithful layer scores by −½‖q − k‖², the energy's own similarity; the MLP option keeps dot products
        self.attention = TokenAttention.from_config(config.width, config, distance_scores=faithful)
        self.feed_forward = (
            ProximalStep(config.width)
            if faithful
            else FeedForwardStep(config.width, config.hidden, config.normalize_tokens)
        )

    def forward(
        self, tokens: torch.Tensor, noise_scale: torch.Tensor | None = None, context: AlignedContext | None = None
    ) -> torch.Tensor:
        return self.feed_forward(self.attention(tokens, context), noise_scale)


class UT(UnrolledDenoiser):
    """Unrolled transformer denoiser: `model(noisy)` on (B, T, C, H, W), see `forward`."""

    name = "ut"

    def __init__(self, config: UTConfig | None = None):
        super().__init__()
        self.config = config = config or UTConfig()
        n, d = config.patch_dim, config.width
        self.non_negative = config.feed_forward == "proximal"
        embedding = torch.zeros(n, d)
        if self.non_negative:  # E = [B, −B]: Y⁰ = ReLU(yE) holds each coefficient's positive and negative part
            half = min(n, d // 2)
            basis = dct_dictionary(config.patch_size, config.channels, n)[:, :half]  # low frequencies first
            embedding[:, :half], embedding[:, half : 2 * half] = basis, -basis
        else:
            basis = dct_dictionary(config.patch_size, config.channels, n)
            embedding[:, : min(n, d)] = basis[:, : min(n, d)]  # d < n keeps the lowest frequencies: a low-pass start
        self.embedding = nn.Parameter(embedding)  # E (n, d)
        self.readout_map = nn.Parameter(embedding.T.clone())  # R (d, n): x̂ = Y R, shared by all layers
        count = 1 if config.tied_layers else config.layers
        self.layers = nn.ModuleList(UTLayer(config) for _ in range(count))

    @property
    def state_width(self) -> int:
        return self.config.width if self.non_negative else max(self.config.width, self.config.hidden)

    @property
    def noise_conditional(self) -> bool:
        return self.non_negative  # the proximal step's bias scales with σ; the MLP option has no such part

    def initial_state(self, tokens: torch.Tensor) -> torch.Tensor:
        embedded = tokens @ self.embedding
        return F.relu(embedded) if self.non_negative else embedded  # the energy's domain is Y ≥ 0

    def apply_layer(
        self,
        index: int,
        state: torch.Tensor,
        tokens: torch.Tensor,
        noise_scale: torch.Tensor | None = None,
        context: AlignedContext | None = None,
        scaled: bool = False,  # never set: UT does not scale by noise (scales_by_noise is False)
    ) -> torch.Tensor:
        return self.layer(index)(state, noise_scale, context)

    def readout_patches(self, state: torch.Tensor) -> torch.Tensor:
        return state @ self.readout_map

"""DUST: a deep-unfolding sparse transformer (after De Weerdt, Eldar, Deligiannis, IEEE TSP 2024).

Each patch token y_t ∈ R^n (n = C·p²) is coded as h_t ∈ R^k in a dictionary D ∈ R^{n×k}, x̂_t = D h_t.
Layer l is one step of proximal gradient on ½‖y − Dh‖² + λ‖h‖₁, preceded by attention that lets the
codes of a token set (the same patch in every frame, or a small neighbourhood in every frame) borrow
from each other:

    h̃ = h + attention_l(h)
    h ← S_θl(W_l h̃ + U_l y)            (coupled weights: W_l = I − U_l D, i.e. h̃ + U_l (y − D h̃))

Initialised as ISTA on an overcomplete DCT tight frame (W = I − DᵀD/c, U = Dᵀ/c, thresholds
θ_l = β_l·σ/c with β falling from 2.25 to 1.5 over the layers, i.e. ISTA with continuation; DC atoms
unthresholded; attention switched off by zero gains), an untrained DUST is already a classical
sparse-coding denoiser whose error goes down layer by layer (σ = 25/255: RMSE 0.098 → 0.058 on a
real 96×128 clip); training moves it from there.
Every layer's estimate is read out through the one dictionary D and folded back by averaging.
"""

from __future__ import annotations

import torch
import torch.nn as nn

from videodenoise.models.attention import AlignedContext, TokenAttention
from videodenoise.models.base import HandedOn, UnrolledDenoiser
from videodenoise.models.config import DUSTConfig
from videodenoise.models.layers import SoftThreshold, dc_atoms, dct_dictionary


class DUSTLayer(nn.Module):
    """One unrolled proximal-gradient step with cross-token attention. Tokens are rows: h ← S(h̃ W + y U)."""

    def __init__(
        self,
        config: DUSTConfig,
        dictionary: torch.Tensor,
        lipschitz: float,
        thresholds: torch.Tensor,
        attends: bool = True,
        hands_on: bool = False,
    ):
        """attends=False: no attention (the layers past the config's aligned_depth); hands_on: the last layer that
        attends, whose mixed observation and its noise the later layers take (a `HandedOn`)."""
        super().__init__()
        atoms = dictionary.shape[1]
        self.coupled = config.coupled_weights
        if attends:
            self.attention = TokenAttention.from_config(atoms, config, mix_observation=config.mix_observation)
        else:
            self.attention = TokenAttention.from_config(atoms, config, token_set="none")
        self.hands_on = hands_on
        # analysis: (n, k), the U_l of the update, Dᵀ/c at init (rows convention: y @ D / c)
        self.analysis = nn.Parameter(dictionary / lipschitz)
        if not self.coupled:  # recurrence: (k, k), the W_l of the update, I − DᵀD/c at init
            self.recurrence = nn.Parameter(torch.eye(atoms) - dictionary.T @ dictionary / lipschitz)
        self.shrink = SoftThreshold(thresholds)

    def forward(
        self,
        codes: torch.Tensor,
        tokens: torch.Tensor,
        dictionary: torch.Tensor,
        noise_scale: torch.Tensor | None = None,
        context: AlignedContext | None = None,
        scaled: bool = False,
    ) -> torch.Tensor:
        """scaled: codes and tokens are h / s and y / s for each token's noise scale s, which the step
        (linear) keeps and the attention re-weights for; the thresholds are then the layer's own."""
        if self.attention.mixes_observation:  # y mixed as the codes are; the noise it keeps scales the thresholds
            attended, tokens, variance = self.attention(codes, context, observation=tokens)
            noise_scale = variance.sqrt() if noise_scale is None else noise_scale * variance.sqrt()
        else:  # a layer past the aligned depth does not attend: the clip's aligned context is not for it
            context = context if self.attention.aligned else None
            attended = self.attention(codes, context, noise_scale if scaled else None)
        # outside autograd the step may overwrite the attention's output, when that is a tensor of its own
        # (not the layer's input, as with attention off), and the shrinkage the step's: fewer fresh tensors
        in_place = not torch.is_grad_enabled()
        step = self._step(attended, tokens, dictionary, in_place and attended is not codes)
        # a noise-conditional call scales every threshold by σ / σ_ref, as ISTA's λ ∝ σ would
        codes = self.shrink(step, None if scaled else noise_scale, in_place)
        return HandedOn(codes, tokens, noise_scale) if self.hands_on else codes

    def _step(
        self, codes: torch.Tensor, tokens: torch.Tensor, dictionary: torch.Tensor, in_place: bool = False
    ) -> torch.Tensor:
        """The gradient step before shrinkage, W h̃ + U y, shaped like codes (in_place: written over codes)."""
        shape, atoms = codes.shape, codes.shape[-1]
        codes, tokens = codes.reshape(-1, atoms), tokens.reshape(-1, tokens.shape[-1])
        if self.coupled:  # h̃ + U (y − D h̃): a gradient step on ½‖y − D h‖² with learned U
            residual = torch.addmm(tokens, codes, dictionary.T, alpha=-1)
            if in_place:  # autocast leaves in-place ops alone: cast U as it would
                step = codes.addmm_(residual.to(codes.dtype), self.analysis.to(codes.dtype))
            else:
                step = torch.addmm(codes, residual, self.analysis)
        else:
            step = torch.addmm(tokens @ self.analysis, codes, self.recurrence)
        return step.view(shape)


class DUST(UnrolledDenoiser):
    """Deep-unfolding sparse transformer denoiser: `model(noisy)` on (B, T, C, H, W), see `forward`."""

    name = "dust"

    def __init__(self, config: DUSTConfig | None = None):
        super().__init__()
        self.config = config = config or DUSTConfig()
        dictionary = dct_dictionary(config.patch_size, config.channels, config.atoms)
        # c ≥ the largest eigenvalue of DᵀD makes 1/c a step size for which ISTA converges
        # (built on the "meta" device, as a weights file's config is checked, there are shapes but no values)
        lipschitz = 1.0 if dictionary.is_meta else float(torch.linalg.matrix_norm(dictionary.double(), ord=2) ** 2)
        is_dc = dc_atoms(dictionary, config.channels)

        self.dictionary = nn.Parameter(dictionary)  # D (n, k): the shared readout x̂ = D h
        self.lipschitz = lipschitz
        layers = []
        attending = config.layers if config.aligned_depth is None else config.aligned_depth
        # the last attending layer hands its mixed observation on, when there are layers after it to take it
        hands_on_at = attending - 1 if attending < config.layers else None
        for index, scale in enumerate(threshold_schedule(config)):
            thresholds = torch.full((config.atoms,), scale * config.sigma / lipschitz)
            # the DC atoms carry the patch mean, which noise barely changes: shrinking it only adds bias
            thresholds[is_dc] = 0.0
            layers.append(DUSTLayer(config, dictionary, lipschitz, thresholds, index < attending, index == hands_on_at))
        self.layers = nn.ModuleList(layers)

    @property
    def state_width(self) -> int:
        return self.config.atoms

    def initial_state(self, tokens: torch.Tensor) -> torch.Tensor:
        # the least-squares code of a tight frame (D Dᵀ = c·I, so D h₀ = y): layer 1 then has real codes
        # to attend over, and at init its step equals ISTA's first step from h = 0
        return tokens @ (self.dictionary / self.lipschitz)  # scaling the (n, k) map, not the (…, k) codes

    @property
    def noise_conditional(self) -> bool:
        return True

    @property
    def scales_by_noise(self) -> bool:
        # the step is linear and the attention's scores read RMS-normalised codes, blind to a token's scale;
        # its one-location mix is re-weighted by the scales (TokenAttention), a windowed one is not
        config = self.config
        return config.token_set == "none" or (config.token_set == "temporal" and config.normalize_tokens)

    @property
    def linear_encoder(self) -> torch.Tensor:
        return self.dictionary / self.lipschitz  # initial_state's map

    def apply_layer(
        self,
        index: int,
        codes: torch.Tensor,
        tokens: torch.Tensor,
        noise_scale: torch.Tensor | None = None,
        context: AlignedContext | None = None,
        scaled: bool = False,
    ) -> torch.Tensor:
        return self.layer(index)(codes, tokens, self.dictionary, noise_scale, context, scaled)

    def readout_patches(self, codes: torch.Tensor) -> torch.Tensor:
        return codes @ self.dictionary.T


def threshold_schedule(config: DUSTConfig) -> list[float]:
    """β_l for each distinct layer: geometric from threshold_scale to final_threshold_scale."""
    first, last, count = config.threshold_scale, config.final_threshold_scale, config.layers
    if config.tied_layers or count == 1:
        return [first]
    if first > 0 and last > 0:
        return [first * (last / first) ** (l / (count - 1)) for l in range(count)]
    return [first + (last - first) * l / (count - 1) for l in range(count)]

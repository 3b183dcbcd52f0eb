"""Token attention: how a patch token borrows from the tokens of its token set (the same location in every
frame, a window around it, or every frame warped onto its own by the optical flow).

Layout convention as in `videodenoise.models.layers`: a token grid is (B, rows, cols, T, dim), the frame axis
next to the feature axis.
"""

from __future__ import annotations

from typing import NamedTuple

import torch
import torch.nn as nn
import torch.nn.functional as F

from videodenoise.models.config import TOKEN_SETS, PatchConfig


def spatial_offsets(token_set: str, neighbourhood: int) -> list[tuple[int, int]]:
    """Patch-grid offsets in a token's attention set: only its own location, or a k×k neighbourhood
    (the search window of the non-local set, and of the aligned one around where the flow points)."""
    if token_set in ("temporal", "none"):
        return [(0, 0)]
    radius = neighbourhood // 2
    return [(dr, dc) for dr in range(-radius, radius + 1) for dc in range(-radius, radius + 1)]


def mixes_patches(heads: int, encoder: torch.Tensor | None) -> bool:
    """Whether the aligned token set mixes the warped patches and encodes the mix once, Σ w·(pE) = (Σ w·p)E, instead
    of mixing the warped states: with one head (its weights shared by every unit) and a linear encoder. Then the
    states need not be kept (`AlignedContext`)."""
    return heads == 1 and encoder is not None


class AlignedContext(NamedTuple):
    """What the aligned token set attends to: every frame of the clip resampled onto each frame along
    the flow (`UnrolledDenoiser.forward(aligned=...)`), in the model's representation.

    states (B, rows, cols, T, S, dim): [..., t, s, :] is the token of source frame s, warped onto frame t, at
    frame t's patch location (the same scene point where the flow is right); fixed for all layers. The sources
    are the clip's frames (S = T) or a window around them (S > T: the frames denoised are some of the window's,
    each attending to all of it; `itself` says which source each one is).
    excess (B, rows, cols, T, S): how much more the noisy patches of frame t and of warped frame s
    differ than their noise explains, max(mean (y_t − y_ts)² / 2σ² − 1, 0): 0 where they show the same
    thing, large where the flow is wrong or the point is occluded (fusion's evidence, per patch).
    When the model's initial state is linear, states = patches @ encoder (DUST: D/c), and a key
    projection of the states is one of the patches through encoder·Wᵀ: n instead of k wide per token.
    With one head too, the attention reads only the patches, and the states are not kept (None:
    `warped_states()` computes them), their RMS taken through the encoder's Gram matrix (`rms_scale_encoded`)."""

    states: torch.Tensor | None
    excess: torch.Tensor
    scale: torch.Tensor  # (B, rows, cols, T, S, 1): 1 / RMS of each warped token, for the normalised keys
    patches: torch.Tensor | None = None  # (B, rows, cols, T, S, n): the warped patches, with a linear encoder
    encoder: torch.Tensor | None = None  # (n, dim)
    itself: torch.Tensor | None = None  # (T, S) bool: which source is the frame itself (None: the eye, S = T)

    def own_source(self, frames: int, device: torch.device) -> torch.Tensor:
        """(T, S) bool, True where source s is frame t itself."""
        if self.itself is not None:
            return self.itself.to(device)
        return torch.eye(frames, dtype=torch.bool, device=device)

    def warped_states(self) -> torch.Tensor:
        """states, computed from the patches when they were not kept."""
        return self.states if self.states is not None else self.patches @ self.encoder.to(self.patches.dtype)

    def keys(self, linear: nn.Linear) -> torch.Tensor:
        """linear(states), the cheaper way when the states are a linear map of the patches."""
        if self.encoder is None:
            return linear(self.states)
        return self.patches @ (self.encoder.to(self.patches.dtype) @ linear.weight.T.to(self.patches.dtype))


def softmax_over_few(scores: torch.Tensor) -> torch.Tensor:
    """torch.softmax over the last axis, in float32, for rows of a few entries (a temporal token set's T
    frames): torch's CPU kernel goes row by row, and on a band of 5-entry rows these four whole-tensor
    steps took under half its time (DUST, 640×360, one thread; benchmarks/results/speed)."""
    scores = scores.float()  # as autocast runs softmax
    weights = (scores - scores.amax(-1, keepdim=True)).exp()
    return weights / weights.sum(-1, keepdim=True)


def rms_scale(x: torch.Tensor) -> torch.Tensor:
    """1 / RMS over the last axis, (…, 1): what RMS normalisation multiplies a token by. (Through the norm: one
    pass over x, where (x·x).mean() writes a tensor of x's size first: the aligned token set's warped tokens are
    T·S a location, and that was 9 % of `clean` with an aligned model.)"""
    mean_square = torch.linalg.vector_norm(x, dim=-1, keepdim=True).square() / x.shape[-1]
    return torch.rsqrt(mean_square + torch.finfo(x.dtype).eps)


def rms_scale_encoded(patches: torch.Tensor, encoder: torch.Tensor) -> torch.Tensor:
    """rms_scale(patches @ encoder) without the product: ‖pE‖² = p·(p EEᵀ), n² instead of n·k a token and no
    tensor of the states' size (DUST's aligned context, T·S tokens a location, k = 4n wide)."""
    gram = (encoder @ encoder.T).to(patches.dtype)
    square = ((patches @ gram) * patches).sum(-1, keepdim=True).clamp_min_(0)  # ≥ 0 but for rounding
    return torch.rsqrt(square / encoder.shape[-1] + torch.finfo(patches.dtype).eps)


class TokenAttention(nn.Module):
    """Attention step over a configurable token set: Y ← Y + g ⊙ (softmax(Q Kᵀ/√d) Y − Y).

    Queries and keys are projections of the (optionally RMS-normalised) tokens; with tied query/key
    K = Q, so the bilinear form W_q W_qᵀ is symmetric positive semidefinite, as in the energy view of
    Yang et al. The values are the tokens themselves (no value/output projection): each unit borrows
    from the same unit of the tokens it attends to, which keeps a sparse code a sparse code and costs
    T·dim per token instead of a dim×dim map. With several heads, head h mixes the h-th contiguous
    slice of units (standard multi-head attention with identity value/output maps); for DUST the
    units are atoms ordered by frequency, so heads split low from high frequencies.

    The per-unit gain g interpolates between keeping a token (g = 0, the default init: the step is
    the identity, which is what lets an untrained DUST be plain ISTA) and replacing it by its
    attention average (g = 1: exactly softmax(Y W Yᵀ) Y).

    Token sets: "temporal" attends to the same patch location in all T frames; "spatiotemporal" to the
    neighbourhood×neighbourhood patch locations around it in all T frames (neighbours beyond the
    border are masked); "nonlocal" searches the same window, across all T frames, for the tokens most
    similar to it, as block matching does for BM3D/BM4D but with a learned metric: its score is a
    negative squared distance, −½‖q − k‖²/√d (the dot product less ½‖k‖²; the ‖q‖² term cancels in
    the softmax), so a token weighs its neighbours by how alike they are, not by how large.
    distance_scores=True uses that score for every token set (the faithful UT's energy, see ut.py).
    "aligned" attends, for each frame t, to every frame of the clip warped onto t by the optical flow
    (an `AlignedContext`), at the token's own location and the neighbourhood×neighbourhood locations
    around it (a search window for the flow's errors): frame t itself with its current tokens, the
    other frames with their warped tokens. Its score also subtracts β·excess, a learned β ≥ 0 per layer
    times how much a warped patch differs from the frame's beyond its noise, so the weights can learn
    what motion-compensated fusion hand-codes: trust a neighbour where it agrees; with `mix_observation` the
    same weights also mix the noisy patches a DUST layer's step compares against (`_aligned`). "none" is no attention:
    the step is the identity (an ablation's single-frame model). Nothing depends on T.
    """

    def __init__(
        self,
        dim: int,
        heads: int = 1,
        head_dim: int = 16,
        tied_qk: bool = True,
        normalize_tokens: bool = True,
        token_set: str = "temporal",
        neighbourhood: int = 3,
        gain_init: float = 0.0,
        distance_scores: bool = False,
        mix_observation: bool = False,
    ):
        super().__init__()
        if token_set not in TOKEN_SETS:
            raise ValueError(f"token_set must be one of {TOKEN_SETS}, got {token_set!r}")
        if dim % heads:
            raise ValueError(f"heads={heads} must divide the token width {dim}")
        self.heads, self.head_dim = heads, head_dim
        self.normalize_tokens = normalize_tokens
        self.offsets = spatial_offsets(token_set, neighbourhood)
        self.by_distance = token_set == "nonlocal" or distance_scores
        self.query = nn.Linear(dim, heads * head_dim, bias=False)
        self.key = None if tied_qk else nn.Linear(dim, heads * head_dim, bias=False)
        self.gain = nn.Parameter(torch.full((dim,), float(gain_init)))
        self.aligned = token_set == "aligned"
        self.off = token_set == "none"  # the step is the identity; its parameters stay, so weights load either way
        # what a trained layer attends to: with `recording` set, every pass appends its weights, detached,
        # shaped (B, rows, cols, heads, T, offsets, S) (S: the frames attended to), for a notebook or
        # benchmarks/attention_maps.py to read; off, nothing is kept
        self.recording = False
        self.recorded: list[torch.Tensor] = []
        if self.aligned:  # β of the score's −β·excess; 4 ≈ fusion's 1/strength² in these units (2σ² per excess)
            self.mismatch = nn.Parameter(torch.tensor(4.0))
        if mix_observation and not self.aligned:
            raise ValueError("only the aligned token set mixes the observation")
        self.mixes_observation = mix_observation
        if mix_observation:  # g_y, the share of the observation taken from the frames the weights point at
            self.observation_gain = nn.Parameter(torch.tensor(float(gain_init)))

    @classmethod
    def from_config(cls, dim: int, config: PatchConfig, token_set: str | None = None, **options) -> TokenAttention:
        """The attention a model's config describes over tokens `dim` wide (its heads, token set, start gain...);
        token_set: another than the config's (DUST's layers past its aligned_depth: "none"); options: what only one
        model sets (DUST's mix_observation, UT's distance_scores)."""
        return cls(
            dim,
            config.heads,
            config.head_dim,
            config.tied_qk,
            config.normalize_tokens,
            config.token_set if token_set is None else token_set,
            config.neighbourhood,
            config.attention_gain,
            **options,
        )

    def forward(
        self,
        tokens: torch.Tensor,
        context: AlignedContext | None = None,
        token_scale: torch.Tensor | None = None,
        observation: torch.Tensor | None = None,
    ) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """tokens (B, rows, cols, T, dim) → updated tokens of the same shape; the aligned token set
        also needs the clip's `context`. token_scale (broadcasting as (B, rows, cols, T, 1)): the tokens
        are x / s for these s, and are mixed as x would be (the weight of source j for token i times
        s_j / s_i), which gives (update of x) / s; the temporal token set with RMS-normalised scores only,
        whose weights do not change when a token is scaled."""
        if self.aligned != (context is not None):
            raise ValueError("the aligned token set needs an AlignedContext, and only it takes one")
        if self.off:  # nothing mixed: the codes, and an observation with all its noise left (a variance factor 1)
            return tokens if observation is None else (tokens, observation, observation.new_ones(()))
        if token_scale is not None and (len(self.offsets) > 1 or self.aligned or not self.normalize_tokens):
            raise ValueError("only the temporal token set with normalised tokens mixes scaled tokens")
        if (observation is not None) != self.mixes_observation:
            raise ValueError("an attention that mixes the observation needs it, and only such a one takes it")
        if self.aligned:
            return self._aligned(tokens, context, observation)
        batch, rows, cols, frames, dim = tokens.shape
        heads, head_dim = self.heads, self.head_dim

        def project(linear):  # (B, rows, cols, heads, T, hd)
            x = linear(tokens)
            if self.normalize_tokens:  # = linear(rms_norm(tokens)) without writing a normalised copy
                x = x * rms_scale(tokens).to(x.dtype)
            return x.view(batch, rows, cols, frames, heads, head_dim).transpose(3, 4)

        queries = project(self.query)
        keys = queries if self.key is None else project(self.key)
        scale = head_dim**-0.5

        if len(self.offsets) == 1:  # temporal: one location, all frames
            scores = queries @ keys.transpose(-1, -2)
            if self.by_distance:
                scores = scores - 0.5 * keys.square().sum(-1).unsqueeze(-2)
            weights = softmax_over_few(scores * scale)
            self._record(weights.unsqueeze(-2))
            if token_scale is not None:  # (B, rows, cols, 1, T, T): s_source / s_target, shared by the heads
                token_scale = token_scale.to(weights.dtype).unsqueeze(3)
                weights = weights * (token_scale.transpose(-1, -2) / token_scale)
            mixed = self._mix(weights, tokens)
        else:
            # every offset reads a view of the grid padded once by the window radius (no rolled copies);
            # padded locations score −∞, so border tokens attend only to tokens that exist
            radius = max(max(abs(dr), abs(dc)) for dr, dc in self.offsets)
            pad_grid = (radius, radius, radius, radius)

            def window(padded: torch.Tensor, dr: int, dc: int) -> torch.Tensor:
                return padded[:, radius + dr : radius + dr + rows, radius + dc : radius + dc + cols]

            padded_keys = F.pad(keys, (0, 0, 0, 0, 0, 0) + pad_grid)
            outside = F.pad(tokens.new_zeros(rows, cols, dtype=torch.bool), pad_grid, value=True)
            if self.by_distance:  # −½‖k‖², the key's part of −½‖q − k‖²: (…, 1, T)
                key_norms = F.pad(0.5 * keys.square().sum(-1).unsqueeze(-2), (0, 0, 0, 0, 0, 0) + pad_grid)
            scores = []
            for dr, dc in self.offsets:
                score = queries @ window(padded_keys, dr, dc).transpose(-1, -2)
                if self.by_distance:
                    score = score - window(key_norms, dr, dc)
                masked = window(outside[None], dr, dc)[0]
                scores.append((score * scale).masked_fill(masked[None, :, :, None, None, None], float("-inf")))
            weights = torch.softmax(torch.cat(scores, dim=-1), dim=-1)
            weights = weights.view(batch, rows, cols, heads, frames, len(self.offsets), frames)
            self._record(weights)
            padded_tokens = F.pad(tokens, (0, 0, 0, 0) + pad_grid)
            mixed = 0
            for index, (dr, dc) in enumerate(self.offsets):
                mixed = mixed + self._mix(weights[..., index, :], window(padded_tokens, dr, dc))
        mixed = mixed.to(tokens.dtype)  # under autocast the matmul may return a lower precision
        gain = self.gain.to(tokens.dtype)
        if torch.is_grad_enabled():
            return torch.lerp(tokens, mixed, gain)
        # inference: the result overwrites the mix, a temporary of ours (fresh tensors of a band's size are
        # paged in on every allocation; the in-place steps of a layer made it 1.5x faster, bench_models.py)
        return torch.lerp(tokens, mixed, gain, out=mixed)

    def _aligned(
        self, tokens: torch.Tensor, context: AlignedContext, observation: torch.Tensor | None = None
    ) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """The aligned token set (see the class notes): each frame's token against every frame warped
        onto it, over the search window, with the −β·excess term in the score. The source that is the frame
        itself (`context.itself`) is taken with its current tokens; the warped tokens are fixed, so their
        normalisation is the context's, computed once for all layers, and only their projection is per layer.

        With an observation (the frame's noisy patches y, (B, R, C, T, n); `mix_observation`), the same
        weights, averaged over the heads, also mix y with the warped noisy patches, and the result is
        (tokens, y ← y + g_y·(mix − y), f): f (B, R, C, T, 1) is the noise variance left in that y over
        the frame's, Σ_s c_s² for its coefficients c over independent noisy patches (the frame's own
        patches at other window offsets overlap it and are counted as independent: an approximation,
        exact for a window of one). Without it, each layer's gradient step would pull the codes back
        towards the frame's own noise however much its attention borrowed (benchmarks/results/ablation-aligned)."""
        batch, rows, cols, frames, dim = tokens.shape
        heads, head_dim = self.heads, self.head_dim
        itself = context.own_source(frames, tokens.device)  # (T, S)
        sources = itself.shape[1]

        def normalised(y, x=None, scale=None):  # (..., heads, hd), as of RMS-normalised tokens when normalize_tokens
            if self.normalize_tokens:
                y = y * (rms_scale(x) if scale is None else scale.to(y.dtype))
            return y.unflatten(-1, (heads, head_dim))

        key_map = self.query if self.key is None else self.key
        queries = normalised(self.query(tokens), tokens)  # (B, R, C, T, heads, hd)
        own_keys = queries if self.key is None else normalised(self.key(tokens), tokens)
        warped_keys = normalised(context.keys(key_map).to(tokens.dtype), scale=context.scale)
        keys = torch.where(itself[:, :, None, None], own_keys.unsqueeze(4), warped_keys)  # (B, R, C, T, S, heads, hd)
        penalty = self.mismatch.clamp(min=0).to(tokens.dtype) * context.excess.to(tokens.dtype)  # (B, R, C, T, S)
        radius = max(max(abs(dr), abs(dc)) for dr, dc in self.offsets)

        def window(x: torch.Tensor, dr: int, dc: int) -> torch.Tensor:
            return x[:, radius + dr : radius + dr + rows, radius + dc : radius + dc + cols]

        def pad(x: torch.Tensor) -> torch.Tensor:  # the grid axes (1, 2) by the window radius
            return F.pad(x, (0, 0) * (x.dim() - 3) + (radius,) * 4) if radius else x

        padded_keys = pad(keys)
        # padded locations score −∞, so border tokens attend only to tokens that exist
        outside = F.pad(tokens.new_zeros(rows, cols, dtype=torch.bool), (radius,) * 4, value=True) if radius else None
        scores = []
        for dr, dc in self.offsets:
            shifted = window(padded_keys, dr, dc)
            score = torch.einsum("brcthd,brctshd->brcths", queries, shifted)
            if self.by_distance:
                score = score - 0.5 * (shifted * shifted).sum(-1).transpose(-1, -2)
            score = score * head_dim**-0.5 - penalty.unsqueeze(-2)
            if radius:
                masked = window(outside[None], dr, dc)[0]
                score = score.masked_fill(masked[None, :, :, None, None, None], float("-inf"))
            scores.append(score)
        weights = torch.softmax(torch.cat(scores, dim=-1), dim=-1).unflatten(-1, (len(self.offsets), sources))
        self._record(weights.transpose(3, 4))
        # the frame's own weight goes to its current tokens, the others' to their warped tokens
        own_weight = (weights * itself[:, None, None, :]).sum(-1)  # (B, R, C, T, heads, offsets)
        others = weights.masked_fill(itself[:, None, None, :], 0.0)
        padded_tokens = pad(tokens)
        # the warped patches are n wide, DUST's states k = 4n (`mixes_patches`)
        in_patches = mixes_patches(heads, context.encoder)
        warped = self._warped_mix(others, context.patches if in_patches else context.warped_states())
        mixed = warped @ context.encoder.to(warped.dtype) if in_patches else warped
        mixed = mixed.to(tokens.dtype).unflatten(-1, (heads, -1))
        own_weight = own_weight.to(tokens.dtype)  # under autocast the scores may be of another precision
        for index, (dr, dc) in enumerate(self.offsets):  # one fused multiply-add per offset
            own = window(padded_tokens, dr, dc).unflatten(-1, (heads, -1))
            mixed = mixed.addcmul_(own_weight[..., index].unsqueeze(-1), own)
        tokens = torch.lerp(tokens, mixed.flatten(-2), self.gain.to(tokens.dtype))
        if observation is None:
            return tokens
        gain = self.observation_gain.to(observation.dtype)  # unclamped: the variance below holds for any g
        weights, own_weight = weights.mean(4).to(observation.dtype), own_weight.mean(4)  # over the heads
        mixed = (warped if in_patches else self._warped_mix(others.mean(4, keepdim=True), context.patches)).to(
            observation.dtype
        )
        padded_observation = pad(observation)
        for index, (dr, dc) in enumerate(self.offsets):
            mixed = mixed + own_weight[..., index, None] * window(padded_observation, dr, dc)
        own = (weights[..., self.offsets.index((0, 0)), :] * itself).sum(-1, keepdim=True)  # c of y itself
        spread = weights.square().sum(dim=(-2, -1)).unsqueeze(-1)  # Σ c² of the mix
        variance = (1 - gain) ** 2 + 2 * gain * (1 - gain) * own + gain**2 * spread
        return tokens, torch.lerp(observation, mixed, gain), variance

    def _warped_mix(self, others: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
        """Σ over offsets o and frames s of weight(r, o, s) · warped value(r + o, s), (B, R, C, T, width):
        others (B, R, C, T, heads, offsets, S), values the context's warped states or patches
        (B, R, C, T, S, width), head h on the h-th slice of the width.

        The warped tokens are T·S per location and fixed, so each offset's product reads them where they
        lie (the weights, T·S per location, are shifted instead) and the result is added back shifted:
        no copy of them per offset."""
        batch, rows, cols, frames, heads = others.shape[:5]
        others = others.to(values.dtype)  # the weights are the small side; the values are fixed: never cast
        radius = max(max(abs(dr), abs(dc)) for dr, dc in self.offsets)
        if radius:  # zero weights beyond the grid, and room to add each product back shifted
            others = F.pad(others, (0, 0) * 4 + (radius,) * 4)
        total = values.new_zeros(batch, rows + 2 * radius, cols + 2 * radius, frames, values.shape[-1])
        sources = values.unflatten(-1, (heads, -1))  # (B, R, C, T, S, heads, width / heads)
        for index, (dr, dc) in enumerate(self.offsets):
            # at each source location q, the weights location q − o gives it: (B, R, C, T, heads, S)
            weight = others[:, radius - dr : radius - dr + rows, radius - dc : radius - dc + cols, :, :, index]
            products = [(weight[..., h, :].unsqueeze(-2) @ sources[..., h, :]).squeeze(-2) for h in range(heads)]
            product = products[0] if heads == 1 else torch.stack(products, dim=-2).flatten(-2)  # one head: no copy
            total[:, radius - dr : radius - dr + rows, radius - dc : radius - dc + cols] += product
        return total[:, radius : radius + rows, radius : radius + cols]

    def _record(self, weights: torch.Tensor) -> None:
        if self.recording:
            self.recorded.append(weights.detach())

    def _mix(self, weights: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
        """weights (B, rows, cols, heads, T, S) · values (B, rows, cols, S, dim), head h on unit slice h."""
        if self.heads == 1:
            return weights.squeeze(3) @ values
        slices = values.unflatten(-1, (self.heads, -1))
        mixed = torch.stack([weights[:, :, :, h] @ slices[..., h, :] for h in range(self.heads)], dim=-2)
        return mixed.flatten(-2)

"""Model configurations: plain dataclasses of JSON-able fields, validated on construction.

A config is everything needed to rebuild a model's architecture; it travels with the weights as JSON
metadata (see registry.py), so a checkpoint can be rebuilt without running code from the file.

A config read from a file is untrusted: its sizes are held to the bounds below before anything is
built, so a file claiming ten million layers is one line of error instead of all the memory there is.
They are far above anything the project trains (the shipped DUST: 8×8 patches, 5 layers, 256 atoms,
1 head of 16); what a model within them costs is then bounded by what the file really holds, since
registry.load_model compares the tensors with the config's model (built on the "meta" device, which
allocates nothing) before building it for real.
"""

from __future__ import annotations

from dataclasses import dataclass

from videodenoise.errors import ModelError
from videodenoise.settings import field_problem

FEED_FORWARD_STEPS = ("proximal", "mlp")
TOKEN_SETS = ("temporal", "spatiotemporal", "nonlocal", "aligned", "none")
MODEL_NAMES = ("dust", "ut")  # registry.MODELS holds their classes

MAX_LAYERS = 64  # unrolled layers
MAX_PATCH_SIZE = 32  # pixels per patch side (a colour token then holds 3·32² = 3072 values)
MAX_WIDTH = 8192  # DUST's code_size, UT's width and ffn_hidden
MAX_HEADS = 64  # attention heads
MAX_HEAD_DIM = 1024  # query/key width per head
MAX_NEIGHBOURHOOD = 15  # side of the spatio-temporal / non-local window, in patch locations


@dataclass(frozen=True)
class PatchConfig:
    """Options both models share: how clips are cut into tokens and which tokens attend to which."""

    channels: int = 1  # 1 = grey, 3 = colour; fixed at construction
    patch_size: int = 8
    stride: int = 4  # < patch_size: overlapping patches, averaged when folded back (better denoising)
    layers: int = 5
    tied_layers: bool = False  # one layer's parameters reused at every depth
    heads: int = 1  # each head mixes its own slice of the token's units (must divide the width)
    head_dim: int = 16  # query/key width per head
    tied_qk: bool = True  # W_k = W_q: symmetric PSD attention form W_q W_qᵀ
    normalize_tokens: bool = True  # RMS-normalise tokens before attention (and UT's feed-forward)
    # "temporal": same location, all frames; "spatiotemporal": k×k locations; "aligned": every frame warped
    # onto the token's frame by the flow, k×k locations around the token's (the model then needs `aligned`);
    # "none": no attention at all (the ablation's single-frame sparse coder; its attention weights stay unused)
    token_set: str = "temporal"
    neighbourhood: int = 3  # k of the spatio-temporal, non-local and aligned token sets (odd)
    # initial attention gain g (0: every attention step starts as the identity, so an untrained DUST is
    # exactly ISTA and an untrained UT the identity; > 0 starts each token part-way to its attention average)
    attention_gain: float = 0.0

    def __post_init__(self):
        problem = field_problem(self)  # each value of the type its field says, every float finite
        self._require(problem is None, problem)
        self._require(self.channels in (1, 3), f"channels must be 1 (grey) or 3 (colour), got {self.channels}")
        self._within("patch_size", self.patch_size, MAX_PATCH_SIZE, "MAX_PATCH_SIZE")
        self._require(
            1 <= self.stride <= self.patch_size,
            f"stride must be between 1 and patch_size={self.patch_size}, got {self.stride}",
        )
        self._within("layers", self.layers, MAX_LAYERS, "MAX_LAYERS")
        self._within("heads", self.heads, MAX_HEADS, "MAX_HEADS")
        self._within("head_dim", self.head_dim, MAX_HEAD_DIM, "MAX_HEAD_DIM")
        self._require(
            self.token_set in TOKEN_SETS, f"token_set must be one of {', '.join(TOKEN_SETS)}, got {self.token_set!r}"
        )
        self._within("neighbourhood", self.neighbourhood, MAX_NEIGHBOURHOOD, "MAX_NEIGHBOURHOOD")
        self._require(
            self.neighbourhood % 2 == 1,
            f"neighbourhood must be an odd number of patch locations, got {self.neighbourhood}",
        )
        self._require(0 <= self.attention_gain <= 1, f"attention_gain must be in [0, 1], got {self.attention_gain}")

    def _require(self, ok: bool, message: str) -> None:
        if not ok:
            raise ModelError(f"invalid {type(self).__name__}: {message}")

    def _within(self, name: str, value: int | None, bound: int, bound_name: str, optional: str = "") -> None:
        """A size between 1 and its bound (or None, when `optional` says what None means)."""
        if value is None and optional:
            return
        self._require(
            1 <= value <= bound,
            f"{name} must be between 1 and {bound} (models.config.{bound_name})"
            f"{' or null (' + optional + ')' if optional else ''}, got {value}",
        )

    @property
    def patch_dim(self) -> int:
        """n = C·p², the length of one token before any embedding."""
        return self.channels * self.patch_size**2


@dataclass(frozen=True)
class DUSTConfig(PatchConfig):
    """DUST: unrolled proximal gradient on codes h ∈ R^k of a learned dictionary, with attention.

    coupled_weights=True learns W_l = I − U_l D (the weight coupling of LISTA-CP, Chen et al. 2018,
    necessary for convergence) instead of a free k×k W_l: the same update h ← S(W_l h̃ + U_l y) with
    k·n instead of k² + k·n parameters per layer, 2.5× fewer FLOPs, and the shared dictionary D used
    by every layer. ISTA initialisation is identical either way.
    """

    code_size: int | None = None  # k, atoms of the dictionary; None = 4·n
    coupled_weights: bool = True
    sigma: float = 25 / 255  # noise level the initial thresholds are set for (pixel scale [0, 1])
    # initial thresholds θ_l = β_l·σ/c (ISTA's λ_l = β_l·σ), β_l geometric from threshold_scale at
    # layer 1 to final_threshold_scale at layer L: ISTA with continuation, which denoises more than a
    # constant λ and makes the untrained model's error fall at every layer (tied layers use the first)
    threshold_scale: float = 2.25
    final_threshold_scale: float = 1.5
    # the aligned token set's weights also mix the noisy patches each layer's gradient step compares against, and
    # the shrinkage is told the noise left in them (TokenAttention._aligned): the step would otherwise pull the
    # codes back towards the frame's own noise at every layer
    mix_observation: bool = False
    # with mix_observation: only the first aligned_depth layers attend, and the later ones step towards the
    # observation the last of them mixed, told the noise left in it (None: every layer attends). Attention is most
    # of an aligned model's time, and a step towards the frame's own patches would undo what was borrowed
    aligned_depth: int | None = None

    def __post_init__(self):
        super().__post_init__()
        self._require(
            not self.mix_observation or self.token_set == "aligned",
            f"mix_observation needs token_set='aligned', got {self.token_set!r}",
        )
        if self.aligned_depth is not None:
            self._require(
                self.mix_observation and not self.tied_layers,
                "aligned_depth needs mix_observation=true and untied layers (later layers take the mixed observation)",
            )
            self._require(
                1 <= self.aligned_depth <= self.layers,
                f"aligned_depth must be 1-{self.layers} (the layers that attend), got {self.aligned_depth}",
            )
        self._within("code_size", self.code_size, MAX_WIDTH, "MAX_WIDTH", optional="= 4·C·p²")
        self._require(self.sigma >= 0, f"sigma must be a noise level >= 0 on the [0, 1] scale, got {self.sigma}")
        self._require(
            self.threshold_scale >= 0 and self.final_threshold_scale >= 0,
            "threshold_scale and final_threshold_scale must be >= 0",
        )
        self._require(self.atoms % self.heads == 0, f"heads={self.heads} must divide the code size {self.atoms}")

    @property
    def atoms(self) -> int:
        """k, the number of dictionary atoms (code units per token)."""
        return 4 * self.patch_dim if self.code_size is None else self.code_size


@dataclass(frozen=True)
class UTConfig(PatchConfig):
    """UT: embedding, L × (tied-query/key attention step + proximal or MLP step), shared readout."""

    width: int = 128  # d, the token width after the embedding
    # "proximal": Yang, Huang & Wipf's layer, ReLU(Y S + b) with S symmetric on a non-negative
    # representation; "mlp": the residual two-layer ReLU MLP of a standard transformer block (see ut.py)
    feed_forward: str = "proximal"
    ffn_hidden: int | None = None  # hidden units of the MLP step; None = 2·width (feed_forward="mlp" only)
    # σ_ref (pixel scale [0, 1]): told σ, the proximal step's bias is scaled by σ / σ_ref
    sigma: float = 25 / 255

    def __post_init__(self):
        super().__post_init__()
        self._within("width", self.width, MAX_WIDTH, "MAX_WIDTH")
        self._require(
            self.feed_forward in FEED_FORWARD_STEPS,
            f"feed_forward must be one of {', '.join(FEED_FORWARD_STEPS)}, got {self.feed_forward!r}",
        )
        self._within("ffn_hidden", self.ffn_hidden, MAX_WIDTH, "MAX_WIDTH", optional="= 2·width")
        self._require(self.width % self.heads == 0, f"heads={self.heads} must divide width={self.width}")
        self._require(self.sigma > 0, f"sigma must be a positive noise level on the [0, 1] scale, got {self.sigma}")

    @property
    def hidden(self) -> int:
        """Hidden units of the feed-forward step."""
        return 2 * self.width if self.ffn_hidden is None else self.ffn_hidden

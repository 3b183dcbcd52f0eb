"""Model configurations: plain dataclasses of JSON-able fields, validated on construction.

A config is everything needed to rebuild a model's architecture; it travels with the weights as JSON
metadata (see registry.py), so a checkpoint can be rebuilt without running code from the file.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from videodenoise.errors import ModelError

FEED_FORWARD_STEPS = ("proximal", "mlp")
TOKEN_SETS = ("temporal", "spatiotemporal", "nonlocal")
MODEL_NAMES = ("dust", "ut")  # registry.MODELS holds their classes


def _type_ok(value, annotation: str) -> bool:
    """Whether a JSON-able value fits a field annotation ("int", "float", "bool", "str", "int | None")."""
    if value is None:
        return annotation.endswith("| None")
    kind = annotation.split("|")[0].strip()
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "float":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, str)


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
    token_set: str = "temporal"  # "temporal": same location, all frames; "spatiotemporal": k×k locations
    neighbourhood: int = 3  # k of the spatio-temporal token set (odd)
    # initial attention gain g (0: every attention step starts as the identity, so an untrained DUST is
    # exactly ISTA and an untrained UT the identity; > 0 starts each token part-way to its attention average)
    attention_gain: float = 0.0

    def __post_init__(self):
        for field in fields(self):
            value = getattr(self, field.name)
            self._require(_type_ok(value, str(field.type)), f"{field.name} must be of type {field.type}, got {value!r}")
        self._require(self.channels in (1, 3), f"channels must be 1 (grey) or 3 (colour), got {self.channels}")
        self._require(self.patch_size >= 1, f"patch_size must be at least 1, got {self.patch_size}")
        self._require(
            1 <= self.stride <= self.patch_size,
            f"stride must be between 1 and patch_size={self.patch_size}, got {self.stride}",
        )
        self._require(self.layers >= 1, f"layers must be at least 1, got {self.layers}")
        self._require(self.heads >= 1 and self.head_dim >= 1, "heads and head_dim must be at least 1")
        self._require(
            self.token_set in TOKEN_SETS, f"token_set must be one of {', '.join(TOKEN_SETS)}, got {self.token_set!r}"
        )
        self._require(
            self.neighbourhood >= 1 and self.neighbourhood % 2 == 1,
            f"neighbourhood must be an odd number of patch locations, got {self.neighbourhood}",
        )
        self._require(0 <= self.attention_gain <= 1, f"attention_gain must be in [0, 1], got {self.attention_gain}")

    def _require(self, ok: bool, message: str) -> None:
        if not ok:
            raise ModelError(f"invalid {type(self).__name__}: {message}")

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

    def __post_init__(self):
        super().__post_init__()
        self._require(
            self.code_size is None or self.code_size >= 1,
            f"code_size must be a positive number of atoms or null (= 4·C·p²), got {self.code_size}",
        )
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
        self._require(self.width >= 1, f"width must be at least 1, got {self.width}")
        self._require(
            self.feed_forward in FEED_FORWARD_STEPS,
            f"feed_forward must be one of {', '.join(FEED_FORWARD_STEPS)}, got {self.feed_forward!r}",
        )
        self._require(
            self.ffn_hidden is None or self.ffn_hidden >= 1,
            f"ffn_hidden must be a positive integer or null (= 2·width), got {self.ffn_hidden}",
        )
        self._require(self.width % self.heads == 0, f"heads={self.heads} must divide width={self.width}")
        self._require(self.sigma > 0, f"sigma must be a positive noise level on the [0, 1] scale, got {self.sigma}")

    @property
    def hidden(self) -> int:
        """Hidden units of the feed-forward step."""
        return 2 * self.width if self.ffn_hidden is None else self.ffn_hidden

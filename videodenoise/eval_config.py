"""What an evaluation measures: its options (`EvalConfig`) and its noise levels (`Level`).

σ_test = γ·σ_train (σ_train from the checkpoints' metadata, or given), or absolute σ on the 0-255
scale; see `videodenoise.evaluation` for how the sweep uses them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields

from .baselines import BASELINE_NAMES, BASELINES
from .errors import EvaluationError
from .noise import DEFAULT_GAMMAS, NOISE_KINDS, gamma_sweep, sigma_from_255

__all__ = ["EvalConfig", "Level", "noise_levels", "SITES"]

SITES = ("input", "layers")


@dataclass
class EvalConfig:
    """What to evaluate on, at which noise levels, with which limits.

    sigma_train ([0, 1] scale) overrides the checkpoints' own; sigmas (0-255 scale) replace the γ
    sweep by absolute levels (γ is still reported, relative to σ_train). Limits: clips_per_video
    evenly spaced clips per video, max_frames only the first frames of every video, max_clips at most
    that many clips in all (evenly spaced over the split). channels None: the checkpoints' (1 without).
    """

    dataset: str = "samples"
    root: str | None = None
    split: str = "test"
    gammas: list[float] = field(default_factory=lambda: list(DEFAULT_GAMMAS))
    sigmas: list[float] | None = None
    sigma_train: float | None = None
    noises: list[str] = field(default_factory=lambda: ["gaussian"])
    sites: list[str] = field(default_factory=lambda: ["input"])
    seeds: list[int] = field(default_factory=lambda: [0, 1, 2])
    clip_length: int = 5
    crop: int | None = None
    resize: float | None = None
    channels: int | None = None
    clips_per_video: int | None = None
    max_frames: int | None = None
    max_clips: int | None = None
    baselines: list[str] = field(default_factory=lambda: list(BASELINE_NAMES))
    clip_noise: bool = False
    clamp: bool = True
    device: str = "auto"

    def __post_init__(self) -> None:
        self.gammas = [float(g) for g in self.gammas]
        self.sigmas = None if self.sigmas is None else [float(s) for s in self.sigmas]
        self.noises, self.sites = list(self.noises), list(self.sites)
        self.seeds, self.baselines = [int(s) for s in self.seeds], list(self.baselines)
        checks = [
            (bool(self.gammas) or bool(self.sigmas), "give at least one γ (or absolute σ)"),
            (all(g > 0 for g in self.gammas), f"γ must be positive, got {self.gammas}"),
            (self.sigmas is None or all(s > 0 for s in self.sigmas), f"σ must be positive, got {self.sigmas}"),
            (self.sigma_train is None or self.sigma_train > 0, f"sigma_train must be positive, got {self.sigma_train}"),
            (bool(self.noises) and all(n in NOISE_KINDS for n in self.noises),
             f"unknown noise kind in {self.noises}; choose from: {', '.join(NOISE_KINDS)}"),
            (bool(self.sites) and all(s in SITES for s in self.sites),
             f"unknown perturbation site in {self.sites}; choose from: {', '.join(SITES)}"),
            (bool(self.seeds), "give at least one noise seed"),
            (len(set(self.seeds)) == len(self.seeds), f"noise seeds repeat: {self.seeds}"),
            (len(set(self.baselines)) == len(self.baselines), f"baselines repeat: {self.baselines}"),
            (len(set(self.noises)) == len(self.noises) and len(set(self.sites)) == len(self.sites),
             "noise kinds and sites must not repeat"),
            (all(b in BASELINES for b in self.baselines),
             f"unknown baseline in {self.baselines}; choose from: {', '.join(BASELINE_NAMES)}"),
            (self.clip_length >= 1, f"clip length must be at least 1, got {self.clip_length}"),
            (self.channels in (None, 1, 3), f"channels must be 1 or 3, got {self.channels}"),
            (self.clips_per_video is None or self.clips_per_video >= 1, "clips per video must be at least 1"),
            (self.max_clips is None or self.max_clips >= 1, "max clips must be at least 1"),
            (self.max_frames is None or self.max_frames >= self.clip_length,
             f"max frames ({self.max_frames}) must be at least the clip length ({self.clip_length})"),
        ]
        for ok, message in checks:
            if not ok:
                raise EvaluationError(message)

    @classmethod
    def from_dict(cls, values: dict) -> "EvalConfig":
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise EvaluationError(f"unknown evaluation option(s) {', '.join(unknown)}; valid: {', '.join(sorted(known))}")
        return cls(**values)

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Level:
    """One test noise level: γ relative to σ_train and σ on the [0, 1] scale."""

    gamma: float
    sigma: float

    @property
    def sigma_255(self) -> float:
        return self.sigma * 255.0

    @property
    def label(self) -> str:
        return f"γ={self.gamma:g} (σ={self.sigma_255:.3g})"


def noise_levels(config: EvalConfig, sigma_train: float) -> list[Level]:
    """The levels of a config: σ_test = γ·σ_train, or the absolute σ (0-255) with γ = σ/σ_train."""
    if config.sigmas:
        return [Level(sigma_from_255(s) / sigma_train, sigma_from_255(s)) for s in config.sigmas]
    return [Level(gamma, sigma) for gamma, sigma in gamma_sweep(sigma_train, config.gammas)]



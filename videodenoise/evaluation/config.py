"""What an evaluation measures: its options (`EvalConfig`) and its noise levels (`Level`).

σ_test = γ·σ_train (σ_train from the checkpoints' metadata, or given), or absolute σ on the 0-255
scale; see `videodenoise.evaluation.sweep` for how the sweep uses them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from videodenoise.datasets.registry import DATASET_HELP
from videodenoise.errors import EvaluationError
from videodenoise.evaluation.baselines import BASELINE_NAMES, BASELINES
from videodenoise.noise.levels import DEFAULT_GAMMAS, gamma_sweep, sigma_from_255
from videodenoise.settings import DEVICE_PANEL, MAX_SEED, check_fields, from_mapping, is_seed, setting

SITES = ("input", "layers")


@dataclass(frozen=True)
class EvalConfig:
    """What to evaluate on, at which noise levels, with which limits (see `videodenoise.evaluation.sweep`)."""

    dataset: str = setting("samples", f"Dataset: {DATASET_HELP}.", panel="Data")
    root: str | None = setting(None, "Dataset root folder.", panel="Data")
    split: str = setting("test", "Split to evaluate on.", panel="Data")
    gammas: list[float] = setting(
        default_factory=lambda: list(DEFAULT_GAMMAS),
        help="Test noise levels relative to training: σ_test = γ·σ_train.",
        panel="Noise",
    )
    sigmas: list[float] | None = setting(
        None,
        "Absolute test noise levels on the 0-255 scale instead of γ, e.g. 15,25,50 (γ is still reported, "
        "relative to σ_train).",
        panel="Noise",
    )
    sigma_train: float | None = setting(
        None, "σ_train on the 0-255 scale (default: the checkpoints' own).", scale=255, panel="Noise"
    )
    noises: list[str] = setting(
        default_factory=lambda: ["gaussian"],
        flag="--noise",
        help="Noise kinds: gaussian, uniform, salt-and-pepper, poisson-gaussian, camera (shot and read noise "
        "through a camera's gamma and H.264).",
        panel="Noise",
    )
    sites: list[str] = setting(
        default_factory=lambda: ["input"],
        flag="--site",
        help="Perturbation sites: input, layers (every layer's input perturbed).",
        panel="Noise",
    )
    seeds: list[int] = setting(default_factory=lambda: [0, 1, 2], help="Noise seeds.", panel="Noise")
    depths: list[int] | None = setting(
        None,
        "Test-time depths: a model with tied layers also runs to the deepest of these in the same pass, "
        "and every layer's RMSE is kept (none: each model's trained depth).",
        panel="Methods",
    )
    clip_length: int = setting(5, "Frames per clip.", panel="Data")
    crop: int | None = setting(None, "Centre crop in pixels (none: whole frames).", panel="Data")
    resize: float | None = setting(None, "Scale frames by this factor before cropping.", panel="Data")
    channels: int | None = setting(None, "1 or 3 (none: the checkpoints', 1 without).", panel="Data")
    clips_per_video: int | None = setting(None, "Evenly spaced clips per video (none: all).", panel="Data")
    max_frames: int | None = setting(None, "Use only the first N frames of every video.", panel="Data")
    max_clips: int | None = setting(None, "At most N clips in all, evenly spaced over the split.", panel="Data")
    baselines: list[str] = setting(
        default_factory=lambda: list(BASELINE_NAMES), help="Classical baselines, or none.", panel="Methods"
    )
    clip_noise: bool = setting(False, "Clip noisy clips to [0, 1].", panel="Noise")
    clamp: bool = setting(
        True, "Clamp final estimates to [0, 1] before the metrics, as a written video would be.", panel="Methods"
    )
    device: str = setting("auto", "auto, cpu or cuda (for the models).", panel=DEVICE_PANEL)

    def __post_init__(self) -> None:
        from videodenoise.noise.kinds import NOISE_KINDS  # torch: not for reading the settings' names

        check_fields(self, EvaluationError, "evaluation option")
        normalised = dict(
            gammas=[float(g) for g in self.gammas],
            noises=list(self.noises),
            sites=list(self.sites),
            sigmas=None if self.sigmas is None else [float(s) for s in self.sigmas],
            seeds=[int(s) for s in self.seeds],
            depths=None if self.depths is None else [int(d) for d in self.depths],
            baselines=list(self.baselines),
        )
        for name, value in normalised.items():
            object.__setattr__(self, name, value)
        checks = [
            (bool(self.gammas) or bool(self.sigmas), "give at least one γ (or absolute σ)"),
            (all(g > 0 for g in self.gammas), f"γ must be positive, got {self.gammas}"),
            (self.sigmas is None or all(s > 0 for s in self.sigmas), f"σ must be positive, got {self.sigmas}"),
            (self.sigma_train is None or self.sigma_train > 0, f"sigma_train must be positive, got {self.sigma_train}"),
            (
                bool(self.noises) and all(n in NOISE_KINDS for n in self.noises),
                f"unknown noise kind in {self.noises}; choose from: {', '.join(NOISE_KINDS)}",
            ),
            (
                bool(self.sites) and all(s in SITES for s in self.sites),
                f"unknown perturbation site in {self.sites}; choose from: {', '.join(SITES)}",
            ),
            (bool(self.seeds), "give at least one noise seed"),
            (
                self.depths is None or (bool(self.depths) and all(d >= 1 for d in self.depths)),
                f"test-time depths must be at least 1, got {self.depths}",
            ),
            (
                all(is_seed(seed) for seed in self.seeds),
                f"noise seeds must be integers from 0 to {MAX_SEED}, got {self.seeds}",
            ),
            (len(set(self.seeds)) == len(self.seeds), f"noise seeds repeat: {self.seeds}"),
            (len(set(self.baselines)) == len(self.baselines), f"baselines repeat: {self.baselines}"),
            (
                len(set(self.noises)) == len(self.noises) and len(set(self.sites)) == len(self.sites),
                "noise kinds and sites must not repeat",
            ),
            (
                all(b in BASELINES for b in self.baselines),
                f"unknown baseline in {self.baselines}; choose from: {', '.join(BASELINE_NAMES)}",
            ),
            (self.clip_length >= 1, f"clip length must be at least 1, got {self.clip_length}"),
            (self.crop is None or self.crop >= 1, f"crop must be at least 1 pixel or none, got {self.crop}"),
            (
                self.resize is None or self.resize > 0,
                f"resize must be a positive scale factor (e.g. 0.5) or none, got {self.resize}",
            ),
            (self.channels in (None, 1, 3), f"channels must be 1 or 3, got {self.channels}"),
            (self.clips_per_video is None or self.clips_per_video >= 1, "clips per video must be at least 1"),
            (self.max_clips is None or self.max_clips >= 1, "max clips must be at least 1"),
            (
                self.max_frames is None or self.max_frames >= self.clip_length,
                f"max frames ({self.max_frames}) must be at least the clip length ({self.clip_length})",
            ),
        ]
        for ok, message in checks:
            if not ok:
                raise EvaluationError(message)

    @classmethod
    def from_dict(cls, values: dict) -> EvalConfig:
        return from_mapping(cls, values, EvaluationError, "evaluation option")

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

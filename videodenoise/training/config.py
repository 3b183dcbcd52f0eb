"""Every setting of a training run, once: `TrainConfig` with its `DataConfig` and `DescentConfig`.

A run folder's config.json is `TrainConfig.to_dict()`, `train --config FILE` reads the same keys
(nested tables `data` and `descent`), and every field is a `videodenoise train` option whose help is the
field's own (`videodenoise.settings`). Values are checked when the config is made, with one line naming
the option.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from videodenoise.datasets.registry import DATASET_HELP
from videodenoise.denoise.settings import FusionSettings
from videodenoise.errors import ConfigError, VideodenoiseError
from videodenoise.models.config import MODEL_NAMES
from videodenoise.noise.levels import DEFAULT_SIGMA_TRAIN
from videodenoise.settings import DEVICE_PANEL, MAX_SEED, check_fields, from_mapping, is_seed, setting

if TYPE_CHECKING:
    from videodenoise.noise.camera import CameraNoiseRange

MODES = ("erm", "deep-supervision", "constrained")
LR_SCHEDULES = ("cosine", "constant")
DUAL_OPTIMIZERS = ("sgd", "nupi", "augmented-lagrangian")
ALPHA_SCHEDULES = ("constant", "depth-decay", "warmup")
DUAL_UPDATES = ("batch", "epoch")
LOSS_UNITS = ("sigma2", "relative")


def _require(checks: list[tuple[bool, str]]) -> None:
    for ok, message in checks:
        if not ok:
            raise ConfigError(message)


def _choice(what: str, value: str, allowed: tuple[str, ...]) -> tuple[bool, str]:
    return value in allowed, f"unknown {what} '{value}'; choose one of: {', '.join(allowed)}"


@dataclass(frozen=True)
class DataConfig:
    """Which clips the model sees. Sizes are small by default so a CPU run takes minutes."""

    dataset: str = setting("samples", f"Dataset: {DATASET_HELP}.")
    root: str | None = setting(None, "Dataset root folder.")
    train_split: str = setting("train", "Split to train on.")
    val_split: str | None = setting(None, "Validation split (default: val if present, else held-out training clips).")
    channels: int = setting(1, "1 (grey) or 3 (colour).")
    clip_length: int = setting(5, "Frames per clip T.")
    crop: int = setting(48, "Training crop size in pixels.")
    noise_crop: int | None = setting(
        None,
        "Load training clips at this larger crop, make their noise (and the estimate a camera clip is told) "
        "on it, and train on its centre crop-sized part: the noise estimator needs more picture than a model "
        "crop holds (none: the noise is made on the crop itself).",
    )
    resize: float | None = setting(None, "Scale frames by this factor before cropping (e.g. 0.5).")
    val_crop: int | None = setting(96, "Centre crop of validation clips (none: whole frames).")
    val_clips_per_video: int = setting(4, "Validation clips per video.")
    samples_per_epoch: int = setting(256, "Training clips per epoch.")
    workers: int = setting(0, "DataLoader worker processes (0: load clips in the training process).")
    cache_mb: float = setting(2048, "Keep decoded frames in memory when the whole split fits in this many MB.")
    motion_fraction: float = setting(
        0.0,
        "Share of training clips that are synthetic camera motion over the photographs of "
        "datasets.motion.TRAINING_PHOTOS (0: the dataset's clips only; 1: photographs only).",
    )
    moving_objects: int = setting(
        0,
        "Objects moving on their own pasted over each synthetic camera-motion clip (pieces of the training "
        "photographs): occlusions and flow that differs within the frame, what a global pan lacks.",
    )

    def __post_init__(self) -> None:
        check_fields(self, ConfigError, "data option")
        _require(
            [
                (self.channels in (1, 3), f"channels must be 1 (grey) or 3 (colour), got {self.channels}"),
                (self.clip_length >= 1, f"clip_length must be at least 1 frame, got {self.clip_length}"),
                (self.crop >= 1, f"crop must be at least 1 pixel, got {self.crop}"),
                (
                    self.noise_crop is None or self.noise_crop >= self.crop,
                    f"noise_crop must be at least crop ({self.crop}) or none, got {self.noise_crop}",
                ),
                (
                    self.resize is None or self.resize > 0,
                    f"resize must be a positive scale factor (e.g. 0.5) or none, got {self.resize}",
                ),
                (
                    self.val_crop is None or self.val_crop >= 1,
                    f"val_crop must be at least 1 pixel or none (whole frames), got {self.val_crop}",
                ),
                (
                    self.val_clips_per_video >= 1,
                    f"val_clips_per_video must be at least 1, got {self.val_clips_per_video}",
                ),
                (self.samples_per_epoch >= 1, f"samples_per_epoch must be at least 1, got {self.samples_per_epoch}"),
                (
                    self.workers >= 0,
                    f"--workers must be 0 (load clips in the training process) or more, got {self.workers}",
                ),
                (self.cache_mb >= 0, f"cache_mb must be 0 (no cache) or more megabytes, got {self.cache_mb}"),
                (0 <= self.motion_fraction <= 1, f"motion_fraction must be in [0, 1], got {self.motion_fraction}"),
                (self.moving_objects >= 0, f"moving_objects must be 0 or more, got {self.moving_objects}"),
            ]
        )


@dataclass(frozen=True)
class DescentConfig:
    """Every choice of the constrained scheme (`videodenoise.training.constraints`), recorded with each run.

    The augmented Lagrangian is cooper's AugmentedLagrangian formulation, whose primal Lagrangian has,
    per constraint, (1/2c)·[relu(λ + c·g)² − λ²] in place of λ·g (c = `penalty`): λg + (c/2)g² where
    λ + cg > 0, and the constant −λ²/(2c) where the constraint is slack enough that λ + cg ≤ 0, so a
    satisfied constraint exerts no force. The multipliers still take the same simultaneous projected
    ascent step λ ← max(0, λ + η_λ·g) as "sgd" (step dual_lr, not c) after every primal step: this is
    not the method of multipliers, which would minimise the primal problem before each update
    λ ← max(0, λ + c·g).
    """

    alpha: float = setting(0.1, "Required fractional loss decrease per layer, in (0, 1).")
    alpha_schedule: str = setting(
        "constant",
        "constant (α_l = α), depth-decay (α_l = α·(L − l + 1)/L: early layers must descend most) or "
        "warmup (α_l ramps from 0 to α over --alpha-warmup-epochs).",
    )
    alpha_warmup_epochs: int = setting(0, "Epochs of α warm-up (schedule warmup).")
    dual_lr: float = setting(0.05, "Dual step size η_λ.")
    resilience: float | None = setting(
        None, "Resilience ρ of the relaxation (dual weight decay 1/ρ); none: hard constraints."
    )
    dual_optimizer: str = setting(
        "sgd",
        "sgd (projected dual ascent), nupi (PI-controlled multipliers, gain "
        "--nupi-kp) or augmented-lagrangian (cooper's formulation, see above).",
    )
    nupi_kp: float = setting(1.0, "Proportional gain of the nupi dual optimizer.")
    penalty: float = setting(1.0, "Penalty c of the augmented Lagrangian.")
    dual_update: str = setting(
        "batch",
        "batch (a dual step after every primal step, on that batch's g) or epoch "
        "(one per epoch, on g averaged over a no-grad pass).",
    )
    detach_previous: bool = setting(
        False,
        "Treat F_{l−1} as a constant in the primal Lagrangian, so the constraint on layer l only pushes layer l down.",
    )
    include_first_layer: bool = setting(True, "Constrain layer 1 against the input.")
    loss_units: str = setting(
        "sigma2",
        "Losses enter the constraints in units of σ_train² (sigma2) or relative "
        "to the batch's input loss (relative), so η_λ does not depend on the noise level.",
    )

    def __post_init__(self) -> None:
        check_fields(self, ConfigError, "descent option")
        _require(
            [
                (
                    0 < self.alpha < 1,
                    f"alpha must lie in (0, 1) (a fraction of the previous layer's loss), got {self.alpha}",
                ),
                _choice("alpha schedule", self.alpha_schedule, ALPHA_SCHEDULES),
                _choice("dual optimizer", self.dual_optimizer, DUAL_OPTIMIZERS),
                _choice("dual update", self.dual_update, DUAL_UPDATES),
                _choice("loss units", self.loss_units, LOSS_UNITS),
                (self.dual_lr > 0, f"the dual step size must be positive, got {self.dual_lr}"),
                (
                    self.resilience is None or self.resilience > 0,
                    f"resilience ρ must be positive (or omitted for hard constraints), got {self.resilience}",
                ),
                (self.alpha_warmup_epochs >= 0, f"alpha warm-up epochs must be ≥ 0, got {self.alpha_warmup_epochs}"),
                (self.penalty > 0, f"the augmented-Lagrangian penalty must be positive, got {self.penalty}"),
                (self.nupi_kp >= 0, f"the nupi gain nupi_kp must be >= 0, got {self.nupi_kp}"),
            ]
        )

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class TrainConfig:
    """One training run. data and descent are given as their dataclasses or as tables of their fields."""

    model: str = setting("dust", "dust or ut.", panel="Model")
    model_options: dict[str, Any] = setting(
        default_factory=dict,
        help="Model option KEY=VALUE, repeatable (e.g. layers=6).",
        flag="--model-option",
        metavar="KEY=VALUE",
        panel="Model",
    )
    mode: str = setting("constrained", "erm, deep-supervision or constrained.", panel="Model")
    data: DataConfig = setting(default_factory=DataConfig, panel="Data")
    descent: DescentConfig = setting(default_factory=DescentConfig, panel="Descent constraints")
    noise: str = setting("gaussian", "gaussian, uniform, salt-and-pepper, poisson-gaussian or camera.", panel="Noise")
    sigma_train: float = setting(
        DEFAULT_SIGMA_TRAIN,
        "Training noise σ. sigma_train stays the reference with "
        "--sigma-range: validation, loss units and the model's σ_ref use it.",
        flag="--sigma",
        scale=255,
        panel="Noise",
    )
    sigma_range: list[float] | None = setting(
        None,
        "LOW,HIGH: each clip gets a Gaussian σ drawn uniformly from it instead of --sigma, and a "
        "noise-conditional model is told its clip's σ.",
        metavar="LOW,HIGH",
        scale=255,
        panel="Noise",
    )
    sigma_conditioning: bool = setting(
        True,
        "With --sigma-range: tell the model its clip's σ (noise-conditional); off trains blind, as a "
        "practitioner's DnCNN-B-style reference does.",
        panel="Noise",
    )
    sigma_weighting: bool = setting(
        True,
        "With --sigma-range: weight each clip's loss by (sigma_train / max(σ, 1/255))², so light noise counts "
        "as much as heavy noise (equal weight in dB).",
        panel="Noise",
    )
    camera_fraction: float = setting(
        0.0,
        "With --sigma-range: share of training clips that get camera noise (sensor noise in linear light, "
        "8 bits, H.264/H.265; videodenoise.noise.camera) drawn from --camera-range instead of Gaussian noise; "
        "the model is told the noise map `clean --sigma auto` would estimate, and a grey model trains on "
        "opponent channels of colour clips (with fusion, fused first in colour, as clean does). Validation "
        "stays Gaussian at --sigma.",
        panel="Noise",
    )
    camera_range: dict[str, Any] = setting(
        default_factory=dict,
        help="The range camera noise is drawn from: a JSON table of CameraNoiseRange fields, e.g. "
        '{"crf": [18, 30], "codecs": ["h264", "h265"]} ({} = the defaults: a phone in daylight to low-light '
        "surveillance).",
        metavar="JSON",
        panel="Noise",
    )
    clip_noise: bool = setting(False, "Clip noisy clips to [0, 1].", panel="Noise")
    fusion: dict[str, Any] | None = setting(
        None,
        "Motion-compensated fusion of every noisy clip before the model, as `clean` does: a JSON table of "
        "FusionSettings fields ({} = the defaults); the model is told the noise map fusion leaves. Needs "
        "--sigma-range and sigma conditioning.",
        metavar="JSON",
        panel="Noise",
    )
    init_weights: str | None = setting(
        None,
        "Start from these weights (a .safetensors file or run folder whose model matches this config): "
        "fine-tuning. A resumed run restores its own weights instead.",
        panel="Model",
    )
    epochs: int = setting(10, "Epochs to train.", panel="Optimisation")
    batch_size: int = setting(8, "Clips per batch and process.", panel="Optimisation")
    lr: float = setting(1e-3, "Adam learning rate.", panel="Optimisation")
    lr_schedule: str = setting("cosine", "cosine or constant.", panel="Optimisation")
    warmup_steps: int = setting(0, "Linear learning-rate warm-up steps.", panel="Optimisation")
    grad_clip: float | None = setting(1.0, "Gradient-norm clipping (none: off).", panel="Optimisation")
    seed: int = setting(0, "Seed of initialisation, clip order and noise.", panel="Optimisation")
    device: str = setting("auto", "auto, cpu or cuda.", panel=DEVICE_PANEL)
    precision: str = setting("auto", "auto (bf16 on GPU, fp32 on CPU), fp32 or bf16.", panel=DEVICE_PANEL)
    checkpoint_every: int = setting(
        0, "Steps between mid-epoch checkpoints (0: at the end of every epoch only).", panel="Optimisation"
    )
    max_steps: int | None = setting(
        None, "Stop (with a checkpoint) after this many steps in total.", panel="Optimisation"
    )

    def __post_init__(self) -> None:
        from videodenoise.noise.kinds import NOISE_KINDS  # torch: not for reading the settings' names

        object.__setattr__(self, "data", from_mapping(DataConfig, self.data, ConfigError, "data option"))
        object.__setattr__(self, "descent", from_mapping(DescentConfig, self.descent, ConfigError, "descent option"))
        check_fields(self, ConfigError, "training option")
        if self.sigma_range is not None:
            object.__setattr__(self, "sigma_range", list(self.sigma_range))
        _require(
            [
                _choice("mode", self.mode, MODES),
                _choice("model", self.model, MODEL_NAMES),
                _choice("noise", self.noise, NOISE_KINDS),
                _choice("lr schedule", self.lr_schedule, LR_SCHEDULES),
                (self.sigma_train > 0, f"sigma_train must be positive (on the [0, 1] scale), got {self.sigma_train}"),
                (self.epochs >= 1, f"epochs must be at least 1, got {self.epochs}"),
                (self.batch_size >= 1, f"batch size must be at least 1, got {self.batch_size}"),
                (self.lr > 0, f"learning rate must be positive, got {self.lr}"),
                (self.warmup_steps >= 0, f"warmup_steps must be 0 (no warm-up) or more, got {self.warmup_steps}"),
                (is_seed(self.seed), f"seed must be an integer from 0 to {MAX_SEED}, got {self.seed}"),
                (
                    self.checkpoint_every >= 0,
                    f"checkpoint_every must be 0 (at the end of every epoch only) or more steps, got "
                    f"{self.checkpoint_every}",
                ),
                (
                    self.max_steps is None or self.max_steps >= 1,
                    f"max_steps must be at least 1 (or none: no limit), got {self.max_steps}",
                ),
                (self.data.samples_per_epoch >= self.batch_size, "samples per epoch must be at least the batch size"),
                (
                    self.sigma_range is None
                    or (len(self.sigma_range) == 2 and 0 <= self.sigma_range[0] <= self.sigma_range[1] <= 1),
                    "sigma_range must be [low, high] with 0 <= low <= high <= 1 (the [0, 1] scale), got "
                    f"{self.sigma_range}",
                ),
                (
                    self.sigma_range is None or self.noise == "gaussian",
                    f"sigma_range draws Gaussian noise levels; it cannot be combined with noise '{self.noise}'",
                ),
                (
                    self.grad_clip is None or self.grad_clip > 0,
                    f"gradient clipping must be positive or off, got {self.grad_clip}",
                ),
                (
                    0 <= self.camera_fraction <= 1,
                    f"camera_fraction must be in [0, 1] (a share of the training clips), got {self.camera_fraction}",
                ),
                (
                    self.camera_fraction == 0 or self.sigma_range is not None,
                    "camera noise is told to the model as a noise level per clip: camera_fraction needs sigma_range",
                ),
                (
                    self.camera_fraction > 0 or not self.camera_range,
                    "camera_range is set but camera_fraction is 0: no clip would get camera noise",
                ),
                (
                    self.camera_fraction == 0 or not self.clip_noise,
                    "camera noise trains on clips as cameras deliver them (a grey model on opponent channels, "
                    "which span beyond [0, 1]): set clip_noise to false",
                ),
                (
                    self.fusion is None or (self.sigma_range is not None and self.sigma_conditioning),
                    "fusion tells the model the noise left at each pixel: it needs sigma_range and sigma_conditioning "
                    "= true",
                ),
            ]
        )
        if self.fusion is not None:
            self.fusion_settings()  # unknown fields or values: a ConfigError now, not at the first step
        if self.camera_fraction > 0:
            self.camera_noise_range()  # likewise

    def fusion_settings(self) -> FusionSettings | None:
        if self.fusion is None:
            return None
        try:  # unknown keys and values of the wrong type are one line naming the key
            return from_mapping(FusionSettings, self.fusion, ConfigError, "fusion setting")
        except ConfigError:
            raise
        except VideodenoiseError as error:  # FusionSettings' own checks
            raise ConfigError(f"bad fusion settings {self.fusion}: {error}") from None

    def camera_noise_range(self) -> CameraNoiseRange | None:
        """The CameraNoiseRange training clips' camera noise is drawn from; None without camera noise."""
        if self.camera_fraction == 0:
            return None
        from videodenoise.noise.camera import CameraNoiseRange  # torch: not for reading the settings' names

        try:  # unknown keys and values of the wrong type are one line naming the key
            return from_mapping(CameraNoiseRange, self.camera_range, ConfigError, "camera range setting")
        except ConfigError:
            raise
        except VideodenoiseError as error:  # CameraNoiseRange's own checks
            raise ConfigError(f"bad camera_range {self.camera_range}: {error}") from None

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, values: dict) -> TrainConfig:
        return from_mapping(cls, values, ConfigError, "training option")

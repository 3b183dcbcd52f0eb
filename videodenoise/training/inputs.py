"""What a model sees in training: the noisy clips, what it is told besides them, and each clip's weight.

Noise is a pure function of (seed, step, rank) for training and of (seed, VALIDATION_SEED, clip) for
validation, so a resumed run draws exactly the noise the uninterrupted one would have. With a σ range
every clip gets its own σ, and a noise-conditional model is told it; with fusion the model sees the
fused clip and is told the noise map fusion leaves.

With camera_fraction > 0 (which needs a σ range) that share of the training clips, on average, gets
camera noise drawn from the config's CameraNoiseRange in place of its Gaussian noise. Its σ (told to a
noise-conditional model, and weighting its loss) stands for what a noise-level estimator would report
on the clip; for now it is `camera_noise_std` on mid-grey, the std before the codec, until the
estimator of videodenoise.noise.estimation takes its place (it will also see what the codec removed).
The camera draws come after the Gaussian ones from the same generator, so a run without camera noise
draws exactly what it drew before camera noise existed. Validation stays Gaussian at sigma_train.
"""

from __future__ import annotations

import torch

from videodenoise.denoise.fusion import MotionFusion
from videodenoise.errors import ConfigError
from videodenoise.noise.camera import MID_GREY, camera_noise_std
from videodenoise.noise.kinds import make_noise
from videodenoise.training.config import TrainConfig

VALIDATION_SEED = 2**40  # first seed part of the validation noise: fixed, never a training step


def mix_seed(*parts: int) -> int:
    """A 63-bit seed from integers, so that noise depends on (seed, step, rank) and nothing else."""
    value = 0x9E3779B97F4A7C15
    for part in parts:
        value = (value ^ (part + 0x9E3779B97F4A7C15 + (value << 6) + (value >> 2))) & ((1 << 63) - 1)
    return value


class TrainingInputs:
    """`inputs(clean, *seed_parts)` → (what the model sees, each clip's σ or None, what it is told)."""

    def __init__(self, config: TrainConfig, device: torch.device, noise_conditional: bool):
        self.config, self.device = config, device
        self.noise = make_noise(config.noise, config.sigma_train, clip=config.clip_noise)
        fusion = config.fusion_settings()
        if fusion is not None and not noise_conditional:
            raise ConfigError(
                f"fusion needs a noise-conditional model (told the noise map); this {config.model} is not"
            )
        self.fusion = None if fusion is None else MotionFusion(fusion)
        self.tells_sigma = noise_conditional and config.sigma_conditioning
        self.camera_range = config.camera_noise_range()

    def noisy(self, clean: torch.Tensor, *seed_parts: int) -> tuple[torch.Tensor, torch.Tensor | None]:
        """The noisy batch and, with sigma_range, each clip's σ (None otherwise); validation (seed parts
        starting 2**40) uses sigma_train."""
        generator = torch.Generator(device=self.device).manual_seed(mix_seed(self.config.seed, *seed_parts))
        if self.config.sigma_range is None:
            return self.noise(clean, generator=generator), None
        if seed_parts[0] == VALIDATION_SEED:
            sigma = torch.full((clean.shape[0],), self.config.sigma_train, device=clean.device)
        else:
            low, high = self.config.sigma_range
            sigma = low + (high - low) * torch.rand(clean.shape[0], generator=generator, device=self.device)
        noise = torch.randn(clean.shape, generator=generator, device=self.device, dtype=clean.dtype)
        noisy = clean + sigma.view(-1, *[1] * (clean.dim() - 1)) * noise
        if self.config.clip_noise:
            noisy = noisy.clamp(0, 1)
        if self.camera_range is not None and seed_parts[0] != VALIDATION_SEED:
            self._camera(clean, noisy, sigma, generator)
        return noisy, sigma

    def _camera(
        self, clean: torch.Tensor, noisy: torch.Tensor, sigma: torch.Tensor, generator: torch.Generator
    ) -> None:
        """Camera noise in place of the Gaussian (noisy and sigma, in place) for each clip that a draw
        below camera_fraction picks."""
        chosen = torch.rand(clean.shape[0], generator=generator, device=self.device) < self.config.camera_fraction
        for index in chosen.nonzero().flatten().tolist():
            camera = self.camera_range.sample(generator)
            noisy[index] = camera(clean[index], generator=generator)
            sigma[index] = camera_noise_std(camera, MID_GREY)

    def __call__(self, clean: torch.Tensor, *seed_parts: int) -> tuple[torch.Tensor, torch.Tensor | None, dict]:
        """(what the model sees, each clip's σ or None, what the model is told besides the clip).

        The model is told its clip's σ when it is noise-conditional and trained so; with fusion it sees
        the fused clip and is told the noise map fusion leaves."""
        noisy, sigma = self.noisy(clean, *seed_parts)
        told = sigma is not None and self.tells_sigma
        if self.fusion is None:
            return noisy, sigma, {"sigma": sigma} if told else {}
        fused = [self.fusion.fuse_clip(clip, float(level)) for clip, level in zip(noisy.float().cpu(), sigma.cpu())]
        clips, maps = (torch.stack(part).to(self.device, noisy.dtype) for part in zip(*fused))
        return clips, sigma, {"sigma": maps}

    def clip_weights(self, sigma: torch.Tensor | None) -> torch.Tensor | None:
        if sigma is None or not self.config.sigma_weighting:
            return None
        return (self.config.sigma_train / sigma.clamp(min=1 / 255)) ** 2

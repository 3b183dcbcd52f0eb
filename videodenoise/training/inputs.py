"""What a model sees in training: the noisy clips, what it is told besides them, the clean clips it is
scored against, and each clip's weight.

Noise is a pure function of (seed, step, rank) for training and of (seed, VALIDATION_SEED, clip) for
validation, so a resumed run draws exactly the noise the uninterrupted one would have. With a σ range
every clip gets its own σ, and a noise-conditional model is told it; with fusion the model sees the
fused clip and is told the noise map fusion leaves. A model whose token set is "aligned" is also handed
its clips' frames warped onto each other (`align_clip`), as `clean` hands them.

Camera noise (camera_fraction > 0, which needs a σ range): that share of the training clips, on
average, gets camera noise drawn from the config's CameraNoiseRange in place of its Gaussian noise, and
the model is told what `clean --sigma auto` would tell it: the noise map of the estimator
(`videodenoise.noise.estimation`) run on the noisy clip, times its grain. Cameras deliver colour, and
their noise is colour noise (per-channel gains, a colour matrix, 4:2:0 chroma), so a grey model's
training clips arrive in colour (`training_sets(colour=True)`) and each becomes one opponent channel
here, after the noise, as `clean` hands colour video to a grey model: luminance half of the time, each
colour difference a quarter, for the Gaussian clips as well. The draws come after the Gaussian ones
from the same generator, so a run without camera noise draws exactly what it drew before camera noise
existed. Validation stays grey and Gaussian at sigma_train. With fusion too, every clip of such a batch is
fused as `clean` fuses it: in its own channels (colour), a camera clip along the estimator's noise level
function (its grain and carried share included), a Gaussian one, its noise then drawn in those channels,
along its σ; the model gets the fused clip's opponent channel and is told the map fusion leaves there.

With `data.noise_crop` the training clips arrive larger than the model's crop: the noise, and the
estimate a camera clip is told, are made on the whole of it (the estimator needs flat picture to find
the grain in, which a 64-pixel crop seldom holds), and the model gets the centre `data.crop` pixels.
"""

from __future__ import annotations

from typing import NamedTuple

import torch

from videodenoise.colour import opponent_channel, opponent_sigma
from videodenoise.denoise.fusion import MotionFusion, align_clip
from videodenoise.errors import ConfigError
from videodenoise.noise.estimation import estimate_clip_noise
from videodenoise.noise.kinds import make_noise
from videodenoise.noise.noise_level_function import NoiseLevelFunction
from videodenoise.training.config import TrainConfig

VALIDATION_SEED = 2**40  # first seed part of the validation noise: fixed, never a training step
OPPONENT_SHARES = (0.5, 0.25, 0.25)  # luminance, red−blue, green−magenta: as MotionClips draws them


def mix_seed(*parts: int) -> int:
    """A 63-bit seed from integers, so that noise depends on (seed, step, rank) and nothing else."""
    value = 0x9E3779B97F4A7C15
    for part in parts:
        value = (value ^ (part + 0x9E3779B97F4A7C15 + (value << 6) + (value >> 2))) & ((1 << 63) - 1)
    return value


class Inputs(NamedTuple):
    """One batch as the model meets it: `noisy` (B, T, C, H, W), each clip's σ or None (`sigma`, a map's
    RMS for camera clips), what the model is told besides the clip (`told`), and the `clean` clips its
    estimates are scored against (the batch as loaded, or its opponent channels)."""

    noisy: torch.Tensor
    sigma: torch.Tensor | None
    told: dict
    clean: torch.Tensor


class TrainingInputs:
    """`inputs(clean, *seed_parts)` → `Inputs`: what the model sees, is told and is scored against."""

    def __init__(self, config: TrainConfig, device: torch.device, noise_conditional: bool, aligns: bool = False):
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
        self.aligns = aligns  # the model attends over aligned frames: hand it them

    def noisy(self, clean: torch.Tensor, *seed_parts: int) -> tuple[torch.Tensor, torch.Tensor | None]:
        """The noisy batch and, with sigma_range, each clip's σ (None otherwise); validation (seed parts
        starting 2**40) uses sigma_train. Gaussian clips only: camera noise is `__call__`'s."""
        generator = self._generator(*seed_parts)
        if self.config.sigma_range is None:
            return self.noise(clean, generator=generator), None
        sigma = self._sigmas(clean.shape[0], generator, seed_parts[0] == VALIDATION_SEED)
        noisy = clean + sigma.view(-1, *[1] * (clean.dim() - 1)) * self._randn(clean.shape, generator, clean.dtype)
        if self.config.clip_noise:
            noisy = noisy.clamp(0, 1)
        return noisy, sigma

    def __call__(self, clean: torch.Tensor, *seed_parts: int) -> Inputs:
        """The batch as the model meets it (see `Inputs`).

        The model is told its clip's σ (or, for camera noise, the estimator's map) when it is
        noise-conditional and trained so; with fusion it sees the fused clip and is told the noise map
        fusion leaves."""
        if seed_parts[0] == VALIDATION_SEED:
            return self._aligned(self._gaussian(clean, *seed_parts))
        if self.camera_range is not None:
            inputs = self._with_camera_noise(clean, *seed_parts)
        else:
            inputs = self._gaussian(clean, *seed_parts)
        return self._model_crop(self._aligned(inputs))

    def _aligned(self, inputs: Inputs) -> Inputs:
        """For a model attending over aligned frames: the clips' frames warped onto each other along the
        flow of the clips it sees (fused ones with fusion), before any crop, as `clean` aligns them."""
        if not self.aligns:
            return inputs
        aligned = align_clip(inputs.noisy.detach().float().cpu()).to(self.device, inputs.noisy.dtype)
        return inputs._replace(told={**inputs.told, "aligned": aligned})

    def _gaussian(self, clean: torch.Tensor, *seed_parts: int) -> Inputs:
        noisy, sigma = self.noisy(clean, *seed_parts)
        told = sigma is not None and self.tells_sigma
        if self.fusion is None:
            return Inputs(noisy, sigma, {"sigma": sigma} if told else {}, clean)
        fused = [self.fusion.fuse_clip(clip, float(level)) for clip, level in zip(noisy.float().cpu(), sigma.cpu())]
        clips, maps = (torch.stack(part).to(self.device, noisy.dtype) for part in zip(*fused))
        return Inputs(clips, sigma, {"sigma": maps}, clean)

    def _with_camera_noise(self, clean: torch.Tensor, *seed_parts: int) -> Inputs:
        """A training batch where each clip gets camera noise with probability camera_fraction and
        Gaussian noise otherwise; a grey model's colour batch (B, T, 3, H, W) becomes one opponent channel
        per clip after the noise. Every clip is told a map: its σ everywhere, or the estimator's."""
        generator = self._generator(*seed_parts)
        batch, frames, _, height, width = clean.shape
        sigma = self._sigmas(batch, generator, validation=False)
        grey = self.config.data.channels == 1 and clean.shape[2] == 3  # colour clips for a grey model
        channel = torch.multinomial(torch.tensor(OPPONENT_SHARES), batch, replacement=True, generator=generator)
        channel = channel.tolist() if grey else [None] * batch
        target = torch.stack([self._view(clip, k) for clip, k in zip(clean, channel)])
        noisy = target + sigma.view(-1, 1, 1, 1, 1) * self._randn(target.shape, generator, target.dtype)
        maps = sigma.view(-1, 1, 1, 1).expand(batch, frames, height, width).clone()
        chosen = torch.rand(batch, generator=generator, device=self.device) < self.config.camera_fraction
        for index in range(batch):
            if chosen[index]:
                camera = self.camera_range.sample(generator)
                loaded = camera(clean[index], generator=generator).float().cpu()
                function = estimate_clip_noise(loaded)
                told = self._told_map(torch.stack([function(frame) for frame in loaded]), function, channel[index])
                sigma[index] = told.square().mean().sqrt()  # the clip's noise as it came, as a Gaussian clip's σ
            elif self.fusion is not None:  # Gaussian noise on the clip as loaded, to be fused as `clean` fuses it
                noise = self._randn(clean[index].shape, generator, clean.dtype)
                loaded = (clean[index] + sigma[index] * noise).float().cpu()
                function = NoiseLevelFunction.constant(float(sigma[index]), clean.shape[2])
            else:  # the Gaussian noise above, told its σ
                continue
            if self.fusion is not None:  # in the clip's own channels, before a grey model's opponent channel
                loaded, left = self.fusion.fuse_clip(loaded, function, function.luminance_grain, function.carried)
                told = self._told_map(left, function, channel[index])
            noisy[index] = self._view(loaded.to(self.device, noisy.dtype), channel[index])
            maps[index] = told
        return Inputs(noisy, sigma, {"sigma": maps} if self.tells_sigma else {}, target)

    def _model_crop(self, inputs: Inputs) -> Inputs:
        """The centre `data.crop` pixels of a batch loaded at `data.noise_crop` (itself otherwise)."""
        size, (height, width) = self.config.data.crop, inputs.noisy.shape[-2:]
        if self.config.data.noise_crop is None or (height, width) == (size, size):
            return inputs
        top, left = (height - size) // 2, (width - size) // 2

        def cut(x):
            is_map = isinstance(x, torch.Tensor) and x.dim() >= 4
            return x[..., top : top + size, left : left + size].contiguous() if is_map else x

        return Inputs(cut(inputs.noisy), inputs.sigma, {k: cut(v) for k, v in inputs.told.items()}, cut(inputs.clean))

    def _told_map(self, per_pixel: torch.Tensor, function: NoiseLevelFunction, channel: int | None) -> torch.Tensor:
        """(T, H, W): what `clean` tells a model about a clip whose pixels' σ are `per_pixel` (T, C, H, W),
        noise described by `function` (its grain), in the opponent channel a grey model sees (or one map
        for a model that sees every channel), as `Denoiser` tells it."""
        grain = torch.tensor(function.grain or (1.0,) * function.channels)
        if channel is None:  # a model that sees all channels of a pixel: their RMS, as `Denoiser` tells it
            told = per_pixel.square().mean(dim=1).sqrt() * grain.square().mean().sqrt()
        elif per_pixel.shape[1] == 3:
            told = opponent_sigma(per_pixel)[:, channel] * grain[channel]
        else:
            told = per_pixel[:, 0] * grain[0]
        return told.to(self.device)

    @staticmethod
    def _view(clip: torch.Tensor, channel: int | None) -> torch.Tensor:
        return clip if channel is None else opponent_channel(clip, channel)

    def _generator(self, *seed_parts: int) -> torch.Generator:
        return torch.Generator(device=self.device).manual_seed(mix_seed(self.config.seed, *seed_parts))

    def _sigmas(self, batch: int, generator: torch.Generator, validation: bool) -> torch.Tensor:
        if validation:
            return torch.full((batch,), self.config.sigma_train, device=self.device)
        low, high = self.config.sigma_range
        return low + (high - low) * torch.rand(batch, generator=generator, device=self.device)

    def _randn(self, shape: torch.Size, generator: torch.Generator, dtype: torch.dtype) -> torch.Tensor:
        return torch.randn(shape, generator=generator, device=self.device, dtype=dtype)

    def clip_weights(self, sigma: torch.Tensor | None) -> torch.Tensor | None:
        if sigma is None or not self.config.sigma_weighting:
            return None
        return (self.config.sigma_train / sigma.clamp(min=1 / 255)) ** 2

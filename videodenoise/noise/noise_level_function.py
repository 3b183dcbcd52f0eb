"""The noise level function (NLF) of a video: how much noise it carries at each intensity, per channel.

    nlf = NoiseLevelFunction(knots=(0.1, 0.5, 0.9), sigmas=((0.02, 0.04, 0.05),), level=0.04)
    nlf.at(0.5)             # (C,) σ at mid-grey, on the [0, 1] scale
    noise_map = nlf(frame)  # (C, H, W) tensor: each pixel's σ, from its neighbourhood's intensity
    nlf.level               # one σ: the RMS of σ over the pixels of the frames it was estimated on

Real noise is not one σ: shot noise grows with the light a pixel collected (variance a·x + b in linear
light), and the sRGB gamma and a codec bend and smooth that, so it can rise and fall again across the
intensities. An NLF holds σ_c at a few intensities (knots) per channel c, linear in between and flat
beyond the first and last knot. The estimator puts a knot at every bin's centre, and where a video has too few pixels
of some intensities to read their bins it continues the trend of those it read (`videodenoise.noise.curve`).

Each pixel's σ is read at the mean intensity of its LOCAL_MEAN×LOCAL_MEAN neighbourhood in its own
channel, not at its own value: a noisy pixel's value is its intensity plus the noise, which would make
the map noisy itself. The estimator (`videodenoise.noise.estimation`) bins its samples by the same
local mean, so the two read intensity the same way.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import cv2
import numpy as np
import torch

from videodenoise.errors import DenoiseError

LOCAL_MEAN = 5  # side of the box whose mean intensity a pixel's σ is read at
# where `summary` reads the curve (the centres of the lower, middle and upper fifths of the range)
TONES = (("shadows", 0.1), ("mid-tones", 0.5), ("highlights", 0.9))
# what white noise, new in every frame, looks like to the estimator (`codec_shaped`): a luminance grain of at most
# WHITE_GRAIN (added Gaussian noise read 1.00-1.25 on the validation pans, 1.24-1.25 at σ = 2 where 8 bits' rounding
# is a visible part of it; every camera-noise condition through H.264 1.31 or more) and a carried share of at most
# WHITE_CARRIED (a codec's skipped blocks copy a frame's noise into the next: benchmarks/results/calibration)
WHITE_GRAIN = 1.3
WHITE_CARRIED = 0.05
# σ auto is least reliable in footage darker than this on average (0-1): on the validation pans darkened 4× and
# 8× in linear light, with the camera model's noise through H.264, 13 of the 18 clip-conditions under a mean level
# of 48 did 1.0-5.8 dB better told some σ by hand, but which one varied (14 to 48): told 28 everywhere gained 0.04
# dB on average and lost up to 9.7 (the gamma step's correction, σ auto's alone, is lost). From 48 to 64, 1 of 13
# did (benchmarks/results/night-hint/brightness-today.log, fixed_sigma-today.log; 17 of 18 before the gamma step's
# fit and the clipping's correction read the noise before the codec). The held-out clips, measured after: 11 of 15,
# 1.2-7.6 dB (brightness-held-out.log)
DARK = 48 / 255
# a level (RMS of the map, the carried share's lift included) under which a carried share was read only on footage
# with no noise at all: on the validation clips (H.264 at CRF 18-28, as taken and darkened 4× and 8×) 15 of 15 such
# readings, a codec's loss on sharp texture changing from frame to frame, against none of 324 under the camera model's
# noise, whose lowest level read was 3.67 (benchmarks/results/overread-hint). Not a clean line: on dead-leaves texture
# the camera model's light noise at CRF 28 reads a share under it too (4 of 24 clips, benchmarks/results/faint-share)
CODEC_LOSS_LEVEL = 3.3 / 255
# a level (the map's RMS) at or above which the noise is clipped at 0 and 255 across much of the picture and σ auto,
# measuring what is left, reads it low: on the validation clips Gaussian σ = 50 read 47.1-48.5, σ = 75 55.6-62.1 and
# σ = 100 61.9-66.0, where told the true σ did +1.21 to +7.96 dB better (the midpoint of 48.5 and 55.6, by a rule fixed
# before the run: benchmarks/results/heavy-hint); camera noise through H.264 has read at most 33.1
HEAVY = 52 / 255


def local_mean(image: np.ndarray) -> np.ndarray:
    """H×W×C float32 → each pixel's mean over its LOCAL_MEAN² neighbourhood, per channel (H×W×C)."""
    out = cv2.blur(image, (LOCAL_MEAN, LOCAL_MEAN), borderType=cv2.BORDER_REFLECT)
    return out.reshape(image.shape)


# (S, shot noise a per channel, read noise b per channel): a camera gamma's step as made (`gamma_fit` below)
GammaFit = tuple[float, tuple[float, ...], tuple[float, ...]]


@dataclass(frozen=True)
class NoiseLevelFunction:
    """σ_c(intensity) on the [0, 1] scale, per channel c.

    knots: K increasing intensities in [0, 1]; sigmas: C rows of K σ, one row per channel (one row:
    every channel alike); level: the single σ that stands for it where one number is needed (the
    rescaling of a model's input): the RMS of the map over the frames it was estimated on; source:
    what it was estimated from, in words (for the line `clean` prints); grain: how much more σ a model
    should be told than the map says, per channel a grey model sees (the opponent colours of
    `videodenoise.colour` for colour frames, else the one channel), () for white noise; carried: the
    share c of its noise a frame carries over from the one before (a codec's skipped and predicted
    blocks), frames k apart sharing c^k of their noise variance, 0 for noise new in every frame (where
    it is not 0 the estimator has raised the σ to what fusion and the model are best told, above the
    noise's std: `videodenoise.noise.estimation`, CARRIED_LIFT);
    told_scale: a factor on what the model is told on top of the grain, 1 unless chosen for the video
    (`videodenoise.denoise.calibration`); coarse: the function of the same video halved (the mean of each
    2×2 block), estimated for a second scale (`videodenoise.denoise.scales`), or None; brightness: the mean
    intensity of the frames it was estimated on (over their pixels and channels, [0, 1]), None where not
    measured (`dark` reads it: `clean` warns of dark footage, where σ auto is weakest, and calibrates it);
    gamma_fit: (S, shot noise a per channel, read noise b per channel) of the camera gamma's step as a pass told
    the curve as estimated made it, where the model is then told another scale (`videodenoise.denoise.calibration`):
    told more or less, the output is smoother or rougher, and its first frames can decide the step otherwise or not
    at all, so a pass told this function makes that step from its first frame; None: each pass decides it;
    read_range: (low, high), the intensities whose σ was read off the video (its lowest and highest bins with pixels
    enough, over the channels): beyond them the curve follows from the bins read (`videodenoise.noise.curve`), which
    `summary` says; None where not recorded (a function given, or one σ for the whole frame); unlike_runs: how many
    of the runs of frames it was estimated on hold a pair showing two pictures (a scene cut, or a pan too fast to
    align: `videodenoise.noise.scene_cuts`), whose picture can read as noise, which `clean` warns of.

    Why grain: a model trained on white noise reads σ off what the noise does at the scale of its
    patches, and noise correlated across neighbouring pixels (what a codec leaves, chroma averaged
    over 2×2 pixels by 4:2:0, a camera's colour matrix) has more power there than white noise of the
    same per-pixel σ. Fusion weighs pixel differences and uses the map as it is; the model is told map
    × grain (`Denoiser`). Why carried: noise a frame shares with its neighbours cancels in their
    differences and survives their average, so fusion expects smaller differences and leaves more
    noise than for independent noise (`videodenoise.denoise.fusion`)."""

    knots: tuple[float, ...]
    sigmas: tuple[tuple[float, ...], ...]
    level: float
    source: str = "given"
    grain: tuple[float, ...] = ()
    carried: float = 0.0
    told_scale: float = 1.0
    coarse: NoiseLevelFunction | None = None
    brightness: float | None = None
    gamma_fit: GammaFit | None = None
    read_range: tuple[float, float] | None = None
    unlike_runs: int = 0

    def __post_init__(self):
        knots = np.asarray(self.knots, dtype=np.float64)
        sigmas = np.asarray(self.sigmas, dtype=np.float64)
        if knots.ndim != 1 or len(knots) == 0 or not np.all(np.diff(knots) > 0) or knots[0] < 0 or knots[-1] > 1:
            raise DenoiseError(f"a noise level function needs increasing knots in [0, 1], got {self.knots}")
        if sigmas.ndim != 2 or sigmas.shape[1] != len(knots) or sigmas.shape[0] not in (1, 3):
            raise DenoiseError(
                f"a noise level function needs 1 or 3 rows of {len(knots)} σ (one per knot), got shape {sigmas.shape}"
            )
        if not np.isfinite(sigmas).all() or (sigmas < 0).any() or not (math.isfinite(self.level) and self.level >= 0):
            raise DenoiseError("a noise level function's σ must be finite and >= 0 (stds on the [0, 1] scale)")
        if sigmas.max() > 1:
            raise DenoiseError("a noise level function's σ is on the [0, 1] scale; divide values on 0-255 by 255")
        if self.grain and (len(self.grain) != sigmas.shape[0] or not all(0 < g < math.inf for g in self.grain)):
            raise DenoiseError(
                f"a noise level function's grain needs one finite factor > 0 per channel, got {self.grain}"
            )

        if self.read_range is not None and not 0 <= self.read_range[0] < self.read_range[1] <= 1:
            raise DenoiseError(f"a noise level function's read range is (low, high) in [0, 1], got {self.read_range}")
        if self.brightness is not None and not 0 <= self.brightness <= 1:
            raise DenoiseError(f"a noise level function's brightness lies in [0, 1], got {self.brightness}")
        if self.unlike_runs < 0:
            raise DenoiseError(f"a noise level function's count of runs unlike is >= 0, got {self.unlike_runs}")
        if not 0 <= self.carried < 1:
            raise DenoiseError(f"a noise level function's carried share must lie in [0, 1), got {self.carried}")
        if not (math.isfinite(self.told_scale) and self.told_scale > 0):
            raise DenoiseError(
                f"a noise level function's told scale must be a finite factor > 0, got {self.told_scale}"
            )

    @classmethod
    def constant(cls, sigma: float, channels: int = 1, source: str = "given") -> NoiseLevelFunction:
        """The same σ at every intensity: Gaussian noise."""
        return cls((0.5,), ((float(sigma),),) * channels, float(sigma), source)

    def scaled(self, factor: float) -> NoiseLevelFunction:
        """The same function with its curve and level times `factor` (held at 1, the most a σ on [0, 1] can be):
        e.g. the noise as it was before a codec smoothed it (`videodenoise.denoise.camera_bias`, CODEC_LIFT)."""
        rows = tuple(tuple(min(s * factor, 1.0) for s in row) for row in self.sigmas)
        return replace(self, sigmas=rows, level=min(self.level * factor, 1.0))

    @property
    def told_factors(self) -> tuple[float, ...]:
        """What the map is multiplied by in the channels a model sees: the grain times the told scale, one
        factor per channel ((the scale,) for white noise; () when that is 1)."""
        if not self.grain:
            return () if self.told_scale == 1 else (self.told_scale,)
        return tuple(g * self.told_scale for g in self.grain)

    @property
    def told_level(self) -> float:
        """The level of what a model is told: `level` times the told factors' RMS over channels."""
        factors = self.told_factors
        if not factors:
            return self.level
        return self.level * math.sqrt(sum(g * g for g in factors) / len(factors))

    @property
    def luminance_grain(self) -> float:
        """The grain of the channel all channels share (luminance; the one channel of grey frames), 1
        for white noise: what fusion widens its bandwidth by (`videodenoise.denoise.fusion`)."""
        return self.grain[0] if self.grain else 1.0

    @property
    def codec_shaped(self) -> bool:
        """Whether the noise looks as a codec leaves it: correlated across pixels (luminance grain above WHITE_GRAIN)
        or carried over from frame to frame (share above WHITE_CARRIED). False for white noise new in every frame: a
        lossless capture's, noise added to the stored values, a σ told by hand; False too where the grain could not be
        measured (too little flat picture: dark H.264 footage can read so, benchmarks/results/white-lift/gate.log)."""
        return self.luminance_grain > WHITE_GRAIN or self.carried > WHITE_CARRIED

    @property
    def dark(self) -> bool:
        """Whether the frames it was estimated on are darker than DARK on average (False where not measured)."""
        return self.brightness is not None and self.brightness < DARK

    @property
    def may_be_codec_loss(self) -> bool:
        """Whether what was read as noise may be a codec's loss on sharp texture: a carried share on a level under
        CODEC_LOSS_LEVEL, which `clean` warns of (the output can come out softer than the input)."""
        return self.carried > 0 and self.level < CODEC_LOSS_LEVEL

    @property
    def may_read_low(self) -> bool:
        """Whether the noise is heavy enough (a level of HEAVY or more) that clipping at 0 and 1 hides part of it and
        the level reads low, which `clean` warns of."""
        return self.level >= HEAVY

    @property
    def from_pairs(self) -> bool:
        """Measured on motion-aligned pairs of frames (`videodenoise.noise.estimation` names its source so),
        not on single frames' flat patches, its last resort."""
        return self.source.startswith("motion-aligned")

    @property
    def channels(self) -> int:
        return len(self.sigmas)

    def at(self, intensity) -> np.ndarray:
        """σ at these intensities: an array (C, *shape of intensity)."""
        x = np.asarray(intensity, dtype=np.float64)
        return np.stack([np.interp(x, self.knots, row) for row in self.sigmas])

    def map_image(self, image: np.ndarray) -> np.ndarray:
        """An H×W×C float32 image → each pixel's σ, H×W×C float32 (a one-row function serves every channel)."""
        channels = image.shape[2]
        if self.channels not in (1, channels):
            raise DenoiseError(
                f"a noise level function of {self.channels} channels cannot describe frames of {channels}"
            )
        intensity = local_mean(image)
        rows = self.sigmas if self.channels == channels else self.sigmas * channels
        out = np.empty(image.shape, np.float32)
        for channel, row in enumerate(rows):
            out[..., channel] = np.interp(intensity[..., channel], self.knots, row)
        return out

    def __call__(self, frame: torch.Tensor) -> torch.Tensor:
        """A (C, H, W) frame in [0, 1] → its noise map (C, H, W): each pixel's σ, float32 on the CPU."""
        image = np.ascontiguousarray(frame.detach().cpu().float().numpy().transpose(1, 2, 0))
        return torch.from_numpy(np.ascontiguousarray(self.map_image(image).transpose(2, 0, 1)))

    def summary(self) -> str:
        """'σ ≈ 9.1 in shadows, 14.2 in mid-tones, 11.0 in highlights (0-255, mean over channels)'; tones outside the
        read range are named as not read, not given a figure that would pass for a measurement there."""
        low, high = self.read_range or (0.0, 1.0)
        read = [(name, x) for name, x in TONES if low <= x <= high]
        if read:
            values = self.at([x for _, x in read]).mean(axis=0) * 255
            parts = ", ".join(f"{value:.1f} in {name}" for (name, _), value in zip(read, values))
        else:  # the video holds none of the three tones in bulk (a night scene all in one narrow band)
            parts = f"{self.at((low + high) / 2).mean() * 255:.1f} at levels {low * 255:.0f}-{high * 255:.0f}"
        text = f"σ ≈ {parts} (0-255{', mean over channels' if self.channels > 1 else ''})"
        if len(read) < len(TONES):
            *others, last = [name for name, x in TONES if not low <= x <= high]
            unread = f"{', '.join(others)} and {last}" if others else last
            text += f"; {unread} not read (too few pixels, or too many clipped): σ there follows from the bins read"
        if any(g != 1 for g in self.grain):
            names = ("luminance", "red-blue", "green-magenta") if self.channels == 3 else ("grey",)
            factors = ", ".join(f"{g:.2g}× {name}" for g, name in zip(self.grain, names))
            text += f"; spatially correlated (a codec's, chroma subsampling's), told {factors}"
        if self.carried:
            text += f"; {self.carried:.0%} carried over from frame to frame (the σ above are raised for it)"
        if self.told_scale != 1:
            text += f"; the model told {self.told_scale:.3g}× that"
        if self.coarse is not None:  # what white noise would leave is half the level
            text += f"; at half size (2×2 means) RMS {self.coarse.level * 255:.3g}"
        return text


def scaled_sigma(sigma: float | NoiseLevelFunction | None, factor: float) -> float | NoiseLevelFunction | None:
    """σ (a number on [0, 1], a noise level function, or None) times `factor`, as `clean --sigma-scale` asks: every
    use of it (fusion, the model, the corrections) then sees that noise."""
    if sigma is None or factor == 1:
        return sigma
    return sigma.scaled(factor) if isinstance(sigma, NoiseLevelFunction) else min(float(sigma) * factor, 1.0)

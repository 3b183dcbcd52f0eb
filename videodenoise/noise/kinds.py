"""The kinds of noise added to clean clips, each driven by one σ.

Pixel values are floats in [0, 1] and every σ here is a standard deviation on that scale; papers
quote σ on the 0-255 scale, so `sigma_from_255(25) == 25/255`.

Each noise model is a small callable object, in the style of deepinv's noise physics:

    noise = GaussianNoise(25 / 255)
    y = noise(x)                                  # any shape, any device, float in [0, 1]
    y = noise(x, generator=g)                     # reproducible

Seeding: pass a `torch.Generator` that lives on the tensor's device, e.g.
`g = torch.Generator(device=x.device).manual_seed(0)`. The same seed and the same input give
bit-identical output on one device (CPU and CUDA streams differ from each other). Without a
generator the global torch RNG is used, so `torch.manual_seed` also works.

The γ sweep drives every kind by one number σ (`make_noise`), chosen so that the noise's standard
deviation on a mid-grey image (x = 0.5) equals σ. For Gaussian and uniform noise that is the std
everywhere; salt-and-pepper and Poisson-Gaussian noise depend on the signal, so mid-grey is where
they are matched. `noise.std_at(level)` gives any model's std at a grey level, and
`noise.std_at(0.5)` is the common level to compare kinds by.

"camera" is the odd one out: sensor noise in linear light, 8 bits and a real codec
(`videodenoise.noise.camera`), so it wants clips (T, C, H, W) and its σ is the std before the codec.
"""

from __future__ import annotations

import math

import torch

from videodenoise.errors import VideodenoiseError
from videodenoise.noise.camera import CameraNoise, camera_noise_for_sigma
from videodenoise.noise.levels import check_sigma

NOISE_KINDS: tuple[str, ...] = ("gaussian", "uniform", "salt-and-pepper", "poisson-gaussian", "camera")
MID_GREY: float = 0.5


# --------------------------------------------------------------------------------------------------
# validation helpers


def _check_fraction(value: float, name: str) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise VideodenoiseError(f"{name} must be a number in [0, 1], got {value!r}.") from None
    if not (0.0 <= v <= 1.0):
        raise VideodenoiseError(f"{name} must lie in [0, 1], got {value!r}.")
    return v


def _check_input(x: torch.Tensor, generator: torch.Generator | None) -> None:
    if not isinstance(x, torch.Tensor):
        raise VideodenoiseError(f"noise expects a torch.Tensor, got {type(x).__name__}.")
    if not x.is_floating_point():
        raise VideodenoiseError(
            f"noise expects a float tensor in [0, 1], got dtype {x.dtype}; convert with x.float() / 255."
        )
    if generator is not None and generator.device.type != x.device.type:
        raise VideodenoiseError(
            f"the generator is on {generator.device} but the tensor is on {x.device}; "
            f"create it with torch.Generator(device=x.device)."
        )


def _work_dtype(x: torch.Tensor) -> torch.dtype:
    # Half-precision random sampling is patchy across devices (torch.poisson in particular), and
    # σ·n in float16 loses resolution, so low-precision inputs are perturbed in float32.
    return x.dtype if x.dtype in (torch.float32, torch.float64) else torch.float32


# --------------------------------------------------------------------------------------------------
# noise models


class Noise:
    """Base class: a callable `noise(x, generator=None) -> y` with `y.shape == x.shape`.

    `sigma` is each model's own std parameter on the [0,1] scale (see the subclass);
    `std_at(level)` is the std of `noise(x) - x` where x is constant at `level`.
    """

    sigma: float

    def __call__(self, x: torch.Tensor, generator: torch.Generator | None = None) -> torch.Tensor:
        _check_input(x, generator)
        dtype = _work_dtype(x)
        y = self._apply(x.to(dtype), generator)
        return y.to(x.dtype)

    def _apply(self, x: torch.Tensor, generator: torch.Generator | None) -> torch.Tensor:
        raise NotImplementedError

    def variance_at(self, level: float = MID_GREY) -> float:
        raise NotImplementedError

    def std_at(self, level: float = MID_GREY) -> float:
        """Standard deviation of the perturbation on a constant image at `level` (before clipping)."""
        return math.sqrt(self.variance_at(level))


class GaussianNoise(Noise):
    """Additive white Gaussian noise: y = x + σ·n, n ~ N(0, 1); optionally clipped to [0, 1].

    The default training noise (σ_train = 25/255, not clipped by default). Clipping lowers the
    effective std near black and white.
    """

    def __init__(self, sigma: float, clip: bool = False):
        self.sigma = check_sigma(sigma)
        self.clip = bool(clip)

    def _apply(self, x, generator):
        n = torch.randn(x.shape, generator=generator, device=x.device, dtype=x.dtype)
        y = x + self.sigma * n
        return y.clamp_(0.0, 1.0) if self.clip else y

    def variance_at(self, level: float = MID_GREY) -> float:
        return self.sigma**2

    def __repr__(self) -> str:
        return f"GaussianNoise(sigma={self.sigma:.6g}, clip={self.clip})"


class UniformNoise(Noise):
    """Additive uniform noise with the same std as a Gaussian of `sigma`: n ~ U(−√3σ, +√3σ).

    A uniform variable on ±a has variance a²/3, so a = √3·σ gives std σ.
    """

    def __init__(self, sigma: float, clip: bool = False):
        self.sigma = check_sigma(sigma)
        self.clip = bool(clip)

    @property
    def half_width(self) -> float:
        return math.sqrt(3.0) * self.sigma

    def _apply(self, x, generator):
        u = torch.rand(x.shape, generator=generator, device=x.device, dtype=x.dtype)
        y = x + self.half_width * (2.0 * u - 1.0)
        return y.clamp_(0.0, 1.0) if self.clip else y

    def variance_at(self, level: float = MID_GREY) -> float:
        return self.sigma**2

    def __repr__(self) -> str:
        return f"UniformNoise(sigma={self.sigma:.6g}, clip={self.clip})"


class SaltPepperNoise(Noise):
    """Impulse noise: each value independently becomes 1 (salt) or 0 (pepper) with probability `amount`.

    Among the hit values a fraction `salt_ratio` is salt. Values are hit one by one (each channel of
    a colour pixel separately). The output stays in [0, 1] when the input does.

    `sigma` is the std of the perturbation on a mid-grey image: every hit moves 0.5 by ±0.5, so
    with salt_ratio = 0.5 the std is √amount / 2 (amount = 4σ²); with another ratio the mean shift
    p·(r − ½) is taken out.
    """

    def __init__(self, amount: float, salt_ratio: float = 0.5):
        self.amount = _check_fraction(amount, "salt-and-pepper amount")
        self.salt_ratio = _check_fraction(salt_ratio, "salt_ratio")
        self.sigma = self.std_at(MID_GREY)

    def _apply(self, x, generator):
        # One uniform draw decides both whether a value is hit (u < p) and, if so, salt or pepper.
        u = torch.rand(x.shape, generator=generator, device=x.device, dtype=x.dtype)
        hit = u < self.amount
        salt = u < self.amount * self.salt_ratio
        y = torch.where(hit, torch.zeros((), dtype=x.dtype, device=x.device), x)
        return torch.where(salt, torch.ones((), dtype=x.dtype, device=x.device), y)

    def variance_at(self, level: float = MID_GREY) -> float:
        p, r = self.amount, self.salt_ratio
        up, down = 1.0 - level, -level
        mean = p * (r * up + (1 - r) * down)
        second = p * (r * up**2 + (1 - r) * down**2)
        return max(second - mean**2, 0.0)

    def __repr__(self) -> str:
        return f"SaltPepperNoise(amount={self.amount:.6g}, salt_ratio={self.salt_ratio:.6g})"


class PoissonGaussianNoise(Noise):
    """Signal-dependent sensor noise: y = gain·Poisson(x / gain) + σ·n, n ~ N(0, 1).

    Var(y | x) = gain·x + σ², the usual photon-shot plus read-noise model (deepinv's
    `PoissonGaussianNoise(gain, sigma)`). `sigma` is the Gaussian (read-noise) part; the total std
    on mid-grey is `std_at(0.5)`. gain = 0 is pure Gaussian noise. Negative inputs give a zero
    Poisson rate.
    """

    def __init__(self, gain: float, sigma: float, clip: bool = False):
        self.gain = check_sigma(gain, "gain")
        self.sigma = check_sigma(sigma)
        self.clip = bool(clip)

    def _apply(self, x, generator):
        if self.gain > 0:
            rate = x.clamp(min=0.0) / self.gain
            y = self.gain * torch.poisson(rate, generator=generator)
        else:
            y = x.clone()
        if self.sigma > 0:
            y = y + self.sigma * torch.randn(x.shape, generator=generator, device=x.device, dtype=x.dtype)
        return y.clamp_(0.0, 1.0) if self.clip else y

    def variance_at(self, level: float = MID_GREY) -> float:
        return self.gain * max(level, 0.0) + self.sigma**2

    def __repr__(self) -> str:
        return f"PoissonGaussianNoise(gain={self.gain:.6g}, sigma={self.sigma:.6g}, clip={self.clip})"


# --------------------------------------------------------------------------------------------------
# one σ for every kind


def _normalise_kind(kind: str) -> str:
    k = str(kind).strip().lower().replace("_", "-").replace(" ", "-")
    aliases = {
        "salt-pepper": "salt-and-pepper",
        "s&p": "salt-and-pepper",
        "saltpepper": "salt-and-pepper",
        "poisson": "poisson-gaussian",
        "gauss": "gaussian",
    }
    return aliases.get(k, k)


def make_noise(kind: str, sigma: float, clip: bool = False) -> Noise | CameraNoise:
    """The noise of `kind` whose std on a mid-grey image (x = 0.5) equals `sigma` ([0,1] scale).

    Mapping from σ to each kind's parameters:

    - "gaussian": `GaussianNoise(σ, clip)`.
    - "uniform": `UniformNoise(σ, clip)`, i.e. U(−√3σ, +√3σ).
    - "salt-and-pepper": `SaltPepperNoise(amount=4σ², salt_ratio=0.5)`. Every hit on mid-grey
      deviates by 0.5, so the variance is amount/4. Needs σ ≤ 0.5 (amount ≤ 1); `clip` is moot,
      the output is already in [0, 1].
    - "poisson-gaussian": `PoissonGaussianNoise(gain=σ², sigma=σ/√2, clip)`: half the variance
      from each part at x = 0.5 (gain·0.5 = σ²/2 and (σ/√2)² = σ²/2).
    - "camera": `camera_noise_for_sigma(σ)`, a `CameraNoise` with H.264 at CRF 23: half the variance from
      shot and half from read noise at mid-grey in linear light, scaled so that the std on mid-grey after
      the gamma and the 8-bit rounding, before the codec, is σ (the codec then removes a share of it that
      depends on the picture). No channel spread or mixing; `clip` is moot, the output is 8-bit.
    """
    k = _normalise_kind(kind)
    s = check_sigma(sigma)
    if k == "gaussian":
        return GaussianNoise(s, clip=clip)
    if k == "uniform":
        return UniformNoise(s, clip=clip)
    if k == "salt-and-pepper":
        if s > 0.5:
            raise VideodenoiseError(
                f"salt-and-pepper noise reaches at most std 0.5 on mid-grey (amount 1); got sigma={s:.4g} "
                f"({s * 255:.4g}/255): use a smaller sigma or gamma."
            )
        return SaltPepperNoise(amount=min(4.0 * s * s, 1.0), salt_ratio=0.5)
    if k == "poisson-gaussian":
        return PoissonGaussianNoise(gain=s * s, sigma=s / math.sqrt(2.0), clip=clip)
    if k == "camera":
        return camera_noise_for_sigma(s)
    raise VideodenoiseError(f"unknown noise kind {kind!r}; choose one of: {', '.join(NOISE_KINDS)}.")

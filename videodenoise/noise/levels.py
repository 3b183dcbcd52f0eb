"""Noise levels: the one check of a σ, the γ sweep, and the 0-255 scale.

Every σ in the package is a standard deviation on the [0, 1] pixel scale; papers quote σ on the
0-255 scale, so `sigma_from_255(25) == 25/255`. γ is the test noise level relative to training:
σ_test = γ·σ_train, so γ = 1 is in distribution and γ > 1 out of it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from videodenoise.errors import VideodenoiseError

DEFAULT_GAMMAS: tuple[float, ...] = (0.5, 1.0, 1.5, 2.0, 3.0, 4.0)
DEFAULT_SIGMA_TRAIN: float = 25 / 255


def check_sigma(
    sigma: float, name: str = "sigma", error: type[Exception] = VideodenoiseError, unit_scale: bool = False
) -> float:
    """The one check of a noise level (or any std-like number): finite and >= 0, as a float; raises
    `error` with a one-line message otherwise. unit_scale: also refuse σ > 1, which can only be a
    value on the 0-255 scale handed to a function that takes [0, 1]."""
    try:
        value = float(sigma)
    except (TypeError, ValueError):
        raise error(f"{name} must be a number, got {sigma!r}.") from None
    if not math.isfinite(value) or value < 0:
        raise error(f"{name} must be a finite number >= 0 (a std on the [0,1] scale), got {sigma!r}.")
    if unit_scale and value > 1:
        raise error(f"{name} {value:g} is on the 0-255 scale; the library takes [0, 1], e.g. {value:g}/255")
    return value


def gamma_sweep(
    sigma_train: float = DEFAULT_SIGMA_TRAIN, gammas: Iterable[float] = DEFAULT_GAMMAS
) -> list[tuple[float, float]]:
    """Pairs (γ, σ_test) with σ_test = γ·σ_train ([0,1] scale); γ = 1 is in-distribution."""
    s = check_sigma(sigma_train, "sigma_train")
    out = []
    for g in gammas:
        gamma = check_sigma(g, "gamma")
        out.append((gamma, gamma * s))
    if not out:
        raise VideodenoiseError("the gamma sweep is empty; give at least one gamma, e.g. 1.0.")
    return out


def sigma_from_255(sigma_255: float) -> float:
    """σ on the 0-255 scale (as papers report it) to the [0,1] scale: 25 → 25/255."""
    return check_sigma(sigma_255, "sigma (0-255 scale)") / 255.0


def sigma_to_255(sigma: float) -> float:
    """σ on the [0,1] scale to the 0-255 scale: 25/255 → 25."""
    return check_sigma(sigma) * 255.0


def sigmas_from_255(sigmas_255: Sequence[float]) -> list[float]:
    """`sigma_from_255` for each value of a list (the CLI's `--sigmas 15 25 50`)."""
    return [sigma_from_255(s) for s in sigmas_255]

import math

import pytest
import torch

from videodenoise.errors import VideodenoiseError
from videodenoise.noise.kinds import (
    NOISE_KINDS,
    GaussianNoise,
    PoissonGaussianNoise,
    SaltPepperNoise,
    UniformNoise,
    make_noise,
)
from videodenoise.noise.levels import (
    DEFAULT_GAMMAS,
    DEFAULT_SIGMA_TRAIN,
    gamma_sweep,
    sigma_from_255,
    sigma_to_255,
    sigmas_from_255,
)

N = 1_000_000


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


def grey(level=0.5, n=N, dtype=torch.float32):
    return torch.full((n,), level, dtype=dtype)


@pytest.mark.parametrize("cls", [GaussianNoise, UniformNoise])
def test_additive_std_and_mean(cls):
    sigma = 25 / 255
    x = grey()
    d = cls(sigma)(x, gen()) - x
    assert abs(d.mean().item()) < 5 * sigma / math.sqrt(N)
    assert d.std().item() == pytest.approx(sigma, rel=0.01)
    assert cls(sigma).sigma == sigma


def test_gaussian_is_gaussian_shaped():
    d = GaussianNoise(0.1)(grey(), gen()) - 0.5
    # about 68.3% within one σ, 95.4% within two
    assert (d.abs() < 0.1).float().mean().item() == pytest.approx(0.6827, abs=0.003)
    assert (d.abs() < 0.2).float().mean().item() == pytest.approx(0.9545, abs=0.002)


def test_uniform_bounded_by_sqrt3_sigma():
    sigma = 0.1
    noise = UniformNoise(sigma)
    d = noise(grey(), gen()) - 0.5
    a = math.sqrt(3) * sigma
    assert noise.half_width == pytest.approx(a)
    assert d.abs().max().item() <= a + 1e-6
    assert d.abs().max().item() > 0.99 * a  # and actually uses the whole range


def test_salt_and_pepper_fraction_and_values():
    amount, ratio = 0.2, 0.3
    x = torch.rand(N, generator=gen(1)) * 0.8 + 0.1  # never exactly 0 or 1
    y = SaltPepperNoise(amount, salt_ratio=ratio)(x, gen())
    changed = y != x
    assert changed.float().mean().item() == pytest.approx(amount, abs=0.002)
    hits = y[changed]
    assert torch.all((hits == 0) | (hits == 1))
    assert (hits == 1).float().mean().item() == pytest.approx(ratio, abs=0.005)
    assert y.min() >= 0 and y.max() <= 1


def test_salt_and_pepper_sigma_is_mid_grey_std():
    noise = SaltPepperNoise(0.16)
    assert noise.sigma == pytest.approx(0.2)
    d = noise(grey(), gen()) - 0.5
    assert d.std().item() == pytest.approx(0.2, rel=0.01)


@pytest.mark.parametrize("level", [0.1, 0.5, 0.9])
def test_poisson_gaussian_variance(level):
    gain, sigma = 0.01, 0.05
    noise = PoissonGaussianNoise(gain, sigma)
    y = noise(grey(level), gen())
    assert y.mean().item() == pytest.approx(level, abs=0.001)
    assert y.var().item() == pytest.approx(gain * level + sigma**2, rel=0.02)
    assert noise.variance_at(level) == pytest.approx(gain * level + sigma**2)


def test_poisson_gaussian_zero_gain_is_gaussian():
    d = PoissonGaussianNoise(0.0, 0.1)(grey(), gen()) - 0.5
    assert d.std().item() == pytest.approx(0.1, rel=0.01)


@pytest.mark.parametrize(
    "noise",
    [GaussianNoise(0.3, clip=True), UniformNoise(0.3, clip=True), PoissonGaussianNoise(0.05, 0.2, clip=True)],
)
def test_clipping_keeps_unit_range(noise):
    x = torch.rand(100_000, generator=gen(2))
    y = noise(x, gen())
    assert y.min().item() >= 0.0 and y.max().item() <= 1.0


def test_unclipped_gaussian_leaves_unit_range():
    x = torch.rand(100_000, generator=gen(2))
    y = GaussianNoise(0.3)(x, gen())
    assert y.min().item() < 0.0 and y.max().item() > 1.0


@pytest.mark.parametrize("kind", NOISE_KINDS)
def test_seeding(kind):
    noise = make_noise(kind, 0.1)
    x = torch.rand(2, 3, 16, 16, generator=gen(3))
    a = noise(x, gen(7))
    b = noise(x, gen(7))
    c = noise(x, gen(8))
    assert torch.equal(a, b)
    assert not torch.equal(a, c)
    assert a.shape == x.shape and a.dtype == x.dtype
    torch.manual_seed(5)
    d = noise(x)
    torch.manual_seed(5)
    assert torch.equal(d, noise(x))


@pytest.mark.parametrize("kind", NOISE_KINDS)
def test_any_shape_and_dtype(kind):
    noise = make_noise(kind, 0.1)
    for shape in [(), (5,), (4, 1, 8, 8), (2, 3, 3, 4, 4)]:
        x = torch.full(shape, 0.5)
        assert noise(x, gen()).shape == torch.Size(shape)
    x = torch.full((4, 4), 0.5, dtype=torch.float64)
    assert noise(x, gen()).dtype == torch.float64
    x16 = torch.full((4, 4), 0.5, dtype=torch.float16)
    assert noise(x16, gen()).dtype == torch.float16


@pytest.mark.parametrize("kind", NOISE_KINDS)
@pytest.mark.parametrize("sigma", [10 / 255, 25 / 255, 50 / 255])
def test_make_noise_std_at_mid_grey(kind, sigma):
    noise = make_noise(kind, sigma)
    assert noise.std_at(0.5) == pytest.approx(sigma)
    d = noise(grey(), gen()) - 0.5
    # salt-and-pepper at small σ hits few values, so its sample std is the noisiest
    assert d.std().item() == pytest.approx(sigma, rel=0.03 if kind == "salt-and-pepper" else 0.01)


def test_make_noise_mappings():
    s = 0.1
    sp = make_noise("salt-and-pepper", s)
    assert isinstance(sp, SaltPepperNoise) and sp.amount == pytest.approx(4 * s * s)
    pg = make_noise("poisson-gaussian", s)
    assert isinstance(pg, PoissonGaussianNoise)
    assert pg.gain == pytest.approx(s * s) and pg.sigma == pytest.approx(s / math.sqrt(2))
    assert make_noise("Salt_and_Pepper", s).amount == sp.amount
    assert make_noise("gaussian", s, clip=True).clip
    assert isinstance(make_noise("uniform", s), UniformNoise)


def test_gamma_sweep():
    sweep = gamma_sweep(DEFAULT_SIGMA_TRAIN)
    assert [g for g, _ in sweep] == list(DEFAULT_GAMMAS) == [0.5, 1.0, 1.5, 2.0, 3.0, 4.0]
    for g, s in sweep:
        assert s == pytest.approx(g * 25 / 255)
    assert dict(sweep)[1.0] == pytest.approx(DEFAULT_SIGMA_TRAIN)
    assert gamma_sweep(0.1, [2]) == [(2.0, pytest.approx(0.2))]


def test_255_scale():
    assert sigma_from_255(25) == pytest.approx(25 / 255)
    assert sigma_to_255(25 / 255) == pytest.approx(25)
    assert sigma_to_255(sigma_from_255(17.5)) == pytest.approx(17.5)
    assert sigmas_from_255([15, 25, 50]) == pytest.approx([15 / 255, 25 / 255, 50 / 255])


def test_bad_options():
    valid = "gaussian, uniform, salt-and-pepper, poisson-gaussian"
    with pytest.raises(VideodenoiseError, match=f"unknown noise kind 'speckle'.*{valid}"):
        make_noise("speckle", 0.1)
    with pytest.raises(VideodenoiseError, match=">= 0"):
        make_noise("gaussian", -0.1)
    with pytest.raises(VideodenoiseError, match=">= 0"):
        GaussianNoise(float("nan"))
    with pytest.raises(VideodenoiseError, match=r"\[0, 1\]"):
        SaltPepperNoise(1.5)
    with pytest.raises(VideodenoiseError, match=r"\[0, 1\]"):
        SaltPepperNoise(0.1, salt_ratio=-0.1)
    with pytest.raises(VideodenoiseError, match="at most std 0.5"):
        make_noise("salt-and-pepper", 0.6)
    with pytest.raises(VideodenoiseError, match="gamma"):
        gamma_sweep(0.1, [1.0, -2.0])
    with pytest.raises(VideodenoiseError):
        sigma_from_255(-5)
    with pytest.raises(VideodenoiseError, match="float tensor"):
        GaussianNoise(0.1)(torch.zeros(3, dtype=torch.uint8))
    with pytest.raises(VideodenoiseError) as err:
        make_noise("speckle", 0.1)
    assert "\n" not in str(err.value)

"""Camera noise: what a camera and its codec deliver, from clean sRGB clips.

    noise = CameraNoise(a=0.01, b=0.0004, codec="h264", crf=23)      # or CAMERA_PRESETS["medium"]
    noisy = noise(clip, generator=torch.Generator().manual_seed(0))  # clip (T, C, H, W) in [0, 1], C = 1 or 3

The pipeline, per clip:

1. **Linear light.** The clean sRGB values are linearised with the sRGB transfer function.
2. **Sensor noise.** Per channel c, Poisson-Gaussian noise of variance a_c·x + b_c in linear light: shot
   noise a_c·Poisson(x / a_c) plus read noise N(0, b_c). Colour channels differ as white balance makes
   them: channel gains g = (1, 1 − spread, 1 + spread) for (R, G, B) give a_c = a·g_c and b_c = b·g_c²
   (a gain scales the shot noise's variance by g, the read noise's by g²). Grey clips have g = 1.
3. **Colour mixing** (colour clips, `mix` ≠ 0). The noise vector, not the signal, is multiplied by the
   3×3 matrix with 1 on the diagonal and `mix` off it, and each channel is rescaled back to its own
   variance, so the channels' noise correlates as after a camera's colour matrix and demosaicing:
   correlation (2m + m²)/(1 + 2m²) between two channels of equal variance (`CameraNoise.correlation`).
4. **8 bits.** Clipped to [0, 1], through the sRGB gamma and rounded to 8-bit codes.
5. **Codec.** BT.709 limited-range YCbCr 4:2:0 (chroma averaged over 2×2 pixels), encoded by libx264
   (`codec="h264"`) or libx265 (`"h265"`) at `crf`, preset medium, decoded in memory through PyAV,
   chroma upsampled bilinearly, back to RGB and 8-bit codes, as a reader of the file would see them.
   `"none"` stops after step 4.

Determinism: every random number comes from the torch generator (on the clip's device; none: torch's
global generator), and the encoders run single-threaded with fixed options, so the same seed, clip and
machine give bit-identical output. Two workarounds make the encoders of PyAV's bundled FFmpeg
repeatable (found by stress tests, see docs/noise.md): libx264 runs without its macroblock-tree rate
control (its SIMD path gave different bits from run to run at some picture sizes; camera hardware
encoders have no mb-tree either), and libx265, which at small pictures (about one 64-pixel coding unit
wide, or 32 rows high) gave run-to-run differences and now and then corrupted the heap, gets pictures
padded to at least 128×128. Every picture is padded by repeating its last row and column to a multiple
of 16 for the codec and cropped back after it, so odd sizes keep their shape.

Shapes: (..., T, C, H, W) with C = 1 or 3 (each leading index is a clip of its own), one picture
(C, H, W), or a grey picture (H, W). A tensor of fewer than two dimensions has no picture to compress: it
gets steps 1-4 (as one grey channel) and no codec.

The noise level. `camera_noise_std(noise, level)` is the std of the noise on the sRGB [0, 1] scale at a
grey level, after the 8-bit rounding and before the codec (the codec removes a share of it that depends on
the picture): to first order g'(x)·√(a·x + b), with g the sRGB gamma and x the level in linear light,
computed exactly (Poisson counts, clipping and rounding summed over) because the gamma bends strong noise
far from its first-order std. `camera_noise_for_sigma(σ)` is what `make_noise("camera", σ)` returns:
half the variance from each part, as for "poisson-gaussian", scaled so that this std on mid-grey is σ.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import torch
import torch.nn.functional as F

from videodenoise.errors import VideodenoiseError
from videodenoise.noise.levels import check_sigma
from videodenoise.settings import check_fields, setting

CODECS: tuple[str, ...] = ("h264", "h265", "none")
MAX_CRF = 51  # the CRF scale of libx264 and libx265 at 8 bits
MID_GREY = 0.5
_ENCODERS = {"h264": "libx264", "h265": "libx265"}
_DECODERS = {"h264": "h264", "h265": "hevc"}
# codec pictures: a multiple of 16 (whole macroblocks); libx265 also needs at least 128×128 (see above)
_MULTIPLE = 16
_MINIMUM = {"h264": 16, "h265": 128}
_KR, _KB = 0.2126, 0.0722  # BT.709 luma weights of R and B
_POISSON_SUMMED = 100.0  # mean photon count up to which camera_noise_std sums the Poisson law (then: Gaussian)


# --------------------------------------------------------------------------------------------------
# the sRGB transfer function


def srgb_to_linear(v: torch.Tensor) -> torch.Tensor:
    """sRGB-encoded values in [0, 1] to linear light (IEC 61966-2-1)."""
    return torch.where(v <= 0.04045, v / 12.92, ((v.clamp(min=0.04045) + 0.055) / 1.055) ** 2.4)


def linear_to_srgb(x: torch.Tensor) -> torch.Tensor:
    """Linear light in [0, 1] to sRGB-encoded values."""
    return torch.where(x <= 0.0031308, 12.92 * x, 1.055 * x.clamp(min=0.0031308) ** (1 / 2.4) - 0.055)


# --------------------------------------------------------------------------------------------------
# the noise model


def _check(ok: bool, message: str) -> None:
    if not ok:
        raise VideodenoiseError(message)


@dataclass(frozen=True)
class CameraNoise:
    """Camera and codec noise (see the module docstring); `noise(clip, generator=None)` → noisy clip.

    The defaults are a modest colour camera at the "medium" level of `CAMERA_PRESETS`."""

    a: float = setting(0.01, "Shot noise: variance per unit of linear light (Poisson gain).")
    b: float = setting(0.0004, "Read noise: variance in linear light.")
    spread: float = setting(0.1, "Channel gains 1, 1 − spread, 1 + spread of R, G, B (0 to 0.5).")
    mix: float = setting(0.1, "Off-diagonal weight of the noise's colour matrix (−0.5 to 1; 0: independent).")
    codec: str = setting("h264", "h264 (libx264), h265 (libx265) or none (8-bit frames, no codec).")
    crf: int = setting(23, f"Constant rate factor of the codec (0 to {MAX_CRF}; lower: better quality).")

    def __post_init__(self) -> None:
        check_fields(self, VideodenoiseError, "camera noise option")
        _check(self.a >= 0, f"camera shot noise a must be >= 0, got {self.a}")
        _check(self.b >= 0, f"camera read noise b must be >= 0, got {self.b}")
        _check(0 <= self.spread <= 0.5, f"camera channel spread must lie in [0, 0.5], got {self.spread}")
        _check(-0.5 <= self.mix <= 1, f"camera colour mix must lie in [-0.5, 1], got {self.mix}")
        _check(self.codec in CODECS, f"unknown camera codec '{self.codec}'; choose one of: {', '.join(CODECS)}")
        _check(0 <= self.crf <= MAX_CRF, f"camera crf must lie in [0, {MAX_CRF}], got {self.crf}")

    @property
    def sigma(self) -> float:
        """The std on mid-grey before the codec ([0, 1] scale): the σ this noise compares to."""
        return self.std_at(MID_GREY)

    @property
    def correlation(self) -> float:
        """The correlation of two colour channels' noise when both have the same variance."""
        m = self.mix
        return (2 * m + m * m) / (1 + 2 * m * m)

    def variance_at(self, level: float = MID_GREY) -> float:
        return camera_noise_std(self, level) ** 2

    def std_at(self, level: float = MID_GREY) -> float:
        """`camera_noise_std(self, level)`: the std before the codec on a constant image at `level`."""
        return camera_noise_std(self, level)

    def __call__(self, clip: torch.Tensor, generator: torch.Generator | None = None) -> torch.Tensor:
        _check_input(clip, generator)
        if clip.numel() == 0:
            return clip.clone()
        clips, pictures = _as_clips(clip)
        codes = self.sensor_codes(clips, generator)
        if pictures and self.codec != "none":
            cpu = codes.to("cpu", torch.uint8)
            codes = torch.stack([encode_decode(one, self.codec, self.crf) for one in cpu]).to(clip.device)
        return (codes.float() / 255).reshape(clip.shape).to(clip.dtype)

    def sensor_codes(self, clips: torch.Tensor, generator: torch.Generator | None = None) -> torch.Tensor:
        """Steps 1-4 on clips (N, T, C, H, W): the 8-bit codes (as floats 0..255) before the codec."""
        linear = srgb_to_linear(clips.float().clamp(0, 1))
        channels = linear.shape[2]
        gains = torch.ones(channels, device=linear.device)
        if channels == 3:
            gains = gains + self.spread * torch.tensor([0.0, -1.0, 1.0], device=linear.device)
        gains = gains.view(channels, 1, 1)
        shot, read = self.a * gains, self.b * gains**2
        noise = torch.zeros_like(linear)
        if self.a > 0:
            noise = shot * torch.poisson(linear / shot, generator=generator) - linear
        if self.b > 0:
            noise = noise + read.sqrt() * torch.randn(linear.shape, generator=generator, device=linear.device)
        if channels == 3 and self.mix != 0:
            noise = _mix(noise, shot * linear + read, self.mix)
        return (linear_to_srgb((linear + noise).clamp(0, 1)) * 255).round()


def _mix(noise: torch.Tensor, variance: torch.Tensor, mix: float) -> torch.Tensor:
    """The noise (N, T, 3, H, W) through the matrix [1 mix mix; mix 1 mix; mix mix 1], each channel
    rescaled to its own variance (the expected one, a_c·x + b_c, not the sample's)."""
    matrix = torch.full((3, 3), mix, device=noise.device).fill_diagonal_(1.0)
    mixed = torch.einsum("ij,ntjhw->ntihw", matrix, noise)
    mixed_variance = torch.einsum("ij,ntjhw->ntihw", matrix**2, variance)
    scale = torch.where(mixed_variance > 0, variance / mixed_variance.clamp(min=1e-30), 0.0).sqrt()
    return mixed * scale


def _check_input(clip: torch.Tensor, generator: torch.Generator | None) -> None:
    if not isinstance(clip, torch.Tensor) or not clip.is_floating_point():
        raise VideodenoiseError(
            "camera noise expects a float tensor in [0, 1] (a clip (T, C, H, W)), got "
            f"{type(clip).__name__ if not isinstance(clip, torch.Tensor) else clip.dtype}"
        )
    if generator is not None and generator.device.type != clip.device.type:
        raise VideodenoiseError(
            f"the generator is on {generator.device} but the clip is on {clip.device}; "
            "create it with torch.Generator(device=clip.device)."
        )


def _as_clips(x: torch.Tensor) -> tuple[torch.Tensor, bool]:
    """x as clips (N, T, C, H, W), and whether they are pictures a codec can take."""
    shape = tuple(x.shape)
    if len(shape) >= 4 and shape[-3] in (1, 3):
        return x.reshape(-1, *shape[-4:]), True
    if len(shape) == 3 and shape[0] in (1, 3):
        return x.reshape(1, 1, *shape), True
    if len(shape) == 2:
        return x.reshape(1, 1, 1, *shape), True
    if len(shape) < 2:
        return x.reshape(1, 1, 1, 1, -1), False
    raise VideodenoiseError(
        f"camera noise takes clips (T, C, H, W) with C = 1 or 3, pictures (C, H, W) or (H, W); got shape {shape}"
    )


# --------------------------------------------------------------------------------------------------
# the codec


def _padded(size: int, codec: str) -> int:
    return -(-max(size, _MINIMUM[codec]) // _MULTIPLE) * _MULTIPLE


def encode_decode(frames: torch.Tensor, codec: str, crf: int) -> torch.Tensor:
    """8-bit frames (T, C, H, W) (uint8, C = 1 or 3) through the codec and back: uint8 of the same shape."""
    import av  # the bundled FFmpeg: loaded when a codec first runs

    count, channels, height, width = frames.shape
    padded = (_padded(height, codec), _padded(width, codec))
    pixels = frames.float() / 255
    if padded != (height, width):  # the last row and column repeated: cheap to code, cropped away after
        pixels = F.pad(pixels, (0, padded[1] - width, 0, padded[0] - height), mode="replicate")
    planes = _to_yuv420(pixels).numpy()

    encoder = av.CodecContext.create(_ENCODERS[codec], "w")
    encoder.width, encoder.height, encoder.pix_fmt = padded[1], padded[0], "yuv420p"
    encoder.time_base, encoder.framerate = Fraction(1, 25), Fraction(25)
    encoder.thread_count = 1
    if codec == "h264":
        params = "threads=1:lookahead-threads=1:sliced-threads=0:mbtree=0"
        encoder.options = {"crf": str(crf), "preset": "medium", "threads": "1", "x264-params": params}
    else:
        params = "log-level=none:pools=none:frame-threads=1:cutree=0"
        encoder.options = {"crf": str(crf), "preset": "medium", "x265-params": params}
    packets = []
    for index, plane in enumerate(planes):
        frame = av.VideoFrame.from_ndarray(plane, format="yuv420p")
        frame.pts = index
        packets += encoder.encode(frame)
    packets += encoder.encode(None)

    decoder = av.CodecContext.create(_DECODERS[codec], "r")
    decoder.thread_count = 1
    decoded = []
    for packet in packets + [None]:
        decoded += [frame.to_ndarray(format="yuv420p") for frame in decoder.decode(packet)]
    if len(decoded) != count:
        raise RuntimeError(f"the {codec} round trip returned {len(decoded)} frames for {count}")
    rgb = _from_yuv420(torch.from_numpy(np.stack(decoded)), channels)
    return (rgb[..., :height, :width] * 255).round().clamp(0, 255).to(torch.uint8)


def _to_yuv420(pixels: torch.Tensor) -> torch.Tensor:
    """Pixels (T, C, H, W) in [0, 1] → yuv420p planes (T, 3H/2, W) uint8, BT.709 limited range."""
    count, channels, height, width = pixels.shape
    if channels == 1:
        luma = pixels[:, 0]
        chroma = torch.zeros(count, 2, height // 2, width // 2)
    else:
        red, green, blue = pixels.unbind(1)
        luma = _KR * red + (1 - _KR - _KB) * green + _KB * blue
        colour = torch.stack([(blue - luma) / (2 * (1 - _KB)), (red - luma) / (2 * (1 - _KR))], 1)
        chroma = F.avg_pool2d(colour, 2)
    y = (16 + 219 * luma).round().clamp(0, 255)
    uv = (128 + 224 * chroma).round().clamp(0, 255)
    parts = [y.reshape(count, -1), uv[:, 0].reshape(count, -1), uv[:, 1].reshape(count, -1)]
    return torch.cat(parts, 1).reshape(count, height * 3 // 2, width).to(torch.uint8)


def _from_yuv420(planes: torch.Tensor, channels: int) -> torch.Tensor:
    """yuv420p planes (T, 3H/2, W) → pixels (T, C, H, W) in [0, 1] (chroma upsampled bilinearly)."""
    count, rows, width = planes.shape
    height = rows * 2 // 3
    flat = planes.reshape(count, -1).float()
    luma = ((flat[:, : height * width].reshape(count, height, width) - 16) / 219).clamp(0, 1)
    if channels == 1:
        return luma[:, None]
    chroma = (flat[:, height * width :].reshape(count, 2, height // 2, width // 2) - 128) / 224
    chroma = F.interpolate(chroma, scale_factor=2, mode="bilinear", align_corners=False)
    blue = luma + 2 * (1 - _KB) * chroma[:, 0]
    red = luma + 2 * (1 - _KR) * chroma[:, 1]
    green = (luma - _KR * red - _KB * blue) / (1 - _KR - _KB)
    return torch.stack([red, green, blue], 1).clamp(0, 1)


# --------------------------------------------------------------------------------------------------
# ranges and presets


@dataclass(frozen=True)
class CameraNoiseRange:
    """Camera noise drawn at random, from a phone in daylight to low-light surveillance; `sample(g)`.

    a and b are drawn log-uniformly and independently (each spans two orders of magnitude), spread and
    mix uniformly, the codec uniformly from `codecs`, crf uniformly from the integers of its range."""

    a: list[float] = setting(default_factory=lambda: [0.0005, 0.02], help="Shot noise a: LOW,HIGH (log-uniform).")
    b: list[float] = setting(default_factory=lambda: [1e-5, 1e-3], help="Read noise b: LOW,HIGH (log-uniform).")
    spread: list[float] = setting(default_factory=lambda: [0.0, 0.2], help="Channel spread: LOW,HIGH.")
    mix: list[float] = setting(default_factory=lambda: [0.0, 0.3], help="Colour mix: LOW,HIGH.")
    codecs: list[str] = setting(default_factory=lambda: ["h264"], help="Codecs drawn from: h264, h265, none.")
    crf: list[int] = setting(default_factory=lambda: [18, 30], help="CRF: LOW,HIGH (integers, both included).")

    def __post_init__(self) -> None:
        check_fields(self, VideodenoiseError, "camera noise range option")
        bounds = {"a": (0, 1), "b": (0, 1), "spread": (0, 0.5), "mix": (-0.5, 1), "crf": (0, MAX_CRF)}
        for name, (low, high) in bounds.items():
            values = list(getattr(self, name))
            positive = name in ("a", "b")  # drawn log-uniformly
            _check(
                len(values) == 2 and low <= values[0] <= values[1] <= high and (values[0] > 0 or not positive),
                f"camera noise range {name} must be [low, high] with {low} {'<' if positive else '<='} low <= high "
                f"<= {high}, got {values}",
            )
        _check(
            bool(self.codecs) and set(self.codecs) <= set(CODECS) and len(set(self.codecs)) == len(self.codecs),
            f"camera noise range codecs must be distinct names from {', '.join(CODECS)}, got {self.codecs}",
        )

    def sample(self, generator: torch.Generator | None = None) -> CameraNoise:
        """One CameraNoise, from six uniform draws of `generator` (torch's global generator without one)."""
        device = generator.device if generator is not None else "cpu"
        u = torch.rand(6, generator=generator, dtype=torch.float64, device=device).tolist()

        def log_uniform(bounds: list[float], t: float) -> float:
            low, high = math.log(bounds[0]), math.log(bounds[1])
            return min(max(math.exp(low + t * (high - low)), bounds[0]), bounds[1])

        def uniform(bounds: list[float], t: float) -> float:
            return bounds[0] + t * (bounds[1] - bounds[0])

        crf_low, crf_high = self.crf
        return CameraNoise(
            a=log_uniform(self.a, u[0]),
            b=log_uniform(self.b, u[1]),
            spread=uniform(self.spread, u[2]),
            mix=uniform(self.mix, u[3]),
            codec=self.codecs[min(int(u[4] * len(self.codecs)), len(self.codecs) - 1)],
            crf=crf_low + min(int(u[5] * (crf_high - crf_low + 1)), crf_high - crf_low),
        )


# The quality benchmark's camera levels (H.264, CRF 23, the default spread and mix). "heavy" is the
# noisiest corner of CameraNoiseRange (low-light surveillance), so that the benchmark stays inside what a
# camera-trained model saw. Std on mid-grey before the codec: about 7.5, 13.9 and 20/255 (docs/noise.md).
CAMERA_PRESETS: dict[str, CameraNoise] = {
    "light": CameraNoise(a=0.003, b=0.0001),
    "medium": CameraNoise(a=0.01, b=0.0004),
    "heavy": CameraNoise(a=0.02, b=0.001),
}


# --------------------------------------------------------------------------------------------------
# the noise level


def camera_noise_std(noise: CameraNoise, level: float = MID_GREY) -> float:
    """The std of `noise` on a constant image at the sRGB grey `level`, on the [0, 1] scale, after the
    8-bit rounding and before the codec, for a channel of gain 1 (a grey clip's, and R's of a colour clip;
    exact for mix = 0, which keeps each channel's variance in linear light but not its shape).

    To first order g'(x)·√(a·x + b), the gamma's slope times the std in linear light at x = the level in
    linear light; computed exactly, summing over the Poisson counts, the clipping and the rounding."""
    return _rounded_std(float(level), float(noise.a), float(noise.b))


@functools.lru_cache(maxsize=4096)
def _rounded_std(level: float, a: float, b: float) -> float:
    x = float(srgb_to_linear(torch.tensor(min(max(level, 0.0), 1.0), dtype=torch.float64)))
    codes = torch.arange(256, dtype=torch.float64)
    # code j is what a linear value in [edge_j, edge_(j+1)) becomes; below the first edge 0, above the last 255
    edges = srgb_to_linear((codes[1:] - 0.5) / 255)
    photons = x / a if a > 0 else 0.0
    if a > 0 and 0 < photons <= _POISSON_SUMMED:
        width = 12 * math.sqrt(photons) + 12
        counts = torch.arange(max(0, math.floor(photons - width)), math.ceil(photons + width) + 1, dtype=torch.float64)
        log_p = counts * math.log(photons) - photons - torch.lgamma(counts + 1)
        weights, means, spread = torch.softmax(log_p, 0), a * counts, math.sqrt(b)
    else:  # no photons, or so many that the Poisson law is Gaussian
        weights, means = torch.ones(1, dtype=torch.float64), torch.tensor([x], dtype=torch.float64)
        spread = math.sqrt(b + a * x)
    if spread > 0:
        below = torch.special.ndtr((edges[None, :] - means[:, None]) / spread)
    else:
        below = (means[:, None] < edges[None, :]).double()
    below = weights @ below  # P(value < edge_j)
    p = torch.diff(below, prepend=torch.zeros(1, dtype=torch.float64), append=torch.ones(1, dtype=torch.float64))
    values = codes / 255
    mean = float((p * values).sum())
    return math.sqrt(max(float((p * (values - mean) ** 2).sum()), 0.0))


@functools.lru_cache(maxsize=256)
def camera_noise_for_sigma(sigma: float, codec: str = "h264", crf: int = 23) -> CameraNoise:
    """The camera noise of `make_noise("camera", σ)`: std σ on mid-grey before the codec ([0, 1] scale).

    Half the variance from shot and half from read noise at mid-grey in linear light, as
    "poisson-gaussian" splits it, scaled so that `camera_noise_std` on mid-grey is σ; no channel spread
    or colour mixing, so that σ means the same in every channel. Below 0.5/255 the rounding of mid-grey
    (127.5 codes) is all there is, and the std stays there."""
    s = check_sigma(sigma)
    if s == 0:
        return CameraNoise(a=0.0, b=0.0, spread=0.0, mix=0.0, codec=codec, crf=crf)
    x = float(srgb_to_linear(torch.tensor(MID_GREY, dtype=torch.float64)))
    slope = 1.055 / 2.4 * x ** (1 / 2.4 - 1)  # of the sRGB gamma at x
    variance = (s / slope) ** 2  # in linear light, to first order
    a, b = variance / (2 * x), variance / 2

    def std(t: float) -> float:
        return _rounded_std(MID_GREY, t * a, t * b)

    low, high = 0.0, 1.0
    while std(high) < s:
        if high >= 2**20:  # the std approaches 127.5/255 (half the codes 0, half 255) and never gets there
            raise VideodenoiseError(
                f"camera noise reaches at most std {std(high):.3g} ({std(high) * 255:.4g}/255) on mid-grey; got "
                f"sigma={s:.4g} ({s * 255:.4g}/255): use a smaller sigma or gamma."
            )
        low, high = high, 2 * high
    for _ in range(60):  # the std grows with the scale t: bisection
        middle = (low + high) / 2
        low, high = (middle, high) if std(middle) < s else (low, middle)
    t = high if abs(std(high) - s) <= abs(std(low) - s) else low
    return CameraNoise(a=t * a, b=t * b, spread=0.0, mix=0.0, codec=codec, crf=crf)

"""Undo the bias a camera's gamma leaves, under `--sigma auto` (`DenoiseSettings.camera_bias`, on by default).

A camera makes its noise in linear light: a pixel of linear value x is stored as g(clip(x + n, 0, 1)), n of
variance a·x + b (shot and read noise), g the sRGB gamma. g is concave, so the noisy values' mean

    m(x) = E[g(clip(x + n, 0, 1))]

sits under g(x) in the mid-tones (Jensen's inequality: about −0.7 σ²/(y + 0.055) at sRGB value y, for an sRGB
noise std σ; 5-7 levels in the shadows of low-light footage). Fusion and the model return that mean, and the
clipping's correction (`videodenoise.denoise.clipping`) undoes only a clip of the stored values. Here the
output v before that correction is mapped through m⁻¹, where that raises it: max(m⁻¹(v) − v, 0) is added to
the corrected output. Where m⁻¹ would lower a value (the clip at 0, near black) the clipping's correction
keeps the say: (a, b) are read after the codec, which takes most noise from the shadows, so b comes out low
and m⁻¹ there lowers too little or raises (benchmarks/results/camera-gamma/README.md).

Two things are read off the video, once, on its first frame that can tell: the first whose mid-tones hold
MIN_SHARE of its values in bins S is read from, bins with noise (a fade from black waits until the picture is up,
a noise-free title card until the footage; the frames before it are left as the clipping's correction leaves
them; a video with none in its first MAX_WAIT frames is left without the step):

* whether its noise is a bent Gaussian at all: noise added to the stored values (the Gaussian benchmark's, or
  what a σ told by hand means) is symmetric, a gamma's is skewed. S is the least-squares ratio, over bins of
  the output's value in the mid-tones, of the residual's (noisy − output) third central moment to the 6·δ·σ²
  that a gamma's bias δ = −0.7 σ²/(y + 0.055) implies for a second-order bent Gaussian; the correction is made
  only when S > SKEW_THRESHOLD (Gaussian noise: |S| ≤ 0.05 at σ ≥ 10 on the validation clips; camera noise
  after H.264: 0.0-1.7, a codec's averaging shrinking the skew before the bias); the bins are kept 3σ from black and
  from white, whose clipping skews any noise;
* (a, b) per channel: the grid point whose std of g(clip(x + n, 0, 1)), at the x whose mean is each bin's
  value, best matches the noise level function's σ there times CODEC_LIFT (least squares on log σ², weighted by
  the frame's histogram): σ auto measures the noise after the codec, which smoothed what the gamma bent, and reads
  it low in the shadows, where the camera clipped it, codec or not.

Once the step is made, the clipping's correction reads the curve × CODEC_LIFT too (LIFT_CLIPPING): the camera
clipped its noise before the codec smoothed it. So the clipping's correction of each output waits for the decision:
per output `decide` (which returns the curve it reads), the clipping's correction, then `undo`.
"""

from __future__ import annotations

import collections
import functools
from collections.abc import Callable, Iterable, Iterator

import numpy as np
import torch

from videodenoise.noise.camera import linear_to_srgb, srgb_to_linear
from videodenoise.noise.noise_level_function import NoiseLevelFunction

SKEW_THRESHOLD = 0.15
NOISE_FLOOR = 1 / 255  # a level: less is 8 bits' rounding (0.29 of a level), not noise
MIN_SHARE = 0.05  # every clip measured on is read from ≥ 0.12 of its first frame (camera-gamma/first_frame_share.log)
# frames a video may take to show one that can tell (5 s at 25 fps: a fade, a title card), after which the step is
# off: the test costs 5 ms a 320×240 frame and 0.14 s a 1920×1080 one (about 4 % of `clean`), and noise-free or
# night footage, which never tells, would pay it on every frame
MAX_WAIT = 125
# the fit reads σ auto's curve times this: the noise the gamma bent was larger before the codec smoothed it; chosen on
# the validation clips by a rule fixed before the run, 1.4 kept out by a loss as taken (benchmarks/results/codec-lift).
# It serves footage no codec touched too (noise that looks white): there the curve without it lost up to 0.37 dB in
# the dark, σ auto reading clipped shadows low (benchmarks/results/white-lift)
CODEC_LIFT = 1.2
# where the step is made, the clipping's correction reads the curve × CODEC_LIFT too: the camera clipped its noise
# before the codec smoothed it; chosen on the validation clips by a rule fixed before the run
# (benchmarks/results/clipping-lift); off, today's output before it
LIFT_CLIPPING = True
VALUES = np.linspace(0, 1, 257)  # the sRGB values x of the tables
SHOTS = np.concatenate([[0.0], np.geomspace(1e-6, 0.1, 30)])  # a: none, a phone in daylight, past low light (0.02)
READS = np.concatenate([[0.0], np.geomspace(1e-7, 1e-2, 25)])  # b
SKEW_BINS, FIT_BINS, INVERSE_STEPS = 32, 48, 1024


def linear_noise_moments(shot: np.ndarray, read: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and variance of g(clip(x + n, 0, 1)), n ~ N(0, a·x + b) in linear light, at each sRGB value x of
    VALUES (last axis), for a and b broadcast against each other. By the rectangle rule over ±5 std (81 nodes):
    the clip makes the integrand kinked, where Gauss-Hermite's nodes were 0.4 of a level off. The mean is made
    non-decreasing in x, for its inverse."""
    nodes = np.linspace(-5, 5, 81)
    weights = np.exp(-0.5 * nodes**2)
    weights /= weights.sum()
    linear = srgb_to_linear(torch.from_numpy(VALUES)).numpy()
    std = np.sqrt(np.asarray(shot)[..., None] * linear + np.asarray(read)[..., None])
    noisy = torch.from_numpy(np.clip(linear[..., None] + std[..., None] * nodes, 0, 1))
    samples = linear_to_srgb(noisy).numpy()
    mean = samples @ weights
    variance = np.square(samples - mean[..., None]) @ weights
    return np.maximum.accumulate(mean, axis=-1), variance


@functools.cache
def _grid() -> tuple[np.ndarray, np.ndarray]:
    """linear_noise_moments over SHOTS × READS: (31, 26, len(VALUES)) each, computed once, when first needed."""
    parts = [linear_noise_moments(np.full(len(READS), shot), READS) for shot in SHOTS]
    return np.stack([mean for mean, _ in parts]), np.stack([variance for _, variance in parts])


def fit_shot_read(values: np.ndarray, sigmas: np.ndarray, weights: np.ndarray) -> tuple[float, float]:
    """The grid's (a, b) whose noisy std, at the x whose noisy mean is each of `values`, best matches `sigmas`
    (least squares on log σ², weighted)."""
    means, variances = _grid()
    target = np.log(np.square(sigmas) + 1e-9)
    best, found = np.inf, (0, 0)
    for i in range(len(SHOTS)):
        for j in range(len(READS)):
            model = np.interp(np.interp(values, means[i, j], VALUES), VALUES, variances[i, j])
            error = float(weights @ np.square(np.log(model + 1e-9) - target))
            if error < best:
                best, found = error, (i, j)
    return float(SHOTS[found[0]]), float(READS[found[1]])


def skew_ratio(noisy: torch.Tensor, output: torch.Tensor) -> tuple[float, float]:
    """S for one (C, H, W) frame and its denoised output (before the clipping's correction): the residual's
    third moment per bin of the output's value against a gamma's 6·δ·σ², over the mid-tones (see the module
    docstring), 0 where no bin qualifies; and the share of the frame's values in the bins it was read from (none
    where the frame carries no noise: a title card before the footage cannot tell)."""
    num = den = read = 0.0
    centres = (torch.arange(SKEW_BINS, dtype=torch.float64) + 0.5) / SKEW_BINS
    for value, residual in zip(output.double().cpu(), (noisy - output).double().cpu()):
        index = (value * SKEW_BINS).long().clamp_(0, SKEW_BINS - 1).flatten()
        residual = residual.flatten()
        count = torch.bincount(index, minlength=SKEW_BINS).double()
        per_bin = count.clamp(min=1)
        centred = residual - (torch.bincount(index, residual, SKEW_BINS) / per_bin)[index]
        variance = torch.bincount(index, centred**2, SKEW_BINS) / per_bin
        third = torch.bincount(index, centred**3, SKEW_BINS) / per_bin
        # mid-tones with samples and noise, far enough from black and from white that clipping's own skew is not in
        # them: noise clipped at white is skewed as a gamma skews it (Gaussian σ = 50 read S = 0.18-0.27 on the
        # validation clips, and the step then cost up to 8 dB held out; benchmarks/results/white-clip-skew)
        usable = (centres > 0.1) & (centres < 0.8) & (count > 500) & (variance > NOISE_FLOOR**2)
        usable &= (3 * variance.sqrt() < centres) & (centres + 3 * variance.sqrt() < 1)
        predicted = 6 * (-0.7 * variance / (centres + 0.055)) * variance
        num += float((count * third * predicted)[usable].sum())
        den += float((count * predicted**2)[usable].sum())
        read += float(count[usable].sum())
    return (num / den if den > 0 else 0.0), read / output.numel()


def gamma_bias(sigma, on_fitted: Callable[[GammaBias], None] | None = None) -> GammaBias | None:
    """The correction for a video whose noise is `sigma`, or None: only for a curve measured across intensities
    (σ auto's), never for one σ, nor for the constant function calibration makes of a σ told by hand."""
    return GammaBias(sigma, on_fitted) if isinstance(sigma, NoiseLevelFunction) and len(sigma.knots) > 1 else None


class GammaBias:
    """The correction for one video under σ auto, decided and fitted on its first frame that can tell: each
    output `decide` sees is paired with the noisy frame `watching` passed on in the same place, until one decides;
    on_fitted(self) is called then if the correction is made (`describe` says how, for `clean`'s report). Per
    output, in order: `decide`, then the clipping's correction with the curve it returns, then `undo`."""

    def __init__(self, function: NoiseLevelFunction, on_fitted: Callable[[GammaBias], None] | None = None):
        self.function, self.on_fitted = function, on_fitted
        self.lifted = function.scaled(CODEC_LIFT)  # the noise as the camera made it: what the fit reads
        self.clipped = function  # the curve the clipping's correction reads (`decide`): `lifted` once the step is made
        # the noisy frames passed on and not yet undone, until the decision: as many as the stream reads ahead
        self.waiting: collections.deque[torch.Tensor] = collections.deque()
        self.lift: torch.Tensor | None = None  # (C, INVERSE_STEPS + 1): m⁻¹(v) − v, at least 0; empty: off
        self.skew = self.shots = self.reads = None
        self.frame = 0  # the frame (from 0) that decided, once one has

    @property
    def decided(self) -> bool:
        """Whether a frame has told (or MAX_WAIT frames have not), so that the step is made or off for good."""
        return self.lift is not None

    def decision(self) -> dict | None:
        """What was decided, as JSON holds it (None: not yet), for `restore` in a later run over the same video and
        options (a resumed `clean`, `videodenoise.io.pieces`), which then need not denoise the frames up to it again."""
        if self.lift is None:
            return None
        if not len(self.lift):
            return {"frame": self.frame, "made": False}
        return {"frame": self.frame, "made": True, "skew": self.skew, "shots": self.shots, "reads": self.reads}

    def restore(self, decision: dict) -> None:
        """Take up what `decision` recorded, as if this run's frames had decided it (on_fitted is called if the step
        is made)."""
        self.frame, self.waiting = decision["frame"], collections.deque()
        if not decision["made"]:
            self.lift = torch.empty(0)
            return
        self.skew, self.shots, self.reads = decision["skew"], list(decision["shots"]), list(decision["reads"])
        self.lift = self._table()
        if LIFT_CLIPPING:
            self.clipped = self.lifted
        if self.on_fitted is not None:
            self.on_fitted(self)

    def watching(self, frames: Iterable[torch.Tensor]) -> Iterator[torch.Tensor]:
        """The noisy frames as they come, kept until the decision."""
        for frame in frames:
            if self.lift is None:
                self.waiting.append(frame)
            yield frame

    def describe(self) -> str:
        """One line: what the deciding frame said and what was fitted (once `decide` has made the step)."""
        shots, reads = (", ".join(f"{value:.2g}" for value in values) for values in (self.shots, self.reads))
        where = f", read on frame {self.frame + 1}, the first with noisy picture enough to tell" if self.frame else ""
        if self.function.gamma_fit is not None:
            where = ", read and fitted on frames denoised told the curve as estimated"
        lifted = ""
        if CODEC_LIFT != 1:  # what the fit (and, where it is lifted, the clipping's correction) read
            lifted = f" × {CODEC_LIFT:g}, the noise as the camera made it (σ auto reads it low after a codec and where"
            lifted += " clipped)"
            lifted += ", which the clipping's correction reads too" if self.clipped is not self.function else ""
        return (
            f"noise skewed as a camera's gamma skews it (S = {self.skew:.2f}{where}): its bias undone, for shot "
            f"noise a = {shots} and read noise b = {reads} in linear light, per channel, fitted to the curve{lifted}"
        )

    def decide(self, output: torch.Tensor) -> NoiseLevelFunction:
        """Decide on this output (a (C, H, W) denoised frame before the clipping's correction) if no frame has yet;
        return the curve the clipping's correction of it reads: × CODEC_LIFT once the step is made (and
        LIFT_CLIPPING), the curve as measured otherwise."""
        if self.lift is None:
            noisy = self.waiting.popleft()
            self.lift = self._fit(noisy, output) if self.function.gamma_fit is None else self._carried()
            if self.lift is None:  # too little picture to tell (black, a fade): the next frame decides
                self.frame += 1
                if self.frame == MAX_WAIT:  # none tells (noise-free, night footage): off, nothing kept
                    self.lift = torch.empty(0)
                    self.waiting.clear()
                return self.clipped
            self.waiting.clear()
            if len(self.lift) and LIFT_CLIPPING:
                self.clipped = self.lifted
            if len(self.lift) and self.on_fitted is not None:
                self.on_fitted(self)
        return self.clipped

    def undo(self, output: torch.Tensor, corrected: torch.Tensor) -> torch.Tensor:
        """`corrected` (the output with the clipping's bias undone, or the output itself without that step) raised
        where the gamma's bias is undone; output: the (C, H, W) denoised frame `decide` last saw."""
        if self.lift is None or not len(self.lift):
            return corrected
        position = output.clamp(0, 1) * INVERSE_STEPS
        below = position.floor().clamp_(max=INVERSE_STEPS - 1)
        fraction = position - below
        channel = torch.arange(len(self.lift), device=below.device).view(-1, 1, 1)
        index = below.long() + channel * (INVERSE_STEPS + 1)
        table = self.lift.to(output.device, output.dtype).flatten()  # a restored decision's is on the CPU
        return (corrected + torch.lerp(table[index], table[index + 1], fraction)).clamp_(0, 1)

    def _fit(self, noisy: torch.Tensor, output: torch.Tensor) -> torch.Tensor | None:
        """The lift table, empty if the noise is not a gamma's, None if this frame cannot tell."""
        self.skew, share = skew_ratio(noisy, output)
        if share < MIN_SHARE:
            return None
        if self.skew <= SKEW_THRESHOLD:
            return torch.empty(0)
        knots, curves = np.asarray(self.lifted.knots), np.asarray(self.lifted.sigmas)
        centres = (np.arange(FIT_BINS) + 0.5) / FIT_BINS
        self.shots, self.reads = [], []
        for channel, value in enumerate(output.double().cpu().numpy()):
            count = np.bincount(np.minimum((value * FIT_BINS).astype(np.int64), FIT_BINS - 1).ravel(), None, FIT_BINS)
            usable = (count > value.size / 256) & (centres > 0.03) & (centres < 0.95)
            curve = curves[channel if len(curves) > 1 else 0]
            shot, read = fit_shot_read(centres[usable], np.interp(centres[usable], knots, curve), count[usable])
            self.shots.append(shot)
            self.reads.append(read)
        return self._table()

    def _carried(self) -> torch.Tensor:
        """The lift table of the step a pass told the curve as estimated made (the function's `gamma_fit`)."""
        self.skew, shots, reads = self.function.gamma_fit
        self.shots, self.reads = list(shots), list(reads)
        return self._table()

    def _table(self) -> torch.Tensor:
        """Per channel, m⁻¹(v) − v (at least 0) on INVERSE_STEPS + 1 values v, for the fitted shots and reads."""
        means, steps, lifts = _grid()[0], np.linspace(0, 1, INVERSE_STEPS + 1), []
        for shot, read in zip(self.shots, self.reads):
            mean = means[np.searchsorted(SHOTS, shot), np.searchsorted(READS, read)]
            lifts.append(np.maximum(np.interp(steps, mean, VALUES) - steps, 0))
        return torch.from_numpy(np.stack(lifts)).float()

"""The Denoiser: a trained model applied to frames of any size and length, streaming.

    denoiser = Denoiser.from_preset("fast")                           # clean's defaults: fusion first
    clean = denoiser.denoise_clip(noisy_clip, sigma=25 / 255)         # (T, C, H, W) in memory
    for frame in denoiser.denoise_frames(frames, sigma):              # a stream, a few windows held
        ...

Nothing here adds noise. σ is always on the [0, 1] scale in this module (the CLI takes 0-255). Files
go through `videodenoise.denoise.pipeline`; the settings are `videodenoise.denoise.settings`.

How a video is processed, and why:

* Time. Frames stream from the reader into a buffer of a few windows. Each model call sees a window of
  `window` frames (default 5, the training clip length) and keeps `stride` of them, the centre ones:
  stride = 1 is the textbook sliding window (window× the compute), stride = window disjoint windows (1×,
  but a frame at a window's edge sees neighbours on one side only). Without fusion the default keeps the
  centre 3 (5/3×; with a briefly trained DUST the three differ by < 0.1 dB: benchmarks/bench_clean.py, part
  2). Windows past either end are reflected (frame −1 is frame 1, frame n is n − 2), so the output has
  exactly one frame per input frame, a one-frame video included. A model attending over aligned frames gets
  distinct frames, its windows moved inside the video (the whole of a shorter one; the last keeps all it can):
  it would average a repeated frame's noise as another frame's (benchmarks/results/ablation-observation). Only
  the kept frames are denoised (and their flows computed), each against the whole window (`forward(sources=)`):
  exact, as a frame's estimate needs only its own row of warped frames. By default the centre one is kept.
* Motion. With `fusion` (the CLI's default; `videodenoise.denoise.fusion`), every frame is first averaged with
  its neighbours (2 each side) aligned to it by optical flow, pixel by pixel where they agree, and a
  noise-conditional model is then told the σ left at each pixel: the video's redundancy is used here (about
  1.2 dB at σ = 25 on the quality benchmark's held-out clips), as the models' temporal attention sees the
  same patch location in the other frames, which shows something else once the camera moves. Fusion
  streams too, reading `radius` frames ahead. `passes=2`: the second pass's fusion reads its flow and weights
  off a first pass's output (run a few windows ahead). `scales=2`: the frames halved are denoised beside them
  for the low frequencies (`denoise.scales`). `wiener`: the output is a Wiener filter's pilot (`denoise.wiener`).
* Space. A frame larger than `tile` pixels a side is cut into overlapping tiles. Tiles start on the
  model's patch grid, so they cut the same patches the whole frame does; farther than the model's
  reach (its margin: p − 1 pixels, plus a neighbourhood radius per layer for spatio-temporal token
  sets) from a tile edge a tile's estimate equals the whole frame's. Each tile's blend weight is
  zero within the margin of an edge it shares with another tile and rises with a raised cosine
  across the rest of the overlap. Tiled and untiled outputs of DUST and UT agree to float rounding,
  and model activations never exceed one tile's.
* Colour. A grey model denoises a colour video in opponent colours (`videodenoise.colour`), each channel as a grey
  clip: with a trained grey DUST this beat denoising R, G and B separately by 0.6-1.9 dB on four clips at σ = 10, 25
  and 50 (`colour="rgb"` keeps that option). A colour model on a grey video gets the grey frame in all three
  channels, is told the video's σ, and its output is averaged back to grey (telling it √3·σ, the noise along the
  luminance axis, measured 0.4-0.5 dB worse with an untrained colour DUST).
* Noise level. A model trained at σ_train (checkpoint metadata) is applied at another σ by noise-level rescaling: x̂
  = c + s·(f((y − c)/s + ½) − ½), s = σ/σ_train, c the channel's mid-grey, so the input has the noise the model
  knows; nearly exact for a denoiser scale-equivariant up to the mean (DUST: 1.5-3.5 dB over applying it unchanged
  at σ = 10 and 50, trained at 25). `scaling="none"` applies the model as trained. A noise-conditional checkpoint
  (metadata `sigma_range`, the default one: a DUST trained over σ in [0, 55]/255 whose thresholds scale with the σ
  it is told) is told σ and sees the frames unscaled while σ lies in its range, and is rescaled only down to the
  range's top above it: light noise, the commonest, is never blown up (rescaled, a clean video came back at 34.5 dB
  against itself; 46-80 dB now).
* Noise that depends on intensity. Real footage's noise grows and shrinks with intensity and differs by channel;
  `sigma="auto"` estimates its noise level function (`videodenoise.noise.estimation`: from motion-aligned
  differences of consecutive frames, at the pixel level a codec leaves it), and σ may be given as one
  (`NoiseLevelFunction`). Each frame's map of σ comes from its own intensities, is what fusion starts from, and what
  the model is told; where one σ is needed (the rescaling above) it is the function's level, the RMS of its map over
  the frames it was estimated on, one number for the whole video so that the rescaling does not change from window
  to window. In opponent colours, channel k of independent R, G, B noise has σ_k² = Σ_c O[k, c]²·σ_c²; a colour
  model is told the RMS over R, G and B (it takes one map).
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import torch
import torch.nn as nn

from videodenoise.colour import OPPONENT, opponent_sigma
from videodenoise.denoise import camera_bias, clipping
from videodenoise.denoise.calibration import calibrate_told_scale, calibrates, calibration_span
from videodenoise.denoise.fusion import MotionFusion, clip_coordinates, warp_frames
from videodenoise.denoise.scales import two_scales
from videodenoise.denoise.settings import MIRRORS, PRESET_WEIGHTS, DenoiseSettings, preset
from videodenoise.denoise.tiling import blend_tiles, mirror, mirror_coordinates, model_margin, round_up, window_frames
from videodenoise.denoise.wiener import wiener_refine
from videodenoise.devices import autocast, distributed_environment, resolve_device, resolve_precision
from videodenoise.errors import DenoiseError, VideoReadError
from videodenoise.io.frames import check_clip_frames
from videodenoise.models.checkpoints import (
    load_checkpoint,
    read_sigma_range,
    read_sigma_train,
    resolve_checkpoint,
    shipped_checkpoint,
)
from videodenoise.noise.estimation import estimate_clip_noise
from videodenoise.noise.levels import DEFAULT_SIGMA_TRAIN, check_sigma
from videodenoise.noise.noise_level_function import NoiseLevelFunction, scaled_sigma

FLAT = 1e-6  # a clip whose values span no more is flat (the opponent transform of a grey picture leaves 3e-8)


class Denoiser:
    """A model on a device, with everything needed to apply it to frames of any size and length.

    model: any module mapping (B, T, C, H, W) in [0, 1] to its estimate (DUST, UT, or your own).
    sigma_train: the noise level the model was trained at ([0, 1] scale); from the checkpoint's metadata with
    `from_checkpoint`, else the DUST config's σ, else 25/255. settings: how to apply it (`DenoiseSettings`: windows,
    tiles, colour, fusion, device; its fields say what each does); `PRESETS["fast"]` is what `clean` runs.
    sigma_range: (low, high), the noise levels a noise-conditional model was trained over (checkpoint
    metadata): inside it the model is told σ and applied to the frames as they are; above it the
    frames are rescaled to `high` (see the module notes). None: a model trained at σ_train only.
    """

    def __init__(
        self,
        model: nn.Module,
        settings: DenoiseSettings = DenoiseSettings(),
        sigma_train: float | None = None,
        sigma_range: tuple[float, float] | None = None,
    ):
        self.settings = settings
        self.device = resolve_device(settings.device, distributed_environment()[2])
        if settings.patch_stride is not None:
            config = getattr(model, "config", None)
            if not dataclasses.is_dataclass(config) or not hasattr(config, "stride"):
                raise DenoiseError("patch_stride needs a DUST or UT model (one with a patch config)")
            if not 1 <= settings.patch_stride <= config.patch_size:
                raise DenoiseError(
                    f"patch_stride must be between 1 and the patch size {config.patch_size}, "
                    f"got {settings.patch_stride}"
                )
            model.config = dataclasses.replace(config, stride=int(settings.patch_stride))
        self.dtype = resolve_precision(settings.precision, self.device)
        self.model = model.to(self.device).eval()
        config = getattr(model, "config", None)
        self.channels = int(getattr(config, "channels", 1))
        if sigma_train is None:
            sigma_train = getattr(config, "sigma", None)
        self.sigma_train = float(sigma_train if sigma_train is not None else DEFAULT_SIGMA_TRAIN)
        if not self.sigma_train > 0:
            raise DenoiseError(f"sigma_train must be positive, got {sigma_train}")
        self.aligns = bool(getattr(model, "attends_aligned", False))  # any module may be a model here
        self.window, self.stride = settings.window, settings.frames_kept(self.aligns)
        self.scaling, self.colour = settings.scaling, settings.colour
        if sigma_range is not None and not getattr(model, "noise_conditional", False):
            raise DenoiseError(
                "this model is not noise-conditional; a sigma_range needs a DUST or a UT with the proximal step"
            )
        self.sigma_range = None if sigma_range is None else (float(sigma_range[0]), float(sigma_range[1]))
        self.margin, self.align = model_margin(model)
        overlap = settings.overlap
        if overlap is None:
            overlap = round_up(2 * self.margin + 16, self.align)
        if overlap < 2 * self.margin + 1:
            raise DenoiseError(
                f"a tile overlap of {overlap} px is too small for this model: it needs at least "
                f"{2 * self.margin + 1} px (twice its {self.margin} px reach past a tile edge, plus one)"
            )
        self.overlap = int(overlap)
        tile = settings.tile
        if tile and tile < 2 * self.overlap:
            raise DenoiseError(
                f"tiles of {tile} px are too small for an overlap of {self.overlap} px; "
                f"use --tile {2 * self.overlap} or more (or 0 for whole frames)"
            )
        self.tile = int(tile) if tile else None
        self.fusion = None if settings.fusion is None else MotionFusion(settings.fusion)
        self.checkpoint: Path | None = None
        self._weights: dict[tuple[int, int], tuple[list, torch.Tensor]] = {}
        # a first pass at another patch stride: the same weights (a shallow copy shares them), its own stride
        one_scale = dataclasses.replace(settings, scales=1, wiener=False)  # a first pass's, and the half size's
        guide_stride = settings.guide_patch_stride if settings.passes == 2 else None
        self._guide = None
        if guide_stride is not None and not guide_stride <= getattr(config, "patch_size", guide_stride):
            raise DenoiseError(
                f"guide_patch_stride must be between 1 and the patch size {config.patch_size}, got {guide_stride}"
            )
        if guide_stride is not None and guide_stride != getattr(config, "stride", guide_stride):
            one_pass = dataclasses.replace(one_scale, patch_stride=guide_stride, passes=1, guide_patch_stride=None)
            self._guide = Denoiser(copy.copy(model), one_pass, sigma_train, sigma_range)
        self._coarse = Denoiser(model, one_scale, sigma_train, sigma_range) if settings.scales == 2 else None

    @classmethod
    def from_checkpoint(
        cls, path: str | os.PathLike | None = None, settings: DenoiseSettings = DenoiseSettings()
    ) -> Denoiser:
        """A denoiser for a weights file or run folder (default: the shipped checkpoint), checked
        first: finite weights, valid sigma_train and sigma_range, or a one-line error naming the file."""
        path = resolve_checkpoint(path)
        model, metadata = load_checkpoint(path)
        denoiser = cls(
            model, settings, sigma_train=read_sigma_train(metadata, path), sigma_range=read_sigma_range(metadata, path)
        )
        denoiser.checkpoint = path
        return denoiser

    @classmethod
    def from_preset(
        cls, name: str = "fast", path: str | os.PathLike | None = None, settings: DenoiseSettings | None = None
    ) -> Denoiser:
        """The denoiser `clean --quality NAME` builds: the preset's settings (or `settings`) applying its
        shipped weights (or the weights file or run folder `path`)."""
        named = preset(name)  # a one-line error for an unknown name, whatever else is given
        return cls.from_checkpoint(path or shipped_checkpoint(PRESET_WEIGHTS[name]), settings or named)

    # ---- whole clips in memory -------------------------------------------------------------------
    def denoise_clip(
        self,
        clip: torch.Tensor,
        sigma: float | NoiseLevelFunction | str | None = None,
        guides: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Denoise a (T, C, H, W) clip in [0, 1] with C = 1 or 3; returns the same shape, float32.
        sigma: as for `denoise_frames`, or "auto" to estimate the clip's noise level function first; with
        `settings.calibrate` (or `calibrate_dark` and a dark clip), the told scale is then chosen on frames from the
        clip's middle. guides: as for `denoise_frames`, a (T, C, H, W) clip."""
        check_clip_frames(clip)
        if guides is not None and guides.shape != clip.shape:
            raise DenoiseError(f"the guides must have the clip's shape {tuple(clip.shape)}, got {tuple(guides.shape)}")
        sigma = estimate_clip_noise(clip, coarse=self._coarse is not None) if sigma == "auto" else sigma
        sigma = scaled_sigma(sigma, self.settings.sigma_scale)
        if calibrates(self.settings, sigma):
            start, count = calibration_span(len(clip))
            sigma = calibrate_told_scale(self, clip[start : start + count], sigma)
        return torch.stack(list(self.denoise_frames(clip, sigma, guides)))

    # ---- streams ---------------------------------------------------------------------------------
    def denoise_frames(
        self,
        frames: Iterable[torch.Tensor],
        sigma: float | NoiseLevelFunction | None = None,
        guides: Iterable[torch.Tensor] | None = None,
        on_camera_bias: Callable[[camera_bias.GammaBias], None] | None = None,
        gamma: camera_bias.GammaBias | None = None,
    ) -> Iterator[torch.Tensor]:
        """Yield one denoised (C, H, W) frame per input frame, in order, holding only a few windows.

        sigma: the noise level of the frames ([0, 1] scale), one σ or a `NoiseLevelFunction` (each
        frame's map of σ read from its own intensities); None applies the model as trained. guides: one
        nearly noise-free frame per frame (a first pass's output) that fusion reads its flow and weights
        from (`MotionFusion.stream`); needs fusion. Without guides and with `settings.passes` = 2 they are
        a first pass's output over the same frames, streamed a few windows ahead of the second pass. With
        `settings.scales` = 2 the frames halved stream beside them (`videodenoise.denoise.scales`), and with
        `settings.wiener` the output is refined by `wiener_refine`, the noisy frames held until it reads them.
        Last, the bias the noise's clipping at 0 and 1 left is undone (`videodenoise.denoise.clipping`), with
        the σ told or each pixel's σ read from the noise level function; with a function measured across
        intensities and `settings.camera_bias`, also a camera gamma's where the noise of the first frame with
        enough picture is skewed as a gamma skews it (`videodenoise.denoise.camera_bias`; on_camera_bias(the
        `GammaBias`) once it is fitted), the clipping's correction then reading the noise before the codec. gamma: that
        correction to go on with (a resumed run's, decided on the video's first frames; undecided: on these)."""
        gamma = gamma or (camera_bias.gamma_bias(sigma, on_camera_bias) if self.settings.camera_bias else None)
        out = self._stream(frames if gamma is None else gamma.watching(frames), sigma, guides)
        if sigma is None or not (self.settings.unclip or gamma):
            yield from out
            return
        for frame in out:
            noise = sigma if gamma is None else gamma.decide(frame)  # the noise the clipping happened under
            corrected = clipping.unclip(frame, clipping.clipped_sigma(noise, frame)) if self.settings.unclip else frame
            yield corrected if gamma is None else gamma.undo(frame, corrected)

    def _stream(self, frames, sigma, guides=None) -> Iterator[torch.Tensor]:
        """`denoise_frames` up to the clipping's bias (what the half size of two scales hands on)."""
        frames, noisy = itertools.tee(frames) if self.settings.wiener else (frames, None)
        if self._coarse is None:
            out = self._passes(frames, sigma, guides)
        else:  # the guides steer the full size; the half size makes its own
            out = two_scales(lambda f, s: self._passes(f, s, guides), self._coarse._stream, frames, sigma)
        stride, flow = self.settings.wiener_stride, self.settings.wiener_flow
        yield from out if noisy is None else wiener_refine(noisy, out, sigma, self.device, stride, flow)

    def _passes(self, frames, sigma, guides) -> Iterator[torch.Tensor]:
        """`denoise_frames` at one scale."""
        if self.settings.passes == 2 and guides is None:
            frames, ahead = itertools.tee(frames)  # holds the frames the first pass has read and the second not
            guides = (self._guide or self)._one_pass(ahead, sigma, None)
        yield from self._one_pass(frames, sigma, guides)

    def _one_pass(self, frames: Iterable[torch.Tensor], sigma, guides: Iterable | None) -> Iterator[torch.Tensor]:
        """`denoise_frames` with the guides given (or none)."""
        if guides is not None and self.fusion is None:
            raise DenoiseError("guides steer motion fusion, which is off: turn fusion on or leave the guides out")
        function = sigma if isinstance(sigma, NoiseLevelFunction) else None
        grain = function.told_factors if function is not None else ()
        if function is not None:
            sigma = function.told_level
        sigma = None if sigma is None else check_sigma(sigma, error=DenoiseError, unit_scale=True)
        if self.fusion is not None:
            if sigma is None:
                raise DenoiseError("motion-compensated fusion needs the noise level: pass sigma (or 'auto')")
            # (fused frame, noise map) pairs from here on
            told = (sigma,) if function is None else (function, function.luminance_grain, function.carried)
            frames = self.fusion.stream(frames, *told, guides=guides)
        elif function is not None:
            frames = ((frame, function(frame)) for frame in frames)
        mapped = self.fusion is not None or function is not None
        size, before = self.window, (self.window - self.stride) // 2
        source, buffer = iter(frames), {}
        loaded, total = 0, None  # frames read so far; the frame count, once the source has ended

        def load_until(index: int) -> None:
            nonlocal loaded, total
            while total is None and loaded <= index:
                try:
                    buffer[loaded] = next(source)
                except StopIteration:
                    total = loaded
                    return
                loaded += 1

        first = 0  # first output frame of the current window
        while True:
            load_until(max(first - before, 0) + size - 1 + self.aligns)  # aligned: one ahead, to see the end
            if total == 0:
                raise VideoReadError("there are no frames to denoise")
            if total is not None and first >= total:
                return
            indices, start = window_frames(first, before, size, total, distinct=self.aligns)  # aligned: see above
            kept = min(self.stride, (total if total is not None else loaded) - first)
            if self.aligns and total is not None and indices[-1] == total - 1:
                kept = total - first  # the last window: the next would be moved inside the video onto this one
            if not mapped:
                yield from self.denoise_window(torch.stack([buffer[i] for i in indices]), sigma, start, kept)
            else:
                clip, noise_map = (torch.stack(part) for part in zip(*(buffer[i] for i in indices)))
                yield from self.denoise_window(clip, sigma, start, kept, noise_map, grain)
            first += kept
            for index in [i for i in buffer if i < first - size]:
                del buffer[index]

    def denoise_window(
        self,
        clip: torch.Tensor,
        sigma: float | None,
        start: int = 0,
        count: int | None = None,
        noise_map: torch.Tensor | None = None,
        grain: tuple[float, ...] = (),
        mirrors: int | None = None,
    ) -> torch.Tensor:
        """Denoise a (T, C, H, W) window and return its frames [start, start + count) as (count, C, H, W).

        noise_map: None, or each pixel's σ, (T, H, W) for every channel alike or (T, C, H, W) per
        channel (`sigma` is the one level that sets the rescaling); a noise-conditional model is told
        it (in the channels it sees, see `_batch_noise`), any other model its root mean square.
        grain: the `NoiseLevelFunction.told_factors` the map is multiplied by in the channels the model sees.
        mirrors: how many mirror images to average (default: the settings')."""
        mirrors = self.settings.mirrors if mirrors is None else mirrors
        count = len(clip) - start if count is None else count
        frames, channels, height, width = clip.shape
        if channels not in (1, 3):
            raise DenoiseError(f"frames must have 1 (grey) or 3 (colour) channels, got {channels}")
        clip = clip.to(self.device, torch.float32)
        # the model's view of the clip: a batch of clips with the model's channel count, mid-grey `centre`
        if channels == self.channels:
            batch, centre = clip.unsqueeze(0), 0.5
        elif channels == 3 and self.colour == "rgb":  # grey model, colour video: each channel a grey clip
            batch, centre = clip.transpose(0, 1).unsqueeze(2), 0.5  # (3, T, 1, H, W)
        elif channels == 3:  # the same in opponent colours
            opponent = OPPONENT.to(self.device)
            batch = torch.einsum("oc,tchw->othw", opponent, clip).unsqueeze(2)
            centre = (0.5 * opponent.sum(dim=1)).view(3, 1, 1, 1, 1)
        else:  # colour model, grey video: the grey frame in all three channels
            batch, centre = clip.expand(-1, 3, -1, -1).unsqueeze(0), 0.5
        scale, model_sigma = self.scale_for(sigma)
        if noise_map is not None:
            noise_map = self._batch_noise(noise_map.to(self.device, torch.float32), channels, batch.shape[0], grain)
        if noise_map is not None and model_sigma is not None:  # the map, rescaled as the frames are
            model_sigma = noise_map / scale
        elif noise_map is not None:
            scale, _ = self.scale_for(float(noise_map.square().mean().sqrt()))
        # in place from the first new tensor on, and what the model no longer needs let go before it runs: at
        # 1920×1080 each of these is a window's worth (120 MB), and the peak memory is a handful of them
        model_input = batch.sub(centre).div_(scale).add_(0.5)
        del batch, noise_map
        # the model on each mirror image of the window, turned back and averaged (an aligned model: its flows mirrored)
        kept = range(start, start + count)  # an aligned model: the kept frames' flows only, once, mirrored below
        flows = clip_coordinates(clip.cpu(), self.settings.fusion, kept) if self.aligns else None
        estimate = None
        for axes in MIRRORS[:mirrors]:
            coordinates = None if flows is None else mirror_coordinates(flows, axes)
            seen = self._apply_tiled(mirror(model_input, axes), start, count, mirror(model_sigma, axes), coordinates)
            # not added in place: the first may be a view of model_input (a model that hands back its input)
            estimate = mirror(seen, axes) if estimate is None else estimate + mirror(seen, axes)
        del model_input, model_sigma
        estimate = estimate.div_(mirrors).sub_(0.5).mul_(scale).add_(centre)
        if channels == self.channels:
            out = estimate[0]
        elif channels == 3 and self.colour == "rgb":
            out = estimate[:, :, 0].transpose(0, 1)
        elif channels == 3:  # back to RGB: the transform is orthonormal, its inverse its transpose
            out = torch.einsum("oc,othw->tchw", opponent, estimate[:, :, 0])
        else:
            out = estimate[0].mean(dim=1, keepdim=True)
        if not bool(torch.isfinite(out).all()):
            source = f"'{self.checkpoint}'" if self.checkpoint else "the model"
            raise DenoiseError(
                f"{source} produced non-finite values (NaN or infinity) for frames {start}..{start + count - 1}; "
                "nothing was written for them: use another checkpoint"
            )
        return out.clamp_(0, 1).float().cpu()

    def _batch_noise(
        self, noise_map: torch.Tensor, channels: int, batch: int, grain: tuple[float, ...] = ()
    ) -> torch.Tensor:
        """A window's noise map, (T, H, W) or (T, C, H, W), as the (B, T, H, W) map of the clips the
        model sees (see `denoise_window`): per-channel σ go with their channels, into opponent colours
        as σ_k = √(Σ_c O[k, c]²·σ_c²) (independent noise in R, G and B), and as their RMS into a model
        that sees all channels of a pixel at once; then times the grain (per opponent channel, which is
        where it was measured; its RMS for a model that sees R, G and B)."""
        if noise_map.dim() == 3 or noise_map.shape[1] == 1:  # the same σ in every channel
            sigma_map = (noise_map if noise_map.dim() == 3 else noise_map[:, 0]).expand(batch, -1, -1, -1)
        elif channels == self.channels:  # a colour model: one map for the three channels of a pixel
            sigma_map = noise_map.square().mean(dim=1).sqrt().unsqueeze(0)
        elif self.colour == "rgb":
            sigma_map = noise_map.transpose(0, 1)
        else:
            sigma_map = opponent_sigma(noise_map).transpose(0, 1)
        if not grain:
            return sigma_map
        factors = torch.tensor(grain, device=sigma_map.device, dtype=sigma_map.dtype)
        opponent = channels == 3 and self.channels == 1 and self.colour != "rgb" and len(grain) == 3
        return sigma_map * (factors.view(-1, 1, 1, 1) if opponent else factors.square().mean().sqrt())

    def scale_for(self, sigma: float | None) -> tuple[float, float | None]:
        """(s, σ told to the model): frames are applied as (y − c)/s + ½, i.e. with noise σ/s.

        A noise-conditional model is told σ itself while σ lies in its training range, and the range's
        top above it (s = σ/high); any other model sees its σ_train (s = σ/σ_train). Never s < 1 for
        a noise-conditional model: light noise is what its range covers, with no input blown up."""
        if sigma is None or self.scaling == "none":
            return 1.0, None
        if self.sigma_range is not None:
            high = self.sigma_range[1]
            return (1.0, sigma) if sigma <= high else (sigma / high, high)
        # σ = 0: a noise-free input blown up 1000×, which the model all but keeps
        return max(sigma / self.sigma_train, 1e-3), None

    def describe_sigma(self, sigma: float | NoiseLevelFunction | None, how: str, frames: int | None = None) -> str:
        """One line saying what σ the model is applied with and how: `how` is "given", "estimated" or "none" (as
        `denoise_plan` reports it); frames: how many the video has, where known (one frame has no neighbours)."""
        function = sigma if isinstance(sigma, NoiseLevelFunction) else None
        told = "each pixel's σ" if function is not None else "σ"
        if self.sigma_range is not None:
            low, high = (v * 255 for v in self.sigma_range)
            trained = f"the model was trained over σ = {low:.3g}-{high:.3g} and is told {told}"
        else:
            trained = f"the model was trained at σ = {self.sigma_train * 255:.3g}"
        if sigma is None:
            return f"no σ given: the model is applied as trained ({trained})"
        level = function.told_level if function is not None else sigma
        scale, told_level = self.scale_for(level)
        rescale = "" if abs(scale - 1) < 1e-9 else f", rescaled to σ = {(told_level or self.sigma_train) * 255:.3g}"
        span = 2 * self.fusion.settings.radius + 1 if self.fusion is not None else self.window
        span = span if frames is None else min(span, frames)
        if (self.fusion is not None or self.aligns) and span == 1:
            rescale += "; one frame, so no neighbours: the model alone"
        elif self.fusion is not None:
            rescale += f"; each frame first fused with its motion-aligned neighbours (up to {span} frames)"
        elif self.aligns:
            rescale += f"; the model attends over each frame's motion-aligned neighbours ({span} frames)"
        by_hand = f", × {self.settings.sigma_scale:g} by --sigma-scale" if self.settings.sigma_scale != 1 else ""
        if function is not None:
            what = (f"noise estimated from {function.source}" if how == "estimated" else f"noise {how}") + by_hand
            told = "" if level == function.level else f" (told: RMS {level * 255:.3g})"
            return f"{what}: {function.summary()}; the map's RMS {function.level * 255:.3g}{told}; {trained}{rescale}"
        if how == "estimated":
            return f"σ ≈ {sigma * 255:.2f} on the 0-255 scale (estimated{by_hand}; {trained}{rescale})"
        return f"σ = {sigma * 255:.4g} on the 0-255 scale ({how}{by_hand}; {trained}{rescale})"

    def _apply_tiled(
        self,
        batch: torch.Tensor,
        start: int,
        count: int,
        sigma: float | torch.Tensor | None = None,
        coordinates: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """The model on (B, T, C, H, W), tile by tile, blended; returns frames [start, start+count).

        sigma: None, one σ, or a noise map (B, T, H, W), cut into the same tiles as the frames.
        coordinates: for an aligned model, the window's `clip_coordinates` of frames [start, start+count), which
        alone it denoises, each against the whole window; each tile gets the whole frames warped onto its pixels."""
        height, width = batch.shape[-2:]
        is_map = isinstance(sigma, torch.Tensor) and sigma.dim() == 4
        # a clip whose pixels are all equal (the colour differences of a grey picture in a colour file, as a
        # camera's night mode writes it; a black screen) holds neither noise nor detail: it is kept as it is,
        # not handed to the model, which would add its bias there (up to 0.002 on a flat clip) in its time
        flat = batch.flatten(1).amax(1) - batch.flatten(1).amin(1) <= FLAT
        if flat.any():
            out = batch[:, start : start + count].to(torch.float32, copy=True)
            if not flat.all():
                live = sigma[~flat] if is_map else sigma
                out[~flat] = self._apply_tiled(batch[~flat], start, count, live, coordinates)
            return out
        tiles, weight_sum = self._tiling(height, width)
        kept = slice(start, start + count)  # an aligned model is handed only these frames, others keep them from all
        frames, keep = (kept, slice(None)) if coordinates is not None else (slice(None), kept)

        def apply(top=0, bottom=height, left=0, right=width) -> torch.Tensor:
            told = {}
            if coordinates is not None:  # the whole frames warped onto the tile
                warped = warp_frames(batch, coordinates[..., top:bottom, left:right, :])
                told.update(aligned=warped, sources=range(start, start + count))
            if sigma is not None:
                told["sigma"] = sigma[:, frames, top:bottom, left:right].contiguous() if is_map else sigma
            tile = batch[:, frames, :, top:bottom, left:right].contiguous()
            return self.model(tile, **told)[:, keep]

        with torch.no_grad(), autocast(self.device, self.dtype):
            if len(tiles) == 1:
                return apply().float()
            out = batch.new_zeros(batch.shape[0], count, *batch.shape[2:])
            for (top, bottom, left, right), weight in tiles:
                out[..., top:bottom, left:right] += apply(top, bottom, left, right).float() * weight
        return out / weight_sum

    def _tiling(self, height: int, width: int) -> tuple[list, torch.Tensor]:
        """The tiles of a frame size with their blend weights, and the weights' sum (cached)."""
        if (height, width) not in self._weights:
            self._weights[height, width] = blend_tiles(
                height, width, self.tile, self.overlap, self.align, self.margin, self.device
            )
        return self._weights[height, width]

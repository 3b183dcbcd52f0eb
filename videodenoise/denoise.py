"""Streaming inference: denoise any video file or frame folder with a trained model (SPEC §6).

    from videodenoise.denoise import Denoiser, denoise_video, quality_options
    # clean's defaults (motion-compensated fusion first); without the preset: the model alone
    denoiser = Denoiser.from_checkpoint("checkpoints/dust-video.safetensors", **quality_options("fast"))
    result = denoise_video("input.mp4", "input.denoised.mp4", denoiser, sigma="auto")
    print(result.sigma * 255, result.frames_per_second)
    clean = denoiser.denoise_clip(noisy_clip, sigma=25 / 255)        # (T, C, H, W) in memory

Nothing here adds noise. σ is always on the [0, 1] scale in this module (the CLI takes 0-255).

This module holds the denoiser and the file pipeline; its parts live in modules named after them and
are re-exported here: `tiling` (tiles, blending, reflected windows), `noise_level` (checking and
estimating σ), `outputs` (output names and the checks before any work) and `demo`.

How a video is processed, and why:

* Time. Frames stream from the reader into a buffer of a few windows. Each model call sees a window of
  `window` frames (default 5, the training clip length) and `stride` of its frames are kept: the
  centre ones. stride = 1 is the textbook sliding window (each frame from the window centred on it,
  window× the compute); stride = window is disjoint windows (1×, but a frame at a window's edge
  sees neighbours on one side only, up to window − 1 frames away). The default stride 3 keeps frames
  1..3 of each 5-frame window, so every kept frame has a neighbour on each side, at 5/3× the compute
  of disjoint windows. Measured with a briefly trained DUST (benchmarks/bench_clean.py, part 2) the
  three differ by < 0.1 dB, because its attention barely mixes frames; a model that leans on time
  gains more from centring. Windows past either end are reflected (frame −1 is frame 1, frame n is
  n − 2), so the output has exactly one frame per input frame, a one-frame video included.
* Motion. With `fusion` (the CLI's default; `videodenoise.fusion`), every frame is first averaged with
  its neighbours (2 each side) aligned to it by optical flow, pixel by pixel where they agree, and a
  noise-conditional model is then told the σ left at each pixel. This is where the video's redundancy
  is used: the models' temporal attention only sees the same patch location in the other frames,
  which shows something else once the camera moves, and trained attention gains stay small. On the
  quality benchmark's held-out clips fusion adds about 1.2 dB at σ = 25 (README, quality section).
  Fusion streams too: it reads `radius` frames ahead of the window it feeds.
* Space. A frame larger than `tile` pixels a side is cut into overlapping tiles. Tiles start on the
  model's patch grid, so they cut the same patches the whole frame does; farther than the model's
  reach (its margin: p − 1 pixels, plus a neighbourhood radius per layer for spatio-temporal token
  sets) from a tile edge a tile's estimate equals the whole frame's. Each tile's blend weight is
  zero within the margin of an edge it shares with another tile and rises with a raised cosine
  across the rest of the overlap. Tiled and untiled outputs of DUST and UT agree to float rounding,
  and model activations never exceed one tile's.
* Colour. A grey model denoises a colour video in an orthonormal opponent colour space (luminance
  (R+G+B)/√3 and two colour differences, as in CBM3D): the transform keeps i.i.d. noise i.i.d. with
  the same σ, puts the structure in one channel and leaves two smooth ones, each denoised by the
  model as a grey clip. With a trained grey DUST this beat denoising R, G and B separately by
  0.6-1.9 dB on four clips at σ = 10, 25 and 50 (`colour="rgb"` keeps that option). A colour model on
  a grey video gets the grey frame in all three channels, is told the video's σ, and its output is
  averaged back to grey (telling it √3·σ, the noise along the luminance axis, measured 0.4-0.5 dB
  worse with an untrained colour DUST).
* Noise level. A model trained at σ_train (checkpoint metadata) is applied at another σ by
  noise-level rescaling: x̂ = c + s·(f((y − c)/s + ½) − ½), s = σ/σ_train, c the channel's mid-grey.
  The rescaled input has noise σ_train, the level the model knows; for a denoiser that is
  scale-equivariant up to the mean (DUST's soft thresholds are proportional to σ, its attention
  normalises tokens) this is nearly exact; with a trained DUST it beat applying the model unchanged
  by 1.5-3.5 dB at σ = 10 and 50 (trained at 25). `sigma="auto"` estimates σ with
  skimage.restoration.estimate_sigma (Donoho's wavelet MAD) on up to 5 frames spread over the video
  and takes the median; `scaling="none"` applies the model as trained.
  A noise-conditional checkpoint (metadata `sigma_range`, the default one: a DUST trained over σ in
  [0, 55]/255 whose thresholds scale with the σ it is told) is told σ and sees the frames unscaled
  while σ lies in its range, and is rescaled only down to the range's top above it: light noise, the
  commonest, is never blown up (the rescaling above multiplied a clean video's contrast by ~60 and
  returned it at 34.5 dB against itself; `benchmarks/bench_quality.py` measures 46-80 dB now).
"""

from __future__ import annotations

import dataclasses
import os
import time
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import torch
import torch.nn as nn

from .checkpoints import load_checkpoint, read_sigma_range, read_sigma_train, resolve_checkpoint
from .devices import autocast, distributed_environment, resolve_device, resolve_precision
from .errors import DenoiseError, VideoReadError, VideoWriteError
from .fusion import FusionSettings, MotionFusion
from .models import read_metadata
# the pieces of this pipeline live in modules named after them; their names stay importable from here
from .noise_level import check_sigma, estimate_clip_sigma, estimate_noise_sigma, estimate_video_sigma
from .outputs import FORMATS, _codec_for, _same_path, check_output, default_output, plan_outputs, side_by_side_path  # noqa: F401
from .tiling import _round_up, model_margin, ramp, reflect, tile_spans
from .video import VideoWriter, _short, has_audio, open_video

__all__ = [
    "DEFAULT_CHECKPOINT", "PREVIOUS_CHECKPOINT", "QUALITY_PRESETS", "quality_options", "Denoiser", "DenoiseError", "DenoiseResult", "denoise_video", "plan_outputs",
    "default_output", "side_by_side_path", "estimate_noise_sigma", "estimate_clip_sigma", "estimate_video_sigma", "run_demo",
    "DemoResult", "reflect", "tile_spans", "model_margin",
]

CHECKPOINTS = Path(__file__).resolve().parent.parent / "checkpoints"
DEFAULT_CHECKPOINT = CHECKPOINTS / "dust-video.safetensors"
PREVIOUS_CHECKPOINT = CHECKPOINTS / "dust-samples-constrained.safetensors"  # the default until issue 9
DEFAULT_WINDOW = 5
DEFAULT_STRIDE = 3
# `clean --quality`: the same weights, applied faster or better (README: the quality benchmark's table).
# Both keep all 5 frames of each window: once every frame is fused with its neighbours, centring
# windows (stride 3, 5/3× the model's work) gained nothing on the validation clips of
# benchmarks/tune_fusion.py (disjoint windows: +0.01 dB at 0.66× the time for fast, ±0.015 dB at
# 0.87× for best). best fuses 3 neighbours a side (+0.09 dB there, 6 flows a frame
# instead of 4) and cuts 4× as many patches.
QUALITY_PRESETS = {"fast": {"fusion": FusionSettings(), "stride": DEFAULT_WINDOW},
                   "best": {"fusion": FusionSettings(radius=3), "stride": DEFAULT_WINDOW, "patch_stride": 2}}
DEFAULT_TILE = 512
DEFAULT_SIGMA_TRAIN = 25 / 255
SCALINGS = ("rescale", "none")
COLOURS = ("rgb", "opponent")

# Orthonormal opponent colour transform: rows are luminance, red−blue, green−magenta.
_OPPONENT = torch.tensor([[1.0, 1.0, 1.0], [1.0, 0.0, -1.0], [1.0, -2.0, 1.0]])
_OPPONENT = _OPPONENT / _OPPONENT.norm(dim=1, keepdim=True)




# ----------------------------------------------------------------------------------------------------
# the denoiser


class Denoiser:
    """A model on a device, with everything needed to apply it to frames of any size and length.

    model: any module mapping (B, T, C, H, W) in [0, 1] to its estimate (DUST, UT, or your own).
    sigma_train: the noise level the model was trained at ([0, 1] scale); from the checkpoint's
    metadata with `from_checkpoint`, else the DUST config's σ, else 25/255.
    window, stride: frames per model call and frames kept from each (the centre ones).
    tile: largest tile side in pixels (None or 0: whole frames); overlap: tile overlap in pixels
    (None: twice the model's margin plus 16, on its patch grid).
    scaling: "rescale" (noise-level rescaling to σ_train) or "none".
    sigma_range: (low, high), the noise levels a noise-conditional DUST was trained over (checkpoint
    metadata): inside it the model is told σ and applied to the frames as they are; above it the
    frames are rescaled to `high` (see the module notes). None: a model trained at σ_train only.
    colour: how a grey model denoises colour frames: "opponent" (each channel of an orthonormal
    luminance/colour-difference transform as a grey clip) or "rgb" (each RGB channel).
    patch_stride: cut patches at this stride instead of the model's own (a model's weights do not
    depend on it): 2 for a stride-4 model averages 4× as many patch estimates per pixel, at about 4×
    the time; the `best` of QUALITY_PRESETS.
    fusion: None, or the `FusionSettings` of motion-compensated temporal fusion (`videodenoise.fusion`):
    every frame is first averaged with its aligned neighbours where they agree, and a
    noise-conditional model is then told the σ left at each pixel. Needs σ (given or "auto").
    """

    def __init__(self, model: nn.Module, sigma_train: float | None = None, device: str | torch.device = "auto",
                 precision: str = "auto", window: int = DEFAULT_WINDOW, stride: int | None = DEFAULT_STRIDE,
                 tile: int | None = DEFAULT_TILE, overlap: int | None = None, scaling: str = "rescale",
                 colour: str = "opponent", sigma_range: tuple[float, float] | None = None,
                 patch_stride: int | None = None, fusion: FusionSettings | None = None):
        self.device = device if isinstance(device, torch.device) else resolve_device(device, _local_rank())
        if patch_stride is not None:
            config = getattr(model, "config", None)
            if not dataclasses.is_dataclass(config) or not hasattr(config, "stride"):
                raise DenoiseError("patch_stride needs a DUST or UT model (one with a patch config)")
            if not 1 <= patch_stride <= config.patch_size:
                raise DenoiseError(f"patch_stride must be between 1 and the patch size {config.patch_size}, "
                                   f"got {patch_stride}")
            model.config = dataclasses.replace(config, stride=int(patch_stride))
        self.dtype = resolve_precision(precision, self.device)
        self.model = model.to(self.device).eval()
        config = getattr(model, "config", None)
        self.channels = int(getattr(config, "channels", 1))
        if sigma_train is None:
            sigma_train = getattr(config, "sigma", None)
        self.sigma_train = float(sigma_train if sigma_train is not None else DEFAULT_SIGMA_TRAIN)
        if not self.sigma_train > 0:
            raise DenoiseError(f"sigma_train must be positive, got {sigma_train}")
        if window < 1:
            raise DenoiseError(f"the temporal window must be at least 1 frame, got {window}")
        stride = window if stride is None else min(stride, window)
        if stride < 1:
            raise DenoiseError(f"the stride must be at least 1 frame, got {stride}")
        self.window, self.stride = int(window), int(stride)
        if scaling not in SCALINGS:
            raise DenoiseError(f"unknown scaling '{scaling}'; choose one of: {', '.join(SCALINGS)}")
        self.scaling = scaling
        if sigma_range is not None and not getattr(model, "noise_conditional", False):
            raise DenoiseError("this model is not noise-conditional; a sigma_range needs a DUST or a UT with the proximal step")
        self.sigma_range = None if sigma_range is None else (float(sigma_range[0]), float(sigma_range[1]))
        if colour not in COLOURS:
            raise DenoiseError(f"unknown colour handling '{colour}'; choose one of: {', '.join(COLOURS)}")
        self.colour = colour
        self.margin, self.align = model_margin(model)
        if overlap is None:
            overlap = _round_up(2 * self.margin + 16, self.align)
        if overlap < 2 * self.margin + 1:
            raise DenoiseError(f"a tile overlap of {overlap} px is too small for this model: it needs at least "
                               f"{2 * self.margin + 1} px (twice its {self.margin} px reach past a tile edge, plus one)")
        self.overlap = int(overlap)
        if tile and tile < 2 * self.overlap:
            raise DenoiseError(f"tiles of {tile} px are too small for an overlap of {self.overlap} px; "
                               f"use --tile {2 * self.overlap} or more (or 0 for whole frames)")
        self.tile = int(tile) if tile else None
        self.fusion = None if fusion is None else MotionFusion(fusion)
        self.checkpoint: Path | None = None
        self._weights: dict[tuple[int, int], tuple[list, torch.Tensor]] = {}

    @classmethod
    def from_checkpoint(cls, path: str | os.PathLike | None = None, **options) -> "Denoiser":
        """A denoiser for a weights file written by `save_model` (default: the shipped checkpoint)."""
        path = Path(path) if path is not None else DEFAULT_CHECKPOINT
        if path == DEFAULT_CHECKPOINT and not path.is_file():
            raise DenoiseError(f"the default checkpoint {path} is missing; pass --checkpoint PATH "
                               "(a .safetensors file written by `videodenoise train`)")
        if not path.is_dir():
            read_metadata(path)  # a missing or foreign file: the models' own one-line error
        # finite weights, valid sigma_train and sigma_range, or a CheckpointError naming the file
        model, metadata = load_checkpoint(path)
        path = resolve_checkpoint(path)
        options.setdefault("sigma_range", read_sigma_range(metadata, path))
        denoiser = cls(model, sigma_train=read_sigma_train(metadata, path), **options)
        denoiser.checkpoint = path
        return denoiser

    # ---- whole clips in memory -------------------------------------------------------------------
    def denoise_clip(self, clip: torch.Tensor, sigma: float | str | None = None) -> torch.Tensor:
        """Denoise a (T, C, H, W) clip in [0, 1] with C = 1 or 3; returns the same shape, float32."""
        if not isinstance(clip, torch.Tensor) or clip.dim() != 4:
            shape = tuple(clip.shape) if isinstance(clip, torch.Tensor) else type(clip).__name__
            raise DenoiseError(f"denoise_clip expects a (T, C, H, W) tensor, got {shape}")
        if sigma == "auto":
            sigma = estimate_clip_sigma(clip)
        return torch.stack(list(self.denoise_frames(clip, sigma)))

    # ---- streams ---------------------------------------------------------------------------------
    def denoise_frames(self, frames: Iterable[torch.Tensor], sigma: float | None = None) -> Iterator[torch.Tensor]:
        """Yield one denoised (C, H, W) frame per input frame, in order, holding only a few windows.

        sigma: the noise level of the frames ([0, 1] scale); None applies the model as trained.
        """
        sigma = check_sigma(sigma)
        if self.fusion is not None:
            if sigma is None:
                raise DenoiseError("motion-compensated fusion needs the noise level: pass sigma (or 'auto')")
            frames = self.fusion.stream(frames, sigma)  # (fused frame, noise map) pairs from here on
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
            load_until(first - before + size - 1)
            if total == 0:
                raise VideoReadError("there are no frames to denoise")
            if total is not None and first >= total:
                return
            indices = [reflect(j, total) for j in range(first - before, first - before + size)]
            kept = min(self.stride, (total if total is not None else loaded) - first)
            if self.fusion is None:
                yield from self.denoise_window(torch.stack([buffer[i] for i in indices]), sigma, before, kept)
            else:
                clip, noise_map = (torch.stack(part) for part in zip(*(buffer[i] for i in indices)))
                yield from self.denoise_window(clip, sigma, before, kept, noise_map)
            first += self.stride
            for index in [i for i in buffer if i < first - size]:
                del buffer[index]

    def denoise_window(self, clip: torch.Tensor, sigma: float | None, start: int = 0,
                       count: int | None = None, noise_map: torch.Tensor | None = None) -> torch.Tensor:
        """Denoise a (T, C, H, W) window and return its frames [start, start + count) as (count, C, H, W).

        noise_map: None, or (T, H, W), each pixel's σ (at most `sigma`, the level that sets the
        rescaling); a noise-conditional model is told it, any other model its root mean square."""
        count = len(clip) - start if count is None else count
        frames, channels, height, width = clip.shape
        if channels not in (1, 3):
            raise DenoiseError(f"frames must have 1 (grey) or 3 (colour) channels, got {channels}")
        clip = clip.to(self.device, torch.float32)
        # the model's view of the clip: a batch of clips with the model's channel count, whose
        # mid-grey is `centre`
        if channels == self.channels:
            batch, centre = clip.unsqueeze(0), 0.5
        elif channels == 3 and self.colour == "rgb":  # grey model, colour video: each channel a grey clip
            batch, centre = clip.transpose(0, 1).unsqueeze(2), 0.5  # (3, T, 1, H, W)
        elif channels == 3:  # the same in opponent colours
            opponent = _OPPONENT.to(self.device)
            batch = torch.einsum("oc,tchw->othw", opponent, clip).unsqueeze(2)
            centre = (0.5 * opponent.sum(dim=1)).view(3, 1, 1, 1, 1)
        else:  # colour model, grey video: the grey frame in all three channels
            batch, centre = clip.expand(-1, 3, -1, -1).unsqueeze(0), 0.5
        scale, model_sigma = self.scale_for(sigma)
        if noise_map is not None and model_sigma is not None:  # the map, rescaled as the frames are
            model_sigma = (noise_map.to(self.device, torch.float32) / scale).expand(batch.shape[0], -1, -1, -1)
        elif noise_map is not None:
            scale, _ = self.scale_for(float(noise_map.square().mean().sqrt()))
        estimate = self._apply_tiled((batch - centre) / scale + 0.5, start, count, model_sigma)
        estimate = (estimate - 0.5) * scale + centre
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
            raise DenoiseError(f"{source} produced non-finite values (NaN or infinity) for frames {start}..{start + count - 1}; "
                               "nothing was written for them: use another checkpoint")
        return out.clamp_(0, 1).float().cpu()

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

    def _apply_tiled(self, batch: torch.Tensor, start: int, count: int,
                     sigma: float | torch.Tensor | None = None) -> torch.Tensor:
        """The model on (B, T, C, H, W), tile by tile, blended; returns frames [start, start+count).

        sigma: None, one σ, or a noise map (B, T, H, W), cut into the same tiles as the frames."""
        height, width = batch.shape[-2:]
        tiles, weight_sum = self._tiling(height, width)
        is_map = isinstance(sigma, torch.Tensor) and sigma.dim() == 4

        def told(top=0, bottom=height, left=0, right=width) -> dict:
            if sigma is None:
                return {}
            return {"sigma": sigma[..., top:bottom, left:right].contiguous() if is_map else sigma}

        with torch.no_grad(), autocast(self.device, self.dtype):
            if len(tiles) == 1:
                return self.model(batch, **told())[:, start:start + count].float()
            out = batch.new_zeros(batch.shape[0], count, *batch.shape[2:])
            for (top, bottom, left, right), weight in tiles:
                estimate = self.model(batch[..., top:bottom, left:right].contiguous(),
                                      **told(top, bottom, left, right))[:, start:start + count]
                out[..., top:bottom, left:right] += estimate.float() * weight
        return out / weight_sum

    def _tiling(self, height: int, width: int) -> tuple[list, torch.Tensor]:
        """The tiles of a frame size with their blend weights, and the weights' sum (cached)."""
        key = (height, width)
        if key not in self._weights:
            rows = tile_spans(height, self.tile, self.overlap, self.align)
            cols = tile_spans(width, self.tile, self.overlap, self.align)
            tiles, weight_sum = [], torch.zeros(height, width, device=self.device)
            for top, bottom in rows:
                for left, right in cols:
                    vertical = ramp(top, bottom, height, self.overlap, self.margin)
                    horizontal = ramp(left, right, width, self.overlap, self.margin)
                    weight = (vertical[:, None] * horizontal[None, :]).to(self.device)
                    weight_sum[top:bottom, left:right] += weight
                    tiles.append(((top, bottom, left, right), weight))
            self._weights[key] = (tiles, weight_sum)
        return self._weights[key]


def quality_options(quality: str = "fast", fusion: bool = True) -> dict:
    """The Denoiser options of `clean --quality QUALITY` (and `--no-fusion`: fusion=False)."""
    if quality not in QUALITY_PRESETS:
        raise DenoiseError(f"unknown --quality '{quality}'; choose one of: {', '.join(QUALITY_PRESETS)}")
    options = dict(QUALITY_PRESETS[quality])
    if not fusion:  # the model alone: centre frames of each window, as before fusion existed
        options.update(fusion=None, stride=DEFAULT_STRIDE)
    return options


def _local_rank() -> int | None:
    return distributed_environment()[2]


# ----------------------------------------------------------------------------------------------------
# files


@dataclass
class DenoiseResult:
    """What `denoise_video` did. sigma is on the [0, 1] scale (None: the model applied as trained)."""

    input: Path
    output: Path
    side_by_side: Path | None
    frames: int
    width: int
    height: int
    channels: int
    fps: float
    sigma: float | None
    sigma_source: str  # "given", "estimated" or "none"
    audio: bool
    seconds: float

    @property
    def frames_per_second(self) -> float:
        return self.frames / self.seconds if self.seconds > 0 else float("inf")


def denoise_video(input: str | os.PathLike, output: str | os.PathLike | None = None,
                  denoiser: Denoiser | None = None, sigma: float | str | None = "auto", *,
                  format: str | None = None, side_by_side: str | os.PathLike | bool | None = None,
                  overwrite: bool = False, keep_audio: bool = True, fps: float | None = None,
                  crf: int = 17, progress: Callable[[int, int], None] | None = None,
                  on_sigma: Callable[[float | None, str], None] | None = None) -> DenoiseResult:
    """Denoise a video file or frame folder into `output` (default NAME.denoised.mp4 beside it).

    sigma: the noise level on the [0, 1] scale, "auto" to estimate it, or None to apply the model as
    trained. format: "mp4" (H.264), "lossless" (FFV1 .mkv) or "frames" (PNG folder); by default from
    the output's suffix. side_by_side: True (NAME.side-by-side.* beside the output) or a path: also
    write the noisy and denoised frames next to each other. The input's audio is copied (video
    files only). progress(done, total) is called after every frame; on_sigma(σ, source) once σ is
    known. Every output is written under a hidden name and renamed into place only when complete.
    """
    import av

    input = Path(input)
    reader = open_video(input, fps=fps)
    info = reader.info
    denoiser = denoiser or Denoiser.from_checkpoint()
    output = Path(output) if output is not None else default_output(input, format or "mp4")
    codec = _codec_for(output, format)
    extra = None
    if side_by_side:
        extra = side_by_side_path(output) if side_by_side is True else Path(side_by_side)
        _codec_for(extra, format)
        if _same_path(extra, output):
            raise VideoWriteError(f"the side-by-side output '{extra}' is the denoised output; choose another name")
    for path in [output] + ([extra] if extra else []):
        check_output(path, input, overwrite)
    audio_source = input if keep_audio and codec != "png" and has_audio(input) else None
    if keep_audio and codec == "png" and has_audio(input):
        warnings.warn(f"a frame folder holds no audio: the audio of '{input}' is not kept", stacklevel=2)
    rate = _frame_rate(reader, fps)

    start = time.perf_counter()
    if sigma == "auto":
        sigma_value, source = estimate_video_sigma(reader), "estimated"
    elif sigma is None:
        sigma_value, source = None, "none"
    else:
        sigma_value, source = check_sigma(sigma), "given"
    if on_sigma is not None:
        on_sigma(sigma_value, source)

    frames_done = 0
    writers = _open_writers([dict(path=output, fps=rate, codec=codec, crf=crf, overwrite=overwrite, audio_from=audio_source)]
                            + ([dict(path=extra, fps=rate, codec=_codec_for(extra, format), crf=crf, overwrite=overwrite,
                                     audio_from=audio_source)] if extra else []))
    noisy_frames: dict[int, torch.Tensor] = {}  # the few input frames whose output is still to come

    def source_frames() -> Iterator[torch.Tensor]:
        index = -1
        for index, frame in enumerate(reader.frames()):
            if extra:
                noisy_frames[index] = frame
            yield frame
        if index < 0:
            raise VideoReadError(f"'{input}' holds no decodable video frames")

    try:
        for index, frame in enumerate(denoiser.denoise_frames(source_frames(), sigma_value)):
            writers[0].write(frame)
            if extra:
                writers[1].write(torch.cat([noisy_frames.pop(index), frame], dim=2))
            frames_done += 1
            if progress is not None:
                progress(frames_done, info.n_frames)
        for writer in writers:
            writer.close()
    except BaseException as error:
        for writer in writers:
            writer.abort()
        if isinstance(error, (OSError, av.FFmpegError)):  # e.g. a full disk
            raise VideoWriteError(f"cannot denoise '{input}' into '{output}': {_short(error)}") from None
        raise
    seconds = time.perf_counter() - start
    if frames_done != info.n_frames:
        warnings.warn(f"the header of '{input}' says {info.n_frames} frames but {frames_done} could be decoded; "
                      f"the output has {frames_done}", stacklevel=2)
    return DenoiseResult(input=input, output=output, side_by_side=extra, frames=frames_done, width=info.width,
                         height=info.height, channels=info.channels, fps=float(rate), sigma=sigma_value,
                         sigma_source=source, audio=audio_source is not None, seconds=seconds)


def _open_writers(options: list[dict]) -> list[VideoWriter]:
    """All the writers, or none: when one cannot be opened, those already open are dropped."""
    writers: list[VideoWriter] = []
    try:
        for option in options:
            writers.append(VideoWriter(**option))
    except BaseException:
        for writer in writers:
            writer.abort()
        raise
    return writers


def _frame_rate(reader, fps: float | None) -> Fraction:
    """The input's exact frame rate (a Fraction, e.g. 30000/1001), or `fps`, or 25 for frame folders."""
    if reader.info.kind == "video":
        import av

        try:
            with av.open(str(reader.info.path)) as container:
                stream = container.streams.video[0]
                rate = stream.average_rate or stream.guessed_rate or stream.base_rate
                if rate:
                    return Fraction(rate.numerator, rate.denominator)
        except (av.FFmpegError, IndexError, ValueError):
            pass
    value = reader.info.fps or fps or 25.0
    return Fraction(value).limit_denominator(1001)


# the demo builds on the denoiser above, so it is imported last (it imports this module)
from .demo import DemoResult, run_demo  # noqa: E402

"""How good is `videodenoise clean` on colour footage the default model never trained on, against the
classical denoisers a user would otherwise pick, measured in one run on identical noisy input?

    .venv/bin/python benchmarks/bench_quality.py                       # everything (CBM3D/BM4D need [compare])
    .venv/bin/python benchmarks/bench_quality.py --frames 3 --sigmas 25 --clips bikes      # quick look
    .venv/bin/python benchmarks/bench_quality.py --frames 5 --bm-sigmas 15,25,50          # CBM3D/BM4D at 3 σ only

What is measured, and how:

* Clips. `bikes` and `carphone`, the real sample clips (`fetch_sample_clips`), first --frames frames,
  centre-cropped to at most --size H×W (default 240×320; carphone is 144×176 and stays whole); and
  one camera pan (sub-pixel pan, zoom, small rotation, brightness drift; seed fixed per photo) over
  each still photograph of `videodenoise.datasets.motion.BENCHMARK_PHOTOS`, --frames frames of
  --size. Clean frames are quantised to 8 bits first: the reference is what an 8-bit video holds.
  Named in --clips only, for choosing settings and checkpoints away from those clips: the pans over
  `VALIDATION_PHOTOS` ("cell-pan", ...) and the same pans with three pieces of those photographs
  pasted on, each moving on its own ("cell-objects", ...): the pans are one rigid motion that optical
  flow recovers almost exactly, while real footage, like these, has parts whose flow it gets wrong.
  Likewise over the colour `COLOUR_VALIDATION_PHOTOS` ("china-pan", "flower-objects", ...), whose
  pieces come from those two, over the grey `LATE_VALIDATION_PHOTOS` ("aero-pan", "ascent-objects", ...), and over
  `ESTIMATOR_VALIDATION_PHOTOS` ("brick-pan", "ihc-objects", ...), for choices only σ auto's estimator reads, and
  over the generated `GENERATED_VALIDATION_PHOTOS` ("dead-leaves-1-pan", "dead-leaves-grey-3-objects", ...).
  NB: which clips a checkpoint trained on is the checkpoint's business; the script prints each
  checkpoint's training dataset from its metadata (the shipped `samples` checkpoint trained on
  carphone, and validated on bikes).
* Noise. Gaussian, σ on the 0-255 scale (--sigmas, default 0,2,5,10,15,25,50), one draw per (clip, σ)
  from numpy's default_rng seeded by (--seed, crc32(clip name), round(100·σ)), added to the 8-bit
  clean frames, rounded and clipped to uint8, exactly as a real 8-bit video holds noisy footage.
  Every method gets exactly those uint8 frames.
* Methods (all outputs are rounded to 8 bits, as a written video would be):
  - `noisy`: the input itself.
  - each checkpoint (--checkpoint NAME=PATH[,key=value...], repeatable; default current = the shipped
    default checkpoint, previous = videodenoise/checkpoints/dust-samples-constrained.safetensors, run once if both
    are the same file) through `Denoiser.from_preset("fast", path)` with the CLI's defaults
    (`--quality fast`: motion-compensated temporal fusion of 5 frames, 5-frame reflected windows, stride 3,
    tiles of 512 px, opponent colour for grey models; a noise-conditional checkpoint is told σ, or
    after fusion the σ left at each pixel, inside its training range, any other is applied with
    noise-level rescaling; the default `previous` checkpoint runs as it shipped, without fusion), or
    with one lever changed by the options of CHECKPOINT_OPTIONS (the ablation of docs/quality.md), on
    the whole clip, with --modes known,auto: `NAME-known` (told the true σ) and `NAME-auto` (the noise
    estimated exactly as `denoise_clip(sigma="auto")` does: its noise level function, `estimate_clip_noise`;
    its level is reported; before 2026-12-06 this mode told the model that level as one σ). The estimate's
    time counts in the auto method's time.
  - `nlm-opencv`: `cv2.fastNlMeansDenoisingColoredMulti`, template 7, search 21, temporal window 5
    centred on every frame and reflected at the clip's ends (frame −1 is frame 1), so every frame gets
    a full window; h = hColor = 0.6·σ (h = 15 at σ = 25), at least 1.
  - `nlm-skimage`: `skimage.restoration.denoise_nl_means` per frame, fast mode, patch 5, distance 6,
    sigma = σ, h = 0.8·σ (scikit-image's gallery advice for fast mode), channel_axis.
  - `cbm3d`: `bm3d.bm3d_rgb` per frame, sigma_psd = σ, profile "np", opponent colour space.
  - `bm4d`: `bm4d.bm4d` on each channel of the clip in the orthonormal opponent colour space (the one
    `clean` uses, which keeps i.i.d. noise i.i.d. with the same σ) as a T×H×W volume, sigma_psd = σ.
  Classical methods are told σ; at σ = 0 they are told σ = 1 (their smallest setting: h = 0 is not
  a valid non-local-means filter). CBM3D and BM4D run only when the `bm3d` / `bm4d` packages import
  (`pip install -e '.[compare]'`; their licence is non-commercial), and only at --bm-sigmas.
* Metrics, against the clean 8-bit frames: PSNR = −20·log10(RMSE) per frame (RMSE over the frame's
  pixels and RGB channels on the [0, 1] scale; RMSE 0 counts as 200 dB), averaged over frames; SSIM
  per frame (scikit-image structural_similarity, data_range 1, channel_axis), averaged over frames.
  Seconds per frame: wall time of the method on the clip (models loaded beforehand) / frames, with
  torch and OpenCV limited to --threads threads.

Outputs: printed tables, and in --out (default benchmarks/results/quality/) quality.csv (one row per
method, clip and σ) and quality.json (the run's settings, machine, methods, clips and summaries), both
written under a temporary name and renamed when complete.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import math
import os
import platform
import sys
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from videodenoise.metrics import frame_rmse, frame_ssim, psnr_from_rmse  # noqa: E402

from _machine import cpu_name  # noqa: E402
from _script import run_main  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SIGMAS = (0.0, 2.0, 5.0, 10.0, 15.0, 25.0, 50.0)
MODES = ("known", "auto")  # how a checkpoint gets σ: told the true one, or estimated as `clean --sigma auto` does
DEFAULT_FRAMES = 10
DEFAULT_SIZE = (240, 320)  # H, W: the largest centre crop; smaller clips stay whole
DEFAULT_OUT = ROOT / "benchmarks" / "results" / "quality"
from videodenoise.colour import OPPONENT  # noqa: E402
from videodenoise.denoise.tiling import reflect  # noqa: E402
from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT, PREVIOUS_CHECKPOINT  # noqa: E402
from videodenoise.noise.camera import linear_to_srgb, srgb_to_linear  # noqa: E402

REAL_CLIPS = ("bikes", "carphone")
NLM_WINDOW = 5
CLASSICAL_MIN_SIGMA = 1.0  # classical methods at σ = 0 are told σ = 1 (0-255 scale)
OPENCV_H = 0.6  # OpenCV NLM: h = hColor = 0.6·σ (h = 15 at σ = 25)
OPENCV_MIN_H = 1.0
SKIMAGE_NLM_H = 0.8  # skimage NLM, fast mode with sigma passed: h = 0.8·σ (scikit-image's gallery)
HEADLINE_SIGMA = 25.0
BM4D_MIN_FRAMES = 5  # its Wiener stage uses 5×5×5 blocks
LIGHT_SIGMAS = (2.0, 5.0, 10.0)
CLEAN_TARGET_DB = 45.0
CLASSICAL = ("noisy", "nlm-opencv", "nlm-skimage", "cbm3d", "bm4d")
# "<photo>-objects" validation clips: OBJECTS pieces pasted on the pan, each moving on its own up to
# OBJECT_SPEED px a frame along each axis (the speed of training's moving objects)
OBJECTS = 3
OBJECT_SPEED = 4.0
INSTALL_HINT = "pip install -e '.[compare]'  (bm3d, bm4d: non-commercial licence)"


# ----------------------------------------------------------------------------------------------------
# clips


@dataclass
class Clip:
    """A clean clip: uint8 frames (T, 3, H, W) and where they came from."""

    name: str
    kind: str  # "real", "pan" or "objects"
    source: str
    frames: np.ndarray

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.frames.shape)


def underexposed(clip: Clip, exposure: float) -> Clip:
    """The clip as a camera would have taken it with `exposure` times the light (linear light scaled, then the
    sRGB gamma and 8 bits again): night footage made from day footage, the truth for noise added after."""
    linear = srgb_to_linear(torch.from_numpy(clip.frames).double() / 255) * exposure
    return dataclasses.replace(clip, frames=to_uint8(linear_to_srgb(linear)), source=f"{clip.source}, × {exposure:g}")


def to_uint8(frames) -> np.ndarray:
    """Float frames in [0, 1] (tensor or array) → uint8, rounded and clipped."""
    if isinstance(frames, torch.Tensor):
        frames = frames.detach().cpu().numpy()
    return np.clip(np.round(np.asarray(frames, dtype=np.float64) * 255.0), 0, 255).astype(np.uint8)


def centre_crop(frames: np.ndarray, size: tuple[int, int] | None) -> np.ndarray:
    """The centre (at most) size = (H, W) of (T, C, H, W) frames; a smaller side is kept whole."""
    if size is None:
        return frames
    height, width = frames.shape[-2:]
    h, w = min(size[0], height), min(size[1], width)
    top, left = (height - h) // 2, (width - w) // 2
    return np.ascontiguousarray(frames[..., top : top + h, left : left + w])


def photo_clip_name(photo: str) -> str:
    """ "skimage:astronaut" → "astronaut-pan"."""
    return photo.split(":")[-1].replace("_", "-") + "-pan"


def motion_module():
    """videodenoise.datasets.motion, or None while it does not exist."""
    try:
        from videodenoise.datasets import motion
    except ImportError:
        return None
    return motion


def available_clip_names() -> list[str]:
    """bikes, carphone and one pan per benchmark photo (when videodenoise.datasets.motion exists)."""
    motion = motion_module()
    photos = [photo_clip_name(p) for p in motion.BENCHMARK_PHOTOS] if motion is not None else []
    return list(REAL_CLIPS) + photos


def load_real_clip(name: str, frames: int, size: tuple[int, int] | None) -> Clip:
    """The first `frames` frames of a sample clip as uint8 RGB, centre-cropped."""
    from videodenoise.datasets.samples import fetch_sample_clips
    from videodenoise.io.video import open_video

    path = fetch_sample_clips()[name]
    clip = torch.stack(list(open_video(path).frames(channels=3, count=frames)))
    return Clip(
        name,
        "real",
        f"sample clip {path.name}, first {len(clip)} frames, centre crop",
        centre_crop(to_uint8(clip), size),
    )


def pan_seed(photo: str, seed: int) -> int:
    return (seed * 1_000_003 + zlib.crc32(photo.encode())) % 2**31


def make_pan_clip(photo: str, frames: int, size: tuple[int, int], seed: int = 0) -> Clip:
    """A camera pan over a still photograph (videodenoise.datasets.motion), as uint8 RGB."""
    motion = motion_module()
    if motion is None:
        raise RuntimeError("videodenoise.datasets.motion is not available")
    image = motion.load_photo(photo)
    clip = motion.camera_motion_clip(image, frames, size=tuple(size), seed=pan_seed(photo, seed))
    return Clip(photo_clip_name(photo), "pan", f"camera pan over {photo}, seed {pan_seed(photo, seed)}", to_uint8(clip))


def objects_clip_name(photo: str) -> str:
    """ "skimage:cell" → "cell-objects"."""
    return photo_clip_name(photo).removesuffix("-pan") + "-objects"


def validation_sets(motion) -> tuple[tuple[str, ...], ...]:
    """The sets of validation photographs, each named by its clips only: the grey four, the colour two, the late
    two, the estimator's six, the six dead-leaves pictures, the six textured ones (`videodenoise.datasets.motion`)."""
    return (
        motion.VALIDATION_PHOTOS,
        motion.COLOUR_VALIDATION_PHOTOS,
        motion.LATE_VALIDATION_PHOTOS,
        motion.ESTIMATOR_VALIDATION_PHOTOS,
        motion.GENERATED_VALIDATION_PHOTOS,
        motion.TEXTURED_VALIDATION_PHOTOS,
    )


def make_objects_clip(photo: str, frames: int, size: tuple[int, int], seed: int = 0) -> Clip:
    """The pan over a validation photograph with OBJECTS pieces of the validation photographs pasted on,
    each moving on its own (`paste_moving_objects`): motion a flow can get wrong, as in real footage."""
    motion = motion_module()
    pan = make_pan_clip(photo, frames, size, seed)  # "<photo>-pan", then the pieces on it
    # pieces of the photographs of its own validation set (the grey four's clips as they were before the colour two)
    own = next(s for s in validation_sets(motion) if photo in s)
    sources = [motion.load_photo(p) for p in own]
    rng = np.random.default_rng(pan_seed(photo, seed))
    clip = motion.paste_moving_objects(torch.from_numpy(pan.frames) / 255, sources, OBJECTS, rng, speed=OBJECT_SPEED)
    source = f"{pan.source}, {OBJECTS} objects moving on their own up to {OBJECT_SPEED:g} px a frame"
    return Clip(objects_clip_name(photo), "objects", source, to_uint8(clip))


def build_clips(
    names: list[str] | None = None, frames: int = DEFAULT_FRAMES, size: tuple[int, int] = DEFAULT_SIZE, seed: int = 0
) -> list[Clip]:
    """The benchmark's clean clips, in order: real clips by name, pans by their "<photo>-pan" name (the
    benchmark's photos, and by name only the validation photos a training run selects its candidate on),
    and by name only "<photo>-objects" for the validation photos (`make_objects_clip`)."""
    motion = motion_module()
    validation = [photo for photos in validation_sets(motion) for photo in photos] if motion is not None else []
    held_out = (*motion.BENCHMARK_PHOTOS, *validation) if motion is not None else ()
    photos = {photo_clip_name(p): p for p in held_out}
    objects = {objects_clip_name(p): p for p in validation}
    names = available_clip_names() if names is None else names
    clips = []
    for name in names:
        if name in REAL_CLIPS:
            clips.append(load_real_clip(name, frames, size))
        elif name in photos:
            clips.append(make_pan_clip(photos[name], frames, size, seed))
        elif name in objects:
            clips.append(make_objects_clip(objects[name], frames, size, seed))
        else:
            raise SystemExit(f"unknown clip '{name}'; choose from: {', '.join([*available_clip_names(), *objects])}")
    return clips


# ----------------------------------------------------------------------------------------------------
# noise


def noise_seed(clip: str, sigma_255: float, seed: int = 0) -> list[int]:
    """The numpy seed sequence of one (clip, σ) draw."""
    return [int(seed), zlib.crc32(clip.encode()), int(round(100 * sigma_255))]


def add_noise_uint8(clean: np.ndarray, sigma_255: float, seed) -> np.ndarray:
    """clean uint8 + Gaussian noise of σ (0-255 scale), rounded and clipped to uint8."""
    if sigma_255 == 0:
        return clean.copy()
    rng = np.random.default_rng(seed)
    noisy = clean.astype(np.float64) + sigma_255 * rng.standard_normal(clean.shape)
    return np.clip(np.round(noisy), 0, 255).astype(np.uint8)


# ----------------------------------------------------------------------------------------------------
# methods: (noisy uint8 (T, 3, H, W), σ on the 0-255 scale) → (estimate (T, 3, H, W) in [0, 1], info)


@dataclass
class Method:
    name: str
    kind: str  # "reference", "model" or "classical"
    description: str
    run: Callable[[np.ndarray, float], tuple[np.ndarray, dict]]
    sigmas: tuple[float, ...] | None = None  # the σ it runs at (None: all)
    checkpoint: str | None = None
    sigma_mode: str | None = None  # "known" or "auto" for models


def run_noisy(noisy: np.ndarray, sigma_255: float) -> tuple[np.ndarray, dict]:
    return noisy.astype(np.float32) / 255.0, {}


def opencv_h(sigma_255: float) -> tuple[float, float]:
    """(h, hColor) of OpenCV's coloured NLM for a noise level σ (0-255)."""
    sigma_255 = max(sigma_255, CLASSICAL_MIN_SIGMA)
    h = max(OPENCV_H * sigma_255, OPENCV_MIN_H)
    return h, h


def run_nlm_opencv(noisy: np.ndarray, sigma_255: float, window: int = NLM_WINDOW) -> tuple[np.ndarray, dict]:
    """OpenCV temporal NLM on every frame with a full, reflected, centred window of `window` frames."""
    import cv2

    images = np.ascontiguousarray(np.moveaxis(noisy, 1, -1)[..., ::-1])  # (T, H, W, 3) BGR
    total, half = len(images), window // 2
    h, h_colour = opencv_h(sigma_255)
    out = np.empty_like(images)
    for t in range(total):
        stack = [images[reflect(k, total)] for k in range(t - half, t + half + 1)]
        out[t] = cv2.fastNlMeansDenoisingColoredMulti(stack, half, window, None, h, h_colour, 7, 21)
    return (
        np.moveaxis(out[..., ::-1], -1, 1).astype(np.float32) / 255.0,
        {"h": h, "h_colour": h_colour, "sigma_used_255": max(sigma_255, CLASSICAL_MIN_SIGMA)},
    )


def run_nlm_skimage(noisy: np.ndarray, sigma_255: float) -> tuple[np.ndarray, dict]:
    from skimage.restoration import denoise_nl_means

    sigma = max(sigma_255, CLASSICAL_MIN_SIGMA) / 255.0
    out = np.empty(noisy.shape, dtype=np.float32)
    for t, frame in enumerate(noisy):
        image = np.moveaxis(frame, 0, -1).astype(np.float32) / 255.0
        result = denoise_nl_means(
            image, h=SKIMAGE_NLM_H * sigma, sigma=sigma, fast_mode=True, patch_size=5, patch_distance=6, channel_axis=-1
        )
        out[t] = np.moveaxis(result, -1, 0)
    return out, {"h": SKIMAGE_NLM_H * sigma * 255, "sigma_used_255": sigma * 255}


def run_cbm3d(noisy: np.ndarray, sigma_255: float) -> tuple[np.ndarray, dict]:
    import bm3d

    sigma = max(sigma_255, CLASSICAL_MIN_SIGMA) / 255.0
    out = np.empty(noisy.shape, dtype=np.float32)
    for t, frame in enumerate(noisy):
        image = np.moveaxis(frame, 0, -1).astype(np.float64) / 255.0
        out[t] = np.moveaxis(bm3d.bm3d_rgb(image, sigma), -1, 0)
    return out, {"sigma_used_255": sigma * 255}


def run_bm4d(noisy: np.ndarray, sigma_255: float) -> tuple[np.ndarray, dict]:
    import bm4d

    sigma = max(sigma_255, CLASSICAL_MIN_SIGMA) / 255.0
    total = len(noisy)
    # BM4D's blocks (4³, then 5³) need at least 5 frames: shorter clips are extended by reflection, then cut back
    frames = noisy[[reflect(k, total) for k in range(max(total, BM4D_MIN_FRAMES))]]
    # BM4D per channel of the orthonormal opponent colours the Denoiser uses (the inverse is the transpose)
    transform = OPPONENT.double().numpy()
    opponent = np.einsum("oc,tchw->othw", transform, frames.astype(np.float64) / 255.0)  # (3, T, H, W)
    estimate = np.stack([np.asarray(bm4d.bm4d(channel, sigma), dtype=np.float64)[:total] for channel in opponent])
    return np.einsum("oc,othw->tchw", transform, estimate).astype(np.float32), {"sigma_used_255": sigma * 255}


def package_available(name: str) -> bool:
    try:
        __import__(name)
    except Exception:  # noqa: BLE001 - any failure to import means "not usable here"
        return False
    return True


def classical_methods(
    names: list[str], bm_sigmas: tuple[float, ...] | None = None
) -> tuple[list[Method], dict[str, str]]:
    """The classical methods asked for that can run here, and {name: why skipped} for the others."""
    table = {
        "noisy": Method("noisy", "reference", "the noisy 8-bit input", run_noisy),
        "nlm-opencv": Method(
            "nlm-opencv",
            "classical",
            f"cv2.fastNlMeansDenoisingColoredMulti, window {NLM_WINDOW} reflected at the ends, "
            f"template 7, search 21, h = hColor = max({OPENCV_H}·σ, {OPENCV_MIN_H:g})",
            run_nlm_opencv,
        ),
        "nlm-skimage": Method(
            "nlm-skimage",
            "classical",
            f"skimage denoise_nl_means per frame, fast mode, patch 5, distance 6, sigma = σ, h = {SKIMAGE_NLM_H}·σ",
            run_nlm_skimage,
        ),
        "cbm3d": Method(
            "cbm3d",
            "classical",
            "bm3d.bm3d_rgb per frame, sigma_psd = σ, profile np, opponent colour",
            run_cbm3d,
            sigmas=bm_sigmas,
        ),
        "bm4d": Method(
            "bm4d",
            "classical",
            "bm4d.bm4d per opponent-colour channel on the T×H×W volume, sigma_psd = σ",
            run_bm4d,
            sigmas=bm_sigmas,
        ),
    }
    methods, skipped = [], {}
    for name in names:
        if name in ("cbm3d", "bm4d"):
            package = "bm3d" if name == "cbm3d" else "bm4d"
            if not package_available(package):
                skipped[name] = f"the '{package}' package does not import; {INSTALL_HINT}"
                continue
        methods.append(table[name])
    return methods, skipped


# Options a --checkpoint may carry after its path (NAME=PATH,key=value,...), one lever each, so that an
# ablation runs the same weights several ways in one run:
#   patch_stride=N   the model's patch stride (DUST's and UT's weights do not depend on it): denser patches
#   window_stride=N  frames kept per 5-frame window (1: every frame centred in its own window)
#   colour=rgb       a grey model on R, G and B instead of the opponent colour space
#   range=off        ignore a noise-conditional checkpoint's σ range: rescale the input to σ_train instead
#   quality=best     clean's --quality best preset (videodenoise.denoise.settings.PRESETS; default fast)
#   fusion=off       the model alone, without motion-compensated temporal fusion (clean --no-fusion)
#   fusion_radius=N  fuse N neighbours each side instead of FusionSettings' default
#   precision=bf16   the model under bfloat16 autocast (clean --precision bf16; fp32 by default)
#   calibrate=on     choose the told σ scale per clip (clean --calibrate; videodenoise.denoise.calibration)
#   calibrate_dark=on  choose it where σ auto finds the clip dark (clean --calibrate-dark)
#   camera_bias=off  under σ auto, leave a camera gamma's bias (clean --no-camera-bias; denoise.camera_bias)
#   unclip=off       leave the bias clipped noise leaves (clean --no-unclip; videodenoise.denoise.clipping)
#   mirrors=N        average the estimates of N mirror images (clean --mirrors)
#   passes=2         denoise twice, fusion steered by the first pass (clean --passes 2)
#   guide_patch_stride=N  the first of two passes at this patch stride (clean --guide-patch-stride)
#   guided_strength=X  the second pass's fusion bandwidth (FusionSettings.guided_strength)
#   exposure=on      fusion scales each neighbour to the frame's exposure (FusionSettings.match_exposure)
#   chain=on         fusion reaches far neighbours along consecutive frames' flows (FusionSettings.chain_flows)
#   flow=P           fusion's DIS preset: ultrafast, fast or medium (FusionSettings.flow_preset)
#   scales=2         also denoise at half size for the low frequencies (clean --scales 2)
#   wiener=on        refine with a Wiener filter whose pilot is the output (clean --wiener)
#   wiener_stride=N  that filter's patches every N pixels (clean --wiener-stride)
#   wiener_flow=P    the DIS preset of that filter's flow (clean --wiener-flow)
#   sigma_scale=X    tell the model X times the σ measured or given (clean --sigma-scale)
# the options that take on or off, DenoiseSettings' fields of those names
SWITCHES = ("calibrate", "calibrate_dark", "camera_bias", "unclip", "wiener")
CHECKPOINT_OPTIONS = (
    "quality",
    "patch_stride",
    "window_stride",
    "colour",
    "range",
    "fusion",
    "fusion_radius",
    "precision",
    "calibrate",
    "calibrate_dark",
    "camera_bias",
    "unclip",
    "mirrors",
    "passes",
    "guide_patch_stride",
    "guided_strength",
    "exposure",
    "chain",
    "flow",
    "scales",
    "wiener",
    "wiener_stride",
    "wiener_flow",
    "sigma_scale",
)

# the options that set a FusionSettings field directly: option → (field, how its value is read)
FUSION_OPTIONS = {
    "guided_strength": ("guided_strength", float),
    "exposure": ("match_exposure", lambda value: value == "on"),
    "chain": ("chain_flows", lambda value: value == "on"),
    "flow": ("flow_preset", str),
}


def load_denoiser(path: Path, options: dict[str, str], device: str = "auto"):
    """The denoiser `clean` builds, changed by a --checkpoint's options."""
    from videodenoise.cli.clean import denoise_settings
    from videodenoise.denoise.denoiser import Denoiser
    from videodenoise.models.checkpoints import load_checkpoint, read_sigma_train

    given: dict = {"device": device, "fusion": options.get("fusion") != "off"}
    if "patch_stride" in options:
        given["patch_stride"] = int(options["patch_stride"])
    if "window_stride" in options:
        given["stride"] = int(options["window_stride"])
    given.update({key: options[key] for key in ("colour", "precision", "wiener_flow") if key in options})  # as given
    given.update({switch: options[switch] == "on" for switch in SWITCHES if switch in options})
    if "mirrors" in options:
        given["mirrors"] = int(options["mirrors"])
    if "passes" in options:
        given["passes"] = int(options["passes"])
    if "scales" in options:
        given["scales"] = int(options["scales"])
    if "wiener_stride" in options:
        given["wiener_stride"] = int(options["wiener_stride"])
    if "guide_patch_stride" in options:
        given["guide_patch_stride"] = int(options["guide_patch_stride"])
    if "sigma_scale" in options:
        given["sigma_scale"] = float(options["sigma_scale"])
    radius = int(options["fusion_radius"]) if "fusion_radius" in options else None
    quality = options.get("quality", "fast")
    settings = denoise_settings(quality, given, fusion_radius=radius)
    chosen = {field: read(options[option]) for option, (field, read) in FUSION_OPTIONS.items() if option in options}
    if settings.fusion is not None and chosen:
        settings = dataclasses.replace(settings, fusion=dataclasses.replace(settings.fusion, **chosen))
    if options.get("range") == "off":  # rescaled to σ_train instead of told σ: not what clean builds
        model, metadata = load_checkpoint(path)
        denoiser = Denoiser(model, settings, sigma_train=read_sigma_train(metadata, path))
        denoiser.checkpoint = Path(path)
    else:
        denoiser = Denoiser.from_preset(quality, path, settings)  # as clean builds it
    return denoiser


def model_methods(
    checkpoints: dict[str, tuple[Path, dict]], device: str = "auto", modes: tuple[str, ...] = MODES
) -> tuple[list[Method], dict[str, dict]]:
    """Two methods per checkpoint (σ known, σ estimated); the same file with the same options under two
    names runs once."""
    from videodenoise.models.registry import read_metadata

    methods, info, seen = [], {}, {}
    for label, entry in checkpoints.items():
        path, options = entry if isinstance(entry, tuple) else (entry, {})
        key = (str(Path(path).resolve()), tuple(sorted(options.items())))
        if key in seen:
            info[label] = {"path": str(path), "same_as": seen[key]}
            continue
        seen[key] = label
        denoiser = load_denoiser(Path(path), options, device=device)
        metadata = read_metadata(path)
        info[label] = {
            "path": str(path),
            "model": metadata.get("videodenoise_model"),
            "dataset": metadata.get("dataset"),
            "mode": metadata.get("mode"),
            "step": metadata.get("step"),
            "train_split": metadata.get("train_split", "train"),
            "sigma_train_255": denoiser.sigma_train * 255,
            "channels": denoiser.channels,
            "device": str(denoiser.device),
            "options": options,
            "sigma_range_255": None if denoiser.sigma_range is None else [v * 255 for v in denoiser.sigma_range],
        }
        for mode in modes:
            methods.append(
                Method(
                    f"{label}-{mode}",
                    "model",
                    f"{path} via Denoiser.denoise_clip, σ {'given' if mode == 'known' else 'estimated'}",
                    make_model_runner(denoiser, mode),
                    checkpoint=label,
                    sigma_mode=mode,
                )
            )
    return methods, info


def make_model_runner(denoiser, mode: str) -> Callable[[np.ndarray, float], tuple[np.ndarray, dict]]:
    from videodenoise.noise.estimation import estimate_clip_noise

    def run(noisy: np.ndarray, sigma_255: float) -> tuple[np.ndarray, dict]:
        clip = torch.from_numpy(noisy).float().div_(255.0)
        if mode == "known":
            sigma = used = sigma_255 / 255.0
        else:  # what denoise_clip(sigma="auto") does, with the estimate kept: its level is reported
            sigma = estimate_clip_noise(clip, coarse=denoiser.settings.scales == 2)
            used = sigma.level
        estimate = denoiser.denoise_clip(clip, sigma=sigma)
        return estimate.numpy(), {"sigma_used_255": used * 255.0}

    return run


# ----------------------------------------------------------------------------------------------------
# running


CSV_COLUMNS = (
    "method",
    "kind",
    "checkpoint",
    "sigma_mode",
    "clip",
    "clip_kind",
    "sigma_255",
    "sigma_used_255",
    "frames",
    "height",
    "width",
    "psnr",
    "ssim",
    "rmse",
    "noisy_psnr",
    "seconds",
    "seconds_per_frame",
)


def measure(estimate: np.ndarray, clean: np.ndarray) -> dict[str, float]:
    """PSNR, SSIM and RMSE of an estimate rounded to 8 bits, against clean uint8 frames (per frame, averaged)."""
    estimate = to_uint8(estimate).astype(np.float64) / 255.0
    reference = clean.astype(np.float64) / 255.0
    rmse = frame_rmse(estimate, reference)
    return {
        "psnr": float(psnr_from_rmse(rmse).mean()),
        "ssim": float(np.mean(frame_ssim(estimate, reference))),
        "rmse": float(rmse.mean()),
    }


def run_method(method: Method, clip: Clip, noisy: np.ndarray, sigma_255: float) -> dict:
    """One row: the method on one noisy clip, timed and scored."""
    start = time.perf_counter()
    estimate, info = method.run(noisy, sigma_255)
    seconds = time.perf_counter() - start
    if estimate.shape != clip.frames.shape:
        raise RuntimeError(f"{method.name} returned {estimate.shape} for a {clip.frames.shape} clip")
    frames, _, height, width = clip.frames.shape
    row = {
        "method": method.name,
        "kind": method.kind,
        "checkpoint": method.checkpoint or "",
        "sigma_mode": method.sigma_mode or ("known" if method.kind == "classical" else ""),
        "clip": clip.name,
        "clip_kind": clip.kind,
        "sigma_255": float(sigma_255),
        "sigma_used_255": info.get("sigma_used_255", sigma_255 if method.kind != "reference" else ""),
        "frames": frames,
        "height": height,
        "width": width,
        "seconds": seconds,
        "seconds_per_frame": seconds / frames,
    }
    row.update(measure(estimate, clip.frames))
    return row


def run_benchmark(
    clips: list[Clip],
    methods: list[Method],
    sigmas: list[float],
    seed: int = 0,
    log: Callable[[str], None] | None = None,
    after_clip: Callable[[list[dict]], None] | None = None,
) -> list[dict]:
    """Every method on every (clip, σ), all on the same uint8 noisy frames; one row each.

    Each model runs once, untimed, on the first clip's first frames before anything is timed (the first
    call of a torch model pays for allocations that later calls do not)."""
    rows = []
    if clips:
        sample = add_noise_uint8(clips[0].frames[:5], HEADLINE_SIGMA, noise_seed("warm-up", HEADLINE_SIGMA, seed))
        for method in methods:
            if method.kind == "model":
                method.run(sample, HEADLINE_SIGMA)
    for clip in clips:
        for sigma_255 in sigmas:
            noisy = add_noise_uint8(clip.frames, sigma_255, noise_seed(clip.name, sigma_255, seed))
            noisy_psnr = measure(noisy.astype(np.float32) / 255.0, clip.frames)["psnr"]
            for method in methods:
                if method.sigmas is not None and sigma_255 not in method.sigmas:
                    continue
                row = run_method(method, clip, noisy, sigma_255)
                row["noisy_psnr"] = noisy_psnr
                rows.append(row)
                if log is not None:
                    used = row["sigma_used_255"]
                    used = f" (σ used {used:.2f})" if method.sigma_mode == "auto" else ""
                    log(
                        f"  {clip.name:>18}  σ={sigma_255:<4g} {method.name:<18} {row['psnr']:7.2f} dB  "
                        f"SSIM {row['ssim']:.4f}  {row['seconds_per_frame']:.3f} s/frame{used}"
                    )
        if after_clip is not None:
            after_clip(rows)
    return rows


# ----------------------------------------------------------------------------------------------------
# tables


def _mean(values) -> float:
    values = [v for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
    return float(np.mean(values)) if values else float("nan")


def cell(rows: list[dict], method: str, sigma: float, metric: str, clip: str | None = None) -> float:
    return _mean(
        [
            r[metric]
            for r in rows
            if r["method"] == method and r["sigma_255"] == sigma and (clip is None or r["clip"] == clip)
        ]
    )


def format_table(header: list[str], body: list[list[str]]) -> str:
    widths = [max(len(str(line[i])) for line in [header] + body) for i in range(len(header))]
    lines = [
        "| " + " | ".join(str(h).ljust(w) for h, w in zip(header, widths)) + " |",
        "|" + "|".join("-" * (w + 2) if i == 0 else "-" * (w + 1) + ":" for i, w in enumerate(widths)) + "|",
    ]
    for line in body:
        lines.append(
            "| "
            + " | ".join(str(v).ljust(w) if i == 0 else str(v).rjust(w) for i, (v, w) in enumerate(zip(line, widths)))
            + " |"
        )
    return "\n".join(lines)


def _fmt(value: float, digits: int = 2, signed: bool = False) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


def method_order(rows: list[dict]) -> list[str]:
    seen = []
    for r in rows:
        if r["method"] not in seen:
            seen.append(r["method"])
    return seen


def sigma_table(rows: list[dict], metric: str, digits: int) -> str:
    sigmas = sorted({r["sigma_255"] for r in rows})
    header = [f"mean {metric.upper()} over clips"] + [f"σ={s:g}" for s in sigmas]
    body = [[m] + [_fmt(cell(rows, m, s, metric), digits) for s in sigmas] for m in method_order(rows)]
    return format_table(header, body)


def clip_table(rows: list[dict], sigma: float) -> str:
    clips = list(dict.fromkeys(r["clip"] for r in rows))
    header = [f"PSNR at σ={sigma:g}"] + clips + ["mean"]
    body = []
    for m in method_order(rows):
        values = [cell(rows, m, sigma, "psnr", c) for c in clips]
        if all(math.isnan(v) for v in values):
            continue
        body.append([m] + [_fmt(v) for v in values] + [_fmt(_mean(values))])
    return format_table(header, body)


def gap_table(rows: list[dict], ours: list[str], others: list[str]) -> str:
    sigmas = sorted({r["sigma_255"] for r in rows})
    header = ["PSNR gap (dB), mean over clips"] + [f"σ={s:g}" for s in sigmas]
    body = []
    for mine in ours:
        for other in others:
            if other == mine:
                continue
            values = []
            for s in sigmas:
                clips = {r["clip"] for r in rows if r["method"] == other and r["sigma_255"] == s}
                pairs = [(cell(rows, mine, s, "psnr", c), cell(rows, other, s, "psnr", c)) for c in sorted(clips)]
                values.append(_mean([a - b for a, b in pairs]) if pairs else float("nan"))
            body.append([f"{mine} − {other}"] + [_fmt(v, signed=True) for v in values])
    return format_table(header, body)


def paired_row(label: str, a: list[float], b: list[float]) -> tuple[list[str], object, int]:
    """One row of a paired-interval table: (cells, the PairedDifference of a − b, how many pairs a wins)."""
    from videodenoise.evaluation.statistics import paired_difference

    result = paired_difference(a, b)
    ahead = sum(x > y for x, y in zip(a, b))
    cells = [
        label,
        str(len(a)),
        _fmt(result.mean, signed=True),
        f"[{_fmt(result.low, signed=True)}, {_fmt(result.high, signed=True)}]",
        f"{ahead} of {len(a)}",
    ]
    return cells, result, ahead


def interval_table(rows: list[dict], ours: list[str], others: list[str], sigma: float) -> tuple[str, list[dict]]:
    """At one σ, each of ours minus each other method, paired by clip: the mean PSNR difference, its 95 %
    Student-t interval over clips (videodenoise.statistics.paired_difference) and the clips ahead.
    Clips differ far more from each other than one noise draw does, so this is the interval that says
    whether a mean gap would hold on other footage like this."""

    header = [f"at σ={sigma:g}, paired by clip", "clips", "mean gap (dB)", "95 % interval", "clips ahead"]
    body, summary = [], []
    for mine in ours:
        for other in others:
            clips = sorted(
                {r["clip"] for r in rows if r["method"] == other and r["sigma_255"] == sigma}
                & {r["clip"] for r in rows if r["method"] == mine and r["sigma_255"] == sigma}
            )
            if other == mine or not clips:
                continue
            a = [cell(rows, mine, sigma, "psnr", c) for c in clips]
            b = [cell(rows, other, sigma, "psnr", c) for c in clips]
            cells, result, ahead = paired_row(f"{mine} − {other}", a, b)
            body.append(cells)
            summary.append(
                {"method": mine, "other": other, "sigma_255": sigma, **result.to_dict(), "clips_ahead": ahead}
            )
    return format_table(header, body), summary


CSV_NUMERIC = frozenset(
    {"sigma_255", "sigma_used_255", "psnr", "ssim", "rmse", "noisy_psnr", "seconds", "seconds_per_frame"}
)
CSV_INTEGER = frozenset({"frames", "height", "width"})


def merged_runs(runs: list[list[dict]]) -> list[dict]:
    """The rows of several runs' CSVs together (--from-csv, repeated): a checkpoint (or a classical
    method) a later run has replaces all of an earlier run's rows of that name."""
    rows = []
    for index, run in enumerate(runs):
        later = {row.get("checkpoint") or row["method"] for other in runs[index + 1 :] for row in other}
        rows += [row for row in run if (row.get("checkpoint") or row["method"]) not in later]
    return rows


def read_csv(path: Path, numeric: frozenset[str] = CSV_NUMERIC, integer: frozenset[str] = CSV_INTEGER) -> list[dict]:
    """The rows of a quality.csv this script wrote, numbers as numbers (for --from-csv); `numeric`
    and `integer` name the columns read as floats (empty: NaN) and as integers (empty: None)."""
    with open(path, newline="") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        for key in numeric & row.keys():
            row[key] = float(row[key]) if row[key] != "" else float("nan")
        for key in integer & row.keys():
            row[key] = int(row[key]) if row[key] != "" else None
    return rows


def comparison_sets(rows: list[dict]) -> tuple[list[str], list[str]]:
    """(ours, others) of the gap tables: the `current` checkpoint's methods against the classical
    comparators and every other checkpoint run with σ known or estimated."""
    names = method_order(rows)
    kinds = {r["method"]: (r["kind"], r.get("checkpoint") or None, r.get("sigma_mode") or None) for r in rows}
    ours = [m for m in names if kinds[m][1] == "current"] or [m for m in names if kinds[m][0] == "model"][:2]
    others = [m for m in names if m in ("cbm3d", "bm4d", "nlm-opencv")]
    others += [
        m for m in names if kinds[m][0] == "model" and kinds[m][1] != "current" and kinds[m][2] in ("known", "auto")
    ]
    return ours, others


def timing_summary(rows: list[dict], reference: str = "nlm-opencv") -> list[dict]:
    """Per method: seconds per frame over all its cells, and its time / the reference's on the same cells."""
    out = []
    ref = {(r["clip"], r["sigma_255"]): r["seconds"] for r in rows if r["method"] == reference}
    for m in method_order(rows):
        mine = [r for r in rows if r["method"] == m]
        frames = sum(r["frames"] for r in mine)
        pixels = sum(r["frames"] * r["height"] * r["width"] for r in mine)
        seconds = sum(r["seconds"] for r in mine)
        common = [r for r in mine if (r["clip"], r["sigma_255"]) in ref]
        ratio = (
            sum(r["seconds"] for r in common) / sum(ref[(r["clip"], r["sigma_255"])] for r in common)
            if common and ref
            else float("nan")
        )
        out.append(
            {
                "method": m,
                "frames": frames,
                "seconds": seconds,
                "seconds_per_frame": seconds / frames,
                "seconds_per_320x240_frame": seconds / pixels * 320 * 240,
                f"ratio_to_{reference}": ratio,
            }
        )
    return out


def timing_table(summary: list[dict], reference: str = "nlm-opencv") -> str:
    header = ["method", "frames timed", "s/frame", "s per 320×240 frame", f"time / {reference} time"]
    body = [
        [
            s["method"],
            str(s["frames"]),
            _fmt(s["seconds_per_frame"], 3),
            _fmt(s["seconds_per_320x240_frame"], 3),
            _fmt(s[f"ratio_to_{reference}"], 2),
        ]
        for s in summary
    ]
    return format_table(header, body)


def never_worse(rows: list[dict], method: str) -> tuple[str, dict]:
    """At σ ∈ {2, 5, 10}: output PSNR > noisy PSNR, and > the σ = 25 output's; σ = 0: ≥ 45 dB. Per clip."""
    clips = list(dict.fromkeys(r["clip"] for r in rows if r["method"] == method))
    sigmas = sorted({r["sigma_255"] for r in rows if r["method"] == method})
    light = [s for s in LIGHT_SIGMAS if s in sigmas]
    header = [f"{method}: PSNR (noisy)"] + [f"σ={s:g}" for s in light] + (["σ=0 (≥ 45 dB?)"] if 0.0 in sigmas else [])
    body, checks = [], {"better_than_noisy": True, "above_sigma25": True, "clean_45db": True}
    for c in clips:
        line = [c]
        at25 = cell(rows, method, HEADLINE_SIGMA, "psnr", c) if HEADLINE_SIGMA in sigmas else float("nan")
        for s in light:
            r = next(r for r in rows if r["method"] == method and r["clip"] == c and r["sigma_255"] == s)
            better = r["psnr"] > r["noisy_psnr"]
            above = math.isnan(at25) or r["psnr"] > at25
            checks["better_than_noisy"] &= better
            checks["above_sigma25"] &= above
            line.append(
                f"{r['psnr']:.2f} ({r['noisy_psnr']:.2f}) {'ok' if better else 'WORSE'}" + ("" if above else " <σ25")
            )
        if 0.0 in sigmas:
            value = cell(rows, method, 0.0, "psnr", c)
            checks["clean_45db"] &= value >= CLEAN_TARGET_DB
            line.append(f"{value:.2f} {'ok' if value >= CLEAN_TARGET_DB else 'NO'}")
        body.append(line)
    return format_table(header, body), checks


# ----------------------------------------------------------------------------------------------------
# outputs


def atomic_write(path: Path, text: str) -> Path:
    """Write `text` under a temporary name beside `path` and rename it into place (replacing an older run)."""
    from videodenoise.io.atomic import write_text

    return write_text(path, text, overwrite=True, create_parent=True)


def write_csv(rows: list[dict], path: Path, columns: tuple[str, ...] = CSV_COLUMNS) -> Path:
    """`rows` as CSV with `columns` (floats to 6 significant digits), written atomically."""
    import io

    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        line = {}
        for key in columns:
            value = row.get(key, "")
            line[key] = f"{value:.6g}" if isinstance(value, float) else value
        writer.writerow(line)
    return atomic_write(path, buffer.getvalue())


def write_json(data: dict, path: Path) -> Path:
    def safe(value):
        if isinstance(value, float) and not math.isfinite(value):
            return None
        if isinstance(value, dict):
            return {str(k): safe(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [safe(v) for v in value]
        if isinstance(value, (np.floating, np.integer)):
            return safe(value.item())
        if isinstance(value, Path):
            return str(value)
        return value

    return atomic_write(path, json.dumps(safe(data), indent=2, ensure_ascii=False) + "\n")


# ----------------------------------------------------------------------------------------------------
# command line


def parse_floats(text: str) -> list[float]:
    return [float(v) for v in text.split(",") if v.strip()]


def parse_size(text: str) -> tuple[int, int]:
    h, w = text.lower().replace("×", "x").split("x")
    return int(h), int(w)


def parse_modes(value: str) -> tuple[str, ...]:
    """'known,auto' → ('known', 'auto'); an unknown mode is refused (argparse prints the message)."""
    modes = tuple(dict.fromkeys(m.strip() for m in value.split(",") if m.strip()))
    if not modes or any(m not in MODES for m in modes):
        raise argparse.ArgumentTypeError(f"'{value}': choose from {', '.join(MODES)} (comma-separated)")
    return modes


def parse_checkpoints(values: list[str] | None) -> dict[str, tuple[Path, dict]]:
    """NAME=PATH[,key=value...] → {NAME: (PATH, options)}; default: the current and previous defaults."""
    if not values:
        # the previous default as `clean` applied it when it shipped: before motion-compensated fusion
        return {"current": (Path(DEFAULT_CHECKPOINT), {}), "previous": (PREVIOUS_CHECKPOINT, {"fusion": "off"})}
    out = {}
    for value in values:
        if "=" not in value:
            raise SystemExit(f"--checkpoint takes NAME=PATH[,key=value...], got '{value}'")
        name, rest = value.split("=", 1)
        path, *pairs = rest.split(",")
        options = {}
        for pair in pairs:
            key, _, option = pair.partition("=")
            if key not in CHECKPOINT_OPTIONS or not option:
                raise SystemExit(
                    f"unknown checkpoint option '{pair}' in '{value}'; use key=value with a key of "
                    f"{', '.join(CHECKPOINT_OPTIONS)}"
                )
            options[key] = option
        from videodenoise.denoise.settings import PRESETS

        if options.get("quality", "fast") not in PRESETS or any(
            options.get(switch, "on") not in ("on", "off") for switch in ("fusion", *SWITCHES)
        ):
            raise SystemExit(
                f"in '{value}': quality takes {', '.join(PRESETS)}; {', '.join(('fusion', *SWITCHES))} take on or off"
            )
        if not Path(path).is_file():
            raise SystemExit(f"checkpoint '{path}' does not exist")
        from videodenoise.models.registry import read_metadata

        read_metadata(Path(path))  # a corrupt or foreign file is refused here, before any clip is built
        out[name.strip()] = (Path(path), options)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--frames", type=int, default=DEFAULT_FRAMES, help="frames per clip (default %(default)s)")
    parser.add_argument(
        "--size", type=parse_size, default=DEFAULT_SIZE, help="HxW: largest centre crop and pan size (default 240x320)"
    )
    parser.add_argument(
        "--sigmas", type=parse_floats, default=list(DEFAULT_SIGMAS), help="0-255 scale, comma-separated"
    )
    parser.add_argument(
        "--bm-sigmas", type=parse_floats, default=None, help="σ at which CBM3D and BM4D run (default: all --sigmas)"
    )
    parser.add_argument(
        "--clips",
        type=lambda s: [c.strip() for c in s.split(",") if c.strip()],
        default=None,
        help="comma-separated clip names (default: all)",
    )
    parser.add_argument(
        "--methods",
        type=lambda s: [c.strip() for c in s.split(",") if c.strip()],
        default=None,
        help=f"comma-separated from: models, {', '.join(CLASSICAL)} (default: all)",
    )
    parser.add_argument(
        "--checkpoint",
        action="append",
        metavar="NAME=PATH[,key=value...]",
        help="a checkpoint to benchmark (repeatable; default current=<default checkpoint>, "
        "previous=videodenoise/checkpoints/dust-samples-constrained.safetensors); options "
        f"{', '.join(CHECKPOINT_OPTIONS)} apply one lever (see CHECKPOINT_OPTIONS)",
    )
    parser.add_argument(
        "--modes",
        type=parse_modes,
        default=MODES,
        help="how checkpoints get σ, comma-separated: known (told the true σ), auto (estimated); default both",
    )
    parser.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    parser.add_argument("--threads", type=int, default=None, help="torch and OpenCV threads (default: torch's default)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="folder for quality.csv and quality.json")
    parser.add_argument(
        "--from-csv",
        type=Path,
        action="append",
        default=None,
        metavar="CSV",
        help="run nothing: print the gap and interval tables of an earlier run's quality.csv (repeatable: "
        "the runs' rows together, a later run's checkpoint (or method) replacing an earlier one's of that name; the "
        "noise is a function of the seed, clip and σ, so runs with the same seed share their noisy frames)",
    )
    args = parser.parse_args(argv)
    if args.from_csv is not None:
        rows = merged_runs([read_csv(path) for path in args.from_csv])
        ours, others = comparison_sets(rows)
        sigmas = sorted({r["sigma_255"] for r in rows})
        print(sigma_table(rows, "psnr", 2), "\n")
        print(gap_table(rows, ours, others), "\n")
        print(interval_table(rows, ours, others, HEADLINE_SIGMA if HEADLINE_SIGMA in sigmas else sigmas[-1])[0])
        return 0

    import cv2

    if args.threads:
        torch.set_num_threads(args.threads)
        cv2.setNumThreads(args.threads)
    threads = torch.get_num_threads()
    methods_wanted = args.methods or ["models", *CLASSICAL]
    unknown = [m for m in methods_wanted if m not in ("models", *CLASSICAL)]
    if unknown:
        raise SystemExit(f"unknown method(s) {', '.join(unknown)}; choose from: models, {', '.join(CLASSICAL)}")
    sigmas = sorted(set(args.sigmas))
    bm_sigmas = tuple(sorted(set(args.bm_sigmas))) if args.bm_sigmas is not None else None
    checkpoints = parse_checkpoints(args.checkpoint) if "models" in methods_wanted else {}  # refused before the clips

    print(
        f"machine: {cpu_name()}, {threads} torch threads, OpenCV threads {cv2.getNumThreads()}, "
        f"torch {torch.__version__}, OpenCV {cv2.__version__}, Python {platform.python_version()}"
    )
    if motion_module() is None:
        print("note: videodenoise.datasets.motion is not available: the camera pans over photographs are skipped")
    clips = build_clips(args.clips, args.frames, args.size, args.seed)
    for c in clips:
        print(f"clip {c.name}: {c.shape[0]} frames, {c.shape[3]}×{c.shape[2]}, {c.source}")

    methods, skipped = classical_methods([m for m in CLASSICAL if m in methods_wanted], bm_sigmas)
    checkpoint_info: dict[str, dict] = {}
    if "models" in methods_wanted:
        models, checkpoint_info = model_methods(checkpoints, device=args.device, modes=args.modes)
        methods = methods[:1] + models + methods[1:] if methods and methods[0].name == "noisy" else models + methods
    for label, info in checkpoint_info.items():
        if "same_as" in info:
            print(f"checkpoint {label}: {info['path']} is the same file as '{info['same_as']}'; run once")
        else:
            print(
                f"checkpoint {label}: {info['path']} ({info['model']}, {info['channels']} channel(s), trained on "
                f"'{info['dataset']}', σ_train {info['sigma_train_255']:.0f}, step {info['step']}, on {info['device']})"
            )
            if info["dataset"] == "samples" and info.get("train_split", "train") == "train":
                print(
                    f"  note: '{label}' trained on the samples dataset (bigbuckbunny + carphone; bikes was its "
                    "validation clip), so carphone is not held out for it"
                )
    for name, why in skipped.items():
        print(f"skipped {name}: {why}")

    load_before = os.getloadavg()
    started = time.time()
    # the rows so far are written after every clip (quality.partial.csv), so a long run that is stopped keeps them
    partial = args.out / "quality.partial.csv"
    rows = run_benchmark(
        clips, methods, sigmas, seed=args.seed, log=print, after_clip=lambda done: write_csv(done, partial)
    )
    elapsed = time.time() - started
    load_after = os.getloadavg()
    print(
        f"load average (1, 5, 15 min) before: {', '.join(f'{v:.2f}' for v in load_before)}; after: "
        f"{', '.join(f'{v:.2f}' for v in load_after)} (on {os.cpu_count()} CPUs; other jobs slow every timing "
        "below, the ratios less so)"
    )

    n_frames = sum(c.shape[0] for c in clips)
    print(
        f"\n{len(clips)} clips, {n_frames} frames in all; every number below is a mean over frames, then over clips\n"
    )
    print(sigma_table(rows, "psnr", 2), "\n")
    print(sigma_table(rows, "ssim", 4), "\n")
    headline = HEADLINE_SIGMA if HEADLINE_SIGMA in sigmas else sigmas[-1]
    print(clip_table(rows, headline), "\n")
    ours, others = comparison_sets(rows)
    intervals = []
    if ours and others:
        print(gap_table(rows, ours, others), "\n")
        table, intervals = interval_table(rows, ours, others, headline)
        print(table, "\n")
    timings = timing_summary(rows)
    print(timing_table(timings), "\n")
    checks = {}
    for m in methods:
        if m.kind == "model" and m.sigma_mode == "auto" and any(s in sigmas for s in LIGHT_SIGMAS + (0.0,)):
            table, checks[m.name] = never_worse(rows, m.name)
            print(table)
            print(
                f"{m.name}: better than noisy at every light σ on every clip: {checks[m.name]['better_than_noisy']}; "
                f"above its σ=25 result: {checks[m.name]['above_sigma25']}; σ=0 ≥ 45 dB on every clip: "
                f"{checks[m.name]['clean_45db']}\n"
            )
    for name, why in skipped.items():
        print(f"skipped {name}: {why}")

    settings = {
        "command": " ".join([Path(sys.argv[0]).name] + (argv if argv is not None else sys.argv[1:])),
        "frames": args.frames,
        "size": list(args.size),
        "sigmas": sigmas,
        "bm_sigmas": bm_sigmas,
        "seed": args.seed,
        "device": args.device,
        "threads": threads,
        "opencv_threads": cv2.getNumThreads(),
        "machine": {
            "cpu": cpu_name(),
            "torch": torch.__version__,
            "opencv": cv2.__version__,
            "python": platform.python_version(),
            "platform": platform.platform(),
        },
        "noise": "Gaussian, numpy default_rng([seed, crc32(clip), round(100·σ)]), added to 8-bit clean frames, "
        "rounded and clipped to uint8",
        "metrics": "PSNR = −20·log10(RMSE) per frame (RMSE 0 → 200 dB), SSIM (skimage, data_range 1, channel_axis) "
        "per frame, both averaged over frames; outputs rounded to 8 bits first",
        "classical_sigma_floor": CLASSICAL_MIN_SIGMA,
        "clips": [{"name": c.name, "kind": c.kind, "source": c.source, "shape": list(c.shape)} for c in clips],
        "methods": [
            {
                "name": m.name,
                "kind": m.kind,
                "description": m.description,
                "sigmas": list(m.sigmas) if m.sigmas else None,
            }
            for m in methods
        ],
        "checkpoints": checkpoint_info,
        "skipped": skipped,
        "elapsed_seconds": elapsed,
        "timings": timings,
        "checks": checks,
        "intervals": intervals,
        "load_average_before": list(load_before),
        "load_average_after": list(load_after),
        "cpus": os.cpu_count(),
        "mean_psnr": {m: {f"{s:g}": cell(rows, m, s, "psnr") for s in sigmas} for m in method_order(rows)},
        "mean_ssim": {m: {f"{s:g}": cell(rows, m, s, "ssim") for s in sigmas} for m in method_order(rows)},
    }
    csv_path = write_csv(rows, args.out / "quality.csv")
    json_path = write_json(settings, args.out / "quality.json")
    partial.unlink(missing_ok=True)
    print(f"wrote {csv_path} ({len(rows)} rows) and {json_path}; {elapsed:.0f} s")
    return 0


if __name__ == "__main__":
    run_main(main)

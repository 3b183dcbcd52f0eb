"""What does `videodenoise clean` do on noise as cameras and codecs deliver it, against the denoisers
ffmpeg ships, on the quality benchmark's held-out clips?

    .venv/bin/python benchmarks/bench_realnoise.py             # the default grid (about 20 min, idle 2-core CPU)
    .venv/bin/python benchmarks/bench_realnoise.py --quick     # 1 clip, 1 level, 1 CRF, 3 frames
    .venv/bin/python benchmarks/bench_realnoise.py --levels heavy --crfs 23 --skip bm3d
    .venv/bin/python benchmarks/bench_realnoise.py --from-csv benchmarks/results/realnoise/realnoise.csv
    .venv/bin/python benchmarks/bench_realnoise.py --from-csv full.csv --from-csv clean-only.csv --merged-out DIR

What is measured, and how (docs/realnoise.md says it in prose):

* Clips: bench_quality.py's held-out clips, loaded by its loader (bikes, carphone and a camera pan over
  each of BENCHMARK_PHOTOS; --frames frames, centre crops of at most --size), clean frames in 8 bits.
* Noise: `videodenoise.noise.camera.CameraNoise` (shot noise a, read noise b in linear light, per
  channel, through the gamma, quantised to 8 bits, then a real codec at a CRF and decoded back to 8-bit
  RGB). Levels (--levels): the presets of `CAMERA_PRESETS`, light (a = 0.003, b = 0.0001), medium (a =
  0.01, b = 0.0004) and heavy (a = 0.02, b = 0.001), the model's defaults otherwise. Each level at H.264
  (--codec) CRF 18, 23 and 28 (--crfs): 9 conditions. One draw per (clip, level, codec, CRF) from a
  torch.Generator seeded by bench_quality's noise seed sequence [--seed, crc32(clip), 100·CRF] extended
  by crc32(level) and crc32(codec). Every method gets exactly the same noisy uint8 frames.
* Methods (every output rounded to 8 bits before it is scored):
  - `noisy`: the input itself.
  - `clean:NAME` for each --checkpoint NAME=PATH (default current = the shipped default checkpoint):
    `Denoiser.from_preset("fast", PATH)`, `denoise_clip(clip, sigma="auto")`, exactly as `clean` runs it
    (built by bench_quality's `load_denoiser`, which also takes its ,key=value options).
  - `clean:NAME:before`: the same denoiser told the one σ `clean` estimated before the noise level
    function (`--skip one-sigma` leaves it out).
  - `clean:NAME:sigma`: the same denoiser told each σ of --sigma-sweep (0-255 scale); reported at the
    best σ per condition and per clip, and the best σ per clip against the estimate σ̂.
  - σ̂: the noise-level estimator's one σ (--estimator): `nlf` (default) is the RMS of what `clean --sigma
    auto` tells the model, `estimate_clip_noise(clip).told_level` (its noise level function's map times its
    grain); `one-sigma` is `estimate_clip_sigma`, the single σ `clean` estimated before the noise level
    function.
  - `nlm-opencv`: bench_quality's OpenCV temporal NLM (window 5) with h = 0.6·σ̂.
  - `cbm3d`: bench_quality's CBM3D with σ = σ̂, when the `bm3d` package imports.
  - `ffmpeg:FILTER` for dctdnoiz, nlmeans, atadenoise, fftdnoiz (in 2D, and in 3D as fftdnoiz-temporal)
    and bm3d through PyAV's filter graph (frames in as --ffmpeg-format, out as rgb24; the whole clip in
    order through one graph, so the temporal filters see their neighbours; this build's nlmeans has no
    temporal option), each over the
    strength sweep of FFMPEG_FILTERS (--ffmpeg-sweep NAME=v1,v2,... replaces one). Reported at the
    setting with the best mean PSNR over the clips of a condition (one setting for every clip, a
    practitioner tuning once per camera and codec) and at its best setting per clip (an oracle: a
    practitioner tuning each clip by eye); `ffmpeg:any` is the best filter and setting either way.
    Best settings are picked on the very clips they are scored on: both are upper bounds.
* Metrics, against the clean 8-bit frames: bench_quality's `measure` (PSNR and SSIM per frame,
  averaged over frames, then over clips); seconds per frame of each method on each clip (models loaded
  and warmed up beforehand; the σ̂ of nlm-opencv and cbm3d is computed once and not timed).

Outputs: printed tables (per condition, a summary over conditions, paired intervals of clean minus
ffmpeg's best over clips, clips where clean is worse than its input, the σ sweep), and in --out
(default benchmarks/results/realnoise/) realnoise.csv (one row per method, setting, clip and
condition), realnoise.json (the run's settings, machine, noise parameters and summaries) and
realnoise.log (everything printed), each written atomically.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import platform
import sys
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from videodenoise.models.checkpoints import DEFAULT_CHECKPOINT  # noqa: E402
from videodenoise.noise.camera import CAMERA_PRESETS, CameraNoise  # noqa: E402
from videodenoise.noise.estimation import estimate_clip_noise, estimate_clip_sigma  # noqa: E402

import bench_quality as quality  # noqa: E402
from _machine import cpu_name  # noqa: E402
from _script import run_main  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "benchmarks" / "results" / "realnoise"
DEFAULT_FRAMES = 5
DEFAULT_LEVELS = tuple(CAMERA_PRESETS)  # light, medium, heavy
DEFAULT_CRFS = (18, 23, 28)
DEFAULT_CODEC = "h264"
CODECS = ("h264", "h265", "none")
DEFAULT_SIGMA_SWEEP = (5.0, 8.0, 11.0, 14.0, 17.0, 20.0, 25.0, 30.0)
QUICK = {"clips": ["bikes"], "levels": ["medium"], "crfs": [23], "frames": 3}
# what σ̂ can report: name → (what it is, the function of a (T, C, H, W) clip in [0, 1] giving one σ)
ESTIMATORS: dict[str, tuple[str, Callable[[torch.Tensor], float]]] = {
    "nlf": ("estimate_clip_noise(clip).told_level", lambda clip: float(estimate_clip_noise(clip).told_level)),
    "one-sigma": ("estimate_clip_sigma(clip)", lambda clip: float(estimate_clip_sigma(clip))),
}
SKIPPABLE = (
    "sigma-sweep",
    "one-sigma",
    "nlm-opencv",
    "cbm3d",
    "dctdnoiz",
    "nlmeans",
    "atadenoise",
    "fftdnoiz",
    "fftdnoiz-temporal",
    "bm3d",
)
FFMPEG_FORMATS = ("rgb24", "yuv444p")


# ----------------------------------------------------------------------------------------------------
# camera noise


def camera_noise(level: str, codec: str, crf: int | None) -> CameraNoise:
    """The CameraNoise of one condition: the level's preset (`CAMERA_PRESETS`) with the codec and CRF set."""
    if level not in CAMERA_PRESETS:
        raise SystemExit(f"unknown camera-noise level '{level}'; choose --levels from {', '.join(CAMERA_PRESETS)}")
    changes: dict = {"codec": codec} if crf is None else {"codec": codec, "crf": crf}
    return dataclasses.replace(CAMERA_PRESETS[level], **changes)


def condition_name(level: str, codec: str, crf: int | None) -> str:
    """ "medium h264 crf23", or "medium raw" without a codec."""
    return f"{level} raw" if codec == "none" else f"{level} {codec} crf{crf}"


def camera_seed(clip: str, level: str, codec: str, crf: int | None, seed: int = 0) -> int:
    """The 63-bit torch seed of one (clip, level, codec, CRF) draw: bench_quality's noise seed sequence of
    (clip, CRF) extended by the level and the codec."""
    sequence = quality.noise_seed(clip, float(crf or 0), seed) + [
        zlib.crc32(level.encode()),
        zlib.crc32(codec.encode()),
    ]
    return int(np.random.SeedSequence(sequence).generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))


def add_camera_noise(clean: np.ndarray, noise: CameraNoise, seed: int) -> np.ndarray:
    """clean uint8 (T, 3, H, W) through the camera model → uint8 frames of the same shape."""
    clip = torch.from_numpy(np.ascontiguousarray(clean)).float().div_(255.0)
    return quality.to_uint8(noise(clip, generator=torch.Generator().manual_seed(seed)))


def camera_draw(clip: quality.Clip, level: str, codec: str, crf: int | None, seed: int = 0) -> np.ndarray:
    """The benchmark's noisy uint8 frames of one clip under one condition: its camera noise, its seed."""
    return add_camera_noise(
        clip.frames, camera_noise(level, codec, crf), camera_seed(clip.name, level, codec, crf, seed)
    )


def noise_fields(noise: CameraNoise) -> dict:
    """The camera model's parameters, for the log and the JSON."""
    return dataclasses.asdict(noise)


# ----------------------------------------------------------------------------------------------------
# ffmpeg's denoisers through PyAV


@dataclass(frozen=True)
class FfmpegFilter:
    """One of ffmpeg's denoisers and the sweep of its strength."""

    name: str  # the method's name: ffmpeg:NAME
    parameter: str  # what the sweep varies, as ffmpeg names it
    values: tuple[float, ...]
    temporal: bool
    note: str
    ffmpeg_name: str = ""  # the filter as ffmpeg names it, when not `name`
    options: str = ""  # fixed options after the swept one

    def args(self, value: float) -> str:
        if self.name == "atadenoise":  # thresholds B and A of every plane
            return ":".join(f"{p}a={min(value / 2, 0.3):g}:{p}b={value:g}" for p in range(3))
        return f"{self.parameter}={value:g}" + (f":{self.options}" if self.options else "")

    @property
    def filter_name(self) -> str:
        return self.ffmpeg_name or self.name

    def command(self, value: float) -> str:
        """The filter as ffmpeg takes it at strength `value`: "fftdnoiz sigma=25:prev=1:next=1"."""
        return f"{self.filter_name} {self.args(value)}"

    def apply(self, noisy: np.ndarray, value: float, pix_fmt: str = "rgb24", threads: int | None = None) -> np.ndarray:
        """The filter at strength `value` on a uint8 (T, 3, H, W) clip (`ffmpeg_filter`)."""
        return ffmpeg_filter(noisy, self.filter_name, self.args(value), pix_fmt, threads)

    def setting(self, value: float) -> str:
        return f"{self.parameter}={value:g}"


# the sweeps span the best setting of each filter from light noise at CRF 28 to heavy noise at CRF 18 (checked
# on a stand-in camera model; a best setting at either end of its sweep is reported after the tables)
FFMPEG_FILTERS: dict[str, FfmpegFilter] = {
    "dctdnoiz": FfmpegFilter(
        "dctdnoiz",
        "sigma",
        (3.0, 4.5, 6.5, 9.0, 13.0, 18.0, 25.0, 35.0, 50.0),
        False,
        "2D DCT hard thresholding at 3·sigma (0-255 scale), 8×8 blocks, default overlap",
    ),
    "nlmeans": FfmpegFilter(
        "nlmeans",
        "s",
        (3.0, 5.0, 7.5, 11.0, 16.0, 22.0, 30.0),
        False,
        "non-local means of strength s, patch 7, research window 15 (defaults); spatial only in this build",
    ),
    "atadenoise": FfmpegFilter(
        "atadenoise",
        "b",
        (0.04, 0.08, 0.14, 0.2, 0.3, 0.45, 0.6, 1.2),
        True,
        "adaptive temporal averaging over up to 9 frames (default): threshold B = b and A = min(b/2, 0.3) "
        "(ffmpeg's default ratio; 0.3 is A's maximum) on every plane",
    ),
    "fftdnoiz": FfmpegFilter(
        "fftdnoiz",
        "sigma",
        (6.5, 9.0, 13.0, 18.0, 25.0, 35.0, 50.0, 70.0, 100.0),
        False,
        "Wiener filtering of overlapping 2D FFT blocks (block 32, overlap 0.5: the defaults); sigma's maximum is 100",
    ),
    "fftdnoiz-temporal": FfmpegFilter(
        "fftdnoiz-temporal",
        "sigma",
        (6.5, 9.0, 13.0, 18.0, 25.0, 35.0, 50.0, 70.0, 100.0),
        True,
        "fftdnoiz in 3D: each block with the previous and the next frame's (prev=1, next=1: the most it takes)",
        ffmpeg_name="fftdnoiz",
        options="prev=1:next=1",
    ),
    "bm3d": FfmpegFilter(
        "bm3d",
        "sigma",
        (10.0, 20.0, 40.0, 80.0, 160.0),
        False,
        "block-matching 3D of strength sigma, every block and group setting at its default (basic estimate)",
    ),
}


def _drain(graph, out: list) -> None:
    import av

    while True:
        try:
            frame = graph.pull()
        except (av.error.BlockingIOError, av.error.EOFError):
            return
        out.append(frame.reformat(format="rgb24").to_ndarray())


def ffmpeg_filter(
    noisy: np.ndarray, name: str, args: str, pix_fmt: str = "rgb24", threads: int | None = None
) -> np.ndarray:
    """ffmpeg's filter `name` with `args` on a uint8 (T, 3, H, W) clip, every frame pushed in order through
    one graph (frames as `pix_fmt`, read back as rgb24); returns uint8 (T, 3, H, W)."""
    import av
    from av.filter import Graph

    total, _, height, width = noisy.shape
    graph = Graph()
    if threads:
        graph.threads = threads
    source = graph.add_buffer(width=width, height=height, format=pix_fmt, time_base=Fraction(1, 25))
    denoiser = graph.add(name, args)
    sink = graph.add("buffersink")
    source.link_to(denoiser)
    denoiser.link_to(sink)
    graph.configure()
    out: list[np.ndarray] = []
    for index, image in enumerate(np.moveaxis(noisy, 1, -1)):
        frame = av.VideoFrame.from_ndarray(np.ascontiguousarray(image), format="rgb24")
        if pix_fmt != "rgb24":
            frame = frame.reformat(format=pix_fmt)
        frame.pts = index
        graph.push(frame)
        _drain(graph, out)
    graph.push(None)
    _drain(graph, out)
    if len(out) != total:
        raise RuntimeError(f"ffmpeg's {name} returned {len(out)} frames for {total}")
    return np.ascontiguousarray(np.moveaxis(np.stack(out), -1, 1))


def ffmpeg_method(spec: FfmpegFilter, value: float, pix_fmt: str, threads: int | None) -> quality.Method:
    def run(noisy: np.ndarray, sigma_255: float) -> tuple[np.ndarray, dict]:
        out = spec.apply(noisy, value, pix_fmt, threads)
        return out.astype(np.float32) / 255.0, {"sigma_used_255": ""}

    return quality.Method(f"ffmpeg:{spec.name}", "ffmpeg", spec.command(value), run)


# ----------------------------------------------------------------------------------------------------
# clean


def clean_method(label: str, denoiser, sigma_255: float | None = None) -> quality.Method:
    """`clean:LABEL` with σ auto (sigma_255 None), or `clean:LABEL:sigma` told sigma_255."""

    def run(noisy: np.ndarray, _: float) -> tuple[np.ndarray, dict]:
        clip = torch.from_numpy(noisy).float().div_(255.0)
        sigma = "auto" if sigma_255 is None else sigma_255 / 255.0
        return denoiser.denoise_clip(clip, sigma=sigma).numpy(), {"sigma_used_255": sigma_255 or ""}

    if sigma_255 is None:
        return quality.Method(f"clean:{label}", "clean", "denoise_clip(sigma='auto')", run, checkpoint=label)
    return quality.Method(f"clean:{label}:sigma", "clean-sweep", f"σ = {sigma_255:g}", run, checkpoint=label)


def clean_before_method(label: str, denoiser) -> quality.Method:
    """`clean:LABEL:before`: the same denoiser told what `clean --sigma auto` estimated before the noise
    level function: one σ, the median of skimage's finest-band estimate over up to 5 frames spread
    over the clip (`estimate_noise_sigma`). The paired comparison with `clean:LABEL` isolates the
    estimator."""
    from videodenoise.noise.single_frame import estimate_noise_sigma

    def run(noisy: np.ndarray, _: float) -> tuple[np.ndarray, dict]:
        clip = torch.from_numpy(noisy).float().div_(255.0)
        picks = sorted({round(i * (len(clip) - 1) / max(min(5, len(clip)) - 1, 1)) for i in range(min(5, len(clip)))})
        sigma = estimate_noise_sigma(clip[picks])
        return denoiser.denoise_clip(clip, sigma=sigma).numpy(), {"sigma_used_255": sigma * 255.0}

    return quality.Method(
        f"clean:{label}:before", "clean", "σ from skimage's estimate (as before)", run, checkpoint=label
    )


# ----------------------------------------------------------------------------------------------------
# running


CSV_COLUMNS = (
    "method",
    "family",
    "checkpoint",
    "setting",
    "setting_value",
    "condition",
    "level",
    "codec",
    "crf",
    "clip",
    "clip_kind",
    "sigma_est_255",
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
CSV_NUMERIC = quality.CSV_NUMERIC | {"setting_value", "sigma_est_255"}
CSV_INTEGER = quality.CSV_INTEGER | {"crf"}


@dataclass
class Sweep:
    """Methods run at several settings of one family (one CSV row per setting)."""

    method: str
    family: str
    settings: list[tuple[str, float, quality.Method]]  # (setting, value, method)
    checkpoint: str = ""


def score(method: quality.Method, clip: quality.Clip, noisy: np.ndarray, sigma_255: float) -> dict:
    """bench_quality's run_method (timed, scored), its row reduced to this benchmark's columns."""
    row = quality.run_method(method, clip, noisy, sigma_255)
    for key in ("kind", "sigma_mode", "sigma_255"):
        row.pop(key, None)
    return row


def run_benchmark(
    clips: list[quality.Clip],
    conditions: list[tuple[str, str, int | None]],
    single: list[quality.Method],
    sweeps: list[Sweep],
    estimate: Callable[[torch.Tensor], float],
    seed: int = 0,
    log: Callable[[str], None] | None = None,
    after_clip: Callable[[list[dict]], None] | None = None,
) -> list[dict]:
    """Every method at every setting on every (clip, condition), all on the same uint8 noisy frames."""
    log = log or (lambda text: None)
    rows: list[dict] = []
    for clip in clips:
        for level, codec, crf in conditions:
            condition = condition_name(level, codec, crf)
            noisy = camera_draw(clip, level, codec, crf, seed)
            noisy_psnr = quality.measure(noisy.astype(np.float32) / 255.0, clip.frames)["psnr"]
            sigma_est = estimate(torch.from_numpy(noisy).float().div_(255.0)) * 255.0
            common = {
                "condition": condition,
                "level": level,
                "codec": codec,
                "crf": crf if crf is not None else "",
                "sigma_est_255": sigma_est,
                "noisy_psnr": noisy_psnr,
            }
            log(f"{clip.name} {condition}: noisy {noisy_psnr:.2f} dB, σ̂ {sigma_est:.2f}")
            for method in single:
                row = score(method, clip, noisy, sigma_est)
                row.update(common, family=method.kind, checkpoint=method.checkpoint or "", setting="", setting_value="")
                rows.append(row)
                log(
                    f"  {method.name:<22} {row['psnr']:6.2f} dB  SSIM {row['ssim']:.4f}  "
                    f"{row['seconds_per_frame']:.3f} s/frame"
                )
            for sweep in sweeps:
                found = []
                for setting, value, method in sweep.settings:
                    row = score(method, clip, noisy, sigma_est)
                    row.update(
                        common, family=sweep.family, checkpoint=sweep.checkpoint, setting=setting, setting_value=value
                    )
                    row["method"] = sweep.method
                    rows.append(row)
                    found.append(row)
                best = max(found, key=lambda r: r["psnr"])
                log(
                    f"  {sweep.method:<22} best {best['setting']} {best['psnr']:6.2f} dB; "
                    + " ".join(f"{r['psnr']:.2f}" for r in found)
                    + f"  ({_mean(r['seconds_per_frame'] for r in found):.3f} s/frame each)"
                )
        if after_clip is not None:
            after_clip(rows)
    return rows


# ----------------------------------------------------------------------------------------------------
# analysis: best settings, derived methods


_mean = quality._mean
_fmt = quality._fmt
format_table = quality.format_table


def conditions_of(rows: list[dict]) -> list[str]:
    return list(dict.fromkeys(r["condition"] for r in rows))


def clips_of(rows: list[dict], condition: str | None = None) -> list[str]:
    return list(dict.fromkeys(r["clip"] for r in rows if condition is None or r["condition"] == condition))


def swept(rows: list[dict]) -> list[str]:
    """The methods with a sweep (rows with a setting value), in order."""
    return list(dict.fromkeys(r["method"] for r in rows if not _missing(r.get("setting_value"))))


def _missing(value) -> bool:
    return value is None or value == "" or (isinstance(value, float) and math.isnan(value))


def _by_setting(rows: list[dict], method: str, condition: str) -> dict[str, dict[str, dict]]:
    """{setting: {clip: row}} of one swept method at one condition, settings in sweep order."""
    out: dict[str, dict[str, dict]] = {}
    for r in rows:
        if r["method"] == method and r["condition"] == condition:
            out.setdefault(r["setting"], {})[r["clip"]] = r
    return out


def best_per_condition(rows: list[dict], method: str, condition: str) -> str | None:
    """The one setting with the best mean PSNR over the condition's clips (settings run on every clip only;
    a tie goes to the first in sweep order)."""
    table = _by_setting(rows, method, condition)
    clips = set(clips_of(rows, condition))
    complete = {s: by for s, by in table.items() if clips <= set(by)}
    if not complete:
        return None
    return max(complete, key=lambda s: (_mean(r["psnr"] for r in complete[s].values()), -list(table).index(s)))


def best_per_clip(rows: list[dict], method: str, condition: str) -> dict[str, str]:
    """{clip: the setting with the best PSNR on that clip} (a tie goes to the first in sweep order)."""
    table = _by_setting(rows, method, condition)
    out: dict[str, str] = {}
    for clip in clips_of(rows, condition):
        candidates = [(by[clip]["psnr"], -i, s) for i, (s, by) in enumerate(table.items()) if clip in by]
        if candidates:
            out[clip] = max(candidates)[2]
    return out


def derived_rows(rows: list[dict]) -> list[dict]:
    """Rows of the reported methods: every single-setting method as run, and every swept method at its best
    setting per condition ("… best/condition") and per clip ("… best/clip"), plus `ffmpeg:any` (the best
    ffmpeg filter and setting) both ways."""
    out = [dict(r, label=method_label(r["method"], r)) for r in rows if _missing(r.get("setting_value"))]
    for condition in conditions_of(rows):
        pooled: list[dict] = []
        for method in swept(rows):
            table = _by_setting(rows, method, condition)
            if not table:
                continue
            if method.startswith("ffmpeg:"):
                pooled += [
                    dict(r, setting=f"{method[7:]} {r['setting']}") for by in table.values() for r in by.values()
                ]
            best = best_per_condition(rows, method, condition)
            if best is not None:
                out += [dict(r, label=f"{method_label(method)} best/condition") for r in table[best].values()]
            for clip, setting in best_per_clip(rows, method, condition).items():
                out.append(dict(table[setting][clip], label=f"{method_label(method)} best/clip (oracle)"))
        if pooled:
            pool = [dict(r, method="ffmpeg:any") for r in pooled]
            best = best_per_condition(pool, "ffmpeg:any", condition)
            if best is not None:
                out += [dict(r, label="ffmpeg:any best/condition") for r in pool if r["setting"] == best]
            for clip, setting in best_per_clip(pool, "ffmpeg:any", condition).items():
                row = next(r for r in pool if r["clip"] == clip and r["setting"] == setting)
                out.append(dict(row, label="ffmpeg:any best/clip (oracle)"))
    return out


def method_label(method: str, row: dict | None = None) -> str:
    """The name a method's rows are reported under (`clean:NAME σ auto`, `nlm-opencv h=0.6σ̂`, ...)."""
    if method.startswith("clean:") and method.endswith(":sigma"):
        return f"{method[:-6]} σ told"
    if method.startswith("clean:"):
        return f"{method} σ auto"
    if method == "nlm-opencv":
        return "nlm-opencv h=0.6σ̂"
    if method == "cbm3d":
        return "cbm3d σ=σ̂"
    return method


def labels_of(derived: list[dict]) -> list[str]:
    """Reported methods in a fixed order: noisy, clean, the classical, ffmpeg's filters, ffmpeg:any."""

    def rank(label: str) -> int:
        if label.startswith("ffmpeg:any"):
            return 5
        return next(
            i for i, p in enumerate(("noisy", "clean:", "nlm-opencv", "cbm3d", "ffmpeg:", "")) if label.startswith(p)
        )

    labels = list(dict.fromkeys(r["label"] for r in derived))
    return sorted(labels, key=lambda label: (rank(label), labels.index(label)))


def cell(derived: list[dict], label: str, condition: str, key: str, clip: str | None = None) -> float:
    return _mean(
        r[key]
        for r in derived
        if r["label"] == label and r["condition"] == condition and (clip is None or r["clip"] == clip)
    )


def _setting_text(derived: list[dict], label: str, condition: str) -> str:
    chosen = list(dict.fromkeys(r["setting"] for r in derived if r["label"] == label and r["condition"] == condition))
    if not chosen or chosen == [""]:
        return ""
    if label.endswith("(oracle)"):
        return "per clip" if len(chosen) > 1 else chosen[0]
    return chosen[0] if len(chosen) == 1 else "varies"


# ----------------------------------------------------------------------------------------------------
# tables


def condition_tables(derived: list[dict]) -> str:
    """Per condition: every reported method's setting, PSNR, SSIM and seconds per frame, means over clips."""
    blocks = []
    for condition in conditions_of(derived):
        clips = clips_of(derived, condition)
        estimates = [r["sigma_est_255"] for r in derived if r["condition"] == condition and r["label"] == "noisy"]
        header = [
            f"{condition} ({len(clips)} clips, σ̂ mean {_fmt(_mean(estimates))})",
            "setting",
            "PSNR",
            "SSIM",
            "s/frame",
        ]
        body = []
        for label in labels_of(derived):
            psnr = cell(derived, label, condition, "psnr")
            if math.isnan(psnr):
                continue
            body.append(
                [
                    label,
                    _setting_text(derived, label, condition),
                    _fmt(psnr),
                    _fmt(cell(derived, label, condition, "ssim"), 4),
                    "—" if label == "noisy" else _fmt(cell(derived, label, condition, "seconds_per_frame"), 3),
                ]
            )
        blocks.append(format_table(header, body))
    return "\n\n".join(blocks)


def summary_table(derived: list[dict], metric: str = "psnr", digits: int = 2) -> str:
    """Mean over clips at each condition, and the mean over conditions."""
    conditions = conditions_of(derived)
    header = [f"mean {metric.upper()} over clips"] + conditions + ["mean"]
    body = []
    for label in labels_of(derived):
        values = [cell(derived, label, c, metric) for c in conditions]
        body.append([label] + [_fmt(v, digits) for v in values] + [_fmt(_mean(values), digits)])
    return format_table(header, body)


def time_table(derived: list[dict]) -> str:
    """Seconds per frame over every (clip, condition) of each reported method, and per 320×240 frame."""
    header = ["method", "frames timed", "s/frame", "s per 320×240 frame"]
    body = []
    for label in labels_of(derived):
        if label == "noisy":
            continue
        mine = [r for r in derived if r["label"] == label]
        frames = sum(r["frames"] for r in mine)
        seconds = sum(r["seconds"] for r in mine)
        pixels = sum(r["frames"] * r["height"] * r["width"] for r in mine)
        body.append([label, str(frames), _fmt(seconds / frames, 3), _fmt(seconds / pixels * 320 * 240, 3)])
    return format_table(header, body)


def clean_labels(derived: list[dict]) -> list[str]:
    return [label for label in labels_of(derived) if label.startswith("clean:") and label.endswith(" σ auto")]


def interval_table(derived: list[dict]) -> tuple[str, list[dict]]:
    """clean (σ auto) minus ffmpeg's best (per clip, and per condition), paired by clip, at every condition and
    over the conditions' mean per clip: mean gap, 95 % t interval over clips, clips ahead."""

    header = ["paired by clip", "clips", "mean gap (dB)", "95 % interval", "clips ahead"]
    body, summary = [], []
    conditions = conditions_of(derived)
    others = [o for o in ("ffmpeg:any best/clip (oracle)", "ffmpeg:any best/condition") if o in labels_of(derived)]
    for mine in clean_labels(derived):
        for other in others:
            for condition in conditions + (["mean over conditions"] if len(conditions) > 1 else []):
                over = conditions if condition == "mean over conditions" else [condition]
                clips = [
                    c
                    for c in clips_of(derived)
                    if all(not math.isnan(cell(derived, m, k, "psnr", c)) for m in (mine, other) for k in over)
                ]
                if not clips:
                    continue
                a = [_mean(cell(derived, mine, k, "psnr", c) for k in over) for c in clips]
                b = [_mean(cell(derived, other, k, "psnr", c) for k in over) for c in clips]
                cells, result, ahead = quality.paired_row(f"{condition}: {mine} − {other}", a, b)
                body.append(cells)
                summary.append(
                    {"method": mine, "other": other, "condition": condition, **result.to_dict(), "clips_ahead": ahead}
                )
    return format_table(header, body), summary


def worse_than_input(derived: list[dict]) -> tuple[str, list[dict]]:
    """Every (condition, clip) where clean with σ auto scores below its own noisy input."""
    found = [
        {
            "method": r["label"],
            "condition": r["condition"],
            "clip": r["clip"],
            "psnr": r["psnr"],
            "noisy_psnr": r["noisy_psnr"],
            "gain": r["psnr"] - r["noisy_psnr"],
        }
        for r in derived
        if r["label"] in clean_labels(derived) and r["psnr"] < r["noisy_psnr"]
    ]
    if not found:
        total = sum(1 for r in derived if r["label"] in clean_labels(derived))
        return f"clean (σ auto) is above its noisy input on every clip at every condition ({total} of {total})", []
    header = ["clean worse than its input", "condition", "clip", "PSNR", "noisy PSNR", "gain"]
    body = [
        [f["method"], f["condition"], f["clip"], _fmt(f["psnr"]), _fmt(f["noisy_psnr"]), _fmt(f["gain"], signed=True)]
        for f in found
    ]
    return format_table(header, body), found


def sigma_sweep_table(rows: list[dict]) -> tuple[str, list[dict]]:
    """Per checkpoint, condition and clip: the σ̂ the estimator gave, the σ of the sweep that scored best
    ("≥" or "≤" when it is the sweep's top or bottom), their ratio, and the PSNR of σ auto and of the best σ."""
    header = ["σ sweep: condition, clip", "σ̂", "best σ", "best σ / σ̂", "PSNR σ auto", "PSNR best σ", "gain"]
    body, summary = [], []
    for method in [m for m in swept(rows) if m.startswith("clean:")]:
        auto = method[: -len(":sigma")]
        for condition in conditions_of(rows):
            table = _by_setting(rows, method, condition)
            values = sorted({r["setting_value"] for by in table.values() for r in by.values()})
            for clip, setting in best_per_clip(rows, method, condition).items():
                row = table[setting][clip]
                best, estimate = row["setting_value"], row["sigma_est_255"]
                at_auto = _mean(
                    r["psnr"] for r in rows if r["method"] == auto and r["condition"] == condition and r["clip"] == clip
                )
                edge = "" if len(values) < 2 else "≥" if best == values[-1] else "≤" if best == values[0] else ""
                ratio = best / estimate if estimate > 0 else float("nan")
                body.append(
                    [
                        f"{method}: {condition}, {clip}",
                        _fmt(estimate),
                        f"{edge}{best:g}",
                        _fmt(ratio),
                        _fmt(at_auto),
                        _fmt(row["psnr"]),
                        _fmt(row["psnr"] - at_auto, signed=True),
                    ]
                )
                summary.append(
                    {
                        "method": method,
                        "condition": condition,
                        "clip": clip,
                        "sigma_est_255": estimate,
                        "best_sigma_255": best,
                        "at_sweep_edge": bool(edge),
                        "ratio": ratio,
                        "psnr_auto": at_auto,
                        "psnr_best_sigma": row["psnr"],
                    }
                )
    lines = [format_table(header, body)] if body else []
    conditions = list(dict.fromkeys(s["condition"] for s in summary))
    if conditions:
        header = ["σ sweep by condition", "mean σ̂", "median best σ", "median best σ / σ̂", "mean gain (dB)"]
        lines.append(
            format_table(
                header,
                [
                    [
                        f"{m}: {c}",
                        _fmt(_mean(s["sigma_est_255"] for s in mine)),
                        f"{np.median([s['best_sigma_255'] for s in mine]):g}",
                        _fmt(float(np.median([s["ratio"] for s in mine]))),
                        _fmt(_mean(s["psnr_best_sigma"] - s["psnr_auto"] for s in mine), signed=True),
                    ]
                    for m in dict.fromkeys(s["method"] for s in summary)
                    for c in conditions
                    if (mine := [s for s in summary if s["method"] == m and s["condition"] == c])
                ],
            )
        )
    return "\n\n".join(lines), summary


def best_settings(rows: list[dict]) -> dict[str, dict[str, dict]]:
    """{method: {condition: {"best": setting, "at_edge": bool}}} of every swept method."""
    out: dict[str, dict[str, dict]] = {}
    for method in swept(rows):
        for condition in conditions_of(rows):
            table = _by_setting(rows, method, condition)
            best = best_per_condition(rows, method, condition)
            if best is not None:
                order = list(table)
                out.setdefault(method, {})[condition] = {
                    "best": best,
                    "at_edge": len(order) > 1 and best in (order[0], order[-1]),
                }
    return out


def report(rows: list[dict], log: Callable[[str], None]) -> dict:
    """Print every table of a run (or of a CSV read back); returns the summaries for the JSON."""
    derived = derived_rows(rows)
    clips, conditions = clips_of(rows), conditions_of(rows)
    frames = sum(next(r["frames"] for r in rows if r["clip"] == c) for c in clips)
    log(
        f"\nclips: {len(clips)} ({frames} frames), conditions: {len(conditions)}; every number is a mean over frames, "
        "then over clips (and in the summary's last column over conditions)\n"
    )
    log(condition_tables(derived) + "\n")
    log(summary_table(derived, "psnr", 2) + "\n")
    log(summary_table(derived, "ssim", 4) + "\n")
    log(time_table(derived) + "\n")
    text, intervals = interval_table(derived)
    log(text + "\n")
    text, worse = worse_than_input(derived)
    log(text + "\n")
    text, sweep = sigma_sweep_table(rows)
    if text:
        log(text + "\n")
    chosen = best_settings(rows)
    edges = [f"{m} at {c} ({v['best']})" for m, by in chosen.items() for c, v in by.items() if v["at_edge"]]
    if edges:
        log("best setting at an edge of its sweep (widen it): " + "; ".join(edges) + "\n")
    labels = labels_of(derived)
    return {
        "mean_psnr": {label: {c: cell(derived, label, c, "psnr") for c in conditions} for label in labels},
        "mean_ssim": {label: {c: cell(derived, label, c, "ssim") for c in conditions} for label in labels},
        "best_settings": chosen,
        "intervals": intervals,
        "clean_worse_than_input": worse,
        "sigma_sweep": sweep,
    }


# ----------------------------------------------------------------------------------------------------
# command line


def parse_list(text: str) -> list[str]:
    return [v.strip() for v in text.split(",") if v.strip()]


def parse_ints(text: str) -> list[int]:
    return [int(v) for v in parse_list(text)]


def parse_sweeps(values: list[str] | None) -> dict[str, FfmpegFilter]:
    """FFMPEG_FILTERS with each NAME=v1,v2,... of --ffmpeg-sweep replacing that filter's sweep."""
    filters = dict(FFMPEG_FILTERS)
    for value in values or []:
        name, _, numbers = value.partition("=")
        if name not in filters or not numbers:
            raise SystemExit(
                f"--ffmpeg-sweep takes NAME=v1,v2,... with NAME one of {', '.join(filters)}; got '{value}'"
            )
        filters[name] = dataclasses.replace(filters[name], values=tuple(quality.parse_floats(numbers)))
    return filters


def load_clips(names: list[str] | None, frames: int, size: tuple[int, int], seed: int) -> list[quality.Clip]:
    """bench_quality's held-out clips."""
    return quality.build_clips(names, frames, size, seed)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--frames", type=int, default=DEFAULT_FRAMES, help="frames per clip (default %(default)s)")
    parser.add_argument(
        "--size",
        type=quality.parse_size,
        default=quality.DEFAULT_SIZE,
        help="HxW: largest centre crop (default 240x320)",
    )
    parser.add_argument("--clips", type=parse_list, default=None, help="comma-separated clip names (default: all)")
    parser.add_argument(
        "--levels",
        type=parse_list,
        default=list(DEFAULT_LEVELS),
        help="camera-noise levels (default light,medium,heavy)",
    )
    parser.add_argument("--crfs", type=parse_ints, default=list(DEFAULT_CRFS), help="codec CRFs (default 18,23,28)")
    parser.add_argument("--codec", choices=CODECS, default=DEFAULT_CODEC, help="the camera's codec (default h264)")
    parser.add_argument(
        "--checkpoint",
        action="append",
        metavar="NAME=PATH[,key=value...]",
        help="a checkpoint for clean (repeatable; default current=<the shipped default>); bench_quality's options",
    )
    parser.add_argument(
        "--sigma-sweep",
        type=quality.parse_floats,
        default=list(DEFAULT_SIGMA_SWEEP),
        help="the σ (0-255) clean is told in the sweep (default 5,8,11,14,17,20,25,30)",
    )
    parser.add_argument(
        "--ffmpeg-sweep",
        action="append",
        metavar="NAME=v1,v2,...",
        help="replace one ffmpeg filter's sweep (repeatable; see FFMPEG_FILTERS for the defaults)",
    )
    parser.add_argument(
        "--ffmpeg-format", choices=FFMPEG_FORMATS, default="rgb24", help="pixel format fed to ffmpeg (default rgb24)"
    )
    parser.add_argument("--skip", type=parse_list, default=[], help=f"comma-separated from: {', '.join(SKIPPABLE)}")
    parser.add_argument(
        "--estimator", default="nlf", choices=list(ESTIMATORS), help="the noise-level estimate reported as σ̂"
    )
    parser.add_argument("--quick", action="store_true", help="smoke run: bikes, medium, CRF 23, 3 frames")
    parser.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    parser.add_argument("--threads", type=int, default=None, help="torch, OpenCV and ffmpeg threads")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="folder for realnoise.csv, .json and .log")
    parser.add_argument(
        "--from-csv",
        type=Path,
        action="append",
        default=None,
        metavar="CSV",
        help="run nothing: print the tables of a CSV; repeated, the runs merged (see merge_runs), and with "
        "--merged-out written there",
    )
    parser.add_argument("--merged-out", type=Path, default=None, help="folder for the merged realnoise.csv and .log")
    parser.add_argument(
        "--noisy-tolerance",
        type=float,
        default=1e-6,
        help="dB by which the runs' noisy PSNRs may differ and still be merged (default: equal; another CPU may "
        "render a pan or encode a clip a hair differently: the log then says how far apart they were)",
    )
    return parser


def merge_runs(runs: list[list[dict]], tolerance: float = 1e-6) -> list[dict]:
    """Several runs' rows as one: a method (with its checkpoint) that a later run measured at a condition
    replaces that method's rows of every earlier run at that condition, so a run of only what changed (say,
    `clean` after a change to the estimator, with `--skip` for ffmpeg's filters) updates a full one, and runs
    of different conditions add up. Every method of a merged table
    must have met the same noisy frames: each run's `noisy` rows must match the others' on every clip and
    condition they share (the noise is a pure function of the seed, clip, level, codec and CRF), or it
    is an error; `tolerance` (dB) lets runs from another CPU, whose pans or encodes differ by a hair, merge."""
    noisy: dict[tuple[str, str], float] = {}
    merged: list[dict] = []
    for index, rows in enumerate(runs):
        for row in rows:
            if row["method"] != "noisy":
                continue
            key = (row["clip"], row["condition"])
            if key in noisy and abs(noisy[key] - row["psnr"]) > tolerance:
                raise SystemExit(
                    f"run {index + 1} has other noisy frames than an earlier run on {key[0]} at {key[1]} "
                    f"(noisy PSNR {row['psnr']:.6f} against {noisy[key]:.6f}): its rows cannot be merged"
                )
            noisy[key] = row["psnr"]
        replaced = {(row["method"], row["checkpoint"], row["condition"]) for row in rows}
        merged = [row for row in merged if (row["method"], row["checkpoint"], row["condition"]) not in replaced]
        merged += rows
    return merged


def noisy_spread(runs: list[list[dict]]) -> float:
    """The largest difference in dB between two runs' noisy PSNRs on the same clip and condition."""
    seen: dict[tuple[str, str], list[float]] = {}
    for rows in runs:
        for row in rows:
            if row["method"] == "noisy":
                seen.setdefault((row["clip"], row["condition"]), []).append(row["psnr"])
    return max((max(v) - min(v) for v in seen.values()), default=0.0)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.from_csv is not None:
        runs = [quality.read_csv(path, CSV_NUMERIC, CSV_INTEGER) for path in args.from_csv]
        rows = merge_runs(runs, args.noisy_tolerance)
        lines: list[str] = []
        apart = noisy_spread(runs)
        if apart > 1e-6:
            note = f"the runs' noisy frames differ: noisy PSNRs up to {apart:.4f} dB apart (--noisy-tolerance)"
            print(note)
            lines.append(note)
        report(rows, lambda text: (print(text), lines.append(text)))
        if args.merged_out is not None:
            args.merged_out.mkdir(parents=True, exist_ok=True)
            sources = ", ".join(str(path) for path in args.from_csv)
            quality.write_csv(rows, args.merged_out / "realnoise.csv", CSV_COLUMNS)
            quality.atomic_write(
                args.merged_out / "realnoise.log", f"merged from {sources}\n" + "\n".join(lines) + "\n"
            )
        return 0
    if args.quick:
        args.clips, args.levels, args.crfs, args.frames = (QUICK[k] for k in ("clips", "levels", "crfs", "frames"))
    unknown = [s for s in args.skip if s not in SKIPPABLE]
    if unknown:
        raise SystemExit(f"unknown --skip {', '.join(unknown)}; choose from: {', '.join(SKIPPABLE)}")

    import cv2

    if args.threads:
        torch.set_num_threads(args.threads)
        cv2.setNumThreads(args.threads)
    lines: list[str] = []

    def log(text: str) -> None:
        print(text, flush=True)
        lines.append(text)

    threads = torch.get_num_threads()
    log(
        f"machine: {cpu_name()}, {os.cpu_count()} CPUs, {threads} torch threads, OpenCV threads "
        f"{cv2.getNumThreads()}, torch {torch.__version__}, OpenCV {cv2.__version__}, "
        f"Python {platform.python_version()}"
    )
    crfs: list[int | None] = [None] if args.codec == "none" else list(dict.fromkeys(args.crfs))
    conditions = [(level, args.codec, crf) for level in dict.fromkeys(args.levels) for crf in crfs]
    noises = {c: camera_noise(*c) for c in conditions}
    for c, noise in noises.items():
        log(f"condition {condition_name(*c)}: {noise!r}")
    estimator_name, estimate = ESTIMATORS[args.estimator]
    log(f"σ̂: {estimator_name}")
    checkpoints = (  # a wrong one is refused before the clips are built
        quality.parse_checkpoints(args.checkpoint) if args.checkpoint else {"current": (Path(DEFAULT_CHECKPOINT), {})}
    )
    clips = load_clips(args.clips, args.frames, args.size, args.seed)
    for c in clips:
        log(f"clip {c.name}: {c.shape[0]} frames, {c.shape[3]}×{c.shape[2]}, {c.source}")

    single = [quality.Method("noisy", "reference", "the noisy 8-bit input", quality.run_noisy)]
    sweeps: list[Sweep] = []
    checkpoint_info = {}
    for label, (path, options) in checkpoints.items():
        denoiser = quality.load_denoiser(path, options, device=args.device)
        checkpoint_info[label] = {"path": str(path), "options": options, "device": str(denoiser.device)}
        log(f"checkpoint {label}: {path} {options or ''} on {denoiser.device}")
        if clips:  # warm-up, untimed: a torch model's first call pays for allocations later calls do not
            denoiser.denoise_clip(torch.from_numpy(clips[0].frames[:3]).float().div_(255.0), sigma=25 / 255)
        single.append(clean_method(label, denoiser))
        if "one-sigma" not in args.skip:  # clean:LABEL:before, told the one σ clean estimated before the NLF
            single.append(clean_before_method(label, denoiser))
        if "sigma-sweep" not in args.skip:
            sweeps.append(
                Sweep(
                    f"clean:{label}:sigma",
                    "clean-sweep",
                    [(f"σ={s:g}", s, clean_method(label, denoiser, s)) for s in args.sigma_sweep],
                    label,
                )
            )
    skipped: dict[str, str] = {}
    if "nlm-opencv" not in args.skip:
        single.append(quality.Method("nlm-opencv", "classical", "OpenCV temporal NLM", quality.run_nlm_opencv))
    if "cbm3d" not in args.skip:
        if quality.package_available("bm3d"):
            single.append(quality.Method("cbm3d", "classical", "CBM3D per frame", quality.run_cbm3d))
        else:
            skipped["cbm3d"] = f"the 'bm3d' package does not import; {quality.INSTALL_HINT}"
    filters = parse_sweeps(args.ffmpeg_sweep)
    for spec in filters.values():
        if spec.name in args.skip:
            continue
        sweeps.append(
            Sweep(
                f"ffmpeg:{spec.name}",
                "ffmpeg",
                [(spec.setting(v), v, ffmpeg_method(spec, v, args.ffmpeg_format, args.threads)) for v in spec.values],
            )
        )
        log(f"ffmpeg {spec.name} ({spec.note}): {spec.parameter} ∈ {{{', '.join(f'{v:g}' for v in spec.values)}}}")
    for name, why in skipped.items():
        log(f"skipped {name}: {why}")

    load_before = os.getloadavg()
    started = time.time()
    partial = args.out / "realnoise.partial.csv"
    rows = run_benchmark(
        clips,
        conditions,
        single,
        sweeps,
        estimate,
        seed=args.seed,
        log=log,
        after_clip=lambda done: quality.write_csv(done, partial, CSV_COLUMNS),
    )
    elapsed = time.time() - started
    load_after = os.getloadavg()
    log(
        f"{elapsed:.0f} s; load average (1, 5, 15 min) before {', '.join(f'{v:.2f}' for v in load_before)}, after "
        f"{', '.join(f'{v:.2f}' for v in load_after)} (on {os.cpu_count()} CPUs)"
    )
    summaries = report(rows, log)
    settings = {
        "command": " ".join([Path(sys.argv[0]).name] + (argv if argv is not None else sys.argv[1:])),
        "frames": args.frames,
        "size": list(args.size),
        "seed": args.seed,
        "device": args.device,
        "threads": threads,
        "machine": {
            "cpu": cpu_name(),
            "cpus": os.cpu_count(),
            "torch": torch.__version__,
            "opencv": cv2.__version__,
            "python": platform.python_version(),
            "platform": platform.platform(),
        },
        "conditions": [
            {"name": condition_name(*c), "level": c[0], "codec": c[1], "crf": c[2], "camera_noise": noise_fields(n)}
            for c, n in noises.items()
        ],
        "noise_seed": "torch.Generator seeded from numpy SeedSequence([seed, crc32(clip), 100·CRF, crc32(level), "
        "crc32(codec)])",
        "estimator": estimator_name,
        "sigma_sweep_255": list(args.sigma_sweep),
        "ffmpeg_format": args.ffmpeg_format,
        "ffmpeg_filters": {
            name: dataclasses.asdict(spec) | {"example_args": spec.args(spec.values[0])}
            for name, spec in filters.items()
            if name not in args.skip
        },
        "skip": args.skip,
        "skipped": skipped,
        "checkpoints": checkpoint_info,
        "clips": [{"name": c.name, "kind": c.kind, "source": c.source, "shape": list(c.shape)} for c in clips],
        "metrics": "bench_quality.measure: outputs rounded to 8 bits; PSNR (RMSE 0 → 200 dB) and SSIM per frame, "
        "averaged over frames, then over clips",
        "elapsed_seconds": elapsed,
        "load_average_before": list(load_before),
        "load_average_after": list(load_after),
        **summaries,
    }
    csv_path = quality.write_csv(rows, args.out / "realnoise.csv", CSV_COLUMNS)
    json_path = quality.write_json(settings, args.out / "realnoise.json")
    partial.unlink(missing_ok=True)
    log(f"wrote {csv_path} ({len(rows)} rows), {json_path} and {args.out / 'realnoise.log'}")
    quality.atomic_write(args.out / "realnoise.log", "\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    run_main(main)

"""What `clean` gives on one held-out clip, against the figures the README's tables were made of (read from the
benchmarks' recorded CSVs, so there is one copy of each figure): a change to what `clean` outputs there shows in the
tests, not only when someone runs the benchmarks again. The camera gamma's step once took the σ = 50 column down by
2.85 dB for a day unnoticed (benchmarks/results/white-clip-skew). A deliberate change to the output re-runs the
benchmark and records its figures anew."""

from __future__ import annotations

import csv
import dataclasses

import pytest
import torch

from helpers import BENCHMARKS, load_benchmark

RESULTS = BENCHMARKS / "results"
CLIP = "astronaut-pan"
TOLERANCE_DB = 0.05  # float arithmetic across CPUs; the run that found the regression moved one clip by 3.7 dB


def recorded(path: str, sigma: float | None = None, **where: str) -> float:
    """The PSNR of the one row of a recorded CSV with these values (and this σ, on the 0-255 scale)."""
    with open(RESULTS / path, newline="") as file:
        rows = [r for r in csv.DictReader(file) if all(r[k] == v for k, v in where.items())]
    rows = [r for r in rows if sigma is None or float(r["sigma_255"]) == sigma]
    assert len(rows) == 1, (path, where, sigma)
    return float(rows[0]["psnr"])


@pytest.fixture(scope="module")
def setting():
    quality = load_benchmark("bench_quality")
    from videodenoise.denoise.denoiser import Denoiser
    from videodenoise.denoise.settings import PRESETS

    clip = quality.build_clips([CLIP], 5, quality.DEFAULT_SIZE)[0]
    cpu = dataclasses.replace(PRESETS["fast"], device="cpu")  # the figures are the CPU's
    return quality, clip, Denoiser.from_preset("fast", settings=cpu)


@pytest.mark.parametrize(
    ("sigma", "path"),
    [(10, "clipping/held-out-presets/quality.csv"), (50, "white-clip-skew/held-out-presets/quality.csv")],
)
def test_gaussian_noise_under_sigma_auto_gives_the_quality_tables_figure(setting, sigma, path):
    quality, clip, denoiser = setting
    noisy = quality.add_noise_uint8(clip.frames, sigma, quality.noise_seed(clip.name, sigma, 0))
    output = denoiser.denoise_clip(torch.from_numpy(noisy).float() / 255, "auto")
    expected = recorded(path, sigma, method="fast-auto", clip=CLIP)
    assert quality.measure(output.numpy(), clip.frames)["psnr"] == pytest.approx(expected, abs=TOLERANCE_DB)


def test_camera_noise_under_sigma_auto_gives_the_real_noise_tables_figure(setting):
    quality, clip, denoiser = setting
    realnoise = load_benchmark("bench_realnoise")
    noisy = realnoise.camera_draw(clip, "medium", "h264", 23)
    output = denoiser.denoise_clip(torch.from_numpy(noisy).float() / 255, "auto")
    expected = recorded(
        "white-clip-skew/realnoise-default/realnoise.csv",
        method="clean:default",
        clip=CLIP,
        condition="medium h264 crf23",
    )
    assert quality.measure(output.numpy(), clip.frames)["psnr"] == pytest.approx(expected, abs=TOLERANCE_DB)

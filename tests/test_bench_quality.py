"""Smoke test of benchmarks/bench_quality.py's building blocks on tiny inputs (no downloads, no timings)."""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys

import numpy as np
import pytest
import torch

from videodenoise.denoise.settings import DenoiseSettings
from videodenoise.models.registry import build_model, save_model
from videodenoise.noise.estimation import estimate_clip_noise
from videodenoise.noise.noise_level_function import NoiseLevelFunction

from helpers import BENCHMARKS, load_benchmark


@pytest.fixture(scope="module")
def bench():
    return load_benchmark("bench_quality")


def tiny_clip(bench, frames: int = 4, height: int = 24, width: int = 32):
    y, x = torch.meshgrid(torch.linspace(0, 1, height), torch.linspace(0, 1, width), indexing="ij")
    clip = torch.stack([torch.stack([(x + 0.05 * t) % 1, y, 0.5 + 0.3 * torch.sin(6 * x + t)]) for t in range(frames)])
    return bench.Clip("tiny", "test", "made in the test", bench.to_uint8(clip))


def test_noise_is_8_bit_deterministic_and_zero_at_sigma_0(bench):
    clean = tiny_clip(bench).frames
    assert clean.dtype == np.uint8 and clean.shape == (4, 3, 24, 32)
    seed = bench.noise_seed("tiny", 25.0)
    a, b = bench.add_noise_uint8(clean, 25.0, seed), bench.add_noise_uint8(clean, 25.0, seed)
    assert a.dtype == np.uint8 and np.array_equal(a, b)
    assert not np.array_equal(a, bench.add_noise_uint8(clean, 25.0, bench.noise_seed("other", 25.0)))
    assert 20 < np.std(a.astype(float) - clean) < 30
    assert np.array_equal(bench.add_noise_uint8(clean, 0.0, bench.noise_seed("tiny", 0.0)), clean)


def test_metrics_of_identical_and_noisy_frames(bench):
    clean = tiny_clip(bench).frames
    same = bench.measure(clean.astype(np.float32) / 255, clean)
    assert same["psnr"] == pytest.approx(200.0) and same["ssim"] == pytest.approx(1.0) and same["rmse"] == 0
    noisy = bench.add_noise_uint8(clean, 25.0, 0)
    worse = bench.measure(noisy.astype(np.float32) / 255, clean)
    assert 18 < worse["psnr"] < 24 and worse["ssim"] < 1


def test_the_auto_mode_tells_the_model_the_noise_level_function_as_clean_does(bench):
    told = []

    class Recording:
        settings = DenoiseSettings()

        def denoise_clip(self, clip, sigma):
            told.append(sigma)
            return clip

    noisy = bench.add_noise_uint8(tiny_clip(bench).frames, 25.0, 0)
    _, extra = bench.make_model_runner(Recording(), "auto")(noisy, 25.0)
    expected = estimate_clip_noise(torch.from_numpy(noisy).float().div_(255.0))
    assert isinstance(told[0], NoiseLevelFunction) and told[0] == expected
    assert extra["sigma_used_255"] == pytest.approx(expected.level * 255)
    bench.make_model_runner(Recording(), "known")(noisy, 25.0)
    assert told[1] == pytest.approx(25 / 255)


def test_centre_crop(bench):
    frames = np.zeros((2, 3, 144, 176), np.uint8)
    assert bench.centre_crop(frames, (240, 320)).shape == (2, 3, 144, 176)
    assert bench.centre_crop(np.zeros((2, 3, 272, 640), np.uint8), (240, 320)).shape == (2, 3, 240, 320)


def test_run_benchmark_writes_rows(bench, tmp_path):
    checkpoint = save_model(build_model("dust", channels=1, layers=2), tmp_path / "tiny.safetensors")
    clip = tiny_clip(bench)
    models, info = bench.model_methods({"tiny": checkpoint, "again": checkpoint}, device="cpu")
    assert [m.name for m in models] == ["tiny-known", "tiny-auto"] and info["again"]["same_as"] == "tiny"
    classical, skipped = bench.classical_methods(["noisy", "nlm-opencv"])
    assert not skipped
    methods = classical[:1] + models + classical[1:]
    rows = bench.run_benchmark([clip], methods, [0.0, 25.0])
    assert len(rows) == 2 * len(methods)
    by = {(r["method"], r["sigma_255"]): r for r in rows}
    assert by[("noisy", 0.0)]["psnr"] == pytest.approx(200.0)
    assert by[("noisy", 25.0)]["psnr"] == pytest.approx(by[("tiny-known", 25.0)]["noisy_psnr"])
    assert by[("tiny-known", 25.0)]["sigma_used_255"] == 25.0
    assert 0 <= by[("tiny-auto", 25.0)]["sigma_used_255"] < 255
    for row in rows:
        assert row["frames"] == 4 and (row["height"], row["width"]) == (24, 32)
        assert np.isfinite(row["psnr"]) and -1 <= row["ssim"] <= 1 and row["seconds_per_frame"] >= 0
    assert by[("tiny-known", 25.0)]["psnr"] > by[("noisy", 25.0)]["psnr"]  # an untrained DUST already denoises

    csv_path = bench.write_csv(rows, tmp_path / "out" / "quality.csv")
    written = list(csv.DictReader(csv_path.open()))
    assert len(written) == len(rows) and set(written[0]) == set(bench.CSV_COLUMNS)
    json_path = bench.write_json({"x": float("inf"), "p": tmp_path}, tmp_path / "out" / "quality.json")
    assert json.loads(json_path.read_text())["x"] is None
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["quality.csv", "quality.json"]  # no temporaries

    # the tables render
    for text in (
        bench.sigma_table(rows, "psnr", 2),
        bench.clip_table(rows, 25.0),
        bench.gap_table(rows, ["tiny-known"], ["nlm-opencv"]),
        bench.timing_table(bench.timing_summary(rows)),
    ):
        assert "tiny-known" in text


def test_missing_packages_are_skipped_with_a_hint(bench, monkeypatch):
    monkeypatch.setattr(bench, "package_available", lambda name: False)
    methods, skipped = bench.classical_methods(["noisy", "cbm3d", "bm4d"])
    assert [m.name for m in methods] == ["noisy"]
    assert set(skipped) == {"cbm3d", "bm4d"} and "[compare]" in skipped["bm4d"]


def test_interval_table_pairs_clips_and_reads_back_from_csv(bench, tmp_path):
    """Hand-made rows: ours beats the other by 1, 2 and 3 dB on three clips → mean 2, t-interval 2 ± 2.48."""
    rows = []
    for clip, (mine, other) in {"a": (31.0, 30.0), "b": (32.0, 30.0), "c": (33.0, 30.0)}.items():
        rows.append(
            {
                "method": "current-known",
                "kind": "model",
                "checkpoint": "current",
                "sigma_mode": "known",
                "clip": clip,
                "sigma_255": 25.0,
                "psnr": mine,
            }
        )
        rows.append(
            {
                "method": "cbm3d",
                "kind": "classical",
                "checkpoint": None,
                "sigma_mode": None,
                "clip": clip,
                "sigma_255": 25.0,
                "psnr": other,
            }
        )
    assert bench.comparison_sets(rows) == (["current-known"], ["cbm3d"])
    text, summary = bench.interval_table(rows, ["current-known"], ["cbm3d"], 25.0)
    half_width = 4.302653 * 1.0 / 3**0.5  # t(0.975, 2)·sd/√n with sd = 1
    assert summary[0]["mean"] == pytest.approx(2.0) and summary[0]["low"] == pytest.approx(2.0 - half_width, abs=1e-5)
    assert summary[0]["clips_ahead"] == 3 and "3 of 3" in text
    written = bench.write_csv(rows, tmp_path / "quality.csv")
    again = bench.read_csv(written)
    assert again[0]["psnr"] == 31.0 and again[0]["sigma_255"] == 25.0
    # a later run of the same checkpoint replaces its rows; the earlier run's comparator stays
    later = [dict(row, method="current-auto", sigma_mode="auto", psnr=row["psnr"] + 1) for row in rows[::2]]
    merged = bench.merged_runs([again, bench.read_csv(bench.write_csv(later, tmp_path / "later.csv"))])
    assert sorted((r["method"], r["psnr"]) for r in merged) == [("cbm3d", 30.0)] * 3 + [
        ("current-auto", 32.0),
        ("current-auto", 33.0),
        ("current-auto", 34.0),
    ]
    assert bench.interval_table(again, *bench.comparison_sets(again), 25.0)[1] == summary


def test_objects_clips_are_the_validation_pans_with_pieces_moving_on_their_own(bench):
    pan, objects = bench.build_clips(["cell-pan", "cell-objects"], frames=4, size=(48, 64))
    again = bench.build_clips(["cell-objects"], frames=4, size=(48, 64))[0]
    assert objects.name == "cell-objects" and objects.kind == "objects"
    assert objects.frames.shape == pan.frames.shape == (4, 3, 48, 64) and objects.frames.dtype == np.uint8
    np.testing.assert_array_equal(objects.frames, again.frames)  # deterministic
    changed = (objects.frames != pan.frames).any(axis=1)  # (T, H, W): where a piece covers the pan
    assert 0 < changed.mean() < 0.9
    with pytest.raises(SystemExit, match="unknown clip 'astronaut-objects'.*cell-objects"):
        bench.build_clips(["astronaut-objects"], frames=2, size=(48, 64))


def test_the_colour_validation_photos_give_pans_and_objects_in_colour(bench):
    pan, objects = bench.build_clips(["china-pan", "flower-objects"], frames=3, size=(48, 64))
    assert (pan.name, pan.kind, objects.name, objects.kind) == ("china-pan", "pan", "flower-objects", "objects")
    for clip in (pan, objects):
        assert clip.frames.shape == (3, 3, 48, 64)
        assert np.abs(clip.frames[:, 0].astype(int) - clip.frames[:, 1]).mean() > 5  # colour
    flower = bench.build_clips(["flower-pan"], frames=3, size=(48, 64))[0]
    assert 0 < (objects.frames != flower.frames).any(axis=1).mean() < 0.9  # pieces moving over the flower pan


def test_the_late_and_the_estimators_validation_photos_give_pans_and_objects_cut_from_their_own_set(bench, monkeypatch):
    from videodenoise.datasets import motion

    loaded = []
    load = motion.load_photo
    monkeypatch.setattr(motion, "load_photo", lambda name: loaded.append(name) or load(name))
    pan, objects = bench.build_clips(["aero-pan", "ascent-objects"], frames=3, size=(48, 64))
    assert (pan.name, pan.kind, objects.name, objects.kind) == ("aero-pan", "pan", "ascent-objects", "objects")
    for clip in (pan, objects):
        assert clip.frames.shape == (3, 3, 48, 64)
        np.testing.assert_array_equal(clip.frames[:, 0], clip.frames[:, 2])  # grey
    assert set(loaded) == set(motion.LATE_VALIDATION_PHOTOS)  # the pieces: none from another set's photographs
    loaded.clear()
    (objects,) = bench.build_clips(["coins-objects"], frames=3, size=(48, 64))
    assert objects.kind == "objects" and set(loaded) == set(motion.ESTIMATOR_VALIDATION_PHOTOS)


@pytest.mark.parametrize("content", [b"not weights", None], ids=["corrupt", "foreign"])
def test_a_wrong_checkpoint_is_one_line_and_status_1_before_any_clip_is_built(tmp_path, content):
    path = tmp_path / "weights.safetensors"
    if content is None:  # a real safetensors file, but no model's
        from safetensors.torch import save_file

        save_file({"x": torch.zeros(2)}, str(path))
    else:
        path.write_bytes(content)
    script = BENCHMARKS / "bench_quality.py"
    done = subprocess.run(
        [sys.executable, str(script), "--checkpoint", f"bad={path}", "--frames", "1", "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip().startswith("error: ") and len(done.stderr.strip().splitlines()) == 1
    assert str(path) in done.stderr and "clip" not in done.stdout


def test_modes_are_known_or_auto_and_anything_else_is_refused(bench):
    assert bench.parse_modes("auto") == ("auto",) and bench.parse_modes("known, auto,known") == ("known", "auto")
    for bad in ("both", "auto,told", ""):
        with pytest.raises(argparse.ArgumentTypeError, match="choose from known, auto"):
            bench.parse_modes(bad)

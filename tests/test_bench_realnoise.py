"""Smoke test of benchmarks/bench_realnoise.py on tiny inputs (no downloads, no timings): the ffmpeg filter
wrapper, the best-setting and best-σ logic on hand-made tables, the noise-level adapter, --from-csv, and
a whole --quick run with a stand-in camera model and an untrained DUST."""

from __future__ import annotations

import csv
import dataclasses
import json

import numpy as np
import pytest
import torch

from videodenoise.models.registry import build_model, save_model

from helpers import load_benchmark as load


@pytest.fixture(scope="module")
def bench():
    load("bench_quality")
    return load("bench_realnoise")


def tiny_clip(quality, frames: int = 3, size: int = 32):
    y, x = torch.meshgrid(torch.linspace(0, 1, size), torch.linspace(0, 1, size), indexing="ij")
    clip = torch.stack([torch.stack([(x + 0.05 * t) % 1, y, 0.5 + 0.3 * torch.sin(6 * x + t)]) for t in range(frames)])
    return quality.Clip("tiny", "test", "made in the test", quality.to_uint8(clip))


def noisy_clip(bench, frames: int = 3, size: int = 32) -> np.ndarray:
    clean = tiny_clip(bench.quality, frames, size).frames
    return bench.quality.add_noise_uint8(clean, 20.0, 0)


def test_ffmpeg_filters_keep_shape_and_dtype_and_change_a_noisy_clip(bench):
    noisy = noisy_clip(bench)
    assert np.array_equal(bench.ffmpeg_filter(noisy, "null", ""), noisy)  # rgb24 in and out: lossless
    for spec in bench.FFMPEG_FILTERS.values():
        value = spec.values[len(spec.values) // 2]
        for pix_fmt in bench.FFMPEG_FORMATS:
            out = spec.apply(noisy, value, pix_fmt)
            assert out.shape == noisy.shape and out.dtype == np.uint8, (spec.name, pix_fmt)
            assert not np.array_equal(out, noisy), (spec.name, pix_fmt)
    assert bench.FFMPEG_FILTERS["atadenoise"].args(1.2).startswith("0a=0.3:0b=1.2:1a=0.3")
    temporal = bench.FFMPEG_FILTERS["fftdnoiz-temporal"]
    assert temporal.command(25.0) == "fftdnoiz sigma=25:prev=1:next=1" and temporal.temporal
    # the 3D filter reads the neighbours: its middle frame differs from the 2D filter's at the same strength
    spatial = bench.FFMPEG_FILTERS["fftdnoiz"].apply(noisy, 25.0)
    assert not np.array_equal(temporal.apply(noisy, 25.0)[1], spatial[1])
    method = bench.ffmpeg_method(bench.FFMPEG_FILTERS["dctdnoiz"], 9.0, "rgb24", None)
    estimate, _ = method.run(noisy, 0.0)
    assert estimate.dtype == np.float32 and estimate.shape == noisy.shape and 0 <= estimate.min() <= estimate.max() <= 1


def row(method: str, clip: str, setting: str, value, psnr: float, condition: str = "c", **extra) -> dict:
    base = {
        "method": method,
        "family": "ffmpeg" if method.startswith("ffmpeg:") else "clean-sweep",
        "checkpoint": "",
        "setting": setting,
        "setting_value": value,
        "condition": condition,
        "level": "medium",
        "codec": "h264",
        "crf": 23,
        "clip": clip,
        "clip_kind": "test",
        "sigma_est_255": 10.0,
        "sigma_used_255": "",
        "frames": 3,
        "height": 32,
        "width": 32,
        "psnr": psnr,
        "ssim": psnr / 100,
        "rmse": 0.01,
        "noisy_psnr": 25.0,
        "seconds": 0.3,
        "seconds_per_frame": 0.1,
    }
    return base | extra


def hand_made_ffmpeg_rows() -> list[dict]:
    """Filter x at settings 1, 2, 3 on clips a and b: mean PSNR 32.5, 31.5, 32.5 (a tie: the first, setting 1,
    is the best per condition), best per clip a → 2 (32), b → 1 (35). Filter y: one setting, 33 and 30."""
    table = {"a": (30.0, 32.0, 31.0), "b": (35.0, 31.0, 34.0)}
    rows = [row("ffmpeg:x", c, f"s={v}", float(v), psnr) for c, ps in table.items() for v, psnr in zip((1, 2, 3), ps)]
    rows += [row("ffmpeg:y", "a", "s=9", 9.0, 33.0), row("ffmpeg:y", "b", "s=9", 9.0, 30.0)]
    noisy = {"method": "noisy", "family": "reference", "setting": "", "setting_value": float("nan")}
    return rows + [row("noisy", c, "", "", 25.0) | noisy for c in "ab"]


def test_best_setting_per_condition_and_per_clip(bench):
    rows = hand_made_ffmpeg_rows()
    assert bench.best_per_condition(rows, "ffmpeg:x", "c") == "s=1"
    assert bench.best_per_clip(rows, "ffmpeg:x", "c") == {"a": "s=2", "b": "s=1"}
    derived = bench.derived_rows(rows)

    def mean(label):
        return bench.cell(derived, label, "c", "psnr")

    assert mean("ffmpeg:x best/condition") == pytest.approx(32.5)
    assert mean("ffmpeg:x best/clip (oracle)") == pytest.approx((32 + 35) / 2)
    assert mean("ffmpeg:y best/condition") == pytest.approx(31.5)
    # ffmpeg:any: per condition the best (filter, setting) by mean is x s=1 (32.5); per clip, y on a (33), x s=1 on b
    assert mean("ffmpeg:any best/condition") == pytest.approx(32.5)
    assert mean("ffmpeg:any best/clip (oracle)") == pytest.approx((33 + 35) / 2)
    assert {r["setting"] for r in derived if r["label"] == "ffmpeg:any best/clip (oracle)"} == {"y s=9", "x s=1"}
    assert mean("noisy") == 25.0
    assert bench.best_settings(rows)["ffmpeg:x"]["c"] == {"best": "s=1", "at_edge": True}
    assert "ffmpeg:x best/clip (oracle)" in bench.condition_tables(derived)


def test_sigma_sweep_picks_the_best_sigma_against_the_estimate(bench):
    """Clip a: best σ 10 (σ̂ 5, ratio 2); clip b: best σ 20, the sweep's top (σ̂ 10, ratio 2, flagged ≥)."""
    psnrs = {"a": {5: 30.0, 10: 31.5, 20: 29.0}, "b": {5: 27.0, 10: 28.0, 20: 28.5}}
    estimates = {"a": 5.0, "b": 10.0}
    rows = [
        row("clean:t:sigma", c, f"σ={s}", float(s), p, sigma_est_255=estimates[c])
        for c, by in psnrs.items()
        for s, p in by.items()
    ]
    rows += [row("clean:t", c, "", "", 30.0, family="clean", sigma_est_255=estimates[c]) for c in psnrs]
    text, summary = bench.sigma_sweep_table(rows)
    by_clip = {s["clip"]: s for s in summary}
    assert by_clip["a"]["best_sigma_255"] == 10 and by_clip["a"]["ratio"] == pytest.approx(2.0)
    assert by_clip["b"]["best_sigma_255"] == 20 and by_clip["b"]["at_sweep_edge"] and not by_clip["a"]["at_sweep_edge"]
    assert by_clip["a"]["psnr_best_sigma"] - by_clip["a"]["psnr_auto"] == pytest.approx(1.5)
    assert "≥20" in text and "+1.50" in text
    assert bench.best_per_condition(rows, "clean:t:sigma", "c") == "σ=10"  # means 28.5, 29.75, 28.75


def test_the_sigma_estimate_is_what_clean_tells_or_the_one_sigma_estimate(bench):
    from videodenoise.noise.estimation import estimate_clip_noise, estimate_clip_sigma

    noisy = torch.from_numpy(noisy_clip(bench)).float() / 255  # σ = 20 added
    name, estimate = bench.ESTIMATORS["nlf"]
    assert "told_level" in name and estimate(noisy) == pytest.approx(float(estimate_clip_noise(noisy).told_level))
    name, estimate = bench.ESTIMATORS["one-sigma"]
    assert estimate(noisy) == pytest.approx(estimate_clip_sigma(noisy)) and 10 < 255 * estimate(noisy) < 30


def test_camera_conditions_and_seeds(bench):
    from videodenoise.noise.camera import CAMERA_PRESETS

    light = bench.camera_noise("light", "h264", 18)
    assert (light.a, light.b, light.codec, light.crf) == (0.003, 0.0001, "h264", 18)  # a and b as stated
    heavy = bench.camera_noise("heavy", "none", None)
    assert heavy == dataclasses.replace(CAMERA_PRESETS["heavy"], codec="none")  # the preset, no codec
    medium = bench.camera_noise("medium", "none", 28)
    assert (medium.a, medium.b, medium.crf) == (0.01, 0.0004, 28)
    with pytest.raises(SystemExit, match="choose --levels from light, medium, heavy"):
        bench.camera_noise("extreme", "h264", 23)
    seed = bench.camera_seed("bikes", "medium", "h264", 23)
    assert seed == bench.camera_seed("bikes", "medium", "h264", 23) and 0 <= seed < 2**63
    assert (
        len({seed, bench.camera_seed("bikes", "heavy", "h264", 23), bench.camera_seed("bikes", "medium", "h264", 28)})
        == 3
    )
    clean = tiny_clip(bench.quality).frames
    a, b = (bench.add_camera_noise(clean, medium, seed) for _ in range(2))
    assert a.dtype == np.uint8 and a.shape == clean.shape and np.array_equal(a, b) and not np.array_equal(a, clean)
    assert bench.condition_name("heavy", "none", None) == "heavy raw"


def test_from_csv_round_trip(bench, tmp_path, capsys):
    rows = hand_made_ffmpeg_rows()
    rows += [row("clean:t", c, "", "", p, family="clean") for c, p in (("a", 34.0), ("b", 24.0))]
    path = bench.quality.write_csv(rows, tmp_path / "realnoise.csv", bench.CSV_COLUMNS)
    again = bench.quality.read_csv(path, bench.CSV_NUMERIC, bench.CSV_INTEGER)
    assert again[0]["psnr"] == 30.0 and again[0]["setting_value"] == 1.0 and again[0]["crf"] == 23
    assert np.isnan(again[-1]["setting_value"])
    assert bench.main(["--from-csv", str(path)]) == 0
    printed = capsys.readouterr().out
    assert "ffmpeg:x best/clip (oracle)" in printed and "32.50" in printed and "33.50" in printed
    assert "clean:t σ auto − ffmpeg:any best/clip (oracle)" in printed  # the paired interval
    worse = printed.split("clean worse than its input")[1].splitlines()[2]  # 24 dB < its noisy 25 dB on clip b
    assert worse.replace(" ", "") == "|clean:tσauto|c|b|24.00|25.00|-1.00|"


def test_a_later_run_replaces_the_methods_it_measured_and_must_share_the_noise(bench, tmp_path, capsys):
    first = hand_made_ffmpeg_rows() + [
        row("clean:t", c, "", "", p, family="clean") for c, p in (("a", 34.0), ("b", 24.0))
    ]
    second = [r for r in first if r["method"] == "noisy"]
    second += [row("clean:t", c, "", "", p, family="clean") for c, p in (("a", 36.0), ("b", 33.0))]
    merged = bench.merge_runs([first, second])
    assert [r["psnr"] for r in merged if r["method"] == "clean:t"] == [36.0, 33.0]  # the later run's
    assert [r for r in merged if r["method"].startswith("ffmpeg")] == [
        r for r in first if r["method"].startswith("ffmpeg")
    ]
    assert sum(r["method"] == "noisy" for r in merged) == 2
    paths = [
        bench.quality.write_csv(rows, tmp_path / f"{i}.csv", bench.CSV_COLUMNS)
        for i, rows in enumerate((first, second))
    ]
    arguments = ["--from-csv", str(paths[0]), "--from-csv", str(paths[1]), "--merged-out", str(tmp_path / "merged")]
    assert bench.main(arguments) == 0
    assert "on every clip at every condition (2 of 2)" in capsys.readouterr().out  # b: 33 dB now, not 24
    again = bench.quality.read_csv(tmp_path / "merged" / "realnoise.csv", bench.CSV_NUMERIC, bench.CSV_INTEGER)
    assert len(again) == len(merged) and (tmp_path / "merged" / "realnoise.log").read_text().startswith("merged from")
    # a run of another condition adds its rows: both conditions' rows of every method stay
    elsewhere = [r | {"condition": "d"} for r in second]
    added = bench.merge_runs([merged, elsewhere])
    assert sorted(r["condition"] for r in added if r["method"] == "clean:t") == ["c", "c", "d", "d"]
    # other noise: refused
    other = [r | {"psnr": 26.0} if r["method"] == "noisy" else r for r in second]
    with pytest.raises(SystemExit, match="other noisy frames"):
        bench.merge_runs([first, other])
    # a hair apart (another CPU): merged when allowed, and the log says how far apart
    hair = [r | {"psnr": 25.01} if r["method"] == "noisy" else r for r in second]
    assert len(bench.merge_runs([first, hair], tolerance=0.02)) == len(merged)
    path = bench.quality.write_csv(hair, tmp_path / "hair.csv", bench.CSV_COLUMNS)
    arguments = ["--from-csv", str(paths[0]), "--from-csv", str(path), "--noisy-tolerance", "0.02"]
    assert bench.main(arguments) == 0
    assert "noisy PSNRs up to 0.0100 dB apart" in capsys.readouterr().out


def test_quick_run_writes_csv_json_and_log(bench, tmp_path, monkeypatch):
    checkpoint = save_model(build_model("dust", layers=2, patch_size=4, stride=2), tmp_path / "tiny.safetensors")
    clip = tiny_clip(bench.quality)
    monkeypatch.setattr(bench, "load_clips", lambda names, frames, size, seed: [clip])
    out = tmp_path / "out"
    argv = ["--quick", "--codec", "none", "--checkpoint", f"tiny={checkpoint}", "--sigma-sweep", "10,25"]
    argv += ["--ffmpeg-sweep", "dctdnoiz=4,9", "--ffmpeg-sweep", "nlmeans=3,8", "--device", "cpu", "--out", str(out)]
    assert bench.main(argv) == 0
    assert sorted(p.name for p in out.iterdir()) == ["realnoise.csv", "realnoise.json", "realnoise.log"]
    rows = list(csv.DictReader((out / "realnoise.csv").open()))
    methods = {r["method"] for r in rows}
    assert {"noisy", "clean:tiny", "clean:tiny:sigma", "nlm-opencv", "ffmpeg:dctdnoiz", "ffmpeg:atadenoise"} <= methods
    assert {r["condition"] for r in rows} == {"medium raw"} and {r["clip"] for r in rows} == {"tiny"}
    assert len([r for r in rows if r["method"] == "ffmpeg:nlmeans"]) == 2
    noisy = [r for r in rows if r["method"] == "noisy"][0]
    assert all(r["noisy_psnr"] == noisy["psnr"] for r in rows)  # every method saw the same noisy frames
    data = json.loads((out / "realnoise.json").read_text())
    assert data["conditions"][0]["camera_noise"]["a"] == 0.01 and data["machine"]["cpu"]
    assert data["sigma_sweep"][0]["best_sigma_255"] in (10, 25)
    assert "ffmpeg:any best/clip (oracle)" in data["mean_psnr"]
    assert "σ sweep" in (out / "realnoise.log").read_text()


def test_codec_ceiling_scores_the_codec_alone_and_sets_the_target_beside_it(bench, tmp_path, monkeypatch, capsys):
    ceiling = load("codec_ceiling")
    clip = tiny_clip(bench.quality, frames=3, size=64)
    # CRF 0 loses only what YUV 4:2:0 does to this clip's sharp colour edges; CRF 45 loses more
    light, heavy = (ceiling.codec_alone(clip.frames, "h264", crf) for crf in (0, 45))
    assert 25 < light < 60 and heavy < light - 1
    rows = [r | {"condition": "light h264 crf23"} for r in hand_made_ffmpeg_rows()]
    condition = {"condition": "light h264 crf23", "family": "clean"}
    rows += [row("clean:t", c, "", "", p, **condition) for c, p in (("a", 34), ("b", 36))]
    path = bench.quality.write_csv(rows, tmp_path / "realnoise.csv", bench.CSV_COLUMNS)
    named = {name: dataclasses.replace(clip, name=name) for name in "ab"}
    monkeypatch.setattr(bench, "load_clips", lambda names, frames, size, seed: [named[n] for n in names])
    assert ceiling.main(["--from-csv", str(path), "--frames", "3"]) == 0
    alone = ceiling.codec_alone(clip.frames, "h264", 23)
    table_row = capsys.readouterr().out.splitlines()[-1].replace(" ", "").split("|")[1:-1]
    # oracle: y on a (33), x s=1 on b (35) → 34; target 35.5; clean:t 35
    assert table_row[0] == "lighth264crf23" and table_row[2:5] == ["35.00", "34.00", "35.50"]
    assert float(table_row[1]) == pytest.approx(alone, abs=0.005)
    assert table_row[6] == ("2of2" if alone < 35.5 else "0of2")
    with pytest.raises(SystemExit, match="choose --clean from: clean:t"):
        ceiling.main(["--from-csv", str(path), "--clean", "clean:other"])


def test_pictures_draws_the_cases_asked_for_and_refuses_others(tmp_path, monkeypatch):
    pictures = load("pictures")
    with pytest.raises(SystemExit, match="--cases: choose from bikes, camera, dark, texture"):
        pictures.main(["--cases", "bikes,grass", "--out", str(tmp_path)])
    drawn = []
    for case in ("bikes", "camera", "dark", "texture"):
        monkeypatch.setattr(pictures, f"{case}_case", lambda *args, case=case: drawn.append(case))
    pictures.main(["--cases", "texture,dark", "--out", str(tmp_path)])
    assert drawn == ["dark", "texture"]

"""Evaluation, baselines, report and the experiment runner: metrics against scikit-image's, the γ sweep,
the same noisy clips for every method, on dataset replicas, a real sample clip and a tiny grid."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import skimage.data
import torch
from safetensors import safe_open
from safetensors.torch import load_file, save_file
from skimage.metrics import mean_squared_error, peak_signal_noise_ratio, structural_similarity

from videodenoise.errors import EvaluationError, ExperimentError, VideodenoiseError
from videodenoise.evaluation.baselines import BASELINES
from videodenoise.evaluation.config import EvalConfig
from videodenoise.evaluation.experiment import ExperimentConfig, load_experiment, run_experiment, train_run
from videodenoise.evaluation.experiment_report import compare_arms
from videodenoise.evaluation.reports import metric_table, write_evaluation_outputs
from videodenoise.evaluation.results import read_results
from videodenoise.evaluation.sweep import evaluate, evaluation_clips, noise_seed
from videodenoise.metrics import clip_metrics, frame_rmse, frame_ssim, psnr_from_rmse
from videodenoise.models.registry import build_model, save_model
from videodenoise.training.config import DataConfig, TrainConfig
from videodenoise.training.trainer import Trainer

import replicas as R
from helpers import run_cli

SIGMA = 25 / 255
CONFIGS = Path(__file__).resolve().parent.parent / "configs"
GIF = Path(skimage.data.__file__).parent / "no_time_for_that_tiny.gif"
TINY = {"layers": 3, "patch_size": 4, "stride": 2}


@pytest.fixture(scope="module")
def ped2(tmp_path_factory):
    root = tmp_path_factory.mktemp("ped2")
    R.make_repackaged(root, "ped2", size=(40, 48))
    return root


def checkpoint(path: Path, model: str = "dust", sigma_train: float = SIGMA, mode: str = "erm", **options) -> Path:
    save_model(
        build_model(model, **{**TINY, **options}),
        path,
        {"mode": mode, "sigma_train": repr(sigma_train), "step": "0", "dataset": "test"},
    )
    return path


def quick(root, **overrides) -> EvalConfig:
    values = dict(
        dataset="ucsd-ped2",
        root=str(root),
        split="test",
        clip_length=3,
        crop=24,
        gammas=[1.0, 2.0],
        seeds=[0, 1],
        baselines=["noisy", "tv"],
        device="cpu",
    )
    values.update(overrides)
    return EvalConfig(**values)


# ---------------------------------------------------------------------------------------------------
# metrics


@pytest.mark.parametrize("channels", [1, 3])
def test_metrics_match_scikit_image_frame_by_frame(channels):
    generator = np.random.default_rng(0)
    clean = generator.random((4, channels, 20, 23)).astype(np.float32)
    estimate = np.clip(clean + 0.1 * generator.standard_normal(clean.shape), 0, 1).astype(np.float32)
    rmse, ssim = frame_rmse(estimate, clean), frame_ssim(torch.from_numpy(estimate), torch.from_numpy(clean))
    for t in range(4):
        a, b = (
            (clean[t, 0], estimate[t, 0])
            if channels == 1
            else (clean[t].transpose(1, 2, 0), estimate[t].transpose(1, 2, 0))
        )
        assert rmse[t] == pytest.approx(np.sqrt(mean_squared_error(a, b)), rel=1e-6)
        assert psnr_from_rmse(rmse[t]) == pytest.approx(peak_signal_noise_ratio(a, b, data_range=1), rel=1e-6)
        kwargs = {} if channels == 1 else {"channel_axis": -1}
        assert ssim[t] == pytest.approx(structural_similarity(a, b, data_range=1, **kwargs), rel=1e-6)
    metrics = clip_metrics(estimate, clean)
    assert metrics["rmse"] == pytest.approx(rmse.mean())  # per frame, then averaged
    assert metrics["psnr"] == pytest.approx(psnr_from_rmse(rmse).mean())
    assert metrics["ssim"] == pytest.approx(ssim.mean())


def test_estimates_are_clamped_before_metrics_and_tiny_frames_have_no_ssim():
    clean = np.full((2, 1, 8, 8), 0.9, np.float32)
    over = clean + 0.5  # 1.4, clamped to 1.0
    assert clip_metrics(over, clean)["rmse"] == pytest.approx(0.1, rel=1e-5)
    assert clip_metrics(over, clean, clamp=False)["rmse"] == pytest.approx(0.5, rel=1e-5)
    assert np.isnan(frame_ssim(np.zeros((1, 1, 2, 9)), np.zeros((1, 1, 2, 9)))).all()


def test_noise_seeds_depend_on_the_clip_seed_and_kind_only():
    assert noise_seed(0, 1, 5, "gaussian") == noise_seed(0, 1, 5, "gaussian")
    seeds = {
        noise_seed(s, v, t, k, l)
        for s in (0, 1)
        for v in (0, 1)
        for t in (0, 5)
        for k in ("gaussian", "uniform")
        for l in (0, 1)
    }
    assert len(seeds) == 32 and all(0 <= s < 2**63 for s in seeds)


# ---------------------------------------------------------------------------------------------------
# baselines


@pytest.mark.parametrize("channels", [1, 3])
@pytest.mark.parametrize("name", [n for n in BASELINES if n != "noisy"])
def test_every_baseline_denoises_a_real_clip(name, channels):
    image = skimage.data.astronaut().astype(np.float32) / 255
    clean = np.stack([image[100 + 2 * t : 148 + 2 * t, 200 + 3 * t : 248 + 3 * t] for t in range(5)]).transpose(
        0, 3, 1, 2
    )
    if channels == 1:
        clean = clean.mean(axis=1, keepdims=True)
    noisy = clean + SIGMA * np.random.default_rng(0).standard_normal(clean.shape).astype(np.float32)
    estimate = BASELINES[name].function(noisy, SIGMA)
    assert estimate.shape == clean.shape
    assert frame_rmse(np.clip(estimate, 0, 1), clean).mean() < 0.75 * frame_rmse(noisy, clean).mean()


def test_opencv_temporal_window_stays_inside_short_clips():
    noisy = np.random.default_rng(0).random((2, 1, 16, 16)).astype(np.float32)  # even length: window 1
    assert BASELINES["nlm-opencv"].function(noisy, SIGMA).shape == noisy.shape
    one = BASELINES["nlm-opencv"].function(noisy[:1], SIGMA)
    assert one.shape == (1, 1, 16, 16)


# ---------------------------------------------------------------------------------------------------
# evaluate


def test_gamma_sweep_uses_sigma_train_times_gamma(ped2, tmp_path):
    weights = checkpoint(tmp_path / "dust.safetensors", sigma_train=20 / 255)
    config = quick(ped2, gammas=[0.5, 2.0], seeds=[0], baselines=["noisy"], clamp=False)
    result = evaluate([weights], config)
    assert result.sigma_train == pytest.approx(20 / 255)
    assert [level.sigma for level in result.levels] == pytest.approx([10 / 255, 40 / 255])
    for level in result.levels:
        noisy = result.cell("noisy", level)
        model = result.cell(weights.stem, level)
        assert noisy["sigma_255"] == pytest.approx(level.gamma * 20)
        # the unclamped noisy input's RMSE is the noise std; the model's layer 0 is that input
        assert noisy["rmse_mean"] == pytest.approx(level.sigma, rel=0.05)
        assert model["layer_mse"][0] == pytest.approx(level.sigma**2, rel=0.1)
    override = evaluate([weights], quick(ped2, gammas=[1.0], seeds=[0], baselines=[], sigma_train=30 / 255))
    assert override.levels[0].sigma == pytest.approx(30 / 255)
    absolute = evaluate([], quick(ped2, sigmas=[15, 50], seeds=[0], baselines=["noisy"], clamp=False))
    assert [level.sigma_255 for level in absolute.levels] == pytest.approx([15, 50])
    assert [level.gamma for level in absolute.levels] == pytest.approx(
        [15 / 25, 2]
    )  # default σ_train 25 without checkpoints


def test_models_and_baselines_see_the_same_noisy_clips(ped2, tmp_path):
    # an untrained UT whose width covers the patch is the identity at every depth, so its row must
    # equal the noisy input's row sample by sample if (and only if) both saw the same noisy clip
    identity = checkpoint(tmp_path / "ut.safetensors", model="ut", width=32)
    result = evaluate([identity], quick(ped2, noises=["gaussian", "uniform"]))
    for noise in ("gaussian", "uniform"):
        model, noisy = result.samples[(identity.stem, noise, "input")], result.samples[("noisy", noise, "input")]
        np.testing.assert_allclose(model["rmse"], noisy["rmse"], rtol=1e-5)
        np.testing.assert_allclose(model["ssim"], noisy["ssim"], rtol=1e-4, atol=1e-6)
    # seeded: the same config gives the same numbers, other seeds other numbers
    again = evaluate([identity], quick(ped2, noises=["gaussian", "uniform"]))
    np.testing.assert_array_equal(
        again.samples[("noisy", "gaussian", "input")]["rmse"], result.samples[("noisy", "gaussian", "input")]["rmse"]
    )
    other = evaluate([], quick(ped2, seeds=[5, 6]))
    assert not np.allclose(
        other.samples[("noisy", "gaussian", "input")]["rmse"], result.samples[("noisy", "gaussian", "input")]["rmse"]
    )


def test_layer_site_perturbs_the_inputs_of_later_layers(ped2, tmp_path):
    identity = checkpoint(tmp_path / "ut.safetensors", model="ut", width=32)
    dust = checkpoint(tmp_path / "dust.safetensors")
    result = evaluate([identity, dust], quick(ped2, sites=["input", "layers"], seeds=[0], baselines=[]))
    level = result.levels[0]
    at_input, at_layers = (
        result.cell(identity.stem, level, site="input"),
        result.cell(identity.stem, level, site="layers"),
    )
    # layer 1 reads the same noisy clip; the identity then carries each extra perturbation to the output
    assert at_layers["layer_mse"][1] == pytest.approx(at_input["layer_mse"][1], rel=1e-5)
    assert at_layers["layer_mse"][3] == pytest.approx(3 * at_input["layer_mse"][1], rel=0.15)
    assert ("tv", "gaussian", "layers") not in result.samples  # baselines have no layers
    with pytest.raises(EvaluationError, match="needs at least one checkpoint"):
        evaluate([], quick(ped2, sites=["layers"]))


def test_model_perturbation_hook_checks_its_input():
    model = build_model("dust", **TINY)
    clip = torch.rand(1, 3, 1, 12, 12)
    with torch.no_grad():
        unperturbed = model(clip, all_layers=True)
        same = model(clip, all_layers=True, perturbations=[None, None, None])
        zero = model(clip, all_layers=True, perturbations=[None, torch.zeros_like(clip), None])
    for a, b, c in zip(unperturbed, same, zero):
        torch.testing.assert_close(a, b)
        torch.testing.assert_close(a, c)
    with pytest.raises(VideodenoiseError, match="3 layers but got 1"):
        model(clip, perturbations=[None])
    with pytest.raises(VideodenoiseError, match="does not match"):
        model(clip, perturbations=[None, torch.zeros(1, 3, 1, 4, 4), None])


def test_limits_pick_evenly_spaced_clips_and_frames(ped2):
    everything = evaluation_clips(quick(ped2, clip_length=2), 1)
    assert len(everything) == 5  # the replica's one test video of 11 frames: starts 0, 2, 4, 6, 8
    assert [start for _, start in evaluation_clips(quick(ped2, clip_length=2, max_clips=3), 1).index] == [0, 4, 8]
    assert [start for _, start in evaluation_clips(quick(ped2, clip_length=2, max_frames=5), 1).index] == [0, 2]
    with pytest.raises(VideodenoiseError):
        evaluate([], quick(ped2, clip_length=20))


def test_mixed_or_disagreeing_checkpoints_are_one_line_errors(ped2, tmp_path):
    grey = checkpoint(tmp_path / "grey.safetensors")
    colour = checkpoint(tmp_path / "colour.safetensors", channels=3)
    other_sigma = checkpoint(tmp_path / "sigma.safetensors", sigma_train=50 / 255)
    with pytest.raises(EvaluationError, match="disagree on channels"):
        evaluate([grey, colour], quick(ped2))
    with pytest.raises(EvaluationError, match="disagree on σ_train"):
        evaluate([grey, other_sigma], quick(ped2))
    with pytest.raises(EvaluationError, match="unknown baseline"):
        quick(ped2, baselines=["bm3d"])
    with pytest.raises(EvaluationError, match="does not exist"):
        evaluate([tmp_path / "missing.safetensors"], quick(ped2))


def test_report_figures_and_files_from_a_trained_constrained_run(ped2, tmp_path):
    config = TrainConfig(
        model="dust",
        model_options=dict(TINY),
        mode="constrained",
        epochs=2,
        batch_size=4,
        device="cpu",
        descent={"alpha": 0.5},
        data=DataConfig(
            dataset="ucsd-ped2",
            root=str(ped2),
            clip_length=3,
            crop=16,
            val_crop=24,
            samples_per_epoch=8,
            val_clips_per_video=1,
        ),
    )
    Trainer(config, tmp_path / "run", quiet=True).fit()
    baseline_free = checkpoint(tmp_path / "plain.safetensors")
    result = evaluate([tmp_path / "run", baseline_free], quick(ped2, gammas=[0.5, 1.0, 3.0]))
    paths = write_evaluation_outputs(result, tmp_path / "out")
    out = tmp_path / "out"
    for name in (
        "results.csv",
        "results.json",
        "report.md",
        "rmse_vs_gamma.png",
        "per_layer_loss.png",
        "multipliers.png",
    ):
        assert (out / name).is_file() and (out / name).stat().st_size > 0, name
    assert paths["report"] == out / "report.md"
    report = (out / "report.md").read_text()
    assert "3 clips × 3 frames = 9 frames" in report and "RMSE ↓" in report and "γ=3 (σ=75) ↓" in report
    assert "**" in report and "![rmse_vs_gamma](rmse_vs_gamma.png)" in report and "weight = 0.75·σ" in report
    rows = list(csv.DictReader(open(out / "results.csv")))
    assert len(rows) == 4 * 3 and {r["method"] for r in rows} == {"run", "plain", "noisy", "tv"}
    assert all(r["clips"] == "3" and r["frames"] == "9" and r["seeds"] == "2" for r in rows)
    assert rows[0]["layer_mse"].count(" ") == 3 and rows[-1]["layer_mse"] == ""
    # each column's best is marked once, lowest RMSE
    table = metric_table(result, "rmse", "gaussian")
    for column in range(3):
        values = [float(row[column + 1].split(" ± ")[0]) for row in table.rows]
        assert [mark[column] for mark in table.best] == [v == min(values) for v in values]
    back = read_results(out)
    assert back.rows() == result.rows()
    json.loads((out / "results.json").read_text())  # strict JSON


def test_evaluate_on_a_real_sample_clip_in_colour(tmp_path):
    folder = tmp_path / "clips"
    folder.mkdir()
    shutil.copy(GIF, folder / "tiny.gif")  # scikit-image's real 24-frame animation, 14 pixels wide
    weights = checkpoint(tmp_path / "colour.safetensors", channels=3)
    result = evaluate(
        [weights],
        EvalConfig(
            dataset="folder",
            root=str(folder),
            split="test",
            clip_length=5,
            max_clips=2,
            gammas=[1.0],
            seeds=[0],
            device="cpu",
        ),
    )
    assert result.channels == 3 and result.n_frames == 10 and result.frame_size == (25, 14)
    assert set(result.methods) == {"colour", *BASELINES}
    noisy = result.cell("noisy", result.levels[0])["rmse_mean"]
    assert all(result.cell(m, result.levels[0])["rmse_mean"] < noisy for m in result.methods if m != "noisy")


def test_evaluate_on_the_samples_bikes_clip(tmp_path):
    from videodenoise.datasets.registry import load_dataset

    try:
        load_dataset("samples")
    except VideodenoiseError:
        pytest.skip("the sample clips are not cached and cannot be fetched here")
    weights = checkpoint(tmp_path / "dust.safetensors")
    result = evaluate(
        [weights],
        EvalConfig(
            dataset="samples",
            split="test",
            crop=32,
            max_clips=1,
            max_frames=20,
            gammas=[1.0, 4.0],
            seeds=[0],
            baselines=["noisy", "wavelet"],
            device="cpu",
        ),
    )
    assert result.clip_names == ["bikes@0"] and result.n_frames == 5
    low, high = (result.cell(weights.stem, level)["rmse_mean"] for level in result.levels)
    assert low < high < result.cell("noisy", result.levels[1])["rmse_mean"]


# ---------------------------------------------------------------------------------------------------
# command line


def test_evaluate_command_prints_the_table_and_writes_the_folder(ped2, tmp_path, capsys, monkeypatch):
    weights = checkpoint(tmp_path / "dust.safetensors")
    code, out, err = run_cli(
        [
            "evaluate",
            weights,
            "--dataset",
            "ucsd-ped2",
            "--root",
            ped2,
            "--clip-length",
            "3",
            "--crop",
            "24",
            "--gammas",
            "1,2",
            "--seeds",
            "0",
            "--baselines",
            "noisy,wavelet",
            "--device",
            "cpu",
            "--out",
            tmp_path / "out",
            "--quiet",
            "--no-figures",
        ],
        capsys,
        monkeypatch,
    )
    assert code == 0, err
    assert "RMSE ↓" in out and "γ=2 (σ=50) ↓" in out and "wavelet" in out and "report:" in out
    assert (tmp_path / "out" / "report.md").is_file() and not (tmp_path / "out" / "rmse_vs_gamma.png").exists()


@pytest.mark.parametrize(
    "args,message",
    [
        (["--gammas", "1,two"], "error: --gammas must be a comma-separated list of numbers"),
        (["--baselines", "bm3d"], "error: unknown baseline in ['bm3d']"),
        (["--site", "middle"], "error: unknown perturbation site"),
        (["--noise", "pink"], "error: unknown noise kind"),
    ],
)
def test_evaluate_bad_options_give_one_line(ped2, capsys, monkeypatch, args, message):
    code, out, err = run_cli(["evaluate", "--dataset", "ucsd-ped2", "--root", ped2, *args], capsys, monkeypatch)
    assert code == 1 and err.startswith(message) and err.count("\n") == 1


# ---------------------------------------------------------------------------------------------------
# experiment


def tiny_grid(root, **overrides) -> dict:
    values = {
        "name": "tiny",
        "models": ["dust", "ut"],
        "modes": ["erm", "constrained"],
        "seeds": [0, 1],
        "datasets": [{"name": "ucsd-ped2", "root": str(root), "label": "ped2"}],
        "training": {
            "epochs": 1,
            "batch_size": 4,
            "device": "cpu",
            "descent": {"alpha": 0.5},
            "data": {"clip_length": 3, "crop": 16, "val_crop": 24, "samples_per_epoch": 8, "val_clips_per_video": 1},
        },
        "model_options": {"dust": dict(TINY), "ut": {**TINY, "width": 16}},
        "evaluation": {
            "gammas": [1, 2],
            "seeds": [0],
            "clip_length": 3,
            "crop": 24,
            "baselines": ["noisy", "tv"],
            "device": "cpu",
        },
    }
    values.update(overrides)
    return values


def test_experiment_end_to_end_on_a_replica(ped2, tmp_path, capsys, monkeypatch):
    config_path = tmp_path / "tiny.json"
    config_path.write_text(json.dumps(tiny_grid(ped2)))
    code, out, err = run_cli(["experiment", config_path, "--out", tmp_path / "exp", "--quiet"], capsys, monkeypatch)
    assert code == 0, err
    exp = tmp_path / "exp"
    runs = sorted(p.name for p in (exp / "runs").iterdir())
    assert runs == sorted(
        f"ped2-{m}-{mode}-seed{s}" for m in ("dust", "ut") for mode in ("erm", "constrained") for s in (0, 1)
    )
    for name in (
        "report.md",
        "cells.csv",
        "baselines.csv",
        "comparisons.csv",
        "binding.csv",
        "rmse_vs_gamma_ped2.png",
        "per_layer_loss_ped2.png",
        "multipliers.png",
        "eval/ped2/report.md",
        "eval/ped2/results.json",
    ):
        assert (exp / name).is_file(), name
    report = (exp / "report.md").read_text()
    assert (
        "## constrained − erm: paired RMSE difference over seeds" in report and "## Do the constraints bind?" in report
    )
    assert "3 clips × 1 noise seeds, 9 frames" in report
    assert "ped2 dust γ=1: constrained − erm RMSE" in out and "over 2 seeds" in out
    comparisons = list(csv.DictReader(open(exp / "comparisons.csv")))
    assert (
        len(comparisons) == 4
        and {c["model"] for c in comparisons} == {"dust", "ut"}
        and {c["seeds"] for c in comparisons} == {"2"}
    )
    # one row per (model, arm, seed, γ) with the columns the robustness study publishes, first
    cells = list(csv.DictReader(open(exp / "cells.csv")))
    assert (
        list(cells[0])[:6] == ["model", "arm", "seed", "gamma", "rmse", "descent_fraction"]
        and len(cells) == 2 * 2 * 2 * 2
    )
    dust_erm = [c for c in cells if c["model"] == "dust" and c["arm"] == "erm" and c["gamma"] == "1.0"]
    assert sorted(c["seed"] for c in dust_erm) == ["0", "1"]
    baselines = list(csv.DictReader(open(exp / "baselines.csv")))
    assert {b["method"] for b in baselines} == {"noisy", "tv"} and {b["gamma"] for b in baselines} == {"1.0", "2.0"}
    noisy_at_1 = [float(b["rmse"]) for b in baselines if b["method"] == "noisy" and b["gamma"] == "1.0"]
    assert noisy_at_1[0] == pytest.approx(TrainConfig().sigma_train, rel=0.1)  # the noisy input's RMSE is about σ
    binding = list(csv.DictReader(open(exp / "binding.csv")))
    assert {b["arm"] for b in binding} == {"constrained"} and len(binding) == 2 * 2 * TINY[
        "layers"
    ]  # models × seeds × layers

    # re-running keeps every finished run and reads the evaluation back
    code, out, err = run_cli(["experiment", config_path, "--out", exp, "--quiet"], capsys, monkeypatch)
    assert code == 0, err
    assert "training" not in out and "up to date" in out
    # more epochs: every run resumes from its checkpoint instead of starting again
    config_path.write_text(
        json.dumps(tiny_grid(ped2, training={**tiny_grid(ped2)["training"], "epochs": 2}, modes=["erm"], seeds=[0]))
    )
    summary = run_experiment(load_experiment(config_path), exp, log=lambda message: None)
    assert {r.status for r in summary["runs"]} == {"resumed"}
    assert json.loads((exp / "runs" / "ped2-dust-erm-seed0" / "summary.json").read_text())["steps"] == 4
    # a run folder of another configuration is never silently reused
    config_path.write_text(
        json.dumps(tiny_grid(ped2, training={**tiny_grid(ped2)["training"], "lr": 0.5}, modes=["erm"], seeds=[0]))
    )
    code, out, err = run_cli(["experiment", config_path, "--out", exp, "--quiet"], capsys, monkeypatch)
    assert code == 1 and "holds a run with other options (lr)" in err


def test_the_robustness_grid_resumes_half_finished(ped2, tmp_path):
    # configs/robustness.toml with its arms and options as shipped, shrunk to tiny sizes on a replica
    shipped = load_experiment(CONFIGS / "robustness.toml")
    small = tiny_grid(ped2)
    grid = shipped.to_dict() | {
        "datasets": small["datasets"],
        "seeds": [0, 1],
        "modes": None,
        "evaluation": small["evaluation"],
        "model_options": small["model_options"],
    }
    grid["training"] = {
        **shipped.training,
        **{k: v for k, v in small["training"].items() if k not in ("data", "descent")},
        "data": {**shipped.training["data"], **small["training"]["data"], "motion_fraction": 0.5},
    }
    del grid["training"]["data"]["train_split"], grid["training"]["data"]["val_split"]
    config = ExperimentConfig(**grid)
    assert list(config.arms) == ["erm", "deep-supervision", "constrained", "resilient", "erm-blind"]
    # stopped after one step of every run: a half-finished grid with a checkpoint in each run
    stopped = ExperimentConfig(**(grid | {"training": {**grid["training"], "max_steps": 1}}))
    first = run_experiment(stopped, tmp_path, evaluate_runs=False, log=lambda message: None)
    assert len(first["runs"]) == 2 * 5 * 2 and {r.status for r in first["runs"]} == {"trained"}
    summary = run_experiment(config, tmp_path, log=lambda message: None)
    assert {r.status for r in summary["runs"]} == {"resumed"}
    for record in summary["runs"]:
        assert json.loads((record.run_dir / "summary.json").read_text())["steps"] == 2  # 1 epoch of 8 clips, batch 4
    assert {(c["model"], c["a"], c["b"]) for c in summary["comparisons"]} >= {
        (m, a, "erm") for m in ("dust", "ut") for a in ("constrained", "resilient", "deep-supervision", "erm-blind")
    }
    assert {b["arm"] for b in csv.DictReader(open(summary["files"]["binding"]))} == {"constrained", "resilient"}
    again = run_experiment(config, tmp_path, log=lambda message: None)
    assert {r.status for r in again["runs"]} == {"done"}


def test_a_run_killed_before_its_first_checkpoint_starts_again(ped2, tmp_path):
    config = ExperimentConfig(**tiny_grid(ped2, models=["dust"], modes=["erm"], seeds=[0]))
    run = tmp_path / "runs" / "ped2-dust-erm-seed0"
    run.mkdir(parents=True)
    (run / "config.json").write_text(json.dumps(config.train_config(config.datasets[0], "dust", "erm", 0).to_dict()))
    summary = run_experiment(config, tmp_path, evaluate_runs=False, log=lambda message: None)
    assert [r.status for r in summary["runs"]] == ["trained"] and (run / "last.safetensors").is_file()


def test_arms_are_compared_seed_by_seed():
    # constrained − erm over seeds 0..2: differences −0.02, −0.01, −0.03 → mean −0.02, sd 0.01,
    # 95 % t half-width t(0.975, 2) · 0.01/√3 = 4.302653 · 0.0057735 = 0.0248414
    rmse = {
        ("erm", 0): 0.10,
        ("erm", 1): 0.12,
        ("erm", 2): 0.11,
        ("constrained", 0): 0.08,
        ("constrained", 1): 0.11,
        ("constrained", 2): 0.08,
        ("constrained", 3): 0.5,
    }  # seed 3 has no ERM partner: left out
    rows = [
        {
            "dataset": "d",
            "noise": "gaussian",
            "site": "input",
            "gamma": 2.0,
            "model": "dust",
            "arm": arm,
            "seed": seed,
            "rmse": value,
        }
        for (arm, seed), value in rmse.items()
    ]
    [comparison] = compare_arms(rows)
    assert (comparison["a"], comparison["b"], comparison["seeds"]) == ("constrained", "erm", 3)
    assert comparison["difference"] == pytest.approx(-0.02) and comparison["sd"] == pytest.approx(0.01)
    assert comparison["ci_low"] == pytest.approx(-0.02 - 0.0248414, abs=1e-7)
    assert comparison["ci_high"] == pytest.approx(-0.02 + 0.0248414, abs=1e-7)
    assert comparison["verdict"] == "no detectable difference" and comparison["relative"] == pytest.approx(-0.02 / 0.11)


def test_arms_carry_their_own_options(ped2):
    config = ExperimentConfig(
        **tiny_grid(
            ped2,
            modes=None,
            arms={
                "erm": {},
                "resilient": {
                    "mode": "constrained",
                    "descent": {"resilience": 2.0},
                    "per_model": {"ut": {"descent": {"alpha": 0.3}}},
                },
                "erm-blind": {"mode": "erm", "sigma_range": [0.0, 0.2], "sigma_conditioning": False},
            },
        )
    )
    entry = config.datasets[0]
    dust, ut = (config.train_config(entry, model, "resilient", 0) for model in ("dust", "ut"))
    assert (
        dust.mode == "constrained" and dust.descent.resilience == 2.0 and dust.descent.alpha == 0.5
    )  # [training.descent]
    assert ut.descent.alpha == 0.3 and ut.descent.resilience == 2.0
    blind = config.train_config(entry, "dust", "erm-blind", 1)
    assert blind.sigma_range == [0.0, 0.2] and not blind.sigma_conditioning and blind.seed == 1
    assert config.train_config(entry, "dust", "erm", 0).mode == "erm"


@pytest.mark.parametrize(
    "overrides,message",
    [
        ({"modes": None, "arms": {"fast": {}}}, "every arm needs a mode"),
        ({"modes": ["erm"], "arms": {"erm": {}}}, "either modes or"),
        ({"modes": None, "arms": {"a b": {"mode": "erm"}}}, "arm names must be"),
        ({"modes": None, "arms": {"erm": {"seed": 3}}}, "may not set seed"),
    ],
)
def test_bad_arms_are_refused(ped2, overrides, message):
    with pytest.raises(ExperimentError, match=message):
        ExperimentConfig(**tiny_grid(ped2, **overrides))


@pytest.mark.parametrize("path", sorted(CONFIGS.glob("*.toml")), ids=lambda p: p.name)
def test_shipped_configs_are_valid(path):
    config = load_experiment(path)
    assert config.datasets and config.models and config.arms


def test_bad_experiment_configs_are_one_line_errors(ped2, tmp_path):
    with pytest.raises(ExperimentError, match="lists no datasets"):
        ExperimentConfig(**tiny_grid(ped2, datasets=[]))
    with pytest.raises(ExperimentError, match="may not set mode"):
        ExperimentConfig(**tiny_grid(ped2, training={"mode": "erm"}))
    with pytest.raises(VideodenoiseError, match="unknown evaluation option"):
        ExperimentConfig(**tiny_grid(ped2, evaluation={"gamma": [1]}))
    with pytest.raises(VideodenoiseError, match="unknown training option"):
        ExperimentConfig(**tiny_grid(ped2, training={"epoch": 1}))
    bad = tmp_path / "bad.toml"
    bad.write_text("models = [\n")
    with pytest.raises(ExperimentError, match="cannot be parsed"):
        load_experiment(bad)


def test_test_time_depths_come_from_one_pass_of_a_tied_model(ped2, tmp_path):
    torch.manual_seed(0)
    tied = build_model("dust", **{**TINY, "tied_layers": True})
    with torch.no_grad():
        for parameter in tied.parameters():
            parameter.add_(0.02 * torch.randn(parameter.shape))
    save_model(tied, tmp_path / "tied.safetensors", {"mode": "erm", "sigma_train": repr(SIGMA), "step": "0"})
    untied = checkpoint(tmp_path / "untied.safetensors")
    config = quick(ped2, depths=[2, 7], gammas=[1.5])
    result = evaluate([tmp_path / "tied.safetensors", untied], config, labels=["tied", "untied"])
    deep, trained = result.samples[("tied", "gaussian", "input")], result.samples[("untied", "gaussian", "input")]
    assert deep["layer_rmse"].shape[-1] == 8 and deep["layer_mse"].shape[-1] == 8  # input + 7 layers
    assert trained["layer_rmse"].shape[-1] == TINY["layers"] + 1  # an untied model runs its own depth
    # the final metrics are those of the trained depth, not of the deepest layer run
    np.testing.assert_allclose(deep["rmse"], deep["layer_rmse"][..., TINY["layers"]], rtol=1e-9)
    # a layer's RMSE read from the long pass is the RMSE of a separate pass at that depth
    clips = evaluation_clips(config, 1)
    clean = clips[0]
    generator = torch.Generator().manual_seed(noise_seed(config.seeds[0], *clips.index[0], "gaussian"))
    noisy = clean + 1.5 * SIGMA * torch.randn(clean.shape, generator=generator)
    with torch.no_grad():
        for depth in (2, 7):
            separate = tied(noisy[None], depth=depth)[0].clamp(0, 1)
            assert deep["layer_rmse"][0, 0, 0, depth] == pytest.approx(frame_rmse(separate, clean).mean(), rel=1e-5)
    row = next(r for r in result.rows() if r["method"] == "tied")
    assert len(row["layer_mse"]) == 8  # descent is still judged over the trained layers only
    layers = deep["layer_mse"][0][..., : TINY["layers"] + 1].reshape(-1, TINY["layers"] + 1)
    assert row["descent_fraction"] == pytest.approx(float((np.diff(layers, axis=1) < 0).all(axis=1).mean()))
    with pytest.raises(EvaluationError, match="depths must be at least 1"):
        quick(ped2, depths=[0])


def test_the_second_robustness_study_runs_end_to_end_on_a_replica(ped2, tmp_path):
    # configs/robustness-2.toml with its arms, test sets, depths and endpoints as shipped, at tiny sizes
    shipped = load_experiment(CONFIGS / "robustness-2.toml")
    assert {t.dataset for t in shipped.datasets[0].tests} == {"samples", "photo-motion"}
    small = tiny_grid(ped2)
    grid = shipped.to_dict() | {
        "seeds": [0, 1],
        "model_options": small["model_options"],
        "datasets": [
            {
                "name": "ucsd-ped2",
                "root": str(ped2),
                "label": "ped2",
                "tests": [
                    {"dataset": "ucsd-ped2", "root": str(ped2), "split": "test", "label": "ped2"},
                    {"dataset": "photo-motion", "split": "held-out", "label": "photos"},
                ],
            }
        ],
        "evaluation": {
            **shipped.evaluation,
            **small["evaluation"],
            "gammas": shipped.evaluation["gammas"],
            "clips_per_video": 1,
            "depths": [2, 3, 6],
        },
        "endpoints": {**shipped.endpoints, "extra_depth": 6},
    }
    grid["training"] = {
        **shipped.training,
        **{k: v for k, v in small["training"].items() if k not in ("data", "descent")},
        "data": {**shipped.training["data"], **small["training"]["data"], "motion_fraction": 0.5},
    }
    del grid["training"]["data"]["train_split"], grid["training"]["data"]["val_split"]
    config = ExperimentConfig(**grid)
    assert len(config.arms) == 8
    summary = run_experiment(config, tmp_path, log=lambda message: None, jobs=2)
    assert len(summary["runs"]) == 2 * 8 * 2 and {r.status for r in summary["runs"]} == {"trained"}
    for name in ("video-cells.csv", "endpoints.csv", "arm-differences.csv", "arm_differences.png", "rmse_vs_depth.png"):
        assert (tmp_path / name).is_file(), name
    assert (tmp_path / "eval" / "ped2" / "photos" / "results.json").is_file()
    # rows per run × video × γ × depth, the study's columns first; tied runs have every depth
    videos = list(csv.DictReader(open(tmp_path / "video-cells.csv")))
    assert list(videos[0])[:8] == ["model", "arm", "seed", "video", "gamma", "depth", "rmse", "descent_fraction"]
    names = {v["video"] for v in videos}
    assert {"photos/astronaut", "photos/grace_hopper", "photos/page", "ped2/01"} <= names and len(names) == 7 + 1
    depths = {(v["arm"], v["depth"]) for v in videos if v["model"] == "dust"}
    # tied: every test depth, deeper ones included; untied: the test depths up to its trained 3
    assert {d for a, d in depths if a == "erm-tied"} == {"2", "3", "6"}
    assert {d for a, d in depths if a == "erm"} == {"2", "3"}
    # a row's RMSE is the mean over that video's clips and noise draws of its layer's RMSE
    result = read_results(tmp_path / "eval" / "ped2" / "photos")
    arrays = result.samples[("ped2-dust-erm-tied-seed1", "gaussian", "input")]
    clip = result.clip_names.index(next(n for n in result.clip_names if n.startswith("page@")))
    row = next(
        v
        for v in videos
        if (v["model"], v["arm"], v["seed"], v["video"], v["gamma"], v["depth"])
        == ("dust", "erm-tied", "1", "photos/page", "2.0", "6")
    )
    level = [level.gamma for level in result.levels].index(2.0)
    assert float(row["rmse"]) == pytest.approx(arrays["layer_rmse"][level, clip, :, 6].mean())
    endpoints = list(csv.DictReader(open(tmp_path / "endpoints.csv")))
    p1 = [e for e in endpoints if e["endpoint"] == "P1"]
    assert {e["model"] for e in p1} == {"dust", "ut"}
    assert {e["verdict"] for e in p1} <= {"better", "worse", "equivalent", "inconclusive"}
    assert {(e["model"], e["gamma"]) for e in endpoints if e["endpoint"] == "P2"} == {
        (m, g) for m in ("dust", "ut") for g in ("2.0", "3.0")
    }
    assert all(e["seeds"] == "2" and e["videos"] == "8" for e in p1)
    report = (tmp_path / "report.md").read_text()
    assert "## Endpoints" in report and "## Descent constraints on validation" in report
    # a run trained in a worker (two at a time) is the run trained here, one at a time
    serial = tmp_path / "serial"
    train_run(serial, config.train_config(config.datasets[0], "ut", "constrained-detach", 1))
    parallel = tmp_path / "runs" / "ped2-ut-constrained-detach-seed1"
    for key, value in load_file(serial / "last.safetensors").items():
        torch.testing.assert_close(load_file(parallel / "last.safetensors")[key], value, rtol=1e-4, atol=1e-5)


def test_an_interrupted_evaluation_continues_and_parts_merge_into_one(ped2, tmp_path):
    config = ExperimentConfig(**tiny_grid(ped2, models=["dust"], modes=["erm"], seeds=[0, 1]))
    first = run_experiment(config, tmp_path, log=lambda message: None)
    cells = (tmp_path / "cells.csv").read_text()
    eval_dir = tmp_path / "eval" / "ped2"
    parts = sorted(p.name for p in (eval_dir / "parts").iterdir())
    assert parts == ["ped2-dust-erm-seed0.json", "ped2-dust-erm-seed1.json"]
    # one checkpoint's part and its evaluation's stamp lost (killed before the merge): only it is evaluated again
    (eval_dir / "parts" / "ped2-dust-erm-seed1.json").unlink()
    (eval_dir / "fingerprint.json").unlink()
    messages = []
    run_experiment(config, tmp_path, log=messages.append)
    assert "1 of 2 parts already evaluated; evaluating the other 1" in messages
    assert (tmp_path / "cells.csv").read_text() == cells
    # the merged result is one evaluation of every method on the same noisy clips
    merged = read_results(eval_dir)
    assert merged.methods == ["ped2-dust-erm-seed0", "ped2-dust-erm-seed1", "noisy", "tv"]
    whole = evaluate(
        [r.run_dir / "last.safetensors" for r in first["runs"]],
        config.eval_config(config.datasets[0]),
        labels=[r.run_dir.name for r in first["runs"]],
    )
    for key, arrays in whole.samples.items():
        for name, values in arrays.items():
            np.testing.assert_allclose(merged.samples[key][name], values, rtol=1e-6, err_msg=f"{key} {name}")
    # two parts at once give the same result
    shutil.rmtree(eval_dir)
    run_experiment(config, tmp_path, log=lambda message: None, jobs=2)
    parallel = read_results(eval_dir)
    for key, arrays in whole.samples.items():
        np.testing.assert_allclose(parallel.samples[key]["rmse"], arrays["rmse"], rtol=1e-5)
    # a copy elsewhere (other paths, new file times: a clone of committed runs) is read back, not evaluated again
    copy = tmp_path.with_name(tmp_path.name + "-copy")
    shutil.copytree(tmp_path, copy, copy_function=shutil.copy)
    messages = []
    run_experiment(config, copy, log=messages.append)
    assert "evaluation of ped2 is up to date; reading it back" in messages
    # but a checkpoint whose bytes changed is evaluated again, and only it
    weights = copy / "runs" / "ped2-dust-erm-seed1" / "last.safetensors"
    with safe_open(weights, "pt") as handle:
        metadata = handle.metadata()
    tensors = load_file(weights)
    first_name = next(iter(tensors))
    tensors[first_name] = tensors[first_name] + 1e-3
    save_file(tensors, weights, metadata=metadata)
    messages = []
    run_experiment(config, copy, log=messages.append)
    assert "1 of 2 parts already evaluated; evaluating the other 1" in messages

"""Training: every mode on a dataset replica, the run folder, exact resume, DDP on two CPU processes."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import pytest
import torch

from videodenoise.errors import ConfigError, DatasetError, VideodenoiseError
from videodenoise.models.registry import load_model
from videodenoise.training.config import TrainConfig
from videodenoise.training.runs import read_metrics
from videodenoise.training.trainer import Trainer

import replicas as R
from helpers import TINY_MODEL, tiny_config


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    root = tmp_path_factory.mktemp("ped2")
    R.make_repackaged(root, "ped2", size=(40, 48))
    return root


@pytest.mark.parametrize("mode", ["erm", "deep-supervision", "constrained"])
@pytest.mark.parametrize("model", ["dust", "ut"])
def test_every_mode_trains_and_writes_its_run_folder(root, tmp_path, mode, model):
    options = dict(TINY_MODEL, width=16) if model == "ut" else dict(TINY_MODEL)
    config = tiny_config(root, mode=mode, model=model, model_options=options)
    summary = Trainer(config, tmp_path / "run", quiet=True).fit()
    run = tmp_path / "run"
    assert {p.name for p in run.iterdir()} >= {
        "config.json",
        "metrics.jsonl",
        "last.pt",
        "last.safetensors",
        "best.safetensors",
        "summary.json",
    }
    assert not list(run.glob(".*partial*"))
    assert TrainConfig.from_dict(json.loads((run / "config.json").read_text())) == config
    metrics = read_metrics(run)
    assert [m["epoch"] for m in metrics] == [1, 2] and metrics[-1]["step"] == 8
    for line in metrics:
        assert len(line["train_loss_per_layer"]) == len(line["val_loss_per_layer"]) == 4
        assert len(line["multipliers"]) == len(line["val_constraint_values"]) == 3
        assert min(line["multipliers"]) >= 0 and 0 <= line["val_descent_fraction"] <= 1
        assert line["samples_per_second"] > 0
    assert metrics[0]["lr"] == pytest.approx(config.lr * 0.5)  # cosine: half-way after epoch 1 of 2
    assert metrics[1]["lr"] == pytest.approx(0.0, abs=1e-12)
    # training lowered the final layer's validation loss below the noisy input's
    assert metrics[-1]["val_loss_per_layer"][-1] < metrics[-1]["val_loss_per_layer"][0]
    assert summary["steps"] == 8 and summary["best_val_mse"] == min(m["val_loss_per_layer"][-1] for m in metrics)
    # the shipped weights rebuild the same model
    trained = Trainer.resume(run, quiet=True).model
    clip = torch.rand(1, 3, 1, 20, 20)
    with torch.no_grad():
        assert torch.equal(load_model(run / "last.safetensors")(clip), trained(clip))


def test_unreachable_descent_raises_multipliers_and_keeps_them_non_negative(root, tmp_path):
    # α = 0.95 asks every layer to cut the loss twenty-fold: infeasible, so λ must climb
    config = tiny_config(root, descent={"alpha": 0.95, "dual_lr": 0.5}, epochs=2)
    Trainer(config, tmp_path / "run", quiet=True).fit()
    multipliers = [m["multipliers"] for m in read_metrics(tmp_path / "run")]
    assert all(value >= 0 for epoch in multipliers for value in epoch)
    assert sum(multipliers[-1]) > 0.1 and sum(multipliers[-1]) > sum(multipliers[0]) - 1e-9
    # how often each constraint binds: λ_l > 0 after every step once violated from the first step on
    active = [m["multipliers_active_fraction"] for m in read_metrics(tmp_path / "run")]
    assert all(len(epoch) == 3 for epoch in active) and active[-1] == [1.0, 1.0, 1.0]


def test_an_unconstrained_run_reports_no_active_multipliers(root, tmp_path):
    Trainer(tiny_config(root, mode="erm", epochs=1), tmp_path / "run", quiet=True).fit()
    assert read_metrics(tmp_path / "run")[-1]["multipliers_active_fraction"] == [0.0, 0.0, 0.0]


@pytest.mark.parametrize(
    "descent",
    [
        {"dual_update": "epoch"},
        {"dual_optimizer": "nupi", "resilience": 5.0},
        {"dual_optimizer": "augmented-lagrangian", "detach_previous": True, "include_first_layer": False},
    ],
)
def test_constrained_variants_run(root, tmp_path, descent):
    config = tiny_config(root, descent={"alpha": 0.9, **descent}, epochs=1)
    Trainer(config, tmp_path / "run", quiet=True).fit()
    metrics = read_metrics(tmp_path / "run")[-1]
    assert min(metrics["multipliers"]) >= 0
    if not descent.get("include_first_layer", True):
        assert metrics["multipliers"][0] == 0.0
    if descent.get("dual_update") == "epoch":
        assert max(metrics["multipliers"]) > 0  # the end-of-epoch dual step happened


def test_resumed_run_matches_an_uninterrupted_one(root, tmp_path, monkeypatch):
    config = tiny_config(root, epochs=2, checkpoint_every=5, descent={"alpha": 0.5})
    Trainer(config, tmp_path / "straight", quiet=True).fit()

    original_step = Trainer.train_step
    calls = {"n": 0}

    def crash_at_step_eight(self, clean):
        calls["n"] += 1
        if calls["n"] == 8:  # killed in epoch 2 (steps 5-8), two steps after the mid-epoch checkpoint
            raise KeyboardInterrupt
        return original_step(self, clean)

    monkeypatch.setattr(Trainer, "train_step", crash_at_step_eight)
    with pytest.raises(KeyboardInterrupt):
        Trainer(config, tmp_path / "resumed", quiet=True).fit()
    monkeypatch.setattr(Trainer, "train_step", original_step)
    assert torch.load(tmp_path / "resumed" / "last.pt", weights_only=True)["step"] == 5
    Trainer.resume(tmp_path / "resumed", quiet=True).fit()

    straight = torch.load(tmp_path / "straight" / "last.pt", weights_only=True)
    resumed = torch.load(tmp_path / "resumed" / "last.pt", weights_only=True)
    assert resumed["step"] == straight["step"] == 8
    for name, tensor in straight["model"].items():
        assert torch.equal(tensor, resumed["model"][name]), name

    def multipliers(state):
        return [m["weight"] for m in state["cmp"]["multipliers"].values()]

    assert len(multipliers(straight)) == 1 and multipliers(straight)[0].sum() > 0  # λ was really in play
    assert torch.equal(multipliers(straight)[0], multipliers(resumed)[0])
    drop = {"samples_per_second", "elapsed_seconds"}

    def strip(lines):
        return [{k: v for k, v in line.items() if k not in drop} for line in lines]

    assert strip(read_metrics(tmp_path / "resumed")) == strip(read_metrics(tmp_path / "straight"))


def test_resume_drops_a_metrics_line_the_checkpoint_does_not_cover(root, tmp_path):
    config = tiny_config(root, epochs=1)
    Trainer(config, tmp_path / "run", quiet=True).fit()
    with open(tmp_path / "run" / "metrics.jsonl", "a") as log:  # as if killed between line and checkpoint
        log.write(json.dumps({"epoch": 2, "step": 99}) + "\n")
    Trainer.resume(tmp_path / "run", quiet=True, epochs=2).fit()
    assert [m["epoch"] for m in read_metrics(tmp_path / "run")] == [1, 2]


@pytest.mark.parametrize("warmup, share", [(0, 0.5), (2, 0.75)])  # cosine at step 4 of 8, after the warm-up
def test_extending_a_finished_run_puts_the_rate_back_on_the_longer_cosine(root, tmp_path, warmup, share):
    config = tiny_config(root, epochs=1, warmup_steps=warmup)
    Trainer(config, tmp_path / "run", quiet=True).fit()
    assert read_metrics(tmp_path / "run")[-1]["lr"] == pytest.approx(0.0, abs=1e-12)  # the cosine ended
    finished = torch.load(tmp_path / "run" / "last.pt", weights_only=True)["model"]
    extended = Trainer.resume(tmp_path / "run", quiet=True, epochs=2)
    # (1 + cos(π·(4 − warmup)/(8 − warmup)))/2 of the rate; the recursive step would have kept it at 0
    assert extended.adam.param_groups[0]["lr"] == pytest.approx(config.lr * share)
    assert extended.scheduler.get_last_lr()[0] == pytest.approx(config.lr * share)
    extended.fit()
    trained = torch.load(tmp_path / "run" / "last.pt", weights_only=True)["model"]
    assert any(not torch.equal(tensor, trained[name]) for name, tensor in finished.items())  # it learned again
    assert read_metrics(tmp_path / "run")[-1]["lr"] == pytest.approx(0.0, abs=1e-12)


def test_two_process_ddp_on_cpu(root, tmp_path):
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    command = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        "--nproc_per_node",
        "2",
        "-m",
        "videodenoise",
        "train",
        "--dataset",
        "ucsd-ped2",
        "--root",
        str(root),
        "--device",
        "cpu",
        "--epochs",
        "2",
        "--samples-per-epoch",
        "16",
        "--batch-size",
        "2",
        "--clip-length",
        "3",
        "--crop",
        "16",
        "--val-crop",
        "24",
        "--alpha",
        "0.9",
        "--dual-lr",
        "0.5",
        "--run-dir",
        str(tmp_path / "ddp"),
        "--quiet",
        "--model-option",
        "layers=3",
        "--model-option",
        "patch_size=4",
        "--model-option",
        "stride=2",
    ]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)
    assert result.returncode == 0, result.stderr[-3000:]
    summary = json.loads((tmp_path / "ddp" / "summary.json").read_text())
    assert summary["world_size"] == 2 and summary["steps"] == 8  # 16 samples / (2 clips × 2 ranks) per epoch
    metrics = read_metrics(tmp_path / "ddp")
    assert len(metrics) == 2 and max(metrics[-1]["multipliers"]) > 0
    # the ranks' λ were compared at every epoch end (Trainer._check_multipliers_agree), and only rank 0 wrote
    assert result.stdout.count("run folder:") == 1


@pytest.mark.parametrize(
    "overrides,error,message",
    [
        ({"descent": {"alpha": 1.2}}, ConfigError, "alpha must lie in \\(0, 1\\)"),
        ({"descent": {"alpha": 0.0}}, ConfigError, "alpha must lie in \\(0, 1\\)"),
        (
            {"mode": "adversarial"},
            ConfigError,
            "unknown mode 'adversarial'; choose one of: erm, deep-supervision, constrained",
        ),
        ({"data": dict(dataset="ped3", root=".")}, DatasetError, "unknown dataset 'ped3'"),
        ({"data": dict(dataset="avenue", root="/no/such/root")}, DatasetError, "does not exist"),
        ({"data": dict(dataset="avenue", root=None)}, DatasetError, "needs a root folder"),
        ({"device": "cuda"} if not torch.cuda.is_available() else {"device": "tpu"}, VideodenoiseError, "device"),
    ],
)
def test_bad_options_are_clear_errors(root, tmp_path, overrides, error, message):
    with pytest.raises(error, match=message):
        Trainer(tiny_config(root, **overrides), tmp_path / "run", quiet=True)


def test_existing_run_folder_is_not_overwritten_and_resume_needs_a_run(root, tmp_path):
    Trainer(tiny_config(root, epochs=1), tmp_path / "run", quiet=True).fit()
    with pytest.raises(VideodenoiseError, match="already holds a run; continue it with `videodenoise train --resume"):
        Trainer(tiny_config(root, epochs=1), tmp_path / "run", quiet=True)
    with pytest.raises(VideodenoiseError, match="not a run folder"):
        Trainer.resume(tmp_path / "elsewhere")
    (tmp_path / "run" / "last.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(VideodenoiseError, match="cannot be read as a training checkpoint"):
        Trainer.resume(tmp_path / "run")


def test_warmup_then_cosine_learning_rates(root, tmp_path):
    # 2 epochs × 4 steps = 8 steps, warmup 3: lr·(k+1)/3 for steps k = 0, 1, 2, then cosine over the
    # remaining 5 steps, from lr at step 3 to 0 after the last: lr·(1 + cos(π·j/5))/2 at step 3 + j
    config = tiny_config(root, mode="erm", warmup_steps=3, lr=1e-3)
    trainer = Trainer(config, tmp_path / "run", quiet=True)
    rates = [trainer.scheduler.get_last_lr()[0]]
    for _ in range(8):
        trainer.adam.step()
        trainer.scheduler.step()
        rates.append(trainer.scheduler.get_last_lr()[0])
    expected = [1e-3 / 3, 2e-3 / 3, 1e-3] + [1e-3 * (1 + math.cos(math.pi * j / 5)) / 2 for j in range(6)]
    assert rates[:3] == pytest.approx(expected[:3]) and rates[3:] == pytest.approx(expected[3:], abs=1e-12)


@pytest.mark.parametrize("device, backend", [("cpu", "gloo"), ("auto", "nccl"), ("cuda", "nccl")])
def test_torchrun_on_a_gpu_machine_picks_the_backend_of_the_device_asked_for(monkeypatch, device, backend):
    """`train --device cpu` under torchrun on a GPU machine needs gloo: NCCL carries no CPU tensors (it failed
    so on an H200 machine when the backend followed whether a GPU was there)."""
    import videodenoise.training.trainer as trainer_module

    chosen = []
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(trainer_module, "distributed_environment", lambda: (1, 2, 1))
    monkeypatch.setattr(trainer_module.dist, "is_initialized", lambda: False)
    monkeypatch.setattr(trainer_module.dist, "init_process_group", lambda backend: chosen.append(backend))
    monkeypatch.setattr(trainer_module.dist, "get_rank", lambda: 1)
    monkeypatch.setattr(trainer_module.dist, "get_world_size", lambda: 2)
    rank, world, resolved = trainer_module._distributed(device)
    assert chosen == [backend] and (rank, world) == (1, 2)
    assert resolved == (torch.device("cpu") if device == "cpu" else torch.device("cuda", 1))

"""The training loop: ERM, deep supervision and constrained primal-dual training.

One loop, three modes, differing only in the loss built from the per-layer losses F_0..F_L:

    erm               F_L                               (the final estimate only)
    deep-supervision  mean(F_1..F_L)                    (fixed equal weights, no multipliers)
    constrained       F_L + Σ_l λ_l (F_l − (1−α_l) F_{l−1}),  λ by projected dual ascent (constrained.py)

Every run writes a run folder:

    config.json        the full configuration (enough to rebuild and resume the run)
    metrics.jsonl      one line per epoch: per-layer train/val loss, λ_l, g_l, descent rate, lr, speed
    last.pt            everything needed to resume (model, optimisers, multipliers, counters)
    last.safetensors   the latest weights with their model config (for evaluate / clean)
    best.safetensors   the weights with the lowest validation loss of the final layer
    summary.json       written at the end: best and final validation losses, time, hardware

Training that goes non-finite stops at the step it happened, before anything non-finite is written
(`divergence.py`): the folder keeps its last good checkpoint, which resumes as any other.

Randomness is a pure function of (seed, epoch, sample index) for the clips and (seed, step, rank)
for the noise, so a run resumed from `last.pt` continues exactly as if it had never stopped. Under
`torchrun` the same loop trains with DistributedDataParallel: each rank takes its own slice of every
batch, the constraint estimates are averaged over ranks before the dual step (so λ is identical on
every rank), and only rank 0 writes.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import platform
import time
from pathlib import Path

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader

from videodenoise.devices import autocast, distributed_environment, resolve_device, resolve_precision
from videodenoise.errors import ConfigError, RunFolderError, VideodenoiseError
from videodenoise.metrics import descending_samples, per_layer_mse
from videodenoise.models.registry import build_model, load_state, save_model
from videodenoise.training.config import TrainConfig
from videodenoise.training.constraints import (
    LayerwiseDescent,
    build_optimizer,
    descent_violations,
    layer_alphas,
    primal_dual_backward,
)
from videodenoise.training.data import training_sets
from videodenoise.training.divergence import diverged, loss_problem, state_problem
from videodenoise.training.inputs import VALIDATION_SEED, TrainingInputs
from videodenoise.training.runs import STATE_FORMAT, RunFolder
from videodenoise.training.schedule import build_scheduler, load_scheduler


def _distributed(device: str) -> tuple[int, int, torch.device]:
    """(rank, world size, this process's device), initialising the process group when launched by torchrun:
    NCCL for GPUs, gloo for the CPU (NCCL cannot carry CPU tensors, so `--device cpu` on a GPU machine is gloo)."""
    _, world, local_rank = distributed_environment()
    resolved = resolve_device(device, local_rank)
    if world <= 1:
        return 0, 1, resolved
    if not dist.is_initialized():
        dist.init_process_group(backend="nccl" if resolved.type == "cuda" else "gloo")
    return dist.get_rank(), dist.get_world_size(), resolved


class Trainer:
    """Build everything a run needs from a TrainConfig, then `fit()`.

    A new run needs an empty or missing `run_dir`; `Trainer.resume(run_dir)` continues one."""

    def __init__(
        self, config: TrainConfig, run_dir: str | os.PathLike, quiet: bool = False, _state: dict | None = None
    ):
        self.config = config
        self.run_dir = Path(run_dir)
        self.quiet = quiet
        self.rank, self.world, self.device = _distributed(config.device)
        self.dtype = resolve_precision(config.precision, self.device)
        if _state is None and self.rank == 0:
            RunFolder.check_new(self.run_dir)  # checked now, created only once the run can start
        self.run = RunFolder(self.run_dir)

        torch.manual_seed(config.seed)  # model initialisation
        # a grey model's camera noise is colour noise: its training clips arrive in colour (TrainingInputs)
        self.train_set, self.val_set = training_sets(config.data, config.seed, colour=config.camera_fraction > 0)
        self.steps_per_epoch = config.data.samples_per_epoch // (config.batch_size * self.world)
        if self.steps_per_epoch < 1:
            raise ConfigError(
                f"samples per epoch ({config.data.samples_per_epoch}) must cover one batch on each of {self.world} "
                "processes"
            )
        options = {"channels": config.data.channels, **config.model_options}
        options.setdefault("sigma", config.sigma_train)  # both models' reference noise level
        self.model = build_model(config.model, **options).to(self.device)
        if config.init_weights and _state is None:
            self._load_initial_weights(config.init_weights)
        self.inputs = TrainingInputs(config, self.device, self.model.noise_conditional, self.model.attends_aligned)
        self.n_layers = self.model.num_layers
        self.adam = torch.optim.Adam(self.model.parameters(), lr=config.lr)
        self.total_steps = min(config.epochs * self.steps_per_epoch, config.max_steps or math.inf)
        self.scheduler = build_scheduler(self.adam, config, self.total_steps)
        self.problem = None
        self.optimizer = None
        if config.mode == "constrained":
            self.problem = LayerwiseDescent(self.n_layers, config.descent, config.sigma_train, self.device)
            self.optimizer = build_optimizer(self.problem, self.adam)
        self.wrapped = self.model
        if self.world > 1:
            self.wrapped = torch.nn.parallel.DistributedDataParallel(
                self.model, device_ids=[self.device.index] if self.device.type == "cuda" else None
            )
        self.step = 0
        self.epoch = 0
        self.saved_step: int | None = None  # the step of the last checkpoint written (or resumed from)
        self.best_val = math.inf
        self.elapsed = 0.0
        self._epoch_sums = torch.zeros(self.n_layers + 1, dtype=torch.float64)
        self._epoch_batches = 0
        self._active_steps = torch.zeros(self.n_layers, device=self.device)  # steps this epoch with λ_l > 0
        if _state is not None:
            self._load_state(_state)
        elif self.rank == 0:
            self.run = RunFolder.create(self.run_dir, config.to_dict())
        self._created_folder = _state is None
        self._tensorboard = None  # opened by fit(), so that a run with nothing left to do writes nothing

    # ----------------------------------------------------------------------------- construction

    def _load_initial_weights(self, path: str) -> None:
        from videodenoise.models.checkpoints import load_checkpoint

        try:
            source, _ = load_checkpoint(path)
        except VideodenoiseError as error:
            raise ConfigError(f"init_weights: {error}") from None
        try:
            self.model.start_from(source.state_dict())
        except RuntimeError as error:
            raise ConfigError(
                f"init_weights {path} do not fit the model this config builds "
                f"({str(error).splitlines()[0]}); give the same model options the weights were trained with"
            ) from None

    def _open_tensorboard(self):
        if self.rank != 0:
            return None
        try:
            from torch.utils.tensorboard import SummaryWriter
        except ImportError:  # tensorboard is optional
            return None
        return SummaryWriter(str(self.run_dir / "tensorboard"))

    # ------------------------------------------------------------------------------- checkpoints

    @classmethod
    def resume(cls, run_dir: str | os.PathLike, quiet: bool = False, **overrides) -> Trainer:
        """Continue a run from its `last.pt`; `overrides` may extend it (e.g. epochs=20)."""
        run = RunFolder.open(run_dir)
        values = run.read_config()
        values.update(overrides)
        config = TrainConfig.from_dict(values)
        state = run.read_state()
        trainer = cls(config, run.path, quiet=quiet, _state=state)
        # only a resume that could start changes the folder: the new options, then stale metrics lines
        if trainer.rank == 0:
            if overrides and values != run.read_config():
                run.write_config(config.to_dict())
            trainer._drop_unsaved_metrics()
        return trainer

    def _state(self) -> dict:
        state = {
            "format": STATE_FORMAT,
            "step": self.step,
            "epoch": self.epoch,
            "best_val": self.best_val,
            "elapsed": self.elapsed,
            "epoch_sums": self._epoch_sums.clone(),
            "epoch_batches": self._epoch_batches,
            "active_steps": self._active_steps.cpu(),
            "model": self.model.state_dict(),
            "adam": self.adam.state_dict(),
            "scheduler": self.scheduler.state_dict(),
            "cpu_rng": torch.get_rng_state(),
        }
        if self.problem is not None:
            state["cmp"] = self.problem.state_dict()
            state["dual"] = [optimizer.state_dict() for optimizer in self.optimizer.dual_optimizers]
        return state

    def _load_state(self, state: dict) -> None:
        if not isinstance(state, dict) or state.get("format") != STATE_FORMAT:
            raise RunFolderError("the checkpoint is not a videodenoise training checkpoint")
        load_state(self.model, state["model"], source="the checkpoint")
        self.adam.load_state_dict(state["adam"])
        self.scheduler = load_scheduler(self.adam, self.config, self.total_steps, state["scheduler"])
        if self.problem is not None:
            if "cmp" not in state:
                raise VideodenoiseError("the checkpoint holds no multipliers; it was not a constrained run")
            self.problem.load_state_dict(state["cmp"])
            for optimizer, saved in zip(self.optimizer.dual_optimizers, state["dual"]):
                optimizer.load_state_dict(saved)
        self.step, self.epoch, self.best_val, self.elapsed = (
            state["step"],
            state["epoch"],
            state["best_val"],
            state["elapsed"],
        )
        self.saved_step = self.step
        self._epoch_sums, self._epoch_batches = state["epoch_sums"], state["epoch_batches"]
        if "active_steps" in state:
            self._active_steps = state["active_steps"].to(self.device)
        torch.set_rng_state(state["cpu_rng"])

    def _drop_unsaved_metrics(self) -> None:
        """Forget metrics lines of epochs the checkpoint does not include (written just before a kill)."""
        lines = self.run.read_metrics()
        kept = [line for line in lines if line["epoch"] <= self.epoch]
        if len(kept) != len(lines):
            self.run.write_metrics(kept)

    def _checkpoint(self) -> None:
        self._check_finite()  # on every rank (the weights are the same on all): they stop together
        self.saved_step = self.step
        if self.rank != 0:
            return
        self.run.save_state(self._state())
        save_model(self.model, self.run_dir / "last.safetensors", self._weights_metadata())

    def _check_finite(self, losses: torch.Tensor | None = None) -> None:
        """Stop with a TrainingDivergedError if this step's losses (given) or the state to be saved are not finite."""
        if losses is not None:
            what = loss_problem(losses, self.world, self.device)
        else:
            what = state_problem(
                self.model, self.adam, None if self.problem is None else self.problem.multipliers_value
            )
        if what is not None:
            raise diverged(what, self.step, self.epoch + 1, self.run_dir, self.saved_step, self.config.lr)

    def _weights_metadata(self) -> dict[str, str]:
        # sigma_range in the weights means "noise-conditional over this range" (denoise tells it σ); a
        # blind model trained over a range records the range under another name
        range_ = (
            {}
            if self.config.sigma_range is None
            else {
                "sigma_range" if self.config.sigma_conditioning else "train_sigma_range": json.dumps(
                    list(self.config.sigma_range)
                )
            }
        )
        fused = (
            {}
            if self.config.fusion is None
            else {  # what its inputs were: clean --no-fusion is not that
                "trained_with_fusion": json.dumps(dataclasses.asdict(self.config.fusion_settings()))
            }
        )
        return {
            **range_,
            **fused,
            "mode": self.config.mode,
            "sigma_train": repr(self.config.sigma_train),
            "step": str(self.step),
            "dataset": self.config.data.dataset,
            "train_split": self.config.data.train_split,
        }

    # ---------------------------------------------------------------------------------- training

    def _loss(self, layer_losses: torch.Tensor) -> torch.Tensor:
        units = layer_losses / self.config.sigma_train**2
        if self.config.mode == "deep-supervision":
            return units[1:].mean()
        return units[-1]

    def train_step(self, clean: torch.Tensor) -> torch.Tensor:
        """One primal step (and, per batch, one dual step). Returns the per-layer losses (L+1,)."""
        noisy, sigma, told, clean = self.inputs(clean, self.step, self.rank)
        if self.optimizer is not None:
            self.optimizer.zero_grad()
        else:
            self.adam.zero_grad(set_to_none=True)
        with autocast(self.device, self.dtype):
            estimates = self.wrapped(noisy, all_layers=True, **told)
        layer_losses = per_layer_mse(estimates, clean, self.inputs.clip_weights(sigma)).mean(dim=1)
        if self.problem is not None:
            per_batch = self.config.descent.dual_update == "batch"
            primal_dual_backward(self.problem.state(layer_losses, self.epoch, primal=True, dual=per_batch))
        else:
            self._loss(layer_losses).backward()
        if self.config.grad_clip:
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.config.grad_clip)
        if self.optimizer is not None:
            self.optimizer.primal_step()
            if self.config.descent.dual_update == "batch":
                self.optimizer.dual_step()
            self._active_steps[self.problem.first :] += self.problem.multipliers_value > 0  # on the device: no sync
        else:
            self.adam.step()
        self.scheduler.step()
        return layer_losses.detach()

    def batches(self, epoch: int, first_batch: int = 0):
        """This rank's batches of an epoch from `first_batch` on: sample indices are a pure function
        of (epoch, batch, rank), so resuming mid-epoch skips exactly what was already seen."""
        self.train_set.set_epoch(epoch)
        size = self.config.batch_size
        batches = [
            [(batch * self.world + self.rank) * size + j for j in range(size)]
            for batch in range(first_batch, self.steps_per_epoch)
        ]
        return DataLoader(self.train_set, batch_sampler=batches, num_workers=self.config.data.workers)

    @torch.no_grad()
    def _epoch_dual_step(self, epoch: int) -> None:
        """Dual update once per epoch: g averaged over a no-grad pass over the epoch's samples."""
        self.wrapped.eval()
        sums = torch.zeros(self.n_layers + 1, device=self.device, dtype=torch.float64)
        for batch, clean in enumerate(self.batches(epoch, 0)):
            clean = clean.to(self.device)
            with autocast(self.device, self.dtype):
                noisy, sigma, told, clean = self.inputs(clean, epoch, batch, self.rank, 1)
                estimates = self.wrapped(noisy, all_layers=True, **told)
            sums += per_layer_mse(estimates, clean, self.inputs.clip_weights(sigma)).mean(dim=1).double()
        self.wrapped.train()
        layer_losses = (sums / self.steps_per_epoch).float()
        for optimizer in self.optimizer.dual_optimizers:
            optimizer.zero_grad()
        state = self.problem.state(layer_losses, epoch, primal=False, dual=True)
        with torch.enable_grad():
            state.compute_dual_lagrangian().backward()
        self.optimizer.dual_step()

    @torch.no_grad()
    def validate(self) -> dict:
        """Per-layer MSE on the fixed validation clips with fixed noise, the share of clips whose loss
        decreases at every layer, and the descent constraint values g_l (in σ_train² units)."""
        self.model.eval()
        sums = torch.zeros(self.n_layers + 1, dtype=torch.float64, device=self.device)
        counts = torch.zeros(2, dtype=torch.float64, device=self.device)  # [clips, clips descending]
        for index in range(self.rank, len(self.val_set), self.world):
            clean = self.val_set[index].unsqueeze(0).to(self.device)
            with autocast(self.device, self.dtype):
                noisy, sigma, told, clean = self.inputs(clean, VALIDATION_SEED, index)
                estimates = self.model(noisy, all_layers=True, **told)
            per_sample = per_layer_mse(estimates, clean)
            sums += per_sample.sum(dim=1).double()
            descending, total = descending_samples(per_sample)
            counts += torch.tensor([total, descending], dtype=torch.float64, device=self.device)
        if self.world > 1:
            dist.all_reduce(sums)
            dist.all_reduce(counts)
        self.model.train()
        layer_mse = (sums / counts[0]).float().cpu()
        units = layer_mse / self.config.sigma_train**2
        g = descent_violations(units, layer_alphas(self.config.descent, self.n_layers, self.epoch))
        return {
            "val_loss_per_layer": layer_mse.tolist(),
            "val_rmse": math.sqrt(layer_mse[-1]),
            "val_descent_fraction": float(counts[1] / counts[0]),
            "val_constraint_values": g.tolist(),
            "val_layers_satisfying_descent": int((g <= 0).sum()),
            "val_clips": int(counts[0]),
        }

    def fit(self, progress=None) -> dict:
        """Train to the configured number of epochs (or max_steps); returns the summary.

        progress(step, total steps, status) is called after every step on rank 0. A run that has
        already reached its end returns its summary and writes nothing (`self.nothing_to_do`)."""
        self.nothing_to_do = self.step >= self.total_steps
        if self.nothing_to_do:
            saved = self.run.read_summary() if self.rank == 0 else None
            return saved if saved is not None else self._summary({})
        report = progress if callable(progress) and self.rank == 0 else None
        if self._tensorboard is None:
            self._tensorboard = self._open_tensorboard()
        try:
            return self._fit(report)
        except BaseException:
            # stopped (error, Ctrl-C, SIGTERM) before the first checkpoint: a folder this run created
            # would hold nothing to resume, and would block the same command run again
            if self.rank == 0 and self._created_folder and not self.run.has_state:
                if self._tensorboard is not None:
                    self._tensorboard.close()
                self.run.remove_unstarted()
            raise

    def _fit(self, report) -> dict:
        last_epoch_metrics: dict = {}
        while self.step < self.total_steps:
            epoch = self.epoch
            first_batch = self.step - epoch * self.steps_per_epoch
            started, samples, speed = time.perf_counter(), 0, 0.0
            for clean in self.batches(epoch, first_batch):
                if self.step >= self.total_steps:
                    break
                layer_losses = self.train_step(clean.to(self.device))
                self.step += 1
                losses = layer_losses.double().cpu()  # the step's one copy to the host, for the sums and the check
                self._check_finite(losses)
                samples += clean.shape[0] * self.world
                self._epoch_sums += losses
                self._epoch_batches += 1
                speed = samples / max(1e-9, time.perf_counter() - started)
                if report is not None:
                    report(
                        self.step,
                        self.total_steps,
                        f"epoch {epoch + 1}/{self.config.epochs}  loss "
                        f"{float(losses[-1]) / self.config.sigma_train**2:.4f} σ²  {speed:.1f} clips/s",
                    )
                if self.config.checkpoint_every and self.step % self.config.checkpoint_every == 0:
                    self.elapsed += time.perf_counter() - started
                    started, samples = time.perf_counter(), 0
                    self._checkpoint()
            self.elapsed += time.perf_counter() - started
            epoch_done = self.step == (epoch + 1) * self.steps_per_epoch
            if epoch_done:
                last_epoch_metrics = self._end_epoch(epoch, speed)
            else:  # stopped by max_steps mid-epoch
                self._checkpoint()
        if not last_epoch_metrics and self.rank == 0:  # stopped mid-epoch: keep the last epoch's results
            last_epoch_metrics = (self.run.read_metrics() or [{}])[-1]
        summary = self._summary(last_epoch_metrics)
        if self.rank == 0:
            self.run.write_summary(summary)
            if self._tensorboard is not None:
                self._tensorboard.close()
        return summary

    def _end_epoch(self, epoch: int, speed: float) -> dict:
        self._check_finite()  # before validation, the metrics line and best.safetensors
        if self.problem is not None and self.config.descent.dual_update == "epoch":
            self._epoch_dual_step(epoch)
        if self.world > 1 and self.problem is not None:
            self._check_multipliers_agree()
        metrics = {
            "epoch": epoch + 1,
            "step": self.step,
            "train_loss_per_layer": (self._epoch_sums / max(1, self._epoch_batches)).tolist(),
            **self.validate(),
            "multipliers": self.problem.layer_multipliers().tolist()
            if self.problem is not None
            else [0.0] * self.n_layers,
            # the share of this epoch's steps after which λ_l > 0: how often constraint l binds
            "multipliers_active_fraction": (self._active_steps.cpu() / max(1, self._epoch_batches)).tolist(),
            "lr": self.scheduler.get_last_lr()[0],
            "samples_per_second": speed,
            "elapsed_seconds": self.elapsed,
        }
        self.epoch = epoch + 1
        self._epoch_sums.zero_()
        self._epoch_batches = 0
        self._active_steps.zero_()
        if metrics["val_loss_per_layer"][-1] < self.best_val:
            self.best_val = metrics["val_loss_per_layer"][-1]
            if self.rank == 0:
                save_model(
                    self.model,
                    self.run_dir / "best.safetensors",
                    {**self._weights_metadata(), "val_mse": repr(self.best_val)},
                )
        if self.rank == 0:
            # the metrics line first, then the checkpoint: a run killed in between repeats this epoch's
            # end on resume, and resuming drops the repeated line (see _drop_unsaved_metrics)
            self.run.append_metrics(metrics)
            self._checkpoint()
            self._log_tensorboard(metrics)
        return metrics

    def _check_multipliers_agree(self) -> None:
        """λ must be identical on every rank (the dual steps see all-rank means); fail loudly if not."""
        mine = self.problem.multipliers_value.to(self.device)
        gathered = [torch.empty_like(mine) for _ in range(self.world)]
        dist.all_gather(gathered, mine)
        if any(not torch.equal(other, mine) for other in gathered):
            raise RuntimeError(f"multipliers differ across ranks: {[g.tolist() for g in gathered]}")

    def _log_tensorboard(self, metrics: dict) -> None:
        if self._tensorboard is None:
            return
        for name in ("train_loss_per_layer", "val_loss_per_layer", "multipliers", "val_constraint_values"):
            for layer, value in enumerate(metrics[name]):
                self._tensorboard.add_scalar(f"{name}/layer{layer}", value, self.step)
        for name in ("val_rmse", "val_descent_fraction", "lr", "samples_per_second"):
            self._tensorboard.add_scalar(name, metrics[name], self.step)

    def _summary(self, last: dict) -> dict:
        return {
            "model": self.config.model,
            "mode": self.config.mode,
            "parameters": sum(p.numel() for p in self.model.parameters()),
            "steps": self.step,
            "epochs_completed": self.epoch,
            "best_val_mse": self.best_val,
            "final": last,
            "training_seconds": self.elapsed,
            "world_size": self.world,
            "device": str(self.device),
            "hardware": torch.cuda.get_device_name(self.device)
            if self.device.type == "cuda"
            else platform.processor() or platform.machine(),
            "torch": torch.__version__,
        }

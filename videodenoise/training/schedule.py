"""The learning-rate schedule: linear warm-up, then cosine to 0 at the last step, or constant.

torch.optim.lr_scheduler's LinearLR, CosineAnnealingLR and SequentialLR, with the warm-up factor
(k+1)/warmup at step k. A resume may extend a run (--epochs): the cosine then ends at the new last step,
and the rate moves onto the new curve at the step reached (a run that had finished rises from 0 to it).
"""

from __future__ import annotations

import math
import warnings

import torch
from torch.optim.lr_scheduler import ConstantLR, CosineAnnealingLR, LinearLR, LRScheduler, SequentialLR

from videodenoise.training.config import TrainConfig


def _cosine_steps(config: TrainConfig, total_steps: float) -> int:
    return max(1, int(total_steps) - config.warmup_steps)


def build_scheduler(optimizer: torch.optim.Optimizer, config: TrainConfig, total_steps: float) -> LRScheduler:
    warmup = config.warmup_steps
    if config.lr_schedule == "constant":
        main = ConstantLR(optimizer, factor=1.0, total_iters=0)
    else:
        main = CosineAnnealingLR(optimizer, T_max=_cosine_steps(config, total_steps), eta_min=0.0)
    if warmup == 0:
        return main
    ramp = LinearLR(optimizer, start_factor=1 / warmup, end_factor=1.0, total_iters=warmup - 1)
    return SequentialLR(optimizer, [ramp, main], milestones=[warmup])


def load_scheduler(
    optimizer: torch.optim.Optimizer, config: TrainConfig, total_steps: float, saved: dict
) -> LRScheduler:
    """The schedule of a resumed run, from its saved state."""
    if "lr_lambdas" in saved:
        # a checkpoint of the hand-written LambdaLR schedule (before the scheduler classes): start the
        # schedule afresh from the base rate and replay the steps taken, which lands on the same rate
        for group in optimizer.param_groups:
            group["lr"] = group.pop("initial_lr", config.lr)
        scheduler = build_scheduler(optimizer, config, total_steps)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "scheduler.step() before optimizer.step()": a replay
            for _ in range(int(saved.get("last_epoch", 0))):
                scheduler.step()
    else:
        scheduler = build_scheduler(optimizer, config, total_steps)
        scheduler.load_state_dict(saved)
    main = scheduler._schedulers[-1] if hasattr(scheduler, "_schedulers") else scheduler
    if hasattr(main, "T_max") and main.T_max != _cosine_steps(config, total_steps):
        main.T_max = _cosine_steps(config, total_steps)
        if scheduler.last_epoch >= config.warmup_steps:
            # CosineAnnealingLR steps recursively, scaling the current rate: from a finished run's 0 it would
            # stay at 0 for good. Put the rate on the new curve by its closed form instead.
            share = (1 + math.cos(math.pi * min(main.last_epoch, main.T_max) / main.T_max)) / 2
            rates = [main.eta_min + (base - main.eta_min) * share for base in main.base_lrs]
            for group, rate in zip(optimizer.param_groups, rates):
                group["lr"] = rate
            main._last_lr = scheduler._last_lr = rates
    return scheduler

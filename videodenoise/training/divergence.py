"""Noticing that training went non-finite, before anything non-finite is validated or written.

A learning rate too large for the model (or an exploding gradient) makes the loss and then the weights
NaN or infinite, and nothing downstream complains: the run would save weights that write black video
and NaN metrics. The trainer asks here after every step (the per-layer losses, on the copy the host
takes of them anyway) and before every checkpoint (weights, optimiser moments, multipliers), and stops
with a `TrainingDivergedError`, so that the run folder keeps its last good checkpoint.
"""

from __future__ import annotations

from pathlib import Path

import torch
import torch.distributed as dist

from videodenoise.errors import TrainingDivergedError


def loss_problem(losses: torch.Tensor, world: int = 1, device: torch.device | None = None) -> str | None:
    """What is wrong with one step's per-layer losses (a host tensor), else None. Under DDP every rank
    learns whether any rank's losses are non-finite, so that they all stop at the same step (a rank
    left alone would wait for the others forever)."""
    bad = losses[~torch.isfinite(losses)]
    finite = bad.numel() == 0
    if world > 1:
        flag = torch.tensor([float(finite)], device=device)
        dist.all_reduce(flag, op=dist.ReduceOp.MIN)
        finite = bool(flag.item())
    if finite:
        return None
    return f"the loss became {float(bad[0])}" if bad.numel() else "another process's loss became non-finite"


def state_problem(
    model: torch.nn.Module, optimizer: torch.optim.Optimizer, multipliers: torch.Tensor | None = None
) -> str | None:
    """Which weight, optimiser moment or multiplier holds NaN or infinity, else None (one copy to the host)."""
    named = list(model.named_parameters()) + list(model.named_buffers())
    named += [  # the moments; not the step count, a host tensor
        (f"the optimiser's {key} of a parameter", value)
        for state in optimizer.state.values()
        for key, value in state.items()
        if key != "step" and isinstance(value, torch.Tensor)
    ]
    if multipliers is not None:
        named.append(("the multipliers λ", multipliers))
    named = [(name, tensor) for name, tensor in named if tensor.is_floating_point()]
    finite = torch.stack([torch.isfinite(tensor).all() for _, tensor in named]).cpu()
    if bool(finite.all()):
        return None
    return f"{named[int((~finite).nonzero()[0])][0]} became NaN or infinite"


def diverged(
    what: str, step: int, epoch: int, run_dir: Path, saved_step: int | None, lr: float
) -> TrainingDivergedError:
    """The one-line error: where it happened, what was kept, what to try."""
    kept = (
        f"{run_dir} keeps its last good checkpoint (step {saved_step})"
        if saved_step is not None
        else "it stopped before its first checkpoint, so nothing was kept"
    )
    return TrainingDivergedError(
        f"training diverged at step {step} (epoch {epoch}): {what}; {kept}; train again with a lower --lr "
        f"than {lr:g} (or a smaller --grad-clip)"
    )

"""Layer-wise descent constraints and their primal-dual optimisation, on cooper-optim.

With F_l the expected loss of the estimate read out after layer l (F_0: the noisy input), the
constrained problem is

    minimise F_L   subject to   g_l = F_l − (1 − α_l)·F_{l−1} ≤ 0,   l = 1..L

and its Lagrangian F_L + Σ_l λ_l g_l is optimised by a primal step on the model (Adam) and a
projected dual ascent step λ_l ← max(0, λ_l + η_λ·g_l), with g_l estimated on a batch (or on a
no-grad pass over the data once per epoch). The *resilient* relaxation lets every constraint be
relaxed by a slack u_l at cost (ρ/2)·u_l²; at its optimum u_l = λ_l/ρ, which is exactly dual ascent
with weight decay 1/ρ: λ_l ← max(0, (1 − η_λ/ρ)·λ_l + η_λ·g_l). ρ = ∞ (None) is the hard problem.

cooper-optim does the bookkeeping: a `Constraint` with a `DenseMultiplier` (projected onto λ ≥ 0
after every dual step), the dual optimiser (SGD = plain ascent, nuPI, or an augmented Lagrangian
formulation), all with `maximize=True`. Only the formation of g_l from the per-layer losses is ours.

Loss units: the dual step size must not depend on the noise level, so F_l enter the constraints
in units of σ_train² (`loss_units="sigma2"`, default: F_0 ≈ 1 for unclipped Gaussian noise) or
relative to the batch's own input loss F_0 (`"relative"`). Both are a positive rescaling of every
constraint, so the feasible set is unchanged; only the scale seen by η_λ is.
"""

from __future__ import annotations

import math

import cooper
import torch
import torch.distributed as dist

from videodenoise.training.config import DescentConfig


def layer_alphas(config: DescentConfig, n_layers: int, epoch: int = 0) -> torch.Tensor:
    """α_l for l = 1..L under the configured schedule, as a (L,) tensor."""
    alphas = torch.full((n_layers,), config.alpha)
    if config.alpha_schedule == "depth-decay":
        alphas = config.alpha * torch.arange(n_layers, 0, -1, dtype=torch.float32) / n_layers
    elif config.alpha_schedule == "warmup" and config.alpha_warmup_epochs > 0:
        alphas = alphas * min(1.0, epoch / config.alpha_warmup_epochs)
    return alphas


def normalise_layer_losses(layer_losses: torch.Tensor, config: DescentConfig, sigma_train: float) -> torch.Tensor:
    """Per-layer losses (L+1,) in the units the constraints use (see module docstring)."""
    if config.loss_units == "relative":
        return layer_losses / layer_losses[0].detach().clamp_min(1e-12)
    return layer_losses / sigma_train**2


def descent_violations(layer_losses: torch.Tensor, alphas: torch.Tensor, detach_previous: bool = False) -> torch.Tensor:
    """g_l = F_l − (1 − α_l)·F_{l−1} for l = 1..L, from the (L+1,) per-layer losses."""
    previous = layer_losses[:-1].detach() if detach_previous else layer_losses[:-1]
    return layer_losses[1:] - (1 - alphas.to(layer_losses)) * previous


def all_ranks_mean(value: torch.Tensor) -> torch.Tensor:
    """The mean of a detached tensor over DDP ranks (itself when not distributed), so that every
    rank takes the same dual step and the multipliers stay identical."""
    if dist.is_available() and dist.is_initialized() and dist.get_world_size() > 1:
        value = value.clone()
        dist.all_reduce(value, op=dist.ReduceOp.SUM)  # gloo has no AVG
        value /= dist.get_world_size()
    return value


class InequalityProblem(cooper.ConstrainedMinimizationProblem):
    """minimise loss subject to a vector of inequality constraints g ≤ 0, one multiplier each.

    The state carries g (differentiable, for the primal Lagrangian) and its detached value averaged
    over DDP ranks as cooper's `strict_violation` (for the dual step)."""

    def __init__(self, n_constraints: int, config: DescentConfig, device: torch.device | str = "cpu"):
        super().__init__()
        self.config = config
        augmented = config.dual_optimizer == "augmented-lagrangian"
        self.constraint = cooper.Constraint(
            constraint_type=cooper.ConstraintType.INEQUALITY,
            formulation_type=cooper.formulations.AugmentedLagrangian if augmented else cooper.formulations.Lagrangian,
            multiplier=cooper.multipliers.DenseMultiplier(num_constraints=n_constraints, device=device),
            penalty_coefficient=(
                cooper.penalty_coefficients.DensePenaltyCoefficient(
                    init=torch.full((n_constraints,), config.penalty, device=device)
                )
                if augmented
                else None
            ),
        )

    @property
    def multipliers_value(self) -> torch.Tensor:
        return self.constraint.multiplier.weight.detach()

    def compute_cmp_state(
        self, loss: torch.Tensor | None, violations: torch.Tensor, primal: bool = True, dual: bool = True
    ) -> cooper.CMPState:
        state = cooper.ConstraintState(
            violation=violations,
            strict_violation=all_ranks_mean(violations.detach()),
            contributes_to_primal_update=primal,
            contributes_to_dual_update=dual,
        )
        return cooper.CMPState(loss=loss, observed_constraints={self.constraint: state})


class LayerwiseDescent(InequalityProblem):
    """The descent constraints of an L-layer model, from its per-layer losses."""

    def __init__(self, n_layers: int, config: DescentConfig, sigma_train: float, device: torch.device | str = "cpu"):
        self.n_layers = n_layers
        self.sigma_train = sigma_train
        self.first = 0 if config.include_first_layer else 1
        super().__init__(n_layers - self.first, config, device)

    def violations(self, layer_losses: torch.Tensor, epoch: int = 0) -> torch.Tensor:
        """g_l (in constraint units) for the constrained layers, from raw per-layer MSEs (L+1,)."""
        units = normalise_layer_losses(layer_losses, self.config, self.sigma_train)
        alphas = layer_alphas(self.config, self.n_layers, epoch)
        return descent_violations(units, alphas, self.config.detach_previous)[self.first :]

    def state(
        self, layer_losses: torch.Tensor, epoch: int = 0, primal: bool = True, dual: bool = True
    ) -> cooper.CMPState:
        loss = normalise_layer_losses(layer_losses, self.config, self.sigma_train)[-1] if primal else None
        return self.compute_cmp_state(loss, self.violations(layer_losses, epoch), primal=primal, dual=dual)

    def layer_multipliers(self) -> torch.Tensor:
        """λ_l for l = 1..L (zero for an excluded first layer)."""
        values = torch.zeros(self.n_layers)
        values[self.first :] = self.multipliers_value.float().cpu()
        return values


def build_optimizer(
    problem: InequalityProblem, primal_optimizer: torch.optim.Optimizer
) -> cooper.optim.SimultaneousOptimizer:
    """cooper's simultaneous primal-dual optimiser with the configured dual optimiser."""
    config = problem.config
    weight_decay = 0.0 if config.resilience is None or math.isinf(config.resilience) else 1.0 / config.resilience
    params = list(problem.dual_parameters())
    if config.dual_optimizer == "nupi":
        dual = cooper.optim.nuPI(
            params, lr=config.dual_lr, Kp=config.nupi_kp, Ki=1.0, weight_decay=weight_decay, maximize=True
        )
    else:  # plain projected ascent; the augmented Lagrangian differs in its formulation, not here
        dual = torch.optim.SGD(params, lr=config.dual_lr, weight_decay=weight_decay, maximize=True)
    return cooper.optim.SimultaneousOptimizer(cmp=problem, primal_optimizers=primal_optimizer, dual_optimizers=dual)


def primal_dual_backward(state: cooper.CMPState) -> tuple[torch.Tensor, cooper.LagrangianStore]:
    """Backpropagate the primal and dual Lagrangians of a state; returns the primal Lagrangian.

    The caller then clips gradients and calls `optimizer.primal_step()` / `optimizer.dual_step()`
    (cooper's `roll()` does the same with no room for clipping or mixed precision)."""
    primal = state.compute_primal_lagrangian()
    dual = state.compute_dual_lagrangian()
    primal.backward()
    dual.backward()
    return primal.lagrangian, dual

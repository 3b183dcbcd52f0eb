"""The dual machinery on problems with known answers, and the descent constraints' algebra."""

from __future__ import annotations

import pytest
import torch

from videodenoise.errors import ConfigError
from videodenoise.training.config import DescentConfig
from videodenoise.training.constraints import (
    InequalityProblem,
    LayerwiseDescent,
    build_optimizer,
    descent_violations,
    layer_alphas,
    primal_dual_backward,
)


def solve_toy(resilience=None, dual_optimizer="sgd", steps=3000):
    """minimise x² subject to 1 − x ≤ 0 by simultaneous gradient descent-ascent."""
    x = torch.nn.Parameter(torch.tensor([0.0]))
    problem = InequalityProblem(1, DescentConfig(dual_lr=0.05, resilience=resilience, dual_optimizer=dual_optimizer))
    optimizer = build_optimizer(problem, torch.optim.SGD([x], lr=0.05))
    for _ in range(steps):
        optimizer.zero_grad()
        primal_dual_backward(problem.compute_cmp_state((x**2).sum(), 1 - x))
        optimizer.primal_step()
        optimizer.dual_step()
        assert problem.multipliers_value.item() >= 0
    return x.item(), problem.multipliers_value.item()


@pytest.mark.parametrize("dual_optimizer", ["sgd", "nupi", "augmented-lagrangian"])
def test_hard_constraint_reaches_the_kkt_point(dual_optimizer):
    x, multiplier = solve_toy(dual_optimizer=dual_optimizer)
    assert x == pytest.approx(1.0, abs=1e-3)  # x* = 1
    assert multiplier == pytest.approx(2.0, abs=1e-3)  # λ* = 2 (2x = λ at x = 1)


@pytest.mark.parametrize("rho", [2.0, 10.0])
@pytest.mark.parametrize("dual_optimizer", ["sgd", "nupi"])
def test_resilient_relaxation_moves_the_optimum_as_rho_predicts(rho, dual_optimizer):
    # relaxed: min x² + (ρ/2)u² s.t. 1 − x ≤ u  ⇒  u = λ/ρ, x = λ/2, 1 − λ/2 = λ/ρ
    x, multiplier = solve_toy(resilience=rho, dual_optimizer=dual_optimizer)
    assert multiplier == pytest.approx(2 * rho / (rho + 2), abs=1e-3)
    assert x == pytest.approx(rho / (rho + 2), abs=1e-3)
    assert 1 - x == pytest.approx(multiplier / rho, abs=1e-3)  # slack u = λ/ρ


def test_resilient_augmented_lagrangian_includes_its_penalty():
    # the penalty (c/2)·relu(1 − x)² is active at the relaxed optimum: 2x = λ + c(1 − x), 1 − x = λ/ρ
    x, multiplier = solve_toy(resilience=2.0, dual_optimizer="augmented-lagrangian")
    assert (x, multiplier) == (pytest.approx(0.6, abs=1e-3), pytest.approx(0.8, abs=1e-3))


@pytest.mark.parametrize("violation", [0.5, -0.1, -2.0])
def test_augmented_lagrangian_term_is_the_documented_one(violation):
    # DescentConfig's docstring: (1/2c)·[relu(λ + c·g)² − λ²] replaces λ·g in the primal Lagrangian;
    # with λ = 1, c = 4: g = 0.5 → λg + (c/2)g² = 1.0; g = −0.1 → (0.6² − 1)/8 = −0.08 (not λg + (c/2)relu(g)² = −0.1);
    # g = −2 → −λ²/2c = −0.125
    problem = InequalityProblem(1, DescentConfig(dual_optimizer="augmented-lagrangian", penalty=4.0))
    problem.constraint.multiplier.weight.data.fill_(1.0)
    g = torch.tensor([violation])
    lagrangian = problem.compute_cmp_state(torch.tensor(0.0), g).compute_primal_lagrangian().lagrangian
    expected = (torch.relu(1.0 + 4.0 * g) ** 2 - 1.0).item() / (2 * 4.0)
    assert lagrangian.item() == pytest.approx(expected)
    assert lagrangian.item() == pytest.approx({0.5: 1.0, -0.1: -0.08, -2.0: -0.125}[violation])


def test_inactive_constraint_keeps_multiplier_at_zero():
    x = torch.nn.Parameter(torch.tensor([3.0]))
    problem = InequalityProblem(1, DescentConfig(dual_lr=0.1))
    optimizer = build_optimizer(problem, torch.optim.SGD([x], lr=0.05))
    for _ in range(500):  # minimise (x − 3)² s.t. 1 − x ≤ 0: the constraint never binds
        optimizer.zero_grad()
        primal_dual_backward(problem.compute_cmp_state(((x - 3) ** 2).sum(), 1 - x))
        optimizer.primal_step()
        optimizer.dual_step()
    assert problem.multipliers_value.item() == 0.0 and x.item() == pytest.approx(3.0, abs=1e-3)


def test_descent_violations_and_alpha_schedules():
    losses = torch.tensor([1.0, 0.8, 0.75, 0.7])
    g = descent_violations(losses, torch.full((3,), 0.1))
    assert g.tolist() == pytest.approx([0.8 - 0.9, 0.75 - 0.72, 0.7 - 0.675], abs=1e-6)
    assert layer_alphas(DescentConfig(alpha=0.3, alpha_schedule="depth-decay"), 3).tolist() == pytest.approx(
        [0.3, 0.2, 0.1]
    )
    warm = DescentConfig(alpha=0.2, alpha_schedule="warmup", alpha_warmup_epochs=4)
    assert layer_alphas(warm, 2, epoch=1).tolist() == pytest.approx([0.05, 0.05])
    assert layer_alphas(warm, 2, epoch=9).tolist() == pytest.approx([0.2, 0.2])


def test_detach_previous_changes_only_the_gradient_path():
    losses = torch.tensor([1.0, 0.8, 0.75], requires_grad=True)
    for detach, expected_grad in ((False, [-(1 - 0.1), 1 - (1 - 0.1), 1.0]), (True, [0.0, 1.0, 1.0])):
        losses.grad = None
        descent_violations(losses, torch.full((2,), 0.1), detach_previous=detach).sum().backward()
        assert losses.grad.tolist() == pytest.approx(expected_grad)


@pytest.mark.parametrize("detach", [False, True])
def test_primal_lagrangian_weights_on_each_layer_loss_match_hand_values(detach):
    """The net weight the primal Lagrangian F_L + Σ λ_l g_l puts on each layer's loss F_l: undetached
    λ_l − (1 − α)·λ_(l+1) (negative when the next multiplier is larger: the constraint pushes F_l up),
    detached λ_l only; F_L also carries the objective's 1. In σ_train² units, as the trainer uses them."""
    sigma, alpha = 0.1, 0.2
    problem = LayerwiseDescent(4, DescentConfig(alpha=alpha, detach_previous=detach), sigma_train=sigma)
    multipliers = [0.0, 0.01, 0.03, 0.05]  # λ_1..λ_4, growing with depth as in the first study's UT runs
    with torch.no_grad():
        problem.constraint.multiplier.weight.copy_(torch.tensor(multipliers))
    losses = (torch.tensor([1.0, 0.6, 0.5, 0.45, 0.42]) * sigma**2).requires_grad_()
    problem.state(losses).compute_primal_lagrangian().lagrangian.backward()
    lam = [0.0, *multipliers, 0.0]  # λ_0 and λ_5 do not exist
    if detach:
        expected = [0.0] + [lam[l] for l in range(1, 5)]
    else:
        expected = [lam[l] - (1 - alpha) * lam[l + 1] for l in range(5)]
    expected[4] += 1.0  # the objective F_L
    assert (losses.grad * sigma**2).tolist() == pytest.approx(expected, abs=1e-6)
    if not detach:  # the confound the second study controls for: F_2 and F_3 are pushed up
        assert expected[2] == pytest.approx(0.01 - 0.8 * 0.03) and expected[2] < 0 and expected[3] < 0


def test_layerwise_descent_units_and_first_layer_switch():
    sigma = 25 / 255
    layer_losses = torch.tensor([1.0, 0.5, 0.45]) * sigma**2
    problem = LayerwiseDescent(2, DescentConfig(alpha=0.1), sigma_train=sigma)
    assert problem.violations(layer_losses).tolist() == pytest.approx([0.5 - 0.9, 0.45 - 0.45], abs=1e-6)
    relative = LayerwiseDescent(2, DescentConfig(loss_units="relative"), sigma_train=sigma)
    assert relative.violations(layer_losses * 7).tolist() == pytest.approx([0.5 - 0.9, 0.0], abs=1e-6)  # scale-free
    no_first = LayerwiseDescent(2, DescentConfig(include_first_layer=False), sigma_train=sigma)
    assert no_first.violations(layer_losses).shape == (1,)
    assert no_first.layer_multipliers().tolist() == [0.0, 0.0]


@pytest.mark.parametrize(
    "options,message",
    [
        ({"alpha": 1.0}, "alpha must lie in \\(0, 1\\)"),
        ({"alpha": 0.0}, "alpha must lie in \\(0, 1\\)"),
        ({"dual_optimizer": "adam"}, "unknown dual optimizer 'adam'; choose one of: sgd, nupi, augmented-lagrangian"),
        ({"resilience": -1.0}, "resilience"),
        ({"dual_update": "step"}, "unknown dual update"),
        ({"dual_lr": 0.0}, "dual step size must be positive"),
    ],
)
def test_bad_options_are_rejected_clearly(options, message):
    with pytest.raises(ConfigError, match=message):
        DescentConfig(**options)

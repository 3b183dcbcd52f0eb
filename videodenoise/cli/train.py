"""`videodenoise train`: every TrainConfig setting is an option; a config file gives the same keys."""

from __future__ import annotations

import time
from pathlib import Path

import typer
from rich.table import Table

from videodenoise.cli.boundary import console, on_interrupt
from videodenoise.cli.options import merge, settings_options
from videodenoise.cli.progress import StepProgress
from videodenoise.training.config import TrainConfig

# what a resumed run may change: how far it goes and where it runs, not what it trains
RESUME_OVERRIDES = ("epochs", "max_steps", "device", "precision")


@settings_options(TrainConfig)
def train(
    settings: dict,
    config: Path | None = typer.Option(
        None,
        "--config",
        help="JSON or TOML file with the same options (nested as config.json of a run); flags override it.",
    ),
    run_dir: Path | None = typer.Option(None, help="Run folder to write (default: runs/MODEL-MODE-DATASET-TIME)."),
    resume: Path | None = typer.Option(
        None, help="Continue the run in this folder exactly where it stopped (--epochs may extend it)."
    ),
    quiet: bool = typer.Option(False, "--quiet", help="No progress bar."),
) -> None:
    """Train DUST or UT by ERM, deep supervision or under layer-wise descent constraints."""
    from videodenoise.io.config_files import read_config_file
    from videodenoise.training.trainer import Trainer

    values = merge(read_config_file(config, "config file") if config else {}, settings)
    if resume is not None:
        overrides = {key: value for key, value in values.items() if key in RESUME_OVERRIDES}
        trainer = Trainer.resume(resume, quiet=quiet, **overrides)
    else:
        train_config = TrainConfig.from_dict(values)
        folder = run_dir or Path("runs") / (
            f"{train_config.model}-{train_config.mode}-{train_config.data.dataset}-{time.strftime('%Y%m%d-%H%M%S')}"
        )
        trainer = Trainer(train_config, folder, quiet=quiet)
    if trainer.rank == 0:
        console.print(
            f"run folder: {trainer.run_dir}  ({trainer.config.model}, {trainer.config.mode}, {trainer.device}, "
            f"{sum(p.numel() for p in trainer.model.parameters()):,} parameters)"
        )

    def interrupted_training() -> str:
        if (trainer.run_dir / "last.pt").is_file():
            return (
                f"the run folder {trainer.run_dir} keeps its last checkpoint; continue it with "
                f"`videodenoise train --resume {trainer.run_dir}`"
            )
        return "the run stopped before its first checkpoint, so nothing was kept; start it again"

    on_interrupt(interrupted_training)
    with StepProgress("training", disable=quiet or trainer.rank != 0) as progress:
        summary = trainer.fit(progress=progress)
    on_interrupt(None)
    if trainer.nothing_to_do:
        if trainer.rank == 0:
            console.print(
                f"the run already reached its end (step {trainer.step} of {trainer.total_steps}); nothing was "
                "changed: extend it with --epochs or --max-steps",
                highlight=False,
            )
        return
    if trainer.rank == 0 and summary["final"]:
        console.print(_layer_table(summary))


def _layer_table(summary: dict) -> Table:
    final = summary["final"]
    table = Table(
        title=f"validation after {summary['epochs_completed']} epochs ({final['val_clips']} clips): "
        f"{final['val_layers_satisfying_descent']} of {len(final['multipliers'])} layers satisfy the descent "
        "constraint, "
        f"{final['val_descent_fraction']:.0%} of clips descend at every layer"
    )
    for column in ("layer", "val MSE", "val RMSE", "g_l (σ² units)", "λ_l"):
        table.add_column(column, justify="right")
    for layer, mse in enumerate(final["val_loss_per_layer"]):
        g = final["val_constraint_values"][layer - 1] if layer else None
        lam = final["multipliers"][layer - 1] if layer else None
        table.add_row(
            str(layer),
            f"{mse:.6f}",
            f"{mse**0.5:.4f}",
            "" if g is None else f"{g:+.4f}",
            "" if lam is None else f"{lam:.4f}",
        )
    return table

"""`videodenoise evaluate` and `videodenoise experiment`."""

from __future__ import annotations

import time
from pathlib import Path

import typer
from rich.table import Table

from videodenoise.cli.boundary import console
from videodenoise.cli.options import settings_options, split_list
from videodenoise.cli.progress import StepProgress
from videodenoise.errors import VideodenoiseError
from videodenoise.evaluation.config import EvalConfig


def _results_table(result, metric: str, noise: str, site: str) -> Table:
    from videodenoise.evaluation.reports import metric_table

    data = metric_table(result, metric, noise, site)
    table = Table(title=data.title, caption="* best of its column")
    for index, header in enumerate(data.headers):
        table.add_column(header, justify="left" if index == 0 else "right")
    for cells, marks in zip(data.rows, data.best):
        table.add_row(
            cells[0], *[f"[bold green]{cell} *[/bold green]" if mark else cell for cell, mark in zip(cells[1:], marks)]
        )
    return table


@settings_options(EvalConfig)
def evaluate(
    settings: dict,
    checkpoints: list[Path] | None = typer.Argument(
        None, help="Weights files (.safetensors) or run folders (their best, else last, weights); none: baselines only."
    ),
    out: Path | None = typer.Option(None, help="Output folder (default: evaluations/DATASET-SPLIT-TIME)."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace the results of an earlier evaluation in --out."),
    figures: bool = typer.Option(True, "--figures/--no-figures", help="Draw the PNG figures."),
    quiet: bool = typer.Option(False, "--quiet", help="No progress bar."),
) -> None:
    """RMSE (and PSNR, SSIM, per-layer loss) of checkpoints and classical baselines over a sweep of test noise
    levels γ, on the same noisy clips."""
    from videodenoise.evaluation.reports import check_evaluation_output, combinations, write_evaluation_outputs
    from videodenoise.evaluation.sweep import evaluate as run_evaluation

    config = EvalConfig.from_dict(settings)
    folder = out or Path("evaluations") / f"{config.dataset}-{config.split}-{time.strftime('%Y%m%d-%H%M%S')}"
    check_evaluation_output(folder, overwrite)  # before the work, not after it
    with StepProgress("evaluating", disable=quiet) as progress:
        result = run_evaluation(checkpoints or [], config, progress=progress)
    paths = write_evaluation_outputs(result, folder, figures=figures, overwrite=overwrite)
    for noise_kind, perturbation_site in combinations(result):
        console.print(_results_table(result, "rmse", noise_kind, perturbation_site))
    console.print(f"report: {paths['report']}  (results.csv, results.json{', figures' if figures else ''} beside it)")


def experiment(
    config: Path = typer.Argument(..., help="Experiment config (TOML or JSON), e.g. configs/paper-grid.toml."),
    out: Path | None = typer.Option(None, help="Output folder (default: the config's `out`, else experiments/NAME)."),
    datasets: str | None = typer.Option(None, help="Only these datasets of the config (labels, comma-separated)."),
    data_root: str | None = typer.Option(None, help="Root folder for every dataset (overrides the config's roots)."),
    device: str | None = typer.Option(
        None, help="auto, cpu or cuda for training and evaluation (default: the config's)."
    ),
    train_only: bool = typer.Option(False, "--train-only", help="Train (or continue) the runs, evaluate nothing."),
    evaluate_only: bool = typer.Option(False, "--evaluate-only", help="Evaluate the runs that exist, train nothing."),
    quiet: bool = typer.Option(False, "--quiet", help="No progress bars."),
    jobs: int = typer.Option(
        1, help="Train (and evaluate) this many runs at once, each with an equal share of the CPU threads."
    ),
) -> None:
    """Train a grid (datasets × models × arms × seeds), evaluate it over the γ sweep and compare the arms seed by
    seed. Re-running continues where it stopped."""
    from videodenoise.evaluation.experiment import load_experiment, run_experiment
    from videodenoise.evaluation.experiment_report import COMPARISONS

    if train_only and evaluate_only:
        raise VideodenoiseError("--train-only and --evaluate-only exclude each other; pass at most one")
    grid = load_experiment(config)
    if data_root is not None:
        for entry in grid.datasets:
            entry.root = data_root
    with StepProgress("evaluating", disable=quiet) as progress:
        summary = run_experiment(
            grid,
            out,
            device=device,
            datasets=None if datasets is None else split_list(datasets),
            train=not evaluate_only,
            evaluate_runs=not train_only,
            quiet=quiet,
            log=lambda message: console.print(message, highlight=False),
            progress=progress,
            jobs=jobs,
        )
    primary = [c for c in summary["comparisons"] if (c["a"], c["b"]) == COMPARISONS[0] and c["site"] == "input"]
    for c in primary:
        interval = "" if c["ci_low"] != c["ci_low"] else f" [{c['ci_low']:+.5f}, {c['ci_high']:+.5f}]"
        console.print(
            f"{c['dataset']} {c['model']} γ={c['gamma']:g}: {c['a']} − {c['b']} RMSE {c['difference']:+.5f}{interval} "
            f"over {c['seeds']} seeds: {c['verdict']}",
            highlight=False,
        )
    console.print(f"report: {summary['report']}")

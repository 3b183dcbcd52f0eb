"""Tables, the Markdown report, the figures and the files of an evaluation.

Everything here reads an `EvaluationResult` and measures nothing; every file is written through
`videodenoise.io.atomic`, so a results folder is never left half-written.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from videodenoise.errors import OutputError
from videodenoise.evaluation.baselines import BASELINE_NOTE, BASELINES
from videodenoise.evaluation.config import Level
from videodenoise.evaluation.results import EvaluationResult, json_safe
from videodenoise.io.atomic import atomic_output, check_creatable, write_text

__all__ = [
    "Table",
    "combinations",
    "metric_table",
    "layer_table",
    "report_levels",
    "write_csv",
    "csv_table",
    "format_number",
    "draw_figures",
    "render_report",
    "check_evaluation_output",
    "write_evaluation_outputs",
    "LOWER_IS_BETTER",
    "METRIC_TITLES",
]

LOWER_IS_BETTER = {"rmse": True, "psnr": False, "ssim": False, "descent_fraction": False}
METRIC_TITLES = {"rmse": "RMSE", "psnr": "PSNR (dB)", "ssim": "SSIM", "descent_fraction": "descent fraction"}


CSV_COLUMNS = (
    "method",
    "type",
    "model",
    "mode",
    "noise",
    "site",
    "gamma",
    "sigma_255",
    "rmse_mean",
    "rmse_std",
    "rmse_seed_std",
    "psnr_mean",
    "psnr_std",
    "ssim_mean",
    "ssim_std",
    "descent_fraction",
    "layer_mse",
    "clips",
    "frames",
    "seeds",
)
DIGITS = {"rmse": 4, "psnr": 2, "ssim": 3, "descent_fraction": 2}


@dataclass
class Table:
    """A methods × levels table of one metric: cell strings, and which cells are the best of their column."""

    title: str
    headers: list[str]
    rows: list[list[str]]
    best: list[list[bool]]

    def markdown(self) -> str:
        lines = [
            "| " + " | ".join(self.headers) + " |",
            "|" + "|".join(["---"] + ["---:"] * (len(self.headers) - 1)) + "|",
        ]
        for cells, marks in zip(self.rows, self.best):
            shown = [cells[0]] + [f"**{cell}**" if mark else cell for cell, mark in zip(cells[1:], marks)]
            lines.append("| " + " | ".join(shown) + " |")
        return "\n".join(lines)


def combinations(result: EvaluationResult) -> list[tuple[str, str]]:
    """The (noise, site) pairs evaluated, in config order."""
    return [(noise, site) for noise in result.config.noises for site in result.config.sites]


def metric_table(result: EvaluationResult, metric: str, noise: str, site: str = "input", spread: bool = True) -> Table:
    """Methods × levels for one metric ("rmse", "psnr", "ssim" or "descent_fraction"); the best mean
    of every column is marked (lowest RMSE, highest otherwise); ↓ marks lower-is-better columns."""
    lower = LOWER_IS_BETTER[metric]
    arrow = "↓" if lower else "↑"
    rows_by_method: dict[str, dict[float, dict]] = {}
    for row in result.rows():
        if row["noise"] == noise and row["site"] == site and (metric != "descent_fraction" or row["type"] == "model"):
            rows_by_method.setdefault(row["method"], {})[row["gamma"]] = row
    methods = [m for m in result.methods if m in rows_by_method]
    headers = ["method"] + [f"{level.label} {arrow}" for level in result.levels]
    means = [
        [
            rows_by_method[m][level.gamma][metric if metric == "descent_fraction" else f"{metric}_mean"]
            for level in result.levels
        ]
        for m in methods
    ]
    digits = DIGITS[metric]
    cells, best = [], []
    for m, values in zip(methods, means):
        row = [m]
        for level, value in zip(result.levels, values):
            text = f"{value:.{digits}f}"
            if spread and metric != "descent_fraction":
                text += f" ± {rows_by_method[m][level.gamma][f'{metric}_std']:.{digits}f}"
            row.append(text)
        cells.append(row)
    for values in means:
        best.append([False] * len(values))
    for column in range(len(result.levels)):
        column_values = [values[column] for values in means if not math.isnan(values[column])]
        if not column_values:
            continue
        target = min(column_values) if lower else max(column_values)
        for r, values in enumerate(means):
            best[r][column] = values[column] == target
    what = "mean ± std over" if spread and metric != "descent_fraction" else "over"
    title = (
        f"{METRIC_TITLES[metric]} {arrow} ({noise} noise, site {site}; {what} {result.n_clips} clips × "
        f"{len(result.config.seeds)} noise seeds, {result.n_frames} frames)"
    )
    return Table(title, headers, cells, best)


def layer_table(result: EvaluationResult, level: Level, noise: str, site: str = "input") -> Table:
    """Per-layer MSE of every model at one level (layer 0 = the noisy input); lowest per layer marked."""
    curves = {
        row["method"]: row["layer_mse"]
        for row in result.rows()
        if row["type"] == "model" and row["noise"] == noise and row["site"] == site and row["gamma"] == level.gamma
    }
    depth = max((len(c) for c in curves.values()), default=0)
    headers = ["method"] + [f"layer {l} ↓" for l in range(depth)] + ["descends at every layer ↑"]
    fraction = {
        row["method"]: row["descent_fraction"]
        for row in result.rows()
        if row["type"] == "model" and row["noise"] == noise and row["site"] == site and row["gamma"] == level.gamma
    }
    cells, values = [], []
    for method, curve in curves.items():
        padded = list(curve) + [math.nan] * (depth - len(curve))
        values.append(padded + [fraction[method]])
        cells.append([method] + ["" if math.isnan(v) else f"{v:.5f}" for v in padded] + [f"{fraction[method]:.0%}"])
    best = [[False] * (depth + 1) for _ in cells]
    for column in range(depth + 1):
        column_values = [v[column] for v in values if not math.isnan(v[column])]
        if column_values and column > 0:
            target = max(column_values) if column == depth else min(column_values)
            for r, v in enumerate(values):
                best[r][column] = v[column] == target
    title = (
        f"per-layer MSE at {level.label} ({noise} noise, site {site}; {result.n_clips} clips × "
        f"{len(result.config.seeds)} seeds)"
    )
    return Table(title, headers, cells, best)


def report_levels(levels: Sequence[Level]) -> list[Level]:
    """The levels the per-layer views show: γ = 1 (or the closest to it) and the largest γ."""
    closest = min(levels, key=lambda level: abs(level.gamma - 1.0))
    largest = max(levels, key=lambda level: level.gamma)
    return [closest] if closest == largest else [closest, largest]


def format_number(value: float | None, digits: int = 4) -> str:
    return "" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.{digits}f}"


def csv_table(path: Path, rows: list[dict], columns: list[str]) -> Path:
    buffer = io.StringIO(newline="")
    writer = csv.DictWriter(buffer, fieldnames=columns, extrasaction="ignore")
    writer.writeheader()
    writer.writerows(rows)
    return write_text(path, buffer.getvalue(), overwrite=True)  # recomputed from the runs on every call


def write_csv(result: EvaluationResult, path: Path, overwrite: bool = False) -> Path:
    buffer = io.StringIO(newline="")
    writer = csv.DictWriter(buffer, fieldnames=CSV_COLUMNS)
    writer.writeheader()
    for row in result.rows():
        row = dict(row)
        row["layer_mse"] = "" if row["layer_mse"] is None else " ".join(f"{v:.7g}" for v in row["layer_mse"])
        row["descent_fraction"] = "" if row["descent_fraction"] is None else row["descent_fraction"]
        writer.writerow({k: row[k] for k in CSV_COLUMNS})
    return write_text(path, buffer.getvalue(), overwrite=overwrite)


def draw_figures(result: EvaluationResult, out_dir: Path) -> dict[str, Path]:
    """rmse_vs_gamma, per_layer_loss (γ = 1 and the largest γ) and multipliers (runs with λ) PNGs."""
    from videodenoise.evaluation.plots import plot_layer_losses, plot_metric_vs_gamma, plot_multipliers
    from videodenoise.training.runs import read_metrics

    paths: dict[str, Path] = {}
    combos = combinations(result)
    rows = result.rows()
    for noise, site in combos:
        suffix = "" if len(combos) == 1 else f"_{noise}_{site}"
        series = {}
        for method in result.methods:
            picked = [r for r in rows if r["method"] == method and r["noise"] == noise and r["site"] == site]
            if picked:
                series[method] = ([r["gamma"] for r in picked], [r["rmse_mean"] for r in picked], None)
        title = (
            f"{result.config.dataset}/{result.config.split}: {noise} noise at the {site}, "
            f"{result.n_clips} clips × {len(result.config.seeds)} seeds ({result.n_frames} frames)"
        )
        paths[f"rmse_vs_gamma{suffix}"] = plot_metric_vs_gamma(
            series,
            out_dir / f"rmse_vs_gamma{suffix}.png",
            title=title,
            ylabel="RMSE (final estimate, [0, 1] scale)",
            baselines=[m for m in result.config.baselines if m in series],
        )
        if result.checkpoints:
            panels = []
            for level in report_levels(result.levels):
                curves = {
                    r["method"]: r["layer_mse"]
                    for r in rows
                    if r["type"] == "model" and r["noise"] == noise and r["site"] == site and r["gamma"] == level.gamma
                }
                panels.append((f"{level.label}, {noise}, site {site}", curves))
            paths[f"per_layer_loss{suffix}"] = plot_layer_losses(
                panels,
                out_dir / f"per_layer_loss{suffix}.png",
                ylabel="MSE of layer l's estimate",
                reference=result.sigma_train**2,
            )
    histories = {}
    for info in result.checkpoints:
        if info.run_dir is None:
            continue
        metrics = [m for m in read_metrics(info.run_dir) if "multipliers" in m]
        if metrics and any(any(v != 0 for v in m["multipliers"]) for m in metrics):
            start = [0.0] * len(metrics[0]["multipliers"])  # every multiplier starts at 0 (cooper's DenseMultiplier)
            histories[info.label] = ([0] + [m["epoch"] for m in metrics], [start] + [m["multipliers"] for m in metrics])
    if histories:
        paths["multipliers"] = plot_multipliers(histories, out_dir / "multipliers.png")
    return paths


def render_report(result: EvaluationResult, figures: dict[str, Path]) -> str:
    """The Markdown report: setup, metric definitions, tables per (noise, site), figures, baselines."""
    config = result.config
    height, width = result.frame_size
    lines = [
        f"# Evaluation on {config.dataset} ({config.split} split)",
        "",
        f"- **{result.n_clips} clips × {result.clip_length} frames = {result.n_frames} frames** of "
        f"{width}×{height} ({'colour' if result.channels == 3 else 'grey'}), "
        f"noise seeds {config.seeds} (every table averages over all clips × seeds)",
        f"- σ_train = {result.sigma_train * 255:.4g}/255; levels: "
        + ", ".join(l.label for l in result.levels)
        + " (σ on the 0-255 scale)",
        f"- noise: {', '.join(config.noises)}{' (clipped to [0, 1])' if config.clip_noise else ''}; "
        f"perturbation site: {', '.join(config.sites)}",
        f"- limits: crop {config.crop or 'none (whole frames)'}, resize {config.resize or 'none'}, clips per video "
        f"{config.clips_per_video or 'all'}, first {config.max_frames or 'all'} frames of each video, at most "
        f"{config.max_clips or 'all'} clips",
        f"- took {result.seconds:.0f} s ("
        + ", ".join(f"{m} {s:.0f} s" for m, s in result.method_seconds.items())
        + ")",
        "",
        "RMSE is on the [0, 1] scale, computed per frame and averaged over frames; PSNR = −20·log10(RMSE) per "
        "frame, then averaged; SSIM is scikit-image's with data_range = 1, per frame, then averaged. Final "
        "estimates are clamped to [0, 1] before these metrics" + ("" if config.clamp else " (off in this run)") + "; "
        "per-layer losses are the unclamped MSE of each layer's readout, as in training. "
        "± is the standard deviation over clips × seeds. **Bold**: best of the column; ↓ lower is better, ↑ higher "
        "is better. The descent fraction is the share of (clip, seed) samples whose loss falls at every layer.",
        "",
    ]
    for noise, site in combinations(result):
        lines += [f"## {noise} noise, perturbation at the {site}", ""]
        for metric in ("rmse", "psnr", "ssim"):
            table = metric_table(result, metric, noise, site)
            lines += [f"### {table.title}", "", table.markdown(), ""]
        if result.checkpoints:
            table = metric_table(result, "descent_fraction", noise, site)
            lines += [f"### {table.title}", "", table.markdown(), ""]
            for level in report_levels(result.levels):
                table = layer_table(result, level, noise, site)
                lines += [f"### {table.title}", "", table.markdown(), ""]
    if figures:
        lines += ["## Figures", ""]
        for name, path in figures.items():
            lines += [f"![{name}]({path.name})", ""]
    if result.checkpoints:
        lines += [
            "## Checkpoints",
            "",
            "| label | model | mode | σ_train (0-255) | step | trained on | layers | file |",
            "|---|---|---|---:|---:|---|---:|---|",
        ]
        for c in result.checkpoints:
            sigma = "" if c.sigma_train is None else f"{c.sigma_train * 255:.4g}"
            lines.append(
                f"| {c.label} | {c.model_name} | {c.mode or ''} | {sigma} | {c.step if c.step is not None else ''} "
                f"| {c.trained_on or ''} | {c.layers} | `{c.path}` |"
            )
        lines.append("")
    if config.baselines:
        lines += [
            "## Baselines",
            "",
            "Each gets exactly the noisy clips the models get, and the true σ of the level "
            "(for non-Gaussian kinds: the std on mid-grey).",
            "",
        ]
        lines += [f"- **{name}**: {BASELINES[name].parameters}" for name in config.baselines]
        lines += ["", BASELINE_NOTE, ""]
    if "layers" in config.sites:
        lines += [
            "Site **layers**: the clip is as noisy as at site input, and the representation entering layers "
            "2..L also gets a fresh perturbation of the same kind and σ, encoded by the model's own embedding "
            "of the pixel perturbation noise(0.5) − 0.5. Baselines have no layers and appear at site input only.",
            "",
        ]
    return "\n".join(lines)


RESULT_FILES = ("results.csv", "results.json", "report.md")
FIGURE_PATTERNS = ("rmse_vs_gamma*.png", "per_layer_loss*.png", "multipliers.png")


def check_evaluation_output(out_dir: str | os.PathLike, overwrite: bool = False) -> Path:
    """Raise a one-line OutputError, before any work, unless `out_dir` can receive an evaluation: a
    folder (existing or creatable) that holds no earlier results, or `overwrite`."""
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise OutputError(f"the output folder '{out_dir}' is a file; choose another --out")
    check_creatable(out_dir, "output folder", "another --out")
    if out_dir.is_dir() and not overwrite:
        found = [name for name in RESULT_FILES if (out_dir / name).exists()]
        found += sorted(p.name for pattern in FIGURE_PATTERNS for p in out_dir.glob(pattern))
        if found:
            raise OutputError(
                f"'{out_dir}' already holds an evaluation ({', '.join(found[:3])}); pass --overwrite "
                "to replace it, or choose another --out"
            )
    return out_dir


def write_evaluation_outputs(
    result: EvaluationResult, out_dir: Path, figures: bool = True, overwrite: bool = False
) -> dict[str, Path]:
    """results.csv, results.json, figures and report.md into `out_dir`, each written atomically;
    existing results are refused without `overwrite` before anything is written. A new folder is
    written whole under a temporary name and renamed when complete, so a failure leaves nothing."""
    out_dir = check_evaluation_output(out_dir, overwrite)
    if out_dir.is_dir():
        return _write_into(result, out_dir, figures)
    with atomic_output(out_dir, directory=True, create_parent=True) as temporary:
        written = _write_into(result, temporary, figures)
    return {name: out_dir / path.name for name, path in written.items()}


def _write_into(result: EvaluationResult, out_dir: Path, figures: bool) -> dict[str, Path]:
    paths = {"csv": write_csv(result, out_dir / "results.csv", overwrite=True)}
    paths["json"] = write_text(
        out_dir / "results.json",
        json.dumps(json_safe(result.to_dict()), indent=1, default=str, allow_nan=False),
        overwrite=True,
    )
    drawn = draw_figures(result, out_dir) if figures else {}
    paths["report"] = write_text(out_dir / "report.md", render_report(result, drawn), overwrite=True)
    paths.update(drawn)
    return paths

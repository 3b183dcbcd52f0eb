"""Figures of the evaluation and experiment reports: PNG files drawn with Matplotlib's object API.

The only module that draws. Every function takes plain numbers (no result objects), writes one PNG
and returns its path, so a notebook can call them on its own data. Figures are built as
`matplotlib.figure.Figure` objects on their own Agg canvas, never through pyplot, so importing this
module neither switches the global backend nor opens windows, and it is safe on servers and in
threads. Each PNG is written atomically (videodenoise.io.atomic).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from matplotlib import colormaps
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from videodenoise.io.atomic import atomic_output


def _figure(rows: int = 1, columns: int = 1, figsize: tuple[float, float] = (7, 4.5)):
    figure = Figure(figsize=figsize)
    FigureCanvasAgg(figure)
    axes = figure.subplots(rows, columns, squeeze=False)
    return figure, axes


def _save(figure: Figure, path: str | os.PathLike, overwrite: bool = True, tight: bool = True) -> Path:
    path = Path(path)
    if tight:  # off for a colour bar shared by several axes, which tight_layout cannot place
        figure.tight_layout()
    with atomic_output(path, overwrite=overwrite, create_parent=True) as temporary:
        figure.savefig(temporary, dpi=120, format="png")
    return path


# A legend of more entries than INSIDE_LIMIT would cover the curves, so it goes beside the axes; past
# LEGEND_LIMIT it would be taller than the figure and the curves (ten colours cycle) could not be told
# apart anyway: an evaluation of a whole study's checkpoints draws its curves unlabelled and says so.
INSIDE_LIMIT = 10
LEGEND_LIMIT = 24


def label_curves(axes, **options) -> None:
    """A legend of the labelled curves, or, past LEGEND_LIMIT of them, a line saying they are unlabelled."""
    entries = len(axes.get_legend_handles_labels()[1])
    if entries <= INSIDE_LIMIT:
        axes.legend(fontsize=7, **options)
    elif entries <= LEGEND_LIMIT:
        axes.legend(fontsize=7, **{**options, "loc": "upper left", "bbox_to_anchor": (1.01, 1.0)})
    else:
        axes.text(
            0.02,
            0.98,
            f"{entries} curves, unlabelled: the numbers are in the results table",
            transform=axes.transAxes,
            fontsize=7,
            verticalalignment="top",
        )


def _finish(axes, xlabel: str, ylabel: str, title: str) -> None:
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    axes.set_title(title, fontsize=10)
    axes.grid(alpha=0.3)
    label_curves(axes, loc="best")


def plot_metric_vs_gamma(
    series: Mapping[str, tuple[Sequence[float], Sequence[float], Sequence[float] | None]],
    path: str | os.PathLike,
    title: str = "",
    ylabel: str = "RMSE",
    baselines: Sequence[str] = (),
    xlabel: str = "γ = σ_test / σ_train",
    bands: bool = False,
) -> Path:
    """One line per method: label → (γ values, means, error bars or None). Baselines are dashed and
    grey-toned; γ = 1 (in distribution) is marked by a vertical line. bands=True draws the spreads as
    shaded bands (mean ± spread) instead of error bars."""
    figure, grid = _figure()
    axes = grid[0, 0]
    models = [label for label in series if label not in baselines]
    colours = colormaps["tab10"]
    greys = colormaps["Greys"]
    for label in series:
        gammas, means, errors = series[label]
        if label in baselines:
            position = list(baselines).index(label)
            style = dict(
                linestyle="--",
                marker="s",
                markersize=4,
                color=greys(0.4 + 0.55 * position / max(1, len(baselines) - 1)),
            )
        else:
            style = dict(linestyle="-", marker="o", markersize=5, color=colours(models.index(label) % 10))
        if errors is not None and any(e and not math.isnan(e) for e in errors) and bands:
            axes.plot(gammas, means, label=label, **style)
            axes.fill_between(
                gammas,
                [m - e for m, e in zip(means, errors)],
                [m + e for m, e in zip(means, errors)],
                color=style["color"],
                alpha=0.2,
                linewidth=0,
            )
        elif errors is not None and any(e and not math.isnan(e) for e in errors):
            axes.errorbar(gammas, means, yerr=errors, capsize=3, label=label, **style)
        else:
            axes.plot(gammas, means, label=label, **style)
    axes.axvline(1.0, color="black", linewidth=0.8, alpha=0.4)
    _finish(axes, xlabel, ylabel, title)
    return _save(figure, path)


def plot_layer_losses(
    panels: Sequence[tuple[str, Mapping[str, Sequence[float]]]],
    path: str | os.PathLike,
    ylabel: str = "MSE",
    reference: float | None = None,
) -> Path:
    """Per-layer loss against layer (0 = the noisy input), one panel per title → {label: losses},
    log scale. `reference` (e.g. σ_train²) is drawn as a horizontal line."""
    figure, axes_list = _figure(1, len(panels), figsize=(5.5 * len(panels), 4.2))
    colours = colormaps["tab10"]
    for axes, (title, curves) in zip(axes_list[0], panels):
        for index, (label, losses) in enumerate(curves.items()):
            axes.plot(range(len(losses)), losses, marker="o", markersize=4, label=label, color=colours(index % 10))
        if reference:
            axes.axhline(reference, color="black", linewidth=0.8, alpha=0.4, linestyle=":", label="σ_train²")
        axes.xaxis.set_major_locator(MaxNLocator(integer=True))
        axes.set_yscale("log")
        axes.set_xlabel("layer l (0 = noisy input)")
        axes.set_ylabel(ylabel)
        axes.set_title(title, fontsize=10)
        axes.grid(alpha=0.3, which="both")
        label_curves(axes)
    return _save(figure, path)


def plot_multipliers(
    histories: Mapping[str, tuple[Sequence[int], Sequence[Sequence[float]]]], path: str | os.PathLike
) -> Path:
    """λ_l over training: one panel per run, label → (epochs, multipliers per epoch), a line per layer."""
    count = len(histories)
    columns = min(3, count)
    rows = math.ceil(count / columns)
    figure, axes_grid = _figure(rows, columns, figsize=(5 * columns, 3.6 * rows))
    for axes, (label, (epochs, multipliers)) in zip(axes_grid.flat, histories.items()):
        layers = len(multipliers[0]) if multipliers else 0
        colours = colormaps["viridis"]
        for layer in range(layers):
            axes.plot(
                epochs,
                [m[layer] for m in multipliers],
                marker=".",
                label=f"λ_{layer + 1}",
                color=colours(layer / max(1, layers - 1)),
            )
        axes.xaxis.set_major_locator(MaxNLocator(integer=True))
        axes.set_xlabel("epoch")
        axes.set_ylabel("multiplier λ_l")
        axes.set_title(label, fontsize=9)
        axes.grid(alpha=0.3)
        label_curves(axes, ncol=2)
    for axes in list(axes_grid.flat)[count:]:
        axes.axis("off")
    return _save(figure, path)


def plot_paired_differences(
    panels: Mapping[str, Mapping[str, Sequence[tuple[float, float, tuple[float, float], tuple[float, float]]]]],
    path: str | os.PathLike,
    ylabel: str = "relative RMSE difference vs the control",
    margin: float | None = None,
) -> Path:
    """One panel per title (e.g. a model): per label (an arm), points (γ, mean, (low, high) over seeds,
    (low, high) over videos) drawn as a thick bar for the seeds' interval and a thin one for the
    videos', side by side; 0 (no difference) and ±margin (equivalence) are marked."""
    figure, grid = _figure(1, max(1, len(panels)), figsize=(5.5 * max(1, len(panels)), 4.5))
    colours = colormaps["tab10"]
    for axes, (title, series) in zip(grid[0], panels.items()):
        labels = list(series)
        for index, label in enumerate(labels):
            offset = (index - (len(labels) - 1) / 2) * 0.06
            colour = colours(index % 10)
            for gamma, mean, seeds, videos in series[label]:
                x = math.log2(gamma) + offset
                axes.plot([x, x], seeds, color=colour, linewidth=3, alpha=0.8)
                axes.plot([x + 0.02, x + 0.02], videos, color=colour, linewidth=1)
                axes.plot(
                    x, mean, "o", color=colour, markersize=4, label=label if gamma == series[label][0][0] else None
                )
        gammas = sorted({point[0] for points in series.values() for point in points})
        axes.set_xticks([math.log2(g) for g in gammas], [f"{g:g}" for g in gammas])
        axes.axhline(0.0, color="black", linewidth=0.8)
        if margin:
            for bound in (-margin, margin):
                axes.axhline(bound, color="black", linewidth=0.6, linestyle=":")
        axes.yaxis.set_major_formatter(lambda value, _: f"{value:+.0%}")
        _finish(axes, "γ = σ_test / σ_train", ylabel, title)
    return _save(figure, path)


def plot_metric_vs_depth(
    rows: Mapping[str, Mapping[str, Mapping[str, tuple[Sequence[int], Sequence[float]]]]],
    path: str | os.PathLike,
    ylabel: str = "RMSE",
    trained_depth: int | None = None,
) -> Path:
    """A grid of panels, row title → panel title → {label: (depths, values)}: one line per label; the
    trained depth is marked. Labels are the same in every panel of a row, so only its first panel has
    a legend."""
    columns = max((len(panels) for panels in rows.values()), default=1)
    figure, grid = _figure(max(1, len(rows)), columns, figsize=(3.6 * columns, 3.4 * max(1, len(rows))))
    colours = colormaps["tab10"]
    for row, (row_title, panels) in enumerate(rows.items()):
        labels = list(dict.fromkeys(label for series in panels.values() for label in series))
        for column, (title, series) in enumerate(panels.items()):
            axes = grid[row, column]
            for label, (depths, values) in series.items():
                colour = colours(labels.index(label) % 10)
                axes.plot(depths, values, marker="o", markersize=4, color=colour, label=label)
            if trained_depth:
                axes.axvline(trained_depth, color="black", linewidth=0.8, alpha=0.4)
            axes.xaxis.set_major_locator(MaxNLocator(integer=True))
            axes.set_xlabel("test-time depth (layers run)")
            axes.set_ylabel(ylabel if column == 0 else "")
            axes.set_title(f"{row_title}, {title}", fontsize=10)
            axes.grid(alpha=0.3)
            if column == 0:
                label_curves(axes, loc="best")
        for column in range(len(panels), columns):
            grid[row, column].set_visible(False)
    return _save(figure, path)


def plot_maps(
    panels: Mapping[str, Sequence[Sequence[float]]],
    path: str | os.PathLike,
    label: str = "",
    limits: tuple[float, float] = (0.0, 1.0),
) -> Path:
    """One image per title → 2-D array, side by side, on one colour scale (`limits`) with its bar."""
    figure, grid = _figure(1, max(1, len(panels)), figsize=(3.2 * max(1, len(panels)) + 0.8, 3.2))
    image = None
    for axes, (title, values) in zip(grid[0], panels.items()):
        image = axes.imshow(values, vmin=limits[0], vmax=limits[1], cmap="viridis")
        axes.set_title(title, fontsize=9)
        axes.set_xticks([])
        axes.set_yticks([])
    if image is not None:
        figure.colorbar(image, ax=list(grid[0]), label=label, fraction=0.02)
    return _save(figure, path, tight=False)

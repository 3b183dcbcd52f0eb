"""Figures stay readable whatever the number of curves."""

import warnings

import pytest
from matplotlib.figure import Figure

from videodenoise.evaluation.plots import (
    LEGEND_LIMIT,
    label_curves,
    plot_maps,
    plot_metric_vs_depth,
    plot_metric_vs_gamma,
)


def _axes_with(curves: int):
    axes = Figure().subplots()
    for index in range(curves):
        axes.plot([1, 2], [index, index + 1], label=f"run-{index}")
    return axes


def test_few_curves_get_a_legend_with_every_label():
    axes = _axes_with(3)
    label_curves(axes)
    assert [text.get_text() for text in axes.get_legend().get_texts()] == ["run-0", "run-1", "run-2"]


def test_a_long_legend_goes_beside_the_axes():
    axes = _axes_with(LEGEND_LIMIT)
    label_curves(axes)
    legend = axes.get_legend()
    assert len(legend.get_texts()) == LEGEND_LIMIT
    assert legend.get_bbox_to_anchor().transformed(axes.transAxes.inverted()).x0 > 1.0


def test_a_whole_study_of_curves_is_drawn_unlabelled_and_says_so():
    axes = _axes_with(LEGEND_LIMIT + 1)
    label_curves(axes)
    assert axes.get_legend() is None
    assert [text.get_text() for text in axes.texts] == [
        f"{LEGEND_LIMIT + 1} curves, unlabelled: the numbers are in the results table"
    ]


@pytest.mark.parametrize("runs", [20, 128])
def test_plot_of_many_runs_lays_out_without_warnings(tmp_path, runs):
    series = {f"run-{index}": ([1.0, 2.0], [0.1, 0.2 + index / 100], None) for index in range(runs)}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a legend taller than the figure makes tight_layout give up, with a warning
        path = plot_metric_vs_gamma(series, tmp_path / "many.png", title=f"{runs} runs")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_depth_grid_of_models_by_noise_level_lays_out_without_warnings(tmp_path):
    curve = {"erm-tied": ([3, 5, 8, 12], [0.05, 0.04, 0.045, 0.05]), "erm": ([3, 5], [0.06, 0.04])}
    rows = {model: {f"γ={gamma}": curve for gamma in (1, 1.5, 2, 3, 4)} for model in ("dust", "ut")}
    rows["ut"].pop("γ=4")  # a shorter row leaves its last panel empty
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        path = plot_metric_vs_depth(rows, tmp_path / "depth.png", trained_depth=5)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_maps_share_one_colour_bar_without_warnings(tmp_path):
    maps = {f"layer {index}": [[0.0, 0.5], [1.0, 0.25]] for index in range(1, 6)}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        path = plot_maps(maps, tmp_path / "maps.png", label="weight on the other frames")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

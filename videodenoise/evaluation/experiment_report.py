"""An experiment's tables and report: one row per run, paired comparisons of arms over training seeds,
whether the constraints bind, and report.md with its figures. Everything here reads finished
evaluations and run folders and measures nothing."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from videodenoise.evaluation.endpoints import VIDEO_COLUMNS
from videodenoise.evaluation.plots import plot_layer_losses, plot_metric_vs_gamma, plot_multipliers
from videodenoise.evaluation.reports import csv_table, format_number, report_levels
from videodenoise.evaluation.results import EvaluationResult, json_safe
from videodenoise.evaluation.statistics import mean_interval, paired_difference
from videodenoise.evaluation.study_report import endpoints_section, validation_section
from videodenoise.io.atomic import write_text
from videodenoise.training.runs import read_metrics

# (A, B) pairs reported as A − B when both arms are in the grid; the first is the primary endpoint
COMPARISONS = (
    ("constrained", "erm"),
    ("resilient", "erm"),
    ("deep-supervision", "erm"),
    ("erm-blind", "erm"),
    ("constrained", "deep-supervision"),
    ("constrained", "erm-blind"),
    ("resilient", "constrained"),
)


@dataclass
class RunRecord:
    dataset: str
    model: str
    arm: str
    seed: int
    run_dir: Path
    status: str
    training_seconds: float | None = None
    mode: str = "erm"  # the arm's training mode


# ---------------------------------------------------------------------------------------------------
# rows per run, paired comparisons over training seeds


def seed_rows(results: dict[str, EvaluationResult], records: list[RunRecord]) -> tuple[list[dict], list[dict]]:
    """One row per run × noise × site × γ (the run's metrics averaged over clips and noise seeds), and
    the baselines' rows on the same noisy clips."""
    by_label = {r.run_dir.name: r for r in records}
    rows, baselines = [], []
    for dataset, result in results.items():
        for row in result.rows():
            common = {
                "dataset": dataset,
                "noise": row["noise"],
                "site": row["site"],
                "gamma": row["gamma"],
                "sigma_255": row["sigma_255"],
                "rmse": row["rmse_mean"],
                "psnr": row["psnr_mean"],
                "ssim": row["ssim_mean"],
                "clips": row["clips"],
                "frames": row["frames"],
                "noise_seeds": row["seeds"],
            }
            if row["type"] == "baseline":
                baselines.append({"method": row["method"], **common})
                continue
            record = by_label.get(row["method"])
            if record is None:
                continue
            rows.append(
                {
                    "model": record.model,
                    "arm": record.arm,
                    "seed": record.seed,
                    **common,
                    "descent_fraction": row["descent_fraction"],
                    "layer_mse": row["layer_mse"],
                }
            )
    return rows, baselines


def compare_arms(rows: list[dict], confidence: float = 0.95) -> list[dict]:
    """For every pair (A, B) of COMPARISONS in the grid and every dataset × noise × site × γ × model:
    the paired difference A − B of the runs' RMSE over the training seeds both arms have."""
    index = {
        (r["dataset"], r["noise"], r["site"], r["gamma"], r["model"], r["arm"], r["seed"]): r["rmse"] for r in rows
    }
    groups = sorted({key[:5] for key in index}, key=lambda g: (g[4], g[0], g[1], g[2], g[3]))
    comparisons = []
    for first, second in COMPARISONS:
        for group in groups:
            seeds = sorted(
                key[6] for key in index if key[:5] == group and key[5] == first and group + (second, key[6]) in index
            )
            if not seeds:
                continue
            a = [index[group + (first, seed)] for seed in seeds]
            b = [index[group + (second, seed)] for seed in seeds]
            difference = paired_difference(a, b, confidence)
            comparisons.append(
                {
                    "a": first,
                    "b": second,
                    "dataset": group[0],
                    "noise": group[1],
                    "site": group[2],
                    "gamma": group[3],
                    "model": group[4],
                    "seeds": len(seeds),
                    "rmse_a": float(np.mean(a)),
                    "rmse_b": float(np.mean(b)),
                    "difference": difference.mean,
                    "sd": difference.sd,
                    "ci_low": difference.low,
                    "ci_high": difference.high,
                    "t": difference.t,
                    "p": difference.p,
                    "relative": difference.mean / float(np.mean(b)),
                    "verdict": _verdict(difference, first, second),
                }
            )
    return comparisons


def _verdict(difference, first: str, second: str) -> str:
    if math.isnan(difference.low):
        return "one seed: no interval"
    if difference.high < 0:
        return f"{first} lower"
    if difference.low > 0:
        return f"{second} lower"
    return "no detectable difference"


def constrained_histories(records: list[RunRecord]) -> dict[str, list[dict]]:
    """The per-epoch metrics of every constrained run that has some, by run folder name."""
    histories = {r.run_dir.name: read_metrics(r.run_dir) for r in records if r.mode == "constrained"}
    return {name: epochs for name, epochs in histories.items() if epochs}


def binding(records: list[RunRecord], histories: dict[str, list[dict]]) -> list[dict]:
    """Per constrained run and layer: the share of training steps after which λ_l > 0, the largest
    and the final λ_l (from the run's metrics; epochs have equal step counts)."""
    rows = []
    for record in records:
        epochs = histories.get(record.run_dir.name)
        if not epochs:
            continue
        layers = len(epochs[-1]["multipliers"])
        for layer in range(layers):
            active = [e["multipliers_active_fraction"][layer] for e in epochs if "multipliers_active_fraction" in e]
            rows.append(
                {
                    "dataset": record.dataset,
                    "model": record.model,
                    "arm": record.arm,
                    "seed": record.seed,
                    "layer": layer + 1,
                    "active_fraction": float(np.mean(active)) if active else math.nan,
                    "max_multiplier": max(e["multipliers"][layer] for e in epochs),
                    "final_multiplier": epochs[-1]["multipliers"][layer],
                }
            )
    return rows


# ---------------------------------------------------------------------------------------------------
# report


CELL_COLUMNS = [
    "model",
    "arm",
    "seed",
    "gamma",
    "rmse",
    "descent_fraction",
    "dataset",
    "noise",
    "site",
    "sigma_255",
    "psnr",
    "ssim",
    "clips",
    "frames",
    "noise_seeds",
]


def write_experiment_report(
    out: Path,
    config,
    records: list[RunRecord],
    results: dict[str, EvaluationResult],
    rows: list[dict],
    baselines: list[dict],
    comparisons: list[dict],
    seconds: float,
    videos: list[dict] | None = None,
) -> dict[str, Path]:
    paths: dict[str, Path] = {
        "cells": csv_table(out / "cells.csv", rows, CELL_COLUMNS),
        "baselines": csv_table(out / "baselines.csv", baselines, ["method", "gamma", "rmse"] + CELL_COLUMNS[6:]),
        "comparisons": csv_table(
            out / "comparisons.csv", comparisons, list(comparisons[0]) if comparisons else ["a", "b"]
        ),
    }
    histories = constrained_histories(records)
    bound = binding(records, histories)
    paths["binding"] = csv_table(out / "binding.csv", bound, list(bound[0]) if bound else ["model", "arm"])
    write_text(
        out / "summary.json",
        json.dumps(
            json_safe({"rows": rows, "baselines": baselines, "comparisons": comparisons, "binding": bound}),
            indent=1,
            default=str,
        ),
        overwrite=True,
    )

    arms = list(config.arms)
    lines = [f"# Experiment {config.name}", ""]
    lines += [
        f"- grid: datasets {', '.join(results) or 'none evaluated'} × models {', '.join(config.models)} × arms "
        f"{', '.join(arms)} × training seeds {config.seeds}; checkpoint: {config.checkpoint}.safetensors",
        f"- {len(records)} runs ({', '.join(f'{n} {s}' for s, n in _count([r.status for r in records]).items())}); "
        f"this invocation took {seconds / 60:.1f} min",
        "- metric: RMSE of the final estimate on the [0, 1] scale, per frame, averaged over every clip and noise "
        "seed of a run: one number per run. Training seeds are the unit of replication: seed k fixes "
        "initialisation, clip order and training noise in every arm, so arms are compared by the paired "
        "difference over seeds with a 95 % t interval (A − B < 0: A has the lower RMSE).",
        "",
    ]
    lines += validation_section(records)
    if videos:
        paths["videos"] = csv_table(
            out / "video-cells.csv", videos, VIDEO_COLUMNS + list(videos[0])[len(VIDEO_COLUMNS) :]
        )
        lines += endpoints_section(out, config, videos, paths)
    primary_noise = results[next(iter(results))].config.noises[0] if results else "gaussian"
    for first, second in COMPARISONS:
        # every site for the primary pair (site "layers": intermediate layers perturbed too), the input for the rest
        sites = ("input", "layers") if (first, second) == COMPARISONS[0] else ("input",)
        picked = [
            c
            for c in comparisons
            if c["a"] == first and c["b"] == second and c["site"] in sites and c["noise"] == primary_noise
        ]
        if not picked:
            continue
        lines += [
            f"## {first} − {second}: paired RMSE difference over seeds",
            "",
            f"| dataset | site | model | γ | {first} RMSE | {second} RMSE | difference [95 % CI] | relative | p | "
            "seeds | verdict |",
            "|---|---|---|---:|---:|---:|---|---:|---:|---:|---|",
        ]
        for c in sorted(picked, key=lambda c: (sites.index(c["site"]), c["dataset"], c["model"], c["gamma"])):
            interval = f"[{c['ci_low']:+.5f}, {c['ci_high']:+.5f}]" if not math.isnan(c["ci_low"]) else ""
            lines.append(
                f"| {c['dataset']} | {c['site']} | {c['model']} | {c['gamma']:g} | {format_number(c['rmse_a'])} | "
                f"{format_number(c['rmse_b'])} "
                f"| {c['difference']:+.5f} {interval} | {c['relative']:+.2%} | {format_number(c['p'], 3)} | "
                f"{c['seeds']} | "
                f"{c['verdict']} |"
            )
        lines.append("")

    if bound:
        lines += [
            "## Do the constraints bind?",
            "",
            "Share of training steps after which λ_l > 0, and the largest λ_l, "
            "mean over seeds (binding.csv has every run):",
            "",
            "| dataset | model | arm | " + " | ".join(f"layer {l}" for l in sorted({b["layer"] for b in bound})) + " |",
            "|---|---|---|" + "---:|" * len({b["layer"] for b in bound}),
        ]
        for key in sorted({(b["dataset"], b["model"], b["arm"]) for b in bound}):
            cells = []
            for layer in sorted({b["layer"] for b in bound}):
                picked = [b for b in bound if (b["dataset"], b["model"], b["arm"]) == key and b["layer"] == layer]
                cells.append(
                    f"{np.mean([b['active_fraction'] for b in picked]):.0%} (λ ≤ "
                    f"{max(b['max_multiplier'] for b in picked):.3g})"
                    if picked
                    else ""
                )
            lines.append(f"| {' | '.join(key)} | " + " | ".join(cells) + " |")
        lines.append("")

    for dataset, result in results.items():
        noise = result.config.noises[0]
        levels = result.levels
        lines += [
            f"## {dataset}: RMSE ↓ by γ (mean ± 95 % t half-width over training seeds; {result.n_clips} clips × "
            f"{len(result.config.seeds)} noise seeds, {result.n_frames} frames, "
            f"{result.frame_size[1]}×{result.frame_size[0]})",
            "",
            "| model | arm | seeds | " + " | ".join(f"{l.label} ↓" for l in levels) + " |",
            "|---|---|---:|" + "---:|" * len(levels),
        ]
        picked = [r for r in rows if r["dataset"] == dataset and r["noise"] == noise and r["site"] == "input"]
        series, descent, panels = {}, [], []
        for model in config.models:
            for arm in arms:
                runs = [r for r in picked if r["model"] == model and r["arm"] == arm]
                if not runs:
                    continue
                texts, means, widths, shares = [], [], [], []
                for level in levels:
                    at_level = [r for r in runs if r["gamma"] == level.gamma]
                    mean, width = mean_interval([r["rmse"] for r in at_level])
                    texts.append(format_number(mean) + (f" ± {format_number(width)}" if not math.isnan(width) else ""))
                    means.append(mean)
                    widths.append(0.0 if math.isnan(width) else width)
                    shares.append(np.mean([r["descent_fraction"] for r in at_level]))
                seeds = len({r["seed"] for r in runs})
                lines.append(f"| {model} | {arm} | {seeds} | " + " | ".join(texts) + " |")
                series[f"{model} {arm}"] = ([l.gamma for l in levels], means, widths)
                descent.append((model, arm, shares))
        for baseline in result.config.baselines:
            values = {
                b["gamma"]: b["rmse"]
                for b in baselines
                if b["dataset"] == dataset and b["method"] == baseline and b["noise"] == noise and b["site"] == "input"
            }
            if values:
                lines.append(
                    f"|  | {baseline} |  | " + " | ".join(format_number(values.get(l.gamma)) for l in levels) + " |"
                )
                series[baseline] = ([l.gamma for l in levels], [values.get(l.gamma, math.nan) for l in levels], None)
        lines += [
            "",
            "Share of (clip, noise seed) samples whose loss falls at every layer (mean over training seeds):",
            "",
            "| model | arm | " + " | ".join(f"γ={l.gamma:g}" for l in levels) + " |",
            "|---|---|" + "---:|" * len(levels),
        ]
        lines += [
            f"| {model} | {arm} | " + " | ".join(f"{share:.0%}" for share in shares) + " |"
            for model, arm, shares in descent
        ]
        lines.append("")
        figure = plot_metric_vs_gamma(
            series,
            out / f"rmse_vs_gamma_{_slug(dataset)}.png",
            ylabel="RMSE",
            title=f"{dataset}: {noise} noise, mean and 95 % t band over training seeds",
            baselines=list(result.config.baselines),
            bands=True,
        )
        paths[f"rmse_vs_gamma_{dataset}"] = figure
        # the per-layer view at γ = 1 and γ = 3 (the study's largest primary level) when swept, else the default pair
        for level in [l for l in levels if l.gamma in (1.0, 3.0)] or report_levels(levels):
            curves = {}
            for model in config.models:
                for arm in arms:
                    layer_curves = [
                        r["layer_mse"]
                        for r in picked
                        if r["model"] == model and r["arm"] == arm and r["gamma"] == level.gamma and r["layer_mse"]
                    ]
                    if layer_curves and len({len(c) for c in layer_curves}) == 1:
                        curves[f"{model} {arm}"] = np.mean(layer_curves, axis=0).tolist()
            panels.append((f"{dataset}, {level.label}: mean over training seeds", curves))
        if any(curves for _, curves in panels):
            paths[f"per_layer_loss_{dataset}"] = plot_layer_losses(
                panels,
                out / f"per_layer_loss_{_slug(dataset)}.png",
                ylabel="MSE of layer l's estimate",
                reference=result.sigma_train**2,
            )
        lines += [f"![RMSE vs γ on {dataset}]({figure.name})", ""]
        if f"per_layer_loss_{dataset}" in paths:
            lines += [f"![per-layer loss on {dataset}]({paths[f'per_layer_loss_{dataset}'].name})", ""]
        lines += [
            "Full evaluation (PSNR, SSIM, per-layer tables, every run): "
            f"[eval/{dataset}/report.md](eval/{dataset}/report.md)",
            "",
        ]

    mean_multipliers = {}
    for model in config.models:
        for arm in arms:
            runs = [
                histories[r.run_dir.name]
                for r in records
                if r.model == model and r.arm == arm and r.run_dir.name in histories
            ]
            if runs and len({len(epochs) for epochs in runs}) == 1:
                mean_multipliers[f"{model} {arm} (mean of {len(runs)} seeds)"] = (
                    [e["epoch"] for e in runs[0]],
                    np.mean([[e["multipliers"] for e in epochs] for epochs in runs], axis=0).tolist(),
                )
    if mean_multipliers:
        paths["multipliers"] = plot_multipliers(mean_multipliers, out / "multipliers.png")
        lines += ["![λ_l over training](multipliers.png)", ""]

    lines += ["## Runs", "", "| run | status | training time (s) |", "|---|---|---:|"]
    lines += [f"| {r.run_dir.name} | {r.status} | {format_number(r.training_seconds, 0)} |" for r in records]
    lines += ["", "## Configuration", "", "```json", json.dumps(config.to_dict(), indent=2), "```", ""]
    paths["report"] = write_text(out / "report.md", "\n".join(lines), overwrite=True)
    return paths


def _slug(name: str) -> str:
    return name.replace("/", "-")


def _count(values: list[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    return counts

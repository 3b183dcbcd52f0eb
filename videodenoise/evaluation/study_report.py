"""The report section of a study with endpoints stated in advance (docs/robustness/PROTOCOL-2.md):
whether the runs meet their constraints on validation, the endpoints' table, each arm against the
control with its figure, and RMSE against test-time depth. Reads rows; measures nothing."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from videodenoise.errors import ExperimentError
from videodenoise.evaluation.endpoints import EndpointsConfig, arm_differences, depth_curves, endpoint_rows
from videodenoise.evaluation.plots import plot_metric_vs_depth, plot_paired_differences
from videodenoise.evaluation.reports import csv_table, format_number
from videodenoise.training.runs import read_metrics


def validation_section(records: list) -> list[str]:
    """Whether each arm's runs (experiment_report.RunRecord) meet the descent constraints on the
    validation clips at their last validation (the trainer's val_constraint_values, at the run's own
    α): runs meeting all, and the mean number of layers that do."""
    met: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for record in records:
        epochs = read_metrics(record.run_dir) if record.run_dir.is_dir() else []
        last = next((e for e in reversed(epochs) if "val_constraint_values" in e), None)
        if last is not None:
            values = last["val_constraint_values"]
            met.setdefault((record.model, record.arm), []).append((sum(v <= 0 for v in values), len(values)))
    if not met:
        return []
    lines = [
        "## Descent constraints on validation at the last validation",
        "",
        "g_l = F_l − (1 − α)·F_{l−1} ≤ 0 on the validation clips, at each run's α (ERM runs at the α their "
        "config carries, unused in their training):",
        "",
        "| model | arm | runs meeting every constraint | layers meeting theirs (mean) |",
        "|---|---|---:|---:|",
    ]
    for (model, arm), counts in sorted(met.items()):
        every = sum(found == total for found, total in counts)
        lines.append(
            f"| {model} | {arm} | {every} of {len(counts)} | {np.mean([f for f, _ in counts]):.1f} of {counts[0][1]} |"
        )
    return lines + [""]


def endpoints_section(out: Path, config, videos: list[dict], paths: dict[str, Path]) -> list[str]:
    """The study's endpoints (when the config states them), each arm against the control per γ with
    its figure, and RMSE against test-time depth: the answer first, then the curves it comes from."""
    settings = None if config.endpoints is None else EndpointsConfig(**config.endpoints)
    control = settings.control if settings else "erm"
    lines, found = [], []
    if settings:
        try:
            found = endpoint_rows(videos, settings, config.models)
        except ExperimentError as error:  # e.g. runs still training: say why, keep the rest of the report
            found, lines = [], ["## Endpoints", "", f"Not computed: {error}", ""]
        paths["endpoints"] = csv_table(out / "endpoints.csv", found, list(found[0]) if found else ["endpoint"])
    if found:
        lines += [
            "## Endpoints (stated in advance; intervals over training seeds and over test videos)",
            "",
            f"P1: {settings.treatment} − {settings.control} at the trained depth, relative RMSE averaged over "
            f"γ ∈ {settings.gammas}, equivalence margin ±{settings.margin:.0%}. P2: gain from depth "
            f"{settings.extra_depth} over the trained depth, {settings.depth_treatment} − {settings.depth_control}. "
            f"P3: depth regret (trained depth over the oracle's best layer). Holm over P1 and P2, level "
            f"{settings.level}.",
            "",
            "| endpoint | model | A − B | γ | mean | 95 % CI over seeds | 95 % CI over videos | seeds × videos "
            "| p (Holm) | p equivalence (Holm) | verdict |",
            "|---|---|---|---:|---:|---|---|---:|---:|---:|---|",
        ]
        for e in (e for e in found if e["endpoint"] != "P3"):
            lines.append(
                f"| {e['endpoint']} | {e['model']} | {e['a']} − {e['b']} | {e['gamma']} | {e['mean']:+.2%} | "
                f"[{e['seeds_low']:+.2%}, {e['seeds_high']:+.2%}] | [{e['videos_low']:+.2%}, {e['videos_high']:+.2%}] "
                f"| {e['seeds']} × {e['videos']} | {format_number(e.get('p_holm'), 4)} | "
                f"{format_number(e.get('p_equivalence_holm'), 4)} | {e.get('verdict', '')} |"
            )
        lines.append("")
        lines += _regret_table([e for e in found if e["endpoint"] == "P3"])
    noise = settings.noise if settings else "gaussian"
    differences = arm_differences(videos, control, config.models, noise)
    if differences:
        panels: dict[str, dict[str, list]] = {}
        for d in differences:
            panels.setdefault(d["model"], {}).setdefault(d["arm"], []).append(
                (d["gamma"], d["mean"], (d["seeds_low"], d["seeds_high"]), (d["videos_low"], d["videos_high"]))
            )
        paths["arm_differences"] = plot_paired_differences(
            panels,
            out / "arm_differences.png",
            ylabel=f"RMSE relative to {control} (paired)",
            margin=settings.margin if settings else None,
        )
        paths["arm_differences_csv"] = csv_table(out / "arm-differences.csv", differences, list(differences[0]))
        lines += [
            f"![each arm − {control}](arm_differences.png)",
            "",
            f"Each arm against {control}, paired by seed and video: thick bars are 95 % intervals over seeds, thin "
            "ones over videos (arm-differences.csv).",
            "",
        ]
    curves = depth_curves(videos, noise)
    trained = videos[0]["trained_depth"] if videos else None
    # The arms run past the trained depth (tied weights), and the primary pair read at earlier layers.
    shown = {arm for (_, arm, _), (depths, _) in curves.items() if max(depths) > trained}
    shown |= {settings.treatment, settings.control} if settings else set()
    rows: dict[str, dict[str, dict]] = {}
    for (model, arm, gamma), curve in sorted(curves.items()):
        if arm in shown:
            rows.setdefault(model, {}).setdefault(f"γ={gamma:g}", {})[arm] = curve
    if rows:
        paths["rmse_vs_depth"] = plot_metric_vs_depth(rows, out / "rmse_vs_depth.png", trained_depth=trained)
        lines += [
            "![RMSE against test-time depth](rmse_vs_depth.png)",
            "",
            f"Mean RMSE over seeds and videos against the number of layers run (the trained depth, {trained}, "
            "marked): arms with tied weights run past it; the others are read at their earlier layers.",
            "",
        ]
    return lines


def _regret_table(regrets: list[dict]) -> list[str]:
    """P3 compactly: one row per model and arm, one column per γ, mean [interval over seeds]."""
    if not regrets:
        return []
    gammas = sorted({e["gamma"] for e in regrets})
    lines = [
        "P3, depth regret: RMSE at the trained depth over the oracle's best layer's, − 1 (mean [95 % CI over "
        "seeds]; over videos in endpoints.csv):",
        "",
        "| model | arm | " + " | ".join(f"γ={g:g}" for g in gammas) + " |",
        "|---|---|" + "---:|" * len(gammas),
    ]
    for model, arm in sorted({(e["model"], e["a"]) for e in regrets}):
        cells = {e["gamma"]: e for e in regrets if (e["model"], e["a"]) == (model, arm)}
        texts = [
            f"{cells[g]['mean']:+.1%} [{cells[g]['seeds_low']:+.1%}, {cells[g]['seeds_high']:+.1%}]"
            if g in cells
            else ""
            for g in gammas
        ]
        lines.append(f"| {model} | {arm} | " + " | ".join(texts) + " |")
    return lines + [""]

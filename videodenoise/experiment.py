"""The robustness experiment as one command: train a grid, evaluate it, compare constrained with ERM.

    videodenoise experiment configs/paper-grid.toml

A config (TOML or JSON) lists datasets × models × modes × training seeds, the training options they
share (TrainConfig fields), per-model options, and the evaluation options (EvalConfig fields):

    name = "paper-grid"
    models = ["dust", "ut"]
    modes = ["erm", "deep-supervision", "constrained"]
    seeds = [0, 1, 2]
    checkpoint = "last"                # or "best" (selected on the validation split)
    [[datasets]]
    name = "ucsd-ped2"
    root = "~/data"
    evaluation = { crop = 224 }        # optional per-dataset overrides of [evaluation] / [training.data]
    [training]                         # TrainConfig; [training.data], [training.descent] nest as in config.json
    epochs = 40
    [model_options.dust]
    layers = 5
    [evaluation]
    gammas = [0.5, 1, 1.5, 2, 3, 4]

Layout of the output folder:

    runs/<dataset>-<model>-<mode>-seed<k>/   training run folders (training.Trainer)
    eval/<dataset>/                          evaluate() of every run of the dataset and the baselines
    report.md, cells.csv, comparisons.csv    the aggregate over training seeds, and the figures

Re-running the same command continues where it stopped: finished runs are kept, partial runs are
resumed from their last checkpoint, and an evaluation whose checkpoints and options are unchanged is
read back instead of recomputed.
"""

from __future__ import annotations

import copy
import csv
import io
import json
import math
import os
import shutil
import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

from .atomic import check_folder, write_text
from .config_files import read_config_file
from .devices import distributed_environment
from .errors import ExperimentError
from .evaluation import EvalConfig, EvaluationResult, evaluate, json_safe, read_results, report_levels

COMPARISONS = (("constrained", "erm"), ("deep-supervision", "erm"), ("constrained", "deep-supervision"))
CHECKPOINT_FILES = {"best": "best.safetensors", "last": "last.safetensors"}
# training options a resumed run may change without counting as a different run
RESUMABLE_OPTIONS = ("device", "precision", "epochs", "max_steps")


@dataclass
class DatasetEntry:
    name: str
    root: str | None = None
    label: str | None = None  # folder and table name; default: the dataset name
    data: dict[str, Any] = field(default_factory=dict)  # overrides of [training.data]
    evaluation: dict[str, Any] = field(default_factory=dict)  # overrides of [evaluation]

    @property
    def key(self) -> str:
        return self.label or self.name


@dataclass
class ExperimentConfig:
    name: str = "experiment"
    datasets: list[DatasetEntry] = field(default_factory=list)
    models: list[str] = field(default_factory=lambda: ["dust", "ut"])
    modes: list[str] = field(default_factory=lambda: ["erm", "constrained"])
    seeds: list[int] = field(default_factory=lambda: [0])
    checkpoint: str = "last"
    out: str | None = None
    training: dict[str, Any] = field(default_factory=dict)
    model_options: dict[str, dict[str, Any]] = field(default_factory=dict)
    evaluation: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        from .models import MODEL_NAMES
        from .training import MODES

        self.datasets = [entry if isinstance(entry, DatasetEntry) else _dataset_entry(entry) for entry in self.datasets]
        checks = [
            (bool(self.datasets), "the experiment lists no datasets; add a [[datasets]] entry with a name (and root)"),
            (bool(self.models) and all(m in MODEL_NAMES for m in self.models),
             f"models must be among {', '.join(MODEL_NAMES)}, got {self.models}"),
            (bool(self.modes) and all(m in MODES for m in self.modes), f"modes must be among {', '.join(MODES)}, got {self.modes}"),
            (bool(self.seeds) and len(set(self.seeds)) == len(self.seeds), f"seeds must be distinct, got {self.seeds}"),
            (self.checkpoint in CHECKPOINT_FILES, f"checkpoint must be 'best' or 'last', got {self.checkpoint!r}"),
            (len({d.key for d in self.datasets}) == len(self.datasets), "two datasets share a label; give each a distinct label"),
            (set(self.model_options) <= set(MODEL_NAMES), f"model_options names unknown models: {sorted(set(self.model_options) - set(MODEL_NAMES))}"),
        ]
        for ok, message in checks:
            if not ok:
                raise ExperimentError(message)
        reserved = {"model", "mode", "seed", "model_options"} & set(self.training)
        if reserved:
            raise ExperimentError(f"[training] may not set {', '.join(sorted(reserved))}: the grid sets them "
                                  f"(models, modes, seeds, [model_options.NAME])")
        if {"dataset", "root"} & set(self.training.get("data", {})):
            raise ExperimentError("[training.data] may not set dataset or root: list datasets as [[datasets]] entries")
        if {"dataset", "root"} & set(self.evaluation):
            raise ExperimentError("[evaluation] may not set dataset or root: list datasets as [[datasets]] entries")
        for entry in self.datasets:  # every combination must make valid configs before anything runs
            for model in self.models:
                for mode in self.modes:
                    self.train_config(entry, model, mode, self.seeds[0])
            self.eval_config(entry)

    def train_config(self, entry: DatasetEntry, model: str, mode: str, seed: int, device: str | None = None):
        from .training import TrainConfig

        values = copy.deepcopy(self.training)
        values["data"] = {**values.get("data", {}), **entry.data, "dataset": entry.name, "root": entry.root}
        values.update(model=model, mode=mode, seed=seed, model_options=dict(self.model_options.get(model, {})))
        if device is not None:
            values["device"] = device
        try:
            return TrainConfig.from_dict(values)
        except TypeError as error:  # a misspelt nested option
            raise ExperimentError(f"invalid training options for {entry.key}: {error}") from None

    def eval_config(self, entry: DatasetEntry, device: str | None = None) -> EvalConfig:
        values = {**self.evaluation, **entry.evaluation, "dataset": entry.name, "root": entry.root}
        if device is not None:
            values["device"] = device
        return EvalConfig.from_dict(values)

    def to_dict(self) -> dict:
        return asdict(self)


def _dataset_entry(values: Any) -> DatasetEntry:
    if isinstance(values, str):
        return DatasetEntry(name=values)
    if not isinstance(values, dict) or "name" not in values:
        raise ExperimentError(f"a dataset entry needs a name (and usually a root), got {values!r}")
    known = {f.name for f in fields(DatasetEntry)}
    unknown = sorted(set(values) - known)
    if unknown:
        raise ExperimentError(f"unknown dataset option(s) {', '.join(unknown)}; valid: {', '.join(sorted(known))}")
    return DatasetEntry(**values)


def load_experiment(path: str | os.PathLike) -> ExperimentConfig:
    """Read an experiment config from TOML or JSON."""
    path = Path(path)
    values = read_config_file(path, "experiment config", ExperimentError)
    known = {f.name for f in fields(ExperimentConfig)}
    unknown = sorted(set(values) - known)
    if unknown:
        raise ExperimentError(f"unknown experiment option(s) {', '.join(unknown)} in '{path}'; valid: {', '.join(sorted(known))}")
    values.setdefault("name", path.stem)
    return ExperimentConfig(**values)


# ---------------------------------------------------------------------------------------------------
# running


def run_name(dataset: str, model: str, mode: str, seed: int) -> str:
    return f"{dataset}-{model}-{mode}-seed{seed}"


def _expected_steps(config, world: int | None = None) -> int:
    """The steps a finished run has taken: the trainer splits every batch over the DDP processes, so an
    epoch is samples_per_epoch // (batch_size × world size) steps."""
    if world is None:
        world = distributed_environment()[1]
    steps = config.epochs * (config.data.samples_per_epoch // (config.batch_size * world))
    return min(steps, config.max_steps) if config.max_steps else steps


def _comparable(values: dict) -> dict:
    return {k: v for k, v in values.items() if k not in RESUMABLE_OPTIONS}


def train_run(run_dir: Path, config, quiet: bool = True, log=print) -> str:
    """Train one run of the grid, or continue it: 'trained', 'resumed' or 'done' (already finished)."""
    from .training import Trainer

    config_path = run_dir / "config.json"
    if config_path.is_file():
        saved = json.loads(config_path.read_text())
        wanted = json.loads(json.dumps(config.to_dict()))  # as config.json holds it (tuples as lists)
        if _comparable(saved) != _comparable(wanted):
            differing = sorted(k for k in set(saved) | set(wanted) if k not in RESUMABLE_OPTIONS and saved.get(k) != wanted.get(k))
            raise ExperimentError(f"'{run_dir}' holds a run with other options ({', '.join(differing)}); "
                                  f"delete that folder or write the experiment to another --out")
        summary_path = run_dir / "summary.json"
        if summary_path.is_file() and json.loads(summary_path.read_text()).get("steps", -1) >= _expected_steps(config) \
                and (run_dir / "last.safetensors").is_file():
            return "done"
        if (run_dir / "last.pt").is_file():
            overrides = {k: wanted[k] for k in RESUMABLE_OPTIONS if saved.get(k) != wanted.get(k)}
            log(f"resuming {run_dir.name}")
            Trainer.resume(run_dir, quiet=quiet, **overrides).fit()
            return "resumed"
        # killed before its first checkpoint: nothing to keep
        for name in ("config.json", "metrics.jsonl", "summary.json"):
            (run_dir / name).unlink(missing_ok=True)
        shutil.rmtree(run_dir / "tensorboard", ignore_errors=True)
    log(f"training {run_dir.name}")
    Trainer(config, run_dir, quiet=quiet).fit()
    return "trained"


def _evaluation_fingerprint(config: EvalConfig, checkpoints: list[Path], labels: list[str]) -> dict:
    return {
        "config": config.to_dict(),
        "checkpoints": [[label, str(path), path.stat().st_size, path.stat().st_mtime_ns] for label, path in zip(labels, checkpoints)],
    }


def evaluate_dataset(eval_dir: Path, config: EvalConfig, checkpoints: list[Path], labels: list[str],
                     quiet: bool = True, log=print, progress=None) -> EvaluationResult:
    """Evaluate a dataset's runs, or read the result back when nothing changed since it was written."""
    fingerprint = _evaluation_fingerprint(config, checkpoints, labels)
    stamp = eval_dir / "fingerprint.json"
    if stamp.is_file() and (eval_dir / "results.json").is_file():
        if json.loads(stamp.read_text()) == json.loads(json.dumps(fingerprint)):
            log(f"evaluation of {eval_dir.name} is up to date; reading it back")
            return read_results(eval_dir)
    log(f"evaluating {len(checkpoints)} checkpoints and {len(config.baselines)} baselines on {eval_dir.name}")
    result = evaluate(checkpoints, config, labels=labels, progress=progress)
    # the experiment owns this folder: a changed grid or options re-evaluate it in place
    result.write(eval_dir, overwrite=True)
    write_text(stamp, json.dumps(fingerprint, indent=1), overwrite=True)
    return result


@dataclass
class RunRecord:
    dataset: str
    model: str
    mode: str
    seed: int
    run_dir: Path
    status: str
    training_seconds: float | None = None


def run_experiment(config: ExperimentConfig, out_dir: str | os.PathLike | None = None, device: str | None = None,
                   datasets: list[str] | None = None, train: bool = True, evaluate_runs: bool = True,
                   quiet: bool = True, log=print, progress=None) -> dict[str, Any]:
    """Train every run of the grid (or continue), evaluate every dataset, write the aggregate report.

    datasets: only these dataset labels. train=False evaluates the runs that exist; evaluate_runs=False
    only trains. progress(done, total, status) follows each evaluation. Returns {"out": folder, "runs": [RunRecord], "cells": [...], "comparisons": [...],
    "report": path of report.md, "files": {name: path} of everything written}.
    """
    out = Path(out_dir or config.out or Path("experiments") / config.name).expanduser()
    entries = [d for d in config.datasets if datasets is None or d.key in datasets]
    if datasets is not None:
        missing = sorted(set(datasets) - {d.key for d in config.datasets})
        if missing:
            raise ExperimentError(f"the experiment has no dataset {', '.join(missing)}; it has {', '.join(d.key for d in config.datasets)}")
    check_folder(out, create=True, what="experiment folder")
    write_text(out / "experiment.json", json.dumps(config.to_dict(), indent=2), overwrite=True)
    started = time.perf_counter()
    records: list[RunRecord] = []
    for entry in entries:
        for model in config.models:
            for mode in config.modes:
                for seed in config.seeds:
                    run_dir = out / "runs" / run_name(entry.key, model, mode, seed)
                    train_config = config.train_config(entry, model, mode, seed, device)
                    if train:
                        status = train_run(run_dir, train_config, quiet=quiet, log=log)
                    else:
                        status = "found" if (run_dir / CHECKPOINT_FILES[config.checkpoint]).is_file() else "missing"
                    summary = run_dir / "summary.json"
                    seconds = json.loads(summary.read_text()).get("training_seconds") if summary.is_file() else None
                    records.append(RunRecord(entry.key, model, mode, seed, run_dir, status, seconds))
    results: dict[str, EvaluationResult] = {}
    if evaluate_runs:
        for entry in entries:
            runs = [r for r in records if r.dataset == entry.key and (r.run_dir / CHECKPOINT_FILES[config.checkpoint]).is_file()]
            if not runs:
                log(f"no trained runs for {entry.key}; skipping its evaluation")
                continue
            results[entry.key] = evaluate_dataset(
                out / "eval" / entry.key, config.eval_config(entry, device),
                [r.run_dir / CHECKPOINT_FILES[config.checkpoint] for r in runs], [r.run_dir.name for r in runs],
                quiet=quiet, log=log, progress=progress)
    cells = aggregate_cells(results, records)
    comparisons = compare_modes(cells)
    paths = write_experiment_report(out, config, records, results, cells, comparisons, time.perf_counter() - started)
    return {"out": out, "runs": records, "cells": cells, "comparisons": comparisons, "report": paths["report"], "files": paths}


# ---------------------------------------------------------------------------------------------------
# aggregation over training seeds


def aggregate_cells(results: dict[str, EvaluationResult], records: list[RunRecord]) -> list[dict]:
    """One cell per dataset × noise × site × γ × (model, mode) with the RMSE of every training seed
    (each the mean over clips × noise seeds), their mean and std; baselines as single-seed cells."""
    by_label = {r.run_dir.name: r for r in records}
    cells: dict[tuple, dict] = {}
    for dataset, result in results.items():
        for row in result.rows():
            record = by_label.get(row["method"])
            if row["type"] == "model" and record is None:
                continue
            group = (record.model, record.mode) if record else ("baseline", row["method"])
            key = (dataset, row["noise"], row["site"], row["gamma"]) + group
            cell = cells.setdefault(key, {
                "dataset": dataset, "noise": row["noise"], "site": row["site"], "gamma": row["gamma"],
                "sigma_255": row["sigma_255"], "model": group[0], "mode": group[1], "seeds": [], "rmse": [],
                "psnr": [], "ssim": [], "descent_fraction": [], "clips": row["clips"], "frames": row["frames"],
                "noise_seeds": row["seeds"],
            })
            cell["seeds"].append(record.seed if record else None)
            for metric in ("rmse", "psnr", "ssim"):
                cell[metric].append(row[f"{metric}_mean"])
            if row["descent_fraction"] is not None:
                cell["descent_fraction"].append(row["descent_fraction"])
    out = []
    for cell in cells.values():
        for metric in ("rmse", "psnr", "ssim", "descent_fraction"):
            values = np.array(cell[metric], dtype=np.float64)
            cell[f"{metric}_mean"] = float(values.mean()) if values.size else None
            cell[f"{metric}_std"] = float(values.std(ddof=1)) if values.size > 1 else None
        out.append(cell)
    return out


def cohens_d(a: list[float], b: list[float]) -> float:
    """(mean a − mean b) / pooled standard deviation; NaN with fewer than two values on a side or no spread."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.size < 2 or b.size < 2:
        return math.nan
    pooled = math.sqrt(((a.size - 1) * a.var(ddof=1) + (b.size - 1) * b.var(ddof=1)) / (a.size + b.size - 2))
    return float((a.mean() - b.mean()) / pooled) if pooled > 0 else math.nan


def compare_modes(cells: list[dict]) -> list[dict]:
    """For every dataset × noise × site × γ × model and each pair (A, B) of COMPARISONS present: the
    RMSE difference A − B (mean over training seeds), relative difference, Cohen's d across seeds, and
    whether A wins (lower mean RMSE)."""
    index = {(c["dataset"], c["noise"], c["site"], c["gamma"], c["model"], c["mode"]): c for c in cells}
    comparisons = []
    for (dataset, noise, site, gamma, model, mode), cell in index.items():
        for first, second in COMPARISONS:
            if mode != first or (dataset, noise, site, gamma, model, second) not in index:
                continue
            other = index[(dataset, noise, site, gamma, model, second)]
            difference = cell["rmse_mean"] - other["rmse_mean"]
            comparisons.append({
                "dataset": dataset, "noise": noise, "site": site, "gamma": gamma, "sigma_255": cell["sigma_255"],
                "model": model, "a": first, "b": second, "rmse_a": cell["rmse_mean"], "rmse_b": other["rmse_mean"],
                "std_a": cell["rmse_std"], "std_b": other["rmse_std"], "seeds_a": len(cell["rmse"]), "seeds_b": len(other["rmse"]),
                "difference": difference, "relative": difference / other["rmse_mean"],
                "cohens_d": cohens_d(cell["rmse"], other["rmse"]), "a_wins": difference < 0, "tie": difference == 0,
            })
    comparisons.sort(key=lambda c: (c["a"], c["b"], c["model"], c["dataset"], c["noise"], c["site"], c["gamma"]))
    return comparisons


def win_counts(comparisons: list[dict], a: str = "constrained", b: str = "erm", site: str = "input",
               noise: str | None = None) -> dict[str, tuple[int, int]]:
    """Wins of A over B, (wins, cells), overall, per model, at γ = 1 and at γ ≥ 2."""
    picked = [c for c in comparisons if c["a"] == a and c["b"] == b and c["site"] == site and (noise is None or c["noise"] == noise)]
    groups = {"all": picked, "γ = 1": [c for c in picked if math.isclose(c["gamma"], 1.0)],
              "γ ≥ 2": [c for c in picked if c["gamma"] >= 2 - 1e-9], "γ < 1": [c for c in picked if c["gamma"] < 1 - 1e-9]}
    for model in sorted({c["model"] for c in picked}):
        groups[model] = [c for c in picked if c["model"] == model]
    return {name: (sum(c["a_wins"] for c in group), len(group)) for name, group in groups.items()}


# ---------------------------------------------------------------------------------------------------
# report


def _fmt(value: float | None, digits: int = 4) -> str:
    return "" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.{digits}f}"


def write_experiment_report(out: Path, config: ExperimentConfig, records: list[RunRecord],
                            results: dict[str, EvaluationResult], cells: list[dict], comparisons: list[dict],
                            seconds: float) -> dict[str, Path]:
    from .plots import plot_layer_losses, plot_metric_vs_gamma

    paths: dict[str, Path] = {}
    cell_columns = ["dataset", "noise", "site", "gamma", "sigma_255", "model", "mode", "rmse_mean", "rmse_std", "psnr_mean",
                    "psnr_std", "ssim_mean", "ssim_std", "descent_fraction_mean", "seeds", "rmse", "clips", "frames", "noise_seeds"]
    # the aggregate is recomputed from the runs on every call, so it replaces the previous one
    buffer = io.StringIO(newline="")
    writer = csv.DictWriter(buffer, fieldnames=cell_columns, extrasaction="ignore")
    writer.writeheader()
    for cell in cells:
        writer.writerow({**cell, "seeds": " ".join(str(s) for s in cell["seeds"] if s is not None),
                         "rmse": " ".join(f"{v:.6g}" for v in cell["rmse"])})
    paths["cells"] = write_text(out / "cells.csv", buffer.getvalue(), overwrite=True)
    buffer = io.StringIO(newline="")
    writer = csv.DictWriter(buffer, fieldnames=list(comparisons[0]) if comparisons else ["dataset"])
    writer.writeheader()
    writer.writerows(comparisons)
    paths["comparisons"] = write_text(out / "comparisons.csv", buffer.getvalue(), overwrite=True)
    write_text(out / "summary.json", json.dumps(json_safe({"cells": cells, "comparisons": comparisons}), indent=1,
                                               default=str), overwrite=True)

    lines = [f"# Experiment {config.name}", ""]
    lines += [f"- grid: datasets {', '.join(results) or 'none evaluated'} × models {', '.join(config.models)} × modes "
              f"{', '.join(config.modes)} × training seeds {config.seeds}; checkpoint: {config.checkpoint}.safetensors",
              f"- {len(records)} runs ({', '.join(f'{n} {s}' for s, n in _count([r.status for r in records]).items())}); "
              f"this invocation took {seconds / 60:.1f} min",
              "- metric: RMSE of the final estimate on the [0, 1] scale (per frame, then averaged over the frames of "
              "every clip and noise seed); each training seed gives one such mean, and cells show mean ± std over "
              "training seeds. Effect size: Cohen's d of the per-seed RMSEs (pooled std; negative = the first mode "
              "is better). A win is a lower mean RMSE.", ""]
    primary_noise = results[next(iter(results))].config.noises[0] if results else "gaussian"
    for first, second in COMPARISONS:
        counts = win_counts(comparisons, first, second, noise=primary_noise)
        if not counts["all"][1]:
            continue
        wins, total = counts["all"]
        lines += [f"## {first} vs {second}: {first} wins {wins} of {total} dataset × γ × model cells", ""]
        if (first, second) == ("constrained", "erm"):
            lines += ["The method paper reports 5 wins of 9 (dataset × noise level) settings for constrained training, "
                      "and slightly worse in-distribution results (γ = 1).", ""]
        lines += ["| cells | " + " | ".join(counts) + " |", "|---|" + "---:|" * len(counts),
                  f"| {first} wins | " + " | ".join(f"{w} of {n}" for w, n in counts.values()) + " |", ""]
        lines += [f"| dataset | model | γ | σ | {first} RMSE ↓ | {second} RMSE ↓ | difference | relative | Cohen's d | winner |",
                  "|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]
        for c in comparisons:
            if c["a"] != first or c["b"] != second or c["site"] != "input" or c["noise"] != primary_noise:
                continue
            spread_a = f" ± {_fmt(c['std_a'])}" if c["std_a"] is not None else ""
            spread_b = f" ± {_fmt(c['std_b'])}" if c["std_b"] is not None else ""
            d = "n/a" if math.isnan(c["cohens_d"]) else f"{c['cohens_d']:+.2f}"
            lines.append(f"| {c['dataset']} | {c['model']} | {c['gamma']:g} | {c['sigma_255']:.3g} | {_fmt(c['rmse_a'])}{spread_a} "
                         f"| {_fmt(c['rmse_b'])}{spread_b} | {c['difference']:+.5f} | {c['relative']:+.2%} | {d} | "
                         f"{'tie' if c['tie'] else first if c['a_wins'] else second} |")
        lines.append("")

    for dataset, result in results.items():
        noise = result.config.noises[0]
        lines += [f"## {dataset}: RMSE ↓ by γ (mean ± std over training seeds; {result.n_clips} clips × "
                  f"{len(result.config.seeds)} noise seeds, {result.n_frames} frames, {result.frame_size[1]}×{result.frame_size[0]})", ""]
        levels = result.levels
        lines.append("| model | mode | seeds | " + " | ".join(f"{l.label} ↓" for l in levels) + " |")
        lines.append("|---|---|---:|" + "---:|" * len(levels))
        groups = [(m, mode) for m in config.models for mode in config.modes] + [("baseline", b) for b in result.config.baselines]
        table = {}
        for model, mode in groups:
            table[(model, mode)] = [next((c for c in cells if c["dataset"] == dataset and c["noise"] == noise and c["site"] == "input"
                                          and c["gamma"] == l.gamma and c["model"] == model and c["mode"] == mode), None) for l in levels]
        best = [min((row[i]["rmse_mean"] for row in table.values() if row[i]), default=None) for i in range(len(levels))]
        for (model, mode), row in table.items():
            if not any(row):
                continue
            texts = []
            for i, c in enumerate(row):
                if c is None:
                    texts.append("")
                    continue
                text = _fmt(c["rmse_mean"]) + (f" ± {_fmt(c['rmse_std'])}" if c["rmse_std"] is not None else "")
                texts.append(f"**{text}**" if c["rmse_mean"] == best[i] else text)
            seeds = len([s for s in row[0]["seeds"] if s is not None]) if row[0] else 0
            lines.append(f"| {model if model != 'baseline' else ''} | {mode} | {seeds or ''} | " + " | ".join(texts) + " |")
        lines.append("")
        descent = [(model, mode, [c for c in row if c and c["descent_fraction_mean"] is not None]) for (model, mode), row in table.items() if model != "baseline"]
        if any(d for _, _, d in descent):
            lines += ["Share of (clip, noise seed) samples whose loss falls at every layer (mean over training seeds):", "",
                      "| model | mode | " + " | ".join(f"γ={l.gamma:g}" for l in levels) + " |", "|---|---|" + "---:|" * len(levels)]
            for model, mode, row in descent:
                if row:
                    lines.append(f"| {model} | {mode} | " + " | ".join(f"{c['descent_fraction_mean']:.0%}" for c in row) + " |")
            lines.append("")

        series = {}
        for (model, mode), row in table.items():
            present = [c for c in row if c]
            if present:
                label = mode if model == "baseline" else f"{model} {mode}"
                series[label] = ([c["gamma"] for c in present], [c["rmse_mean"] for c in present],
                                 [c["rmse_std"] or 0.0 for c in present])
        figure = plot_metric_vs_gamma(series, out / f"rmse_vs_gamma_{dataset}.png",
                                      title=f"{dataset}: {noise} noise, mean ± std over training seeds", ylabel="RMSE",
                                      baselines=list(result.config.baselines))
        paths[f"rmse_vs_gamma_{dataset}"] = figure
        panels = []
        for level in report_levels(levels):
            curves = {}
            for model in config.models:
                for mode in config.modes:
                    layer_curves = [row["layer_mse"] for row in result.rows() if row["type"] == "model" and row["noise"] == noise
                                    and row["site"] == "input" and row["gamma"] == level.gamma
                                    and row["method"].startswith(f"{dataset}-{model}-{mode}-seed")]
                    if layer_curves and len({len(c) for c in layer_curves}) == 1:
                        curves[f"{model} {mode}"] = np.mean(layer_curves, axis=0).tolist()
            panels.append((f"{dataset}, {level.label}: mean over training seeds", curves))
        if panels and any(curves for _, curves in panels):
            paths[f"per_layer_loss_{dataset}"] = plot_layer_losses(panels, out / f"per_layer_loss_{dataset}.png",
                                                                   ylabel="MSE of layer l's estimate", reference=result.sigma_train**2)
        lines += [f"![RMSE vs γ on {dataset}]({figure.name})", ""]
        if f"per_layer_loss_{dataset}" in paths:
            lines += [f"![per-layer loss on {dataset}]({paths[f'per_layer_loss_{dataset}'].name})", ""]
        eval_dir = out / "eval" / dataset
        lines += [f"Full evaluation (PSNR, SSIM, per-layer tables, every run, λ_l over training): "
                  f"[eval/{dataset}/report.md](eval/{dataset}/report.md)", ""]
        if (eval_dir / "multipliers.png").is_file():
            lines += [f"![multipliers on {dataset}](eval/{dataset}/multipliers.png)", ""]

    lines += ["## Runs", "", "| run | status | training time (s) |", "|---|---|---:|"]
    lines += [f"| {r.run_dir.name} | {r.status} | {_fmt(r.training_seconds, 0)} |" for r in records]
    lines += ["", "## Configuration", "", "```json", json.dumps(config.to_dict(), indent=2), "```", ""]
    paths["report"] = write_text(out / "report.md", "\n".join(lines), overwrite=True)
    return paths


def _count(values: list[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    return counts


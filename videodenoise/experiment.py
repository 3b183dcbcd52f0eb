"""The robustness experiment as one command: train a grid, evaluate it, compare the arms seed by seed.

    videodenoise experiment configs/robustness.toml

A config (TOML or JSON) lists datasets × models × arms × training seeds, the training options they
share (TrainConfig fields), per-model options, and the evaluation options (EvalConfig fields). An arm
is a training mode with its own option overrides (`modes = [...]` is the shorthand for arms that are
plain modes):

    name = "paper-grid"
    models = ["dust", "ut"]
    seeds = [0, 1, 2, 3, 4]            # paired: seed k fixes initialisation, clip order and noise in every arm
    [arms.erm]
    mode = "erm"
    [arms.resilient]
    mode = "constrained"
    descent = { resilience = 1.0 }
    [arms.resilient.per_model.ut]      # overrides for one model only
    descent = { alpha = 0.3 }
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

    runs/<dataset>-<model>-<arm>-seed<k>/    training run folders (training.Trainer)
    eval/<dataset>/                          evaluate() of every run of the dataset and the baselines
    cells.csv                                one row per run × γ (× noise, site): RMSE, descent share
    baselines.csv                            the classical baselines on the same noisy clips
    comparisons.csv                          paired differences between arms with t intervals over seeds
    binding.csv                              per run and layer: share of steps with λ_l > 0, largest λ_l
    report.md, summary.json, figures

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
from .runs import read_metrics
from .evaluation import EvalConfig, EvaluationResult, evaluate, json_safe, read_results, report_levels

# (A, B) pairs reported as A − B when both arms are in the grid; the first is the primary endpoint
COMPARISONS = (("constrained", "erm"), ("resilient", "erm"), ("deep-supervision", "erm"), ("erm-blind", "erm"),
               ("constrained", "deep-supervision"), ("constrained", "erm-blind"), ("resilient", "constrained"))
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
    modes: list[str] | None = None  # shorthand for arms named after plain modes; default erm, constrained
    arms: dict[str, dict[str, Any]] = field(default_factory=dict)  # name → {mode, overrides, per_model}
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
        if self.arms and self.modes is not None:
            raise ExperimentError("give either modes or [arms.NAME] tables, not both")
        if not self.arms:
            self.arms = {mode: {"mode": mode} for mode in (self.modes or ["erm", "constrained"])}
        self.modes = None
        checks = [
            (bool(self.datasets), "the experiment lists no datasets; add a [[datasets]] entry with a name (and root)"),
            (bool(self.models) and all(m in MODEL_NAMES for m in self.models),
             f"models must be among {', '.join(MODEL_NAMES)}, got {self.models}"),
            (all(isinstance(a, dict) and a.get("mode", name) in MODES for name, a in self.arms.items()),
             f"every arm needs a mode among {', '.join(MODES)} (an arm named after a mode may omit it)"),
            (all(name and name.replace("-", "").replace("_", "").isalnum() for name in self.arms),
             f"arm names must be letters, digits, - and _ (they name run folders), got {sorted(self.arms)}"),
            (all(set(a.get("per_model", {})) <= set(self.models) for a in self.arms.values()),
             "an arm's per_model table names a model the grid does not train"),
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
        for name, arm in self.arms.items():
            reserved = {"model", "seed"} & (set(arm) | {key for o in arm.get("per_model", {}).values() for key in o})
            if reserved:
                raise ExperimentError(f"arm {name} may not set {', '.join(sorted(reserved))}: the grid sets them")
        for entry in self.datasets:  # every combination must make valid configs before anything runs
            for model in self.models:
                for arm in self.arms:
                    self.train_config(entry, model, arm, self.seeds[0])
            self.eval_config(entry)

    def train_config(self, entry: DatasetEntry, model: str, arm: str, seed: int, device: str | None = None):
        """The TrainConfig of one run: [training], then the arm's options, then the arm's per_model ones."""
        from .training import TrainConfig

        values = copy.deepcopy(self.training)
        values["data"] = {**values.get("data", {}), **entry.data, "dataset": entry.name, "root": entry.root}
        values["model_options"] = dict(self.model_options.get(model, {}))
        options = {k: v for k, v in self.arms[arm].items() if k != "per_model"}
        for overrides in (options, self.arms[arm].get("per_model", {}).get(model, {})):
            for key, value in copy.deepcopy(overrides).items():
                nested = key in ("data", "descent", "model_options") and isinstance(value, dict)
                values[key] = {**values.get(key, {}), **value} if nested else value
        values.update(model=model, mode=self.arms[arm].get("mode", arm), seed=seed)
        if device is not None:
            values["device"] = device
        try:
            return TrainConfig.from_dict(values)
        except TypeError as error:  # a misspelt nested option
            raise ExperimentError(f"invalid training options for {entry.key}, arm {arm}: {error}") from None

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


def run_name(dataset: str, model: str, arm: str, seed: int) -> str:
    return f"{dataset}-{model}-{arm}-seed{seed}"


def _expected_steps(config, world: int | None = None) -> int:
    """The steps a finished run has taken: the trainer splits every batch over the DDP processes, so an
    epoch is samples_per_epoch // (batch_size × world size) steps."""
    if world is None:
        world = distributed_environment()[1]
    steps = config.epochs * (config.data.samples_per_epoch // (config.batch_size * world))
    return min(steps, config.max_steps) if config.max_steps else steps


def _comparable(values: dict) -> dict:
    """A run's options without those a resume may change; options added to TrainConfig after the run
    was started count as their defaults."""
    from .training import TrainConfig

    defaults = json.loads(json.dumps(TrainConfig().to_dict()))
    values = {**defaults, **values}
    for nested in ("data", "descent"):
        values[nested] = {**defaults[nested], **values.get(nested, {})}
    return {k: v for k, v in values.items() if k not in RESUMABLE_OPTIONS}


def train_run(run_dir: Path, config, quiet: bool = True, log=print) -> str:
    """Train one run of the grid, or continue it: 'trained', 'resumed' or 'done' (already finished)."""
    from .training import Trainer

    config_path = run_dir / "config.json"
    if config_path.is_file():
        saved = json.loads(config_path.read_text())
        wanted = json.loads(json.dumps(config.to_dict()))  # as config.json holds it (tuples as lists)
        if _comparable(saved) != _comparable(wanted):
            saved_options, wanted_options = _comparable(saved), _comparable(wanted)
            differing = sorted(k for k in set(saved_options) | set(wanted_options) if saved_options.get(k) != wanted_options.get(k))
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
    arm: str
    seed: int
    run_dir: Path
    status: str
    training_seconds: float | None = None
    mode: str = "erm"  # the arm's training mode


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
            for arm in config.arms:
                for seed in config.seeds:
                    run_dir = out / "runs" / run_name(entry.key, model, arm, seed)
                    train_config = config.train_config(entry, model, arm, seed, device)
                    if train:
                        status = train_run(run_dir, train_config, quiet=quiet, log=log)
                    else:
                        status = "found" if (run_dir / CHECKPOINT_FILES[config.checkpoint]).is_file() else "missing"
                    summary = run_dir / "summary.json"
                    seconds = json.loads(summary.read_text()).get("training_seconds") if summary.is_file() else None
                    records.append(RunRecord(entry.key, model, arm, seed, run_dir, status, seconds, train_config.mode))
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
    rows, baselines = seed_rows(results, records)
    comparisons = compare_arms(rows)
    paths = write_experiment_report(out, config, records, results, rows, baselines, comparisons, time.perf_counter() - started)
    return {"out": out, "runs": records, "rows": rows, "baselines": baselines, "comparisons": comparisons,
            "report": paths["report"], "files": paths}


# ---------------------------------------------------------------------------------------------------
# rows per run, paired comparisons over training seeds


def seed_rows(results: dict[str, EvaluationResult], records: list[RunRecord]) -> tuple[list[dict], list[dict]]:
    """One row per run × noise × site × γ (the run's metrics averaged over clips and noise seeds), and
    the baselines' rows on the same noisy clips."""
    by_label = {r.run_dir.name: r for r in records}
    rows, baselines = [], []
    for dataset, result in results.items():
        for row in result.rows():
            common = {"dataset": dataset, "noise": row["noise"], "site": row["site"], "gamma": row["gamma"],
                      "sigma_255": row["sigma_255"], "rmse": row["rmse_mean"], "psnr": row["psnr_mean"],
                      "ssim": row["ssim_mean"], "clips": row["clips"], "frames": row["frames"], "noise_seeds": row["seeds"]}
            if row["type"] == "baseline":
                baselines.append({"method": row["method"], **common})
                continue
            record = by_label.get(row["method"])
            if record is None:
                continue
            rows.append({"model": record.model, "arm": record.arm, "seed": record.seed, **common,
                         "descent_fraction": row["descent_fraction"], "layer_mse": row["layer_mse"]})
    return rows, baselines


def compare_arms(rows: list[dict], confidence: float = 0.95) -> list[dict]:
    """For every pair (A, B) of COMPARISONS in the grid and every dataset × noise × site × γ × model:
    the paired difference A − B of the runs' RMSE over the training seeds both arms have."""
    from .statistics import paired_difference

    index = {(r["dataset"], r["noise"], r["site"], r["gamma"], r["model"], r["arm"], r["seed"]): r["rmse"] for r in rows}
    groups = sorted({key[:5] for key in index}, key=lambda g: (g[4], g[0], g[1], g[2], g[3]))
    comparisons = []
    for first, second in COMPARISONS:
        for group in groups:
            seeds = sorted(key[6] for key in index if key[:5] == group and key[5] == first
                           and group + (second, key[6]) in index)
            if not seeds:
                continue
            a = [index[group + (first, seed)] for seed in seeds]
            b = [index[group + (second, seed)] for seed in seeds]
            difference = paired_difference(a, b, confidence)
            comparisons.append({
                "a": first, "b": second, "dataset": group[0], "noise": group[1], "site": group[2], "gamma": group[3],
                "model": group[4], "seeds": len(seeds), "rmse_a": float(np.mean(a)), "rmse_b": float(np.mean(b)),
                "difference": difference.mean, "sd": difference.sd, "ci_low": difference.low, "ci_high": difference.high,
                "t": difference.t, "p": difference.p, "relative": difference.mean / float(np.mean(b)),
                "verdict": _verdict(difference, first, second),
            })
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
            rows.append({"dataset": record.dataset, "model": record.model, "arm": record.arm, "seed": record.seed,
                         "layer": layer + 1, "active_fraction": float(np.mean(active)) if active else math.nan,
                         "max_multiplier": max(e["multipliers"][layer] for e in epochs),
                         "final_multiplier": epochs[-1]["multipliers"][layer]})
    return rows


# ---------------------------------------------------------------------------------------------------
# report


def _fmt(value: float | None, digits: int = 4) -> str:
    return "" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.{digits}f}"


def _csv(path: Path, rows: list[dict], columns: list[str]) -> Path:
    buffer = io.StringIO(newline="")
    writer = csv.DictWriter(buffer, fieldnames=columns, extrasaction="ignore")
    writer.writeheader()
    writer.writerows(rows)
    return write_text(path, buffer.getvalue(), overwrite=True)  # recomputed from the runs on every call


CELL_COLUMNS = ["model", "arm", "seed", "gamma", "rmse", "descent_fraction", "dataset", "noise", "site", "sigma_255",
                "psnr", "ssim", "clips", "frames", "noise_seeds"]


def write_experiment_report(out: Path, config: ExperimentConfig, records: list[RunRecord],
                            results: dict[str, EvaluationResult], rows: list[dict], baselines: list[dict],
                            comparisons: list[dict], seconds: float) -> dict[str, Path]:
    from .plots import plot_layer_losses, plot_metric_vs_gamma, plot_multipliers
    from .statistics import mean_interval

    paths: dict[str, Path] = {
        "cells": _csv(out / "cells.csv", rows, CELL_COLUMNS),
        "baselines": _csv(out / "baselines.csv", baselines, ["method", "gamma", "rmse"] + CELL_COLUMNS[6:]),
        "comparisons": _csv(out / "comparisons.csv", comparisons, list(comparisons[0]) if comparisons else ["a", "b"]),
    }
    histories = constrained_histories(records)
    bound = binding(records, histories)
    paths["binding"] = _csv(out / "binding.csv", bound, list(bound[0]) if bound else ["model", "arm"])
    write_text(out / "summary.json", json.dumps(json_safe({"rows": rows, "baselines": baselines, "comparisons": comparisons,
                                                           "binding": bound}), indent=1, default=str), overwrite=True)

    arms = list(config.arms)
    lines = [f"# Experiment {config.name}", ""]
    lines += [f"- grid: datasets {', '.join(results) or 'none evaluated'} × models {', '.join(config.models)} × arms "
              f"{', '.join(arms)} × training seeds {config.seeds}; checkpoint: {config.checkpoint}.safetensors",
              f"- {len(records)} runs ({', '.join(f'{n} {s}' for s, n in _count([r.status for r in records]).items())}); "
              f"this invocation took {seconds / 60:.1f} min",
              "- metric: RMSE of the final estimate on the [0, 1] scale, per frame, averaged over every clip and noise "
              "seed of a run: one number per run. Training seeds are the unit of replication: seed k fixes "
              "initialisation, clip order and training noise in every arm, so arms are compared by the paired "
              "difference over seeds with a 95 % t interval (A − B < 0: A has the lower RMSE).", ""]
    primary_noise = results[next(iter(results))].config.noises[0] if results else "gaussian"
    for first, second in COMPARISONS:
        # every site for the primary pair (site "layers": intermediate layers perturbed too), the input for the rest
        sites = ("input", "layers") if (first, second) == COMPARISONS[0] else ("input",)
        picked = [c for c in comparisons if c["a"] == first and c["b"] == second and c["site"] in sites and c["noise"] == primary_noise]
        if not picked:
            continue
        lines += [f"## {first} − {second}: paired RMSE difference over seeds", "",
                  f"| dataset | site | model | γ | {first} RMSE | {second} RMSE | difference [95 % CI] | relative | p | seeds | verdict |",
                  "|---|---|---|---:|---:|---:|---|---:|---:|---:|---|"]
        for c in sorted(picked, key=lambda c: (sites.index(c["site"]), c["dataset"], c["model"], c["gamma"])):
            interval = f"[{c['ci_low']:+.5f}, {c['ci_high']:+.5f}]" if not math.isnan(c["ci_low"]) else ""
            lines.append(f"| {c['dataset']} | {c['site']} | {c['model']} | {c['gamma']:g} | {_fmt(c['rmse_a'])} | {_fmt(c['rmse_b'])} "
                         f"| {c['difference']:+.5f} {interval} | {c['relative']:+.2%} | {_fmt(c['p'], 3)} | {c['seeds']} | {c['verdict']} |")
        lines.append("")

    if bound:
        lines += ["## Do the constraints bind?", "", "Share of training steps after which λ_l > 0, and the largest λ_l, "
                  "mean over seeds (binding.csv has every run):", "",
                  "| dataset | model | arm | " + " | ".join(f"layer {l}" for l in sorted({b['layer'] for b in bound})) + " |",
                  "|---|---|---|" + "---:|" * len({b['layer'] for b in bound})]
        for key in sorted({(b["dataset"], b["model"], b["arm"]) for b in bound}):
            cells = []
            for layer in sorted({b["layer"] for b in bound}):
                picked = [b for b in bound if (b["dataset"], b["model"], b["arm"]) == key and b["layer"] == layer]
                cells.append(f"{np.mean([b['active_fraction'] for b in picked]):.0%} (λ ≤ {max(b['max_multiplier'] for b in picked):.3g})"
                             if picked else "")
            lines.append(f"| {' | '.join(key)} | " + " | ".join(cells) + " |")
        lines.append("")

    for dataset, result in results.items():
        noise = result.config.noises[0]
        levels = result.levels
        lines += [f"## {dataset}: RMSE ↓ by γ (mean ± 95 % t half-width over training seeds; {result.n_clips} clips × "
                  f"{len(result.config.seeds)} noise seeds, {result.n_frames} frames, {result.frame_size[1]}×{result.frame_size[0]})", "",
                  "| model | arm | seeds | " + " | ".join(f"{l.label} ↓" for l in levels) + " |", "|---|---|---:|" + "---:|" * len(levels)]
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
                    texts.append(_fmt(mean) + (f" ± {_fmt(width)}" if not math.isnan(width) else ""))
                    means.append(mean)
                    widths.append(0.0 if math.isnan(width) else width)
                    shares.append(np.mean([r["descent_fraction"] for r in at_level]))
                seeds = len({r["seed"] for r in runs})
                lines.append(f"| {model} | {arm} | {seeds} | " + " | ".join(texts) + " |")
                series[f"{model} {arm}"] = ([l.gamma for l in levels], means, widths)
                descent.append((model, arm, shares))
        for baseline in result.config.baselines:
            values = {b["gamma"]: b["rmse"] for b in baselines if b["dataset"] == dataset and b["method"] == baseline
                      and b["noise"] == noise and b["site"] == "input"}
            if values:
                lines.append(f"|  | {baseline} |  | " + " | ".join(_fmt(values.get(l.gamma)) for l in levels) + " |")
                series[baseline] = ([l.gamma for l in levels], [values.get(l.gamma, math.nan) for l in levels], None)
        lines += ["", "Share of (clip, noise seed) samples whose loss falls at every layer (mean over training seeds):", "",
                  "| model | arm | " + " | ".join(f"γ={l.gamma:g}" for l in levels) + " |", "|---|---|" + "---:|" * len(levels)]
        lines += [f"| {model} | {arm} | " + " | ".join(f"{share:.0%}" for share in shares) + " |" for model, arm, shares in descent]
        lines.append("")
        figure = plot_metric_vs_gamma(series, out / f"rmse_vs_gamma_{dataset}.png", ylabel="RMSE",
                                      title=f"{dataset}: {noise} noise, mean and 95 % t band over training seeds",
                                      baselines=list(result.config.baselines), bands=True)
        paths[f"rmse_vs_gamma_{dataset}"] = figure
        # the per-layer view at γ = 1 and γ = 3 (the study's largest primary level) when swept, else the default pair
        for level in [l for l in levels if l.gamma in (1.0, 3.0)] or report_levels(levels):
            curves = {}
            for model in config.models:
                for arm in arms:
                    layer_curves = [r["layer_mse"] for r in picked if r["model"] == model and r["arm"] == arm
                                    and r["gamma"] == level.gamma and r["layer_mse"]]
                    if layer_curves and len({len(c) for c in layer_curves}) == 1:
                        curves[f"{model} {arm}"] = np.mean(layer_curves, axis=0).tolist()
            panels.append((f"{dataset}, {level.label}: mean over training seeds", curves))
        if any(curves for _, curves in panels):
            paths[f"per_layer_loss_{dataset}"] = plot_layer_losses(panels, out / f"per_layer_loss_{dataset}.png",
                                                                   ylabel="MSE of layer l's estimate", reference=result.sigma_train**2)
        lines += [f"![RMSE vs γ on {dataset}]({figure.name})", ""]
        if f"per_layer_loss_{dataset}" in paths:
            lines += [f"![per-layer loss on {dataset}]({paths[f'per_layer_loss_{dataset}'].name})", ""]
        lines += [f"Full evaluation (PSNR, SSIM, per-layer tables, every run): [eval/{dataset}/report.md](eval/{dataset}/report.md)", ""]

    mean_multipliers = {}
    for model in config.models:
        for arm in arms:
            runs = [histories[r.run_dir.name] for r in records if r.model == model and r.arm == arm and r.run_dir.name in histories]
            if runs and len({len(epochs) for epochs in runs}) == 1:
                mean_multipliers[f"{model} {arm} (mean of {len(runs)} seeds)"] = (
                    [e["epoch"] for e in runs[0]], np.mean([[e["multipliers"] for e in epochs] for epochs in runs], axis=0).tolist())
    if mean_multipliers:
        paths["multipliers"] = plot_multipliers(mean_multipliers, out / "multipliers.png")
        lines += ["![λ_l over training](multipliers.png)", ""]

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

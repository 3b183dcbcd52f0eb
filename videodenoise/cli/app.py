"""The `videodenoise` command: the Typer app, its commands, and the console-script entry point.

Each command lives in a module of its own (data, train, evaluate, clean) and is registered here behind
the one error boundary (`videodenoise.cli.boundary`). Heavy imports (torch) happen inside the
commands, so `--help` stays quick.
"""

from __future__ import annotations

import sys
import warnings
from importlib import metadata

import typer

from videodenoise.cli import boundary
from videodenoise.cli.clean import clean, demo
from videodenoise.cli.data import data_download, data_info
from videodenoise.cli.evaluate import evaluate, experiment
from videodenoise.cli.train import train
from videodenoise.errors import VideodenoiseError

app = typer.Typer(
    help="Train, evaluate and apply interpretable, robust video denoisers (DUST, UT).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
data_app = typer.Typer(help="Download, verify and inspect the datasets.", no_args_is_help=True)
app.add_typer(data_app, name="data")

for command in (evaluate, experiment, train, clean, demo):
    app.command()(boundary.guarded(command))
data_app.command("info")(boundary.guarded(data_info))
data_app.command("download")(boundary.guarded(data_download))


# what a bug report needs beside our own version: the libraries whose behaviour the outputs depend on (PyAV's
# bundled FFmpeg decodes and encodes every file), each by the distributions that install it, the first found
REPORTED_LIBRARIES = {
    "torch": ("torch",),
    "PyAV": ("av",),
    "OpenCV": ("opencv-python-headless", "opencv-python", "opencv-contrib-python-headless", "opencv-contrib-python"),
    "NumPy": ("numpy",),
}


def version_report() -> str:
    """`videodenoise --version`: our version, then Python's and the libraries', read without importing them
    (but PyAV, for its FFmpeg's version)."""
    from videodenoise import __version__

    found = [f"Python {sys.version.split()[0]}"]
    for library, distributions in REPORTED_LIBRARIES.items():
        found.append(f"{library} {_installed_version(distributions)}")
    try:
        import av

        found.append(f"FFmpeg {av.ffmpeg_version_info}")
    except ImportError:
        pass
    return f"videodenoise {__version__}\n" + ", ".join(found)


def _installed_version(distributions: tuple[str, ...]) -> str:
    for name in distributions:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return "(not installed)"


def _show_version(asked: bool) -> None:
    if asked:
        typer.echo(version_report())
        raise typer.Exit()


@app.callback()
def _options(
    version: bool = typer.Option(
        False,
        "--version",
        callback=_show_version,
        is_eager=True,
        help="Show the version, and Python's and the libraries' (for a bug report), and exit.",
    ),
    debug: bool = typer.Option(
        False, "--debug", help=f"Show the full traceback of an error (also: {boundary.DEBUG_ENV}=1)."
    ),
    threads: int | None = typer.Option(
        None,
        "--threads",
        help="CPU threads for the models and OpenCV (default: one per core); 1 when other jobs share the "
        "machine (`demo` beside one busy process on 2 cores ran about 2× faster on 1 thread than on 2).",
    ),
) -> None:
    """Train, evaluate and apply interpretable, robust video denoisers (DUST, UT)."""
    boundary.set_debug(debug)
    if threads is not None:
        from videodenoise.devices import use_threads  # imports torch: only when asked

        use_threads(threads)


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    boundary.error_console.print(f"[yellow]warning:[/yellow] {message}", highlight=False, soft_wrap=True)


def main() -> None:
    """Console-script entry point: run the app; the commands' boundary turns errors into one line."""
    warnings.showwarning = _show_warning
    try:
        app()
    except VideodenoiseError as error:  # raised outside a command (e.g. while parsing an option)
        if boundary.debugging():
            raise
        boundary.print_error(boundary.one_line(error))
        sys.exit(1)

"""The command line's one error boundary: every failure is one line on stderr and an exit code.

Errors the user can cause arrive as `VideodenoiseError` and are printed as one line with exit code 1,
never as a traceback; anything unforeseen is one line too, saying it is a bug. Ctrl-C and SIGTERM say
what was kept and exit 130. `--debug` (or VIDEODENOISE_DEBUG=1) re-raises, so Python prints the
traceback.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable

import typer
from rich.console import Console

from videodenoise.errors import VideodenoiseError
from videodenoise.io.atomic import describe_os_error, written_paths
from videodenoise.io.pieces import pieces_opened, unfinished_pieces

console = Console()
error_console = Console(stderr=True)
DEBUG_ENV = "VIDEODENOISE_DEBUG"
_debug = os.environ.get(DEBUG_ENV, "").strip().lower() not in ("", "0", "false", "no")
_interrupt_note: Callable[[], str] | None = None  # says what an interrupted command kept, instead of the generic line
_interrupt_hint: str | None = None  # how to go on, after the generic line


def set_debug(flag: bool) -> None:
    global _debug
    _debug = flag or os.environ.get(DEBUG_ENV, "").strip().lower() not in ("", "0", "false", "no")


def debugging() -> bool:
    return _debug


def on_interrupt(note: Callable[[], str] | None) -> None:
    """What to say when the running command is interrupted (None: the generic line)."""
    global _interrupt_note
    _interrupt_note = note


def on_interrupt_hint(hint: str | None) -> None:
    """How to go on after the running command is interrupted, said after the generic line (None: nothing)."""
    global _interrupt_hint
    _interrupt_hint = hint


def print_error(text: str) -> None:
    from rich.markup import escape

    error_console.print(f"[red]error:[/red] {escape(text)}", highlight=False, soft_wrap=True)


def one_line(text) -> str:
    return " ".join(str(text).split())


def unexpected(error: BaseException, command: str) -> str:
    """One line for an exception no check foresaw: what failed, on which file, what to try."""
    if isinstance(error, OSError):
        return f"{describe_os_error(error)} (in `videodenoise {command}`); rerun with --debug for the details"
    text = one_line(error)[:300] or "no message"
    return (
        f"`videodenoise {command}` failed unexpectedly ({type(error).__name__}: {text}); this is a bug or a case "
        f"we did not foresee: rerun with --debug (or VIDEODENOISE_DEBUG=1) for the traceback and report it"
    )


def guarded(function: Callable) -> Callable:
    """The exception boundary around one command. Each failure the package knows of raises its own
    VideodenoiseError with its own message; this is only the safety net."""
    command = function.__name__.replace("_", " ")

    @functools.wraps(function)
    def boundary(*args, **kwargs):
        before, pieces_before = len(written_paths()), pieces_opened()
        on_interrupt(None)
        on_interrupt_hint(None)
        try:
            return function(*args, **kwargs)
        except (typer.Exit, typer.Abort):
            raise
        except KeyboardInterrupt:
            if _debug:
                raise
            unfinished = unfinished_pieces(since=pieces_before)
            folders = {job.folder for job in unfinished}  # written pieces are no output (those joined are gone)
            kept = [path for path in written_paths()[before:] if path.parent not in folders and path.exists()]
            notes = []
            if kept:
                shown = ", ".join(str(path) for path in kept[:3]) + (
                    f" and {len(kept) - 3} more" if len(kept) > 3 else ""
                )
                notes.append(f"kept the {len(kept)} finished output(s) {shown}; unfinished ones were removed")
            for job in unfinished:  # a long output's finished pieces: the next run goes on from them
                notes.append(
                    f"the first {job.frames_done} frames of '{job.output}' are kept, in pieces in"
                    f" '{job.folder}': the same command again goes on from there (removing the folder discards them)"
                )
            if _interrupt_note:
                message = f"interrupted; {_interrupt_note()}"
            else:
                message = f"interrupted; {'; '.join(notes) if notes else 'nothing was written'}"
                message += f"; {_interrupt_hint}" if _interrupt_hint and notes else ""
            error_console.print(f"[red]{message}[/red]", highlight=False, soft_wrap=True)
            raise typer.Exit(code=130) from None
        except VideodenoiseError as error:
            if _debug:
                raise
            print_error(one_line(error))
            raise typer.Exit(code=1) from None
        except Exception as error:
            if _debug:
                raise
            print_error(unexpected(error, command))
            raise typer.Exit(code=1) from None

    return boundary

"""The one way the package writes a file or folder: a hidden temporary name, renamed when complete.

    with atomic_output("report.md", overwrite=False) as temporary:
        temporary.write_text(text)                    # renamed to report.md only if this block succeeds

    write_text("summary.json", text, overwrite=True)  # the same, in one call

Why: an output under its final name is always complete. A failure, Ctrl-C or SIGTERM in the middle
removes the temporary file and leaves the final name as it was (an older copy stays untouched), so a
command that fails leaves every file as it found it. An existing output is replaced only when the
caller passes `overwrite=True`, and the check can run before any work (`check_output`).

SIGTERM normally kills Python without running cleanup code; while an output is being written, a
SIGTERM in the main thread is turned into `Terminated` (a KeyboardInterrupt) so the same cleanup runs.
"""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from videodenoise.errors import OutputError, Terminated

__all__ = [
    "AtomicOutput",
    "atomic_output",
    "check_output",
    "check_creatable",
    "check_folder",
    "write_text",
    "write_bytes",
    "torch_save",
    "describe_os_error",
    "written_paths",
]

# outputs committed by this process, newest last: the CLI says what was kept when interrupted
_written: list[Path] = []
_open_count = 0
_previous_sigterm: Any = None


def written_paths() -> list[Path]:
    """The outputs this process has completed so far (what an interrupted command kept)."""
    return list(_written)


def describe_os_error(error: OSError, path: str | os.PathLike | None = None) -> str:
    """A short reason for an OSError, saying 'no space left on device' for a full disk."""
    where = f" '{path}'" if path is not None else (f" '{error.filename}'" if error.filename else "")
    if error.errno == errno.ENOSPC:
        return f"no space left on device while writing{where}; free some space and run again"
    if error.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return f"permission denied writing{where}; choose a folder you can write to"
    return f"cannot write{where} ({error.strerror or error})"


def check_creatable(
    folder: str | os.PathLike,
    what: str = "output folder",
    option: str = "another path",
    error: type[Exception] = OutputError,
) -> Path:
    """Without creating anything: raise `error` (one line, ending "choose {option}") unless `folder`
    is a folder or could be made, i.e. its nearest existing ancestor is a writable folder. Commands
    call it before any work, and create the folder only once they can start."""
    folder = Path(folder)
    existing = folder
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise error(f"cannot use '{folder}' as the {what}: '{existing}' is a file, not a folder; choose {option}")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise error(f"cannot create the {what} '{folder}': '{existing}' is not writable; choose {option}")
    return folder


def check_folder(folder: str | os.PathLike, create: bool = False, what: str = "output folder") -> Path:
    """The folder an output goes into: an existing, writable folder (created with `create`), or a
    one-line OutputError that says which part of the path is wrong."""
    folder = check_creatable(folder, what)
    if not folder.is_dir():
        if not create:
            raise OutputError(f"the {what} '{folder}' does not exist; create it or choose another")
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise OutputError(
                f"cannot create the {what} '{folder}' ({error.strerror or error}); choose a path you can write to"
            ) from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputError(f"the {what} '{folder}' is not writable; choose a folder you can write to")
    return folder


def check_output(
    path: str | os.PathLike,
    overwrite: bool = False,
    directory: bool = False,
    create_parent: bool = False,
    hint: str = "pass --overwrite to replace it",
) -> Path:
    """Raise a one-line OutputError unless `path` can be written (checked before any work): it must
    not exist unless `overwrite`, must be a file (or a folder with `directory`) when it does, and its
    folder must exist (or be creatable with `create_parent`) and be writable."""
    path = Path(path)
    if path.exists() or path.is_symlink():
        if not overwrite:
            raise OutputError(f"'{path}' already exists; {hint}")
        if path.is_dir() != directory:
            raise OutputError(f"'{path}' exists and is a {'folder' if path.is_dir() else 'file'}; choose another name")
    check_folder(path.parent, create=create_parent, what="folder")
    return path


NAME_MAX = 255  # bytes in a file name, on every common file system


def temporary_name(path: Path, kind: str = "partial", pid: int | None = None) -> Path:
    """Where `path` is written until it is complete: hidden, beside the target (same file system, so
    the rename is atomic), keeping the suffix so that writers choosing a format by it (FFmpeg, torch)
    still do, and per process, so that two processes never share one."""
    return hidden_name(path, f".{kind}-{os.getpid() if pid is None else pid}{path.suffix}")


def hidden_name(path: Path, tag: str) -> Path:
    """.NAME + tag beside `path`; a name too long to take the extra characters is replaced by a digest of it."""
    name = f".{path.name}{tag}"
    if len(name.encode()) > NAME_MAX:
        name = f".{hashlib.sha1(path.name.encode()).hexdigest()[:20]}{tag}"
    return path.with_name(name)


def remove_dead_temporaries(path: Path) -> list[Path]:
    """Remove what processes that no longer run left while writing `path` (killed with -9, a power
    cut): only names `temporary_name` makes for this very target, and only when their process is
    gone. Returns what was removed."""
    removed = []
    folder = path.parent
    if not folder.is_dir():
        return removed
    prefixes = {temporary_name(path, kind, 0).name.rsplit("-", 1)[0] + "-" for kind in ("partial", "audio", "old")}
    for candidate in folder.iterdir():
        prefix = next((p for p in prefixes if candidate.name.startswith(p)), None)
        if prefix is None:
            continue
        pid = candidate.name[len(prefix) :][: len(candidate.name) - len(prefix) - len(path.suffix)]
        if not pid.isdigit() or int(pid) == os.getpid() or running(int(pid)):
            continue
        AtomicOutput._remove(candidate)
        removed.append(candidate)
    return removed


def running(pid: int) -> bool:
    """Whether process `pid` runs (another user's counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def _raise_terminated(signum, frame) -> None:
    raise Terminated()


def _guard_signals() -> None:
    global _open_count, _previous_sigterm
    _open_count += 1
    if _open_count == 1 and threading.current_thread() is threading.main_thread():
        try:
            current = signal.getsignal(signal.SIGTERM)
            if current in (signal.SIG_DFL, None):  # leave a handler someone else installed alone
                _previous_sigterm = signal.signal(signal.SIGTERM, _raise_terminated)
        except (ValueError, OSError):  # not the main interpreter, or signals unavailable
            _previous_sigterm = None


def _release_signals() -> None:
    global _open_count, _previous_sigterm
    _open_count = max(0, _open_count - 1)
    if _open_count == 0 and _previous_sigterm is not None and threading.current_thread() is threading.main_thread():
        try:
            signal.signal(signal.SIGTERM, _previous_sigterm)
        except (ValueError, OSError):
            pass
        _previous_sigterm = None


class AtomicOutput:
    """One output in progress: write to `temporary`, then `commit()` (rename into place) or
    `discard()` (remove it). `directory=True` for a folder output (e.g. PNG frames).

    The existence check runs at construction, so it comes before any work."""

    def __init__(
        self,
        path: str | os.PathLike,
        overwrite: bool = False,
        directory: bool = False,
        create_parent: bool = False,
        hint: str = "pass --overwrite to replace it",
    ):
        self.path = check_output(path, overwrite, directory, create_parent, hint)
        self.overwrite, self.directory = overwrite, directory
        self.temporary = temporary_name(self.path)
        self._remove(self.temporary)  # left over by a process with our pid that was killed (-9)
        remove_dead_temporaries(self.path)
        if directory:
            self.temporary.mkdir()
        self.done = False
        _guard_signals()

    def commit(self) -> Path:
        if self.done:
            return self.path
        self.done = True
        try:
            if self.path.exists() and not self.overwrite:  # appeared while we worked
                raise OutputError(f"'{self.path}' appeared while it was being written; nothing was replaced")
            if self.directory and self.path.is_dir():
                # a folder cannot be renamed over a non-empty one: move the old one aside first
                old = temporary_name(self.path, "old")
                os.replace(self.path, old)
                os.replace(self.temporary, self.path)
                shutil.rmtree(old, ignore_errors=True)
            else:
                os.replace(self.temporary, self.path)
        except BaseException:
            self._remove(self.temporary)
            raise
        finally:
            _release_signals()
        _written.append(self.path)
        return self.path

    def discard(self) -> None:
        if self.done:
            return
        self.done = True
        try:
            self._remove(self.temporary)
        finally:
            _release_signals()

    @staticmethod
    def _remove(path: Path) -> None:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        elif path.exists() or path.is_symlink():
            path.unlink(missing_ok=True)

    def __enter__(self) -> Path:
        return self.temporary

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.commit()
        else:
            self.discard()


@contextmanager
def atomic_output(
    path: str | os.PathLike, overwrite: bool = False, directory: bool = False, create_parent: bool = False
) -> Iterator[Path]:
    """Yield a temporary path to write `path` through; see the module docstring. OSErrors raised
    inside (a full disk, say) become one-line OutputErrors."""
    output = AtomicOutput(path, overwrite, directory, create_parent)
    try:
        yield output.temporary
    except OSError as error:
        output.discard()
        raise OutputError(describe_os_error(error, output.path)) from None
    except BaseException:
        output.discard()
        raise
    output.commit()


def write_text(path: str | os.PathLike, text: str, overwrite: bool = False, create_parent: bool = False) -> Path:
    with atomic_output(path, overwrite, create_parent=create_parent) as temporary:
        temporary.write_text(text)
    return Path(path)


def write_bytes(path: str | os.PathLike, data: bytes, overwrite: bool = False, create_parent: bool = False) -> Path:
    with atomic_output(path, overwrite, create_parent=create_parent) as temporary:
        temporary.write_bytes(data)
    return Path(path)


def torch_save(obj: Any, path: str | os.PathLike, overwrite: bool = False) -> Path:
    import torch

    with atomic_output(path, overwrite) as temporary:
        torch.save(obj, temporary)
    return Path(path)

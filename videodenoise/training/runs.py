"""A training run's folder: the one class that creates, validates, reads and writes it.

    run = RunFolder.create("runs/dust-erm", config.to_dict())    # only once the run can start
    run = RunFolder.open("runs/dust-erm")                         # an existing run, checked
    run.save_state(state); run.append_metrics(line); run.write_summary(summary)

Layout:

    config.json        the full configuration (enough to rebuild and resume the run)
    metrics.jsonl      one line per epoch
    last.pt            everything needed to resume (model, optimisers, multipliers, counters)
    last.safetensors   the latest weights with their model config (for evaluate / clean)
    best.safetensors   the weights with the lowest validation loss of the final layer
    summary.json       written when training ends

Every file is written through `videodenoise.io.atomic`, so a kill at any moment leaves each file either
as it was or complete. A folder is created only when the run can start (so a failed start leaves
nothing behind for --resume to trip over), and a resume that fails changes nothing.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from videodenoise.errors import OutputError, RunFolderError
from videodenoise.io.atomic import check_creatable, check_folder, torch_save, write_text

__all__ = ["RunFolder", "read_metrics", "CONFIG", "STATE", "LAST_WEIGHTS", "BEST_WEIGHTS", "METRICS", "SUMMARY"]

CONFIG, STATE, METRICS, SUMMARY = "config.json", "last.pt", "metrics.jsonl", "summary.json"
LAST_WEIGHTS, BEST_WEIGHTS = "last.safetensors", "best.safetensors"
STATE_FORMAT = "videodenoise-train-1"


class RunFolder:
    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)

    def __repr__(self) -> str:
        return f"RunFolder('{self.path}')"

    def __truediv__(self, name: str) -> Path:
        return self.path / name

    # ---------------------------------------------------------------------------- creating, opening

    @classmethod
    def check_new(cls, path: str | os.PathLike) -> Path:
        """Raise a one-line error unless a new run can be written to `path` (nothing is created)."""
        path = Path(path)
        if path.exists() and not path.is_dir():
            raise RunFolderError(f"--run-dir '{path}' is a file, not a folder; choose another --run-dir")
        if (path / CONFIG).exists():
            if not (path / STATE).exists():  # killed before its first checkpoint: nothing to resume
                raise RunFolderError(
                    f"run folder '{path}' holds a run that stopped before its first checkpoint; "
                    f"delete that folder (nothing in it can be resumed) or choose another --run-dir"
                )
            raise RunFolderError(
                f"run folder '{path}' already holds a run; continue it with "
                f"`videodenoise train --resume {path}` or choose another --run-dir"
            )
        return check_creatable(path, "run folder", "another --run-dir", RunFolderError)

    @classmethod
    def create(cls, path: str | os.PathLike, config: dict) -> RunFolder:
        """Make the folder and write config.json; call it only once everything the run needs is built."""
        path = cls.check_new(path)
        try:
            check_folder(path, create=True, what="run folder")
        except OutputError as error:
            raise RunFolderError(f"{error} (--run-dir)") from None
        run = cls(path)
        run.write_config(config)
        return run

    @classmethod
    def open(cls, path: str | os.PathLike) -> RunFolder:
        """An existing run folder (config.json present), or a one-line error."""
        path = Path(path)
        if not path.is_dir():
            raise RunFolderError(
                f"'{path}' is not a run folder (it {'is a file' if path.exists() else 'does not exist'}); "
                "pass the folder a training run wrote"
            )
        if not (path / CONFIG).is_file():
            raise RunFolderError(f"'{path}' is not a run folder (no config.json); pass the folder a training run wrote")
        return cls(path)

    def remove_unstarted(self) -> None:
        """Undo `create` for a run that stopped before its first checkpoint (nothing in it can be
        resumed): remove the run's own files, and the folder when that leaves it empty."""
        import shutil

        if self.has_state:
            return
        for name in (CONFIG, METRICS, SUMMARY):
            (self.path / name).unlink(missing_ok=True)
        shutil.rmtree(self.path / "tensorboard", ignore_errors=True)
        try:
            self.path.rmdir()
        except OSError:  # the folder held files of its own before the run: leave them
            pass

    # ------------------------------------------------------------------------------------- files

    def read_config(self) -> dict:
        try:
            values = json.loads((self.path / CONFIG).read_text())
        except json.JSONDecodeError as error:
            raise RunFolderError(
                f"'{self.path / CONFIG}' is not valid JSON ({error.msg}); the run folder is damaged"
            ) from None
        if not isinstance(values, dict):
            raise RunFolderError(
                f"'{self.path / CONFIG}' does not hold a training configuration; the run folder is damaged"
            )
        return values

    def write_config(self, config: dict) -> None:
        write_text(self.path / CONFIG, json.dumps(config, indent=2), overwrite=True)

    @property
    def has_state(self) -> bool:
        return (self.path / STATE).is_file()

    def read_state(self) -> dict:
        """The resume state of last.pt (tensors and plain data only: loading never runs code)."""
        import torch

        path = self.path / STATE
        if not path.is_file():
            raise RunFolderError(
                f"'{self.path}' has no last.pt checkpoint yet (it stopped before its first one); "
                f"delete the folder and start the run again"
            )
        try:
            state = torch.load(path, map_location="cpu", weights_only=True)
        except Exception as error:  # torch raises several types for damaged or foreign files
            raise RunFolderError(
                f"'{path}' cannot be read as a training checkpoint ({type(error).__name__}); it is damaged or not ours"
            ) from None
        if not isinstance(state, dict) or state.get("format") != STATE_FORMAT:
            raise RunFolderError(f"'{path}' is not a videodenoise training checkpoint; it is damaged or not ours")
        return state

    def save_state(self, state: dict) -> None:
        torch_save(state, self.path / STATE, overwrite=True)

    def read_metrics(self) -> list[dict]:
        return read_metrics(self.path)

    def append_metrics(self, line: dict) -> None:
        # rewritten whole (atomically) rather than appended, so a kill never leaves half a line
        self.write_metrics(self.read_metrics() + [line])

    def write_metrics(self, lines: list[dict]) -> None:
        write_text(self.path / METRICS, "".join(json.dumps(line) + "\n" for line in lines), overwrite=True)

    def read_summary(self) -> dict | None:
        path = self.path / SUMMARY
        if not path.is_file():
            return None
        try:
            return json.loads(path.read_text())
        except json.JSONDecodeError:
            return None

    def write_summary(self, summary: dict[str, Any]) -> None:
        write_text(self.path / SUMMARY, json.dumps(summary, indent=2), overwrite=True)

    @property
    def weights(self) -> Path | None:
        """best.safetensors, else last.safetensors, else None."""
        for name in (BEST_WEIGHTS, LAST_WEIGHTS):
            if (self.path / name).is_file():
                return self.path / name
        return None


def read_metrics(run_dir: str | os.PathLike) -> list[dict]:
    """The per-epoch metrics of a run folder, in order."""
    path = Path(run_dir) / METRICS
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]

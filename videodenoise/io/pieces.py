"""A long output written in pieces, so that an interrupted `clean` goes on where it stopped.

An output of more than PIECE_FRAMES frames is encoded a piece at a time (`PiecedWriter`), each piece a finished file
of the output's own format (a PNG frame folder's: a folder of its frames) in a hidden folder beside it,
`.NAME.pieces`, whose `job.json` records the run that wrote them (its fingerprint: the input as it is on disk, the
output, the model and every option) and each finished piece's frame count, last timestamp and size. When the last
piece is done they are joined into the output by a stream copy (`videodenoise.io.streams.mux_streams`, which copies
the input's audio and other streams in the same pass; a frame folder's frames are linked under their numbers in the
whole), the output is renamed into place, and the folder goes.

Interrupted (Ctrl-C, SIGTERM, a crash, a power cut), a run leaves its finished pieces. The same command again finds
them, checks the fingerprint and goes on from the first missing piece: what the pieces hold is not denoised again.
Pieces of a run with another fingerprint (the input changed, another option) are removed, and the output is made
afresh. Each piece starts with a keyframe of its own; nothing else changes the bits of a frame (the denoised frames
after a resumption are those of an uninterrupted run, `videodenoise.denoise.pipeline`).
"""

from __future__ import annotations

import json
import os
import shutil
import warnings
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING

from videodenoise.errors import OutputError, VideoWriteError
from videodenoise.io.atomic import AtomicOutput, hidden_name, running, temporary_name

if TYPE_CHECKING:  # the writers load torch, which the command line's error boundary (reading the registry) must not
    from videodenoise.io.writers import VideoWriter

# Frames a piece holds: x264's and x265's own longest interval between keyframes, so a piece's first keyframe is one
# the codec would have placed about as often; at most this many frames are denoised again after an interruption
# (about 14 minutes of work for 1920×1080 on two CPU cores, 9 seconds for 320×240).
PIECE_FRAMES = 250
JOB = "job.json"
_unfinished: dict[Path, Pieces] = {}  # the pieces of this process's outputs not yet joined, by folder
_opened = [0]  # how many `Pieces` this process has opened


def pieces_opened() -> int:
    """How many outputs' pieces this process has opened so far (to ask `unfinished_pieces` about those after)."""
    return _opened[0]


def unfinished_pieces(since: int = 0) -> list[Pieces]:
    """The pieces this process has written and not yet joined into their output (what an interrupted run leaves),
    of the outputs opened after the first `since`."""
    return [pieces for pieces in _unfinished.values() if pieces.frames_done and pieces.number >= since]


def stored_bytes(path: Path) -> int | None:
    """The bytes a piece holds on disk: its file's, or the sum of its frames' (a frame folder's piece); None where
    it is missing."""
    try:
        if path.is_dir():
            return sum(frame.stat().st_size for frame in path.iterdir())
        return path.stat().st_size if path.is_file() else None
    except OSError:
        return None


def pieces_folder(output: Path) -> Path:
    """Where the pieces of `output` are kept while it is written: hidden, beside it, the same for every run."""
    return hidden_name(Path(output), ".pieces")


class Pieces:
    """The pieces of one output, for the writers of one run (`tags`: one per output file written from the same
    frames, e.g. "output" and "side-by-side"), kept where a run with the same `fingerprint` left them.

    `discarded`: pieces of another run were found and removed. `frames_done`: the frames every tag's finished pieces
    hold, where the run goes on (a whole number of pieces). `notes`: what the run decided on the way that a run going
    on needs to know (a JSON dict, saved with each piece finished; that of the run that left the pieces)."""

    def __init__(self, output: Path, fingerprint: dict, tags: list[str], piece_frames: int = PIECE_FRAMES):
        self.output, self.folder, self.tags = Path(output), pieces_folder(Path(output)), list(tags)
        self.piece_frames = piece_frames
        self.fingerprint = json.loads(json.dumps({**fingerprint, "piece_frames": piece_frames}, default=str))
        self.discarded = False
        self.done: dict[str, list[dict]] = {tag: [] for tag in tags}
        self.notes: dict = {}
        job = self._read()
        if job is not None and job.get("pid") not in (None, os.getpid()) and running(job["pid"]):
            raise OutputError(
                f"another videodenoise (process {job['pid']}) is writing '{self.output}'; wait for it to finish, or "
                f"stop it and run this again to go on where it stopped (if none runs, remove '{self.folder}')"
            )
        if job is not None and job.get("fingerprint") == self.fingerprint:
            self.notes = job.get("notes", {})
            for tag in tags:
                for piece in job.get("pieces", {}).get(tag, []):
                    path = self.path(tag, len(self.done[tag]))
                    if stored_bytes(path) != piece["bytes"]:
                        break  # a piece is missing or changed: this one and those after it are made again
                    self.done[tag].append(piece)
            count = min(len(pieces) for pieces in self.done.values())
            for tag in tags:  # a tag ahead of the others writes its last pieces again with them
                self.done[tag] = self.done[tag][:count]
        elif self.folder.exists():  # another run's (or a run stopped before its first piece)
            self.discarded = job is not None and any(job.get("pieces", {}).values())
            shutil.rmtree(self.folder, ignore_errors=True)
        try:
            self.folder.mkdir(exist_ok=True)
        except OSError as error:
            raise VideoWriteError(f"cannot write the pieces of '{self.output}' in '{self.folder}': {error}") from None
        self._save()
        self.number = _opened[0]
        _opened[0] += 1
        _unfinished[self.folder] = self

    @property
    def frames_done(self) -> int:
        return sum(piece["frames"] for piece in self.done[self.tags[0]])

    def path(self, tag: str, index: int) -> Path:
        return self.folder / f"{tag}-{index:06d}{self.output.suffix}"

    def last_pts(self, tag: str) -> int | None:
        """The timestamp of the last frame the tag's finished pieces hold (None: none yet)."""
        return self.done[tag][-1]["last_pts"] if self.done[tag] else None

    def record(
        self, tag: str, index: int, frames: int, first_pts: int | None, last_pts: int | None, clock: Fraction | None
    ) -> None:
        """Piece `index` of `tag` is finished: `frames` frames from `first_pts` to `last_pts`, ticks of `clock`
        seconds (its file's own clock starts at its first frame: `VideoWriter`'s from_zero; None: a frame folder's)."""
        del self.done[tag][index:]
        size = stored_bytes(self.path(tag, index))
        clock = None if clock is None else str(clock)
        piece = {"frames": frames, "first_pts": first_pts, "last_pts": last_pts, "clock": clock, "bytes": size}
        self.done[tag].append(piece)
        self._save()

    def starts(self, tag: str) -> list[Fraction]:
        """Where each finished piece of `tag` starts, in seconds on the output's clock."""
        return [piece["first_pts"] * Fraction(piece["clock"]) for piece in self.done[tag]]

    def paths(self, tag: str) -> list[Path]:
        return [self.path(tag, index) for index in range(len(self.done[tag]))]

    def remove(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)
        _unfinished.pop(self.folder, None)

    def _read(self) -> dict | None:
        try:
            job = json.loads((self.folder / JOB).read_text())
            return job if isinstance(job, dict) else None
        except (OSError, ValueError):
            return None

    def _save(self) -> None:
        job = {"fingerprint": self.fingerprint, "pid": os.getpid(), "pieces": self.done, "notes": self.notes}
        partial = temporary_name(self.folder / JOB)
        partial.write_text(json.dumps(job, indent=1))
        os.replace(partial, self.folder / JOB)  # a job file is whole or absent, whenever the run stops


class PiecedWriter:
    """A `VideoWriter` for a long output: the frames from `pieces.frames_done` on, written a piece at a time into
    `pieces`' folder under `tag`, joined into `path` on `close` with the streams `streams_from` gives (as
    `VideoWriter` copies them). `options`: the rest of `VideoWriter`'s arguments. On `abort` the piece being written
    is dropped, the finished ones kept for the next run. The output's name is checked at once, as `VideoWriter` does."""

    def __init__(
        self,
        pieces: Pieces,
        tag: str,
        path: str | os.PathLike,
        overwrite: bool = False,
        streams_from: str | os.PathLike | None = None,
        streams_offset: float | None = None,
        streams_window: tuple[float, float | None] | None = None,
        audio: bool = True,
        **options,
    ):
        self.pieces, self.tag, self.path = pieces, tag, Path(path)
        self.streams = (streams_from, streams_offset, streams_window, audio)
        self.options = options
        self.frame_folder = options.get("codec") == "png"
        try:
            self._output = AtomicOutput(
                self.path, overwrite, self.frame_folder, hint="choose another name or allow overwriting"
            )
        except OutputError as error:
            raise VideoWriteError(str(error)) from None
        self.index = len(pieces.done[tag])  # the piece being written
        self.first_index = self.index
        self._piece = None
        self.n_written = pieces.frames_done

    def write(self, frame, pts: int | None = None) -> None:
        from videodenoise.io.writers import VideoWriter

        if self._piece is None:
            self._piece = VideoWriter(
                self.pieces.path(self.tag, self.index),
                overwrite=True,
                after_pts=self.pieces.last_pts(self.tag),
                quiet_losses=self.index > self.first_index,  # what the format cannot hold: said once a run
                from_zero=True,
                **self.options,
            )
        self._piece.write(frame, pts)
        self.n_written += 1
        if self._piece.n_written == self.pieces.piece_frames:
            self._finish_piece()

    def _finish_piece(self) -> None:
        piece, self._piece = self._piece, None
        piece.close()
        self.pieces.record(self.tag, self.index, piece.n_written, piece.first_pts, piece.last_pts, piece.clock)
        self.index += 1

    def close(self) -> Path:
        """Finish the last piece, join them all into the output and rename it into place."""
        from videodenoise.io.streams import left_out_message, mux_streams

        try:
            if self._piece is not None:
                self._finish_piece()
            paths = self.pieces.paths(self.tag)
            if not paths:
                raise VideoWriteError(f"no frames were written to '{self.path}'")
            source, offset, window, audio = self.streams
            left_out = []
            if self.frame_folder:
                link_frames(paths, self._output.temporary)
            else:
                starts = self.pieces.starts(self.tag)
                left_out = mux_streams(paths, source, self._output.temporary, offset, window, audio, starts)
        except BaseException:
            self._output.discard()
            raise
        if left_out:
            warnings.warn(left_out_message(self.path, Path(source), left_out), stacklevel=3)
        try:
            return self._output.commit()
        except OutputError as error:
            raise VideoWriteError(str(error)) from None

    def abort(self) -> None:
        """Drop the piece being written and the joined output; the finished pieces stay for the next run."""
        if self._piece is not None:
            self._piece.abort()
            self._piece = None
        self._output.discard()


def link_frames(pieces: list[Path], folder: Path) -> None:
    """A frame folder's pieces joined: their frames, in order, linked into `folder` under their numbers in the whole
    (copied where the file system has no links), so that the pieces stay whole until their folder is removed."""
    from videodenoise.io.frames import frame_file_name  # here: frames loads torch, which the CLI boundary must not

    number = 0
    for piece in pieces:
        for frame in sorted(piece.iterdir()):
            target = folder / frame_file_name(number)
            try:
                os.link(frame, target)
            except OSError:
                shutil.copyfile(frame, target)
            number += 1


def open_writers(options: list[dict]) -> list[VideoWriter | PiecedWriter]:
    """A writer for every dict of keyword arguments (a `PiecedWriter` where it names `pieces`, else a `VideoWriter`),
    or none: when one cannot be opened, those already open are dropped."""
    from videodenoise.io.writers import VideoWriter

    writers: list[VideoWriter | PiecedWriter] = []
    try:
        for option in options:
            writers.append(PiecedWriter(**option) if "pieces" in option else VideoWriter(**option))
    except BaseException:
        for writer in writers:
            writer.abort()
        raise
    return writers

"""Where `clean` writes: output names, formats, and the checks every output passes before any work
(exists without --overwrite, is the input, its folder missing or a file, two inputs on one output)."""

from __future__ import annotations

import os
from pathlib import Path

from .errors import DenoiseError, VideodenoiseError, VideoWriteError
from .video import open_video

__all__ = ["FORMATS", "default_output", "side_by_side_path", "check_output", "plan_outputs"]

FORMATS = {"mp4": ("h264", ".mp4"), "lossless": ("ffv1", ".mkv"), "frames": ("png", "")}


def default_output(input: str | os.PathLike, format: str = "mp4", folder: str | os.PathLike | None = None) -> Path:
    """NAME.denoised.mp4 (or NAME.denoised.mkv, or a NAME-denoised/ PNG folder: frame folders take no
    dots) beside the input or in `folder`."""
    if format not in FORMATS:
        raise DenoiseError(f"unknown output format '{format}'; choose one of: {', '.join(FORMATS)}")
    input = Path(input)
    name = input.name if input.is_dir() else input.stem
    suffix = FORMATS[format][1]
    target = Path(folder) if folder is not None else input.parent
    return target / (f"{name}.denoised{suffix}" if suffix else f"{name.replace('.', '_')}-denoised")


def side_by_side_path(output: Path) -> Path:
    """The side-by-side video beside `output`: NAME.denoised.mp4 → NAME.side-by-side.mp4, and for
    frame folders NAME-denoised → NAME-side-by-side."""
    if output.suffix:
        stem = output.name[:-len(output.suffix)]
        stem = stem[:-len(".denoised")] if stem.endswith(".denoised") else stem
        return output.with_name(f"{stem}.side-by-side{output.suffix}")
    stem = output.name[:-len("-denoised")] if output.name.endswith("-denoised") else output.name
    return output.with_name(f"{stem}-side-by-side")


def check_output(output: Path, input: Path, overwrite: bool) -> None:
    """Raise a one-line error unless `output` can be written for `input` (checked before any work)."""
    if _same_path(output, input):
        raise VideoWriteError(f"the output '{output}' is the input; choose another output name")
    if output.exists() and not overwrite:
        raise VideoWriteError(f"'{output}' already exists; pass --overwrite to replace it")
    if output.exists() and output.is_dir() != (output.suffix == ""):
        raise VideoWriteError(f"'{output}' exists and is a {'folder' if output.is_dir() else 'file'}; choose another output name")
    parent = output.parent
    blocker = next((folder for folder in [parent, *parent.parents] if folder.exists()), None)
    if blocker is not None and not blocker.is_dir():
        raise VideoWriteError(f"cannot write '{output}': '{blocker}' is a file, not a folder; choose another output path")
    if not parent.is_dir():
        raise VideoWriteError(f"cannot write '{output}': folder '{parent}' does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise VideoWriteError(f"cannot write '{output}': folder '{parent}' is not writable")


def _same_path(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and os.path.samefile(a, b))
    except OSError:
        return False


def _codec_for(path: Path, format: str | None) -> str:
    if format is not None:
        codec, suffix = FORMATS[format]
        if path.suffix.lower() != suffix and not (format == "mp4" and path.suffix.lower() in {".mov", ".m4v", ".mkv"}):
            raise VideoWriteError(f"the {format} format needs {'a path without a suffix' if not suffix else 'a ' + suffix + ' path'}, "
                                  f"got '{path}'")
        return codec
    return "png" if path.suffix == "" else "h264"



def plan_outputs(inputs: list[str | os.PathLike], output: str | os.PathLike | None = None, format: str | None = None,
                 side_by_side: bool = False, overwrite: bool = False,
                 failures: list[tuple[Path, Exception]] | None = None) -> list[tuple[Path, Path, Path | None]]:
    """(input, output, side-by-side output or None) for each input, every one checked before any work.

    output None: NAME.denoised.mp4 beside each input; an existing folder: NAME.denoised.mp4 inside it;
    else (one input only) the output path itself (a path without suffix: a PNG frame folder). Raises a one-line error for a missing or unreadable
    input, an output that exists (without overwrite), is the input, or cannot be written, and for two
    inputs that would write the same output. With `failures` (a list), an input with such a problem
    is appended to it as (input, error) and skipped, so that one bad input of a batch does not stop
    the others; problems of the options themselves still raise.
    """
    if not inputs:
        raise DenoiseError("no input given; pass one or more videos or frame folders")
    if format is not None and format not in FORMATS:
        raise DenoiseError(f"unknown output format '{format}'; choose one of: {', '.join(FORMATS)}")
    folder = None
    if output is not None:
        output = Path(output)
        if output.is_dir():  # an existing folder is where the outputs go, never an output itself
            folder = output
        elif len(inputs) > 1:
            raise DenoiseError(f"with {len(inputs)} inputs, --output must be an existing folder; '{output}' is not one")
    plans, seen = [], {}
    for raw in inputs:
        source = Path(raw)
        try:
            plan = _plan_one(source, output, folder, format, side_by_side, overwrite)
        except VideodenoiseError as error:
            if failures is None:
                raise
            failures.append((source, error))
            continue
        # two inputs writing one output is a problem of the whole batch: refuse it before any work
        for path in plan[1:]:
            if path is None:
                continue
            key = str(path.resolve())
            if key in seen:
                raise DenoiseError(f"'{seen[key]}' and '{source}' would both write '{path}'; denoise them into different folders")
            seen[key] = source
        plans.append(plan)
    return plans


def _plan_one(source: Path, output: Path | None, folder: Path | None, format: str | None, side_by_side: bool,
              overwrite: bool) -> tuple[Path, Path, Path | None]:
    reader = open_video(source)  # missing, not a video, no frames: a one-line error here
    del reader
    target = output if output is not None and folder is None else default_output(source, format or "mp4", folder=folder)
    _codec_for(target, format)
    extra = side_by_side_path(target) if side_by_side else None
    for path in [target] + ([extra] if extra else []):
        check_output(path, source, overwrite)
    return source, target, extra


"""Where `clean` writes: output names, formats, and the checks every output passes before any work
(exists without --overwrite, is the input or another input of the batch, its folder missing or a
file, two inputs on one output)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from videodenoise.errors import DenoiseError, VideodenoiseError, VideoWriteError
from videodenoise.io.atomic import NAME_MAX
from videodenoise.io.excerpt import Excerpt, Span
from videodenoise.io.frames import written_frame_folder
from videodenoise.io.readers import VideoReader
from videodenoise.io.video import open_video
from videodenoise.io.writers import CONTAINERS, IMAGE_SUFFIX, is_image_output

# each format's codec and suffix: a PNG folder's frames have no suffix, and a PNG image is one frame
FORMATS = {
    "mp4": ("h264", ".mp4"),
    "h265": ("h265", ".mp4"),
    "lossless": ("ffv1", ".mkv"),
    "frames": ("png", ""),
    "image": ("png", IMAGE_SUFFIX),
}


def default_output(input: str | os.PathLike, format: str = "mp4", folder: str | os.PathLike | None = None) -> Path:
    """NAME.denoised.mp4 (H.264 or HEVC; or NAME.denoised.mkv, NAME.denoised.png, or a NAME-denoised/ PNG folder: frame
    folders take no dots) beside the input or in `folder`."""
    if format not in FORMATS:
        raise DenoiseError(f"unknown output format '{format}'; choose one of: {', '.join(FORMATS)}")
    input = Path(input)
    name = input.name if input.is_dir() else input.stem
    suffix = FORMATS[format][1]
    target = Path(folder) if folder is not None else input.parent
    ending = f".denoised{suffix}" if suffix else "-denoised"
    if not suffix:
        name = name.replace(".", "_")
    # a name as long as the file system allows has no room for the ending: shorten it, not the ending
    while len((name + ending).encode()) > NAME_MAX:
        name = name[:-1]
    return target / (name + ending)


def side_by_side_path(output: Path) -> Path:
    """The side-by-side video beside `output`: NAME.denoised.mp4 → NAME.side-by-side.mp4, and for
    frame folders NAME-denoised → NAME-side-by-side."""
    if output.suffix:
        stem = output.name[: -len(output.suffix)]
        stem = stem[: -len(".denoised")] if stem.endswith(".denoised") else stem
        return output.with_name(f"{stem}.side-by-side{output.suffix}")
    stem = output.name[: -len("-denoised")] if output.name.endswith("-denoised") else output.name
    return output.with_name(f"{stem}-side-by-side")


def check_output(output: Path, input: Path, overwrite: bool) -> None:
    """Raise a one-line error unless `output` can be written for `input` (checked before any work)."""
    if _same_path(output, input):
        raise VideoWriteError(f"the output '{output}' is the input; choose another output name")
    if output.exists() and not overwrite:
        raise VideoWriteError(f"'{output}' already exists; pass --overwrite to replace it")
    if output.exists() and output.is_dir() != (output.suffix == ""):
        raise VideoWriteError(
            f"'{output}' exists and is a {'folder' if output.is_dir() else 'file'}; choose another output name"
        )
    parent = output.parent
    blocker = next((folder for folder in [parent, *parent.parents] if folder.exists()), None)
    if blocker is not None and not blocker.is_dir():
        raise VideoWriteError(
            f"cannot write '{output}': '{blocker}' is a file, not a folder; choose another output path"
        )
    if not parent.is_dir():
        raise VideoWriteError(f"cannot write '{output}': folder '{parent}' does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise VideoWriteError(f"cannot write '{output}': folder '{parent}' is not writable")


def _same_path(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and os.path.samefile(a, b))
    except OSError:
        return False


def compressed_codec(reader: VideoReader) -> str:
    """The codec an input's compressed output is written in: HEVC for an input of more than 8 bits (its Main 10 plays
    in QuickTime, Safari and phones, H.264's High 10 in few) unless it is interlaced, which libx265 cannot code from
    whole frames; else H.264, which every player plays."""
    return "h265" if reader.info.bit_depth > 8 and not reader.properties().interlaced else "h264"


def _codec_for(path: Path, format: str | None, lossless: bool, compressed: str) -> str:
    """The codec `path` is written in: the format's when one is given (its suffix checked), else as its suffix says:
    no suffix a PNG folder, .mkv FFV1 for a lossless input, else `compressed` where the suffix holds it."""
    if format is not None:
        codec, suffix = FORMATS[format]
        # .mp4 first, then the other containers the codec goes in (AVI only when its suffix asks for H.264)
        suffixes = [suffix] + sorted(CONTAINERS.get(codec, set()) - {suffix, ".avi"})
        if path.suffix.lower() not in suffixes:
            listed = " or ".join([", ".join(suffixes[:-1]), suffixes[-1]] if len(suffixes) > 1 else suffixes)
            needs = f"a {listed} path" if suffix else "a path without a suffix"
            raise VideoWriteError(f"the {format} format needs {needs}, got '{path}'")
        return codec
    suffix = path.suffix.lower()
    if suffix in ("", IMAGE_SUFFIX):
        return "png"
    if lossless and suffix == ".mkv":
        return "ffv1"
    if suffix not in CONTAINERS["h264"]:  # said before any work, not when the first frame is written
        listed = ", ".join(sorted(CONTAINERS["h264"]))
        raise VideoWriteError(
            f"cannot write a video to '{path}': use one of {listed}, {IMAGE_SUFFIX} for one image or a path without "
            "a suffix for a PNG frame folder"
        )
    return compressed if suffix in CONTAINERS[compressed] else "h264"


@dataclass
class OutputPlan:
    """One input and where its output goes, every check passed before any work. The input is opened
    here, once, and its reader travels with the plan."""

    input: Path
    reader: VideoReader
    output: Path
    codec: str
    side_by_side: Path | None = None
    side_by_side_codec: str | None = None
    written: bool = False  # its outputs exist, and skip_existing leaves them as they are: nothing to do

    @property
    def image(self) -> bool:
        """Whether the output is one image (a PNG file)."""
        return is_image_output(self.output, self.codec)

    @property
    def kept_lossless(self) -> bool:
        """Whether the output, as its input, is stored without loss."""
        return self.codec in ("ffv1", "png") and self.reader.info.lossless


def plan_output(
    input: str | os.PathLike,
    output: str | os.PathLike | None = None,
    format: str | None = None,
    side_by_side: str | os.PathLike | bool | None = None,
    overwrite: bool = False,
    fps: float | None = None,
    folder: str | os.PathLike | None = None,
    stream: int | None = None,
    span: Span | None = None,
    skip_existing: bool = False,
) -> OutputPlan:
    """The plan of one input: output None is NAME.denoised.mp4 beside it (or in `folder`), in HEVC for an input of
    more than 8 bits (`compressed_codec`), NAME.denoised.mkv (FFV1) when the input is stored without loss; without
    `format` an output path is written as its suffix says (.mkv: FFV1 when the input is lossless, else H.264 or HEVC
    as for the default). side_by_side True is NAME.side-by-side.* beside the output, a
    path is that path. fps: a frame folder's rate; stream: which of a file's video streams (None: the main one, as
    ffmpeg picks it); span: only the frames in it (`videodenoise.io.excerpt`; None: all); skip_existing: where every
    output exists already, the plan is `written` (an interrupted batch's finished input) instead of refused."""
    source = Path(input)
    if format is not None and format not in FORMATS:
        raise DenoiseError(f"unknown output format '{format}'; choose one of: {', '.join(FORMATS)}")
    reader = open_video(source, fps=fps, stream=stream)  # missing, not a video, no frames: one line here
    if span is not None:
        reader = Excerpt.of(reader, span)
    # H.264 at CRF 17 cost sharp texture at light noise up to 11 dB: where the input kept every value, the output does
    lossless = reader.info.lossless
    compressed = compressed_codec(reader) if format is None else "h264"
    default = "lossless" if lossless else {"h264": "mp4", "h265": "h265"}[compressed]
    default = "image" if reader.info.kind == "image" else default  # a photo's output is a PNG photo, JPEG's too
    target = Path(output) if output is not None else default_output(source, format or default, folder=folder)
    codec = _codec_for(target, format, lossless, compressed)
    _check_one_frame(target, codec, reader)
    extra = extra_codec = None
    if side_by_side:
        extra = side_by_side_path(target) if side_by_side is True else Path(side_by_side)
        extra_codec = _codec_for(extra, format, lossless, compressed)
        if _same_path(extra, target):
            raise VideoWriteError(f"the side-by-side output '{extra}' is the denoised output; choose another name")
    paths = [target] + ([extra] if extra else [])
    written = skip_existing and all(path.exists() for path in paths)
    for path in paths if not written else []:
        check_output(path, source, overwrite)
    return OutputPlan(source, reader, target, codec, extra, extra_codec, written)


def _check_one_frame(target: Path, codec: str, reader: VideoReader) -> None:
    """An image output takes one frame: a longer input is refused before any work."""
    frames = reader.info.n_frames
    if is_image_output(target, codec) and frames > 1:
        raise VideoWriteError(
            f"'{target}' is an image, which holds one frame, and '{reader.info.path}' has {frames}; name a video "
            "(.mp4) or a frame folder (a path without a suffix), or take one frame with --start and --duration"
        )


def plan_outputs(
    inputs: list[str | os.PathLike],
    output: str | os.PathLike | None = None,
    format: str | None = None,
    side_by_side: bool = False,
    overwrite: bool = False,
    fps: float | None = None,
    failures: list[tuple[Path, Exception]] | None = None,
    stream: int | None = None,
    span: Span | None = None,
    skipped: list[OutputPlan] | None = None,
) -> list[OutputPlan]:
    """The plan of every input of a batch, each checked before any work.

    output None: NAME.denoised.mp4 beside each input; an existing folder: NAME.denoised.mp4 inside it;
    else (one input only) the output path itself (a path without suffix: a PNG frame folder). Raises
    a one-line error for a missing or unreadable input, an output that exists (without overwrite),
    is the input, or cannot be written, and for two inputs that would write the same output. With
    `failures` (a list), an input with such a problem is appended to it as (input, error) and
    skipped, so that one bad input of a batch does not stop the others; problems of the options
    themselves still raise. With `skipped` (a list), an input whose outputs all exist is appended to it, `written`,
    and left out (`plan_output`'s skip_existing), to go on with a batch an interruption stopped.
    """
    if not inputs:
        raise DenoiseError("no input given; pass one or more videos or frame folders")
    if format is not None and format not in FORMATS:
        raise DenoiseError(f"unknown output format '{format}'; choose one of: {', '.join(FORMATS)}")
    folder = None
    if output is not None:
        output = Path(output)
        # an existing folder is where the outputs go, unless it is a frame folder clean wrote: that output again
        if output.is_dir() and not written_frame_folder(output):
            folder, output = output, None
        elif len(inputs) > 1:
            what = "a frame folder an earlier run wrote" if output.is_dir() else "not one"
            raise DenoiseError(f"with {len(inputs)} inputs, --output must be an existing folder; '{output}' is {what}")
    plans, seen = [], {}
    for raw in inputs:
        source = Path(raw)
        try:
            plan = plan_output(
                source,
                output,
                format,
                side_by_side,
                overwrite,
                fps=fps,
                folder=folder,
                stream=stream,
                span=span,
                skip_existing=skipped is not None,
            )
        except VideodenoiseError as error:
            if failures is None:
                raise
            failures.append((source, error))
            continue
        if plan.written:
            skipped.append(plan)
            continue
        # two inputs writing one output is a problem of the whole batch: refuse it before any work
        for path in (plan.output, plan.side_by_side):
            if path is None:
                continue
            key = str(path.resolve())
            if key in seen:
                raise DenoiseError(
                    f"'{seen[key]}' and '{source}' would both write '{path}'; denoise them into different folders"
                )
            seen[key] = source
        plans.append(plan)
    # an output of the batch that is one of its inputs would be destroyed before it is read (or after,
    # if --overwrite): refuse the whole batch before any work
    sources = [Path(raw) for raw in inputs]
    for plan in plans:
        for path in (plan.output, plan.side_by_side):
            clash = next((source for source in sources if path is not None and _same_path(path, source)), None)
            if clash is not None:
                raise DenoiseError(
                    f"the output '{path}' of '{plan.input}' is another input of this batch; it would be overwritten: "
                    "write the outputs elsewhere (-o FOLDER)"
                )
    return plans

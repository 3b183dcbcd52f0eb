"""Denoising a file: frames stream from the input through a Denoiser into the outputs, written atomically.

    result = denoise_video("input.mp4", None, denoiser, sigma="auto")   # writes input.denoised.mp4
    print(result.sigma * 255, result.noise.summary(), result.frames_per_second)

`clean` plans a whole batch first (`videodenoise.io.outputs.plan_outputs`: every input opened and
every output checked before any work) and runs `denoise_plan` on each plan; `denoise_video` is the
same for one input. `stream_pairs` and `write_frames` are the loop both share with the demo. Memory is
bounded by the denoiser's windows, never by the video's length.
"""

from __future__ import annotations

import os
import time
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import torch

from videodenoise.denoise.calibration import Calibration, calibrates, calibration_span, choose_told_scale
from videodenoise.denoise.camera_bias import GammaBias, gamma_bias
from videodenoise.denoise.denoiser import Denoiser
from videodenoise.denoise.fields import split_fields, weave_fields
from videodenoise.denoise.resume import CAMERA_GAMMA, job_fingerprint, noting_decision, resume_context
from videodenoise.errors import DenoiseError, VideoReadError, VideoWriteError
from videodenoise.io.excerpt import Excerpt, Span
from videodenoise.io.outputs import OutputPlan, plan_output
from videodenoise.io.pieces import PIECE_FRAMES, Pieces, open_writers
from videodenoise.io.readers import short_error
from videodenoise.io.streams import either
from videodenoise.noise.estimation import decode_frames, estimate_video_noise
from videodenoise.noise.levels import check_sigma
from videodenoise.noise.noise_level_function import NoiseLevelFunction, scaled_sigma

# what a writer is handed for each (input frame, denoised frame)
View = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]


def noisy_view(noisy: torch.Tensor, denoised: torch.Tensor) -> torch.Tensor:
    return noisy


def denoised_view(noisy: torch.Tensor, denoised: torch.Tensor) -> torch.Tensor:
    """The denoised picture, with the input's alpha channel (what passed by the model) untouched."""
    return torch.cat([denoised, noisy[denoised.shape[0] :]]) if len(noisy) > len(denoised) else denoised


def side_by_side_view(noisy: torch.Tensor, denoised: torch.Tensor) -> torch.Tensor:
    return torch.cat([noisy, denoised_view(noisy, denoised)], dim=2)


@dataclass
class DenoiseResult:
    """What `denoise_video` did. sigma is on the [0, 1] scale (None: the model applied as trained): the
    level of `noise`, the noise level function, when there is one (estimated, or given as one)."""

    input: Path
    output: Path
    side_by_side: Path | None
    frames: int
    width: int
    height: int
    channels: int
    fps: float
    sigma: float | None
    sigma_source: str  # "given", "estimated" or "none"
    audio: bool
    seconds: float
    noise: NoiseLevelFunction | None = None
    calibration_seconds: float = 0.0  # of `seconds`, choosing the told σ (`calibrates`): once per video
    covers: tuple[float, float] | None = None  # an excerpt's: the seconds of the input its frames cover
    resumed: int = 0  # the frames an interrupted run's pieces held, not denoised by this run (`videodenoise.io.pieces`)

    @property
    def frames_per_second(self) -> float:
        """Of the frames this run denoised."""
        return (self.frames - self.resumed) / self.seconds if self.seconds > 0 else float("inf")


def stream_pairs(
    denoiser: Denoiser,
    frames: Iterable[torch.Tensor],
    sigma: float | NoiseLevelFunction | None,
    channels: int | None = None,
    top_field_first: bool | None = None,
    on_camera_bias: Callable[[GammaBias], None] | None = None,
    gamma: GammaBias | None = None,
) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
    """(input frame, denoised frame) in order, holding only the inputs whose output is still to come.
    channels: the picture's channels, the first of each frame (None: all); the rest (an alpha
    channel) passes by the model. top_field_first: None denoises frames; else their fields, in the order
    they were taken (`videodenoise.denoise.fields`). on_camera_bias, gamma: as for `Denoiser.denoise_frames`."""
    pending: dict[int, torch.Tensor] = {}

    def remembered() -> Iterator[torch.Tensor]:
        for index, frame in enumerate(frames):
            pending[index] = frame
            yield frame if channels is None else frame[:channels]

    if top_field_first is None:
        denoised_frames = denoiser.denoise_frames(remembered(), sigma, on_camera_bias=on_camera_bias, gamma=gamma)
    else:
        fields = split_fields(remembered(), top_field_first)
        fields = denoiser.denoise_frames(fields, sigma, on_camera_bias=on_camera_bias, gamma=gamma)
        denoised_frames = weave_fields(fields, top_field_first)
    for index, denoised in enumerate(denoised_frames):
        yield pending.pop(index), denoised


def write_frames(
    writers: list[dict],
    views: list[View],
    pairs: Iterable[tuple[torch.Tensor, torch.Tensor]],
    progress: Callable[[int], None] | None = None,
    timestamps: dict[int, int | None] | None = None,
    first: int = 0,
) -> int:
    """Open a VideoWriter per dict of options (a `PiecedWriter` where it names `pieces`), write views[i](input,
    denoised) of every pair to writer i, and close them all; on any failure every output is dropped and none is left
    under its final name (a `PiecedWriter` keeps its finished pieces). timestamps: frame index → its timestamp, taken
    out as each frame is written; first: the index of the first pair's frame (a resumed run's). Returns the index after
    the last frame written."""
    opened = open_writers(writers)
    count = first
    try:
        for noisy, denoised in pairs:
            pts = None if timestamps is None else timestamps.pop(count, None)
            for writer, view in zip(opened, views):
                writer.write(view(noisy, denoised), pts)
            count += 1
            if progress is not None:
                progress(count)
        for writer in opened:
            writer.close()
    except BaseException:
        for writer in opened:
            writer.abort()
        raise
    return count


def resolve_sigma(
    sigma: float | NoiseLevelFunction | str | None, reader, coarse: bool = False
) -> tuple[float | NoiseLevelFunction | None, str]:
    """(σ on the [0, 1] scale, a noise level function or None; how it was found: "given", "estimated"
    or "none"). "auto" estimates the video's noise level function from a bounded number of frame pairs
    (`estimate_video_noise`), before the denoising pass streams the frames; coarse: at half size too."""
    if sigma == "auto":
        return estimate_video_noise(reader, coarse=coarse), "estimated"
    if sigma is None:
        return None, "none"
    if isinstance(sigma, NoiseLevelFunction):
        return sigma, "given"
    return check_sigma(sigma, error=DenoiseError, unit_scale=True), "given"


def estimate_doubts(input, function: NoiseLevelFunction, calibration: Calibration | None) -> list[str]:
    """Where σ auto's estimate of a video is least to be trusted, one line each, asking the user to compare by eye:
    a dark video (`NoiseLevelFunction.dark`), a carried share read on little noise, which may be a codec's loss on
    sharp texture (`NoiseLevelFunction.may_be_codec_loss`), noise so heavy that clipping hides part of it
    (`NoiseLevelFunction.may_read_low`), and runs of frames showing two pictures (`NoiseLevelFunction.unlike_runs`)."""
    doubts = []
    if function.dark:
        if calibration is not None and calibration.scale != 1:
            found = "the σ the model is told was calibrated on the video itself, as its line says"
        else:
            found = "on darkened test clips with camera noise a σ told by hand did 1-8 dB better on 24 of 33, the best"
            found += " one anywhere from 14 to 48"
        doubts.append(
            f"'{input}' is dark (mean level {function.brightness * 255:.0f} of 255), where σ auto is least reliable:"
            f" {found}; compare the output with --sigma 20, 28 and 36 on a few seconds of it (--start, --duration;"
            " --side-by-side puts the input beside it)"
        )
    if function.may_be_codec_loss:
        doubts.append(
            f"'{input}' carries little noise by σ auto's reading (RMS {function.level * 255:.1f} of 255),"
            f" {function.carried:.0%} of it read as carried over from frame to frame: on sharp footage a codec"
            " compressed, that can be the codec's loss on fine texture, not noise, and on such test clips the output"
            " came out up to 4.5 dB under the input; if it looks softer than the input, compare it with --sigma 2"
            " (--side-by-side puts the input beside it)"
        )
    if function.may_read_low:
        doubts.append(
            f"'{input}' is very noisy by σ auto's reading (RMS {function.level * 255:.0f} of 255): noise this heavy is"
            " clipped at 0 and 255 across much of the picture, and σ auto, measuring what is left, reads it low (on"
            " test clips Gaussian σ = 75 and 100 read 56-66, and told the true σ the output came out up to 8 dB"
            " better); compare the output with --sigma 75 and 100 on a few seconds of it (--start, --duration;"
            " --side-by-side puts the input beside it)"
        )
    if function.unlike_runs:
        doubts.append(
            f"in {function.unlike_runs} of the stretches of '{input}' σ auto measured on, consecutive frames show two"
            " different pictures (a scene cut, or motion too fast to follow), which can read as noise: on test clips"
            " with one cut, σ = 2 read as up to 27 and the output came out up to 16 dB under the input; if it looks"
            " smoothed, compare it with a lower --sigma, or clean each shot on its own (--start, --duration)"
        )
    return doubts


def calibration_frames(reader, info) -> torch.Tensor:
    """The frames `settings.calibrate` chooses the told scale on: those `calibration_span` picks in the
    middle, as many as decode (calibration needs 3, else it changes nothing)."""
    frames = decode_frames(reader, *calibration_span(info.n_frames))
    return torch.stack(frames) if frames else torch.zeros(0, info.channels, info.height, info.width)


def denoise_video(
    input: str | os.PathLike,
    output: str | os.PathLike | None = None,
    denoiser: Denoiser | None = None,
    sigma: float | NoiseLevelFunction | str | None = "auto",
    *,
    format: str | None = None,
    side_by_side: str | os.PathLike | bool | None = None,
    overwrite: bool = False,
    keep_audio: bool = True,
    fps: float | None = None,
    crf: int | None = None,
    stream: int | None = None,
    span: Span | None = None,
    progress: Callable[[int, int], None] | None = None,
    on_sigma: Callable[[float | NoiseLevelFunction | None, str], None] | None = None,
    on_calibration: Callable[[Calibration], None] | None = None,
    on_camera_bias: Callable[[GammaBias], None] | None = None,
    on_resume: Callable[[str], None] | None = None,
) -> DenoiseResult:
    """Denoise a video file or frame folder into `output` (default NAME.denoised.mp4 beside it; NAME.denoised.mkv,
    FFV1, when the input is stored without loss: `videodenoise.io.outputs.plan_output`).

    sigma: the noise level on the [0, 1] scale, a `NoiseLevelFunction`, "auto" to estimate the
    video's noise level function, or None to apply the model as trained. format: "mp4" (H.264), "h265" (HEVC .mp4),
    "lossless" (FFV1 .mkv), "frames" (PNG folder) or "image" (one PNG); by default from the output's suffix and the
    input. crf: the quality of an H.264 or HEVC output (None: the codec's default, `videodenoise.io.crf.DEFAULT_CRF`).
    side_by_side: True (NAME.side-by-side.* beside the output) or a path: also write the noisy and
    denoised frames next to each other. fps: a frame folder's rate (default 25).
    stream: which of a file's video streams (None: the main one, as ffmpeg picks it). span: only the
    frames from its start for its duration, as a video of their own (`videodenoise.io.excerpt`).
    See `denoise_plan` for the rest.
    """
    plan = plan_output(input, output, format, side_by_side, overwrite, fps=fps, stream=stream, span=span)
    return denoise_plan(
        plan,
        denoiser,
        sigma,
        overwrite=overwrite,
        keep_audio=keep_audio,
        fps=fps,
        crf=crf,
        progress=progress,
        on_sigma=on_sigma,
        on_calibration=on_calibration,
        on_camera_bias=on_camera_bias,
        on_resume=on_resume,
    )


def denoise_plan(
    plan: OutputPlan,
    denoiser: Denoiser | None = None,
    sigma: float | NoiseLevelFunction | str | None = "auto",
    *,
    overwrite: bool = False,
    keep_audio: bool = True,
    fps: float | None = None,
    crf: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    on_sigma: Callable[[float | NoiseLevelFunction | None, str], None] | None = None,
    on_calibration: Callable[[Calibration], None] | None = None,
    on_camera_bias: Callable[[GammaBias], None] | None = None,
    on_resume: Callable[[str], None] | None = None,
) -> DenoiseResult:
    """Denoise one planned input into its outputs. The input's audio (unless not `keep_audio`), subtitles, data
    streams, cover pictures and attachments are copied where the output's container holds them (video files only;
    `videodenoise.io.streams.mux_streams`); one line says what was left out, and another that a file's other video
    streams are.
    progress(done, total) is called after every frame; on_sigma(σ, source) once σ is known, then
    on_calibration(the `Calibration`) when the denoiser's settings calibrate the told σ, and
    on_camera_bias(the `GammaBias`) if σ auto's noise is a camera gamma's and its bias is undone. Every
    output is written under a hidden name and renamed into place only when complete.

    An output of more than `PIECE_FRAMES` frames is written in pieces (`videodenoise.io.pieces`): run again
    after an interruption, with the same input, outputs, model and options, it goes on from the first piece
    missing (on_resume(one line saying so)). The denoising stream then starts `resume_context` frames before it,
    where no frame it keeps can see, on the window grid of an uninterrupted run, and σ auto's camera correction is
    taken up as the interrupted run decided it (recorded in the pieces' notes; decided again on the video's first
    frames where it had not been), so that the frames are the uninterrupted run's."""
    import av

    reader, info = plan.reader, plan.reader.info
    denoiser = denoiser or Denoiser.from_checkpoint()
    audio = keep_audio and info.has_audio
    carried = audio or info.subtitles or info.extras
    streams_source = plan.input if plan.codec != "png" and carried else None
    if plan.codec == "png" and carried:
        subtitles = f"subtitle stream{'s' if info.subtitles > 1 else ''}"
        what = either(["audio"] * audio + [subtitles] * bool(info.subtitles) + list(info.extras), "and")
        holder = "an image" if plan.image else "a frame folder"
        warnings.warn(f"{holder} holds no {what}: the {what} of '{plan.input}' is not kept", stacklevel=2)
    if info.clockless and fps is None:
        warnings.warn(
            f"'{plan.input}' is a raw video stream, whose frames carry no timestamps: it is read at "
            f"{float(info.frame_rate()):g} fps, as ffmpeg reads it; if it was recorded at another rate, give that"
            " with --fps",
            stacklevel=2,
        )
    if info.other_videos:
        streams = f"{info.other_videos} more video stream{'s' if info.other_videos > 1 else ''}"
        warnings.warn(
            f"'{plan.input}' has {streams} beside the one denoised, which the output does not hold (ffmpeg too maps"
            " one video stream); --stream N denoises another, counted from 0",
            stacklevel=2,
        )
    rate = info.frame_rate(fps)
    properties = reader.properties()  # kept in the output: rotation, aspect, colour tags, depth, alpha, clock
    # the frames keep their own timestamps, so the audio and subtitles keep theirs too; an excerpt's move back together
    streams_offset = 0.0 if properties.time_base is not None else None
    streams_window = None
    if isinstance(reader, Excerpt):
        streams_offset, streams_window = reader.audio_offset, reader.audio_window

    # the top field first, the bottom field first, or None: frames (progressive video, or fields not asked for)
    fields_first = properties.top_field_first if denoiser.settings.fields and properties.interlaced else None
    if properties.interlaced and fields_first is None:
        warnings.warn(
            f"'{plan.input}' is interlaced ({properties.field_first}) and is denoised as whole frames;"
            " where things move, denoising its fields (--fields) does better",
            stacklevel=2,
        )
    start = time.perf_counter()
    sigma_read, source = resolve_sigma(sigma, reader, coarse=denoiser.settings.scales == 2)
    sigma_value = scaled_sigma(sigma_read, denoiser.settings.sigma_scale)  # what every part is told
    calibration, calibration_seconds = None, 0.0
    if calibrates(denoiser.settings, sigma_value):
        calibration_start = time.perf_counter()
        chosen_on = calibration_frames(reader, info)
        if fields_first is not None:  # what the model will see
            chosen_on = torch.stack(list(split_fields(chosen_on, fields_first)))
        calibration = choose_told_scale(denoiser, chosen_on, sigma_value)
        sigma_value = calibration.applied_to(sigma_value)
        calibration_seconds = time.perf_counter() - calibration_start
    if on_sigma is not None:
        on_sigma(sigma_value, source)
    if source == "estimated":
        for doubt in estimate_doubts(plan.input, sigma_read, calibration):  # on the estimate as read
            warnings.warn(doubt, stacklevel=2)
    if calibration is not None and on_calibration is not None:  # why the model is told what on_sigma said
        on_calibration(calibration)

    pieces = None  # after the estimate, which may find the input unreadable: then nothing is left to go on from
    if plan.side_by_side_codec in (None, plan.codec) and info.n_frames > PIECE_FRAMES:
        tags = ["output", "side-by-side"] if plan.side_by_side else ["output"]
        pieces = Pieces(plan.output, job_fingerprint(plan, denoiser, sigma, crf), tags, PIECE_FRAMES)
        if pieces.discarded:
            warnings.warn(
                f"the pieces of '{plan.output}' that an interrupted run left were of another input or other options: "
                "they were removed, and it is denoised from the start",
                stacklevel=2,
            )
    resumed = 0 if pieces is None else pieces.frames_done
    timestamps: dict[int, int | None] = {}  # of the frames read and not yet written

    def frames(first: int = 0) -> Iterator[torch.Tensor]:
        count = first
        for frame, pts in reader.timed_frames(first):
            timestamps[count] = pts
            count += 1
            yield frame
        if count == 0:
            raise VideoReadError(f"'{plan.input}' holds no decodable video frames")

    gamma = None  # σ auto's camera step: a run in pieces holds its own, to record what it decides for a run going on
    if pieces is not None and denoiser.settings.camera_bias:
        gamma = gamma_bias(sigma_value, on_camera_bias)
    stream_from = 0
    if resumed:
        # where the stream starts: on the grid of windows (of fields too: an even number of them) a run from 0 has
        stream_from = max(0, (resumed - resume_context(denoiser.settings)) // denoiser.stride * denoiser.stride)
        if gamma is not None and CAMERA_GAMMA in pieces.notes:  # as the run that left the pieces decided it
            gamma.restore(pieces.notes[CAMERA_GAMMA])
        elif gamma is not None:  # it stopped before deciding: decided again on the first frames that tell
            for _ in stream_pairs(denoiser, frames(), sigma_value, info.channels, fields_first, gamma=gamma):
                if gamma.decided:
                    break
            timestamps.clear()
        if gamma is not None:
            if gamma.frame < stream_from * (1 if fields_first is None else 2):  # (counted in fields, of fields)
                gamma.waiting.clear()  # the frames the stream keeps all come after the decision
            else:  # it came later (a short piece): the stream decides it again, from the start
                gamma, stream_from = gamma_bias(sigma_value), 0
        if on_resume is not None:
            on_resume(
                f"going on from frame {resumed} of {info.n_frames}: the frames before it are in the pieces an "
                f"interrupted run left in '{pieces.folder}'"
            )

    outputs = [(plan.output, plan.codec, denoised_view)]
    if plan.side_by_side:
        outputs.append((plan.side_by_side, plan.side_by_side_codec, side_by_side_view))
    options = [
        dict(
            path=path,
            fps=rate,
            codec=codec,
            crf=crf,
            overwrite=overwrite,
            streams_from=streams_source,
            streams_offset=streams_offset,
            streams_window=streams_window,
            audio=keep_audio,
            properties=properties,
        )
        | ({} if pieces is None else {"pieces": pieces, "tag": tag})
        for (path, codec, _), tag in zip(outputs, ["output", "side-by-side"])
    ]
    pairs = stream_pairs(denoiser, frames(stream_from), sigma_value, info.channels, fields_first, on_camera_bias, gamma)
    if gamma is not None:
        pairs = noting_decision(pairs, gamma, pieces)
    for index in range(stream_from, resumed):  # what the pieces hold: seen, not kept
        next(pairs, None)
        timestamps.pop(index, None)
    try:
        done = write_frames(
            options,
            [view for _, _, view in outputs],
            pairs,
            None if progress is None else lambda count: progress(count, info.n_frames),
            timestamps,
            first=resumed,
        )
    except BaseException as error:
        # an interruption's or a full disk's pieces wait for the next run; nothing to go on from where no piece was
        # finished, or where the input fails the same way on any run
        if pieces is not None and (not pieces.frames_done or isinstance(error, (VideoReadError, DenoiseError))):
            pieces.remove()
        if isinstance(error, (OSError, av.FFmpegError)):  # e.g. a full disk
            raise VideoWriteError(f"cannot denoise '{plan.input}' into '{plan.output}': {short_error(error)}") from None
        raise
    if pieces is not None:
        pieces.remove()
    seconds = time.perf_counter() - start
    if done != info.n_frames:
        warnings.warn(
            f"'{plan.input}' lists {info.n_frames} frames (in its header, or as packets) but only {done} could be "
            "decoded (a file cut short, or frames its decoder drops as ffmpeg's does: those before a recording's "
            f"first keyframe, damaged ones); the output has {done}",
            stacklevel=2,
        )
    return DenoiseResult(
        input=plan.input,
        output=plan.output,
        side_by_side=plan.side_by_side,
        frames=done,
        width=info.width,
        height=info.height,
        channels=info.channels,
        fps=float(rate),
        sigma=sigma_value.level if isinstance(sigma_value, NoiseLevelFunction) else sigma_value,
        sigma_source=source,
        audio=streams_source is not None and audio,
        seconds=seconds,
        noise=sigma_value if isinstance(sigma_value, NoiseLevelFunction) else None,
        calibration_seconds=calibration_seconds,
        covers=reader.covers if isinstance(reader, Excerpt) else None,
        resumed=resumed,
    )

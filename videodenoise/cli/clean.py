"""`videodenoise clean` and `videodenoise demo`: every DenoiseSettings field is an option over the
--quality preset."""

from __future__ import annotations

import dataclasses
import warnings
from pathlib import Path

import typer

from videodenoise.cli.boundary import console, debugging, on_interrupt_hint, one_line, print_error, unexpected
from videodenoise.cli.options import settings_options
from videodenoise.cli.progress import frame_progress
from videodenoise.denoise.settings import (
    PIPELINE_PANEL,
    PRESETS,
    QUALITY_PANEL,
    DenoiseSettings,
    FusionSettings,
    preset,
)
from videodenoise.errors import VideodenoiseError
from videodenoise.io.crf import DEFAULT_CRF, MAX_CRF

PRESET_FUSION_RADIUS = {name: settings.fusion.radius for name, settings in PRESETS.items()}
QUALITY_HELP = (
    "fast; balanced: fast, then a Wiener filter with its output as the pilot on every 5th patch position (+0.26 dB "
    "at σ = 25 on held-out clips for 1.37× fast's time); or best: 4× as many overlapping patches (with wider "
    "weights fine-tuned for them), fusing "
    f"{2 * PRESET_FUSION_RADIUS['best'] + 1} frames instead of {2 * PRESET_FUSION_RADIUS['fast'] + 1}, twice (the "
    "second pass's fusion steered by the first's, a sparser pass), at two scales (the low "
    "frequencies from the frames halved), then a Wiener filter with that output as its pilot (--wiener; about 10× "
    "the time in all), and the told σ calibrated per video (--calibrate)."
)


def denoise_settings(
    quality: str, given: dict, sigma_known: bool = True, fusion_radius: int | None = None
) -> DenoiseSettings:
    """The --quality preset with the options given on top; fusion, calibration, a second pass and a second
    scale need σ, so they are off without one (asked for with --sigma none, they are refused), and a second
    pass is off without fusion unless asked for (then refused by the settings). fusion_radius: --fusion-radius,
    the neighbours fusion takes on each side instead of the preset's."""
    settings = preset(quality)
    if fusion_radius is not None and (given.get("fusion") is False or not sigma_known):
        raise VideodenoiseError(
            "--fusion-radius sets how many neighbours fusion averages: it needs fusion and σ "
            "(drop --no-fusion or --sigma none)"
        )
    if not sigma_known:
        for name in ("calibrate", "calibrate_dark"):
            if given.get(name):
                flag = "--" + name.replace("_", "-")
                raise VideodenoiseError(f"{flag} chooses how much of σ the model is told: it needs σ, not --sigma none")
        if given.get("sigma_scale", 1) != 1:
            raise VideodenoiseError("--sigma-scale multiplies σ: it needs σ (a number or auto), not --sigma none")
        if given.get("passes", 1) != 1:
            raise VideodenoiseError("--passes 2 steers fusion by a first pass: it needs σ, not --sigma none")
        if given.get("scales", 1) != 1:
            raise VideodenoiseError("--scales 2 tells the half size its own σ: it needs σ, not --sigma none")
        if given.get("wiener"):
            raise VideodenoiseError("--wiener filters with σ as the noise level: it needs σ, not --sigma none")
        given["calibrate"], given["calibrate_dark"], given["scales"], given["wiener"] = False, False, 1, False
    fusion = given.pop("fusion", None)
    if fusion is False or not sigma_known:
        given["fusion"] = None
        given.setdefault("passes", 1)  # the preset's second pass steers fusion, which is off
    elif fusion is True and settings.fusion is None:
        given["fusion"] = FusionSettings()
    if fusion_radius is not None:
        given["fusion"] = dataclasses.replace(given.get("fusion") or settings.fusion, radius=fusion_radius)
    chosen = dataclasses.replace(settings, **given)
    if not chosen.wiener and {"wiener_stride", "wiener_flow"} & given.keys():
        raise VideodenoiseError(
            "--wiener-stride and --wiener-flow set the Wiener filter, which is off: add --wiener (it needs σ), "
            "or use --quality best"
        )
    return chosen


def parse_sigma(text: str) -> float | str | None:
    """--sigma: auto, none, or a number on the 0-255 scale (returned on the [0, 1] scale)."""
    if text.lower() in ("auto", "none"):
        return text.lower() if text.lower() == "auto" else None
    try:
        value = float(text)
    except ValueError:
        raise VideodenoiseError(f"--sigma must be a number on the 0-255 scale, auto or none; got '{text}'") from None
    if not 0 <= value <= 255:
        raise VideodenoiseError(f"--sigma must be between 0 and 255 (the 0-255 scale), got {text}")
    return value / 255


@settings_options(DenoiseSettings, defaults=PRESETS)
def clean(
    settings: dict,
    inputs: list[Path] = typer.Argument(..., metavar="INPUT", help="Video files, frame folders or images to denoise."),
    output: Path | None = typer.Option(
        None,
        "--output",
        "-o",
        help="Output file (one input) or existing folder to write into (default: NAME.denoised.mp4 beside each "
        "input); a frame folder clean wrote is that output again.",
    ),
    checkpoint: Path | None = typer.Option(
        None,
        "--checkpoint",
        help="Weights written by `videodenoise train` (default: the --quality preset's shipped checkpoint).",
        rich_help_panel=QUALITY_PANEL,
    ),
    quality: str = typer.Option("fast", "--quality", help=QUALITY_HELP, rich_help_panel=QUALITY_PANEL),
    sigma: str = typer.Option(
        "auto",
        "--sigma",
        help="Noise σ on the 0-255 scale, or auto (σ per intensity and channel, estimated from up to 8 pairs of "
        "motion-aligned frames and printed), or none (apply the model as trained).",
        rich_help_panel=QUALITY_PANEL,
    ),
    format: str | None = typer.Option(
        None,
        "--format",
        help="mp4 (H.264), h265 (HEVC .mp4), lossless (FFV1 .mkv), frames (PNG folder) or image (one PNG) (default: "
        "from the output's suffix, else image for an image input, lossless for an input stored without loss, h265 for "
        "one of more than 8 bits (10-bit HEVC plays where 10-bit H.264 does not) and mp4 for any other).",
    ),
    side_by_side: bool = typer.Option(
        False,
        "--side-by-side",
        help="Also write NAME.side-by-side beside the output, in its format: noisy and denoised frames side by side.",
    ),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace existing outputs (never the input)."),
    skip_existing: bool = typer.Option(
        False,
        "--skip-existing",
        help="Leave inputs whose outputs all exist as they are, to go on with a batch an interruption stopped (a long"
        " output left in pieces goes on from them, as always).",
    ),
    audio: bool = typer.Option(True, "--audio/--no-audio", help="Keep the input's audio."),
    fps: float | None = typer.Option(
        None,
        "--fps",
        help="Frame rate of inputs that carry none: frame folders (default: 25) and raw streams such as a DVR's .264"
        " (default: ffmpeg's, 25 for H.264).",
    ),
    stream: int | None = typer.Option(
        None,
        "--stream",
        help="Which video stream of the inputs, counted from 0 (default: the main one, as ffmpeg picks).",
    ),
    crf: int | None = typer.Option(
        None,
        "--crf",
        help="H.264 or HEVC quality (lower is better and bigger; default "
        f"{DEFAULT_CRF['h264']} for H.264, {DEFAULT_CRF['h265']} for HEVC).",
    ),
    start: str | None = typer.Option(
        None,
        "--start",
        help="Denoise from this time on (seconds, or a clock time as 1:30 or 01:02:03.5), as ffmpeg's -ss: the "
        "output is that excerpt, starting at 0 with its audio, and σ auto reads it alone (compare --sigma values "
        "on a few seconds before a long run).",
    ),
    duration: str | None = typer.Option(
        None, "--duration", help="Denoise only this long from --start (seconds or a clock time), as ffmpeg's -t."
    ),
    fusion_radius: int | None = typer.Option(
        None,
        "--fusion-radius",
        help="Neighbours fused on each side of a frame (default: the preset's, "
        f"{PRESET_FUSION_RADIUS['fast']} for fast and balanced, {PRESET_FUSION_RADIUS['best']} for best). More "
        "average more "
        "noise away where the flow is right (a fixed camera, a steady pan); where parts move on their own, far "
        "neighbours can cost. One optical flow more per neighbour and frame; 2×N + 1 frames held.",
        rich_help_panel=PIPELINE_PANEL,
    ),
    quiet: bool = typer.Option(
        False, "--quiet", help="No progress bar or summary lines (errors and warnings still show)."
    ),
) -> None:
    """Denoise videos, frame folders or images with a trained model; the output keeps frames, size, rate and audio.

    Under torchrun each rank denoises every world-size-th input, starting at its rank, on its own GPU.
    """
    from videodenoise.denoise import pipeline
    from videodenoise.denoise.denoiser import Denoiser
    from videodenoise.devices import distributed_environment
    from videodenoise.io import outputs
    from videodenoise.io.excerpt import Span

    sigma_value = parse_sigma(sigma)
    span = Span.parse(start, duration)
    if crf is not None and not 0 <= crf <= MAX_CRF:
        raise VideodenoiseError(f"--crf must be from 0 to {MAX_CRF} (lower is better and bigger), got {crf}")
    if fps is not None and not fps > 0:
        raise VideodenoiseError(f"--fps must be a positive frame rate, got {fps:g}; e.g. --fps 25")
    if skip_existing and overwrite:
        raise VideodenoiseError("--skip-existing leaves existing outputs and --overwrite replaces them; pass one")
    options = denoise_settings(quality, settings, sigma_known=sigma_value is not None, fusion_radius=fusion_radius)
    # every input checked before any work; with several, a bad one is reported and the others go on
    failures: list = []
    skipped: list = []
    plans = outputs.plan_outputs(
        inputs,
        output,
        format,
        side_by_side,
        overwrite,
        fps=fps,
        failures=failures if len(inputs) > 1 else None,
        stream=stream,
        span=span,
        skipped=skipped if skip_existing else None,
    )
    for source, error in failures:
        print_error(f"{source}: {one_line(error)}")
    for plan in skipped if not quiet else []:
        console.print(f"{plan.input}: skipped, as '{plan.output}' exists", markup=False, highlight=False)
    if len(plans) > 1 and not skip_existing:  # the same command again would refuse the outputs it finished
        on_interrupt_hint("to go on with the rest, run the same command with --skip-existing")
    for plan in plans if crf is not None else []:  # a quality asked of a codec that has none: said, not ignored
        if plan.codec not in DEFAULT_CRF:
            kind, ask = ("in FFV1", "pass --format mp4") if plan.codec == "ffv1" else ("as PNG frames", "name an .mp4")
            kind = "as a PNG image" if plan.image else kind
            why = ", without loss as its input is stored" if plan.kept_lossless else ""
            said = f"--crf sets H.264's and HEVC's quality, but '{plan.output}' is written {kind}{why}; {ask} for H.264"
            warnings.warn(said, stacklevel=1)
    denoiser = Denoiser.from_preset(quality, checkpoint, options)
    rank, world, _ = distributed_environment()
    prefix = f"[rank {rank}] " if world > 1 else ""
    failed = 0
    progress = frame_progress(disable=quiet or rank != 0)
    started: set = set()  # the tasks whose first frame has been reported
    with progress:
        for plan in plans[rank::world]:
            task = progress.add_task(plan.input.name, total=None)

            def report(line, source=plan.input):
                if not quiet:
                    console.print(f"{prefix}{source}: {line}", markup=False, highlight=False, soft_wrap=True)

            def advance(done, total, task=task):
                if task not in started:  # the frames before the first reported are an interrupted run's
                    started.add(task)
                    progress.update(task, resumed=done - 1)
                progress.update(task, completed=done, total=max(total, done))

            try:
                result = pipeline.denoise_plan(
                    plan,
                    denoiser,
                    sigma_value,
                    overwrite=overwrite,
                    keep_audio=audio,
                    fps=fps,
                    crf=crf,
                    progress=advance,
                    on_sigma=lambda value, how, frames=len(plan.reader): report(
                        denoiser.describe_sigma(value, how, frames)
                    ),
                    on_calibration=lambda calibration: report(calibration.describe()),
                    on_camera_bias=lambda gamma: report(gamma.describe()),
                    on_resume=report,
                )
            except (KeyboardInterrupt, typer.Exit):
                raise
            except Exception as error:  # one input's failure, expected or not, must not stop the batch
                failed += 1
                progress.remove_task(task)
                if len(inputs) == 1 or debugging():
                    raise
                text = one_line(error) if isinstance(error, VideodenoiseError) else unexpected(error, "clean")
                print_error(f"{plan.input}: {text}")
                continue
            if not quiet:
                written = f"{result.output}" + (f" and {result.side_by_side}" if result.side_by_side else "")
                notes = [f"{result.covers[0]:.2f} s to {result.covers[1]:.2f} s of the input"] if result.covers else []
                notes += ["without loss, as its input is stored"] if plan.kept_lossless else []
                notes += [f"its first {result.resumed} frames from an interrupted run"] if result.resumed else []
                if plan.codec == "h265" and format is None:  # chosen, not asked for: say why
                    notes += [f"HEVC, as its input has {plan.reader.info.bit_depth} bits"]
                written += f" ({'; '.join(notes)})" if notes else ""
                size = f"{result.width}×{result.height}"
                held = f"{result.frames} frame{'s' if result.frames != 1 else ''}, {size}, {result.fps:g} fps"
                speed = f", {result.frames_per_second:.2f} frames/s"
                held, speed = (f"an image, {size}", "") if plan.image else (held, speed)
                console.print(
                    f"{prefix}wrote {written}: {held}{', audio kept' if result.audio else ''}; {result.seconds:.1f} s"
                    f"{speed}"
                    + (
                        f" ({result.calibration_seconds:.1f} s of it choosing the told σ, once per video)"
                        if result.calibration_seconds
                        else ""
                    ),
                    markup=False,
                    highlight=False,
                    soft_wrap=True,
                )
    failed += len(failures)
    if failed:
        left = f", {len(skipped)} skipped as written before" if skipped else ""
        print_error(f"{failed} of {len(inputs)} inputs failed (see above){left}; the others were written")
        raise typer.Exit(code=1)


@settings_options(DenoiseSettings, defaults=PRESETS)
def demo(
    settings: dict,
    output_dir: Path = typer.Option(Path("demo_output"), "--output-dir", help="Folder for the videos."),
    checkpoint: Path | None = typer.Option(
        None,
        "--checkpoint",
        help="Weights (default: the --quality preset's shipped checkpoint).",
        rich_help_panel=QUALITY_PANEL,
    ),
    quality: str = typer.Option("fast", "--quality", help=QUALITY_HELP, rich_help_panel=QUALITY_PANEL),
    sigma: float = typer.Option(25.0, "--sigma", help="Noise σ to add, on the 0-255 scale."),
    seed: int = typer.Option(0, "--seed", help="Seed of the noise."),
    frames: int | None = typer.Option(None, "--frames", help="Use only the first N frames (default: all 250)."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace the videos of an earlier demo in --output-dir."),
    quiet: bool = typer.Option(False, "--quiet", help="No progress bar."),
) -> None:
    """Fetch the bikes sample clip, add Gaussian noise, denoise it with the shipped checkpoint, print both PSNRs
    and write the videos."""
    from videodenoise.denoise.demo import run_demo
    from videodenoise.denoise.denoiser import Denoiser

    if not 0 < sigma <= 255:
        raise VideodenoiseError(f"--sigma must be a noise level in (0, 255], got {sigma:g}")
    if frames is not None and frames < 1:
        raise VideodenoiseError(f"--frames must be at least 1, got {frames}")
    denoiser = Denoiser.from_preset(quality, checkpoint, denoise_settings(quality, settings))
    progress = frame_progress(disable=quiet)
    with progress:
        task = progress.add_task("bikes", total=None)
        result = run_demo(
            output_dir,
            denoiser,
            sigma=sigma / 255,
            seed=seed,
            max_frames=frames,
            overwrite=overwrite,
            progress=lambda done, total: progress.update(task, completed=done, total=total),
        )
    model_name = getattr(denoiser.model, "name", type(denoiser.model).__name__)
    lines = [
        f"{result.clean.name}: {result.frames} frames, Gaussian noise σ = {sigma:g}/255 (seed {seed}), "
        f"denoised by {model_name} from {denoiser.checkpoint} in {result.seconds:.1f} s "
        f"({result.frames / result.seconds:.2f} frames/s)",
        f"  noisy PSNR     {result.noisy_psnr:6.2f} dB",
        f"  denoised PSNR  {result.denoised_psnr:6.2f} dB",
        f"wrote {result.noisy}, {result.denoised} and {result.side_by_side}",
    ]
    for line in lines:
        console.print(line, markup=False, highlight=False, soft_wrap=True)

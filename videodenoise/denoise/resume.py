"""What a `clean` written in pieces (`videodenoise.io.pieces`) needs to go on after an interruption with the frames an
uninterrupted run gives: the fingerprint that makes pieces a run's own, how far before the first frame kept the
stream starts again, and σ auto's camera-step decision, noted for the run that goes on to take up."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

import torch

from videodenoise.denoise.camera_bias import GammaBias
from videodenoise.denoise.denoiser import Denoiser
from videodenoise.denoise.settings import DenoiseSettings
from videodenoise.denoise.wiener import RADIUS as WIENER_RADIUS
from videodenoise.io.outputs import OutputPlan
from videodenoise.io.pieces import Pieces


def job_fingerprint(plan: OutputPlan, denoiser: Denoiser, sigma, crf: int | None) -> dict:
    """What makes a run's pieces (`videodenoise.io.pieces`) this run's: the input as it is on disk (and which of its
    frames: an excerpt's), the outputs and their codec, the model's weights, the denoiser's settings and σ as given."""
    from videodenoise import __version__

    status = plan.input.stat()
    reader = plan.reader
    weights = hashlib.sha1()
    for name, tensor in sorted(denoiser.model.state_dict().items()):
        weights.update(name.encode())
        weights.update(tensor.detach().cpu().contiguous().numpy().tobytes())
    return {
        "input": str(plan.input.resolve()),
        "input_size": status.st_size,
        "input_modified": status.st_mtime_ns,
        "stream": getattr(getattr(reader, "source", reader), "stream_index", None),
        "excerpt": [getattr(reader, "first", 0), reader.info.n_frames],
        "outputs": [str(plan.output), plan.codec, str(plan.side_by_side), plan.side_by_side_codec],
        "crf": crf,
        "sigma": repr(sigma),
        "weights": weights.hexdigest(),
        "settings": repr(denoiser.settings),
        "version": __version__,
    }


# Frames a resumed run's stream starts before the first it keeps, so that the frames kept are a run from the start's
# (tests/test_pieces.py): more than the presets' outputs see (`best` was exact from 19 frames before on a test clip,
# `fast` from 5 but not 4)
RESUME_CONTEXT = 40


def resume_context(settings: DenoiseSettings) -> int:
    """RESUME_CONTEXT, or twice as far as a frame's output reaches back (each pass: fusion's neighbours and the
    model's window; then the Wiener filter's group) where settings reach further (`best` 20, `fast` 7)."""
    radius = settings.fusion.radius if settings.fusion is not None else 0
    reach = settings.passes * (radius + settings.window) + (WIENER_RADIUS if settings.wiener else 0)
    return max(RESUME_CONTEXT, 2 * reach)


CAMERA_GAMMA = "camera_gamma"  # what the run in pieces decided on σ auto's camera step (`Pieces.notes`)


def noting_decision(
    pairs: Iterator[tuple[torch.Tensor, torch.Tensor]], gamma: GammaBias, pieces: Pieces
) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
    """The pairs of a stream that decides `gamma`, its decision noted in the pieces' notes once made (saved with the
    next piece finished), so that a run going on takes it up instead of denoising the frames up to it again."""
    for pair in pairs:
        if CAMERA_GAMMA not in pieces.notes and gamma.decided:
            pieces.notes[CAMERA_GAMMA] = gamma.decision()
        yield pair

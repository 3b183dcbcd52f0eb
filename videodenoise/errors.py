"""User-facing errors: every error class of the package lives here.

Anything a user can cause (a missing file, an unknown dataset layout, an impossible option) raises a
subclass of `VideodenoiseError` whose message is one line saying what is wrong and what to do. The CLI
prints exactly that line and exits non-zero; library callers can catch the class. Anything else that
reaches the CLI is a bug or an unforeseen case: the CLI prints it as one line too, and `--debug` (or
VIDEODENOISE_DEBUG=1) shows the traceback.
"""


class VideodenoiseError(Exception):
    """Base class for errors caused by the user's input, not by a bug."""


class ModelError(VideodenoiseError):
    """A model option, input or weights file is invalid."""


class VideoReadError(VideodenoiseError):
    """A video file or frame folder is missing, unreadable or not a video."""


class OutputError(VideodenoiseError):
    """An output cannot be written: it exists (and overwriting was not asked for), its folder is
    missing or is a file, or the disk is full."""


class VideoWriteError(OutputError):
    """An output video cannot be written."""


class DatasetError(VideodenoiseError):
    """A dataset root is missing, or matches no known layout."""


class DownloadError(VideodenoiseError):
    """A download failed or a file does not match its checksum."""


class ConfigError(VideodenoiseError):
    """A training, descent or model option is invalid."""


class RunFolderError(VideodenoiseError):
    """A run folder cannot be created, is not a run folder, or is damaged."""


class TrainingDivergedError(VideodenoiseError):
    """Training went non-finite (the loss or the weights became NaN or infinity); the run folder keeps
    its last good checkpoint."""


class CheckpointError(VideodenoiseError):
    """A weights file or training checkpoint is missing, damaged, or holds non-finite numbers."""


class EvaluationError(VideodenoiseError):
    """An evaluation option, checkpoint or dataset choice is invalid."""


class DenoiseError(VideodenoiseError):
    """A denoising option, checkpoint or output is unusable."""


class ExperimentError(VideodenoiseError):
    """An experiment config is invalid, or its output folder holds runs of another config."""


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread so that every cleanup of an interrupted write runs as it
    does for Ctrl-C (see `videodenoise.io.atomic`)."""

"""User-facing errors.

Anything a user can cause (a missing file, an unknown dataset layout, an impossible option) raises a
subclass of `VideodenoiseError` whose message is one line saying what is wrong and what to do. The CLI
prints exactly that line and exits non-zero; library callers can catch the class.
"""


class VideodenoiseError(Exception):
    """Base class for errors caused by the user's input, not by a bug."""


class VideoReadError(VideodenoiseError):
    """A video file or frame folder is missing, unreadable or not a video."""


class VideoWriteError(VideodenoiseError):
    """An output video cannot be written."""


class DatasetError(VideodenoiseError):
    """A dataset root is missing, or matches no known layout."""


class DownloadError(VideodenoiseError):
    """A download failed or a file does not match its checksum."""

"""videodenoise: interpretable, robust video denoisers (DUST, UT) with layer-wise descent constraints."""

import os as _os

# OpenCV's bundled FFmpeg prints decoder chatter ("moov atom not found") straight to stderr when it
# probes a bad file; we turn every such failure into one clear error of our own, so silence it.
# These must be set before cv2 is first imported.
_os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")
_os.environ.setdefault("OPENCV_LOG_LEVEL", "OFF")

__version__ = "0.1.0"

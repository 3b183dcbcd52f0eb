"""SMPTE timecodes, HH:MM:SS:FF (a ';' or '.' before the frames for drop-frame), as a camera's MOV or MP4 timecode
track or a Matroska tag carries them: moved on by a number of frames, for the timecode of an excerpt's first frame."""

from __future__ import annotations

import re
from fractions import Fraction

_TIMECODE = re.compile(r"(\d{2}):(\d{2}):(\d{2})([:;.])(\d{2,3})")


def advance_timecode(timecode: str, frames: int, rate: Fraction) -> str | None:
    """`timecode` moved on by `frames` frames of a video at `rate`, wrapping at 24 hours; None where it cannot be
    read. A timecode counts round(rate) frames a second (30 at 29.97); drop-frame timecode (29.97 and 59.94 only)
    skips the first 2 (4 at 59.94) frame numbers of every minute but each tenth, so that it keeps to the clock."""
    match = _TIMECODE.fullmatch(timecode.strip())
    base = round(rate) if rate > 0 else 0
    if match is None or base == 0:
        return None
    hours, minutes, seconds, separator, frame = match.groups()
    hours, minutes, seconds, frame = int(hours), int(minutes), int(seconds), int(frame)
    drop = base // 15 if separator in ";." else 0
    if (drop and base not in (30, 60)) or hours >= 24 or minutes >= 60 or seconds >= 60 or frame >= base:
        return None
    elapsed = 60 * hours + minutes  # minutes, of which every one but each tenth skipped `drop` numbers
    number = (60 * elapsed + seconds) * base + frame - drop * (elapsed - elapsed // 10)
    number = (number + frames) % (24 * 3600 * base - drop * (24 * 60 - 24 * 6))
    if drop:  # back to the numbering with the skipped numbers in it
        tens, rest = divmod(number, 600 * base - 9 * drop)
        number += 9 * drop * tens + (drop * ((rest - drop) // (60 * base - drop)) if rest > drop else 0)
    seconds_total, frame = divmod(number, base)
    return f"{seconds_total // 3600:02d}:{seconds_total // 60 % 60:02d}:{seconds_total % 60:02d}{separator}{frame:02d}"

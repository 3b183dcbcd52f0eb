"""A stretch of a video read as a video of its own: `clean --start 1:30 --duration 10`.

    span = Span.parse("1:30", "10")                 # from 90 s, for 10 s
    reader = Excerpt.of(open_video("night.mp4"), span)

The frames are those whose presentation time (from the stream's first timestamp) lies in [start,
start + duration), as ffmpeg's `-ss START -t DURATION` before its input picks them when it re-encodes.
Everything downstream (σ auto's frame pairs, calibration, the dark-footage check, the progress bar)
sees only them, so an excerpt is denoised as that stretch would be if it were the whole video: a
frame's neighbours are reflected at the excerpt's ends as at a video's, and the model's windows are
counted from its first frame, so frames near its ends, and all of them where the windows fall
differently, can differ slightly from the same frames of a whole-video run. Timestamps move back by
as much as the excerpt's first frame comes after the video's, so the output starts where the input
starts (at 0 in nearly every file) and keeps the spacing of its frames; the audio moves with them and
is cut to the excerpt's frames.
"""

from __future__ import annotations

import bisect
import math
import re
import warnings
from collections.abc import Container, Iterator, Sequence
from dataclasses import dataclass, replace

import numpy as np

from videodenoise.errors import DenoiseError
from videodenoise.io.readers import VideoProperties, VideoReader
from videodenoise.io.timecode import advance_timecode

# [[HH:]MM:]SS[.fraction], as ffmpeg writes a time
_CLOCK = re.compile(r"^(?:(?:(\d+):)?(\d+):)?(\d+(?:\.\d*)?|\.\d+)$")


def parse_time(text: str, option: str) -> float:
    """Seconds from '90', '1.5', '1:30' or '01:02:03.5'; a one-line error naming `option` otherwise."""
    match = _CLOCK.match(text.strip())
    if match is None:
        raise DenoiseError(f"{option} takes seconds (90, 1.5) or a clock time (1:30, 01:02:03.5); got '{text}'")
    hours, minutes, seconds = match.groups()
    if (hours or minutes) and float(seconds) >= 60:
        raise DenoiseError(f"{option} '{text}': the seconds of a clock time must be under 60")
    return int(hours or 0) * 3600 + int(minutes or 0) * 60 + float(seconds)


@dataclass(frozen=True)
class Span:
    """Where an excerpt lies: from `start` seconds for `duration` seconds (None: to the end)."""

    start: float = 0.0
    duration: float | None = None

    @classmethod
    def parse(cls, start: str | None, duration: str | None) -> Span | None:
        """--start and --duration as given (None: not given); None where they ask for the whole video."""
        if start is None and duration is None:
            return None
        span = cls(
            parse_time(start, "--start") if start is not None else 0.0,
            parse_time(duration, "--duration") if duration is not None else None,
        )
        if span.duration is not None and span.duration <= 0:
            raise DenoiseError(f"--duration must be longer than 0 s, got '{duration}'")
        return None if span == cls() else span

    def describe(self) -> str:
        end = "the end" if self.duration is None else f"{self.start + self.duration:g} s"
        return f"{self.start:g} s to {end}"


class _Shifted:
    """The positions of a source that an excerpt's `wanted` positions are."""

    def __init__(self, wanted: Container[int], first: int):
        self.wanted, self.first = wanted, first

    def __contains__(self, position: object) -> bool:
        return isinstance(position, int) and position - self.first in self.wanted


class Excerpt(VideoReader):
    """Frames [first, first + count) of `source` as a video of their own (`times`: the source's `frame_times`),
    their timestamps moved back by as much as the first of them comes after the source's first frame. `covers`: the
    seconds of the source they cover, [from, until) (until: the next frame, or one frame past the last);
    `audio_window`: the same on the source's own clock (until None: to its end), and `audio_offset` how far they
    move back, in seconds, for the audio to move with them."""

    def __init__(self, source: VideoReader, first: int, count: int, times: list[float]):
        self.source, self.first = source, first
        self.info = replace(source.info, n_frames=count)
        self._properties = source.properties()
        if self._properties.timecode:  # the excerpt's own first frame's
            moved = advance_timecode(self._properties.timecode, first, source.info.frame_rate())
            if moved is None:
                warnings.warn(
                    f"the excerpt of '{source.info.path}' is written without its timecode: "
                    f"'{self._properties.timecode}' cannot be moved on to the excerpt's first frame",
                    stacklevel=2,
                )
            self._properties = replace(self._properties, timecode=moved)
        self._times = [t - times[first] for t in times[first : first + count]]
        after = first + count
        last = after == len(times)
        self.covers = (times[first], times[-1] + 1 / float(source.info.frame_rate()) if last else times[after])
        self.audio_offset = times[first] - times[0]
        clock = self._properties.time_base
        # the shift in the source's ticks; None: its frames carry no timestamps to move
        self.shift = None if clock is None else round(self.audio_offset / float(clock))
        origin = float((self._properties.start or 0) * clock) if clock is not None else 0.0  # frame_times' zero
        self.audio_window = (origin + self.covers[0], None if last else origin + self.covers[1])
        if self._properties.chapters:  # those the excerpt overlaps, cut to it and moved back with its frames
            until = math.inf if last else self.audio_window[1]
            chapters = tuple(
                (max(start, self.audio_window[0]) - self.audio_offset, min(end, until) - self.audio_offset, tags)
                for start, end, tags in self._properties.chapters
                if min(end, until) > max(start, self.audio_window[0])
            )
            self._properties = replace(self._properties, chapters=chapters)

    @classmethod
    def of(cls, source: VideoReader, span: Span) -> Excerpt:
        """The frames of `source` in `span`; a one-line error when it holds none."""
        times = source.frame_times()
        first = bisect.bisect_left(times, span.start - 1e-6)  # a microsecond's slack for rounded clocks
        after = len(times) if span.duration is None else bisect.bisect_left(times, span.start + span.duration - 1e-6)
        if first >= len(times):
            raise DenoiseError(
                f"--start {span.start:g} s is after the last frame of '{source.info.path}' (at {times[-1]:.2f} s); "
                "choose an earlier start"
            )
        if after <= first:
            raise DenoiseError(
                f"'{source.info.path}' has no frame from {span.describe()} (the next is at {times[first]:.3f} s); "
                "lengthen --duration"
            )
        return cls(source, first, after - first, times)

    def properties(self) -> VideoProperties:
        return self._properties

    def frame_times(self) -> list[float]:
        return list(self._times)

    def _passes(self, starts: Sequence[int], count: int) -> list[list[int]]:
        groups = self.source._passes([start + self.first for start in starts], count)
        return [[start - self.first for start in group] for group in groups]

    def _images(
        self, start: int, count: int | None, wanted: Container[int] | None = None
    ) -> Iterator[tuple[np.ndarray | None, int | None]]:
        count = len(self) - start if count is None else min(count, len(self) - start)
        if count <= 0:
            return
        shifted = None if wanted is None else _Shifted(wanted, self.first)
        for image, pts in self.source._images(self.first + start, count, shifted):
            yield image, pts if pts is None or self.shift is None else pts - self.shift

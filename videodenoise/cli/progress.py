"""Progress bars on stderr, fed by the library's progress(done, total, ...) callbacks (only the command
line draws)."""

from __future__ import annotations

from rich.progress import (
    BarColumn,
    DownloadColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
    TransferSpeedColumn,
)
from rich.text import Text

from videodenoise.cli.boundary import error_console


class ByteProgress:
    """A download bar fed by download's progress(done, total, file name) callback."""

    def __init__(self, disable: bool):
        self.bar = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            DownloadColumn(),
            TransferSpeedColumn(),
            TimeRemainingColumn(),
            console=error_console,
            disable=disable,
        )
        self.tasks: dict[str, int] = {}

    def __enter__(self):
        self.bar.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self.bar.__exit__(*exc)

    def __call__(self, done: int, total: int | None, label: str) -> None:
        if label not in self.tasks:
            self.tasks[label] = self.bar.add_task(label, total=total)
        self.bar.update(self.tasks[label], completed=done, total=total)


class StepProgress:
    """A bar fed by a library's progress(done, total, status) callback."""

    def __init__(self, description: str, disable: bool):
        self.bar = Progress(
            TextColumn(f"[bold]{description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            TextColumn("{task.fields[status]}"),
            console=error_console,
            disable=disable,
        )
        self.task = None

    def __enter__(self):
        self.bar.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self.bar.__exit__(*exc)

    def __call__(self, done: int, total: int, status: str = "") -> None:
        if self.task is None:
            self.task = self.bar.add_task("", total=total, status="")
        self.bar.update(self.task, completed=done, total=total, status=status)


class _FramesPerSecond(ProgressColumn):
    """The recent rate while a video runs; once it is done, its frames over the whole time since its task was added
    (estimation and the first window included), as `clean`'s closing line counts them: those this run denoised, not
    the `resumed` (a task field) that an interrupted run's pieces held. Rich's own rate starts at the first frame out
    and follows the windows' bursts: on 10 frames it showed 18 fps where the run took 4.6."""

    def render(self, task) -> Text:
        done = task.completed - task.fields.get("resumed", 0)
        speed = done / task.elapsed if task.finished and task.elapsed else task.speed
        return Text(f"{speed:.2f} fps" if speed else "… fps", style="progress.data.speed")


def frame_progress(disable: bool) -> Progress:
    """A bar with frames done/total, frames per second and the time left."""
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("frames"),
        _FramesPerSecond(),
        TimeRemainingColumn(),
        console=error_console,
        disable=disable,
    )

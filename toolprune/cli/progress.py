"""A progress bar on stderr while scoring takes long (rich, imported only once it is shown)."""

from __future__ import annotations

import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO

    from rich.progress import Progress, TaskID

DELAY = 1.0  # seconds of scoring before the bar appears


class ScoringProgress:
    """Called as ``progress(done, total)`` by the pipeline; shows nothing for quick runs."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        # the clock starts with scoring (its first report), not with the command: reading a
        # large input or a slow start on a busy machine is no reason to show a scoring bar
        self.started: float | None = None
        self._shown: tuple[Progress, TaskID] | None = None  # the bar and its one task

    def __call__(self, done: int, total: int) -> None:
        if self._shown is None:
            now = time.monotonic()
            if self.started is None:
                self.started = now
            if now - self.started < DELAY or done >= total:
                return
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            bar = Progress(
                TextColumn("toolprune: scoring"), BarColumn(), MofNCompleteColumn(), TextColumn("batches"),
                TimeElapsedColumn(), console=Console(file=self.stream), transient=True,
            )
            bar.start()
            self._shown = (bar, bar.add_task("scoring", total=total))
        bar, task = self._shown
        bar.update(task, completed=done, total=total)

    def close(self) -> None:
        shown, self._shown = self._shown, None
        if shown is not None:
            shown[0].stop()


def for_stream(stream: TextIO | None) -> ScoringProgress | None:
    """A progress reporter when ``stream`` is a terminal, else None."""
    if stream is None:
        return None
    try:
        if not stream.isatty():
            return None
    except (AttributeError, ValueError, OSError):
        return None
    return ScoringProgress(stream)

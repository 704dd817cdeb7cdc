"""A progress bar on stderr while scoring takes long (rich, imported only once it is shown)."""

from __future__ import annotations

import time

DELAY = 1.0  # seconds of scoring before the bar appears


class ScoringProgress:
    """Called as ``progress(done, total)`` by the pipeline; shows nothing for quick runs."""

    def __init__(self, stream) -> None:
        self.stream = stream
        self.started = time.monotonic()
        self._bar = None
        self._task = None

    def __call__(self, done: int, total: int) -> None:
        if self._bar is None:
            if time.monotonic() - self.started < DELAY or done >= total:
                return
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self._bar = Progress(
                TextColumn("toolprune: scoring"), BarColumn(), MofNCompleteColumn(), TextColumn("batches"),
                TimeElapsedColumn(), console=Console(file=self.stream), transient=True,
            )
            self._bar.start()
            self._task = self._bar.add_task("scoring", total=total)
        self._bar.update(self._task, completed=done, total=total)

    def close(self) -> None:
        bar, self._bar = self._bar, None
        if bar is not None:
            bar.stop()


def for_stream(stream) -> ScoringProgress | None:
    """A progress reporter when ``stream`` is a terminal, else None."""
    try:
        if not stream.isatty():
            return None
    except (AttributeError, ValueError, OSError):
        return None
    return ScoringProgress(stream)

"""The typed values that travel through one prune: its settings (:class:`Options`), its counts
(:class:`Stats`, printed as the ``-v`` line and parsed back from the stats log here, in one
place) and what it produced (:class:`Result`). Plain classes: ``dataclasses`` costs ~20 ms of
start-up, which a filter pays on every call."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from toolprune.core import lines

if TYPE_CHECKING:
    from toolprune.core.plans import Plan

OMITTED_COMMAND = "toolprune omitted"
"""How a marker says to get a dropped part back, unless told otherwise."""

PLACEHOLDER_ID = "P" + "9" * 12 + "-" + "f" * 8
"""The widest record id, to size an output before the real id exists."""


class Options:
    """Settings of one prune (resolved from flags, environment and config by ``toolprune.settings``)."""

    __slots__ = (
        "basis", "threshold", "lang", "timeout", "omitted_command", "tail", "signal", "envelope", "label",
        "max_chars", "max_lines", "max_bytes", "progress", "json_strict", "envelope_room",
    )  # fmt: skip

    def __init__(
        self,
        basis: str,
        threshold: float = 0.2,
        lang: str = "auto",
        timeout: float = 20.0,
        omitted_command: str = OMITTED_COMMAND,
        tail: int = lines.DEFAULT_TAIL,
        signal: str | None = None,
        envelope: bool = False,
        label: str | None = None,
        max_chars: int | None = None,
        max_lines: int | None = None,
        max_bytes: int | None = None,
        progress: Callable[[int, int], None] | None = None,
        json_strict: bool = False,
    ) -> None:
        self.basis = basis
        self.threshold = threshold
        self.lang = lang
        self.timeout = timeout
        self.omitted_command = omitted_command
        self.tail = tail
        self.signal = signal
        self.envelope = envelope
        self.label = label
        self.max_chars = max_chars
        self.max_lines = max_lines
        self.max_bytes = max_bytes
        self.progress = progress
        """Called as ``progress(batches_done, batches)`` while scoring, a few times a second."""
        self.json_strict = json_strict
        """Never change a JSON value's type: a top-level array passes through (no ``_pruned`` element)."""
        self.envelope_room: tuple[int, int] | None = None
        """The envelope header's size at most, in characters and bytes, when the caller knows
        it (its label and spill path): a bound keeps this much free for it."""

    def budgeted(self) -> bool:
        return bool(self.max_chars or self.max_lines or self.max_bytes)


STATS_FIELDS = (
    "outcome", "shape", "arrays", "pruned", "split", "scorer", "model", "questions", "raw_chars", "raw_bytes",
    "kept_chars", "kept_bytes", "units", "dropped", "budget", "ratio", "calls", "tokens", "ms", "threshold", "id",
)  # fmt: skip


class Stats:
    """Counts for the ``-v`` line and the stats log. ``None`` means not measured and prints as ``-``."""

    __slots__ = STATS_FIELDS
    outcome: str
    shape: str | None
    arrays: int | None
    pruned: int | None
    split: str | None
    scorer: str | None
    model: str | None
    questions: str | None
    raw_chars: int | None
    raw_bytes: int | None
    kept_chars: int | None
    kept_bytes: int | None
    units: int | None
    dropped: int | None
    budget: int | None
    ratio: float | None
    calls: int | None
    tokens: int | None
    ms: int | None
    threshold: float | None
    id: str | None

    def __init__(self, **values: object) -> None:
        for name in STATS_FIELDS:
            setattr(self, name, values.pop(name, None))
        if values:
            raise TypeError(f"unknown stats {sorted(values)}")
        if self.outcome is None:
            self.outcome = "-"

    def line(self) -> str:
        def show(value: object) -> str:
            if value is None:
                return "-"
            if isinstance(value, float):
                return f"{value:.3g}"
            return str(value)

        fields = [
            f for f in STATS_FIELDS
            if (self.arrays is not None or f not in ("arrays", "pruned")) and (f != "budget" or self.budget is not None)
            and (self.questions is not None or f not in ("model", "questions"))
        ]  # fmt: skip
        return LINE_PREFIX + " ".join(f"{name}={show(getattr(self, name))}" for name in fields)


LINE_PREFIX = "toolprune: "
"""How a ``-v`` line (and a stats log entry) starts; the fields follow as ``name=value``."""


def parse_line(text: str) -> dict[str, str] | None:
    """The fields of a ``-v`` line (``outcome``, ``raw_chars``…, and a trailing ``label=``), or
    None when ``text`` is not one. Values stay strings; ``-`` means not measured."""
    if not text.startswith(LINE_PREFIX + "outcome="):
        return None
    return dict(part.split("=", 1) for part in text[len(LINE_PREFIX):].split() if "=" in part)


class Result:
    """The bytes to write, the counts, and — for a passthrough caused by a failure — a one-line
    ``note`` for stderr (never content) and the ``error`` for ``--debug``."""

    def __init__(
        self,
        outcome: str,
        output: bytes,
        stats: Stats,
        record_id: str | None = None,
        note: str | None = None,
        plan: Plan | None = None,
        error: BaseException | None = None,
    ) -> None:
        self.outcome = outcome
        self.output = output
        self.stats = stats
        self.record_id = record_id
        self.note = note
        self.plan = plan
        self.error = error

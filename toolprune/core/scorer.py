"""The scorer contract.

A scorer judges how relevant each unit is to the request. It gets the whole
:class:`ScoringRequest` (so that a local scorer can compute statistics over every unit of the
input) and one batch of unit indices, and returns one score per index: a probability-like
number in [0, 1], or ``None`` when it could not judge that unit (the unit is then kept).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, overload  # typing is loaded on every prune anyway (core.models needs it)

if TYPE_CHECKING:
    from typing import Protocol

    class Sliceable(Protocol):
        """What :class:`UnitTexts` reads its texts from: a str, a LogText, bytes decoded per slice."""

        def __getitem__(self, key: slice, /) -> str: ...


class ScoringRequest:
    """``basis``: the request, cut to its first 2,000 characters; ``units``: texts of the units
    eligible for scoring, in document order; ``cache``: per-request scratch space for a scorer's
    statistics over the whole input; ``deadline``: the ``time.monotonic()`` by which scoring must
    end (a remote scorer bounds its requests and retries by it); ``prose``: the units are
    paragraphs of plain text (split at blank lines), not the sections, entries, commits, listing
    groups, log blocks or JSON elements of structured output (the lexical scorer reads prose by
    hops: ``scorers/lexical.py``, ``BRIDGE_STRUCTURED``)."""

    __slots__ = ("basis", "units", "cache", "deadline", "prose")

    def __init__(self, basis: str, units: Sequence[str], deadline: float | None = None, prose: bool = True) -> None:
        self.basis = basis
        self.units = units
        self.cache: dict[str, object] = {}
        self.deadline = deadline
        self.prose = prose


class UnitTexts(Sequence[str]):
    """The texts of units as a sequence of slices of the input, made on access: a large input's
    units are never all copied at once. ``sizes``: the texts' lengths in characters, when the
    spans are not counted in characters (byte spans of UTF-8)."""

    __slots__ = ("text", "spans", "_sizes")

    def __init__(self, text: Sliceable, spans: Sequence[tuple[int, int]], sizes: Sequence[int] | None = None) -> None:
        self.text = text
        self.spans = spans
        self._sizes = sizes

    def __len__(self) -> int:
        return len(self.spans)

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [self.text[a:b] for a, b in self.spans[index]]
        start, end = self.spans[index]
        return self.text[start:end]

    def __iter__(self) -> Iterator[str]:
        text = self.text
        for start, end in self.spans:
            yield text[start:end]

    def sizes(self) -> Sequence[int]:
        """The length of every text, without making the texts."""
        return self._sizes if self._sizes is not None else [b - a for a, b in self.spans]


class ScorerError(Exception):
    """A scoring call failed; its units count as kept."""


class ScoringTimeout(Exception):
    """The scoring deadline passed; partial results are discarded."""


class Scorer(ABC):
    name: str = ""
    #: True when units leave the machine (remote scorers). Shown to the user.
    sends_data: bool = False
    #: True when batches may run concurrently (network-bound scorers).
    concurrent: bool = False
    max_batch_units: int = 16
    max_batch_chars: int = 12_000

    @abstractmethod
    def score(self, request: ScoringRequest, batch: Sequence[int]) -> list[float | None]:
        """Score ``request.units[i]`` for each ``i`` in ``batch``; raise ScorerError on failure."""

    def names(self, basis: str, text: str) -> bool:
        """Does ``text`` name a content word of the request? (Asked of the part of a JSON record
        that is always kept, when no unit scored: then the record itself answers.) The default
        compares the words; a scorer that knows other words for them may count those too."""
        from toolprune.core.tokens import fold, tokens

        return bool(set(tokens(fold(basis))) & set(tokens(fold(text))))

    def usage(self) -> dict | None:
        """What the calls cost, for the ``-v`` line: ``calls`` (requests sent), ``tokens``,
        ``model`` (the version that answered), ``questions`` (the question text's version).
        None for a local scorer (calls are then the batches)."""
        return None

    def close(self) -> None:  # noqa: B027 - optional: a local scorer holds nothing to release
        """Release connections; called once scoring is over."""

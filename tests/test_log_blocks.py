"""A LogText's blank-line split is made from its line table (``core/text.py``: the blank and
fence-like lines found in one scan, then visited in order) and a log whose long runs hold half
of it goes to line blocks before any paragraph is made (``lines.mostly_fixed``). Both must give
what the str's split gives."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from toolprune.core import lines, logtext
from toolprune.core.text import FIXED_CHARS, _blocks, _events, _line_events, blank_lines, split_text

LINES = st.sampled_from(
    ["text", "  indented", "", " ", "\t", "\r", "a\r", "```", "```py", "  ```", "   ~~~", "    ```", "~~~", "````",
     "```x```", "``` `", "\x1c", "\u3000", "\u2028", "日本語", "~~~~ tilde", "``", "end  ", "x ```", "😀 ok"]
)
SIZED = st.sampled_from(["x" * 6_000, "y" * 6_001, "é" * 3_001, "w" * 119, "z" * 2_500])


def _small_pieces(make):
    """``make()`` with LogText read in pieces of a few characters (every piece boundary tried)."""
    saved = logtext.CHUNK, logtext.INDEX_CHUNK, logtext.PIECE
    logtext.CHUNK, logtext.INDEX_CHUNK, logtext.PIECE = 7, 5, 7
    try:
        return make()
    finally:
        logtext.CHUNK, logtext.INDEX_CHUNK, logtext.PIECE = saved


@settings(max_examples=300, deadline=None)
@given(lines_=st.lists(LINES, max_size=40), final_newline=st.booleans(), crlf=st.booleans())
def test_a_logtexts_blank_and_fence_lines_are_those_of_its_str(lines_, final_newline, crlf):
    text = ("\r\n" if crlf else "\n").join(lines_) + ("\n" if final_newline else "")
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    blank = [starts.index(e[0]) for e in _events(text) if e[2] is None]
    fences = [starts.index(e[0]) for e in _events(text) if e[2] is not None]
    if not text:
        return  # an empty str has one empty line; a LogText of no bytes has no pieces (and no blocks either way)
    for log in (logtext.LogText(text.encode()), _small_pieces(lambda: logtext.LogText(text.encode()))):
        found = _small_pieces(lambda log=log: _line_events(log))
        assert (list(found[0]), found[1]) == (blank, fences)
        assert _line_events(log) == found and list(blank_lines(log)) == blank  # kept in log.found
        blocks = _blocks(log)
        assert [(s, e) for s, e, _, _ in blocks] == [(s, e) for s, e, _, _ in _blocks(text)]
        for s, e, bs, be in blocks:  # and the bytes of each block are those of its characters
            assert (bs, be) == (len(text[:s].encode()), len(text[:e].encode())), (s, e, bs, be)


@settings(max_examples=300, deadline=None)
@given(lines_=st.lists(LINES, max_size=40), final_newline=st.booleans(), crlf=st.booleans())
def test_the_line_scan_finds_the_blank_lines_the_blank_line_split_finds(lines_, final_newline, crlf):
    """``lines._scan`` looks for blank lines itself when the blank-line split has not run (a log
    sent to line blocks first), a run of them at a time: the same lines, in any pieces."""
    text = ("\r\n" if crlf else "\n").join(lines_) + ("\n" if final_newline else "")
    if not text:
        return
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    blank = [starts.index(e[0]) for e in _events(text) if e[2] is None]
    for log in (logtext.LogText(text.encode()), _small_pieces(lambda: logtext.LogText(text.encode()))):
        flags = _small_pieces(lambda log=log: lines._scan(log))["blank"]
        assert len(flags) == len(log.starts) + 1  # a byte a line (and one past the last)
        assert [i for i, flag in enumerate(flags) if flag] == blank


@settings(max_examples=300, deadline=None)
@given(lines_=st.lists(st.one_of(LINES, SIZED), max_size=30), final_newline=st.booleans())
def test_mostly_fixed_is_the_coarse_rule_on_the_units_that_would_be_made(lines_, final_newline):
    text = "\n".join(lines_) + ("\n" if final_newline else "")
    log = logtext.LogText(text.encode())
    units = split_text(text)
    fixed = sum(u.chars for u in units if u.fixed)
    expected = len(text) > lines.COARSE_MIN_CHARS and fixed * 2 > len(text)
    assert lines.mostly_fixed(log, _blocks(log)) == expected == lines.mostly_fixed(text, _blocks(text))
    if expected:
        assert lines.coarse_units(text, units)  # the rule it stands in for


def test_a_fenced_log_goes_to_line_blocks_without_its_paragraphs(monkeypatch):
    from toolprune.core import pipeline
    from toolprune.core.models import Options, Stats
    from toolprune.core.plans import Plan

    log = "".join(f"2024-01-02T03:04:{i % 60:02}Z step {i}: compiled module {i}\n" for i in range(2_000))
    data = ("Here is the CI output:\n\n```\n" + log + "```\n\nWhat went wrong?\n").encode()
    made = []
    monkeypatch.setattr(pipeline, "split_text", lambda *a: made.append(a) or split_text(*a))
    result = pipeline._split(Plan("nothing_dropped", Stats(), text=logtext.read(data)), Options(basis="x"))
    assert result.stats.split == "lines" and not made
    assert all(u.end - u.start <= FIXED_CHARS for u in result.units)


@settings(max_examples=200, deadline=None)
@given(lines_=st.lists(st.sampled_from(["2024 step ok", "", "  at x", "x" * 300, "é", "\r"]), max_size=420),
       final_newline=st.booleans())
def test_a_logtext_reads_like_a_log_exactly_when_its_str_does(lines_, final_newline):
    """``loglike`` counts a LogText's line breaks from its line table, a str's by counting."""
    text = "\n".join(lines_) + ("\n" if final_newline else "")
    log = logtext.LogText(text.encode())
    assert len(log.starts) - 1 == text.count("\n")
    assert lines.loglike(log) == lines.loglike(text)

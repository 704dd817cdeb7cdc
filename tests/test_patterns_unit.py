"""Patterns that may run over a long stretch of input (a JSON string, an indent, the white space
before a JSON document) are written "unrolled": a character class repeated inside a group that
repeats once per escape, colour code or byte-order mark, instead of a repeated alternative, for
which Python's engine keeps a backtracking state per repetition (about 125 bytes a character).
Each must match exactly what the plain form matches."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolprune.core import compare, jsonshape, kinds, lines
from toolprune.core.shapes import decisions, textunits

# (the pattern in use, its plain form, the characters that matter to it)
CASES = {
    "json key": (decisions._KEY, r'"(?:[^"\\]|\\.)*"[ \t\r\n]*:', '"\\:a \n\t'),
    "leading json key": (decisions._LEADING_KEY, r'[ \t\r\n]*"((?:[^"\\]|\\.)*)"[ \t\r\n]*:', '"\\:a \n'),
    "json record": (compare._RECORD, r'\s*(?:"(?:[^"\\]|\\.)*"\s*:\s*)?\{', '"\\:{a \n'),
    "stack frame": (
        lines.FRAME,
        r"(?:\x1b\[[0-9;]*m|[ \t])*(?:at\b|Caused by|\.\.\. \d+ more|File \")",
        ' \t\x1b[0;1mat Fil"e.3',
    ),
    "member name": (textunits._MEMBER_NAME, r'"(?:[^"\\]|\\.)*"\s*:', '"\\:a \n'),
    "csv quoted field": (kinds._QUOTED, r'"(?:[^"]|"")*"', '"a,\n'),
    "config string": (textunits._CONFIG_STRING, r"\"(?:[^\"\\\n]|\\.)*\"|'[^'\n]*'", "\"'\\\na "),
}


@pytest.mark.parametrize("name", sorted(CASES))
@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_an_unrolled_pattern_matches_what_its_plain_form_matches(name, data):
    used, plain, alphabet = CASES[name]
    text = data.draw(st.text(alphabet=alphabet, max_size=30))
    plain = re.compile(plain)
    for start in range(len(text) + 1):
        ours, theirs = used.match(text, start), plain.match(text, start)
        assert (ours and (ours.span(), ours.groups())) == (theirs and (theirs.span(), theirs.groups()))
    assert used.sub("#", text) == plain.sub("#", text)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from([b"\xef\xbb\xbf", *(bytes([c]) for c in b" \t\r\n{[x\xef\xbb\xbf")]), max_size=12))
def test_the_json_opening_pattern_matches_what_its_plain_form_matches(parts):
    data = b"".join(parts)
    plain = re.compile(rb"(?:\xef\xbb\xbf|[ \t\r\n])*[{\[]")
    assert jsonshape.opens_like_json(data) is (plain.match(data) is not None)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(["\ufeff", " ", "\t", "\r", "\n", "{", "[", "x", "\x0c", "\u3000"]), max_size=12))
def test_text_and_its_utf8_bytes_open_like_json_alike(parts):
    """One rule for the input's bytes (how it is read) and for text (the pipeline, a string that
    holds a document): JSON's four white-space characters and byte-order marks, nothing else."""
    text = "".join(parts)
    expected = text.lstrip("\ufeff \t\r\n")[:1] in ("{", "[")
    assert jsonshape.opens_like_json(text) is expected
    assert jsonshape.opens_like_json(text.encode()) is expected


def test_opening_like_json_takes_no_memory_per_character() -> None:
    import tracemalloc

    blanks = [" \n" * 1_000_000 + "x", "\ufeff \n" * 700_000 + "x"]
    blanks += [b.encode() for b in blanks]
    tracemalloc.start()
    try:
        for blank in blanks:
            assert not jsonshape.opens_like_json(blank)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000


@pytest.mark.parametrize("name", sorted(CASES))
def test_an_unrolled_pattern_takes_no_memory_per_character(name):
    """A long stretch its repeated part runs over (a 2 MB JSON string, indent or white space)."""
    import tracemalloc

    used, _, _ = CASES[name]
    stretch = " " * 2_000_000 if name == "stack frame" else '"' + "a" * 2_000_000
    tracemalloc.start()
    try:
        used.match(stretch)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000

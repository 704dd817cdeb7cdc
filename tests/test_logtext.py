"""Plain text read from its bytes (toolprune.core.logtext): it must read exactly like the decoded str."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from toolprune.core import lines, logtext, signals
from toolprune.core.logtext import LogText, read

_PARTS = st.sampled_from(["a", "b c", "\n", "\r\n", "\r", "é", "✓", "😀", "İ", "  ", "\t", "error", "\x1b[31m", "日本"])


@pytest.fixture
def small_pieces():
    """Pieces of a few characters and bytes: every cut falls somewhere inside the text."""
    saved = logtext.CHUNK, logtext.INDEX_CHUNK, logtext.PIECE, lines.CHUNK
    logtext.CHUNK, logtext.INDEX_CHUNK, logtext.PIECE, lines.CHUNK = 5, 3, 4, 7
    yield
    logtext.CHUNK, logtext.INDEX_CHUNK, logtext.PIECE, lines.CHUNK = saved


@settings(max_examples=300, deadline=None)
@given(st.lists(_PARTS, max_size=80).map("".join), st.integers(1, 9))
def test_a_logtext_reads_like_its_str(text, chunk):
    saved = logtext.CHUNK, logtext.INDEX_CHUNK
    logtext.CHUNK, logtext.INDEX_CHUNK = chunk, chunk
    try:
        log = LogText(text.encode())
    finally:
        logtext.CHUNK, logtext.INDEX_CHUNK = saved
    assert len(log) == len(text)
    assert list(log.starts) == list(lines.line_starts(text))
    assert list(log.byte_starts) == [len(text[:s].encode()) for s in lines.line_starts(text)]
    for a in range(0, len(text) + 1, 3):
        assert log.byte_offset(a) == len(text[:a].encode())
        for b in (a, a + 1, a + 7, len(text)):
            assert log[a:b] == text[a:b]
    assert list(lines.pieces(text, chunk)) == [(o + 1, p[1:]) if k else (o, p) for k, (o, p) in enumerate(log.pieces(chunk))]
    assert str(log) == text and ("\n" in log) == ("\n" in text) and log.count("\n") == text.count("\n")


_SIGNAL_PARTS = st.sampled_from(
    ["\n", " ", "x", "0", "_", "-", ":", "ERROR", "error", "Panic", "WARNING:", "warning:", "Failed", "É", "ÉÉ", "é", "Ü",
     "\u212a", "İ", "\u0661", "\u3000", "\x1b[31m", "✓", "😀", "日本", "exit code ", "x.py:3: ", "E  "]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_SIGNAL_PARTS, max_size=60).map("".join), st.integers(1, 9), st.integers(1, 9))
@example("PANIC\u212aED\n", 9, 9)  # "panicked" once lower-cased
@example("İ\nx\nERRORS\n", 4, 3)  # a part read alone, matched as its piece with the "İ" is
@example("x.py:3: warning:", 1, 1)  # a compiler's warning read one character at a time
@example("ok\n" + "a" * 40 + ".c:3:1: warning: x\n", 8, 5)  # its line longer than a part
def test_the_signal_scan_of_a_logtext_is_that_of_its_str(text, chunk, part):
    """A LogText's signal scan reads its ranges from the bytes, a str's reads its own pieces: the
    signal lines and warnings found must be the same whatever letters stand next to the words
    (an "É" or a "Ü" before "error", a Kelvin sign, whose lower case is "k", after "panic"), and
    whatever the size of the parts the LogText is read in (``part``)."""
    saved = lines.CHUNK, logtext.PIECE
    lines.CHUNK, logtext.PIECE = chunk, part
    try:
        log = LogText(text.encode())
        found = signals.scan_ranges(log, [(0, len(log))])
        expected = sorted(lines.signal_positions(text))  # the str cut into the same pieces
    finally:
        lines.CHUNK, logtext.PIECE = saved
    assert sorted(found[0]) == expected
    # warnings: a lower-case "warning:", and a compiler's "file:line:col: warning:" at a line start
    diagnosed = {p for p in found[0] if signals._diagnosed_warning(text, p) and signals._lower_case_warning(log, p)}
    assert found[1] == {p for p in found[0] if text.startswith("warning:", p)} | diagnosed


def test_read_keeps_plain_text_as_bytes_and_decodes_the_rest():
    log = "".join(f"step {k}: compiled module {k} ✓\n" for k in range(300))
    assert isinstance(read(log.encode()), LogText)
    assert isinstance(read(("{" + log).encode()), str)  # JSON is parsed from a str
    assert isinstance(read(("# Title\n\n" + "## Part\n\n" + log).encode()), str)  # a document
    assert isinstance(read((log + "\x00").encode()), str)  # a NUL: not text, passed through
    with pytest.raises(UnicodeDecodeError):
        read(log.encode() + b"\xff")


def test_line_blocks_of_a_logtext_are_those_of_its_str(small_pieces):
    text = "".join(
        f"2026-12-01T10:00:{k % 60:02d}.0Z {'##[group]Run x' if k % 97 == 0 else 'ok é ✓ line'} {k}\r\n"
        + ("\n" if k % 13 == 0 else "")
        + ("ERROR: İ failed\n" if k % 41 == 0 else "")
        for k in range(400)
    )
    expected = (lines.split_lines(text, 20), lines.signal_positions(text))
    log = LogText(text.encode())
    units, numbers = lines.split_lines(log, 20)
    assert (units, numbers) == expected[0]
    assert sorted(lines.signal_positions(log)) == sorted(expected[1])
    for u in units:  # the blocks know their bytes
        assert (u.byte_start, u.byte_end) == (len(text[: u.start].encode()), len(text[: u.end].encode()))
    assert lines.pinned(log, units, numbers, 20, None) == lines.pinned(text, *expected[0], 20, None)


def test_a_str_with_lone_surrogates_is_cut_into_line_blocks():
    """Text decoded from JSON may hold a lone surrogate ("\\ud800" in a string): its line blocks
    are made all the same."""
    text = "".join(f"step {k}: compiled \ud800 module {k}\n" for k in range(300)) + "error: the build failed\n"
    units, numbers = lines.split_lines(text, 20)
    assert numbers[-1][1] == 301 and lines.as_log(text)[units[0].start : units[0].end] == text[units[0].start : units[0].end]
    assert len(units) - 1 in lines.pinned(text, units, numbers, 20, None)


def test_lower_casing_only_ascii_letters_changes_no_signal_pattern_match():
    """The signal scan of a LogText lower-cases its bytes (ASCII letters only) instead of its
    text (every letter): right only while every other letter whose lower case is one character
    keeps its \\w, \\d, \\s and isalnum(), and lower-cases to a character outside ASCII. The two
    exceptions, "İ" (two characters) and the Kelvin sign ("k"), are handled by the scan itself."""
    word, digit, space = re.compile(r"\w"), re.compile(r"\d"), re.compile(r"\s")
    exceptions = []
    for code in range(0x80, 0x110000):
        if 0xD800 <= code < 0xE000:
            continue
        char = chr(code)
        low = char.lower()
        if low == char:
            continue
        if len(low) != 1 or low.isascii():
            exceptions.append(char)
            continue
        for test in (word.match, digit.match, space.match):
            assert bool(test(char)) == bool(test(low)), hex(code)
        assert char.isalnum() == low.isalnum(), hex(code)
    assert exceptions == ["İ", "\u212a"]
    kelvin, accents = LogText("x \u212a".encode()), LogText("ÉRROR é\nERROR".encode())
    assert signals._lowered(kelvin, 0, len(kelvin)) is None  # the Kelvin sign: the text is lower-cased itself
    assert signals._lowered(accents, 0, len(accents)) == "Érror é\nerror"
    assert signals._lowered(accents, 8, 13) == "error"  # an ASCII range


def test_split_text_hands_its_blank_lines_to_the_line_scan():
    """split_text finds a LogText's blank lines (also inside a fence, also the first line) and
    keeps their numbers; the line scan then takes them instead of scanning for them again."""
    from toolprune.core.text import split_text

    text = " \n" + "".join(f"line {k}\n" + ("\t\n" if k % 7 == 0 else "") for k in range(60)) + "```\n\n```\n \n"
    log = LogText(text.encode())
    split_text(log)
    def numbers(flags: bytearray) -> list[int]:  # the scan keeps a byte a line, 1 for a blank one
        return [i for i, flag in enumerate(flags) if flag]

    assert sorted(log.found["blank_lines"]) == numbers(lines._scan(LogText(text.encode()))["blank"])
    told = LogText(text.encode())
    told.found["blank_lines"] = [5]  # what the scan is told is what it uses
    assert numbers(lines._scan(told)["blank"]) == [5]


_LITERAL_PARTS = st.sampled_from(
    ["panic", "ked", "panicked", "traceback", "segmentation fault", "##[error]", "#", "[error]", "build failed",
     "warning:", "command not found", "(severity:", " ", "3)", "(severity: 3)", "x", "\n", "é"]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_LITERAL_PARTS, max_size=30).map("".join))
@example("(severity:(severity: 3)panicpanicked")
def test_patterns_found_by_their_literal_match_where_finditer_does(text):
    """The signal patterns that start with a literal are found by str.find for it, then matched:
    the spans must be finditer's (overlapping occurrences, a failed match before a match)."""
    for pattern, literal in signals._SIGNAL_WORDS_BY_LETTER + signals._SIGNAL_PHRASES_BY_LETTER:
        assert list(signals._spans(pattern, literal, text)) == [m.span() for m in pattern.finditer(text)]
        assert not literal or pattern.pattern.startswith(re.escape(literal))


def test_spans_go_on_after_a_match_as_finditer_does():
    aa = re.compile("aa")
    assert list(signals._spans(aa, "a", "aaab aa")) == [m.span() for m in aa.finditer("aaab aa")] == [(0, 2), (5, 7)]
    assert list(signals._spans(aa, "", "aaa")) == [(0, 2)]

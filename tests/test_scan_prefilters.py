"""The line scans of a log pass over lines that cannot match before trying their patterns (a
lookahead on a line's first character, or on a part every match holds). Such a lookahead must
change nothing: each scan finds exactly what its pattern without it finds."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings, strategies as st

from toolprune.core import lines, signals, steps, text as text_split

# the patterns without their prefilters, as they were before the lookaheads were added
PLAIN_STRUCTURE = "\n" + lines.STRUCTURE.pattern[1:]
PLAIN_NEXT_EVENT = r"\n(?:[^\S\n]*(?=\n|\Z)| {0,3}(`{3,}|~{3,})[^\n]*)"
PLAIN_SIGNAL_LINES = (
    r"\n(?:\x1b\[[0-9;]*m)*"
    r"(?:e[^\S\n]{2,}|(?=(?:[^\Wa-z]|[./\\-])*[a-z][\w/\\-]*\.)[\w./\\-]*\.\w+:\d+:(?:\d+:)? |offenses:)"
)


def _plain_union() -> re.Pattern[str]:
    bodies = "|".join(f"(?:{p.body})" for p in steps._ALL)
    return re.compile("\n" + steps._PREFIX + "(?=[#$\\[>=_\\-TEFmnePDCRStfpWu✖✗✘×])(?:" + bodies + ")", re.M)


def _pairs() -> list[tuple[re.Pattern[str], re.Pattern[str]]]:
    union, _, _ = steps.piece_patterns()
    return [
        (re.compile(PLAIN_STRUCTURE, re.M), lines._STRUCTURE_NL),
        (re.compile(PLAIN_SIGNAL_LINES), signals._SIGNAL_LINES),
        (re.compile(PLAIN_SIGNAL_LINES[2:]), signals._SIGNAL_FIRST_LINE),
        (_plain_union(), union),
        (re.compile(PLAIN_NEXT_EVENT), text_split._NEXT_EVENT),
    ]


def _same(text: str) -> None:
    for plain, filtered in _pairs():
        assert [m.span() for m in filtered.finditer(text)] == [m.span() for m in plain.finditer(text)], filtered.pattern


LINES = [
    "2024-01-02T03:04:05.678Z ##[group]Run make", "2024-01-02T03:04:05Z ##[error]Process completed with exit code 1.",
    "\x1b[31m\x1b[1m=====", "  ==== FAILURES ====", "travis_fold:start:x\r\x1b[0K$ make", "section_start:1:a\r\x1b[0K$ x",
    "make[2]: Entering directory '/x'", "> Task :app:test FAILED", "[INFO] --- maven", "\t-----", "*****", "_____ t _____",
    "src/app.py:12:3: error", "\x1b[31msrc/a.go:7:2: x", "e   assert 1 == 2", "offenses: 3", "E  x", "Ran 3 tests in 0.1s",
    "FAIL: test_x (m.T)", "not ok 3 - x", "---- a::b stdout ----", "✖ 3 problems", "test result: FAILED. 1 passed",
    "١٢٣٤-٠١-٠٢T03:04:05Z ##[group]Run x", "Tests:       1 failed, 2 total", "x" * 50 + ".py:1: ",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "",
    "```py", "   ~~~~", "    ```", " \t ", "\r", "\x1c", "\u3000", "\u2028x", "`` `",
]


@pytest.mark.parametrize("line", LINES)
def test_each_scan_finds_the_same_lines_as_without_its_prefilter(line):
    for text in ("x\n" + line, "x\n" + line.lower(), "x\n" + line + "\n\n" + line + "\r\n" + line):
        _same(text)


def test_the_scans_agree_with_their_plain_patterns_on_random_lines():
    alphabet = st.sampled_from(
        list("ab9Z_./\\-:= \t\n\r\x1b[]m;1é#$>*~T`\x1c\u3000\x85") + ["e  ", ".py:12:", ":3: ", "2024-01-02T03:04:05Z ", "##[group]Run ",
                                                      "=====", "travis_fold:", "\r\x1b[0K", "FAIL", "\x1b[0m", "section_"]
    )

    @settings(max_examples=400, deadline=None)
    @given(st.lists(alphabet, max_size=30).map("".join))
    def agree(body: str) -> None:
        _same("\n" + body)
        _same("\n" + body.lower())

    agree()

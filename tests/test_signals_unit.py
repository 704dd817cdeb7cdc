"""The signal rules one at a time (toolprune/core/signals.py): which words, phrases and line
starts say that something failed, where exactly each is found, and which are warnings.

The line-block code pins the blocks that hold these positions, so a position that moves or goes
missing is a failure line dropped from a log.
"""

from __future__ import annotations

import pytest

from toolprune.core import signals
from toolprune.core.logtext import LogText
from toolprune.core.signals import _default_signals, says_failed, scan_ranges, signal_positions


def found(text: str) -> list[int]:
    return sorted(_default_signals(text))


@pytest.mark.parametrize(
    "word",
    ["error", "errors", "failed", "failure", "failures", "fatal", "panic", "panicked", "exception", "traceback",
     "segmentation fault", "assertionerror", "aborted"],
)  # fmt: skip
def test_each_failure_word_is_a_signal_where_it_starts(word):
    assert found(f"run: {word} here") == [5]
    assert found(f"run: {word.upper()} here") == [5]
    assert says_failed(f"x {word} y")


@pytest.mark.parametrize(
    "word", ["errorless", "terrors", "failedover", "unfatal", "error_code", "error-prone", "xpanic"]
)
def test_a_failure_word_inside_a_longer_word_is_none(word):
    assert found(f"a {word} b") == []


@pytest.mark.parametrize("before", ["é", "1", "_", "-", "漢"])
def test_a_word_character_of_any_script_before_a_failure_word_joins_it(before):
    assert found(f"a {before}error b") == []
    assert found(f"a error{before} b") == []


def test_a_colour_code_just_before_a_failure_word_is_no_word_character():
    assert found("a \x1b[31mfailed\x1b[0m") == [7]
    assert found("a \x1b[1;31mfailed") == [9]
    assert found("\x1b[31merror") == [5]  # a code at the very start
    assert found("a formfailed") == []  # an "m" that ends no colour code is a letter


@pytest.mark.parametrize("code", ["\x1b[1;38;5;196m", "\x1b[1;38;2;255;255;255m", "\x1b[" + ";" * 29 + "m"])
def test_a_long_colour_code_before_a_failure_word_is_no_word_character_either(code):
    assert len(code) <= signals.ANSI_REACH
    assert found(f"x {code}FATAL") == [2 + len(code)]
    assert found(f"{code}FATAL") == [len(code)]
    assert found("x \x1b[" + ";" * 30 + "mFATAL") == []  # past the reach, the "m" is read as a letter


def test_a_failure_word_at_the_very_start_and_end_of_the_text():
    assert found("fatal") == [0]
    assert found("ok fatal") == [3]


@pytest.mark.parametrize(
    "text",
    [
        "0 errors",
        "Failures: 0",
        "errors: 0 ok",
        "errors 0",
        "failures:\t0",
        "0 failed",
        "Found 0 errors in 3 files",
        "(0 errors)",
    ],
)
def test_a_zero_count_is_no_signal(text):
    assert found(text) == []


@pytest.mark.parametrize("text", ["10 errors", "Tests: 20 failed, 3 passed", "errors: 01", "errors: 3", "errors:\n0"])
def test_a_count_that_is_not_zero_is_a_signal(text):
    assert found(text) != []


@pytest.mark.parametrize(
    ("text", "at"),
    [
        ("x ##[error]boom", [2, 5]),  # the phrase, and the word inside it
        ("x npm ERR! code 1", [2]),
        ("x non-zero exit", [2]),
        ("x no such file or directory", [2]),
        ("x exit code 1", [2]),
        ("x exited with status 2", [2]),
        ("x exit status: 3", [2]),
        ("x exit code  7", [2]),
        ("x build failed", [2, 8]),
        ("x warning: y", [2]),
        ("x command not found", [2]),
        ("x (severity: 3)", [2]),
        ("x (severity:  4)", [2]),
        ("x Error[E0308]: mismatched", [2, 2]),
    ],
)
def test_each_failure_phrase_is_a_signal_where_it_starts(text, at):
    assert found(text) == at
    assert says_failed(text)


@pytest.mark.parametrize(
    "text", ["x exit code 0", "x exit code", "x (severity: x)", "x (severity: 12)", "x warning y", "x exited"]
)
def test_phrases_short_of_a_failure_are_none(text):
    assert found(text) == []
    assert not says_failed(text)


@pytest.mark.parametrize(
    ("text", "at"),
    [
        ("ok\nsrc/a.c:12: bad", [3]),
        ("ok\nsrc/a.c:12:5: bad", [3]),
        ("ok\n\x1b[1msrc/a.c:12:5: bad", [3]),
        ("ok\nA.B:1: x", [3]),  # upper-case path letters, then a lower-case one before the dot: "a.b"
        ("ok\n./tests/x.py:7: x", [3]),
        ("ok\nE   assert 1 == 2", [3]),
        ("ok\nE  x", [3]),
        ("ok\n3 offenses: x", []),
        ("ok\noffenses: 3", [3]),
        ("src/a.c:12: bad", [0]),
        ("E   assert 1", [0]),
    ],
)
def test_a_diagnostic_or_an_assertion_at_a_line_start_is_a_signal(text, at):
    assert found(text) == at


@pytest.mark.parametrize(
    "text",
    ["ok\nsrc/a.c:12:bad", "ok\nsrc/a.c: 12: bad", "ok\n12.3:4: x", "ok\nE x", " src/a.c:12: bad", "ok\nsrc/a:12: x",
     "ok\n1.2.3:4: x", "ok\nE\t\n"],
)  # fmt: skip
def test_a_line_short_of_a_diagnostic_is_none(text):
    assert found(text) == []


def test_a_capital_i_with_a_dot_is_matched_without_lower_casing():
    text = "İstanbul ERROR: x"
    assert len(text.lower()) != len(text)
    assert found(text) == [9]  # where the original text has it (the word, which the phrase overlaps)
    assert sorted(_default_signals("a ERROR b", insensitive=True)) == [2]
    assert sorted(_default_signals("İ xerror", insensitive=True)) == [3]  # case-insensitive: no word bounds
    assert _default_signals("İ xx exit code 0 fine", insensitive=True) == []  # only the signal's words and phrases
    # the last word and the first phrase of the alternation, where two patterns are joined
    assert _default_signals("İ x Aborted", insensitive=True) == [4]
    assert _default_signals("İ ##[ERROR] x", insensitive=True) == [2]


def test_a_stand_in_for_the_lower_cased_text_is_what_is_matched():
    assert _default_signals("abcdefghijklm", low="xx error here") == [3]


def test_signal_positions_of_plain_text_and_of_a_log_agree():
    text = "ok\nbuild failed\nfine\nsrc/a.c:3: x\n" * 3
    expected = sorted(_default_signals(text))
    assert sorted(signal_positions(text)) == expected
    assert sorted(signal_positions(LogText(text.encode()))) == expected


def test_a_signal_on_the_first_line_is_found_in_plain_text_and_in_a_log():
    text = "fatal: first\nok\n"
    assert signal_positions(text) == [0]
    assert signal_positions(LogText(text.encode())) == [0]


def test_signal_positions_of_text_longer_than_a_piece_are_where_the_text_has_them():
    from toolprune.core import lines

    line = "fine line of a log\n"
    text = line * (lines.CHUNK // len(line) + 5) + "fatal: here\n"
    assert signal_positions(text) == [text.index("fatal")]
    assert signal_positions(LogText(text.encode())) == [text.index("fatal")]


def test_the_users_pattern_replaces_the_default_and_matches_at_every_line():
    text = "ERROR x\nboom\nlast boom"
    assert signal_positions(text, r"^boom") == [8]
    assert signal_positions(text, r"boom$") == [8, 18]
    assert signal_positions(text, r"nothing") == []


def test_the_users_pattern_does_not_see_colour_codes_or_a_crlfs_cr():
    text = "a\r\n\x1b[31mERROR\x1b[0m x\r\nfailed\r\n"
    assert signal_positions(text, r"^ERROR x$") == [text.index("ERROR")]
    assert signal_positions(text, r"failed$") == [text.index("failed")]
    assert signal_positions(text, r"^a$") == [0]
    assert signal_positions("x\ry", r"x\ry") == [0]  # a lone CR is text


def test_scan_ranges_finds_signals_in_the_ranges_only_and_names_lower_case_warnings():
    text = "a warning: x\nb WARNING: y\nsrc/a.c:1:2: warning: z\nerror here\nwarning: first\n"
    log = LogText(text.encode())
    everywhere, warned = scan_ranges(log, [(0, len(text))])
    assert sorted(everywhere) == sorted(_default_signals(text))
    line = text.index("src/a.c")
    assert warned == {text.index("a warning") + 2, line, line + 13, text.index("warning: first")}
    third = text.index("error here")
    part, warned = scan_ranges(log, [(third, len(text))])
    assert sorted(part) == [third, text.index("warning: first")]
    assert warned == {text.index("warning: first")}


def test_scan_ranges_reads_a_text_outside_ascii_as_its_lower_case():
    text = "é ok\nÉCHEC fatal\nİ x ERROR\nK failed\n"
    log = LogText(text.encode())
    assert sorted(scan_ranges(log, [(0, len(text))])[0]) == sorted(_default_signals(text))


@pytest.mark.parametrize(
    ("line", "warned"),
    [
        ("warning: x", True),
        ("WARNING: x", False),
        ("Warning: x", False),
        ("src/a.c:12:5: warning: unused", True),
        ("src/a.c:12: warning: unused", True),
        ("src/a.c:12:5: WARNING: unused", False),
        ("\x1b[1msrc/a.c:12:5:\x1b[0m \x1b[35mwarning:\x1b[0m x", True),
        ("src/a.c:12:5: error: x", False),
    ],
)
def test_a_warning_is_a_lower_case_warning_or_a_compilers(line, warned):
    assert signals._lower_case_warning(LogText(line.encode()), 0) is warned


def test_a_compilers_warning_is_read_only_at_a_line_start_and_within_its_first_300_chars():
    text = "x\nsrc/a.c:1:2: warning: y"
    assert signals._diagnosed_warning(text, 2)
    assert not signals._diagnosed_warning(text, 1)
    assert not signals._diagnosed_warning("x src/a.c:1:2: warning: y", 2)
    assert signals._diagnosed_warning("src/a.c:1:2: warning: y", 0)
    tail = ".c:1:2: warning:"
    assert signals._diagnosed_warning("d" * (300 - len(tail)) + tail + " y", 0)
    assert not signals._diagnosed_warning("d" * (301 - len(tail)) + tail + " y", 0)
    assert signals._lower_case_warning(LogText(("d" * (300 - len(tail)) + tail).encode()), 0)
    assert not signals._lower_case_warning(LogText(("d" * (301 - len(tail)) + tail).encode()), 0)

"""The log rules at each of their bounds: what makes a text a log, its line blocks, what is pinned.

The log rules (``core/lines.py``) decide whether a text is cut into line blocks with its failure
lines pinned, or read as a document; how the blocks are cut; which blocks are never dropped.
Each test here sits exactly on a bound of those rules and on both sides of it, or compares the
blocks with a plain line-by-line reading of the rules, so that a bound moved by one (``<`` for
``<=``, a share counted twice, a block skipped) is noticed: mutation testing (``python
bench/mutation.py lines``) found these bounds unpinned. Inputs are made here, each to sit on
one bound; the real logs are in tests/test_lines.py.
"""

from __future__ import annotations

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from toolprune.core.lines import (
    COARSE_MEDIAN_CHARS,
    COARSE_MIN_CHARS,
    COARSE_MIN_UNITS,
    FRAME_LINES,
    LOGLIKE_MAX_INDENTED,
    LOGLIKE_MEDIAN_LINE,
    LOGLIKE_MIN_LINES,
    LOGLIKE_SAMPLE,
    LOGLIKE_WINDOWS,
    MAX_CHARS,
    TEST_RUN_LINES,
    TEST_RUN_MIN_LINES,
    _opens_with_frame,
    _sample,
    _test_run,
    as_log,
    block_lines,
    coarse_units,
    fenced,
    first_kept,
    known,
    located_threshold,
    loglike,
    long_log,
    mostly_fixed,
    pinned,
    split_lines,
)
from toolprune.core.logtext import LogText
from toolprune.core.text import FIXED_CHARS, Unit


def log_lines(n: int, width: int = 30) -> list[str]:
    """``n`` distinct lines of a build's output, each ``width`` chars, none indented."""
    return [f"step {i:05d} compiled ok ".ljust(width, ".")[:width] for i in range(n)]


def both(text: str) -> tuple[bool, bool]:
    """``loglike`` of the text as a str and as the LogText the pipeline reads."""
    return loglike(text), loglike(LogText(text.encode()))


def test_three_lines_of_a_test_run_make_one():
    assert TEST_RUN_LINES == 3
    assert _test_run(["FAILED tests/a.py::x", "E   assert 1 == 2", "===== short test summary info ====="])
    assert not _test_run(["FAILED tests/a.py::x", "E   assert 1 == 2", "collected 3 items"])


def failing_run(breaks: int, filled: int) -> str:
    """A failing pytest run of ``breaks`` line breaks, ``filled`` of its lines not blank."""
    head = ["============ test session starts ============", "FAILED tests/test_a.py::test_x - assert 1 == 2",
            "E   assert 1 == 2"]
    tail = ["======= 1 failed, 3 passed in 0.12s ======="]
    body = [f"tests/test_a.py::test_{i} PASSED" for i in range(filled - len(head) - len(tail))]
    lines = head + body + tail
    return "\n".join(lines) + "\n" * (breaks - len(lines) + 1)


def test_a_short_failing_test_run_is_a_log_from_forty_lines_on():
    """40 line breaks and 20 lines with text are the least a short test run needs."""
    assert TEST_RUN_MIN_LINES == 40
    assert both(failing_run(TEST_RUN_MIN_LINES, 20)) == (True, True)
    assert both(failing_run(TEST_RUN_MIN_LINES - 1, 20)) == (False, False)
    assert both(failing_run(TEST_RUN_MIN_LINES, 19)) == (False, False)
    assert both(failing_run(TEST_RUN_MIN_LINES, 13)) == (False, False)


def lines_text(lines: list[str], breaks: int) -> str:
    return "\n".join(lines) + "\n" * (breaks - len(lines) + 1)


def test_a_log_is_two_hundred_lines_or_more():
    """Under 200 line breaks a text is a log only as a failing test run; from 200 on, by its
    lines. The count is the same whether the text is a str or the LogText the pipeline reads."""
    assert LOGLIKE_MIN_LINES == 200
    assert both(lines_text(log_lines(LOGLIKE_MIN_LINES), LOGLIKE_MIN_LINES)) == (True, True)
    assert both(lines_text(log_lines(LOGLIKE_MIN_LINES - 1), LOGLIKE_MIN_LINES - 1)) == (False, False)
    assert both(lines_text(log_lines(LOGLIKE_MIN_LINES - 2), LOGLIKE_MIN_LINES - 2)) == (False, False)


def test_a_log_has_at_least_half_that_many_lines_with_text():
    """A hundred lines with text among 200 line breaks is a log; 99 is not (a sparse text)."""
    half = LOGLIKE_MIN_LINES // 2
    assert both(lines_text(log_lines(half), LOGLIKE_MIN_LINES)) == (True, True)
    assert both(lines_text(log_lines(half - 1), LOGLIKE_MIN_LINES)) == (False, False)
    assert both(lines_text(log_lines(LOGLIKE_MIN_LINES // 3 + 1), LOGLIKE_MIN_LINES)) == (False, False)


def test_a_logs_median_line_is_at_most_two_hundred_chars():
    n = LOGLIKE_MIN_LINES
    assert both("\n".join(log_lines(n, LOGLIKE_MEDIAN_LINE)) + "\n") == (True, True)
    assert both("\n".join(log_lines(n, LOGLIKE_MEDIAN_LINE + 1)) + "\n") == (False, False)
    # the median, not a lower quantile: 40 % short lines, 60 % long ones
    mixed = log_lines(2 * n // 5, 30) + log_lines(3 * n // 5, LOGLIKE_MEDIAN_LINE + 50)
    assert both("\n".join(mixed) + "\n") == (False, False)


def indented_text(n: int, indented: int, first: str = "step") -> str:
    lines = [("    " if i < indented else "") + f"{first} {i:04d} ran fine" for i in range(n)]
    return "\n".join(lines) + "\n"


def test_a_text_with_nine_tenths_of_its_lines_indented_is_a_page_not_a_log():
    """Man pages and pydoc indent almost every line; a log fewer than 90 % of them. Exactly
    90 % is a page (unless its lines are a test run's)."""
    n = LOGLIKE_MIN_LINES
    assert LOGLIKE_MAX_INDENTED == 0.9
    assert both(indented_text(n, int(n * LOGLIKE_MAX_INDENTED))) == (False, False)
    assert both(indented_text(n, int(n * LOGLIKE_MAX_INDENTED) - 1)) == (True, True)
    assert both(indented_text(n, n // 2)) == (True, True)  # each indented line counts once
    assert both(indented_text(n, n)) == (False, False)
    assert both(indented_text(n, 0, first="XX")) == (True, True)  # a line opening with X is not indented


def test_a_log_is_over_four_thousand_chars():
    """``long_log``: a text like a log is cut into line blocks whatever its paragraphs only over
    4,000 chars (200 lines of 19 chars and a break are exactly that)."""
    exact = "\n".join(log_lines(LOGLIKE_MIN_LINES, 19)) + "\n"
    assert len(exact) == COARSE_MIN_CHARS and loglike(exact) and not long_log(exact)
    assert long_log(exact + "x")


def units_of(sizes: list[int], fixed: tuple[int, ...] = ()) -> list[Unit]:
    out, at = [], 0
    for k, size in enumerate(sizes):
        out.append(Unit(at, at + size, k in fixed))
        at += size
    return out


@pytest.mark.parametrize(
    "length, sizes, fixed, coarse",
    [
        (COARSE_MIN_CHARS, [1] * 3, (), False),  # not over 4,000 chars: never coarse
        (COARSE_MIN_CHARS + 1, [500] * COARSE_MIN_UNITS, (), False),  # eight units are enough
        (COARSE_MIN_CHARS + 1, [500] * (COARSE_MIN_UNITS - 1), (), True),  # seven are too few
        (COARSE_MIN_CHARS + 1, [COARSE_MEDIAN_CHARS] * COARSE_MIN_UNITS, (), False),  # a median of 1,500 is fine
        (COARSE_MIN_CHARS + 1, [COARSE_MEDIAN_CHARS + 1] * COARSE_MIN_UNITS, (), True),  # over it is too coarse
        # the median, not a lower third: 4 small units, 5 large ones
        (COARSE_MIN_CHARS + 1, [10] * 4 + [COARSE_MEDIAN_CHARS + 1] * 5, (), True),
        # half the text in fixed units is not too much; more than half is
        (20_000, [100] * 10 + [10_000], (10,), False),
        (20_001, [100] * 10 + [10_001], (10,), True),
    ],
)
def test_the_size_rules_of_a_coarse_split(length, sizes, fixed, coarse):
    assert coarse_units("x" * length, units_of(sizes, fixed)) is coarse


def test_half_the_text_in_blocks_too_large_to_score():
    """``mostly_fixed`` reads the blank-line blocks: over half the text in blocks over
    ``FIXED_CHARS`` (6,000) makes the split coarse; exactly half does not, nor any short text."""
    big = FIXED_CHARS + 1
    assert not mostly_fixed("x" * (2 * big), [(0, big, 0, 0)])
    assert mostly_fixed("x" * (2 * big - 1), [(0, big, 0, 0)])
    assert not mostly_fixed("x" * COARSE_MIN_CHARS, [(0, COARSE_MIN_CHARS, 0, 0)])


@pytest.mark.parametrize("opening, is_fence", [("```", True), ("   ```", True), ("\t```", False), ("XX```", False),
                                               ("    ```", False), ("~~~", True), ("x ~~~", False)])
def test_a_fence_opens_its_line_after_at_most_three_spaces(opening, is_fence):
    """CommonMark: a fence may be indented by up to three spaces; a tab or a fourth space makes
    indented code, and a fence after other text is none (``tsc --pretty``'s ``~~~`` underlines)."""
    text = "build log line\n" + opening + "python\ncode\n"
    assert fenced(text) is is_fence
    assert fenced(LogText(text.encode())) is is_fence


def test_a_text_never_scanned_has_no_located_failure():
    assert located_threshold("a text the log rules never read\n" * 3) == 0.0


def framed(frame_at: int | None, before: bool = False) -> tuple[LogText, int, int]:
    """A log of 12 lines; the block under test is lines 5–10 (1-based), with a stack frame on its
    ``frame_at``-th line (1-based within the block), or on the line just before it."""
    lines = [f"plain output {i}" for i in range(12)]
    if frame_at is not None:
        lines[4 + frame_at - 1] = '  File "app.py", line 3, in main'
    if before:
        lines[3] = "    at com.example.Main.run(Main.java:10)"
    return LogText(("\n".join(lines) + "\n").encode()), 5, 10


@pytest.mark.parametrize("frame_at, opens", [(1, True), (FRAME_LINES, True), (FRAME_LINES + 1, False), (6, False)])
def test_a_block_opens_with_a_frame_on_one_of_its_first_three_lines(frame_at, opens):
    """A stack trace continues a signal block past ``MAX_CONTINUED`` blocks only through blocks
    that open with a frame: one of their first three lines, not a later one."""
    assert FRAME_LINES == 3
    assert _opens_with_frame(*framed(frame_at)) is opens


def test_a_frame_just_before_a_block_does_not_open_it():
    assert not _opens_with_frame(*framed(None, before=True))


def test_the_last_text_read_as_a_log_is_remembered_and_no_other():
    """``as_log`` encodes a str once: the same str gives the same LogText, so the line blocks and
    the pinned lines share one scan; ``known`` never hands that LogText to another text."""
    text, other = "a log line\n" * 50, "another text\n" * 50
    log = as_log(text)
    assert as_log(text) is log and known(text) is log
    assert known(other) is None and first_kept(other) == set()
    assert first_kept(text) == set()  # read, but no failure was pinned in it
    assert as_log(other) is not log and known(text) is None


def reference_blocks(text: str, tail: int) -> list[tuple[int, int, int, int]]:
    """The line blocks of a log with no structure or failure lines, found one line at a time
    (``split_lines`` finds them by scans and bisection): for each block its first and last line
    (1-based) and its character span. A block holds at most ``block_lines(n)`` lines, spans at
    most ``MAX_CHARS`` chars unless it is one line, ends at a blank line (in no block), and the
    tail's first line starts a block; a line's span leaves out its "\\r\\n" or "\\n"."""
    pieces = text.split("\n")
    if text.endswith("\n"):
        pieces.pop()  # no line after a final break
    starts, at = [], 0
    for piece in pieces:
        starts.append(at)
        at += len(piece) + 1

    def end(j: int) -> int:
        return starts[j] + len(pieces[j]) - (1 if pieces[j].endswith("\r") else 0)

    n, per_block = len(pieces), block_lines(len(pieces))
    tail_start = max(0, n - tail)
    blocks, i = [], 0
    while i < n:
        if not pieces[i].strip():
            i += 1
            continue
        last = i
        while (last + 1 < n and last + 1 - i < per_block and pieces[last + 1].strip() and last + 1 != tail_start
               and end(last + 1) - starts[i] <= MAX_CHARS):
            last += 1
        blocks.append((i + 1, last + 1, starts[i], end(last)))
        i = last + 1
    return blocks


_WIDTHS = st.sampled_from([1, 7, 99, 199, 200, 249, 250, 299, 300, 333, 999, 1000, 1999, 2000, 2001, 2500])
_LINE = st.one_of(
    st.tuples(_WIDTHS, st.sampled_from(["a", "é", "b "]), st.booleans()).map(
        lambda t: (t[1] * t[0])[: t[0]] + ("\r" if t[2] else "")
    ),
    st.sampled_from(["", "   ", "\r", "\t"]),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_LINE, min_size=1, max_size=70), st.booleans(), st.integers(0, 12))
@example(["a" * 300] * 6 + ["a" * 200] + ["a" * 5] * 3, True, 0)  # exactly 2,000 chars: one block
@example(["a" * 300] * 6 + ["a" * 201] + ["a" * 5] * 3, True, 0)  # 2,001: the seventh line starts the next
@example(["a" * 2500, "a" * 10, "a" * 2001], False, 0)  # a line over the bound is a block of its own
@example(["a" * 10] * 20 + [""] + ["a" * 10] * 5, True, 3)
@example(["a" * 5] * 7 + [""] + ["a" * 5] * 3, True, 0)  # a blank line where the block would end anyway
@example(["a" * 5] * 10, True, 3)  # the tail's first line where the block would end anyway
@example(["a" * 6000, "a" * 6001, "a"], False, 0)  # over 6,000 chars a block is too large to score
@example(["a" * 5] * 8 + ["\r"] + ["a" * 5], True, 0)
def test_line_blocks_are_what_a_line_by_line_reading_gives(lines, final_break, tail):
    """Every bound of the line blocks at once, against a plain reading of the rules: the
    line count, the character bound (exactly 2,000 fits), blank lines, the tail's first line,
    carriage returns, multi-byte characters; and each block's byte span is its character span."""
    text = "\n".join(lines) + ("\n" if final_break else "")
    assume(text)  # (an empty input is never split: it passes through)
    units, spans = split_lines(text, tail)
    got = [(a, b, u.start, u.end) for u, (a, b) in zip(units, spans)]
    assert got == reference_blocks(text, tail)
    data = text.encode()
    for u in units:
        assert data[u.byte_start : u.byte_end].decode() == text[u.start : u.end]
        assert u.fixed == (u.end - u.start > FIXED_CHARS)


@pytest.mark.parametrize("tail", [0, 1, 2, 9, 10, 11, 500])
def test_the_blocks_of_the_last_lines_are_pinned(tail):
    """The last ``tail`` lines of a log are always kept: exactly the blocks holding one of them
    (the tail's first line starts a block), from the first block of the log when the tail is as
    long as the log, and none with no tail."""
    text = "\n".join(f"step {i} ok" for i in range(300)) + "\n"
    units, spans = split_lines(text, tail)
    got = pinned(text, units, spans, tail, None)
    assert got == {k for k, (_, last) in enumerate(spans) if last > 300 - tail}
    if tail >= 300:
        assert 0 in got


def test_what_pinned_found_last_time_is_never_read_again():
    """``pinned`` leaves what it found for the bound (``repeats``) and the markers (``like``) on
    the LogText; a second call on the same text starts afresh, so nothing of the first call's
    signals is quoted or let go after the second."""
    from toolprune.core.repeats import like, repeats

    lines = []
    for i in range(300):
        if i % 20 == 5:
            lines.append(f"error: cannot open shared object file '/opt/lib{i}.so'")
        elif i % 20 == 15:
            lines.append(f"WARNING: Location 'file:///opt/simple/pkg{i}/' is ignored")
        else:
            lines.append(f"step {i} ok")
    text = "\n".join(lines) + "\n"
    units, spans = split_lines(text, 0)
    first = pinned(text, units, spans, 0, None)
    assert repeats(text) and like(text, 0, len(units) - 1) is not None  # errors and warnings that repeat
    second = pinned(text, units, spans, 0, r"^step 299 ok$")
    assert second == {len(units) - 1} and second != first
    assert repeats(text) == set()
    assert like(text, 0, len(units) - 1) is None


@pytest.mark.parametrize("text, is_fence", [
    ("```python\nx = 1\n", True),  # at the very start of the input
    (" ```\n", True), ("   ```\n", True), ("    ```\n", False), ("x```\n", False),
    ("\n```\n", True), ("x\n\n```\n", True),  # after a blank line
    ("a ```\n```\nb ```\n", True),  # the second of three is at a line start
    ("x ```\ny ```\n", False), ("x ```\n  y ```\n", False),
])
def test_every_fence_mark_of_the_input_is_looked_at_in_its_own_line(text, is_fence):
    assert fenced(text) is is_fence
    assert fenced(LogText(text.encode())) is is_fence


def ci_log(succeeded_last: bool = False) -> tuple[str, list[int]]:
    """A CI job of two steps of 48 lines, one that succeeded and one that failed, each step's
    lines in blocks of eight (a step's header starts a block); an ``error:`` line, which the
    default pattern finds, on the first and the last line of the body of the step that
    succeeded. Returns the log and the 0-based lines of those two ``error:`` lines."""
    ok = ["##[group]Run make build"] + [f"build step {i} done" for i in range(46)] + ["build finished"]
    ok[1] = "error: deprecated flag -Werror=foo ignored (it is a warning now)"
    ok[46] = "error: deprecated flag -Werror=bar ignored (it is a warning now)"
    bad = ["##[group]Run make test"] + [f"test {i} passed" for i in range(46)]
    bad.append("##[error]Process completed with exit code 2.")
    steps = bad + ok if succeeded_last else ok + bad
    at = 48 if succeeded_last else 0
    return "\n".join(steps) + "\n", [at + 1, at + 46]


@pytest.mark.parametrize("succeeded_last", [False, True])
@pytest.mark.parametrize("signal", [None, r"deprecated|exit code"])
def test_a_step_that_succeeded_pins_none_of_its_blocks(succeeded_last, signal):
    """The signal lines of a step that succeeded (in a job that names its failure) pin nothing,
    from its first block to its last, whether it runs first or last, and for the default pattern
    as for ``--signal``; the failing step's blocks still are pinned."""
    text, quiet_lines = ci_log(succeeded_last)
    units, spans = split_lines(text, 0)
    got = pinned(text, units, spans, 0, signal)
    quiet_blocks = {k for k, (a, b) in enumerate(spans) if any(a <= q + 1 <= b for q in quiet_lines)}
    assert len(quiet_blocks) == 2 and not got & quiet_blocks
    failing = next(k for k, (a, b) in enumerate(spans) if "##[error]" in text[units[k].start : units[k].end])
    header = next(k for k, (a, b) in enumerate(spans) if "Run make test" in text[units[k].start : units[k].end])
    assert {failing, header} <= got and {failing, header} <= first_kept(text)  # the failing step's ends


def test_a_signal_just_before_a_step_that_succeeded_is_not_part_of_it():
    """Only the blocks inside a step that succeeded are quiet: an ``error:`` line on the line
    (its own block) just before its header still pins its block."""
    text, _ = ci_log(succeeded_last=False)
    text = "prelude of the job\n\nerror: bad config value for cache\n" + text
    units, spans = split_lines(text, 0)
    got = pinned(text, units, spans, 0, None)
    before = next(k for k in range(len(units)) if text[units[k].start : units[k].end].startswith("error: bad config"))
    assert spans[before] == (3, 3) and before in got


def long_text(chars: int) -> str:
    """Distinct numbered lines of 10 to 129 chars (a fixed sequence), cut to ``chars`` chars."""
    out, total, i = [], 0, 0
    while total < chars:
        line = f"L{i:07d} " + "x" * ((i * 7919) % 120)
        out.append(line)
        total += len(line) + 1
        i += 1
    return ("\n".join(out) + "\n")[:chars]


def test_a_large_text_is_read_in_whole_lines_of_evenly_spaced_windows():
    """Over ``LOGLIKE_SAMPLE`` chars, ``loglike`` reads 32 windows of the text spaced evenly from
    its start to its end, each cut to its whole lines (the first window from the text's start):
    the same text always gives the same sample, whatever its size."""
    assert _sample(long_text(LOGLIKE_SAMPLE)) == long_text(LOGLIKE_SAMPLE)  # not over it: the whole text
    text = long_text(3 * LOGLIKE_SAMPLE + 12_345)
    width = LOGLIKE_SAMPLE // LOGLIKE_WINDOWS
    step = (len(text) - width) // (LOGLIKE_WINDOWS - 1)
    expected = []
    for k in range(LOGLIKE_WINDOWS):
        start, end = k * step, k * step + width
        first = 0 if k == 0 else text.index("\n", start) + 1
        last = text.rindex("\n", start, end)
        expected.append(text[first:last])
    sample = _sample(text)
    assert sample == "\n".join(expected)
    lines = text.split("\n")
    got = sample.split("\n")
    assert got[0] == lines[0] and set(got) <= set(lines)  # whole lines of the text, from its first
    assert text.rindex(got[-1]) > len(text) - width  # to its last window
    bigger = _sample(long_text(LOGLIKE_SAMPLE + 1))
    assert len(bigger) < LOGLIKE_SAMPLE and bigger.split("\n")[0] == lines[0]

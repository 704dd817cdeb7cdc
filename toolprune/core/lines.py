"""Line blocks: units for logs and other output without blank lines.

When the blank-line split is too coarse to prune (a CI log is one paragraph of 5,000 lines),
the text is cut into blocks of consecutive lines instead: about ``TARGET_BLOCKS`` of them, each
of ``MIN_LINES`` to ``MAX_LINES`` lines and at most ``MAX_CHARS`` characters, breaking
preferably where the log shows its own structure (CI group markers, test-runner section rules,
build-tool task headers). The last ``tail`` lines form
blocks of their own, and blocks holding a *signal* line (an error, a failure, a traceback) are
*pinned*: never dropped, whatever their score. A carriage return inside a line (progress bars)
does not end the line; ANSI colour codes are ignored when matching. The signal lines are found
by ``core/signals.py``, the steps of a CI log by ``core/steps.py``, and the blocks pinned only
for a repeated signal line (and the repeated warnings that pin nothing) by ``core/repeats.py``.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, AnyStr

from toolprune.core.logtext import LogText
from toolprune.core.signals import scan_ranges, signal_positions
from toolprune.core.text import FIXED_CHARS, ByteUnit, Unit

if TYPE_CHECKING:  # steps is imported when a log is scanned
    from toolprune.core.steps import Analysis

MAX_LINES = 40
MIN_LINES = 8
TARGET_BLOCKS = 40
"""A log is cut into blocks of its length over this many lines, at least ``MIN_LINES`` and at
most ``MAX_LINES`` (a log of 1,600 lines or more: 40-line blocks). A 150-line test run in 40-line
blocks is four units, and the one that holds the failure keeps most of it; in 8-line blocks what
the request needs is kept and the rest of the run can go. Measured against 40 lines for every
log (2026-12-03): the real-output tune half 95.6 % / 0.445 → 95.6 % / 0.467 (all gold / reduction;
pytest runs 0.62 → 0.75, pip 0.29 → 0.41; ``bench/eval_real.py``), the corpus's CI logs failure
lines 0.980 → 0.980 at reduction 0.698 → 0.711 (``bench/eval_logs.py``), the project's own logs
all failure lines kept, 0.620 → 0.662 (``bench/eval_ownlogs.py``). 60 blocks, or 5 lines at
least, began to lose failure lines."""
MAX_CHARS = 2_000
SPACED_BLOCKS = 10_000
"""Blank lines end blocks unless they would make more blocks than this, of under ``MIN_LINES``
lines on average (double-spaced output of 20,000 lines or more: see :func:`split_lines`). Under
it, a unit per line costs a few MB; over it, a blank line ends a block only from the block's
ninth line on (``MIN_LINES`` + 1: double-spaced text in blocks of 9 lines, 5 of them text), or
from a later line in longer output, so that the blocks are never many more than this (up to the
usual blocks of ``block_lines``, 40 lines, from 400,000 lines on: 10 MB of double-spaced lines
is 170,000 blocks, as it was before the small blocks, not 670,000 and 470 MB).
Chosen as a bound on memory, not on quality: no output of the real-output set comes near it
(their largest document has ~2,200 runs of blank lines), so no measured case depends on it. The
blocks past it are small so that the bound is no cliff: a double-spaced log of 10,001 lines with
36 errors kept 20 KB where one of 9,000 kept 9 KB (in 40-line blocks it had kept 53 KB)."""
COARSE_MIN_CHARS = 4_000
"""The size rules for line blocks apply from this size on (every input that is pruned at all):
output of 4,000 to 8,000 chars with few blank lines (a ``pip --dry-run``, a short test run) is
one or two paragraphs, of which nothing can be dropped."""
COARSE_MIN_UNITS = 8
COARSE_MEDIAN_CHARS = 1_500
DEFAULT_TAIL = 20

# Lines where a log starts a new section: GitHub Actions groups, Jenkins stages, Travis folds,
# pytest and other section rules, Maven/Gradle task headers, make's directory changes. (The
# lookahead names the first characters of the alternatives: most lines are passed over there.)
STRUCTURE = re.compile(
    r"^(?:\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z ?)?(?:\x1b\[[0-9;]*m)*[ \t]*(?=[#:\[t=_\-*>m$])"
    r"(?:##\[(?:group|endgroup|section)\]|::(?:end)?group::|\[Pipeline\]"
    r"|travis_fold:|travis_time:end|={5,}|_{5,}|-{5,}|\*{5,}|\[INFO\] -{5,}|\[INFO\] --- |> Task "
    r"|make(?:\[\d+\])?: (?:Entering|Leaving) directory|\$ )",
    re.M,
)


CHUNK = 1 << 20
"""Large inputs are scanned in pieces of about this many characters, cut after a line break, so
that no scan holds a second copy of the whole input."""


def pieces(text: str, size: int | None = None) -> Iterator[tuple[int, str]]:
    """(offset, piece) covering ``text``, each piece ending with a line break (the last one
    with the text)."""
    size = size or CHUNK
    start, n = 0, len(text)
    while start < n:
        end = text.rfind("\n", start, start + size) + 1
        if end <= start:
            end = text.find("\n", start + size)
            end = n if end < 0 else end + 1
        if end >= n or start + size >= n:
            end = n
        yield start, text[start:end] if (start or end < n) else text
        start = end


# A line that continues the one before it: indented (stack frames, compiler context, pytest
# source lines), or a Java/JS frame, a "Caused by" (Jenkins remoting: "Caused: …", "Also: …"),
# an elision.
CONTINUATION = re.compile(r"(?:\x1b\[[0-9;]*m)*(?:[ \t]|at |Caused by|Caused: |Also: |\.\.\. \d+ more|\^)")
LOGLIKE_MIN_LINES = 200
LOGLIKE_MEDIAN_LINE = 200
LOGLIKE_MAX_INDENTED = 0.9
# a line saying a test failed (--color=yes too), the alternatives' group left open for the patterns below
_FAILED_LINE = r"(?:\x1b\[[0-9;]*m)*(?:E   |FAILED |ERROR "
_TEST_RUN = re.compile(_FAILED_LINE + r"|={5,} \S|_{5,} \S)")
TEST_RUN_LINES = 3
"""A test run's report is a log however indented its lines: at least this many lines at column 0
are pytest's (an ``E   `` line of a failure, ``FAILED``/``ERROR`` in the summary, a ``=====``
or ``_____`` section rule), which no man page or pydoc has. A ``--tb=long`` run of pydub shows the
source of every frame, 94 % of its lines indented; read as paragraphs, its ``FileNotFoundError``
line was not kept as a failure line is."""
TEST_RUN_MIN_LINES = 40
"""A test run's report of fewer than ``LOGLIKE_MIN_LINES`` lines (but this many, and over 4,000
chars) is a log too when one of its lines says a test failed (``E   ``, ``FAILED ``, ``ERROR
``) and one is the run's summary (``_RUN_SUMMARY``): a failing cssselect run of 180 lines, read
as paragraphs, had dropped its ``>       assert`` line and the ``E`` line that says what differed,
with the function's source around them. Other short text is not: a short ``--help`` page is a
document, even one whose sections are ``=====`` rules (smartctl's)."""
_FAILED = re.compile(_FAILED_LINE + ")")
_RUN_SUMMARY = re.compile(
    r"(?:\x1b\[[0-9;]*m)*(?:=+ .*\b(?:failed|passed|errors?)\b.* in [\d.]+m?s\b"
    r"|\d+ (?:failed|passed|errors?)\b.* in [\d.]+m?s\b|Ran \d+ tests? in )"
)
"""The last line of a pytest run (``==== 1 failed, 20 passed in 0.81s ====``, or without the
rules under ``pytest -q``: ``1 failed, 123 passed, 21 warnings in 3.00s``) or unittest's ``Ran 5
tests in 0.003s``: a release note with ``=====`` titles and a line that opens ``ERROR handling
…`` is no test run. (The ``-q`` form was missing: a failing 132-line ``pytest -q`` run of pyshp
was read as paragraphs and dropped its ``E   AssertionError`` line.)"""


def coarse(text: str | LogText, units: Sequence[Unit]) -> bool:
    """Should the input be cut into line blocks? Yes for an input over 4,000 chars when the
    blank-line split gives fewer than 8 prunable units, when their median is over 1,500 chars,
    or when units too large to score (over 6,000 chars, always kept) hold half of the text; and
    for output that reads like a log: at least 200 lines, short ones (median up to 200 chars),
    no fenced code."""
    return long_log(text) or coarse_units(text, units)


def long_log(text: str | LogText) -> bool:
    """Is the input over 4,000 chars and like a log? Then it is cut into line blocks whatever
    its blank-line split (which need not be made)."""
    return len(text) > COARSE_MIN_CHARS and loglike(text)


def coarse_units(text: str | LogText, units: Sequence[Unit]) -> bool:
    """The size rules of :func:`coarse`: over 4,000 chars, and too few prunable units, a median
    unit too large, or half the text in units too large to score."""
    if len(text) <= COARSE_MIN_CHARS:
        return False
    sizes = sorted(u.chars for u in units if not u.fixed)
    if len(sizes) < COARSE_MIN_UNITS or sizes[len(sizes) // 2] > COARSE_MEDIAN_CHARS:
        return True
    return sum(u.chars for u in units if u.fixed) * 2 > len(text)


def mostly_fixed(text: str | LogText, blocks: Sequence[tuple[int, int, int, int]]) -> bool:
    """The last rule of :func:`coarse_units` (over 4,000 chars, half the text in units too large
    to score), decided from the blocks of the blank-line split (``core/text.py``) before its units
    are made: those units are exactly the blocks over ``FIXED_CHARS`` (a merge never makes one,
    and never joins one). A log with a fenced part or a few long runs of lines is then cut into
    line blocks without its paragraphs being made."""
    if len(text) <= COARSE_MIN_CHARS:
        return False
    return sum(e - s for s, e, _, _ in blocks if e - s > FIXED_CHARS) * 2 > len(text)


def loglike(text: str | LogText, units: Sequence[Unit] = ()) -> bool:
    """At least 200 lines, short ones (median up to 200 chars), no fenced code (:func:`fenced`),
    and not nearly all indented: man pages and pydoc indent almost every line (98 %+), the 81 CI
    and system logs of the evaluation corpus at most 77 % of theirs."""
    breaks = len(text.starts) - 1 if isinstance(text, LogText) else text.count("\n")  # a LogText has counted them
    if breaks < TEST_RUN_MIN_LINES or fenced(text):
        return False
    lines = [line for line in _sample(text).split("\n") if line.strip()]
    if breaks < LOGLIKE_MIN_LINES:  # a short log only if it is a test run's report
        return (
            len(lines) >= TEST_RUN_MIN_LINES // 2 and _test_run(lines) and any(_FAILED.match(line) for line in lines)
            and any(_RUN_SUMMARY.match(line) for line in lines)
        )
    lengths = sorted(map(len, lines))
    if len(lengths) < LOGLIKE_MIN_LINES // 2 or lengths[len(lengths) // 2] > LOGLIKE_MEDIAN_LINE:
        return False
    indented = sum(1 for line in lines if line[:1] in " \t")
    if indented < LOGLIKE_MAX_INDENTED * len(lines):
        return True
    return _test_run(lines)


def _test_run(lines: list[str]) -> bool:
    return sum(1 for line in lines if _TEST_RUN.match(line)) >= TEST_RUN_LINES


def fenced(text: str | LogText) -> bool:
    """Does a line of ``text`` open a Markdown code fence (three backticks or tildes at its
    start, up to three blanks in)? A compiler's ``~~~~`` under the code it blames (``tsc
    --pretty``) is in the middle of a line, and no fence: a type check's 448 lines had been read
    as paragraphs, its errors not pinned. Each occurrence is looked at once, and only the four
    characters before it (an anchored pattern over an 8 MB log took 25 ms)."""
    if isinstance(text, LogText):
        return any(_opens_line(text.data, mark.encode(), b"\n", b" ") for mark in _FENCES)
    return any(_opens_line(text, mark, "\n", " ") for mark in _FENCES)


_FENCES = ("```", "~~~")


def _opens_line(data: AnyStr, mark: AnyStr, newline: AnyStr, blank: AnyStr) -> bool:
    pos = data.find(mark)
    while pos >= 0:
        near = data.rfind(newline, max(0, pos - 4), pos)
        start = near + 1 if near >= 0 else 0 if pos <= 3 else -1  # -1: the line starts further back
        if start >= 0 and not data[start:pos].strip(blank):
            return True
        pos = data.find(mark, pos + 1)
    return False


LOGLIKE_SAMPLE = 1 << 19
LOGLIKE_WINDOWS = 32


def _sample(text: str | LogText) -> str:
    """The text, or for a large one the whole lines of ``LOGLIKE_WINDOWS`` evenly spaced windows
    (a fixed choice: the same text gives the same sample)."""
    if len(text) <= LOGLIKE_SAMPLE:
        return text[:]  # a LogText's slice is a str
    width = LOGLIKE_SAMPLE // LOGLIKE_WINDOWS
    step = (len(text) - width) // (LOGLIKE_WINDOWS - 1)
    parts = []
    for k in range(LOGLIKE_WINDOWS):
        window = text[k * step : k * step + width]
        first, last = (window.find("\n") + 1 if k else 0), window.rfind("\n")
        if last > first:
            parts.append(window[first:last])
    return "\n".join(parts)


def line_starts(text: str) -> Sequence[int]:
    """The offset of every line: 0, and one past each line break (so a text ending with a break
    has a last, empty line starting at its end). Built piece by piece into a compact array."""
    from array import array
    from itertools import accumulate, islice

    kind = "I" if len(text) < 1 << 32 and array("I").itemsize == 4 else "q"  # 4 bytes a line when it fits
    starts = array(kind, bytes(array(kind).itemsize * (text.count("\n") + 1)))  # sized once: no growth
    k = 1
    for offset, piece in pieces(text):
        if len(piece) > 2 * CHUNK:  # one very long line: find the breaks without copying it
            found = array(kind, (offset + m.end() for m in _NEWLINE.finditer(piece)))
        else:
            segments = piece.split("\n")
            found = array(kind, islice(accumulate((len(seg) + 1 for seg in segments[:-1]), initial=offset), 1, None))
            del segments
        starts[k : k + len(found)] = found
        k += len(found)
    return starts


_NEWLINE = re.compile("\n")


_BLANK_RUN = re.compile(r"\n[^\S\n]*(?:\n[^\S\n]*)*(?=\n|\Z)")  # one or more blank lines, after a break
_BLANK_FIRST = re.compile(r"[^\S\n]*(?=\n|\Z)")
# The same after a line break, first passing over the lines that cannot match: a match starts
# with a timestamp's digit, a colour code, a blank or the lookahead's characters (a line that
# starts otherwise costs one test instead of trying the optional parts).
_STRUCTURE_NL = re.compile("\n(?=[\\d\x1b \t#:\\[t=_\\-*>m$])" + STRUCTURE.pattern[1:])


def as_log(text: str | LogText) -> LogText:
    """``text`` as a :class:`~toolprune.core.logtext.LogText` (a str is encoded once; the last
    one is remembered, so :func:`split_lines` and :func:`pinned` on the same str share it)."""
    if isinstance(text, LogText):
        return text
    cached = _wrapped[0]  # one reference read and written at once: threads never mix two texts
    if cached is None or cached[0] is not text:
        cached = _wrapped[0] = (text, LogText(text.encode("utf-8", "surrogatepass"), "surrogatepass"))
    return cached[1]


_wrapped: list = [None]


def known(text: str | LogText) -> LogText | None:
    """The LogText already made for ``text``, without making one."""
    if isinstance(text, LogText):
        return text
    cached = _wrapped[0]
    return cached[1] if cached is not None and cached[0] is text else None


def _scan(log: LogText) -> dict:
    """One pass over the pieces of ``log``: its blank lines and structure lines (line numbers,
    0-based), the default signal positions (and which of them are a lower-case ``warning:``),
    and the candidate lines of the step patterns (``core/steps.py``). Kept in ``log.found``."""
    found = log.found
    if "blank" in found:
        return found
    from toolprune.core import steps

    union, first_line, finds = steps.piece_patterns()
    starts, n = log.starts, len(log)
    told = found.get("blank_lines")  # found by the blank-line split already (core/text.py), or looked for here
    # one byte a line (1: blank), not a set: a text of blank lines would make a set of ints
    # fifty times its own size
    blank = bytearray(len(starts) + 1)
    for number in told or ():
        blank[number] = 1
    structure: set[int] = set()
    candidates: list[int] = []
    hits: dict = {pattern: set() for pattern in finds}
    for offset, piece in log.pieces():
        # a piece after the first starts with the line break before it (at ``offset``): a match
        # of "\n…" at p is about the line starting at offset + p + 1
        if offset == 0:
            if told is None and _BLANK_FIRST.match(piece):
                blank[0] = 1
            if STRUCTURE.match(piece):
                structure.add(0)
            if first_line(piece):
                candidates.append(0)
        last = offset + len(piece) >= n
        for m in _BLANK_RUN.finditer(piece) if told is None else ():  # a run of blank lines at a time
            run = piece.count("\n", m.start(), m.end())
            if not last and m.end() == len(piece):  # a piece's final break: the next piece's first line decides
                run -= 1
            if run > 0:
                first = bisect_right(starts, offset + m.start() + 1) - 1
                blank[first : first + run] = b"\x01" * run
        structure.update(bisect_right(starts, offset + m.start() + 1) - 1 for m in _STRUCTURE_NL.finditer(piece))
        candidates += [bisect_right(starts, offset + m.start() + 1) - 1 for m in union.finditer(piece)]
        for pattern in finds:  # where finditer would match, found by skipping to the literal each match starts with
            if pattern.find is None:  # (every pattern given here has its part searched alone)
                continue
            literal, match, seen = pattern.literal, pattern.find.match, hits[pattern]
            pos = piece.find(literal)
            while pos >= 0:
                at = match(piece, pos)
                if at is not None:
                    seen.add(bisect_right(starts, offset + pos) - 1)
                pos = piece.find(literal, at.end() if at is not None and at.end() > pos else pos + 1)
        del piece
    found.update(blank=blank, structure=structure, candidates=candidates, finds=hits, lines={})
    return found


def block_lines(n_lines: int) -> int:
    """How many lines a block of a log of ``n_lines`` lines holds at most (``TARGET_BLOCKS``)."""
    return max(MIN_LINES, min(MAX_LINES, -(-n_lines // TARGET_BLOCKS)))


def split_lines(text: str | LogText, tail: int = DEFAULT_TAIL) -> tuple[list[Unit], list[tuple[int, int]]]:
    """Blocks of lines, and for each block its first and last line number (1-based).

    A block is at most :func:`block_lines` lines and spans at most ``MAX_CHARS`` characters (line
    breaks included; a longer single line is a block of its own); a blank line ends it and is in
    no block; a structure line and the first line of the tail start a new one. The work is done
    per block, not per line: line starts, blank lines and structure lines are found by C-speed
    scans of the pieces of the text and the block ends by bisection."""
    log = as_log(text)
    starts, byte_starts, data = log.starts, log.byte_starts, log.data
    n_lines = len(starts) - (1 if data.endswith(b"\n") else 0)  # no line after a final break
    found = _scan(log)
    blank, structure = found["blank"], found["structure"]
    analysis = _analysis(log, n_lines)
    edges = {a for a, _ in analysis.pins} | {b + 1 for _, b in analysis.pins}  # pinned lines make blocks of their own
    breaks = sorted(structure | edges | {max(0, n_lines - tail)})  # the blank lines are looked up in ``blank``
    breaks.append(n_lines + 1)  # past the last line: the loop below needs no bound check
    # Double-spaced output (a blank line after every line or two): blocks ended by every blank
    # line would hold a line each, a unit per line of the input (2.5 million on 10 MB). When the
    # runs of blank lines would make over SPACED_BLOCKS blocks of under MIN_LINES lines on
    # average, a blank line ends a block only from the block's line ``spaced`` + 1 on, and stays
    # inside it before (never first or last in it): MIN_LINES just past the bound, more lines in
    # longer output so that there are never many more than SPACED_BLOCKS blocks, up to the usual
    # block (past it, no blank line ends a block).
    per_block = block_lines(n_lines)
    spaced = 0
    if blank.count(b"\x00\x01") > max(n_lines // MIN_LINES, SPACED_BLOCKS):
        spaced = min(per_block, max(MIN_LINES, n_lines // SPACED_BLOCKS))
    chars, size, count = len(log), len(data), len(starts)

    def line_end(i: int) -> tuple[int, int]:  # where line i's text ends: before its "\r\n" or "\n"
        if i + 1 < count:
            end, byte_end = starts[i + 1] - 1, byte_starts[i + 1] - 1
        else:
            end, byte_end = chars, size
        if end > starts[i] and data[byte_end - 1] == 0x0D:
            return end - 1, byte_end - 1
        return end, byte_end

    units: list[Unit] = []
    lines: list[tuple[int, int]] = []
    add_unit, add_lines = units.append, lines.append
    i = k = 0
    final = n_lines - 1
    while i < n_lines:  # once per block (~16,000 on 8 MB of log): line_end is written out inline
        if blank[i]:  # a run of blank lines is in no block: on to the next line that is not blank
            i = blank.find(0, i)
            if i < 0:
                break
            continue
        while breaks[k] <= i:  # the next line that must start a block
            k += 1
        last = i + per_block - 1
        if breaks[k] <= last:
            last = breaks[k] - 1
        if last > final:
            last = final
        stop = blank.find(1, i + spaced, last + 1)  # a blank line ends the block (spaced: past its line ``spaced``)
        if stop >= 0:
            last = stop - 1
        while blank[last]:  # (spaced) no blank line last in a block: the block's first is not
            last -= 1
        start = starts[i]
        limit = start + MAX_CHARS  # lines ending within the character bound
        if last + 1 < count:
            end, byte_end = starts[last + 1] - 1, byte_starts[last + 1] - 1
        else:
            end, byte_end = chars, size
        if end > starts[last] and data[byte_end - 1] == 0x0D:
            end, byte_end = end - 1, byte_end - 1
        if end > limit and last > i:  # the last line that ends within it, or the first line alone
            last = bisect_right(starts, limit, i, last) - 1
            end, byte_end = line_end(last)
            while last > i and end > limit:
                last -= 1
                end, byte_end = line_end(last)
        add_unit(ByteUnit(start, end, end - start > FIXED_CHARS, byte_starts[i], byte_end))
        add_lines((i + 1, last + 1))
        i = last + 1
    return units, lines


def _analysis(log: LogText, n_lines: int) -> Analysis:
    from toolprune.core import steps

    found = _scan(log)
    if "analysis" not in found:
        found["analysis"] = steps.analyse(log, n_lines)
    return found["analysis"]


LOCATED_THRESHOLD = 0.5
"""In a log whose failure was located (a failing step, a test or lint summary), an unpinned block
is kept only if it scores at least this (relative to the best block): the pinned lines already
say why it failed. Chosen on the recall/size curve of bench/eval_ownlogs.py (its first ten logs; 0.2 → 0.5 → 1.0:
reduction on logs over 20,000 chars 0.77 → 0.85 → 0.89, failure lines 1.00 throughout) and held
against the shared corpus (failure lines 0.980 at 0.5, 0.978 at 0.7 and above)."""


def located_threshold(text: str | LogText) -> float:
    """The relevance score an unpinned block needs in a log whose failure was located."""
    log = known(text)
    analysis = log.found.get("analysis") if log is not None else None
    return LOCATED_THRESHOLD if analysis is not None and analysis.located else 0.0


def pinned(
    text: str | LogText,
    units: Sequence[Unit],
    lines: Sequence[tuple[int, int]],
    tail: int,
    signal: str | None,
    basis: str = "",
) -> set[int]:
    """Blocks that are never dropped: those in the last ``tail`` lines, those with a signal line
    (``signal`` replaces the default pattern) outside the steps that succeeded, with the blocks
    that continue them, and the lines :func:`toolprune.core.steps.analyse` pins (the failing
    step's header, first and last lines; test and lint summaries)."""
    import bisect

    log = as_log(text)
    starts = [u.start for u in units]
    firsts = [first for first, _ in lines]
    found = _analysis(log, len(log.starts) - (1 if log.data.endswith(b"\n") else 0))
    scanned = log.found
    quiet_blocks: set[int] = set()
    for a, b in found.quiet:  # blocks wholly inside a step that succeeded
        k = bisect.bisect_left(firsts, a + 1)
        while k < len(lines) and lines[k][1] <= b + 1:
            quiet_blocks.add(k)
            k += 1
    hits: set[int] = set()
    warnings: set[int]
    if signal:
        positions, warnings = signal_positions(log, signal), set()
    else:  # only outside the quiet blocks: their signal lines pin nothing
        positions, warnings = scan_ranges(log, _loud_ranges(log, lines, quiet_blocks))
    if not found.located:
        warnings = set()
    found_in: dict[int, list[int]] = {}  # block -> its signal positions
    for pos in positions:
        i = bisect.bisect_right(starts, pos) - 1
        if i >= 0 and pos < units[i].end and i not in quiet_blocks:
            if pos in warnings and (found.compiled or log[pos : pos + 8] == "warning:"):
                continue  # the failure was named: warnings are not it (a compiler's, once it reported an error)
            hits.add(i)
            if units[i].end - units[i].start <= MAX_CHARS:  # a longer block is one line: never a repeat
                found_in.setdefault(i, []).append(pos)
    steps_pinned: set[int] = set()
    for a, b in found.pins:  # 0-based line ranges; blocks are 1-based
        k = max(0, bisect.bisect_right(firsts, a + 1) - 1)
        while k < len(lines) and lines[k][0] <= b + 1:
            if lines[k][1] >= a + 1:
                steps_pinned.add(k)
            k += 1
    first_tail = lines[-1][1] - tail + 1 if lines else 0
    tail_blocks: set[int] = set()  # a suffix of the blocks (their last lines increase): read from the end
    k = len(lines) - 1
    while tail > 0 and k >= 0 and lines[k][1] >= first_tail:
        tail_blocks.add(k)
        k -= 1
    scanned.pop("warned", None)
    if found_in and not signal:  # a warning said again and again pins only its first blocks (--signal: all)
        from toolprune.core.repeats import repeated_warnings

        hits -= repeated_warnings(log, units, found_in, basis)
    out = with_continuations(log, lines, hits, tail_blocks)
    scanned["first_kept"] = steps_pinned
    scanned.pop("repeats", None)  # found when a bound asks for them (repeats())
    scanned["repeat_input"] = (units, lines, hits, tail_blocks, steps_pinned, out, found_in)
    return out | steps_pinned


MAX_CONTINUED = 2
"""How many blocks after a signal block an indented continuation may pin, unless the block
opens with a stack frame (:data:`FRAME`): a compiler message runs on for a few lines, a Java
stack trace for hundreds, but an indented listing after one warning line (``pip debug``'s list
of tags) is not a continuation of it."""
FRAME = re.compile(r"[ \t]*(?:\x1b\[[0-9;]*m[ \t]*)*(?:at\b|Caused by|\.\.\. \d+ more|File \")")
FRAME_LINES = 3
"""A block opens with a stack frame when one of its first this many lines is one: a Python
frame is its ``File "…"`` line, the source line and a caret line, and a block of a long
traceback opens on any of the three."""


def _opens_with_frame(log: LogText, first: int, last: int) -> bool:
    return any(FRAME.match(log.line(j)) for j in range(first - 1, min(first - 1 + FRAME_LINES, last)))


def with_continuations(log: LogText, lines: Sequence[tuple[int, int]], hits: set[int], tail: set[int]) -> set[int]:
    """The ``tail`` blocks, the ``hits``, and the blocks that continue a hit (at most
    ``MAX_CONTINUED``): a traceback or a compiler message keeps its continuation lines in the
    blocks after it."""
    out = set(tail)
    for i in sorted(hits):
        if i in tail:
            continue
        out.add(i)
        k = i + 1
        while k < len(lines) and k not in tail and k not in hits and lines[k - 1][1] + 1 == lines[k][0]:
            first = log.line(lines[k][0] - 1)
            if CONTINUATION.match(first) is None or (k > i + MAX_CONTINUED and not _opens_with_frame(log, *lines[k])):
                break
            out.add(k)
            k += 1
    return out


def _loud_ranges(log: LogText, lines: Sequence[tuple[int, int]], quiet: set[int]) -> list[tuple[int, int]]:
    """The character ranges of the runs of blocks outside ``quiet``, each from its first line's
    start to the start of the line after its last."""
    starts, n = log.starts, len(log)
    out: list[tuple[int, int]] = []
    k = 0
    while k < len(lines):
        if k in quiet:
            k += 1
            continue
        first = k
        while k + 1 < len(lines) and k + 1 not in quiet:
            k += 1
        last_line = lines[k][1]  # 1-based: the 0-based index of the line after it
        out.append((starts[lines[first][0] - 1], starts[last_line] if last_line < len(starts) else n))
        k += 1
    return out


def first_kept(text: str | LogText) -> set[int]:
    """Of the pinned blocks of ``text`` (the last one given to :func:`pinned`), those that name
    the failure: the failing step's header, first and last lines, the summaries. A bound keeps
    them before other signal blocks."""
    log = known(text)
    return log.found.get("first_kept", set()) if log is not None else set()

"""Line blocks (SPEC §4 step 6): units for logs and other output without blank lines.

When the blank-line split is too coarse to prune (a CI log is one paragraph of 5,000 lines),
the text is cut into blocks of consecutive lines instead: at most ``MAX_LINES`` lines and
``MAX_CHARS`` characters, breaking preferably where the log shows its own structure (CI group
markers, test-runner section rules, build-tool task headers). The last ``tail`` lines form
blocks of their own, and blocks holding a *signal* line (an error, a failure, a traceback) are
*pinned*: never dropped, whatever their score. A carriage return inside a line (progress bars)
does not end the line; ANSI colour codes are ignored when matching.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from toolprune.core.text import FIXED_CHARS, Unit

MAX_LINES = 40
MAX_CHARS = 2_000
COARSE_MIN_CHARS = 8_000
COARSE_MIN_UNITS = 8
COARSE_MEDIAN_CHARS = 1_500
DEFAULT_TAIL = 20

# Lines where a log starts a new section: GitHub Actions groups, Jenkins stages, Travis folds,
# pytest and other section rules, Maven/Gradle task headers, make's directory changes.
STRUCTURE = re.compile(
    r"^(?:\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z ?)?(?:\x1b\[[0-9;]*m)*[ \t]*(?:##\[(?:group|endgroup|section)\]|::(?:end)?group::|\[Pipeline\]"
    r"|travis_fold:|travis_time:end|={5,}|_{5,}|-{5,}|\*{5,}|\[INFO\] -{5,}|\[INFO\] --- |> Task "
    r"|make(?:\[\d+\])?: (?:Entering|Leaving) directory|\$ )",
    re.M,
)
# The default signal, matched on lower-cased text (case-insensitive matching is several times
# slower): failure words with word boundaries and without a zero count ("Failures: 0", "0 errors"),
# then fixed phrases, then patterns anchored at a line start.
_SIGNAL_WORDS = re.compile(
    "errors?|failed|failures?|fatal|panic(?:ked)?|exception|traceback|segmentation fault|assertionerror|aborted"
)
_SIGNAL_PHRASES = re.compile(
    r"##\[error\]|npm err!|error(?:\[e\d+\])?:|exit(?:ed)?(?: with)? (?:code|status):? *[1-9]|non-zero exit"
    r"|build failed|warning:|no such file or directory|command not found|\(severity: *\d\)"
)
# ``path/file.ext:line:[col:] `` at a line start: a run of path characters holding a letter
# before its last dot, which ends in ``.ext``. Written so that it cannot backtrack over a long
# run (a JWT or a hash at a line start took quadratic time): the lookahead finds the first
# letter and the dot after it in one forward pass, and ``\.\w+:`` can only start at a dot.
# ``e`` and two or more blanks (whitespace short of a line break): pytest's assertion lines.
_SIGNAL_LINES = re.compile(
    r"\n(?:\x1b\[[0-9;]*m)*(?:e[^\S\n]{2,}|(?=(?:[^\Wa-z]|[./\\-])*[a-z][\w/\\-]*\.)[\w./\\-]*\.\w+:\d+:(?:\d+:)? |offenses:)"
)
_SIGNAL_FIRST_LINE = re.compile(_SIGNAL_LINES.pattern[2:])  # the same for the first line (no "\n" before it)
_ZERO_AFTER = re.compile(r":?[ \t]*0\b")  # "errors: 0" on the same line (never the next line's "0")


def _word_char(char: str) -> bool:
    return char.isalnum() or char in "_-"


_ANSI_BEFORE = re.compile(r"\x1b\[[0-9;]*m$")


CHUNK = 1 << 20
"""Large inputs are scanned in pieces of about this many characters, cut after a line break, so
that no scan holds a second copy of the whole input."""


def pieces(text: str, size: int | None = None):
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


def signal_positions(text: str, signal: str | None = None) -> list[int]:
    """Where signal lines match in ``text`` (ANSI colour codes ignored)."""
    if signal:
        if "\x1b" in text:  # blank the codes out, keeping every position
            text = _ANSI.sub(lambda m: " " * (m.end() - m.start()), text)
        return [m.start() for m in re.compile(signal, re.M).finditer(text)]
    out: list[int] = []
    for offset, piece in pieces(text):  # signal lines never span a line break
        out += [offset + pos for pos in _default_signals(piece)]
    return out


def _default_signals(text: str) -> list[int]:
    low = text.lower()
    if len(low) != len(text):  # a character whose lower case is longer: match case-insensitively
        return [m.start() for m in re.compile(_SIGNAL_WORDS.pattern + "|" + _SIGNAL_PHRASES.pattern, re.I).finditer(text)]
    out = []
    for m in _SIGNAL_WORDS.finditer(low):
        a, b = m.span()
        if a and _word_char(low[a - 1]) and not (low[a - 1] == "m" and _ANSI_BEFORE.search(low, max(0, a - 12), a)):
            continue  # inside a longer word (a colour code just before it is not a word)
        if b < len(low) and _word_char(low[b]):
            continue
        if low[max(0, a - 2) : a] == "0 " or _ZERO_AFTER.match(low, b):
            continue
        out.append(a)
    out += [m.start() for m in _SIGNAL_PHRASES.finditer(low)]
    out += [m.start() + 1 for m in _SIGNAL_LINES.finditer(low)]  # the line after the "\n"
    if _SIGNAL_FIRST_LINE.match(low):
        out.append(0)
    return out


# A line that continues the one before it: indented (stack frames, compiler context, pytest
# source lines), or a Java/JS frame, a "Caused by", an elision.
CONTINUATION = re.compile(r"(?:\x1b\[[0-9;]*m)*(?:[ \t]|at |Caused by|\.\.\. \d+ more|\^)")
LOGLIKE_MIN_LINES = 200
LOGLIKE_MEDIAN_LINE = 200
LOGLIKE_MAX_INDENTED = 0.9
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")


def coarse(text: str, units: Sequence[Unit]) -> bool:
    """Should the input be cut into line blocks? Yes for an input over 8,000 chars when the
    blank-line split gives fewer than 8 prunable units, when their median is over 1,500 chars,
    or when units too large to score (over 6,000 chars, always kept) hold half of the text; and
    for output that reads like a log: at least 200 lines, short ones (median up to 200 chars),
    no fenced code."""
    if len(text) <= COARSE_MIN_CHARS:
        return False
    if loglike(text, units):
        return True
    sizes = sorted(u.chars for u in units if not u.fixed)
    if len(sizes) < COARSE_MIN_UNITS or sizes[len(sizes) // 2] > COARSE_MEDIAN_CHARS:
        return True
    return sum(u.chars for u in units if u.fixed) * 2 > len(text)


def loglike(text: str, units: Sequence[Unit] = ()) -> bool:
    """At least 200 lines, short ones (median up to 200 chars), no fenced code, and not nearly
    all indented: man pages and pydoc indent almost every line (98 %+), the 81 CI and system
    logs of the evaluation corpus at most 77 % of theirs."""
    if text.count("\n") < LOGLIKE_MIN_LINES or "```" in text or "~~~" in text:
        return False
    lines = [line for line in _sample(text).split("\n") if line.strip()]
    lengths = sorted(map(len, lines))
    if len(lengths) < LOGLIKE_MIN_LINES // 2 or lengths[len(lengths) // 2] > LOGLIKE_MEDIAN_LINE:
        return False
    indented = sum(1 for line in lines if line[:1] in " \t")
    return indented < LOGLIKE_MAX_INDENTED * len(lines)


LOGLIKE_SAMPLE = 1 << 19
LOGLIKE_WINDOWS = 32


def _sample(text: str) -> str:
    """The text, or for a large one the whole lines of ``LOGLIKE_WINDOWS`` evenly spaced windows
    (a fixed choice: the same text gives the same sample)."""
    if len(text) <= LOGLIKE_SAMPLE:
        return text
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


_BLANK_LINE = re.compile(r"\n[^\S\n]*(?=\n|\Z)")
_BLANK_FIRST = re.compile(r"[^\S\n]*(?=\n|\Z)")
_STRUCTURE_NL = re.compile("\n" + STRUCTURE.pattern[1:])


def split_lines(text: str, tail: int = DEFAULT_TAIL) -> tuple[list[Unit], list[tuple[int, int]]]:
    """Blocks of lines, and for each block its first and last line number (1-based).

    A block is at most ``MAX_LINES`` lines and spans at most ``MAX_CHARS`` characters (line
    breaks included; a longer single line is a block of its own); a blank line ends it and is in
    no block; a structure line and the first line of the tail start a new one. The work is done
    per block, not per line: line starts, blank lines and structure lines are found by C-speed
    scans and the block ends by bisection."""
    from bisect import bisect_right

    starts = line_starts(text)
    n_lines = len(starts) - (1 if text.endswith("\n") else 0)  # no line after a final break
    # a match of "\n…" at q is about the line starting at q + 1; the first line is looked at alone
    blank = {bisect_right(starts, m.start() + 1) - 1 for m in _BLANK_LINE.finditer(text)}
    structure = {bisect_right(starts, m.start() + 1) - 1 for m in _STRUCTURE_NL.finditer(text)}
    if _BLANK_FIRST.match(text):
        blank.add(0)
    if STRUCTURE.match(text):
        structure.add(0)
    found = _analysis(text, starts, n_lines)
    edges = {a for a, _ in found.pins} | {b + 1 for _, b in found.pins}  # pinned lines make blocks of their own
    breaks = sorted(structure | blank | edges | {max(0, n_lines - tail)})

    def line_end(i: int) -> int:
        end = starts[i + 1] - 1 if i + 1 < len(starts) else len(text)
        return end - 1 if end > starts[i] and text[end - 1] == "\r" else end

    units: list[Unit] = []
    lines: list[tuple[int, int]] = []
    i = 0
    while i < n_lines:
        if i in blank:
            i += 1
            continue
        last = min(i + MAX_LINES - 1, n_lines - 1)
        k = bisect_right(breaks, i)  # the next line that must start a block
        if k < len(breaks):
            last = min(last, breaks[k] - 1)
        limit = starts[i] + MAX_CHARS  # lines ending within the character bound
        j = bisect_right(starts, limit) - 1
        while j > i and line_end(j) > limit:
            j -= 1
        last = max(i, min(last, j))
        start, end = starts[i], line_end(last)
        units.append(Unit(start, end, end - start > FIXED_CHARS))
        lines.append((i + 1, last + 1))
        i = last + 1
    return units, lines


_last: list = [None]  # (the text analysed last, its analysis): split_lines, then pinned


def _analysis(text: str, starts: Sequence[int], n_lines: int):
    from toolprune.core import steps

    cached = _last[0]  # one reference read and written at once: threads never mix two texts
    if cached is None or cached[0] is not text:
        cached = _last[0] = (text, steps.analyse(text, starts, n_lines))
    return cached[1]


LOCATED_THRESHOLD = 0.5
"""In a log whose failure was located (a failing step, a test or lint summary), an unpinned block
is kept only if it scores at least this (relative to the best block): the pinned lines already
say why it failed. Chosen on the recall/size curve of bench/eval_ownlogs.py (its first ten logs; 0.2 → 0.5 → 1.0:
reduction on logs over 20,000 chars 0.77 → 0.85 → 0.89, failure lines 1.00 throughout) and held
against the shared corpus (failure lines 0.980 at 0.5, 0.978 at 0.7 and above)."""


def located_threshold(text: str) -> float:
    """The relevance score an unpinned block needs in a log whose failure was located."""
    cached = _last[0]
    return LOCATED_THRESHOLD if cached is not None and cached[0] is text and cached[1].located else 0.0


def pinned(
    text: str, units: Sequence[Unit], lines: Sequence[tuple[int, int]], tail: int, signal: str | None
) -> set[int]:
    """Blocks that are never dropped: those in the last ``tail`` lines, those with a signal line
    (``signal`` replaces the default pattern) outside the steps that succeeded, with the blocks
    that continue them, and the lines :func:`toolprune.core.steps.analyse` pins (the failing
    step's header, first and last lines; test and lint summaries)."""
    import bisect

    starts = [u.start for u in units]
    firsts = [first for first, _ in lines]
    cached = _last[0]
    if cached is not None and cached[0] is text:
        found = cached[1]
    else:
        line_at = line_starts(text)
        found = _analysis(text, line_at, len(line_at) - (1 if text.endswith("\n") else 0))
    quiet_blocks: set[int] = set()
    for a, b in found.quiet:  # blocks wholly inside a step that succeeded
        k = bisect.bisect_left(firsts, a + 1)
        while k < len(lines) and lines[k][1] <= b + 1:
            quiet_blocks.add(k)
            k += 1
    hits: set[int] = set()
    for pos in signal_positions(text, signal):
        i = bisect.bisect_right(starts, pos) - 1
        if i >= 0 and pos < units[i].end and i not in quiet_blocks:
            if found.located and not signal and text.startswith("warning:", pos):
                continue  # the failure was named: a compiler's warnings are not it
            hits.add(i)
    steps_pinned: set[int] = set()
    for a, b in found.pins:  # 0-based line ranges; blocks are 1-based
        k = max(0, bisect.bisect_right(firsts, a + 1) - 1)
        while k < len(lines) and lines[k][0] <= b + 1:
            if lines[k][1] >= a + 1:
                steps_pinned.add(k)
            k += 1
    first_tail = lines[-1][1] - tail + 1 if lines else 0
    out: set[int] = set()
    follows = False  # the block before was pinned for a signal
    for i, (unit, (first, last)) in enumerate(zip(units, lines)):
        if tail > 0 and last >= first_tail:
            out.add(i)
            continue
        # a traceback or compiler message keeps its continuation lines in the blocks after it
        follows = i in hits or (
            follows and lines[i - 1][1] + 1 == first and CONTINUATION.match(text, unit.start) is not None
        )
        if follows:
            out.add(i)
    _first_kept[0] = (text, steps_pinned)
    return out | steps_pinned


_first_kept: list = [None]


def first_kept(text: str) -> set[int]:
    """Of the pinned blocks of ``text`` (the last one given to :func:`pinned`), those that name
    the failure: the failing step's header, first and last lines, the summaries. A bound keeps
    them before other signal blocks."""
    cached = _first_kept[0]
    return cached[1] if cached is not None and cached[0] is text else set()

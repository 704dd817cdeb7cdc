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
    r"^(?:\x1b\[[0-9;]*m)*\s*(?:##\[(?:group|endgroup|section)\]|::(?:end)?group::|\[Pipeline\]"
    r"|travis_fold:|travis_time:end|={5,}|_{5,}|-{5,}|\*{5,}|\[INFO\] -{5,}|\[INFO\] --- |> Task "
    r"|make(?:\[\d+\])?: (?:Entering|Leaving) directory|\$ )",
    re.M,
)
DEFAULT_SIGNAL = (
    r"(?i)(?<![\w-])(?<!\b0 )(?:errors?|failed|failures?|fatal|panic(?:ked)?|exception|traceback|"
    r"segmentation fault|assertionerror|aborted)(?![\w-])(?!:?\s*0\b)"
    r"|##\[error\]|npm ERR!|\berror(?:\[E\d+\])?:|exit(?:ed)?(?: with)? (?:code|status):? *[1-9]"
    r"|non-zero exit|BUILD FAILED|FAILED\b|^E\s{2,}|^\S+:\d+:(?:\d+:)? |\bwarning:"
    r"|no such file or directory|command not found|\(severity: *\d\)|^offenses:"
)
# A line that continues the one before it: indented (stack frames, compiler context, pytest
# source lines), or a Java/JS frame, a "Caused by", an elision.
CONTINUATION = re.compile(r"(?:\x1b\[[0-9;]*m)*(?:[ \t]|at |Caused by|\.\.\. \d+ more|\^)")
LOGLIKE_MIN_LINES = 200
LOGLIKE_MEDIAN_LINE = 200
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")


def coarse(text: str, units: Sequence[Unit]) -> bool:
    """Should the input be cut into line blocks? Yes for an input over 8,000 chars when the
    blank-line split gives fewer than 8 prunable units, when their median is over 1,500 chars,
    or when units too large to score (over 6,000 chars, always kept) hold half of the text; and
    for output that reads like a log: at least 200 lines, short ones (median up to 200 chars),
    no fenced code."""
    if len(text) <= COARSE_MIN_CHARS:
        return False
    if loglike(text):
        return True
    sizes = sorted(u.chars for u in units if not u.fixed)
    if len(sizes) < COARSE_MIN_UNITS or sizes[len(sizes) // 2] > COARSE_MEDIAN_CHARS:
        return True
    return sum(u.chars for u in units if u.fixed) * 2 > len(text)


def loglike(text: str) -> bool:
    if text.count("\n") < LOGLIKE_MIN_LINES or "```" in text or "~~~" in text:
        return False
    lengths = sorted(len(line) for line in text.split("\n") if line.strip())
    return bool(lengths) and len(lengths) >= LOGLIKE_MIN_LINES // 2 and lengths[len(lengths) // 2] <= LOGLIKE_MEDIAN_LINE


def split_lines(text: str, tail: int = DEFAULT_TAIL) -> tuple[list[Unit], list[tuple[int, int]]]:
    """Blocks of lines, and for each block its first and last line number (1-based)."""
    starts = [0]
    find = text.find
    pos = find("\n")
    while pos >= 0:
        starts.append(pos + 1)
        pos = find("\n", pos + 1)
    n_lines = len(starts)
    if text.endswith("\n"):
        n_lines -= 1  # the empty string after the final line break is not a line
    tail_from = max(0, n_lines - tail)
    structure = STRUCTURE.match

    units: list[Unit] = []
    lines: list[tuple[int, int]] = []
    block_start = -1  # first line of the open block
    block_chars = 0

    def line_end(i: int) -> int:
        end = starts[i + 1] - 1 if i + 1 < len(starts) else len(text)
        return end - 1 if end > starts[i] and text[end - 1] == "\r" else end

    def close(last: int) -> None:
        start, end = starts[block_start], line_end(last)
        units.append(Unit(start, end, end - start > FIXED_CHARS))
        lines.append((block_start + 1, last + 1))

    for i in range(n_lines):
        s = starts[i]
        e = line_end(i)
        blank = not text[s:e].strip()
        if block_start >= 0:
            size = e - s
            if (
                blank
                or i == tail_from
                or i - block_start >= MAX_LINES
                or block_chars + size > MAX_CHARS
                or structure(text, s) is not None
            ):
                close(i - 1)
                block_start = -1
        if blank:
            continue
        if block_start < 0:
            block_start, block_chars = i, 0
        block_chars += e - s + 1
    if block_start >= 0:
        close(n_lines - 1)
    return units, lines


def pinned(text: str, units: Sequence[Unit], lines: Sequence[tuple[int, int]], tail: int, signal: str | None) -> set[int]:
    """Blocks that are never dropped: those in the last ``tail`` lines, and those with a signal
    line (``signal`` replaces the default pattern)."""
    pattern = re.compile(signal if signal else DEFAULT_SIGNAL, re.M)
    if lines:
        last_line = lines[-1][1]
        first_tail = last_line - tail + 1
    out = set()
    follows = False  # the block before was pinned for a signal
    for i, (unit, (first, last)) in enumerate(zip(units, lines)):
        if tail > 0 and last >= first_tail:
            out.add(i)
            continue
        block = text[unit.start : unit.end]
        if "\x1b" in block:
            block = _ANSI.sub("", block)
        # a traceback or compiler message keeps its continuation lines in the blocks after it
        follows = pattern.search(block) is not None or (
            follows and CONTINUATION.match(block) is not None and lines[i - 1][1] + 1 == first
        )
        if follows:
            out.add(i)
    return out

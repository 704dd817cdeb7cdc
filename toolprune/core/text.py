"""The text shape: split a document into units.

Units are half-open character spans ``[start, end)`` of the text. The text between two units
(blank lines, or the single line break around a fenced block) is never part of a unit, so a
kept unit is always a verbatim slice and a run of dropped units can be replaced by a marker
without touching its neighbours.
"""

from __future__ import annotations

import re
from array import array

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from collections.abc import Iterator

    # LogText (plain text read from its bytes) is built on Unit: named in annotations only
    from toolprune.core.logtext import LogText

    _Event = tuple[int, int, str | None, int, str, bool, int]  # see _events

FIXED_CHARS = 6000
"""A unit longer than this is never scored, never merged and always kept."""
MERGE_BELOW = 120
"""A unit shorter than this is merged into the next unit (the previous one at the end)."""

_FENCE_OPEN = re.compile(r" {0,3}(`{3,}|~{3,})")


class Unit:
    """A half-open character span; ``fixed`` units are never scored and always kept."""

    __slots__ = ("start", "end", "fixed")

    def __init__(self, start: int, end: int, fixed: bool = False) -> None:
        self.start = start
        self.end = end
        self.fixed = fixed

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Unit) and (self.start, self.end, self.fixed) == (other.start, other.end, other.fixed)

    def __repr__(self) -> str:
        return f"Unit({self.start}, {self.end}, fixed={self.fixed})"

    @property
    def chars(self) -> int:
        return self.end - self.start


class ByteUnit(Unit):
    """A unit of a LogText (``core/logtext.py``) that also knows its byte span in the input."""

    __slots__ = ("byte_start", "byte_end")

    def __init__(self, start: int, end: int, fixed: bool, byte_start: int, byte_end: int) -> None:
        self.start = start
        self.end = end
        self.fixed = fixed
        self.byte_start = byte_start
        self.byte_end = byte_end


def _closes(line: str, fence: str) -> bool:
    stripped = line.strip()
    return (
        len(stripped) >= len(fence)
        and stripped[0] == fence[0]
        and stripped.rstrip(fence[0]) == ""
        and len(line) - len(line.lstrip(" ")) <= 3
    )


def _underline(line: str, marker: str, title: str, after: str = "") -> bool:
    """Is a fence-like line right under the first line of a paragraph the underline of a title?
    A line of nothing but tildes, at least as long as the one line above it, underlines a
    reStructuredText title ("Usage" over "~~~~~"); read as a fence it would never close, and the
    rest of the document would be one block. Backticks underline titles too ("Event Listening"
    over fifteen of them, in pybreaker's README): read as fences they paired with each other and
    swallowed whole sections. Markdown opens fences right under text often, of three or four
    backticks under a longer line (``foo();`` then a fence), and of tildes under a longer line:
    those stay fences, and so does any fence under a title of fewer than ``UNDERLINED_TITLE``
    characters ("tox" over three backticks), or followed by anything but a blank line or the end
    (``after``: the line after it): an rST title stands over a blank line, and a Markdown fence
    opened under a lead-in ("Use:" over four backticks, a nested fence) over its code."""
    title = title.rstrip("\r\n").strip()
    if "\n" in title or not title or len(line.strip()) < len(title):
        return False
    if marker[0] == "~":
        return not line.strip(" \t\r~")
    return marker[0] == "`" and not line.strip(" \t\r`") and len(title) >= UNDERLINED_TITLE and not after.strip()


UNDERLINED_TITLE = 4
"""The shortest title a line of backticks underlines (see ``_underline``)."""


def _next_line(text: str, end: int) -> str:
    """The line after the one ending at ``end`` ("" at the end of the text)."""
    stop = text.find("\n", end + 1)
    return text[end + 1 : stop if stop >= 0 else len(text)]


# A blank line, or a line that may open or close a fence. Every other line is paragraph text, so
# the loop below runs once per blank or fence line, not once per line: a log of a million lines
# without blank lines is one regular-expression scan.
_EVENT = re.compile(r"^(?:[^\S\n]*$| {0,3}(`{3,}|~{3,})[^\n]*)", re.M)
# The same after a line break: a literal first character lets the engine skip ahead quickly, and
# the lookahead passes over a line that starts with neither white space nor a fence character in
# one test (most lines of a log; ~20 % of this scan).
_NEXT_EVENT = re.compile(r"\n(?=[\s`~]|\Z)(?:[^\S\n]*(?=\n|\Z)| {0,3}(`{3,}|~{3,})[^\n]*)")
# The same, but a blank line's match runs on over the blank lines after it: a run of them is one
# match (a text of a million empty lines is not a million matches).
_NEXT_RUN = re.compile(r"\n(?=[\s`~]|\Z)(?:[^\S\n]*(?:\n[^\S\n]*)*(?=\n|\Z)| {0,3}(`{3,}|~{3,})[^\n]*)")


def _events(text: str) -> Iterator[_Event]:
    """(line start, line content end, fence marker or None, the marker's end, the line, whether
    the line before ends with ``\r``, -1) for the blank and fence-like lines of a str."""
    first = _EVENT.match(text)
    if first is not None:
        yield first.start(), first.end(), first.group(1), first.end(1), first.group(), False, -1
    for match in _NEXT_EVENT.finditer(text):
        at = match.start()
        yield (at + 1, match.end(), match.group(1), match.end(1), match.group()[1:],
               at > 0 and text[at - 1] == "\r", -1)


def blank_lines(log: LogText) -> array[int]:
    """The numbers (0-based, in order) of the lines of ``log`` that hold only white space. Kept in
    ``log.found`` for its line blocks (``core/lines.py``), which would otherwise scan for them."""
    return _line_events(log)[0]


def _line_events(log: LogText) -> tuple[array[int], list[int]]:
    """The numbers of the blank lines and of the fence-like lines of ``log``, in order, from one
    scan of its pieces with the patterns :func:`_events` uses (each piece after the first starts
    with the line break before it). Kept in ``log.found``."""
    found = log.found
    if "fence_lines" in found:
        return found["blank_lines"], found["fence_lines"]
    from bisect import bisect_right

    starts, n = log.starts, len(log)
    blank = array(log.byte_starts.typecode)
    fences: list[int] = []
    for k, (offset, piece) in enumerate(log.pieces()):
        if k == 0:  # (a second piece starts at 0 too when the first line is empty: it is the line break)
            first = _EVENT.match(piece)
            if first is not None:
                (blank if first.group(1) is None else fences).append(0)
        last, size = offset + len(piece) >= n, len(piece)
        after = number = -1  # where the previous match ended (at its line's break), and its last line
        for match in _NEXT_RUN.finditer(piece):
            at, end = match.start(), match.end()
            # a piece's final break: the next piece's first line decides about the line after it
            lines = piece.count("\n", at, end) if match.group(1) is None else 1
            if not last and end == size:
                lines -= 1
            if lines <= 0:
                continue
            # a match that starts where the previous one ended is on the next line
            line = number + 1 if at == after else bisect_right(starts, offset + at + 1) - 1
            number, after = line + lines - 1, end
            if match.group(1) is None:
                blank.extend(range(line, line + lines))
            else:
                fences.append(line)
    found["blank_lines"], found["fence_lines"] = blank, fences
    return blank, fences


def _content_end(text: str | LogText, end: int) -> int:
    """``end`` moved before a ``\r`` that ends the line (CRLF documents)."""
    if isinstance(text, str):
        return end - 1 if end > 0 and text[end - 1] == "\r" else end
    return end - 1 if end > 0 and text.data[text.byte_offset(end) - 1] == 0x0D else end


def _last_content(text: str | LogText) -> int:
    """Where the text ends without its trailing white space (``len(text.rstrip())``)."""
    if isinstance(text, str):
        return len(text.rstrip())
    for i in range(len(text.starts) - 1, -1, -1):
        line = text.line(i).rstrip()
        if line:
            return text.starts[i] + len(line)
    return 0


def _next_break(text: str | LogText, pos: int) -> int:
    """``text.find("\n", pos)``."""
    if isinstance(text, str):
        return text.find("\n", pos)
    from bisect import bisect_right

    k = bisect_right(text.starts, pos)
    return text.starts[k] - 1 if k < len(text.starts) else -1


def _blocks(text: str | LogText) -> list[tuple[int, int, int, int]]:
    """Maximal runs of non-blank lines, with each fenced code block as one run of its own: their
    character spans, and for a LogText their byte spans too (else -1, -1).

    A block ends before its last line break (and before a ``\\r`` that precedes it), so CRLF
    documents keep their line endings in the separators.
    """
    if not isinstance(text, str):
        return _log_blocks(text)
    blocks: list[tuple[int, int, int, int]] = []
    para_from = 0  # where the current run of paragraph lines starts
    fence = ""  # the opening fence while inside a fenced block
    fence_start = 0
    for start, end, marker, marker_end, line, cr, _ in _events(text):
        if fence:
            if marker is not None and _closes(line, fence):
                blocks.append((fence_start, end - 1 if line.endswith("\r") else end, -1, -1))
                fence = ""
                para_from = end + 1
            continue
        if marker is not None and marker[0] == "`" and "`" in line[marker_end - start :]:
            continue  # ```inline``` code: an ordinary line
        if (
            marker is not None and start > para_from and text.find("\n", para_from, start - 1) < 0
            and _underline(line, marker, text[para_from : start - 1], _next_line(text, end))
        ):
            continue  # a title's underline: an ordinary line
        if start > para_from:  # the paragraph ends before the break (and a "\r") ending the line before
            blocks.append((para_from, start - 2 if cr else start - 1, -1, -1))
        if marker is None:  # a blank line
            para_from = end + 1
        else:
            fence, fence_start = marker, start
    if fence:  # an unclosed fence runs to the end of its last non-blank line
        last = _last_content(text)
        newline = _next_break(text, last)
        blocks.append((fence_start, _content_end(text, len(text) if newline < 0 else newline), -1, -1))
    elif para_from < len(text):
        blocks.append((para_from, _content_end(text, len(text)), -1, -1))
    return blocks


def _log_blocks(log: LogText) -> list[tuple[int, int, int, int]]:
    """:func:`_blocks` of a LogText, from its line table: the blank lines and the fence-like
    lines (:func:`_line_events`; the latter rare in a log) are visited in order, with no object
    made per line, and a block's bytes are read from the table."""
    starts, table, data = log.starts, log.byte_starts, log.data
    chars, size, count = len(log), len(data), len(starts)
    blank, fences = _line_events(log)
    fence_set = set(fences)
    blocks: list[tuple[int, int, int, int]] = []
    para_from = byte_from = 0  # where the current run of paragraph lines starts, in chars and bytes
    fence = ""  # the opening fence while inside a fenced block
    fence_start = byte_fence = 0
    for number in sorted([*blank, *fences]) if fences else blank:
        start = starts[number]
        if number in fence_set:
            end = starts[number + 1] - 1 if number + 1 < count else chars  # before the line's break
            line = log.line(number)
            line = line[:-1] if line.endswith("\n") else line
            indent = len(line) - len(line.lstrip(" "))
            marker = line[indent] * (len(line) - indent - len(line[indent:].lstrip(line[indent])))
            if fence:
                if _closes(line, fence):
                    stop = end - 1 if line.endswith("\r") else end
                    after = table[number + 1] if number + 1 < count else size + 1  # the next line's start
                    blocks.append((fence_start, stop, byte_fence, after - 1 - (end - stop)))
                    byte_from = after
                    fence = ""
                    para_from = end + 1
                continue
            if marker[0] == "`" and "`" in line[indent + len(marker) :]:
                continue  # ```inline``` code: an ordinary line
            if (
                number and starts[number - 1] == para_from
                and _underline(line, marker, log.line(number - 1), log.line(number + 1) if number + 1 < count else "")
            ):
                continue  # a title's underline: an ordinary line
        elif fence:
            continue  # a blank line inside a fenced block
        else:
            marker = ""
        if start > para_from:  # the paragraph ends before the break (and a "\r") ending the line before
            at = table[number]
            cr = at >= 2 and data[at - 2] == 0x0D
            blocks.append((para_from, start - 2 if cr else start - 1, byte_from, at - (2 if cr else 1)))
        if not marker and number + 1 < count:  # a blank line: the next paragraph starts after it
            para_from, byte_from = starts[number + 1], table[number + 1]
        elif not marker:
            para_from, byte_from = chars + 1, size + 1
        else:
            fence, fence_start, byte_fence = marker, start, table[number]
    if fence:  # an unclosed fence runs to the end of its last non-blank line
        last = _last_content(log)
        newline = _next_break(log, last)
        stop = _content_end(log, len(log) if newline < 0 else newline)
        blocks.append((fence_start, stop, byte_fence, log.byte_offset(stop)))
    elif para_from < chars:
        stop = _content_end(log, chars)
        blocks.append((para_from, stop, byte_from, log.byte_offset(stop)))
    return blocks


def split_text(text: str | LogText, blocks: list[tuple[int, int, int, int]] | None = None) -> list[Unit]:
    """Split ``text`` into numbered units: fences, blank lines, fixed units, small-unit merges.
    ``blocks``: the text's :func:`_blocks`, when they were made already."""
    if blocks is None:
        blocks = _blocks(text)
    if isinstance(text, str):
        units = [Unit(s, e, e - s > FIXED_CHARS) for s, e, _, _ in blocks]
    else:  # a LogText's units know their bytes
        units = [ByteUnit(s, e, e - s > FIXED_CHARS, bs, be) for s, e, bs, be in blocks]
    merged: list[Unit] = []
    pending: Unit | None = None
    for unit in units:
        if pending is not None:
            if not unit.fixed and unit.end - pending.start <= FIXED_CHARS:
                unit = _joined(pending, unit)
            else:
                merged.append(pending)
            pending = None
        if not unit.fixed and unit.chars < MERGE_BELOW:
            pending = unit
        else:
            merged.append(unit)
    if pending is not None:
        last = merged[-1] if merged else None
        if last is not None and not last.fixed and pending.end - last.start <= FIXED_CHARS:
            merged[-1] = _joined(last, pending)
        else:
            merged.append(pending)
    return merged


def _joined(first: Unit, second: Unit) -> Unit:
    """One unit from the start of ``first`` to the end of ``second`` (never fixed)."""
    if type(first) is ByteUnit:
        assert isinstance(second, ByteUnit)  # the units of one split are all of one class
        return ByteUnit(first.start, second.end, False, first.byte_start, second.byte_end)
    return Unit(first.start, second.end)

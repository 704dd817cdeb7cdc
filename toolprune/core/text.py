"""The text shape: split a document into units (SPEC §4, steps 1–5).

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


# A blank line, or a line that may open or close a fence. Every other line is paragraph text, so
# the loop below runs once per blank or fence line, not once per line: a log of a million lines
# without blank lines is one regular-expression scan.
_EVENT = re.compile(r"^(?:[^\S\n]*$| {0,3}(`{3,}|~{3,})[^\n]*)", re.M)
# The same after a line break: a literal first character lets the engine skip ahead quickly.
_NEXT_EVENT = re.compile(r"\n(?:[^\S\n]*(?=\n|\Z)| {0,3}(`{3,}|~{3,})[^\n]*)")


def _events(text: str | LogText) -> Iterator[_Event]:
    """(line start, line content end, fence marker or None, the marker's end, the line, whether
    the line before ends with ``\r``, the line's number or -1) for blank and fence-like lines.
    A LogText is read piece by piece (each piece after the first starts with the line break
    before it), and its lines are numbered so that their bytes are found in its line table."""
    if isinstance(text, str):
        first = _EVENT.match(text)
        if first is not None:
            yield first.start(), first.end(), first.group(1), first.end(1), first.group(), False, -1
        for match in _NEXT_EVENT.finditer(text):
            at = match.start()
            yield (at + 1, match.end(), match.group(1), match.end(1), match.group()[1:],
                   at > 0 and text[at - 1] == "\r", -1)
        return
    from bisect import bisect_right

    n = len(text)
    cr = False  # the last line of the piece before ends with "\r"
    for offset, piece in text.pieces():
        if offset == 0:
            first = _EVENT.match(piece)
            if first is not None:
                yield first.start(), first.end(), first.group(1), first.end(1), first.group(), False, 0
            line = 0  # the number of the line after the break at counted - 1
        else:
            line = bisect_right(text.starts, offset + 1) - 2
        counted = 0
        last = offset + len(piece) >= n
        for match in _NEXT_EVENT.finditer(piece):
            if last or match.end() < len(piece):  # a piece's final break: the next piece's first line decides
                group, at = match.group(1), match.start()
                line += piece.count("\n", counted, at + 1)
                counted = at + 1
                yield (offset + at + 1, offset + match.end(), group, offset + match.end(1) if group else -1,
                       match.group()[1:], piece[at - 1] == "\r" if at > 0 else cr, line)
        cr = piece[-2:-1] == "\r"


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
    blocks: list[tuple[int, int, int, int]] = []
    para_from = 0  # where the current run of paragraph lines starts
    fence = ""  # the opening fence while inside a fenced block
    fence_start = 0
    # a LogText's line table, and the byte offsets of para_from and fence_start
    table = None if isinstance(text, str) else text.byte_starts
    size = 0 if isinstance(text, str) else len(text.data)
    byte_from = byte_fence = 0
    # a LogText's blank lines (their numbers), kept for its line blocks (``core/lines.py``), which
    # would otherwise scan the text once more for them
    blank = None if table is None else array(table.typecode)
    for start, end, marker, marker_end, line, cr, number in _events(text):
        if marker is None and blank is not None:
            blank.append(number)
        if fence:
            if marker is not None and _closes(line, fence):
                stop = end - 1 if line.endswith("\r") else end
                if table is None:
                    blocks.append((fence_start, stop, -1, -1))
                else:  # the next line's start, less its break (and "\r")
                    after = table[number + 1] if number + 1 < len(table) else size + 1
                    blocks.append((fence_start, stop, byte_fence, after - 1 - (end - stop)))
                    byte_from = after
                fence = ""
                para_from = end + 1
            continue
        if marker is not None and marker[0] == "`" and "`" in line[marker_end - start :]:
            continue  # ```inline``` code: an ordinary line
        if start > para_from:  # the paragraph ends before the break (and a "\r") ending the line before
            if table is None:
                blocks.append((para_from, start - 2 if cr else start - 1, -1, -1))
            else:
                blocks.append((para_from, start - 2 if cr else start - 1, byte_from, table[number] - (2 if cr else 1)))
        if marker is None:  # a blank line
            para_from = end + 1
            if table is not None:
                byte_from = table[number + 1] if number + 1 < len(table) else size + 1
        else:
            fence, fence_start = marker, start
            if table is not None:
                byte_fence = table[number]
    if fence:  # an unclosed fence runs to the end of its last non-blank line
        last = _last_content(text)
        newline = _next_break(text, last)
        stop = _content_end(text, len(text) if newline < 0 else newline)
        if isinstance(text, str):
            blocks.append((fence_start, stop, -1, -1))
        else:
            blocks.append((fence_start, stop, byte_fence, text.byte_offset(stop)))
    elif para_from < len(text):
        stop = _content_end(text, len(text))
        if isinstance(text, str):
            blocks.append((para_from, stop, -1, -1))
        else:
            blocks.append((para_from, stop, byte_from, text.byte_offset(stop)))
    if blank is not None:
        assert not isinstance(text, str)
        text.found["blank_lines"] = blank
    return blocks


def split_text(text: str | LogText) -> list[Unit]:
    """Split ``text`` into numbered units: fences, blank lines, fixed units, small-unit merges."""
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

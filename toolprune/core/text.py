"""The text shape: split a document into units (SPEC §4, steps 1–5).

Units are half-open character spans ``[start, end)`` of the text. The text between two units
(blank lines, or the single line break around a fenced block) is never part of a unit, so a
kept unit is always a verbatim slice and a run of dropped units can be replaced by a marker
without touching its neighbours.
"""

from __future__ import annotations

import re

from toolprune.core.logtext import LogText

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


def _events(text: str | LogText):
    """(line start, line content end, fence marker or None, the marker's end, the line) for
    blank and fence-like lines (the line's text only for a fence). A LogText is read piece by
    piece; each piece after the first starts with the line break before it."""
    if isinstance(text, str):
        first = _EVENT.match(text)
        if first is not None:
            yield first.start(), first.end(), first.group(1), first.end(1), text[first.start() : first.end()]
        for match in _NEXT_EVENT.finditer(text):
            yield match.start() + 1, match.end(), match.group(1), match.end(1), match.group()[1:]
        return
    n = len(text)
    for offset, piece in text.pieces():
        if offset == 0:
            first = _EVENT.match(piece)
            if first is not None:
                yield first.start(), first.end(), first.group(1), first.end(1), first.group()
        last = offset + len(piece) >= n
        for match in _NEXT_EVENT.finditer(piece):
            if last or match.end() < len(piece):  # a piece's final break: the next piece's first line decides
                group = match.group(1)
                yield (offset + match.start() + 1, offset + match.end(), group,
                       offset + match.end(1) if group else -1, match.group()[1:])


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


def _blocks(text: str | LogText) -> list[tuple[int, int]]:
    """Maximal runs of non-blank lines, with each fenced code block as one run of its own.

    A block ends before its last line break (and before a ``\\r`` that precedes it), so CRLF
    documents keep their line endings in the separators.
    """
    blocks: list[tuple[int, int]] = []
    para_from = 0  # where the current run of paragraph lines starts
    fence = ""  # the opening fence while inside a fenced block
    fence_start = 0
    for start, end, marker, marker_end, line in _events(text):
        if fence:
            if marker is not None and _closes(line, fence):
                blocks.append((fence_start, _content_end(text, end)))
                fence = ""
                para_from = end + 1
            continue
        if marker is not None and marker[0] == "`" and "`" in line[marker_end - start :]:
            continue  # ```inline``` code: an ordinary line
        if start > para_from:
            blocks.append((para_from, _content_end(text, start - 1)))
        if marker is None:  # a blank line
            para_from = end + 1
        else:
            fence, fence_start = marker, start
    if fence:  # an unclosed fence runs to the end of its last non-blank line
        last = _last_content(text)
        newline = _next_break(text, last)
        blocks.append((fence_start, _content_end(text, len(text) if newline < 0 else newline)))
    elif para_from < len(text):
        blocks.append((para_from, _content_end(text, len(text))))
    return blocks


def split_text(text: str | LogText) -> list[Unit]:
    """Split ``text`` into numbered units: fences, blank lines, fixed units, small-unit merges."""
    units = [Unit(s, e, e - s > FIXED_CHARS) for s, e in _blocks(text)]
    merged: list[Unit] = []
    pending: Unit | None = None
    for unit in units:
        if pending is not None:
            if not unit.fixed and unit.end - pending.start <= FIXED_CHARS:
                unit = Unit(pending.start, unit.end)
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
            merged[-1] = Unit(last.start, pending.end)
        else:
            merged.append(pending)
    return merged

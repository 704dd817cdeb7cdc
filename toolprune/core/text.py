"""The text shape: split a document into units (SPEC §4, steps 1–5).

Units are half-open character spans ``[start, end)`` of the text. The text between two units
(blank lines, or the single line break around a fenced block) is never part of a unit, so a
kept unit is always a verbatim slice and a run of dropped units can be replaced by a marker
without touching its neighbours.
"""

from __future__ import annotations

import re

# LogText (core/logtext.py, plain text read from its bytes) is named in annotations only: it is
# built on Unit, so this module cannot import it

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


def _events(text: str | LogText):  # noqa: F821
    """(line start, line content end, fence marker or None, the marker's end, the line, whether
    the line before ends with ``\r``) for blank and fence-like lines. A LogText is read piece by
    piece; each piece after the first starts with the line break before it."""
    if isinstance(text, str):
        first = _EVENT.match(text)
        if first is not None:
            yield first.start(), first.end(), first.group(1), first.end(1), first.group(), False
        for match in _NEXT_EVENT.finditer(text):
            at = match.start()
            yield at + 1, match.end(), match.group(1), match.end(1), match.group()[1:], at > 0 and text[at - 1] == "\r"
        return
    n = len(text)
    cr = False  # the last line of the piece before ends with "\r"
    for offset, piece in text.pieces():
        if offset == 0:
            first = _EVENT.match(piece)
            if first is not None:
                yield first.start(), first.end(), first.group(1), first.end(1), first.group(), False
        last = offset + len(piece) >= n
        for match in _NEXT_EVENT.finditer(piece):
            if last or match.end() < len(piece):  # a piece's final break: the next piece's first line decides
                group, at = match.group(1), match.start()
                yield (offset + at + 1, offset + match.end(), group, offset + match.end(1) if group else -1,
                       match.group()[1:], piece[at - 1] == "\r" if at > 0 else cr)
        cr = piece[-2:-1] == "\r"


def _content_end(text: str | LogText, end: int) -> int:  # noqa: F821
    """``end`` moved before a ``\r`` that ends the line (CRLF documents)."""
    if isinstance(text, str):
        return end - 1 if end > 0 and text[end - 1] == "\r" else end
    return end - 1 if end > 0 and text.data[text.byte_offset(end) - 1] == 0x0D else end


def _last_content(text: str | LogText) -> int:  # noqa: F821
    """Where the text ends without its trailing white space (``len(text.rstrip())``)."""
    if isinstance(text, str):
        return len(text.rstrip())
    for i in range(len(text.starts) - 1, -1, -1):
        line = text.line(i).rstrip()
        if line:
            return text.starts[i] + len(line)
    return 0


def _next_break(text: str | LogText, pos: int) -> int:  # noqa: F821
    """``text.find("\n", pos)``."""
    if isinstance(text, str):
        return text.find("\n", pos)
    from bisect import bisect_right

    k = bisect_right(text.starts, pos)
    return text.starts[k] - 1 if k < len(text.starts) else -1


def _blocks(text: str | LogText) -> list[tuple[int, int]]:  # noqa: F821
    """Maximal runs of non-blank lines, with each fenced code block as one run of its own.

    A block ends before its last line break (and before a ``\\r`` that precedes it), so CRLF
    documents keep their line endings in the separators.
    """
    blocks: list[tuple[int, int]] = []
    para_from = 0  # where the current run of paragraph lines starts
    fence = ""  # the opening fence while inside a fenced block
    fence_start = 0
    for start, end, marker, marker_end, line, cr in _events(text):
        if fence:
            if marker is not None and _closes(line, fence):
                blocks.append((fence_start, end - 1 if line.endswith("\r") else end))
                fence = ""
                para_from = end + 1
            continue
        if marker is not None and marker[0] == "`" and "`" in line[marker_end - start :]:
            continue  # ```inline``` code: an ordinary line
        if start > para_from:  # the paragraph ends before the break (and a "\r") ending the line before
            blocks.append((para_from, start - 2 if cr else start - 1))
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


def split_text(text: str | LogText) -> list[Unit]:  # noqa: F821
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

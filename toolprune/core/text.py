"""The text shape: split a document into units (SPEC §4, steps 1–5).

Units are half-open character spans ``[start, end)`` of the text. The text between two units
(blank lines, or the single line break around a fenced block) is never part of a unit, so a
kept unit is always a verbatim slice and a run of dropped units can be replaced by a marker
without touching its neighbours.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

FIXED_CHARS = 6000
"""A unit longer than this is never scored, never merged and always kept."""
MERGE_BELOW = 120
"""A unit shorter than this is merged into the next unit (the previous one at the end)."""

_FENCE_OPEN = re.compile(r" {0,3}(`{3,}|~{3,})")


@dataclass(frozen=True, slots=True)
class Unit:
    start: int
    end: int
    fixed: bool = False

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


def _blocks(text: str) -> list[tuple[int, int]]:
    """Maximal runs of non-blank lines, with each fenced code block as one run of its own.

    A block ends before its last line break (and before a ``\\r`` that precedes it), so CRLF
    documents keep their line endings in the separators.
    """
    blocks: list[tuple[int, int]] = []
    start = -1  # start of the open paragraph, -1 when none
    last_end = 0  # end of the last non-blank line seen
    fence = ""  # the opening fence while inside a fenced block
    fence_start = 0
    pos = 0
    for line in text.split("\n"):
        line_start = pos
        pos += len(line) + 1
        content_end = line_start + len(line)
        if line.endswith("\r"):
            content_end -= 1
        if fence:
            last_end = content_end if line.strip() else last_end
            if _closes(line, fence):
                blocks.append((fence_start, content_end))
                fence = ""
            continue
        opening = _FENCE_OPEN.match(line)
        if opening and not (opening.group(1)[0] == "`" and "`" in line[opening.end() :]):
            if start >= 0:
                blocks.append((start, last_end))
                start = -1
            fence = opening.group(1)
            fence_start = line_start
            last_end = content_end
            continue
        if line.strip():
            if start < 0:
                start = line_start
            last_end = content_end
        elif start >= 0:
            blocks.append((start, last_end))
            start = -1
    if fence:  # an unclosed fence runs to the end of the document
        blocks.append((fence_start, last_end))
    elif start >= 0:
        blocks.append((start, last_end))
    return blocks


def split_text(text: str) -> list[Unit]:
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

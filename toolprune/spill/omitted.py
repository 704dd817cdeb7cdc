"""What ``toolprune omitted`` returns: the dropped units of a range of a record, verbatim, within
the size of one call.

Consecutive dropped units come back as they stood in the input (with the text between them);
runs that are apart are joined with the record's separator. Units of a JSON array (or of an
object's members) come back as one JSON array (object), so the result pipes into ``jq``. A range
whose text is over the limit is refused, naming the longest range from its start that fits; a
single unit is always returned whole, whatever its size (a bound may drop one over the limit).
"""

from __future__ import annotations

import json

from toolprune.core.record import OMITTED_MAX_CHARS, Record
from toolprune.errors import OmittedError


class Omitted:
    __slots__ = ("text", "chars", "first", "last")

    def __init__(self, text: bytes, chars: int, first: int, last: int) -> None:
        self.text = text
        self.chars = chars
        self.first = first
        self.last = last


def select_dropped(record: Record, record_id: str, first: int, last: int | None) -> Omitted:
    top = len(record.units) - 1
    if top < 0:  # an input passed through whole (an envelope's record of it): nothing was dropped
        raise OmittedError("not_dropped", f"nothing in {record_id} was dropped; the output holds it whole")
    if first > top:
        raise OmittedError("out_of_range", f"{record_id} has units 0..{top}; {first} is past its end")
    last = top if last is None else min(last, top)
    dropped = sorted(i for i in set(record.dropped) if first <= i <= last)
    if not dropped:
        raise OmittedError(
            "not_dropped",
            f"nothing in {record_id} {first}..{last} was dropped; it is already in the output",
        )
    if record.shape in ("json_array", "json_members"):  # as a JSON array (object of members), so `| jq` works
        opening, closing = (b"[", b"]") if record.shape == "json_array" else (b"{", b"}")
        text = opening + b",".join(record.body[record.units[i][0] : record.units[i][1]] for i in dropped) + closing
        return _sized(text, record_id, dropped, first, last, record)
    runs: list[tuple[int, int]] = []
    for i in dropped:
        if runs and runs[-1][1] == i - 1:
            runs[-1] = (runs[-1][0], i)
        else:
            runs.append((i, i))
    sep = record.sep.encode()
    text = sep.join(record.body[record.units[a][0] : record.units[b][1]] for a, b in runs)
    return _sized(text, record_id, dropped, first, last, record)


def _sized(text: bytes, record_id: str, dropped: list[int], first: int, last: int, record: Record) -> Omitted:
    """``text`` when it fits one call, or when it is a single unit: nothing narrower exists, and
    its marker promised it (a minified file or a 40 KB log line dropped to fit ``--fit``)."""
    chars = len(text.decode("utf-8", "replace"))
    if chars > OMITTED_MAX_CHARS and len(dropped) > 1:
        a = dropped[0]
        b = _fits(record, dropped)
        b = a if b is None else b  # a unit over the limit alone: it is returned whole
        # never the whole range (it is too large, and bytes are never fewer than chars): more follows
        hint = f"narrow it: toolprune omitted {record_id} {a} {b}, then continue from {b + 1}"
        gap = _gap(record, b, dropped)
        if gap is not None:  # each part ends where its last unit ends: say what joins them
            hint += f" (put {json.dumps(gap)} between the parts: it follows unit {b} and is in neither)"
        raise OmittedError(
            "too_large", f"the range holds {chars:,} chars, over the {OMITTED_MAX_CHARS:,} limit; {hint}"
        )
    return Omitted(text=text, chars=chars, first=first, last=last)


def _gap(record: Record, unit: int, dropped: list[int]) -> str | None:
    """What one call over the whole range puts after ``unit`` in a text record: the text between
    it and the next unit when that one was dropped too (a line break in a log), else the
    separator that joins runs apart; None for JSON (whose parts are whole values) and for the
    last unit."""
    if record.shape in ("json_array", "json_members") or unit + 1 >= len(record.units):
        return None
    if unit + 1 not in dropped:  # the next part starts after kept units: runs apart are joined by the separator
        return record.sep
    return record.body[record.units[unit][1] : record.units[unit + 1][0]].decode("utf-8", "replace")


def _fits(record: Record, dropped: list[int]) -> int | None:
    """The last unit of the longest run of ``dropped`` from its start whose text fits one call,
    or None. The text is counted as :func:`select_dropped` builds it: two consecutive units with
    the text between them, runs apart joined by the separator, JSON units by commas inside the
    brackets (in bytes, which are never fewer than chars: a conservative count)."""
    as_json = record.shape in ("json_array", "json_members")
    sep = 1 if as_json else len(record.sep.encode())
    total, best, previous = (2 if as_json else 0), None, None
    for i in dropped:
        start, end = record.units[i]
        if previous is None:
            total += end - start
        elif not as_json and i == previous + 1:
            total += end - record.units[previous][1]  # the text between them, then the unit
        else:
            total += sep + end - start
        if total > OMITTED_MAX_CHARS:
            break
        best = previous = i
    return best

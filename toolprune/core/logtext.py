"""Plain text read from its UTF-8 bytes, never decoded whole.

A decoded str takes 1, 2 or 4 bytes a character for the whole text, whichever its widest
character needs: one emoji in a 60 MB log made a 240 MB str, four times the input before any
work. :class:`LogText` keeps the input bytes and the start of every line, counted in characters
and in bytes, and reads like a str where the line-block code needs it: its length and slices are
characters (so units, line numbers and the counts in markers are exactly those of the decoded
text), and a slice decodes only its own bytes. Scans go piece by piece (:meth:`LogText.pieces`):
about a mebibyte at a time, cut after a line break, decoded, matched with the same patterns a
str would be, and dropped.

Plain text (logs, prose, command output) is read this way, split into paragraphs or line
blocks by the same code as a str (``core/text.py``, ``core/lines.py``), and rendered from the
input's bytes; JSON, documents, listings and patches are decoded to a str (:func:`read`).
"""

from __future__ import annotations

import codecs
import re
from array import array
from bisect import bisect_right
from collections.abc import Iterator, Sequence, Sized
from itertools import accumulate, islice

from toolprune.core.jsonshape import opens_like_json
from toolprune.core.scorer import UnitTexts
from toolprune.core.text import ByteUnit, Unit

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from toolprune.core.plans import Plan

CHUNK = 1 << 20
"""Characters in a cut of :meth:`LogText.cuts` when no size is given."""
PIECE = 1 << 17
"""Characters decoded at a time by :meth:`LogText.pieces` when no size is given. Small, because a
piece is as wide as its widest character: one emoji makes all of its characters four bytes, and
the scans' patterns run about twice as fast on a piece of one-byte characters (split_text and
the signal scan of the 8 MB CI log of bench/bench_speed.py: ~25 % faster than with 1 MiB
pieces). What a scan finds does not depend on the size (tests/test_logtext.py)."""
INDEX_CHUNK = 1 << 16
"""Bytes read at a time when the line starts are counted: small enough that most pieces of a
mostly-ASCII text are ASCII (their characters are their bytes, nothing to decode)."""
_BREAK = re.compile(b"\n")
_READ = "surrogatepass"
"""Decoding what was read: the input was checked when it was read (strict UTF-8 has no
surrogates, so this changes nothing for it); a str's own lone surrogates come back."""


def _offsets(kind: str, count: int) -> array[int]:
    return array(kind, bytes(array(kind).itemsize * count))


class LogText:
    """The text of ``data`` (valid UTF-8, or UnicodeDecodeError), indexed by line.

    ``starts`` are the character offsets of the lines (0, and one past each line break, as
    :func:`toolprune.core.lines.line_starts` gives them for a str), ``byte_starts`` the same
    lines' byte offsets in ``data`` (the same array when the input is ASCII). ``found`` holds
    what the line-block code learned from one scan of the pieces (``core/lines.py``)."""

    __slots__ = ("data", "starts", "byte_starts", "chars", "found", "_near", "_whole")

    def __init__(self, data: bytes, errors: str = "strict") -> None:
        """``errors``: "surrogatepass" for the bytes of a str that holds lone surrogates (text
        from JSON); the input itself is read strictly (invalid UTF-8 raises)."""
        self.data = data
        self.found: dict = {}
        self._near = 0  # the line of the last byte_offset
        self._whole: str | None = None  # the text decoded, when it is read in one piece
        lines = data.count(b"\n") + 1
        kind = "I" if len(data) < 1 << 32 and array("I").itemsize == 4 else "q"  # 4 bytes a line when it fits
        byte_starts = _offsets(kind, lines)
        if data.isascii():  # every byte a character: one array for both
            _fill_byte_starts(data, byte_starts)
            self.starts = self.byte_starts = byte_starts
            self.chars = len(data)
            return
        starts = _offsets(kind, lines)
        k, chars, pos, n, chunk = 1, 0, 0, len(data), INDEX_CHUNK
        while pos < n:
            end = data.rfind(b"\n", pos, pos + chunk) + 1
            if end <= pos:  # one line longer than a chunk: cut it at a character boundary
                end = min(n, pos + chunk)
                while end < n and 0x80 <= data[end] < 0xC0:
                    end += 1
            if pos + chunk >= n:
                end = n
            piece = data[pos:end]
            segments = piece.split(b"\n")
            found = _break_offsets(segments, pos, kind)
            byte_starts[k : k + len(found)] = found
            if piece.isascii():
                starts[k : k + len(found)] = _break_offsets(segments, chars, kind)
                chars += len(piece)
            else:
                text = piece.decode("utf-8", errors)  # a cut after a break or at a boundary: whole characters
                starts[k : k + len(found)] = _break_offsets(text.split("\n"), chars, kind)
                chars += len(text)
                del text
            del segments
            k += len(found)
            pos = end
        self.starts, self.byte_starts, self.chars = starts, byte_starts, chars

    # -- read like a str ---------------------------------------------------------------------------

    def __len__(self) -> int:
        return self.chars

    def __getitem__(self, key: slice) -> str:
        start, stop = key.start, key.stop
        if key.step is not None or start is None or stop is None or start < 0 or stop < 0:
            start, stop, step = key.indices(self.chars)
            if step != 1:
                raise ValueError("a LogText slice has no step")
        if stop <= start:
            return ""
        if self._whole is not None and start == 0 and stop >= self.chars:
            return self._whole
        if self.starts is self.byte_starts:
            return str(memoryview(self.data)[start:stop], "ascii")  # decoded from the input, no copy of its bytes
        return str(memoryview(self.data)[self.byte_offset(start) : self.byte_offset(stop)], "utf-8", _READ)

    def __contains__(self, sub: str) -> bool:  # UTF-8 is self-synchronising: bytes find characters
        return sub.encode("utf-8", _READ) in self.data

    def count(self, sub: str) -> int:
        return self.data.count(sub.encode("utf-8", _READ))

    def encode(self, encoding: str = "utf-8", errors: str = "strict") -> bytes:
        return self.data

    def endswith(self, suffix: str) -> bool:
        return self.data.endswith(suffix.encode("utf-8", _READ))

    def isascii(self) -> bool:
        return self.starts is self.byte_starts

    def __str__(self) -> str:
        return self.data.decode("utf-8", _READ)

    # -- lines and offsets -------------------------------------------------------------------------

    def line(self, i: int) -> str:
        """Line ``i`` with its line break (the last line without one)."""
        starts = self.byte_starts
        end = starts[i + 1] if i + 1 < len(starts) else len(self.data)
        return str(memoryview(self.data)[starts[i] : end], "utf-8", _READ)

    def byte_offset(self, char: int) -> int:
        """The byte offset in ``data`` of character offset ``char``."""
        if self.starts is self.byte_starts or char >= self.chars:
            return char if char < self.chars else len(self.data)
        starts, byte_starts = self.starts, self.byte_starts
        i = self._near
        # offsets are mostly asked for in order (units, pieces, rendering): try the line of the
        # last answer and the next two before searching
        if not (starts[i] <= char and (i + 1 == len(starts) or char < starts[i + 1])):
            if i + 2 < len(starts) and starts[i + 1] <= char < starts[i + 2]:
                i += 1
            elif i + 3 < len(starts) and starts[i + 2] <= char < starts[i + 3]:
                i += 2
            else:
                i = bisect_right(starts, char) - 1
            self._near = i
        into = char - starts[i]
        if not into:
            return byte_starts[i]
        if i + 1 < len(starts):
            chars, size = starts[i + 1] - starts[i], byte_starts[i + 1] - byte_starts[i]
        else:
            chars, size = self.chars - starts[i], len(self.data) - byte_starts[i]
        if chars == size:  # an ASCII line
            return byte_starts[i] + into
        if into >= chars - 2 and i + 1 < len(starts):  # the end of the line: its "\r\n" or "\n" are one byte each
            tail = chars - into
            if tail == 1 or self.data[byte_starts[i + 1] - 2] == 0x0D:
                return byte_starts[i + 1] - tail
        # the first ``into`` characters are within 4 bytes each: decode no more of a long line (a
        # cut character waits)
        start = byte_starts[i]
        head = codecs.getincrementaldecoder("utf-8")(_READ).decode(self.data[start : start + 4 * into])
        return start + len(head[:into].encode("utf-8", _READ))

    def byte_spans(self, units: Sequence[Unit]) -> list[tuple[int, int]]:
        """The byte spans of ``units`` in ``data``."""
        if self.starts is self.byte_starts:
            return [(u.start, u.end) for u in units]
        offset = self.byte_offset
        return [(u.byte_start, u.byte_end) if type(u) is ByteUnit else (offset(u.start), offset(u.end)) for u in units]

    def texts(self, units: Sequence[Unit]) -> UnitTexts:
        """The texts of ``units``, decoded one at a time when asked for."""

        return UnitTexts(_Decoding(self.data), self.byte_spans(units), [u.end - u.start for u in units])

    def cuts(self, size: int | None = None) -> Iterator[tuple[int, int]]:
        """Character ranges covering the text, each about ``size`` characters and cut after a
        line break, as :func:`toolprune.core.lines.pieces` cuts a str (so a scan of these
        pieces gives what a scan of the str's gives)."""
        starts, n, start = self.starts, self.chars, 0
        size = size or CHUNK
        while start < n:
            # the last line start in (start, start + size]; else the first one after; else the end
            k = bisect_right(starts, start + size) - 1
            end = starts[k] if k >= 0 else 0
            if end <= start:
                k = bisect_right(starts, start + size)
                end = starts[k] if k < len(starts) else n
            if end >= n or start + size >= n:
                end = n
            yield start, end
            start = end

    def pieces(self, size: int | None = None) -> Iterator[tuple[int, str]]:
        """(offset, text) of the ranges :meth:`cuts` gives, decoded; every piece after the first
        is given with the line break before it, at ``offset - 1``, so patterns that start with a
        line break see its first line."""
        for start, end in self.cuts(size or PIECE):
            if start == 0 and end >= self.chars:  # one piece: decoded once for every scan (and whole slices)
                if self._whole is None:
                    self._whole = str(memoryview(self.data), "utf-8", _READ)
                yield 0, self._whole
                return
            a, b = self.byte_offset(start), self.byte_offset(end)
            if start:
                yield start - 1, str(memoryview(self.data)[a - 1 : b], "utf-8", _READ)
            else:
                yield 0, str(memoryview(self.data)[a:b], "utf-8", _READ)


class _Decoding:
    """Slices of UTF-8 bytes as text."""

    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data

    def __getitem__(self, key: slice) -> str:
        return self.data[key].decode("utf-8", _READ)


def _break_offsets(segments: Sequence[Sized], offset: int, kind: str) -> array[int]:
    """The start of every line after the first, from the lines' texts split at the breaks."""
    return array(kind, islice(accumulate(map(_PLUS_ONE, map(len, segments[:-1])), initial=offset), 1, None))


_PLUS_ONE = (1).__add__  # a C function: map and accumulate never enter Python code


def _fill_byte_starts(data: bytes, starts: array[int]) -> None:
    k, pos, n = 1, 0, len(data)
    while pos < n:
        end = data.rfind(b"\n", pos, pos + CHUNK) + 1
        if end <= pos:
            end = data.find(b"\n", pos + CHUNK) + 1 or n
        if pos + CHUNK >= n:
            end = n
        if end - pos > 2 * CHUNK:  # one very long line: find its break without copying it
            found = array(starts.typecode, (m.end() for m in _BREAK.finditer(data, pos, end)))
        else:
            found = _break_offsets(data[pos:end].split(b"\n"), pos, starts.typecode)
        starts[k : k + len(found)] = found
        k += len(found)
        pos = end


def read(data: bytes) -> str | LogText:
    """The text of ``data``: a :class:`LogText` for plain text (a log, prose, command output:
    ``core/kinds.py``'s ``text``), else the decoded str (JSON, documents, listings, patches and
    text with a NUL are read as a str by their own code). UnicodeDecodeError when it is not UTF-8."""
    from toolprune.core import kinds

    if b"\x00" in data or opens_like_json(data):
        return data.decode("utf-8")
    log = LogText(data)
    if kinds.kind(log) == "text":
        head = log[: kinds.EMBEDDED_LOOK]
        at = kinds.json_opening(head)
        if at < 0 or _json_ends_early(data, len(head[:at].encode("utf-8"))):
            return log  # no JSON document that could hold most of it: a log stays bytes
    del log
    return data.decode("utf-8")


JSON_PROBE_BYTES = 1 << 20


def _json_ends_early(data: bytes, start: int) -> bool:
    """Does the JSON value at byte ``start`` end (or fail to parse) within ``JSON_PROBE_BYTES``,
    too early to hold most of ``data``? A log whose second line is ``{"event": "start"}`` is
    then read as bytes, as any log is (decoded whole it took 1.8 times the memory); only a value
    that runs on past the probe, or fills most of a smaller text, is worth decoding for."""
    import json

    cut = start + JSON_PROBE_BYTES < len(data)
    probe = data[start : start + JSON_PROBE_BYTES].decode("utf-8", "ignore")
    try:
        _, end = json.JSONDecoder().raw_decode(probe)
    except ValueError as exc:  # cut short by the probe's end, or no JSON at all
        return not (cut and getattr(exc, "pos", 0) >= len(probe) - 64)
    except RecursionError:  # deeper than the parser's stack: let the text's own reading decide
        return False
    return start + len(probe[:end].encode("utf-8")) < 0.5 * len(data)  # a looser share than the split's own


def render(plan: Plan, prefix: str) -> bytes:
    """The output of a plan over a LogText, assembled from the input's bytes."""
    text, units = plan.text, plan.units
    assert isinstance(text, LogText)  # the plan's own output() checks it
    view = memoryview(text.data)
    parts: list[bytes | memoryview] = [(plan._header(prefix) + plan.newline * 2).encode("utf-8")]
    pos = 0
    for a, b in plan.runs:
        (start, _), (_, end) = text.byte_spans((units[a], units[b]))
        parts.append(view[pos:start])
        parts.append(plan._marker(prefix, a, b).encode("utf-8"))
        pos = end
    parts.append(view[pos:])
    return b"".join(parts)

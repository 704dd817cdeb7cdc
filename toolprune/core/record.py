"""The record format: what the spill store keeps of one pruned input so that ``toolprune
omitted`` returns every dropped part exactly (the store itself is ``toolprune.spill``)."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence

OMITTED_MAX_CHARS = 20_000
"""The most characters one ``omitted`` call returns for a range; every marker's run fits in it,
but for a single unit over it (dropped to fit a bound), which is returned whole."""


class Record:
    """One spilled input: ``units`` are byte spans of ``body``; ``sep`` separates two
    non-adjacent runs of dropped units in ``omitted`` output. ``name`` and ``check`` are set once
    it is saved or loaded; ``version`` is its file format."""

    def __init__(
        self,
        shape: str,
        body: bytes,
        units: list[tuple[int, int]],
        dropped: list[int],
        sep: str = "\n\n",
        created: float | None = None,
        extra: dict | None = None,
    ) -> None:
        self.shape = shape
        self.body = body
        self.units = units
        self.dropped = dropped
        self.sep = sep
        self.created = time.time() if created is None else created
        self.extra = extra or {}
        self.name: str | None = None
        self.check: str | None = None
        self.version = 2

    @property
    def id(self) -> str:
        """The id to print: ``P<n>-<check>`` (a bare ``P<n>`` for a format-1 record)."""
        return f"{self.name}-{self.check}" if self.check else str(self.name)

    def encoded_lists(self) -> tuple[str, str]:
        """The unit spans and the dropped units in JSON. They are most of the metadata (16,000
        units for an 8 MB log), so they are encoded once for both the check and the file."""
        return _compact(self.units), _compact(self.dropped)

    def content(self, lists: tuple[str, str] | None = None) -> bytes:
        """What the check covers, except the body (hashed after it): the fields in key order,
        ``lists`` (from :meth:`encoded_lists`) spliced in."""
        units, dropped = lists or self.encoded_lists()
        rest = json.dumps({"extra": self.extra, "sep": self.sep, "shape": self.shape},
                          sort_keys=True, separators=(",", ":"))
        return f'{{"dropped":{dropped},{rest[1:-1]},"units":{units}}}\n'.encode()

    def metadata(self, check: str) -> dict:
        return {
            "shape": self.shape,
            "created": self.created,
            "sep": self.sep,
            "units": self.units,
            "dropped": self.dropped,
            "body_bytes": len(self.body),
            "check": check,
            **({"extra": self.extra} if self.extra else {}),
        }

    def metadata_line(self, check: str, lists: tuple[str, str]) -> bytes:
        """:meth:`metadata` as the record file's JSON line, ``lists`` (from
        :meth:`encoded_lists`) spliced in."""
        units, dropped = lists
        head = _compact({"shape": self.shape, "created": self.created, "sep": self.sep})
        tail = _compact({"body_bytes": len(self.body), "check": check,
                         **({"extra": self.extra} if self.extra else {})})
        return f'{head[:-1]},"units":{units},"dropped":{dropped},{tail[1:]}\n'.encode()


def _compact(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))


def byte_spans(text: str, spans: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Convert ordered, non-overlapping character spans of ``text`` to UTF-8 byte spans, in O(n)."""
    out: list[tuple[int, int]] = []
    pos_c = 0
    pos_b = 0
    for start, end in spans:
        pos_b += len(text[pos_c:start].encode("utf-8", "surrogatepass"))
        b_start = pos_b
        pos_b += len(text[start:end].encode("utf-8", "surrogatepass"))
        out.append((b_start, pos_b))
        pos_c = end
    return out

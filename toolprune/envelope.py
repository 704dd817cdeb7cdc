"""The outbox envelope: a one-line header before the body, and the full output kept.

``--envelope`` makes an output safe to hand to a model after any later cut: the first line says
what the output was (label, size in chars, bytes and lines, the outcome) and where the whole of
it is on disk, before a single byte of the body. The full input is always spilled in this mode,
even when nothing is dropped, so the path in the header is always real. The body's bytes are
exactly what they would be without the envelope.
"""

from __future__ import annotations

import json

from toolprune.core.record import Record
from toolprune.spill import SpillStore


def line_count(data: bytes) -> int:
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def _utf8(text: str) -> str:
    """``text`` as UTF-8 can carry it: bytes of the command line that were not UTF-8 (kept by
    Python as lone surrogates) become U+FFFD instead of failing the header."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def header(
    *, label: str | None, data: bytes, outcome: str, record_id: str | None, full_output: str | None
) -> bytes:
    """The header line. ``record_id`` and ``full_output`` are None when the input could not be
    kept (the spill failed, the hard deadline passed): the body is then the whole input."""
    fields = {
        "toolprune": "envelope",
        "label": None if label is None else _utf8(label),
        "chars": len(data.decode("utf-8", "replace")),
        "bytes": len(data),
        "lines": line_count(data),
        "outcome": outcome,
        "id": record_id,
        "full_output": None if full_output is None else _utf8(full_output),
    }
    return json.dumps(fields, ensure_ascii=False, separators=(", ", ": ")).encode("utf-8") + b"\n"


def spill_full(store: SpillStore, data: bytes, record_id: str | None) -> tuple[str, str]:
    """Keep the whole input as a plain file next to its record (a new, empty record when the
    output was not pruned); return the record id and the file's path."""
    if record_id is None:
        record_id = store.save(Record(shape="passthrough", body=data, units=[], dropped=[]))
    return record_id, str(store.save_full(record_id, data))


def unkept(label: str | None, data: bytes, outcome: str) -> bytes:
    """``data`` passed through whole under a header whose ``id`` and ``full_output`` are null:
    a reader that always takes the first line as the header never eats the body's first line."""
    return header(label=label, data=data, outcome=outcome, record_id=None, full_output=None) + data


def room(label: str | None, data: bytes, store: SpillStore) -> tuple[int, int]:
    """The header's size at most, in characters and bytes, before the record exists: the
    widest id, the longest outcome and ``store``'s path for the full output."""
    from toolprune.core.models import PLACEHOLDER_ID

    name = PLACEHOLDER_ID.split("-")[0] + ".txt"
    full = str(store.path / name)
    line = header(label=label, data=data, outcome="x" * 20, record_id=PLACEHOLDER_ID, full_output=full)
    return len(line.decode("utf-8")), len(line)

"""The record file format and record ids.

A record is one file named ``P<n>``, mode 0600, in a directory of mode 0700::

    TOOLPRUNE-SPILL 2 <check> <SHA-256 of everything after this line, 64 hex digits>\\n
    {"shape": "text", "units": [[start, end], ...], "dropped": [...], "check": "3fa9c1d2", ...}\\n
    <body bytes>

(The check is on the first line too, so that gc can note it in ``.gone`` without reading more.)

Unit spans are byte offsets into the body. (The metadata uses the standard library's json: orjson
costs ~20 ms to import and is only loaded for JSON inputs.) The checksum covers the metadata and
the body, so a record altered after it was written (one bit of an offset is enough to shift what
``omitted`` returns) is reported as damaged and never served. Records of format 1 (the checksum
covered the body only; ids were bare ``P<n>``) are still read.

Ids. The id printed in a marker is ``P<n>-<check>``: ``n`` is 1 to 999,999,999,999 and ``check``
is 8 lowercase hex digits, the first 32 bits of an HMAC-SHA256 of the record's content (shape,
separator, unit spans, dropped units, body) keyed by a random secret kept in the directory
(``.key``, made on first use). ``omitted`` compares it with the check stored in the record, so a
marker that was forged, copied from another machine, or printed before the directory was deleted
and made again, fails loudly instead of returning another input's text. The same input spilled
twice into one directory gets the same check (only the number differs).
"""

from __future__ import annotations

import hashlib
import json
import re

from toolprune.core.record import Record
from toolprune.errors import OmittedError, UsageError
from toolprune.spill.files import read_head

MAGIC = b"TOOLPRUNE-SPILL 2 "
MAGIC_V1 = b"TOOLPRUNE-SPILL 1\n"
MAX_NUMBER = 10**12 - 1
"""The highest record number: ids stay at most ``len("P999999999999-ffffffff")`` = 22 chars."""
CHECKED = re.compile(r"P([1-9][0-9]{0,11})-([0-9a-f]{8})")
BARE = re.compile(r"P[1-9][0-9]{0,11}")


def validate_id(record_id: str, *, checked: bool = False) -> str:
    """Check an id before it touches the file system: ``P<n>-<check>`` (or a bare ``P<n>`` unless
    ``checked``); raise UsageError otherwise. Return the record's file name ``P<n>``."""
    if isinstance(record_id, str):
        match = CHECKED.fullmatch(record_id)
        if match:
            return f"P{match.group(1)}"
        if BARE.fullmatch(record_id):
            if checked:
                raise UsageError(
                    f"id {record_id} has no check part: pass the id exactly as the marker prints it "
                    f"({record_id}-<8 hex digits>; `toolprune spill list` shows them). A record written "
                    f"before ids had a check is read whole with `toolprune spill show {record_id}`"
                )
            return record_id
    raise UsageError(f"invalid id {record_id!r}: ids look like P7-1a2b3c4d (the id printed in the marker)")


def split_id(record_id: str) -> tuple[str, str | None]:
    name = validate_id(record_id)
    return name, (record_id[len(name) + 1 :] or None)


def parse_record(record_id: str, data: bytes) -> Record:
    def damaged(why: str) -> OmittedError:
        return OmittedError("damaged", f"record {record_id} is damaged ({why}); it cannot be used")

    if data.startswith(MAGIC):
        version = 2
        start = len(MAGIC) + 8 + 1 + 64 + 1  # check, space, SHA-256, newline
        if len(data) < start or data[start - 1 : start] != b"\n":
            raise damaged("truncated")
        if hashlib.sha256(data[start:]).hexdigest().encode() != data[start - 65 : start - 1]:
            raise damaged("checksum mismatch")
        first_line_check = data[len(MAGIC) : len(MAGIC) + 8].decode("ascii", "replace")
    elif data.startswith(MAGIC_V1):  # format 1: the checksum covers the body only
        version = 1
        start = len(MAGIC_V1)
    else:
        raise damaged("unknown format")
    end = data.find(b"\n", start)
    if end < 0:
        raise damaged("truncated")
    try:
        meta = json.loads(data[start:end])
        body = data[end + 1 :]
        if len(body) != meta["body_bytes"]:
            raise damaged("truncated")
        if version == 1 and hashlib.sha256(body).hexdigest() != meta["sha256"]:
            raise damaged("checksum mismatch")
        units = [(int(s), int(e)) for s, e in meta["units"]]
        dropped = [int(i) for i in meta["dropped"]]
        if any(not 0 <= i < len(units) for i in dropped) or any(
            not 0 <= s <= e <= len(body) for s, e in units
        ):
            raise damaged("spans out of range")
        record = Record(
            shape=str(meta["shape"]),
            body=body,
            units=units,
            dropped=dropped,
            sep=str(meta.get("sep", "\n\n")),
            created=float(meta.get("created", 0.0)),
            extra=dict(meta.get("extra") or {}),
        )
        record.version = version
        if version == 2:
            record.check = str(meta["check"])
            if record.check != first_line_check:
                raise damaged("checksum mismatch")
        return record
    except OmittedError:
        raise
    except (KeyError, TypeError, ValueError, UnicodeDecodeError):
        raise damaged("unreadable metadata") from None


def parse_key(data: bytes | None) -> bytes | None:
    if data is None:
        return None
    text = data.strip()
    if len(text) != 32 or re.fullmatch(rb"[0-9a-f]{32}", text) is None:
        return None
    return bytes.fromhex(text.decode())


def check_of(fd: int, name: str) -> str | None:
    """The check on the first line of record ``name`` (None for format 1 or anything odd)."""
    head = read_head(fd, name, len(MAGIC) + 8)
    if head is None or not head.startswith(MAGIC):
        return None
    check = head[len(MAGIC) :].decode("ascii", "replace")
    return check if re.fullmatch(r"[0-9a-f]{8}", check) else None

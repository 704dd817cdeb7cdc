"""The spill store (SPEC §7): durable records of pruned inputs, addressed by ids ``P<n>``.

A record is one file named by its id, mode 0600, in a directory of mode 0700::

    TOOLPRUNE-SPILL 1\\n
    {"shape": "text", "units": [[start, end], ...], "dropped": [...], ...}\\n   (metadata, JSON)
    <body bytes>

Unit spans are byte offsets into the body. (The metadata uses the standard library's json: orjson
costs ~20 ms to import and is only loaded for JSON inputs.) The body's SHA-256 is in the metadata, so a record
damaged after it was written is reported as such and never served as if it were right.

Writing is crash- and race-safe: the record is written to a private temporary file and fsynced,
then hard-linked to the next free id (``link`` fails if the name exists, so two processes can
never share an id), then the directory is fsynced. A counter file kept under ``flock`` makes ids
monotonic, so an id removed by ``gc`` is never handed out again.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from collections.abc import Sequence
from pathlib import Path

from toolprune.errors import OmittedError, SpillError, UsageError

MAGIC = b"TOOLPRUNE-SPILL 1\n"
OMITTED_MAX_CHARS = 20_000
_ID = re.compile(r"P[1-9][0-9]{0,15}")
_COUNTER = ".next"
_LOCK = ".lock"


GC_AGE = 30 * 86_400
"""Records older than 30 days are removed by gc."""
GC_BYTES = 1 << 30
"""gc keeps the spill directory under 1 GiB, oldest records first."""
GC_EVERY = 50
"""Automatic gc runs after every 50th record."""


def _check_private(path: Path, error: type[Exception]) -> None:
    """The spill directory must be a real directory owned by this user (not a symlink planted by
    someone else, not another user's folder)."""
    info = os.lstat(path)
    import stat

    if not stat.S_ISDIR(info.st_mode):
        raise error(f"spill directory {path} is not a directory (a symlink or a file); refusing to use it")
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        raise error(f"spill directory {path} belongs to another user; refusing to use it")


def validate_id(record_id: str) -> str:
    """Check an id before it touches the file system; raise UsageError when it is not ``P<n>``."""
    if not isinstance(record_id, str) or _ID.fullmatch(record_id) is None:
        raise UsageError(f"invalid id {record_id!r}: ids look like P7 (the id printed in the marker)")
    return record_id


class Record:
    """One spilled input: ``units`` are byte spans of ``body``; ``sep`` separates two
    non-adjacent runs of dropped units in ``omitted`` output."""

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

    def metadata(self) -> dict:
        return {
            "shape": self.shape,
            "created": self.created,
            "sep": self.sep,
            "units": self.units,
            "dropped": self.dropped,
            "body_bytes": len(self.body),
            "sha256": hashlib.sha256(self.body).hexdigest(),
            **({"extra": self.extra} if self.extra else {}),
        }


class Omitted:
    __slots__ = ("text", "chars", "first", "last")

    def __init__(self, text: bytes, chars: int, first: int, last: int) -> None:
        self.text = text
        self.chars = chars
        self.first = first
        self.last = last


class SpillStore:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    # -- writing -------------------------------------------------------------------------------

    def _ensure_dir(self) -> None:
        try:
            self.path.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as exc:
            raise SpillError(f"cannot create spill directory {self.path}: {exc.strerror or exc}") from exc
        _check_private(self.path, SpillError)

    def _write_temp(self, parts: Sequence[bytes]) -> Path:
        """``parts``, one after the other, in a new private temporary file of the directory,
        written and fsynced (in parts: a large input is never copied to be written)."""
        tmp = self.path / f".tmp-{os.getpid()}-{os.urandom(6).hex()}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        try:
            for part in parts:
                view = memoryview(part)
                while view:
                    view = view[os.write(fd, view) :]
            os.fsync(fd)
        except BaseException:
            os.close(fd)
            tmp.unlink()
            raise
        os.close(fd)
        return tmp

    def _publish(self, parts: Sequence[bytes], place) -> str:
        """Write ``parts`` to a temporary file, then ``place(tmp)`` gives it its final name; the
        temporary name never survives. Any OSError becomes a SpillError."""
        self._ensure_dir()
        tmp = None
        try:
            tmp = self._write_temp(parts)
            name = place(tmp)
            self._fsync_dir()
            return name
        except OSError as exc:
            raise SpillError(f"cannot write to spill directory {self.path}: {exc.strerror or exc}") from exc
        finally:
            if tmp is not None:
                try:
                    tmp.unlink()
                except OSError:
                    pass

    def save(self, record: Record) -> str:
        """Write ``record`` durably and return its new id."""
        head = MAGIC + json.dumps(record.metadata(), separators=(",", ":")).encode() + b"\n"
        record_id = self._publish((head, record.body), self._link_next)
        if int(record_id[1:]) % GC_EVERY == 0:  # keep the directory bounded without a cron job
            try:
                self.gc()
            except (OSError, SpillError):
                pass  # housekeeping never fails a prune
        return record_id

    def save_full(self, record_id: str, data: bytes) -> Path:
        """Write ``data`` verbatim as ``<id>.txt`` (for the envelope's header), durably."""
        validate_id(record_id)
        final = self.path / f"{record_id}.txt"

        def place(tmp: Path) -> str:
            os.replace(tmp, final)
            return str(final)

        return Path(self._publish((data,), place))

    def _link_next(self, tmp: Path) -> str:
        with _Lock(self.path / _LOCK):
            n = self._read_counter()
            while True:
                try:
                    os.link(tmp, self.path / f"P{n}")
                    break
                except FileExistsError:
                    n += 1
            self._write_counter(n + 1)
        return f"P{n}"

    def _read_counter(self) -> int:
        try:
            value = int((self.path / _COUNTER).read_text().strip())
            if value >= 1:
                return value
        except (OSError, ValueError):
            pass
        highest = 0
        for entry in os.scandir(self.path):
            if _ID.fullmatch(entry.name):
                highest = max(highest, int(entry.name[1:]))
        return highest + 1

    def _write_counter(self, value: int) -> None:
        tmp = self.path / f"{_COUNTER}.{os.getpid()}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600)
        try:
            os.write(fd, str(value).encode())
        finally:
            os.close(fd)
        os.replace(tmp, self.path / _COUNTER)

    def _fsync_dir(self) -> None:
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except OSError:
            return
        try:
            os.fsync(fd)
        except OSError:
            pass
        finally:
            os.close(fd)

    # -- reading -------------------------------------------------------------------------------

    def load(self, record_id: str) -> Record:
        validate_id(record_id)
        try:
            _check_private(self.path, lambda message: OmittedError("refused", message))
        except FileNotFoundError:
            raise OmittedError(
                "not_found", f"no record {record_id} in {self.path}; pass the id printed in the marker"
            ) from None
        try:
            fd = os.open(self.path / record_id, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except FileNotFoundError:
            raise OmittedError(
                "not_found", f"no record {record_id} in {self.path}; pass the id printed in the marker"
            ) from None
        except OSError as exc:
            raise OmittedError("refused", f"cannot open record {record_id}: {exc.strerror or exc}") from None
        with os.fdopen(fd, "rb") as handle:
            info = os.fstat(handle.fileno())
            if hasattr(os, "getuid") and info.st_uid != os.getuid():
                raise OmittedError("refused", f"record {record_id} belongs to another user; refusing to read it")
            data = handle.read()
        return _parse(record_id, data)

    # -- housekeeping --------------------------------------------------------------------------

    def ids(self) -> list[str]:
        """Every record id in the directory, oldest first."""
        if not self.path.is_dir():
            return []
        return sorted((e.name for e in os.scandir(self.path) if _ID.fullmatch(e.name)), key=lambda i: int(i[1:]))

    def gc(self, older_than: float = GC_AGE, max_bytes: int = GC_BYTES, now: float | None = None) -> tuple[int, int]:
        """Remove records older than ``older_than`` seconds, then the oldest ones until the
        directory holds at most ``max_bytes``; return (files removed, bytes freed). Safe while
        other processes write and read: files are unlinked whole (a reader that has one open
        keeps reading it) and temporary files younger than an hour are left alone."""
        if not self.path.is_dir():
            return 0, 0
        _check_private(self.path, SpillError)
        now = time.time() if now is None else now
        entries = []
        for entry in os.scandir(self.path):
            name = entry.name
            stem = name[:-4] if name.endswith(".txt") else name
            if not (_ID.fullmatch(stem) or name.startswith(".tmp-")):
                continue
            try:
                info = entry.stat(follow_symlinks=False)
            except FileNotFoundError:
                continue
            entries.append((info.st_mtime, name, info.st_size))
        entries.sort()
        total = sum(size for _, _, size in entries)
        removed = freed = 0
        for mtime, name, size in entries:
            age = now - mtime
            temporary = name.startswith(".tmp-")
            if (temporary and age < 3600) or (not temporary and age < older_than and total <= max_bytes):
                continue
            try:
                os.unlink(self.path / name)
            except FileNotFoundError:
                pass
            removed += 1
            freed += size
            total -= size
        return removed, freed

    def omitted(self, record_id: str, first: int, last: int | None = None) -> Omitted:
        """The dropped units of ``first..last`` (inclusive, clamped), verbatim (SPEC §7)."""
        if first < 0 or (last is not None and last < first):
            raise UsageError(f"invalid range {first}..{last}: FROM must be ≥ 0 and TO ≥ FROM")
        record = self.load(record_id)
        return select_dropped(record, record_id, first, last)


def select_dropped(record: Record, record_id: str, first: int, last: int | None) -> Omitted:
    top = len(record.units) - 1
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
        return _sized(text, record_id, dropped, first, last)
    runs: list[tuple[int, int]] = []
    for i in dropped:
        if runs and runs[-1][1] == i - 1:
            runs[-1] = (runs[-1][0], i)
        else:
            runs.append((i, i))
    sep = record.sep.encode()
    text = sep.join(record.body[record.units[a][0] : record.units[b][1]] for a, b in runs)
    return _sized(text, record_id, dropped, first, last)


def _sized(text: bytes, record_id: str, dropped: list[int], first: int, last: int) -> Omitted:
    chars = len(text.decode("utf-8", "replace"))
    if chars > OMITTED_MAX_CHARS:
        a = dropped[0]
        raise OmittedError(
            "too_large",
            f"the range holds {chars:,} chars, over the {OMITTED_MAX_CHARS:,} limit; "
            f"narrow it (e.g. toolprune omitted {record_id} {a} {a + 2})",
        )
    return Omitted(text=text, chars=chars, first=first, last=last)


def _parse(record_id: str, data: bytes) -> Record:
    def damaged(why: str) -> OmittedError:
        return OmittedError("damaged", f"record {record_id} is damaged ({why}); it cannot be used")

    if not data.startswith(MAGIC):
        raise damaged("unknown format")
    end = data.find(b"\n", len(MAGIC))
    if end < 0:
        raise damaged("truncated")
    try:
        meta = json.loads(data[len(MAGIC) : end])
        body = data[end + 1 :]
        if len(body) != meta["body_bytes"]:
            raise damaged("truncated")
        if hashlib.sha256(body).hexdigest() != meta["sha256"]:
            raise damaged("checksum mismatch")
        units = [(int(s), int(e)) for s, e in meta["units"]]
        dropped = [int(i) for i in meta["dropped"]]
        if any(not 0 <= i < len(units) for i in dropped) or any(
            not 0 <= s <= e <= len(body) for s, e in units
        ):
            raise damaged("spans out of range")
        return Record(
            shape=str(meta["shape"]),
            body=body,
            units=units,
            dropped=dropped,
            sep=str(meta.get("sep", "\n\n")),
            created=float(meta.get("created", 0.0)),
            extra=dict(meta.get("extra") or {}),
        )
    except OmittedError:
        raise
    except (KeyError, TypeError, ValueError, UnicodeDecodeError):
        raise damaged("unreadable metadata") from None


class _Lock:
    """An exclusive ``flock`` on a lock file; a no-op where flock does not exist."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd = -1

    def __enter__(self) -> _Lock:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX
            return self
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.fd >= 0:
            os.close(self.fd)  # closing releases the lock
            self.fd = -1


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

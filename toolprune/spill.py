"""The spill store: durable records of pruned inputs, addressed by checked ids ``P<n>-<check>``.

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

Safety. The directory is opened once, with ``O_DIRECTORY | O_NOFOLLOW``, and checked on that
descriptor: a real directory, owned by this user, not writable by group or others. Every file
operation after that is relative to the descriptor, so renaming or symlinking a parent directory
afterwards cannot redirect anything. Files are opened with ``O_NOFOLLOW | O_NONBLOCK`` and used only
if they are regular files, so a FIFO or a symlink in place of a record, the counter or the lock
never blocks or redirects. The lock is taken with a bounded wait.

Housekeeping. ``gc`` notes every record it removes in ``.gone`` (``P<n>-<check> <time>`` lines,
the last ~30,000), so ``omitted`` can tell "removed by gc" from "never existed", and a lost
counter still restarts after the highest number ever used.

Writing is crash- and race-safe: the record is written to a private temporary file and fsynced,
then hard-linked to the next free id under the lock (``link`` fails if the name exists, so two
processes can never share an id), then the directory is fsynced. A counter file (``.next``) makes
ids monotonic, so an id removed by ``gc`` is not handed out again; if the counter is lost or
damaged, counting restarts after the highest record left, and the check keeps any old marker
for a reused number from resolving.
"""

from __future__ import annotations

import errno
import hashlib
import hmac
import json
import os
import re
import shlex
import stat
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

from toolprune.core.record import OMITTED_MAX_CHARS, Record
from toolprune.errors import OmittedError, SpillError, UsageError

MAGIC = b"TOOLPRUNE-SPILL 2 "
MAGIC_V1 = b"TOOLPRUNE-SPILL 1\n"
MAX_NUMBER = 10**12 - 1
"""The highest record number: ids stay at most ``len("P999999999999-ffffffff")`` = 22 chars."""
_CHECKED = re.compile(r"P([1-9][0-9]{0,11})-([0-9a-f]{8})")
_BARE = re.compile(r"P[1-9][0-9]{0,11}")
_COUNTER = ".next"
_COUNTER_MAX_BYTES = 32
_LOCK = ".lock"
_KEY = ".key"
_GONE = ".gone"
_GONE_MAX_BYTES = 1 << 20
_TEMPORARY = (".tmp-", ".next.", ".key.")

_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)

GC_AGE = 30 * 86_400
"""Records older than 30 days are removed by gc."""
GC_BYTES = 1 << 30
"""gc keeps the spill directory under 1 GiB, oldest records first."""
GC_EVERY = 50
"""Automatic gc runs after every 50th record."""
GC_GRACE = 600
"""gc never removes a record younger than 10 minutes (its id may not be printed yet), whatever the limits."""
TEMP_AGE = 3600
"""Temporary files older than an hour are leftovers of a crashed run; gc removes them."""
LOCK_WAIT = 5.0
"""Seconds to wait for the lock before giving up (the filter then passes its input through)."""


def validate_id(record_id: str, *, checked: bool = False) -> str:
    """Check an id before it touches the file system: ``P<n>-<check>`` (or a bare ``P<n>`` unless
    ``checked``); raise UsageError otherwise. Return the record's file name ``P<n>``."""
    if isinstance(record_id, str):
        match = _CHECKED.fullmatch(record_id)
        if match:
            return f"P{match.group(1)}"
        if _BARE.fullmatch(record_id):
            if checked:
                raise UsageError(
                    f"id {record_id} has no check part: pass the id exactly as the marker prints it "
                    f"({record_id}-<8 hex digits>; `toolprune spill list` shows them). A record written "
                    f"before ids had a check is read whole with `toolprune spill show {record_id}`"
                )
            return record_id
    raise UsageError(f"invalid id {record_id!r}: ids look like P7-1a2b3c4d (the id printed in the marker)")


def _split_id(record_id: str) -> tuple[str, str | None]:
    name = validate_id(record_id)
    return name, (record_id[len(name) + 1 :] or None)


class Omitted:
    __slots__ = ("text", "chars", "first", "last")

    def __init__(self, text: bytes, chars: int, first: int, last: int) -> None:
        self.text = text
        self.chars = chars
        self.first = first
        self.last = last


def _is_regular(info: os.stat_result) -> bool:
    return stat.S_ISREG(info.st_mode)


def _ours(info: os.stat_result) -> bool:
    return not hasattr(os, "getuid") or info.st_uid == os.getuid()


class SpillStore:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._written: set[str] = set()  # names this store wrote: gc never removes them

    # -- the directory ---------------------------------------------------------------------------

    def _open_dir(self, create: bool) -> int:
        """A descriptor of the spill directory, checked; raise SpillError when it must not be
        used (FileNotFoundError when it does not exist and ``create`` is false)."""
        if create:
            self._make_dirs()
        try:
            fd = os.open(self.path, os.O_RDONLY | _O_DIRECTORY | _O_NOFOLLOW | _O_CLOEXEC)
        except FileNotFoundError:
            if create:
                raise SpillError(f"cannot create spill directory {self.path}") from None
            raise
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                raise SpillError(
                    f"spill directory {self.path} is not a directory (a symlink or a file); refusing to use it"
                ) from None
            raise SpillError(f"cannot open spill directory {self.path}: {exc.strerror or exc}") from None
        try:
            info = os.fstat(fd)
            if not stat.S_ISDIR(info.st_mode):  # pragma: no cover - O_DIRECTORY already refuses
                raise SpillError(f"spill directory {self.path} is not a directory; refusing to use it")
            if not _ours(info):
                raise SpillError(f"spill directory {self.path} belongs to another user; refusing to use it")
            if info.st_mode & 0o022:
                raise SpillError(
                    f"spill directory {self.path} is writable by other users (mode {info.st_mode & 0o777:04o}); "
                    f"refusing to use it: fix with `chmod 700 {shlex.quote(str(self.path))}`"
                )
        except BaseException:
            os.close(fd)
            raise
        return fd

    def _make_dirs(self) -> None:
        """Create the directory and any missing parent with mode 0700 (never 0777 under umask 000)."""
        missing = []
        path = self.path
        while not os.path.lexists(path) and path != path.parent:
            missing.append(path)
            path = path.parent
        for path in reversed(missing):
            try:
                os.mkdir(path, 0o700)
            except FileExistsError:
                pass
            except OSError as exc:
                raise SpillError(f"cannot create spill directory {self.path}: {exc.strerror or exc}") from None

    # -- writing -------------------------------------------------------------------------------

    def save(self, record: Record) -> str:
        """Write ``record`` durably and return its new id ``P<n>-<check>``."""
        fd = self._open_dir(create=True)
        try:
            try:
                check = self._check(fd, record)
                meta = json.dumps(record.metadata(check), separators=(",", ":")).encode() + b"\n"
                digest = hashlib.sha256(meta)
                digest.update(record.body)
                head = MAGIC + check.encode() + b" " + digest.hexdigest().encode() + b"\n" + meta
                name = self._publish(fd, (head, record.body), lambda tmp: self._link_next(fd, tmp))
            except OSError as exc:
                raise SpillError(f"cannot write to spill directory {self.path}: {exc.strerror or exc}") from exc
            record.name, record.check = name, check
            self._written.add(name)
            if int(name[1:]) % GC_EVERY == 0:  # keep the directory bounded without a cron job
                try:
                    self._gc(fd, GC_AGE, GC_BYTES, time.time())
                except (OSError, SpillError):
                    pass  # housekeeping never fails a prune
        finally:
            os.close(fd)
        return record.id

    def save_full(self, record_id: str, data: bytes) -> Path:
        """Write ``data`` verbatim as ``P<n>.txt`` (for the envelope's header), durably."""
        final = f"{validate_id(record_id)}.txt"
        fd = self._open_dir(create=True)
        try:
            def place(tmp: str) -> str:
                os.replace(tmp, final, src_dir_fd=fd, dst_dir_fd=fd)
                return final

            try:
                self._publish(fd, (data,), place)
            except OSError as exc:
                raise SpillError(f"cannot write to spill directory {self.path}: {exc.strerror or exc}") from exc
            self._written.add(final)
        finally:
            os.close(fd)
        return self.path / final

    def _publish(self, fd: int, parts: Sequence[bytes], place) -> str:
        """Write ``parts`` to a temporary file, then ``place(tmp)`` gives it its final name; the
        temporary name never survives."""
        tmp = self._write_temp(fd, parts)
        try:
            name = place(tmp)
            os.fsync(fd)
            return name
        finally:
            try:
                os.unlink(tmp, dir_fd=fd)
            except OSError:
                pass

    def _write_temp(self, fd: int, parts: Iterable[bytes], prefix: str = ".tmp-", sync: bool = True) -> str:
        """``parts``, one after the other, in a new private temporary file of the directory,
        written and fsynced unless not ``sync`` (in parts: a large input is never copied to be written)."""
        tmp = f"{prefix}{os.getpid()}-{os.urandom(6).hex()}"
        out = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_NOFOLLOW | _O_CLOEXEC, 0o600, dir_fd=fd)
        try:
            for part in parts:
                view = memoryview(part)
                while view:
                    view = view[os.write(out, view) :]
            if sync:
                os.fsync(out)
        except BaseException:
            os.close(out)
            os.unlink(tmp, dir_fd=fd)
            raise
        os.close(out)
        return tmp

    def _link_next(self, fd: int, tmp: str) -> str:
        with _Lock(fd, self.path):
            n = self._read_counter(fd)
            while True:
                if n > MAX_NUMBER:
                    raise SpillError(
                        f"spill directory {self.path} has used every id up to P{MAX_NUMBER}; "
                        "use another one (--spill-dir) or delete it"
                    )
                try:
                    os.link(tmp, f"P{n}", src_dir_fd=fd, dst_dir_fd=fd, follow_symlinks=False)
                    break
                except FileExistsError:
                    n += 1
            self._write_counter(fd, n + 1)
        return f"P{n}"

    def _read_counter(self, fd: int) -> int:
        """The next id number from ``.next``; when it is missing, damaged, too big or not a
        regular file, one past the highest record left."""
        data = _read_small(fd, _COUNTER, _COUNTER_MAX_BYTES)
        if data is not None:
            text = data.strip()
            if text.isdigit() and 1 <= int(text) <= MAX_NUMBER + 1 and len(text) <= 13:
                return int(text)
        highest = max((int(name[1:]) for name in os.listdir(fd) if _BARE.fullmatch(name)), default=0)
        buried = max((int(name[1:]) for name in _tombstones(fd)), default=0)
        return max(highest, buried) + 1

    def _write_counter(self, fd: int, value: int) -> None:
        # not fsynced: a counter lost in a crash is recounted from the records and .gone
        tmp = self._write_temp(fd, (str(value).encode(),), prefix=f"{_COUNTER}.", sync=False)
        try:
            os.replace(tmp, _COUNTER, src_dir_fd=fd, dst_dir_fd=fd)
        except OSError:
            os.unlink(tmp, dir_fd=fd)
            raise

    def _check(self, fd: int, record: Record) -> str:
        """The record's check: HMAC-SHA256 of its content under the directory's key, 8 hex digits."""
        mac = hmac.new(self._key(fd), record.content(), hashlib.sha256)
        mac.update(record.body)
        return mac.hexdigest()[:8]

    def _key(self, fd: int) -> bytes:
        """The directory's random secret, made on first use (under the lock, written whole)."""
        key = _parse_key(_read_small(fd, _KEY, 64))
        if key is not None:
            return key
        with _Lock(fd, self.path):
            key = _parse_key(_read_small(fd, _KEY, 64))
            if key is None:
                key = os.urandom(16)
                tmp = self._write_temp(fd, (key.hex().encode() + b"\n",), prefix=".key.")
                try:
                    os.replace(tmp, _KEY, src_dir_fd=fd, dst_dir_fd=fd)
                except OSError:
                    os.unlink(tmp, dir_fd=fd)
                    raise
        return key

    # -- reading -------------------------------------------------------------------------------

    def load(self, record_id: str) -> Record:
        """The record an id names, checked against the id: raise OmittedError when it does not
        exist, cannot be used, is damaged, or is not the record the id was printed for."""
        name, check = _split_id(record_id)
        try:
            record = self.read(name)
        except OmittedError as exc:
            if exc.outcome == "not_found":
                raise self._missing(name, check) from None
            raise
        if check is None and record.check is not None:
            raise OmittedError(
                "unchecked", f"{name} has no check part: pass the id exactly as the marker prints it "
                f"({name}-<8 hex digits>; `toolprune spill list` shows them)"
            )
        if check is not None and check != record.check:
            raise OmittedError(
                "mismatch", f"this id does not match record {name}: the marker is stale or forged "
                f"(printed for another record, or before {self.path} was deleted and made again)"
            )
        return record

    def _missing(self, name: str, check: str | None) -> OmittedError:
        """Why record ``name`` is not there: removed by gc (for this very id), or never made."""
        try:
            fd = self._open_dir(create=False)
        except (OSError, SpillError):
            buried = {}
        else:
            try:
                buried = _tombstones(fd)
            finally:
                os.close(fd)
        if name in buried:
            was, when = buried[name]
            if check is not None and was is not None and was != check:
                return OmittedError(
                    "mismatch", f"this id does not match record {name}: the marker is stale or forged"
                )
            day = time.strftime("%Y-%m-%d", time.gmtime(when))
            return OmittedError(
                "gone", f"record {name} was removed by gc on {day} (past the age or size limit); "
                "its text cannot be returned — run the tool again"
            )
        return OmittedError(
            "not_found", f"no record {name} in {self.path}: it never existed here (or the spill directory "
            "was deleted since); pass the id printed in the marker"
        )

    def read(self, name: str) -> Record:
        """Record ``P<n>`` as stored (its id not checked), for listings."""
        name = validate_id(name)
        missing = OmittedError("not_found", f"no record {name} in {self.path}; pass the id printed in the marker")
        try:
            fd = self._open_dir(create=False)
        except FileNotFoundError:
            raise missing from None
        except SpillError as exc:
            raise OmittedError("refused", exc.message) from None
        try:
            try:
                rfd = os.open(name, os.O_RDONLY | _O_NOFOLLOW | _O_NONBLOCK | _O_CLOEXEC, dir_fd=fd)
            except FileNotFoundError:
                raise missing from None
            except OSError as exc:
                if exc.errno == errno.ELOOP:
                    raise OmittedError("refused", f"record {name} is a symlink; refusing to read it") from None
                raise OmittedError("refused", f"cannot open record {name}: {exc.strerror or exc}") from None
        finally:
            os.close(fd)
        try:  # checked before it is wrapped: a directory named like a record cannot be opened as a file
            info = os.fstat(rfd)
            if not _is_regular(info):
                raise OmittedError("refused", f"record {name} is not a regular file; refusing to read it")
            if not _ours(info):
                raise OmittedError("refused", f"record {name} belongs to another user; refusing to read it")
        except BaseException:
            os.close(rfd)
            raise
        with os.fdopen(rfd, "rb") as handle:
            data = handle.read()
        record = _parse(name, data)
        record.name = name
        return record

    # -- housekeeping --------------------------------------------------------------------------

    def ids(self) -> list[str]:
        """The name ``P<n>`` of every record in the directory, oldest first (SpillError when the
        directory must not be used)."""
        try:
            fd = self._open_dir(create=False)
        except FileNotFoundError:
            return []
        try:
            names = [n for n in os.listdir(fd) if _BARE.fullmatch(n)]
        finally:
            os.close(fd)
        return sorted(names, key=lambda i: int(i[1:]))

    def gc(self, older_than: float = GC_AGE, max_bytes: int = GC_BYTES, now: float | None = None) -> tuple[int, int]:
        """Remove records older than ``older_than`` seconds, then the oldest ones until the
        directory holds at most ``max_bytes``, and leftover temporary files; return (files
        removed, bytes freed). Records younger than ``GC_GRACE`` and those this store wrote are
        kept whatever the limits. Safe while other processes write and read: files are unlinked
        whole (a reader that has one open keeps reading it)."""
        try:
            fd = self._open_dir(create=False)
        except FileNotFoundError:
            return 0, 0
        try:
            return self._gc(fd, older_than, max_bytes, time.time() if now is None else now)
        finally:
            os.close(fd)

    def _gc(self, fd: int, older_than: float, max_bytes: int, now: float) -> tuple[int, int]:
        records = []
        temporary = []
        total = 0
        for name in os.listdir(fd):
            stem = name[:-4] if name.endswith(".txt") else name
            is_temp = name.startswith(_TEMPORARY)
            if not (is_temp or _BARE.fullmatch(stem)):
                continue
            try:
                info = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except FileNotFoundError:
                continue
            if not _is_regular(info):  # a directory or FIFO named like a record is not ours to judge
                continue
            mtime = info.st_mtime
            if mtime > now:  # dated in the future by a skewed clock: it ages from now on
                try:
                    os.utime(name, (now, now), dir_fd=fd, follow_symlinks=False)
                except OSError:
                    pass
                mtime = now
            if is_temp:
                temporary.append((mtime, name, info.st_size))
                continue
            total += info.st_size
            if name in self._written or stem in self._written or now - mtime < GC_GRACE:
                continue
            records.append((mtime, int(stem[1:]), name, info.st_size))
        doomed = [(name, size) for mtime, name, size in temporary if now - mtime >= TEMP_AGE]
        for mtime, _, name, size in sorted(records):
            if now - mtime >= older_than or total > max_bytes:
                doomed.append((name, size))
                total -= size
        removed = freed = 0
        buried = []
        for name, size in doomed:
            check = _check_of(fd, name) if _BARE.fullmatch(name) else None
            try:
                os.unlink(name, dir_fd=fd)
            except FileNotFoundError:
                continue
            removed += 1
            freed += size
            if _BARE.fullmatch(name):
                buried.append(f"{name}-{check}" if check else name)
        if buried:
            try:
                self._bury(fd, buried, now)
            except (OSError, SpillError):
                pass  # the notes only improve a message; the records are gone either way
        return removed, freed

    def _bury(self, fd: int, ids: list[str], now: float) -> None:
        """Add ``ids`` to ``.gone``, keeping it under ``_GONE_MAX_BYTES`` (oldest lines go first)."""
        lines = "".join(f"{record_id} {int(now)}\n" for record_id in ids).encode()
        with _Lock(fd, self.path):
            old = _read_small(fd, _GONE, _GONE_MAX_BYTES) or b""
            data = old + lines
            if len(data) > _GONE_MAX_BYTES:
                data = data[len(data) - _GONE_MAX_BYTES // 2 :]
                data = data[data.find(b"\n") + 1 :]
            tmp = self._write_temp(fd, (data,), prefix=".tmp-")
            try:
                os.replace(tmp, _GONE, src_dir_fd=fd, dst_dir_fd=fd)
            except OSError:
                os.unlink(tmp, dir_fd=fd)
                raise

    def omitted(self, record_id: str, first: int, last: int | None = None) -> Omitted:
        """The dropped units of ``first..last`` (inclusive, clamped), verbatim."""
        if first < 0 or (last is not None and last < first):
            raise UsageError(f"invalid range {first}..{last}: FROM must be ≥ 0 and TO ≥ FROM")
        record = self.load(record_id)
        return select_dropped(record, record_id, first, last)


def _read_small(fd: int, name: str, limit: int) -> bytes | None:
    """The content of a small regular file of the directory, or None when it is missing, not a
    regular file (a FIFO never blocks: it is opened non-blocking) or over ``limit`` bytes."""
    try:
        handle = os.open(name, os.O_RDONLY | _O_NOFOLLOW | _O_NONBLOCK | _O_CLOEXEC, dir_fd=fd)
    except OSError:
        return None
    try:
        if not _is_regular(os.fstat(handle)):
            return None
        data = os.read(handle, limit + 1)
    except OSError:
        return None
    finally:
        os.close(handle)
    return data if len(data) <= limit else None


def _tombstones(fd: int) -> dict[str, tuple[str | None, float]]:
    """``.gone``: the name of every record gc removed → (its check or None, when)."""
    data = _read_small(fd, _GONE, _GONE_MAX_BYTES) or b""
    out: dict[str, tuple[str | None, float]] = {}
    for line in data.decode("ascii", "replace").splitlines():
        parts = line.split()
        if len(parts) != 2 or not parts[1].isdigit():
            continue
        match = _CHECKED.fullmatch(parts[0])
        if match:
            out[f"P{match.group(1)}"] = (match.group(2), float(parts[1]))
        elif _BARE.fullmatch(parts[0]):
            out[parts[0]] = (None, float(parts[1]))
    return out


def _check_of(fd: int, name: str) -> str | None:
    """The check on the first line of record ``name`` (None for format 1 or anything odd)."""
    head = _read_head(fd, name, len(MAGIC) + 8)
    if head is None or not head.startswith(MAGIC):
        return None
    check = head[len(MAGIC) :].decode("ascii", "replace")
    return check if re.fullmatch(r"[0-9a-f]{8}", check) else None


def _read_head(fd: int, name: str, size: int) -> bytes | None:
    try:
        handle = os.open(name, os.O_RDONLY | _O_NOFOLLOW | _O_NONBLOCK | _O_CLOEXEC, dir_fd=fd)
    except OSError:
        return None
    try:
        return os.read(handle, size) if _is_regular(os.fstat(handle)) else None
    except OSError:
        return None
    finally:
        os.close(handle)


def _parse_key(data: bytes | None) -> bytes | None:
    if data is None:
        return None
    text = data.strip()
    if len(text) != 32 or re.fullmatch(rb"[0-9a-f]{32}", text) is None:
        return None
    return bytes.fromhex(text.decode())


def select_dropped(record: Record, record_id: str, first: int, last: int | None) -> Omitted:
    top = len(record.units) - 1
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
    chars = len(text.decode("utf-8", "replace"))
    if chars > OMITTED_MAX_CHARS:
        a, b = dropped[0], _fits(record, dropped)
        if b is None:
            hint = (f"unit {a} alone holds more; `toolprune spill show {record_id}` prints the whole input")
        else:
            hint = f"narrow it: toolprune omitted {record_id} {a} {b}" + (
                f", then continue from {b + 1}" if b < dropped[-1] else ""
            )
        raise OmittedError(
            "too_large", f"the range holds {chars:,} chars, over the {OMITTED_MAX_CHARS:,} limit; {hint}"
        )
    return Omitted(text=text, chars=chars, first=first, last=last)


def _fits(record: Record, dropped: list[int]) -> int | None:
    """The last unit of the longest run of ``dropped`` from its start whose text fits one call
    (a conservative count: bytes, which are never fewer than chars), or None."""
    total, best = 0, None
    for i in dropped:
        start, end = record.units[i]
        total += end - start + len(record.sep.encode())
        if total > OMITTED_MAX_CHARS:
            break
        best = i
    return best


def _parse(record_id: str, data: bytes) -> Record:
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


class _Lock:
    """An exclusive ``flock`` on the directory's lock file, waited for at most ``LOCK_WAIT``
    seconds (then SpillError); a no-op where flock does not exist."""

    def __init__(self, dir_fd: int, path: Path) -> None:
        self.dir_fd = dir_fd
        self.path = path
        self.fd = -1

    def __enter__(self) -> _Lock:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX
            return self
        self.fd = os.open(_LOCK, os.O_RDWR | os.O_CREAT | _O_NOFOLLOW | _O_NONBLOCK | _O_CLOEXEC, 0o600,
                          dir_fd=self.dir_fd)
        try:
            info = os.fstat(self.fd)
            if not _is_regular(info) or not _ours(info):
                raise SpillError(f"the lock file {self.path / _LOCK} is not a regular file of yours; remove it")
            deadline = time.monotonic() + LOCK_WAIT
            while True:
                try:
                    fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    return self
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise SpillError(
                            f"the spill directory {self.path} stayed locked for {LOCK_WAIT:g} s "
                            f"(another process holds {self.path / _LOCK})"
                        ) from None
                    time.sleep(0.01)
        except BaseException:
            os.close(self.fd)
            self.fd = -1
            raise

    def __exit__(self, *exc: object) -> None:
        if self.fd >= 0:
            os.close(self.fd)  # closing releases the lock
            self.fd = -1

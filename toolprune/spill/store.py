"""The spill store: durable records of pruned inputs, addressed by checked ids ``P<n>-<check>``
(the record format and the ids: ``toolprune.spill.format``; gc: ``toolprune.spill.gc``).

Safety. The directory is opened once, with ``O_DIRECTORY | O_NOFOLLOW``, and checked on that
descriptor: a real directory, owned by this user, not writable by group or others. Every file
operation after that is relative to the descriptor, so renaming or symlinking a parent directory
afterwards cannot redirect anything (how its files are opened: ``toolprune.spill.files``).

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
import os
import shlex
import stat
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from toolprune.core.record import Record
from toolprune.errors import OmittedError, SpillError, UsageError
from toolprune.spill.files import (
    O_CLOEXEC,
    O_DIRECTORY,
    O_NOFOLLOW,
    O_NONBLOCK,
    Lock,
    is_regular,
    ours,
    read_small,
    write_temp,
)
from toolprune.spill.format import BARE, MAGIC, MAX_NUMBER, parse_key, parse_record, split_id, validate_id
from toolprune.spill.gc import GC_AGE, GC_BYTES, GC_EVERY, collect, tombstones
from toolprune.spill.omitted import Omitted, select_dropped

_COUNTER = ".next"
_COUNTER_MAX_BYTES = 32
_KEY = ".key"


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
            fd = os.open(self.path, os.O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
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
            if not ours(info):
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
                lists = record.encoded_lists()
                check = self._check(fd, record, lists)
                meta = record.metadata_line(check, lists)
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
                    collect(fd, self.path, self._written, GC_AGE, GC_BYTES, time.time())
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

    def _publish(self, fd: int, parts: Sequence[bytes], place: Callable[[str], str]) -> str:
        """Write ``parts`` to a temporary file, then ``place(tmp)`` gives it its final name; the
        temporary name never survives."""
        tmp = write_temp(fd, parts)
        try:
            name = place(tmp)
            os.fsync(fd)
            return name
        finally:
            try:
                os.unlink(tmp, dir_fd=fd)
            except OSError:
                pass

    def _link_next(self, fd: int, tmp: str) -> str:
        with Lock(fd, self.path):
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
        data = read_small(fd, _COUNTER, _COUNTER_MAX_BYTES)
        if data is not None:
            text = data.strip()
            if text.isdigit() and 1 <= int(text) <= MAX_NUMBER + 1 and len(text) <= 13:
                return int(text)
        highest = max((int(name[1:]) for name in os.listdir(fd) if BARE.fullmatch(name)), default=0)
        buried = max((int(name[1:]) for name in tombstones(fd)), default=0)
        return max(highest, buried) + 1

    def _write_counter(self, fd: int, value: int) -> None:
        # not fsynced: a counter lost in a crash is recounted from the records and .gone
        tmp = write_temp(fd, (str(value).encode(),), sync=False)
        try:
            os.replace(tmp, _COUNTER, src_dir_fd=fd, dst_dir_fd=fd)
        except OSError:
            os.unlink(tmp, dir_fd=fd)
            raise

    def _check(self, fd: int, record: Record, lists: tuple[str, str]) -> str:
        """The record's check: HMAC-SHA256 of its content under the directory's key, 8 hex digits."""
        mac = hmac.new(self._key(fd), record.content(lists), hashlib.sha256)
        mac.update(record.body)
        return mac.hexdigest()[:8]

    def _key(self, fd: int) -> bytes:
        """The directory's random secret, made on first use (under the lock, written whole)."""
        key = parse_key(read_small(fd, _KEY, 64))
        if key is not None:
            return key
        with Lock(fd, self.path):
            key = parse_key(read_small(fd, _KEY, 64))
            if key is None:
                key = os.urandom(16)
                tmp = write_temp(fd, (key.hex().encode() + b"\n",))
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
        name, check = split_id(record_id)
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
                buried = tombstones(fd)
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
                rfd = os.open(name, os.O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, dir_fd=fd)
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
            if not is_regular(info):
                raise OmittedError("refused", f"record {name} is not a regular file; refusing to read it")
            if not ours(info):
                raise OmittedError("refused", f"record {name} belongs to another user; refusing to read it")
        except BaseException:
            os.close(rfd)
            raise
        with os.fdopen(rfd, "rb") as handle:
            data = handle.read()
        record = parse_record(name, data)
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
            names = [n for n in os.listdir(fd) if BARE.fullmatch(n)]
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
            return collect(fd, self.path, self._written, older_than, max_bytes, time.time() if now is None else now)
        finally:
            os.close(fd)

    def omitted(self, record_id: str, first: int, last: int | None = None) -> Omitted:
        """The dropped units of ``first..last`` (inclusive, clamped), verbatim."""
        if first < 0 or (last is not None and last < first):
            raise UsageError(f"invalid range {first}..{last}: FROM must be ≥ 0 and TO ≥ FROM")
        record = self.load(record_id)
        return select_dropped(record, record_id, first, last)

"""The files of a spill directory, reached through a descriptor of the directory.

Files are opened with ``O_NOFOLLOW | O_NONBLOCK`` and used only if they are regular files, so a
FIFO or a symlink in place of a record, the counter or the lock never blocks or redirects. New
files are written under a private temporary name first. The lock is an exclusive ``flock`` taken
with a bounded wait.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Iterable
from pathlib import Path

from toolprune.errors import SpillError

O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)

LOCK = ".lock"
TEMP_PREFIX = ".tmp-"
"""The name of every temporary file starts with this (then the process id and 12 random hex digits)."""
LOCK_WAIT = 5.0
"""Seconds to wait for the lock before giving up (the filter then passes its input through)."""


def is_regular(info: os.stat_result) -> bool:
    return stat.S_ISREG(info.st_mode)


def ours(info: os.stat_result) -> bool:
    return not hasattr(os, "getuid") or info.st_uid == os.getuid()


def write_temp(fd: int, parts: Iterable[bytes], sync: bool = True) -> str:
    """``parts``, one after the other, in a new private temporary file of the directory,
    written and fsynced unless not ``sync`` (in parts: a large input is never copied to be written)."""
    tmp = f"{TEMP_PREFIX}{os.getpid()}-{os.urandom(6).hex()}"
    out = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600, dir_fd=fd)
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


def read_small(fd: int, name: str, limit: int) -> bytes | None:
    """The content of a small regular file of the directory, or None when it is missing, not a
    regular file (a FIFO never blocks: it is opened non-blocking) or over ``limit`` bytes."""
    try:
        handle = os.open(name, os.O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, dir_fd=fd)
    except OSError:
        return None
    try:
        if not is_regular(os.fstat(handle)):
            return None
        data = os.read(handle, limit + 1)
    except OSError:
        return None
    finally:
        os.close(handle)
    return data if len(data) <= limit else None


def read_head(fd: int, name: str, size: int) -> bytes | None:
    try:
        handle = os.open(name, os.O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, dir_fd=fd)
    except OSError:
        return None
    try:
        return os.read(handle, size) if is_regular(os.fstat(handle)) else None
    except OSError:
        return None
    finally:
        os.close(handle)


class Lock:
    """An exclusive ``flock`` on the directory's lock file, waited for at most ``LOCK_WAIT``
    seconds (then SpillError); a no-op where flock does not exist."""

    def __init__(self, dir_fd: int, path: Path) -> None:
        self.dir_fd = dir_fd
        self.path = path
        self.fd = -1

    def __enter__(self) -> Lock:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX
            return self
        self.fd = os.open(LOCK, os.O_RDWR | os.O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600,
                          dir_fd=self.dir_fd)
        try:
            info = os.fstat(self.fd)
            if not is_regular(info) or not ours(info):
                raise SpillError(f"the lock file {self.path / LOCK} is not a regular file of yours; remove it")
            deadline = time.monotonic() + LOCK_WAIT
            while True:
                try:
                    fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    return self
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise SpillError(
                            f"the spill directory {self.path} stayed locked for {LOCK_WAIT:g} s "
                            f"(another process holds {self.path / LOCK})"
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

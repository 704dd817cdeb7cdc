"""The process's streams, injected so that TTY and pipe behaviour can be tested in one line."""

from __future__ import annotations

import os
import signal
import sys

from toolprune.cli import signals

# BinaryIO and TextIO are named in annotations only (never evaluated): importing typing would
# cost ~10 ms of start-up on every invocation.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, BinaryIO, Protocol, TextIO

    from toolprune.config import Layered

    class Output(Protocol):
        """Where the output goes: the binary stdout, or the stand-in for a closed one."""

        def write(self, data: bytes | memoryview, /) -> int | None: ...

        def flush(self) -> None: ...

CHUNK = 1 << 20
DRAIN_LIMIT = 64 << 20


class Environment:
    def __init__(self, stdin: BinaryIO, stdout: Output, stderr: TextIO | None, stdin_isatty: bool) -> None:
        self.stdin = stdin
        self.stdout = stdout
        self.stderr = stderr
        self.stdin_isatty = stdin_isatty
        self.stdin_used = False  # has a command read stdin (then no one else passes it through)
        self._environ: Layered | None = None

    @property
    def environ(self) -> Layered:
        """Where settings are read: the environment with the config file in its gaps (read once,
        when a command first asks). Nothing is written into ``os.environ``."""
        if self._environ is None:
            from toolprune.config import layered

            self._environ = layered(os.environ)
        return self._environ

    @environ.setter
    def environ(self, value: Layered) -> None:
        self._environ = value

    @classmethod
    def from_sys(cls) -> Environment:
        return cls(
            stdin=sys.stdin.buffer if sys.stdin is not None else open(os.devnull, "rb"),
            stdout=sys.stdout.buffer if sys.stdout is not None else _ClosedOutput(),
            stderr=sys.stderr,  # None when the process started with stderr closed
            stdin_isatty=bool(sys.stdin is not None and sys.stdin.isatty()),
        )

    def read_input(self, chunks: list[bytes]) -> bytes:
        """Read stdin to the end into ``chunks`` (so an interrupt keeps what was read).

        On the main thread a signal is only recorded while a chunk is in flight; the read loop
        wakes, takes in what the tool had already written (``drain``) and raises then, so no
        chunk is lost between a read and its append."""
        self.stdin_used = True
        fd = self._stdin_fd()
        if fd is None or not signals.installed():
            return self._read_plain(chunks)
        import select

        wake_r, wake_w = os.pipe()
        try:
            os.set_blocking(wake_w, False)
            previous = signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)
        except (ValueError, OSError):  # not the main thread
            os.close(wake_r)
            os.close(wake_w)
            return self._read_plain(chunks)
        try:
            with signals.deferred() as pending:
                poller = select.poll()
                poller.register(fd, select.POLLIN | select.POLLPRI)
                poller.register(wake_r, select.POLLIN)
                while True:
                    if pending() is not None:
                        self.drain(chunks)
                        signals.raise_pending()
                    ready = {f for f, _ in poller.poll()}
                    if fd not in ready:
                        continue
                    try:
                        chunk = os.read(fd, CHUNK)
                    except BlockingIOError:  # a non-blocking stdin shared with another process
                        continue
                    if not chunk:
                        break
                    chunks.append(chunk)
        finally:
            signal.set_wakeup_fd(previous)
            os.close(wake_r)
            os.close(wake_w)
        data = b"".join(chunks)
        chunks[:] = [data]  # one copy of the input, not two
        return data

    def _read_plain(self, chunks: list[bytes]) -> bytes:
        read = getattr(self.stdin, "read1", self.stdin.read)
        while True:
            chunk = read(CHUNK)
            if not chunk:
                data = b"".join(chunks)
                chunks[:] = [data]
                return data
            chunks.append(chunk)

    def drain(self, chunks: list[bytes]) -> None:
        """Append what stdin holds right now, without waiting (a pipe's buffered bytes: what
        the tool wrote before a signal), at most ``DRAIN_LIMIT`` bytes."""
        self.stdin_used = True
        fd = self._stdin_fd()
        if fd is None:
            return
        import select
        import stat

        try:
            if not stat.S_ISFIFO(os.fstat(fd).st_mode) and not stat.S_ISSOCK(os.fstat(fd).st_mode):
                return  # a file is read as far as it was; the rest is not "already written" output
            poller = select.poll()
            poller.register(fd, select.POLLIN)
            taken = 0
            while taken < DRAIN_LIMIT and poller.poll(0):
                chunk = os.read(fd, CHUNK)
                if not chunk:
                    return
                chunks.append(chunk)
                taken += len(chunk)
        except OSError:
            return

    def _stdin_fd(self) -> int | None:
        if self.stdin_isatty:
            return None
        try:  # nothing reads stdin before the command does, so its buffer is empty
            return self.stdin.fileno()
        except (AttributeError, ValueError, OSError):  # io.BytesIO and other in-process streams
            return None

    def pass_through(self, chunks: list[bytes]) -> None:
        """Write ``chunks`` one at a time: the way out when the input does not fit in memory twice
        (a join would need a second copy)."""
        for chunk in chunks:
            self.write_output(chunk)

    def copy_rest(self) -> None:
        """Copy what is left of stdin as it comes (``cat``): after a read that memory cut short."""
        fd = self._stdin_fd()
        read = getattr(self.stdin, "read1", self.stdin.read)
        while True:
            chunk = os.read(fd, CHUNK) if fd is not None else read(CHUNK)
            if not chunk:
                return
            self.write_output(chunk)

    def write_output(self, data: bytes) -> None:
        """Write all of ``data``: a short write (an unbuffered stdout, a reader that went away
        half-way) is continued, so that the loss shows as BrokenPipeError, never as success."""
        view = memoryview(data)
        while view:
            try:
                written = self.stdout.write(view)
            except BlockingIOError as exc:  # a non-blocking stdout shared with another process
                written = exc.characters_written
                _wait_writable(self.stdout)
            if written is None:  # a non-blocking raw stream that took nothing
                _wait_writable(self.stdout)
                continue
            view = view[written:]
        self.stdout.flush()

    def say(self, line: str) -> None:
        """One diagnostic line on stderr, with any API key in it (a key pasted as another
        setting's value, quoted back by its error message) replaced. A closed or broken stderr
        never breaks the output."""
        if self.stderr is None:
            return
        try:
            from toolprune.apikey import without_keys

            self.stderr.write(without_keys(line.rstrip("\n")) + "\n")
            self.stderr.flush()
        except Exception:  # noqa: BLE001 - a diagnostic must never stop the output
            pass


class _ClosedOutput:
    """stdout when the process started with it closed (``>&-``): no reader, as with ``| head``."""

    def write(self, data: bytes | memoryview, /) -> int:
        import errno

        raise BrokenPipeError(errno.EPIPE, "stdout is closed")

    def flush(self) -> None:
        pass


def _wait_writable(stream: Any) -> None:  # any stream: one without a file descriptor is not waited on
    import select

    try:
        select.select([], [stream.fileno()], [])
    except (AttributeError, ValueError, OSError):
        pass


def reserve_standard_fds() -> None:
    """A closed stdin, stdout or stderr (``2>&-``) gets /dev/null, so that no file opened later
    (a spill record) takes its number and receives what is meant for that stream."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            try:
                null = os.open(os.devnull, os.O_RDWR)
                if null != fd:
                    os.dup2(null, fd)
                    os.close(null)
            except OSError:
                pass

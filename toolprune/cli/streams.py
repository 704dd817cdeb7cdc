"""The process's streams, injected so that TTY and pipe behaviour can be tested in one line."""

from __future__ import annotations

# BinaryIO and TextIO are named in annotations only (never evaluated): importing typing would
# cost ~10 ms of start-up on every invocation.

import os
import sys

from toolprune.errors import Interrupted

CHUNK = 1 << 20


class Environment:
    def __init__(self, stdin: BinaryIO, stdout: BinaryIO, stderr: TextIO, stdin_isatty: bool) -> None:  # noqa: F821
        self.stdin = stdin
        self.stdout = stdout
        self.stderr = stderr
        self.stdin_isatty = stdin_isatty

    @classmethod
    def from_sys(cls) -> Environment:
        return cls(
            stdin=sys.stdin.buffer if sys.stdin is not None else open(os.devnull, "rb"),
            stdout=sys.stdout.buffer,
            stderr=sys.stderr,
            stdin_isatty=bool(sys.stdin is not None and sys.stdin.isatty()),
        )

    def read_input(self, chunks: list[bytes]) -> bytes:
        """Read stdin to the end into ``chunks`` (so an interrupt keeps what was read)."""
        read = getattr(self.stdin, "read1", self.stdin.read)
        while True:
            chunk = read(CHUNK)
            if not chunk:
                data = b"".join(chunks)
                chunks[:] = [data]  # one copy of the input, not two
                return data
            chunks.append(chunk)

    def write_output(self, data: bytes) -> None:
        self.stdout.write(data)
        self.stdout.flush()

    def say(self, line: str) -> None:
        """One diagnostic line on stderr."""
        try:
            self.stderr.write(line.rstrip("\n") + "\n")
            self.stderr.flush()
        except (OSError, ValueError):
            pass


def raise_on_sigterm() -> None:
    """Turn SIGTERM into an exception so that the filter can pass its input through."""
    import signal

    def handler(signum: int, frame: object) -> None:
        raise Interrupted(signum)

    try:
        signal.signal(signal.SIGTERM, handler)
    except (ValueError, OSError):  # not the main thread
        pass

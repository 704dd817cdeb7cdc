"""Error hierarchy and exit codes.

Command bodies raise these; ``toolprune.cli.main`` turns each into one stderr line and its
exit code. Nothing else in the package exits the process.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """Process exit statuses, listed in the README and the man page."""

    OK = 0
    #: ``omitted`` returned nothing: not dropped, no such record, range too large, damaged record.
    NOT_RETURNED = 1
    #: Bad flags, arguments, ids or configuration; nothing was done.
    USAGE = 2
    #: Hung up (SIGHUP: the terminal or the session went away); the input read so far was passed through.
    HANGUP = 129
    #: stdout was closed by the reader (``| head``): 128 + SIGPIPE, like any Unix filter.
    BROKEN_PIPE = 141
    #: Interrupted by SIGINT (Ctrl-C); the input read so far was passed through.
    INTERRUPTED = 130
    #: Terminated by SIGTERM; the input read so far was passed through.
    TERMINATED = 143


class ToolpruneError(Exception):
    """Base class: a message for the user and the exit code that goes with it."""

    exit_code: ExitCode = ExitCode.NOT_RETURNED

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class UsageError(ToolpruneError):
    """A flag, argument, id or setting the user gave is invalid."""

    exit_code = ExitCode.USAGE


class ScorerUnavailable(ToolpruneError):
    """The chosen scorer cannot work here (its extra is missing, no server is configured). The
    filter then passes its input through with this message; other commands exit 2."""

    exit_code = ExitCode.USAGE


class OmittedError(ToolpruneError):
    """``toolprune omitted`` cannot return the requested text; ``outcome`` names why."""

    exit_code = ExitCode.NOT_RETURNED

    def __init__(self, outcome: str, message: str) -> None:
        super().__init__(message)
        self.outcome = outcome


class SpillError(ToolpruneError):
    """The spill store could not be written; the filter passes its input through."""


class Interrupted(BaseException):
    """Raised from the SIGTERM and SIGHUP handler so that cleanup runs as for Ctrl-C."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

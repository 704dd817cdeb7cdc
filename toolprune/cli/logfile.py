"""The stats log: one line per prune and per ``omitted`` call, counts only, never content.

On by default, in the state directory (``stats.log``, mode 0600, rotated to ``stats.log.1`` past
4 MiB so it never grows without bound); ``TOOLPRUNE_LOG=/path`` (or the config key ``log``) writes
it elsewhere, and ``TOOLPRUNE_LOG=off`` turns it off. Writing it never fails the filter, and never
blocks it: the file is opened without waiting (a FIFO with no reader cannot hold the filter up)
and anything but a regular file is refused with one line.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable, Mapping
from pathlib import Path

OFF = frozenset({"", "off", "0", "no", "false", "none"})
ROTATE_BYTES = 4 << 20
DEFAULT_NAME = "stats.log"


def log_path(environ: Mapping[str, str]) -> tuple[Path | None, bool]:
    """The log file that ``environ`` (``TOOLPRUNE_LOG``) names, or None when logging is off, and
    whether it is the default one (only the default log is rotated: a file the user named is
    theirs)."""
    value = environ.get("TOOLPRUNE_LOG")
    if value is not None:
        if value.strip().lower() in OFF:
            return None, False
        return Path(os.path.expanduser(value)), False
    from toolprune.settings import state_dir

    return state_dir() / DEFAULT_NAME, True


def append(line: str, environ: Mapping[str, str], say: Callable[[str], None] | None = None) -> None:
    try:
        path, default = log_path(environ)
    except (OSError, ValueError):
        return
    if path is None:
        return
    refused = f"toolprune: TOOLPRUNE_LOG={path} is not a regular file; nothing was logged"
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            if say is not None:
                say(refused)
            return
        if default and os.stat(path).st_size > ROTATE_BYTES:
            os.replace(path, path.with_name(DEFAULT_NAME + ".1"))
    except OSError:
        pass  # not there yet: created below
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    try:
        if default:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK, 0o600)
    except OSError:
        return
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # replaced by something else meanwhile
            if say is not None:
                say(refused)
            return
        os.write(fd, f"{stamp} {line}\n".encode())
    except OSError:
        pass
    finally:
        os.close(fd)

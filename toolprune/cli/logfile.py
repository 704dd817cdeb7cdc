"""The optional log file (``TOOLPRUNE_LOG``): one line per prune and per ``omitted`` call, counts
only, never content (SPEC §9). Writing it never fails the filter, and never blocks it: the file
is opened without waiting (a FIFO with no reader cannot hold the filter up) and anything but a
regular file is refused with one line."""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable


def append(line: str, say: Callable[[str], None] | None = None) -> None:
    path = os.path.expanduser(os.environ.get("TOOLPRUNE_LOG", ""))
    if not path:
        return
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    refused = f"toolprune: TOOLPRUNE_LOG={path} is not a regular file; nothing was logged"
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            if say is not None:
                say(refused)
            return
    except OSError:
        pass  # not there yet: created below
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK, 0o600)
    except OSError:
        return
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # replaced by something else meanwhile
            if say is not None:
                say(refused)
            return
        os.write(fd, f"{stamp} {line}\n".encode("utf-8"))
    except OSError:
        pass
    finally:
        os.close(fd)

"""The optional log file (``TOOLPRUNE_LOG``): one line per prune and per ``omitted`` call, counts
only, never content (SPEC §9). Writing it never fails the filter."""

from __future__ import annotations

import os
import time


def append(line: str) -> None:
    path = os.path.expanduser(os.environ.get("TOOLPRUNE_LOG", ""))
    if not path:
        return
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, f"{stamp} {line}\n".encode("utf-8"))
        finally:
            os.close(fd)
    except OSError:
        pass

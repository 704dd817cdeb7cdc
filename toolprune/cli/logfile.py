"""The stats log: one line per prune and per ``omitted`` call, counts only, never content.

On by default, in the state directory (``stats.log``, mode 0600, rotated to ``stats.log.1`` past
4 MiB so it never grows without bound); ``TOOLPRUNE_LOG=/path`` (or the config key ``log``) writes
it elsewhere, and ``TOOLPRUNE_LOG=off`` turns it off. Writing it never fails the filter.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

OFF = frozenset({"", "off", "0", "no", "false", "none"})
ROTATE_BYTES = 4 << 20
DEFAULT_NAME = "stats.log"


def log_path() -> tuple[Path | None, bool]:
    """The log file, or None when logging is off, and whether it is the default one (only the
    default log is rotated: a file the user named is theirs)."""
    value = os.environ.get("TOOLPRUNE_LOG")
    if value is not None:
        if value.strip().lower() in OFF:
            return None, False
        return Path(os.path.expanduser(value)), False
    from toolprune.settings import state_dir

    return state_dir() / DEFAULT_NAME, True


def append(line: str) -> None:
    try:
        path, default = log_path()
        if path is None:
            return
        if default:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            try:
                if path.stat().st_size > ROTATE_BYTES:
                    os.replace(path, path.with_name(DEFAULT_NAME + ".1"))
            except FileNotFoundError:
                pass
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, f"{stamp} {line}\n".encode("utf-8"))
        finally:
            os.close(fd)
    except (OSError, ValueError):
        pass

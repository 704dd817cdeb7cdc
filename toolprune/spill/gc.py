"""Housekeeping of a spill directory: removing records past the age or size limit and leftover
temporary files, and noting each removed record in ``.gone``.

``.gone`` holds ``P<n>-<check> <time>`` lines, the last ~30,000, so ``omitted`` can tell "removed
by gc" from "never existed", and a lost counter still restarts after the highest number ever used.
"""

from __future__ import annotations

import os
from pathlib import Path

from toolprune.errors import SpillError
from toolprune.spill.files import TEMP_PREFIX, Lock, is_regular, read_small, write_temp
from toolprune.spill.format import BARE, CHECKED, check_of

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
GONE = ".gone"
GONE_MAX_BYTES = 1 << 20
TEMPORARY = (TEMP_PREFIX, ".next.", ".key.")
"""Temporary files (the last two: how the counter's and the key's were named before they took the common prefix)."""


def collect(fd: int, path: Path, written: set[str], older_than: float, max_bytes: int,
            now: float) -> tuple[int, int]:
    """gc of the directory ``fd`` (at ``path``), keeping the files named in ``written``; return
    (files removed, bytes freed)."""
    records = []
    temporary = []
    total = 0
    for name in os.listdir(fd):
        stem = name[:-4] if name.endswith(".txt") else name
        is_temp = name.startswith(TEMPORARY)
        if not (is_temp or BARE.fullmatch(stem)):
            continue
        try:
            info = os.stat(name, dir_fd=fd, follow_symlinks=False)
        except FileNotFoundError:
            continue
        if not is_regular(info):  # a directory or FIFO named like a record is not ours to judge
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
        if name in written or stem in written or now - mtime < GC_GRACE:
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
        check = check_of(fd, name) if BARE.fullmatch(name) else None
        try:
            os.unlink(name, dir_fd=fd)
        except FileNotFoundError:
            continue
        removed += 1
        freed += size
        if BARE.fullmatch(name):
            buried.append(f"{name}-{check}" if check else name)
    if buried:
        try:
            bury(fd, path, buried, now)
        except (OSError, SpillError):
            pass  # the notes only improve a message; the records are gone either way
    return removed, freed


def bury(fd: int, path: Path, ids: list[str], now: float) -> None:
    """Add ``ids`` to ``.gone``, keeping it under ``GONE_MAX_BYTES`` (oldest lines go first)."""
    lines = "".join(f"{record_id} {int(now)}\n" for record_id in ids).encode()
    with Lock(fd, path):
        old = read_small(fd, GONE, GONE_MAX_BYTES) or b""
        data = old + lines
        if len(data) > GONE_MAX_BYTES:
            data = data[len(data) - GONE_MAX_BYTES // 2 :]
            data = data[data.find(b"\n") + 1 :]
        tmp = write_temp(fd, (data,))
        try:
            os.replace(tmp, GONE, src_dir_fd=fd, dst_dir_fd=fd)
        except OSError:
            os.unlink(tmp, dir_fd=fd)
            raise


def tombstones(fd: int) -> dict[str, tuple[str | None, float]]:
    """``.gone``: the name of every record gc removed → (its check or None, when)."""
    data = read_small(fd, GONE, GONE_MAX_BYTES) or b""
    out: dict[str, tuple[str | None, float]] = {}
    for line in data.decode("ascii", "replace").splitlines():
        parts = line.split()
        if len(parts) != 2 or not parts[1].isdigit():
            continue
        match = CHECKED.fullmatch(parts[0])
        if match:
            out[f"P{match.group(1)}"] = (match.group(2), float(parts[1]))
        elif BARE.fullmatch(parts[0]):
            out[parts[0]] = (None, float(parts[1]))
    return out

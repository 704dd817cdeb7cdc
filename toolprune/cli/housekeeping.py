"""``toolprune gc``: remove old spill records."""

from __future__ import annotations

from pathlib import Path

from toolprune.cli.streams import Environment
from toolprune.errors import ExitCode, SpillError, UsageError
from toolprune.settings import parse_duration, parse_size, resolve_spill_dir
from toolprune.spill import SpillStore


def gc(env: Environment, older_than: str, max_size: str, spill_dir: Path | None) -> int:
    age, size = parse_duration(older_than), parse_size(max_size)
    directory = resolve_spill_dir(spill_dir)
    try:
        removed, freed = SpillStore(directory).gc(older_than=age, max_bytes=size)
    except SpillError as exc:
        raise UsageError(exc.message) from None
    env.write_output(f"removed {removed} files ({freed:,} bytes) from {directory}\n".encode())
    return ExitCode.OK

"""``toolprune spill path|list|show``: where the records are and what they hold."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from toolprune.cli.streams import Environment
from toolprune.errors import ExitCode, OmittedError, SpillError
from toolprune.settings import resolve_spill_dir
from toolprune.spill import SpillStore, validate_id


def path(env: Environment, spill_dir: Path | None) -> int:
    env.write_output(f"{resolve_spill_dir(spill_dir)}\n".encode())
    return ExitCode.OK


def listing(env: Environment, spill_dir: Path | None, as_json: bool) -> int:
    store = SpillStore(resolve_spill_dir(spill_dir))
    rows: list[dict[str, object]] = []
    try:
        names = store.ids()
    except SpillError as exc:
        env.say(f"toolprune: {exc.message}")
        return ExitCode.NOT_RETURNED
    for name in names:
        try:
            record = store.read(name)
        except OmittedError as exc:
            rows.append({"id": name, "error": exc.outcome})
            continue
        full = store.path / f"{name}.txt"
        rows.append({
            "id": record.id,
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(record.created)),
            "shape": record.shape,
            "bytes": len(record.body),
            "units": len(record.units),
            "dropped": len(record.dropped),
            "format": record.version,
            **({"full_output": str(full)} if os.path.exists(full) else {}),
        })
    if as_json:
        env.write_output((json.dumps(rows, indent=2) + "\n").encode())
        return ExitCode.OK
    lines = [f"{'id':>22}  {'created':20}  {'shape':12} {'bytes':>12} {'units':>6} {'dropped':>7}"]
    for row in rows:
        if "error" in row:
            lines.append(f"{row['id']:>22}  {row['error']}")
        else:
            lines.append(f"{row['id']:>22}  {row['created']:20}  {row['shape']:12} {row['bytes']:>12,} "
                         f"{row['units']:>6} {row['dropped']:>7}")
    env.write_output(("\n".join(lines) + "\n").encode())
    return ExitCode.OK


def show(env: Environment, record_id: str, spill_dir: Path | None) -> int:
    """The whole spilled input of a record, verbatim (what ``omitted`` returns in parts). The id is
    checked as for ``omitted``; a bare ``P<n>`` is accepted only for records of format 1, written
    before ids had a check part."""
    validate_id(record_id)
    try:
        record = SpillStore(resolve_spill_dir(spill_dir)).load(record_id)
    except OmittedError as exc:
        env.say(f"toolprune: {exc.message}")
        return ExitCode.NOT_RETURNED
    env.write_output(record.body)
    return ExitCode.OK

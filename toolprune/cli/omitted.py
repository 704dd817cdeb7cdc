"""``toolprune omitted ID FROM [TO]``: return dropped units verbatim, when ID is the checked id
(``P<n>-<check>``) its marker printed."""

from __future__ import annotations

import shlex
from pathlib import Path

from toolprune.cli.streams import Environment
from toolprune.errors import ExitCode, OmittedError
from toolprune.settings import resolve_spill_dir
from toolprune.spill import SpillStore, validate_id


def omitted(
    env: Environment, record_id: str, first: int, last: int, spill_dir: Path | None, verbose: bool
) -> int:
    validate_id(record_id, checked=True)  # a bare P<n> is what a forger would write
    directory = resolve_spill_dir(spill_dir)
    try:
        part = SpillStore(directory).omitted(record_id, first, last)
    except OmittedError as exc:
        message = exc.message
        from_env = env.environ.get("TOOLPRUNE_SPILL_DIR") or None
        flagged = spill_dir is not None and (from_env is None or Path(from_env) != spill_dir)  # not the variable's
        if flagged or (spill_dir is not None and not spill_dir.is_absolute()):  # the hint's call must find it
            call = f"toolprune omitted --spill-dir {shlex.quote(str(directory))} {record_id}"
            message = message.replace(f"toolprune omitted {record_id}", call)
        env.say(f"toolprune: {message}")
        _record(env, f"toolprune omitted: id={record_id} from={first} to={last} chars=- outcome={exc.outcome}", verbose)
        return ExitCode.NOT_RETURNED
    env.write_output(part.text)
    line = f"toolprune omitted: id={record_id} from={first} to={part.last} chars={part.chars} outcome=ok"
    _record(env, line, verbose)
    return ExitCode.OK


def _record(env: Environment, line: str, verbose: bool) -> None:
    if verbose:
        env.say(line)
    from toolprune.cli.logfile import append

    append(line, env.environ)

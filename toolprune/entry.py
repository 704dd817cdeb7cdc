"""The console script: handlers for SIGINT, SIGTERM and SIGHUP before anything else is imported.

A signal that arrives while the command-line layer is still being imported (tens of
milliseconds on a cold start) is only recorded, and handled as soon as the filter runs: the
tool's output that was piped in is passed through, exit 128 + N, as for a signal at any later
moment. (Before this module runs, the interpreter itself starts up: no Python code can handle a
signal then.)
"""

from __future__ import annotations

import signal


def main() -> None:
    first: list[int] = []

    def record(signum: int, frame: object) -> None:
        if not first:
            first.append(signum)

    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        signum = getattr(signal, name, None)
        if signum is not None and signal.getsignal(signum) != signal.SIG_IGN:  # ignored by the parent: left so
            signal.signal(signum, record)
    from toolprune.cli import signals

    signals.defer_until_run(first[0] if first else None)
    from toolprune.cli import main as run_cli

    run_cli()

"""``toolprune run [OPTIONS] -- CMD [ARGS...]``: run a command and prune what it printed.

The command's stdout and stderr go into one pipe, so they arrive interleaved exactly as an agent
reading ``CMD 2>&1`` sees them. When the command ends, the combined output is pruned against the
request like piped input (every rule of the filter holds: verbatim, spill first, passthrough on
any doubt) and toolprune exits with the command's own status: its exit code, or 128 + N when a
signal N ended it, as a shell reports it. That makes ``toolprune run -- pytest -x`` a drop-in
replacement for ``pytest -x`` in an agent's command line.

While the command runs, Ctrl-C and SIGQUIT are left to it (the terminal sends them to both);
SIGTERM and SIGHUP sent to toolprune are passed on to it. A command ended by a signal has its
output passed through unpruned.
"""

from __future__ import annotations

import io
import os
import signal
import subprocess

from toolprune.cli.streams import Environment
from toolprune.errors import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from signal import _HANDLER as Handler  # the stubs' name for what signal.signal takes and returns

    from toolprune.config import Layered

NOT_FOUND = 127
NOT_EXECUTABLE = 126
SESSION_MAX_AGE = 3_600
"""A remembered agent request older than this (seconds) is not used as the basis."""


def split_command(args: list[str]) -> tuple[list[str], list[str]]:
    """``[OPTIONS] -- CMD ARGS`` → (options, command). The ``--`` is required, so that the
    command's own flags are never read as toolprune's."""
    if "--" not in args:
        raise UsageError("put the command after --, e.g. `toolprune run --basis '…' -- pytest -x`")
    at = args.index("--")
    command = args[at + 1 :]
    if not command:
        raise UsageError("no command after --: e.g. `toolprune run --basis '…' -- pytest -x`")
    return args[:at], command


def execute(env: Environment, command: list[str]) -> tuple[bytes, int, bool]:
    """Run ``command``; return its combined output, the status to exit with, and whether a
    signal ended it."""
    # the handlers are in place before the command starts: a SIGTERM that comes while it starts
    # is held and passed on as soon as there is a process to pass it to
    started: list[subprocess.Popen] = []
    pending: list[int] = []

    def forward(signum: int, frame: object) -> None:
        if not started:
            pending.append(signum)
            return
        try:
            started[0].send_signal(signum)
        except OSError:
            pass

    previous: dict[signal.Signals, Handler] = {}

    def install(*actions: tuple[signal.Signals, Handler]) -> None:
        for signum, action in actions:
            try:
                previous[signum] = signal.signal(signum, action)
            except (ValueError, OSError):
                pass

    # a handler that is a Python function is reset by exec, an ignored signal is not: the
    # command must get the terminal's SIGINT and SIGQUIT, so those are ignored only once it runs
    install((signal.SIGTERM, forward), (signal.SIGHUP, forward))

    def restore() -> None:
        for signum, handler in previous.items():
            signal.signal(signum, handler)

    try:
        child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    except FileNotFoundError:
        restore()
        env.say(f"toolprune run: {command[0]}: command not found")
        return b"", NOT_FOUND, False
    except PermissionError:
        restore()
        env.say(f"toolprune run: {command[0]}: permission denied")
        return b"", NOT_EXECUTABLE, False
    except OSError as exc:
        restore()
        env.say(f"toolprune run: {command[0]}: {exc.strerror or exc}")
        return b"", NOT_EXECUTABLE, False
    install((signal.SIGINT, signal.SIG_IGN), (signal.SIGQUIT, signal.SIG_IGN))
    started.append(child)
    for held in pending:
        forward(held, None)
    output = child.stdout
    assert output is not None  # stdout=PIPE
    try:
        chunks, still_open = _read(child, output.fileno())
        status = child.wait()
        if still_open:
            env.say(
                f"toolprune run: {command[0]} exited {DRAIN_SECONDS:g} s ago and a process it started still holds "
                "its output open: what that process writes from now on is not read"
            )
    finally:
        output.close()
        restore()
    if status < 0:
        return b"".join(chunks), 128 - status, True
    return b"".join(chunks), status, False


DRAIN_SECONDS = 2.0
"""Once the command has exited, the pipe is read until its end of file, for ``DRAIN_SECONDS`` at
most: a process the command started in the background (``server & echo started``) holds the
pipe open, and a pipe's end of file would wait for it (a shell's ``cmd | toolprune`` does). What
it writes within that time is read too; when the pipe is still open after it, one line on
stderr says that reading stopped."""


def _read(child: subprocess.Popen, fd: int) -> tuple[list[bytes], bool]:
    """What ``child`` writes to the pipe ``fd`` until its end of file or, once ``child`` has
    exited, :data:`DRAIN_SECONDS` later; and whether the pipe was still open then."""
    import selectors
    import time

    chunks: list[bytes] = []
    exited: float | None = None
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while True:
            if exited is None and child.poll() is not None:
                exited = time.monotonic()
            left = None if exited is None else DRAIN_SECONDS - (time.monotonic() - exited)
            if left is not None and left <= 0:
                return chunks, True
            if not selector.select(0.05 if left is None else min(left, 0.05)):
                continue
            try:
                chunk = os.read(fd, 1 << 20)
            except InterruptedError:
                continue
            if not chunk:
                return chunks, False
            chunks.append(chunk)


def remembered_request() -> str | None:
    """The request an agent hook remembered: the session named by ``TOOLPRUNE_SESSION``, else the
    most recently remembered one if it is younger than an hour."""
    from toolprune.cli.hook import SESSION, _sessions

    folder = _sessions()
    named = os.environ.get("TOOLPRUNE_SESSION")
    try:
        if named:
            if not SESSION.fullmatch(named) or named.startswith("."):
                return None
            return (folder / named).read_text(encoding="utf-8")
        import time

        newest = max(folder.iterdir(), key=lambda p: p.stat().st_mtime, default=None)
        if newest is None or time.time() - newest.stat().st_mtime > SESSION_MAX_AGE:
            return None
        return newest.read_text(encoding="utf-8")
    except (OSError, ValueError):
        return None


def captured(env: Environment, data: bytes) -> Environment:
    """An environment whose stdin is the command's output (and whose settings are ``env``'s)."""
    inner = Environment(stdin=io.BytesIO(data), stdout=env.stdout, stderr=env.stderr, stdin_isatty=False)
    inner.environ = env.environ
    return inner


def options(opts: list[str], environ: Layered) -> tuple[dict, bool]:
    """The prune options given before ``--`` (the root action's flags, read by the same parsers
    as ``toolprune [OPTIONS]``, with the settings of ``environ``), and whether ``--spill-dir`` was
    on the command line."""
    from toolprune.cli import config_defaults, fast, without_empty_spill_dir

    opts = without_empty_spill_dir(opts)
    parsed = fast.parse_root(opts, environ)
    if parsed is not None:
        values, given = parsed
        return values, "spill_dir" in given
    import typer
    from typer._click.exceptions import ClickException  # typer 0.27 vendors click

    from toolprune.cli.app import app

    try:
        root = typer.main.get_command(app)
        ctx = root.make_context("toolprune run", list(opts), default_map=config_defaults(root, environ))
    except ClickException as exc:
        raise UsageError(exc.format_message()) from None
    # the words a group would take for a subcommand: the vendored click has no public name for them
    words = ctx._protected_args + ctx.args
    if words:
        extra = " ".join(words)
        raise UsageError(f"unexpected {extra!r} before --: toolprune's options go before --, the command after it")
    values = {k: v for k, v in ctx.params.items() if k != "version"}
    source = ctx.get_parameter_source("spill_dir")
    return values, source is not None and source.name == "COMMANDLINE"


def _check_scorer(values: dict) -> None:
    """The usage errors of ``--scorer`` and its server flags, without loading a scorer (the
    semantic one loads a model; a plugin only when its name is not built in)."""
    from toolprune.scorers import BUILTIN, available

    name = (values["scorer"] or "lexical").strip().lower()
    if name not in BUILTIN and name not in available():
        raise UsageError(f"unknown scorer {values['scorer']!r}; available: {', '.join(available())}")
    if values["provider"] or values["base_url"] or values["path"]:
        from toolprune.scorers.endpoints import check

        check(values["provider"], values["base_url"], values["path"], values["model"])


def checked_options(opts: list[str], environ: Layered) -> tuple[dict, bool]:
    """:func:`options`, with every usage error they can hold raised now (UsageError): what the
    filter would otherwise report only once it runs (``--basis-file`` aside, read by the caller)."""
    from toolprune.settings import (
        omitted_command,
        parse_lang,
        parse_signal,
        parse_threshold,
        parse_timeout,
        resolve_bounds,
        resolve_spill_dir,
    )

    values, spill_dir_from_flag = options(opts, environ)
    # the markers' command, made now for its check of the spill dir the markers would name
    omitted_command(resolve_spill_dir(values["spill_dir"]), values["spill_dir"], spill_dir_from_flag)
    parse_threshold(values["threshold"])
    parse_lang(values["lang"])
    parse_signal(values["signal"])
    parse_timeout(values["timeout"])
    resolve_bounds(values["fit"], values["max_chars"], values["max_lines"])
    _check_scorer(values)
    return values, spill_dir_from_flag


def main(args: list[str], env: Environment) -> int:
    """Run the command after ``--`` and prune its output; return the command's status."""
    from toolprune.cli.prune import _read_basis, prune
    from toolprune.errors import ToolpruneError

    opts, command = split_command(args)
    # settle every usage error before the command runs: afterwards nothing may lose its output
    values, spill_dir_from_flag = checked_options(opts, env.environ)
    if values["basis_file"] is not None:  # read now: a file that cannot be read is a usage error
        values["basis"], values["basis_file"] = _read_basis(values["basis"], values["basis_file"]), None
    if values["basis"] is None and values["basis_file"] is None:
        values["basis"] = remembered_request()
    data, status, signalled = execute(env, command)
    if signalled:
        env.write_output(data)
        return status
    try:
        prune(captured(env, data), **values, spill_dir_from_flag=spill_dir_from_flag)
    except ToolpruneError as exc:  # fail open: the command's output is never lost
        env.write_output(data)
        env.say(f"toolprune run: {exc.message}; the output was passed through unchanged")
    return status

"""The root action: read stdin, prune, spill, write stdout — failing open."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from toolprune.cli import signals
from toolprune.cli.streams import Environment
from toolprune.errors import ExitCode, Interrupted, UsageError
from toolprune.settings import omitted_command, refuse_keys, resolve

TYPE_CHECKING = False
if TYPE_CHECKING:
    from toolprune.core.models import Result
    from toolprune.core.scorer import Scorer
    from toolprune.settings import Bounds

NO_INPUT = (
    "toolprune: no input: pipe a tool's output in, e.g. "
    "`some-tool | toolprune --basis \"what the user asked\"` (toolprune --help)"
)


def _read_basis(basis: str | None, basis_file: Path | None) -> str | None:
    if basis is not None and basis_file is not None:
        raise UsageError("give either --basis or --basis-file, not both")
    if basis_file is None:
        return basis
    if str(basis_file) == "-" or _is_stdin(basis_file):
        raise UsageError(f"--basis-file {basis_file} is not allowed: stdin carries the tool output")
    try:
        return _read_request_file(basis_file).decode("utf-8", errors="replace")
    except OSError as exc:
        raise UsageError(f"cannot read --basis-file {basis_file}: {exc.strerror or exc}") from None


BASIS_FILE_MAX_BYTES = 64 * 1024
"""At most this much of ``--basis-file`` is read: the request gate reads its first 2,000
characters, and ``/dev/zero`` given by mistake must not fill the memory."""
BASIS_FILE_WAIT = 5.0
"""Seconds a ``--basis-file`` that is a pipe or FIFO (``<(echo "$PROMPT")``) may take to say
everything: a FIFO nobody writes to would otherwise hold the filter, and the tool output behind
it, forever."""


def _read_request_file(path: Path) -> bytes:
    """The first ``BASIS_FILE_MAX_BYTES`` of ``path``; a pipe or a device is read without
    blocking for at most ``BASIS_FILE_WAIT`` seconds (what came by then; OSError when nothing did)."""
    import select
    import stat
    import time

    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO opens even with no writer yet
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISREG(mode):
            os.set_blocking(fd, True)
            with os.fdopen(os.dup(fd), "rb") as file:
                return file.read(BASIS_FILE_MAX_BYTES)
        fifo = stat.S_ISFIFO(mode)
        chunks: list[bytes] = []
        size, end = 0, time.monotonic() + BASIS_FILE_WAIT
        while size < BASIS_FILE_MAX_BYTES and (left := end - time.monotonic()) > 0:
            select.select([fd], [], [], min(left, 0.05))
            try:
                chunk = os.read(fd, BASIS_FILE_MAX_BYTES - size)
            except BlockingIOError:  # a writer, nothing written yet
                continue
            if chunk:
                chunks.append(chunk)
                size += len(chunk)
            elif chunks or not fifo:  # the end of what was written (or an empty device)
                return b"".join(chunks)
            else:  # a FIFO with no writer yet reads as empty: wait for one
                time.sleep(0.05)
        if chunks:  # what came in time (a writer that keeps the pipe open says no more)
            return b"".join(chunks)
        raise OSError(f"nothing more came within {BASIS_FILE_WAIT:g} s (a FIFO no one writes to?)")
    finally:
        os.close(fd)


def _is_stdin(path: Path) -> bool:
    """Is ``path`` this process's standard input (``/dev/stdin``, ``/proc/self/fd/0``)? Reading
    it as the request would swallow the tool's output."""
    try:
        here, there = os.fstat(0), os.stat(path)
    except (OSError, ValueError):
        return False
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


GRACE = 1.0
"""Seconds past --timeout (counted from the end of reading) after which the whole prune is
abandoned and the input passed through: scoring has its own deadline, this one also bounds
splitting and signal-line scans (a catastrophic --signal pattern)."""
MAX_ALARM = 1e7  # setitimer's limit is far above; an hour-long timeout is still honoured


class DeadlinePassed(BaseException):
    """Raised from SIGALRM when the whole prune took longer than --timeout + GRACE."""


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Raise DeadlinePassed in the block once ``seconds`` have passed (main thread only; regular
    expressions check for signals, so a backtracking pattern is stopped too)."""
    import signal

    def on_alarm(signum: int, frame: object) -> None:
        raise DeadlinePassed()

    try:
        previous = signal.signal(signal.SIGALRM, on_alarm)
    except (AttributeError, ValueError, OSError):  # not the main thread, or no SIGALRM here
        yield
        return
    try:
        signal.setitimer(signal.ITIMER_REAL, min(seconds, MAX_ALARM))
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _preload_json_parser(data: bytes, judge: Scorer) -> None:
    """Import orjson with the signals held, when this input will need it: its import crashes
    the interpreter (SIGSEGV, orjson 3.13) when a handler raises inside it. The signal is then
    handled right after the import, as anywhere else."""
    from toolprune.core.jsonshape import opens_like_json

    if len(data) < 4000 or not (opens_like_json(data[:64]) or getattr(judge, "sends_data", False)):
        return
    with signals.held():
        try:
            import orjson  # noqa: F401
        except ImportError:
            pass


def prune(
    env: Environment,
    *,
    basis: str | None,
    basis_file: Path | None,
    threshold: str,
    lang: str,
    spill_dir: Path | None,
    spill_dir_from_flag: bool,
    timeout: float,
    scorer: str,
    provider: str | None,
    base_url: str | None,
    path: str | None,
    model: str | None,
    tail: int,
    signal: str | None,
    envelope: bool,
    label: str | None,
    max_chars: int | None,
    max_lines: int | None,
    fit: str | None,
    json_strict: bool,
    explain: bool,
    explain_json: bool,
    verbose: bool,
    debug: bool,
) -> int:
    request = _read_basis(basis, basis_file)
    resolved = resolve(
        {"threshold": threshold, "lang": lang, "timeout": timeout, "tail": tail, "signal": signal, "fit": fit,
         "max_chars": max_chars, "max_lines": max_lines, "envelope": envelope, "json_strict": json_strict,
         "spill_dir": spill_dir},
        {},  # typer has read the environment already
    )  # fmt: skip
    refuse_keys(label=label, provider=provider, base_url=base_url, path=path, model=model)
    timeout, bounds, directory = resolved.timeout, resolved.bounds, resolved.spill_dir
    command = omitted_command(directory, spill_dir, spill_dir_from_flag)  # works in any shell and folder
    judge = choose_scorer(env, scorer, provider, base_url, path, model)
    if env.stdin_isatty:
        env.say(NO_INPUT)
        return ExitCode.USAGE

    from toolprune.cli.progress import for_stream
    from toolprune.core.models import Stats
    from toolprune.service import run
    from toolprune.spill import SpillStore

    progress = for_stream(env.stderr)
    options = resolved.options(request or "", omitted_command=command, label=label, progress=progress)
    chunks: list[bytes] = []
    try:
        data = env.read_input(chunks)
        _preload_json_parser(data, judge)
        try:
            with deadline(timeout + GRACE):
                result = run(data, options, judge, SpillStore(directory))
        finally:
            if progress is not None:
                progress.close()
        _report(env, result, request, label, bounds, verbose, debug, explain, explain_json)
    except (KeyboardInterrupt, Interrupted) as exc:  # until the output starts: pass the input through
        data = b"".join(chunks)
        try:
            _write_uninterrupted(env, _enveloped(options.envelope, label, data, "cancelled"))
        except BrokenPipeError:
            raise
        except OSError:  # a terminal that hung up: nowhere to write, the signal's status stands
            pass
        env.say("toolprune: interrupted; the input read so far was passed through unchanged")
        if verbose:
            env.say(Stats(outcome="cancelled", raw_bytes=len(data)).line())
        return signals.exit_code(exc)
    except MemoryError:  # the input does not fit in memory twice over: pass it through as it was read
        data = b""  # (chunks hold it: one piece, or the pieces a join could not make one)
        env.say("toolprune: internal error: out of memory; input passed through unchanged")
        with signals.held():
            env.pass_through(chunks)
        env.copy_rest()  # when memory ran out before the end of the input (signals not held: it may be long)
        return ExitCode.OK
    except DeadlinePassed:
        env.say(
            f"toolprune: timeout: pruning did not finish within {timeout + GRACE:g} s; input passed through unchanged"
        )
        line = Stats(outcome="timeout", raw_bytes=len(data)).line() + (f" label={quote_label(label)}" if label else "")
        if verbose:
            env.say(line)
        _log(env, line)
        _write_uninterrupted(env, _enveloped(options.envelope, label, data, "timeout"))
        return ExitCode.OK
    _write_uninterrupted(env, result.output)
    return ExitCode.OK


def _enveloped(envelope: bool, label: str | None, data: bytes, outcome: str) -> bytes:
    """A passthrough's output: under ``--envelope`` still a header first (a reader takes the first
    line off), with nothing kept on disk to name."""
    if not envelope:
        return data
    from toolprune.envelope import unkept

    return unkept(label, data, outcome)


def _report(
    env: Environment, result: Result, request: str | None, label: str | None, bounds: Bounds, verbose: bool,
    debug: bool, explain: bool, explain_json: bool,
) -> None:
    """The diagnostics of one prune on stderr and in the log file, before its output."""
    if result.error is not None and debug:
        import traceback

        env.say("".join(traceback.format_exception(result.error)))
    if request is None and result.outcome == "no_basis":
        env.say("toolprune: no --basis given (or TOOLPRUNE_BASIS); input passed through unchanged")
    elif result.note:
        env.say(f"toolprune: {result.outcome}: {result.note}; input passed through unchanged")
    if result.plan is not None and result.plan.notice:
        env.say(f"toolprune: note: {result.plan.notice}")
    line = result.stats.line() + (f" label={quote_label(label)}" if label else "")
    if verbose:  # always one line, with why for the outcomes that never get to scoring
        # one token, so the line stays key=value pairs for scripts
        why = {"small": "input_under_4000_chars", "no_basis": "request_too_thin_to_judge"}
        if result.plan is not None and result.plan.compared:  # a listing or array kept whole (core/compare.py)
            why[result.outcome] = f"request_compares_entries_by_{result.plan.compared}"
        env.say(line + (f" why={why[result.outcome]}" if result.outcome in why and request is not None else ""))
    if result.outcome != "small":  # small inputs are not logged: they are most calls and save nothing
        _log(env, line)
    if (explain or explain_json) and result.plan is not None:
        from toolprune.cli.explain import show

        try:
            show(env, result, as_json=explain_json)
        except Exception as exc:  # noqa: BLE001 - a diagnostic must never stop the output
            env.say(f"toolprune: --explain failed: {type(exc).__name__}")
    missed = missed_bounds(result.output, bounds) if result.note is None else []  # a failure says one line
    if missed:
        env.say(
            f"toolprune: the output is over the {' and '.join(missed)} bound{'s' if len(missed) > 1 else ''}: "
            "JSON, undecodable input, a failure passthrough or the pinned tail and signal lines alone do not fit"
        )


def missed_bounds(output: bytes, bounds: Bounds) -> list[str]:
    """The bounds ``output`` does not keep, named for a person: ``10,240-byte``, ``256-line``."""
    from toolprune.envelope import line_count

    out = []
    if (limit := bounds.get("max_chars")) and len(output) > limit and len(output.decode("utf-8", "replace")) > limit:
        out.append(f"{limit:,}-char")
    if (limit := bounds.get("max_bytes")) and len(output) > limit:
        out.append(f"{limit:,}-byte")
    if (limit := bounds.get("max_lines")) and line_count(output) > limit:
        out.append(f"{limit:,}-line")
    return out


def choose_scorer(
    env: Environment, name: str, provider: str | None, base_url: str | None, path: str | None, model: str | None,
) -> Scorer:
    """The chosen scorer; a remote one only when the config file (if any) is valid."""
    from toolprune.errors import ScorerUnavailable
    from toolprune.scorers import Unavailable, get_scorer

    if provider or base_url or path:  # a typo is one, whichever scorer reads the value
        from toolprune.scorers.endpoints import check  # (~2 ms of import: only when there is something to check)

        check(provider, base_url, path, model)
    loaded = env.environ.config
    if loaded.invalid:
        env.say(f"toolprune: ignoring the config file {loaded.path}: {loaded.invalid}")
    try:
        judge = get_scorer(name, provider=provider, base_url=base_url, path=path, model=model)
    except ScorerUnavailable as exc:  # a setting, not the command line: fail open, loudly
        judge = Unavailable((name or "").strip().lower(), exc.message)
    if loaded.invalid and judge.sends_data:
        # what leaves the machine is allowed by a config file that was read whole
        env.say("toolprune: the remote scorer is disabled until the config file is fixed; scoring locally")
        return get_scorer("lexical")
    return judge


def quote_label(value: str) -> str:
    """A label as one token of the log line."""
    return "".join(c if c.isalnum() or c in "-_.:/" else "_" for c in value)[:80]


def _write_uninterrupted(env: Environment, data: bytes) -> None:
    """Write the output with SIGINT/SIGTERM/SIGHUP held, so a reader never gets half a pruned
    output. A signal that came during the write is too late to change the outcome."""
    try:
        with signals.held():
            env.write_output(data)
    except (KeyboardInterrupt, Interrupted):
        pass


def _log(env: Environment, line: str) -> None:
    from toolprune.cli.logfile import append

    append(line, env.environ, say=env.say)

"""The root action: read stdin, prune, spill, write stdout — failing open."""

from __future__ import annotations

import shlex
import signal
from pathlib import Path

from toolprune.cli.streams import Environment, raise_on_sigterm
from toolprune.errors import ExitCode, Interrupted, UsageError
from toolprune.settings import parse_lang, parse_signal, parse_threshold, resolve_bounds, resolve_spill_dir

NO_INPUT = (
    "toolprune: no input: pipe a tool's output in, e.g. "
    "`some-tool | toolprune --basis \"what the user asked\"` (toolprune --help)"
)


def _read_basis(basis: str | None, basis_file: Path | None) -> str | None:
    if basis is not None and basis_file is not None:
        raise UsageError("give either --basis or --basis-file, not both")
    if basis_file is None:
        return basis
    if str(basis_file) == "-":
        raise UsageError("--basis-file - is not allowed: stdin carries the tool output")
    try:
        return basis_file.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise UsageError(f"cannot read --basis-file {basis_file}: {exc.strerror or exc}") from None


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
    level = parse_threshold(threshold)
    language = parse_lang(lang)
    signal = parse_signal(signal)
    bounds = resolve_bounds(fit, max_chars, max_lines)
    directory = resolve_spill_dir(spill_dir)
    command = "toolprune omitted"
    if spill_dir_from_flag:  # name it, so the printed command works in any shell
        command += f" --spill-dir {shlex.quote(str(directory))}"
    judge = choose_scorer(env, scorer, provider, base_url, path, model)
    if env.stdin_isatty:
        env.say(NO_INPUT)
        return ExitCode.USAGE

    from toolprune.cli.progress import for_stream
    from toolprune.core.pipeline import Options, Stats, run
    from toolprune.spill import SpillStore

    progress = for_stream(env.stderr)
    options = Options(
        basis=request or "", threshold=level, lang=language, timeout=timeout, omitted_command=command,
        tail=tail, signal=signal, envelope=envelope, label=label, progress=progress, json_strict=json_strict, **bounds,
    )
    chunks: list[bytes] = []
    raise_on_sigterm()
    try:
        data = env.read_input(chunks)
        try:
            result = run(data, options, judge, SpillStore(directory))
        finally:
            if progress is not None:
                progress.close()
    except (KeyboardInterrupt, Interrupted) as exc:
        data = b"".join(chunks)
        env.write_output(data)
        env.say("toolprune: interrupted; the input read so far was passed through unchanged")
        if verbose:
            env.say(Stats(outcome="cancelled", raw_bytes=len(data)).line())
        return ExitCode.TERMINATED if isinstance(exc, Interrupted) else ExitCode.INTERRUPTED

    if result.error is not None and debug:
        import traceback

        env.stderr.write("".join(traceback.format_exception(result.error)))
    if request is None and result.outcome == "no_basis":
        env.say("toolprune: no --basis given (or TOOLPRUNE_BASIS); input passed through unchanged")
    elif result.note:
        env.say(f"toolprune: {result.outcome}: {result.note}; input passed through unchanged")
    if result.outcome != "small":
        line = result.stats.line() + (f" label={quote_label(label)}" if label else "")
        if verbose:
            env.say(line)
        from toolprune.cli.logfile import append

        append(line)
    if (explain or explain_json) and result.plan is not None:
        from toolprune.cli.explain import show

        show(env, result, as_json=explain_json)
    limit = bounds["max_chars"] or bounds["max_bytes"]
    if limit and len(result.output) > limit and len(result.output.decode("utf-8", "replace")) > limit:
        env.say(
            f"toolprune: the output is over the {limit:,}-char bound: JSON, undecodable input, a failure "
            "passthrough or the pinned tail and signal lines alone do not fit"
        )
    _write_uninterrupted(env, result.output)
    return ExitCode.OK


def choose_scorer(env: Environment, name: str, provider: str | None, base_url: str | None, path: str | None,
            model: str | None):
    """The chosen scorer; a remote one only when the config file (if any) is valid (SPEC §10)."""
    from toolprune import config
    from toolprune.errors import ScorerUnavailable
    from toolprune.scorers import Unavailable, get_scorer

    loaded = config.loaded()
    if loaded.invalid:
        env.say(f"toolprune: ignoring the config file {loaded.path}: {loaded.invalid}")
        if (name or "").strip().lower() == "systemone":
            env.say("toolprune: the remote scorer is disabled until the config file is fixed; scoring locally")
            name = "lexical"
    try:
        return get_scorer(name, provider=provider, base_url=base_url, path=path, model=model)
    except ScorerUnavailable as exc:  # a setting, not the command line: fail open, loudly
        return Unavailable((name or "").strip().lower(), exc.message)


def quote_label(value: str) -> str:
    """A label as one token of the log line."""
    return "".join(c if c.isalnum() or c in "-_.:/" else "_" for c in value)[:80]


def _write_uninterrupted(env: Environment, data: bytes) -> None:
    """Write the output with SIGINT/SIGTERM held, so a reader never gets half a pruned output."""
    held = {signal.SIGINT, signal.SIGTERM}
    try:
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    except (AttributeError, ValueError, OSError):
        env.write_output(data)
        return
    try:
        env.write_output(data)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)

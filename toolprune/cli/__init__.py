"""The command-line layer: typer declarations and the one place that maps errors to exit codes."""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Callable, Sequence

from toolprune.cli import signals
from toolprune.cli.streams import Environment, reserve_standard_fds
from toolprune.errors import ExitCode, Interrupted, ToolpruneError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from toolprune.config import Layered

__all__ = ["main", "run"]


def run(argv: Sequence[str] | None, env: Environment) -> int:
    """Run the CLI with ``argv`` against ``env``; return the exit status. Never raises
    (unless ``--debug``/``TOOLPRUNE_DEBUG=1`` asks for the traceback of an internal error)."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        signals.release_early()  # a signal while the CLI was imported (toolprune.entry)
        return _usage_passthrough(args, env, _run(args, env))
    except (KeyboardInterrupt, Interrupted) as exc:
        code = signals.exit_code(exc)
        if _filters(args, env):  # it landed before the filter took stdin over
            code = _pass_pipe_through(env, code)
        return code
    except BrokenPipeError:  # stdout closed (`>&-`) or its reader gone, outside any guarded command
        return _broken_pipe()


def _usage_passthrough(args: list[str], env: Environment, code: int) -> int:
    """A usage error of the filter with piped input: pass the input through (a typo never
    swallows the tool's output), still exit 2. An internal error before the input was read
    (exit 1) passes it through the same way."""
    if code not in (ExitCode.USAGE, ExitCode.NOT_RETURNED) or not _filters(args, env):
        return code
    try:
        chunks: list[bytes] = []
        rest = False
        try:
            env.read_input(chunks)
        except (KeyboardInterrupt, Interrupted) as exc:
            code = signals.exit_code(exc)
        except MemoryError:  # too large to hold: chunks have what was read, the rest is copied after it
            rest = True
        with signals.held():
            env.pass_through(chunks)  # one chunk at a time: an input too large to join is not lost
        if rest:
            env.copy_rest()
    except BrokenPipeError:
        return _broken_pipe()
    except OSError as exc:
        env.say(f"toolprune: cannot pass the input through: {exc}")
    return code


def _filters(args: list[str], env: Environment) -> bool:
    """Is this the filter (the root action) with piped input that no one has read yet?"""
    from toolprune.cli import fast

    return not env.stdin_used and not env.stdin_isatty and fast.is_filter(args)


def _pass_pipe_through(env: Environment, code: int) -> int:
    """Interrupted before reading: pass through what the tool has written into the pipe so far."""
    chunks: list[bytes] = []
    try:
        with signals.held():
            env.drain(chunks)
            env.write_output(b"".join(chunks))
    except (KeyboardInterrupt, Interrupted):  # a second signal, once the output is written
        pass
    except BrokenPipeError:
        return _broken_pipe()
    except OSError:
        pass
    env.say("toolprune: interrupted; the input read so far was passed through unchanged")
    return code


def _run(args: list[str], env: Environment) -> int:
    debug = "--debug" in args or os.environ.get("TOOLPRUNE_DEBUG", "").lower() in {"1", "true", "yes", "on"}
    if args in (["--version"], ["--help"], ["-h"]):
        quick = _fast(args, env, debug)
        return quick if quick is not None else _guarded(lambda: _typer(args, env), env, debug)
    from toolprune.config import layered

    env.environ = layered(os.environ)  # flags > environment > config file > defaults
    from toolprune.cli.fast import hoisted

    try:
        args = hoisted(args)  # `--spill-dir DIR omitted …`: the options go to the subcommand
    except ToolpruneError as exc:
        env.say(f"toolprune: error: {exc.message}")
        return ExitCode.USAGE
    quick = _fast(args, env, debug)
    if quick is not None:
        return quick
    return _guarded(lambda: _typer(args, env), env, debug)


def _fast(args: list[str], env: Environment, debug: bool) -> int | None:
    """The start-up fast path (see ``toolprune.cli.fast``); None hands over to typer."""
    from toolprune.cli import fast

    if args == ["--version"]:
        from toolprune import __version__

        env.write_output(f"toolprune {__version__}\n".encode())
        return ExitCode.OK
    if args in (["--help"], ["-h"]) and fast.help_width_ok(os.environ):
        from toolprune.cli.helptext import HELP

        env.write_output(HELP.encode())
        return ExitCode.OK
    if args[:1] == ["run"] and "--" in args:  # `run [OPTIONS] -- CMD`: typer would eat the `--`
        before = args[1 : args.index("--")]
        if "--help" in before or "-h" in before:  # run's own help, and the command not run
            return _guarded(lambda: _typer(["run", "--help"], env), env, debug)
        if "--version" in before:
            return _fast(["--version"], env, debug)
        from toolprune.cli.runcmd import main as run_command

        return _guarded(lambda: run_command(args[1:], env), env, debug)
    hook = HOOKS.get(args[1]) if len(args) == 2 and args[0] == "hook" else None
    if hook is not None:  # past typer: its checks of TOOLPRUNE_* would exit 2, which agents read as "block"
        import importlib

        serve = getattr(importlib.import_module(hook[0]), hook[1])
        return _guarded(lambda: serve(env), env, debug)
    recall = fast.parse_omitted(args, env.environ)
    if recall is not None:
        from toolprune.cli.omitted import omitted

        return _guarded(lambda: omitted(env, **recall), env, debug)
    parsed = fast.parse_root(args, env.environ)
    if parsed is None:
        return None
    values, given = parsed
    from toolprune.cli.prune import prune

    return _guarded(lambda: prune(env, **values, spill_dir_from_flag="spill_dir" in given), env, debug)


HOOKS = {
    "claude-code": ("toolprune.cli.hook", "claude_code"),
    "codex": ("toolprune.cli.hooks.codex", "codex"),
    "gemini": ("toolprune.cli.hooks.gemini", "gemini"),
}
"""``toolprune hook AGENT``, served without typer: an agent runs it on every prompt and tool call,
and a hook must answer nothing and exit 0 whatever the environment holds (a mistyped
``TOOLPRUNE_TAIL`` would make typer exit 2, and Claude Code and Gemini CLI block on exit 2). Each
hook reads the settings it needs itself and fails open."""


def _typer(args: list[str], env: Environment) -> int:
    import typer
    from typer._click.exceptions import ClickException  # typer 0.27 vendors click

    from toolprune.cli.app import app

    command = typer.main.get_command(app)
    if args[:1] and args[0] in getattr(command, "commands", {}):  # a subcommand: the root's flags are not used,
        for param in command.params:  # so a mistyped TOOLPRUNE_TAIL must not stop `config show` or `doctor`
            param.envvar = None
    try:
        result = command.main(
            args=without_empty_spill_dir(args), prog_name="toolprune", standalone_mode=False, obj=env,
            default_map=config_defaults(command, env.environ),
        )  # fmt: skip
    except ClickException as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":  # a command group without its subcommand
            env.say(exc.format_message())
            return ExitCode.USAGE
        env.say(f"toolprune: error: {exc.format_message()} (see toolprune --help)")
        return ExitCode.USAGE if exc.exit_code == 2 else exc.exit_code
    except typer.Abort as exc:  # click turns Ctrl-C into Abort
        if isinstance(exc.__context__, KeyboardInterrupt):
            raise KeyboardInterrupt from None
        return ExitCode.INTERRUPTED
    except SystemExit as exc:  # click exits 1 when stdout's reader has gone (`spill show ID | head`)
        gone = exc.__context__
        if exc.code == 1 and isinstance(gone, OSError) and gone.errno == errno.EPIPE:
            raise BrokenPipeError(errno.EPIPE, "stdout's reader has gone") from None  # 141, as for the filter
        raise
    return int(result) if isinstance(result, int) else ExitCode.OK


def without_empty_spill_dir(args: list[str]) -> list[str]:
    """``--spill-dir ''`` counts as not given, as an empty ``TOOLPRUNE_SPILL_DIR`` does (click would
    read it as the current directory, and put the records and their key there)."""
    out: list[str] = []
    skip = False
    for i, arg in enumerate(args):
        if skip:
            skip = False
        elif arg == "--":
            return out + args[i:]
        elif arg == "--spill-dir=" or (arg == "--spill-dir" and i + 1 < len(args) and args[i + 1] == ""):
            skip = arg == "--spill-dir"
        else:
            out.append(arg)
    return out


def config_defaults(command: Any, environ: Layered) -> dict[str, Any]:
    """The config file's values as click's ``default_map`` for ``command`` and its subcommands:
    click takes a flag first, then the option's environment variable, then this map, then the
    option's default, which is flags > environment > config file > defaults. Only values the
    environment leaves to the config file are given."""
    defaults: dict[str, Any] = {}
    for param in command.params:
        variable = getattr(param, "envvar", None)
        if isinstance(variable, str) and environ.source(variable) == "config file":
            defaults[param.name] = environ[variable]
    for name, sub in getattr(command, "commands", {}).items():
        nested = config_defaults(sub, environ)
        if nested:
            defaults[name] = nested
    return defaults


def _guarded(body: Callable[[], int], env: Environment, debug: bool) -> int:
    try:
        return body()
    except ToolpruneError as exc:
        kind = "error: " if exc.exit_code == ExitCode.USAGE else ""
        env.say(f"toolprune: {kind}{exc.message}")
        return exc.exit_code
    except BrokenPipeError:
        return _broken_pipe()
    except Exception as exc:
        if debug:
            raise
        env.say(f"toolprune: internal error: {type(exc).__name__}: {exc} (TOOLPRUNE_DEBUG=1 shows the traceback)")
        return ExitCode.NOT_RETURNED


def _broken_pipe() -> int:
    """The reader went away (``| head``): silence the flush at exit and report 128 + SIGPIPE."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
    return ExitCode.BROKEN_PIPE


def main(argv: Sequence[str] | None = None) -> None:
    signals.install()  # first: a signal in the first milliseconds must not lose the tool's output
    reserve_standard_fds()
    code = run(argv, Environment.from_sys())
    try:
        if sys.stdout is not None:  # None when the process started with stdout closed (`>&-`)
            sys.stdout.flush()
    except BrokenPipeError:
        code = _broken_pipe()
    except (OSError, ValueError):
        pass
    signals.block_for_exit()
    sys.exit(int(code))

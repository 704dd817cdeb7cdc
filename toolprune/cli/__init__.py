"""The command-line layer: typer declarations and the one place that maps errors to exit codes."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence

from toolprune.cli.streams import Environment
from toolprune.errors import ExitCode, Interrupted, ToolpruneError

__all__ = ["main", "run"]


def run(argv: Sequence[str] | None, env: Environment) -> int:
    """Run the CLI with ``argv`` against ``env``; return the exit status. Never raises
    (unless ``--debug``/``TOOLPRUNE_DEBUG=1`` asks for the traceback of an internal error)."""
    args = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args or os.environ.get("TOOLPRUNE_DEBUG", "").lower() in {"1", "true", "yes", "on"}
    if args in (["--version"], ["--help"], ["-h"]):
        quick = _fast(args, env, debug)
        return quick if quick is not None else _guarded(lambda: _typer(args, env), env, debug)
    from toolprune import config

    config.apply(os.environ)  # flags > environment > config file > defaults
    try:
        quick = _fast(args, env, debug)
        if quick is not None:
            return quick
        return _guarded(lambda: _typer(args, env), env, debug)
    finally:
        config.unapply(os.environ)


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
        from toolprune.cli.run import main as run_command

        return _guarded(lambda: run_command(args[1:], env), env, debug)
    recall = fast.parse_omitted(args, os.environ)
    if recall is not None:
        from toolprune.cli.omitted import omitted

        return _guarded(lambda: omitted(env, **recall), env, debug)
    parsed = fast.parse_root(args, os.environ)
    if parsed is None:
        return None
    values, given = parsed
    from toolprune.cli.prune import prune

    return _guarded(lambda: prune(env, **values, spill_dir_from_flag="spill_dir" in given), env, debug)


def _typer(args: list[str], env: Environment) -> int:
    import typer
    from typer._click.exceptions import ClickException  # typer 0.27 vendors click

    from toolprune.cli.app import app

    command = typer.main.get_command(app)
    try:
        result = command.main(args=args, prog_name="toolprune", standalone_mode=False, obj=env)
    except ClickException as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":  # a command group without its subcommand
            env.say(exc.format_message())
            return ExitCode.USAGE
        env.say(f"toolprune: error: {exc.format_message()} (see toolprune --help)")
        return ExitCode.USAGE if exc.exit_code == 2 else exc.exit_code
    except typer.Abort:
        return ExitCode.INTERRUPTED
    return int(result) if isinstance(result, int) else ExitCode.OK


def _guarded(body: Callable[[], int], env: Environment, debug: bool) -> int:
    try:
        return body()
    except ToolpruneError as exc:
        kind = "error: " if exc.exit_code == ExitCode.USAGE else ""
        env.say(f"toolprune: {kind}{exc.message}")
        return exc.exit_code
    except KeyboardInterrupt:
        return ExitCode.INTERRUPTED
    except Interrupted:
        return ExitCode.TERMINATED
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
    code = run(argv, Environment.from_sys())
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        code = _broken_pipe()
    except (OSError, ValueError):
        pass
    sys.exit(int(code))

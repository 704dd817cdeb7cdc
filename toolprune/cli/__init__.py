"""The command-line layer: typer declarations and the one place that maps errors to exit codes."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from toolprune.cli.app import app
from toolprune.cli.streams import Environment
from toolprune.errors import ExitCode, Interrupted, ToolpruneError

__all__ = ["app", "main", "run"]


def run(argv: Sequence[str] | None, env: Environment) -> int:
    """Run the CLI with ``argv`` against ``env``; return the exit status. Never raises
    (unless ``--debug``/``TOOLPRUNE_DEBUG=1`` asks for the traceback of an internal error)."""
    import typer
    from typer._click.exceptions import ClickException  # typer 0.27 vendors click

    args = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args or os.environ.get("TOOLPRUNE_DEBUG", "") in {"1", "true", "yes"}
    command = typer.main.get_command(app)
    try:
        result = command.main(args=args, prog_name="toolprune", standalone_mode=False, obj=env)
        return int(result) if isinstance(result, int) else ExitCode.OK
    except ClickException as exc:
        env.say(f"toolprune: error: {exc.format_message()} (see toolprune --help)")
        return ExitCode.USAGE if exc.exit_code == 2 else exc.exit_code
    except typer.Abort:
        return ExitCode.INTERRUPTED
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

"""The typer application: the root prune action and its subcommands."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from toolprune import __version__
from toolprune.cli import omitted as omitted_cmd
from toolprune.cli import prune as prune_cmd
from toolprune.cli.options import Debug, SpillDir, Verbose

app = typer.Typer(
    name="toolprune",
    help=(
        "Prune a tool's output for an AI agent: read it on stdin, drop the paragraphs unrelated "
        "to the request (--basis), keep everything else verbatim, and say how to get each dropped "
        "part back with `toolprune omitted`. On any doubt or failure the input passes through "
        "byte for byte."
    ),
    epilog="Example:  pip show -v requests | toolprune --basis 'which license does it use?'",
    add_completion=False,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _from_command_line(ctx: typer.Context, name: str) -> bool:
    source = ctx.get_parameter_source(name)
    return source is not None and source.name == "COMMANDLINE"


def _version(value: bool) -> None:
    if value:
        typer.echo(f"toolprune {__version__}")
        raise typer.Exit(0)


@app.callback(invoke_without_command=True)
def root(
    ctx: typer.Context,
    basis: Annotated[
        Optional[str],
        typer.Option(
            "--basis", "-b", envvar="TOOLPRUNE_BASIS", show_envvar=True, metavar="TEXT",
            help="The request the output should serve (only its first 2,000 chars are used).",
        ),
    ] = None,
    basis_file: Annotated[
        Optional[Path],
        typer.Option("--basis-file", metavar="PATH", help="Read the request from a file instead."),
    ] = None,
    threshold: Annotated[
        str,
        typer.Option(
            "--threshold", "-t", envvar="TOOLPRUNE_THRESHOLD", show_envvar=True, metavar="LEVEL",
            help="How much to drop: gentle (0.1), standard (0.2), strong (0.3), max (0.5), "
            "or a number in (0, 1]. Units scoring below it are dropped.",
        ),
    ] = "standard",
    lang: Annotated[
        str,
        typer.Option(
            "--lang", envvar="TOOLPRUNE_LANG", metavar="auto|en|ja",
            help="Language of the markers; auto = Japanese when the request is.",
        ),
    ] = "auto",
    spill_dir: SpillDir = None,
    timeout: Annotated[
        float,
        typer.Option(
            "--timeout", envvar="TOOLPRUNE_TIMEOUT", metavar="SECONDS", min=0.0,
            help="Give up scoring after this long and pass the input through.",
        ),
    ] = 20.0,
    verbose: Verbose = False,
    debug: Debug = False,
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit."),
    ] = False,
) -> None:
    """Prune stdin to stdout (the default action)."""
    if ctx.invoked_subcommand is not None:
        return
    raise typer.Exit(
        prune_cmd.prune(
            ctx.obj,
            basis=basis,
            basis_file=basis_file,
            threshold=threshold,
            lang=lang,
            spill_dir=spill_dir,
            spill_dir_from_flag=_from_command_line(ctx, "spill_dir"),
            timeout=timeout,
            verbose=verbose,
            debug=debug,
        )
    )


@app.command("omitted")
def omitted(
    ctx: typer.Context,
    record_id: Annotated[str, typer.Argument(metavar="ID", help="The id printed in the marker, e.g. P2.")],
    first: Annotated[int, typer.Argument(metavar="FROM", min=0, help="First unit number (0-based).")],
    last: Annotated[
        Optional[int],
        typer.Argument(metavar="[TO]", min=0, help="Last unit number, inclusive [default: FROM]; clamped."),
    ] = None,
    spill_dir: SpillDir = None,
    verbose: Verbose = False,
) -> None:
    """Print dropped units FROM..TO of a pruned output, verbatim."""
    raise typer.Exit(
        omitted_cmd.omitted(ctx.obj, record_id, first, first if last is None else last, spill_dir, verbose)
    )

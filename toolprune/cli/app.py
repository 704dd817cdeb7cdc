"""The typer application: the root prune action and its subcommands."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from toolprune import __version__
from toolprune.cli import omitted as omitted_cmd
from toolprune.cli import prune as prune_cmd
from toolprune.cli.flags import FLAGS
from toolprune.cli.groups import config_app, hook_app, scorer_app, spill_app
from toolprune.cli.options import GC_MAX_SIZE, GC_OLDER_THAN, MaxSize, OlderThan, PlainUsage, SpillDir, Verbose, option

if TYPE_CHECKING:
    pass

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
    basis: Annotated[str | None, option("basis")] = FLAGS["basis"].default,
    basis_file: Annotated[Path | None, option("basis_file")] = FLAGS["basis_file"].default,
    threshold: Annotated[str, option("threshold")] = FLAGS["threshold"].default,
    lang: Annotated[str, option("lang")] = FLAGS["lang"].default,
    spill_dir: Annotated[Path | None, option("spill_dir", show_default=False)] = FLAGS["spill_dir"].default,
    timeout: Annotated[float, option("timeout")] = FLAGS["timeout"].default,
    scorer: Annotated[str, option("scorer")] = FLAGS["scorer"].default,
    provider: Annotated[str | None, option("provider")] = FLAGS["provider"].default,
    base_url: Annotated[str | None, option("base_url")] = FLAGS["base_url"].default,
    path: Annotated[str | None, option("path")] = FLAGS["path"].default,
    model: Annotated[str | None, option("model")] = FLAGS["model"].default,
    tail: Annotated[int, option("tail", min=0)] = FLAGS["tail"].default,
    signal: Annotated[str | None, option("signal")] = FLAGS["signal"].default,
    envelope: Annotated[bool, option("envelope", show_default=False)] = FLAGS["envelope"].default,
    label: Annotated[str | None, option("label")] = FLAGS["label"].default,
    max_chars: Annotated[int | None, option("max_chars", min=1)] = FLAGS["max_chars"].default,
    max_lines: Annotated[int | None, option("max_lines", min=1)] = FLAGS["max_lines"].default,
    fit: Annotated[str | None, option("fit")] = FLAGS["fit"].default,
    json_strict: Annotated[bool, option("json_strict", show_default=False)] = FLAGS["json_strict"].default,
    explain: Annotated[bool, option("explain")] = FLAGS["explain"].default,
    explain_json: Annotated[bool, option("explain_json")] = FLAGS["explain_json"].default,
    verbose: Annotated[bool, option("verbose")] = FLAGS["verbose"].default,
    debug: Annotated[bool, option("debug", show_default=False)] = FLAGS["debug"].default,
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
            scorer=scorer,
            provider=provider,
            base_url=base_url,
            path=path,
            model=model,
            tail=tail,
            signal=signal,
            envelope=envelope,
            label=label,
            max_chars=max_chars,
            max_lines=max_lines,
            fit=fit,
            json_strict=json_strict,
            explain=explain,
            explain_json=explain_json,
            verbose=verbose,
            debug=debug,
        )
    )


def _unit_number(text: str) -> int:
    """A unit number as the markers print it: ASCII digits only (``int()`` would also take "０"
    or "1_0")."""
    if not (text.isascii() and text.isdigit()):
        raise typer.BadParameter(f"{text!r} is not a unit number: use the digits 0-9, e.g. 3")
    return int(text)


@app.command("omitted", cls=PlainUsage, context_settings={"ignore_unknown_options": True})
def omitted(
    ctx: typer.Context,
    record_id: Annotated[str, typer.Argument(metavar="ID", help="The id printed in the marker, e.g. P2-3fa9c1d2.")],
    first: Annotated[int, typer.Argument(metavar="FROM", parser=_unit_number, help="First unit number (0-based).")],
    last: Annotated[
        int | None,
        typer.Argument(
            metavar="[TO]", parser=_unit_number, help="Last unit number, inclusive [default: FROM]; clamped."
        ),
    ] = None,
    spill_dir: SpillDir = None,
    verbose: Verbose = False,
) -> None:
    """Print dropped units FROM..TO of a pruned output, verbatim."""
    raise typer.Exit(
        omitted_cmd.omitted(ctx.obj, record_id, first, first if last is None else last, spill_dir, verbose)
    )


@app.command("gc", cls=PlainUsage, short_help="Remove old spill records.")
def gc(
    ctx: typer.Context,
    older_than: OlderThan = GC_OLDER_THAN,
    max_size: MaxSize = GC_MAX_SIZE,
    spill_dir: SpillDir = None,
) -> None:
    """Remove old spill records (it also runs by itself after every 50th record)."""
    from toolprune.cli.housekeeping import gc as run_gc

    raise typer.Exit(run_gc(ctx.obj, older_than, max_size, spill_dir))


@app.command("stats", cls=PlainUsage, short_help="Summarise the log file: outcomes and savings.")
def stats(
    ctx: typer.Context,
    log: Annotated[
        Path | None,
        typer.Option(
            "--log", metavar="PATH", help="The log file [default: $TOOLPRUNE_LOG, else stats.log in the state dir]."
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    price: Annotated[
        str | None,
        typer.Option("--price", metavar="MONEY", envvar="TOOLPRUNE_PRICE",
                     help="Price per million input tokens, to show the money saved (e.g. 3)."),
    ] = None,
) -> None:
    """Summarise the stats log (kept by default in the state directory): outcomes, characters and
    estimated tokens saved, omitted calls, per label and per day."""
    from toolprune.cli.stats import _price
    from toolprune.cli.stats import stats as run_stats

    raise typer.Exit(run_stats(ctx.obj, log, as_json, None if price is None else _price(price)))


@app.command("doctor", cls=PlainUsage, short_help="Check installed hooks, scorer and spill dir.")
def doctor(ctx: typer.Context) -> None:
    """Show where toolprune's hooks are installed, fire each installed hook with a synthetic
    event, and print the scorer, spill directory and version. Exit 1 with one line per problem
    (and its fix) when something is broken."""
    from toolprune.cli.doctor import doctor as run_doctor

    raise typer.Exit(run_doctor(ctx.obj))


@app.command(
    "run", cls=PlainUsage, short_help="Run a command and prune its output.",
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
)
def run_(ctx: typer.Context) -> None:
    """Run a command and prune its output: toolprune run [OPTIONS] -- CMD [ARGS...]. The options
    are the prune action's (--basis, --threshold, --fit, ...); without --basis the request comes
    from TOOLPRUNE_BASIS or the agent session a hook remembered. stdout and stderr are read
    together, in order, as CMD 2>&1 shows them, until the pipe's end or 2 s after CMD has
    exited (a process CMD left in the background does not keep it waiting); toolprune exits with
    the command's own status (128+N when signal N ended it)."""
    from toolprune.errors import UsageError

    raise UsageError(
        "use toolprune run [OPTIONS] -- CMD [ARGS...]: toolprune's options after run, the command after --"
    )


@app.command("completions", cls=PlainUsage)
def completions(
    ctx: typer.Context,
    shell: Annotated[str, typer.Argument(metavar="SHELL", help="bash, zsh or fish.")],
) -> None:
    """Print the shell completion script for bash, zsh or fish. bash: eval "$(toolprune
    completions bash)" in ~/.bashrc; zsh: save it as _toolprune in a folder on $fpath; fish: save it
    as ~/.config/fish/completions/toolprune.fish."""
    from toolprune.cli import completion
    from toolprune.errors import UsageError

    if shell not in completion.SHELLS:
        raise UsageError(f"no completion for {shell!r}: use one of {', '.join(completion.SHELLS)}")
    ctx.obj.write_output(completion.script(shell).encode("utf-8"))


app.add_typer(spill_app, name="spill")
app.add_typer(hook_app, name="hook")
app.add_typer(config_app, name="config")
app.add_typer(scorer_app, name="scorer")

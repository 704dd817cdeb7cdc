"""The typer application: the root prune action and its subcommands."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from toolprune import __version__
from toolprune.cli import omitted as omitted_cmd
from toolprune.cli import prune as prune_cmd
from toolprune.cli.flags import FLAGS
from toolprune.cli.options import SpillDir, Verbose

if TYPE_CHECKING:
    from typer._click.core import Context

class PlainUsage(typer.core.TyperCommand):
    """Usage lines as Unix tools write them: ``ID FROM [TO]``, not typer's ``{ID} {FROM} [TO]``."""

    def collect_usage_pieces(self, ctx: Context) -> list[str]:
        pieces = super().collect_usage_pieces(ctx)
        return [p[1:-1] if p.startswith("{") and p.endswith("}") else p for p in pieces]


spill_app = typer.Typer(help="Where pruned inputs are kept, and what they hold.", no_args_is_help=True)
config_app = typer.Typer(
    short_help="The config file and the API key.",
    help="The config file (settings below flags and TOOLPRUNE_* variables) and the API key.", no_args_is_help=True
)
scorer_app = typer.Typer(help="Check the remote scorer.", no_args_is_help=True)
hook_app = typer.Typer(help="Hooks for agent harnesses.", no_args_is_help=True)
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


def _option(dest: str, **extra: Any) -> Any:  # typer.Option's own return type is Any
    """A typer option built from the shared flag table."""
    flag = FLAGS[dest]
    return typer.Option(
        *flag.names, envvar=flag.env, show_envvar=flag.env is not None, metavar=flag.metavar,
        help=flag.help, **extra,
    )


@app.callback(invoke_without_command=True)
def root(
    ctx: typer.Context,
    basis: Annotated[str | None, _option("basis")] = FLAGS["basis"].default,
    basis_file: Annotated[Path | None, _option("basis_file")] = FLAGS["basis_file"].default,
    threshold: Annotated[str, _option("threshold")] = FLAGS["threshold"].default,
    lang: Annotated[str, _option("lang")] = FLAGS["lang"].default,
    spill_dir: Annotated[Path | None, _option("spill_dir", show_default=False)] = FLAGS["spill_dir"].default,
    timeout: Annotated[float, _option("timeout", min=0.0)] = FLAGS["timeout"].default,
    scorer: Annotated[str, _option("scorer")] = FLAGS["scorer"].default,
    provider: Annotated[str | None, _option("provider")] = FLAGS["provider"].default,
    base_url: Annotated[str | None, _option("base_url")] = FLAGS["base_url"].default,
    path: Annotated[str | None, _option("path")] = FLAGS["path"].default,
    model: Annotated[str | None, _option("model")] = FLAGS["model"].default,
    tail: Annotated[int, _option("tail", min=0)] = FLAGS["tail"].default,
    signal: Annotated[str | None, _option("signal")] = FLAGS["signal"].default,
    envelope: Annotated[bool, _option("envelope", show_default=False)] = FLAGS["envelope"].default,
    label: Annotated[str | None, _option("label")] = FLAGS["label"].default,
    max_chars: Annotated[int | None, _option("max_chars", min=1)] = FLAGS["max_chars"].default,
    max_lines: Annotated[int | None, _option("max_lines", min=1)] = FLAGS["max_lines"].default,
    fit: Annotated[str | None, _option("fit")] = FLAGS["fit"].default,
    json_strict: Annotated[bool, _option("json_strict", show_default=False)] = FLAGS["json_strict"].default,
    explain: Annotated[bool, _option("explain")] = FLAGS["explain"].default,
    explain_json: Annotated[bool, _option("explain_json")] = FLAGS["explain_json"].default,
    verbose: Annotated[bool, _option("verbose")] = FLAGS["verbose"].default,
    debug: Annotated[bool, _option("debug", show_default=False)] = FLAGS["debug"].default,
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


@app.command("omitted", cls=PlainUsage, context_settings={"ignore_unknown_options": True})
def omitted(
    ctx: typer.Context,
    record_id: Annotated[str, typer.Argument(metavar="ID", help="The id printed in the marker, e.g. P2-3fa9c1d2.")],
    first: Annotated[int, typer.Argument(metavar="FROM", min=0, help="First unit number (0-based).")],
    last: Annotated[
        int | None,
        typer.Argument(metavar="[TO]", min=0, help="Last unit number, inclusive [default: FROM]; clamped."),
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
    older_than: Annotated[
        str, typer.Option("--older-than", metavar="AGE", help="Remove records older than this (7d, 12h, 30m).")
    ] = "30d",
    max_size: Annotated[
        str, typer.Option("--max-size", metavar="SIZE", help="Then remove the oldest until the rest fits (500M, 1G).")
    ] = "1G",
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


@spill_app.command("path", cls=PlainUsage)
def spill_path(ctx: typer.Context, spill_dir: SpillDir = None) -> None:
    """Print the spill directory."""
    from toolprune.cli import spillcmd

    raise typer.Exit(spillcmd.path(ctx.obj, spill_dir))


@spill_app.command("list", cls=PlainUsage, short_help="List the records: id, time, shape, size, units.")
def spill_list(
    ctx: typer.Context,
    spill_dir: SpillDir = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the records as JSON.")] = False,
) -> None:
    """List the records: id, creation time, shape, size, units, dropped units."""
    from toolprune.cli import spillcmd

    raise typer.Exit(spillcmd.listing(ctx.obj, spill_dir, as_json))


@spill_app.command("show", cls=PlainUsage)
def spill_show(
    ctx: typer.Context,
    record_id: Annotated[
        str, typer.Argument(metavar="ID", help="A record id, e.g. P2-3fa9c1d2 (toolprune spill list shows them).")
    ],
    spill_dir: SpillDir = None,
) -> None:
    """Print a record's whole input, verbatim."""
    from toolprune.cli import spillcmd

    raise typer.Exit(spillcmd.show(ctx.obj, record_id, spill_dir))


@spill_app.command("gc", cls=PlainUsage)
def spill_gc(
    ctx: typer.Context,
    older_than: Annotated[
        str, typer.Option("--older-than", metavar="AGE", help="Remove records older than this.")
    ] = "30d",
    max_size: Annotated[
        str, typer.Option("--max-size", metavar="SIZE", help="Then the oldest until the rest fits.")
    ] = "1G",
    spill_dir: SpillDir = None,
) -> None:
    """The same as toolprune gc."""
    from toolprune.cli.housekeeping import gc as run_gc

    raise typer.Exit(run_gc(ctx.obj, older_than, max_size, spill_dir))




ConfigKey = Annotated[str, typer.Argument(metavar="KEY", help="A config key (see `toolprune config show`).")]


@config_app.command("path", cls=PlainUsage)
def config_path(ctx: typer.Context) -> None:
    """Print the config file's path."""
    from toolprune.cli import configcmd

    raise typer.Exit(configcmd.path(ctx.obj))


@config_app.command("show", cls=PlainUsage, short_help="Print every setting and where it comes from.")
def config_show(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Print it as JSON.")] = False,
) -> None:
    """Print every setting with where it comes from, whether an API key is set (never the key),
    and where the scorer sends data."""
    from toolprune.cli import configcmd

    raise typer.Exit(configcmd.show(ctx.obj, as_json))


@config_app.command("get", cls=PlainUsage, short_help="Print a key's value in the config file.")
def config_get(ctx: typer.Context, name: ConfigKey) -> None:
    """Print a key's value in the config file (exit 1 when it is not set there)."""
    from toolprune.cli import configcmd

    raise typer.Exit(configcmd.get(ctx.obj, name))


@config_app.command("set", cls=PlainUsage, short_help="Set a key in the config file.")
def config_set(
    ctx: typer.Context,
    name: ConfigKey,
    value: Annotated[str, typer.Argument(metavar="VALUE", help="The value, checked before it is written.")],
) -> None:
    """Set a key in the config file (refused when the file is invalid)."""
    from toolprune.cli import configcmd

    raise typer.Exit(configcmd.set_(ctx.obj, name, value))


@config_app.command("unset", cls=PlainUsage)
def config_unset(ctx: typer.Context, name: ConfigKey) -> None:
    """Remove a key from the config file."""
    from toolprune.cli import configcmd

    raise typer.Exit(configcmd.unset(ctx.obj, name))


@config_app.command("set-key", cls=PlainUsage, short_help="Save the API key in a 0600 key file.")
def config_set_key(ctx: typer.Context) -> None:
    """Save the API key for the remote scorer in a key file of mode 0600: typed at a hidden
    prompt, or piped on stdin (`pass show typesafe | toolprune config set-key`)."""
    from toolprune.cli import configcmd

    raise typer.Exit(configcmd.set_key(ctx.obj))


@config_app.command("unset-key", cls=PlainUsage)
def config_unset_key(ctx: typer.Context) -> None:
    """Remove the key file."""
    from toolprune.cli import configcmd

    raise typer.Exit(configcmd.unset_key(ctx.obj))


@scorer_app.command("test", cls=PlainUsage, short_help="Probe the System One server: version, latency, scores.")
def scorer_test(
    ctx: typer.Context,
    provider: Annotated[str | None, _option("provider")] = None,
    base_url: Annotated[str | None, _option("base_url")] = None,
    path: Annotated[str | None, _option("path")] = None,
    model: Annotated[str | None, _option("model")] = None,
    timeout: Annotated[float, _option("timeout", min=0.0)] = FLAGS["timeout"].default,
) -> None:
    """Send a two-paragraph probe to the System One server and print the model version, the
    latency and the two scores: the way to check a key and a server before trusting them."""
    from toolprune.cli import configcmd

    raise typer.Exit(configcmd.scorer_test(ctx.obj, provider, base_url, path, model, timeout))


@hook_app.command("claude-code", cls=PlainUsage, short_help="Claude Code hook: prune Bash and MCP results.")
def hook_claude_code(ctx: typer.Context) -> None:
    """Claude Code hook (UserPromptSubmit and PostToolUse on Bash): reads the event on stdin,
    remembers the user's request, and answers a Bash result with its stdout pruned against it.
    Answers nothing (the output stays as it was) on anything else or any failure."""
    from toolprune.cli.hook import claude_code

    raise typer.Exit(claude_code(ctx.obj))


@hook_app.command("codex", cls=PlainUsage, short_help="Codex CLI hook: prune shell results.")
def hook_codex(ctx: typer.Context) -> None:
    """Codex CLI hook (UserPromptSubmit and PostToolUse on Bash): reads the event on stdin,
    remembers the user's request, and answers a shell result with the pruned output, which Codex
    shows the model instead of the output. Answers nothing on anything else or any failure."""
    from toolprune.cli.hooks.codex import codex

    raise typer.Exit(codex(ctx.obj))


@hook_app.command("gemini", cls=PlainUsage, short_help="Gemini CLI hook: pipe shell commands through toolprune.")
def hook_gemini(ctx: typer.Context) -> None:
    """Gemini CLI hook (BeforeAgent and BeforeTool on run_shell_command): reads the event on
    stdin, remembers the user's request, and answers a shell command with the same command piped
    into toolprune (its policy still checks the original command on its own). Answers nothing on
    anything else or any failure."""
    from toolprune.cli.hooks.gemini import gemini

    raise typer.Exit(gemini(ctx.obj))


HookAgent = Annotated[str, typer.Argument(metavar="AGENT", help="claude-code, codex or gemini.")]
Project = Annotated[
    bool, typer.Option("--project", help="The project's settings file (in the current folder), not the user's.")
]
DryRun = Annotated[bool, typer.Option("--dry-run", help="Print the change as a unified diff; write nothing.")]


@hook_app.command("install", cls=PlainUsage, short_help="Add toolprune's hooks to an agent's settings.")
def hook_install(ctx: typer.Context, agent: HookAgent, project: Project = False, dry_run: DryRun = False) -> None:
    """Add toolprune's hooks to an agent's settings file (~/.claude/settings.json,
    ~/.codex/hooks.json, ~/.gemini/settings.json), keeping everything else; installing twice
    changes nothing. The old file is kept as <file>.toolprune-bak."""
    from toolprune.cli.hooks.install import change

    raise typer.Exit(change(ctx.obj, agent, project, dry_run, install=True))


@hook_app.command("uninstall", cls=PlainUsage, short_help="Remove toolprune's hooks from an agent's settings.")
def hook_uninstall(ctx: typer.Context, agent: HookAgent, project: Project = False, dry_run: DryRun = False) -> None:
    """Remove toolprune's hooks (and only those) from an agent's settings file."""
    from toolprune.cli.hooks.install import change

    raise typer.Exit(change(ctx.obj, agent, project, dry_run, install=False))


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
    together, in order, as CMD 2>&1 shows them; toolprune exits with the command's own status
    (128+N when signal N ended it)."""
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

"""The subcommand groups: ``spill``, ``config``, ``scorer`` and ``hook`` (the root app adds them)."""

from __future__ import annotations

from typing import Annotated

import typer

from toolprune.cli.flags import FLAGS
from toolprune.cli.options import GC_MAX_SIZE, GC_OLDER_THAN, MaxSize, OlderThan, PlainUsage, SpillDir, option

spill_app = typer.Typer(help="Where pruned inputs are kept, and what they hold.", no_args_is_help=True)
config_app = typer.Typer(
    short_help="The config file and the API key.",
    help="The config file (settings below flags and TOOLPRUNE_* variables) and the API key.", no_args_is_help=True
)
scorer_app = typer.Typer(help="Check the remote scorer.", no_args_is_help=True)
hook_app = typer.Typer(help="Hooks for agent harnesses.", no_args_is_help=True)


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
    older_than: OlderThan = GC_OLDER_THAN,
    max_size: MaxSize = GC_MAX_SIZE,
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
    provider: Annotated[str | None, option("provider")] = None,
    base_url: Annotated[str | None, option("base_url")] = None,
    path: Annotated[str | None, option("path")] = None,
    model: Annotated[str | None, option("model")] = None,
    timeout: Annotated[float, option("timeout", min=0.0)] = FLAGS["timeout"].default,
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

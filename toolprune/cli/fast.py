"""Start-up fast path: the plain prune action, ``--version`` and ``--help`` without typer.

A filter pays its start-up on every tool call; importing typer costs about as much as the
whole prune of a 20,000-character document. This module reads the common command lines from the
same flag table as the typer app. Anything it does not recognise with certainty (a subcommand,
an unknown or malformed flag, an odd value) returns ``None``, and typer takes over — including
for every error message.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from toolprune.cli.flags import BY_NAME, FALSE_WORDS, ROOT_FLAGS, TRUE_WORDS
from toolprune.errors import UsageError

HELP_WIDTH = 80  # click caps help at 80 columns; narrower terminals go through typer
SUBCOMMANDS = ("omitted", "gc", "stats", "run", "completions", "doctor", "spill", "hook", "config", "scorer")
"""The typer app's commands (a test keeps the two lists equal)."""


def is_filter(args: Sequence[str]) -> bool:
    """Does the command line run the root prune action, i.e. name no subcommand? (Then piped
    input is passed through on a usage error or an early interrupt.)"""
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            return i + 1 >= len(args) or args[i + 1] not in SUBCOMMANDS
        if arg.startswith("-") and arg != "-":
            flag = BY_NAME.get(arg.partition("=")[0] if arg.startswith("--") else arg)
            if flag is None:  # a typo (`--lable run -b …`): what follows may be its value, not a
                return "hook" not in args[i + 1 :]  # subcommand; a hook's stdin is its event
            if flag.kind != "bool" and "=" not in arg:
                i += 1  # the option's value
            i += 1
            continue
        return arg not in SUBCOMMANDS
    return True


SUBCOMMAND_FLAGS = {
    "omitted": ("spill_dir", "verbose"), "gc": ("spill_dir",), "spill": ("spill_dir",),
    "scorer": ("base_url", "model", "path", "provider", "timeout"),
}  # fmt: skip
"""The root's options a subcommand takes too (``spill`` and ``scorer``: their subcommands do; a
test keeps this equal to the typer app)."""


def hoisted(args: list[str]) -> list[str]:
    """``args`` with the options written before a subcommand moved after it, where that
    subcommand reads them: ``toolprune --spill-dir DIR omitted ID 3`` is ``toolprune omitted ID 3
    --spill-dir DIR``, and ``toolprune spill --spill-dir DIR list`` is ``toolprune spill list
    --spill-dir DIR``. Before, the root (or the group) took them and the subcommand never saw them
    (a ``gc`` ran on the default directory). A root option the subcommand does not take is a
    usage error (:class:`UsageError`) that names the fix; ``--debug`` stays where it is (every
    command reads it); an option this table does not know (``-vb``, a typo) leaves ``args`` as
    they are for typer; options before ``run`` are its own usage error, and anything before
    ``hook`` is left alone (an agent's hook must never fail on its command line)."""
    if len(args) > 2 and args[0] in ("spill", "scorer") and args[1].startswith("-") and args[1] not in ("-h", "--help"):
        return [args[0], *_hoisted(args[1:], args[0])]  # between a group and its subcommand
    return _hoisted(args)


def _hoisted(args: list[str], group: str | None = None) -> list[str]:
    """:func:`hoisted` for the options before a command (``group``: before one of its subcommands)."""
    i, moved = 0, []
    while i < len(args):
        arg = args[i]
        if arg == "--" or not arg.startswith("-") or arg == "-":
            break
        flag = BY_NAME.get(arg.partition("=")[0] if arg.startswith("--") else arg)
        if flag is None:
            return args
        width = 2 if flag.kind != "bool" and "=" not in arg and i + 1 < len(args) else 1
        if arg != "--debug":
            moved.append((flag.dest, args[i : i + width]))
        i += width
    command = args[i] if i < len(args) else ""
    if not moved or (group is None and (command not in SUBCOMMANDS or command in ("hook", "run"))) or not command:
        return args
    name = f"{group} {command}" if group else command
    for dest, tokens in moved:
        if dest not in SUBCOMMAND_FLAGS.get(group or command, ()):
            raise UsageError(
                f"{tokens[0]} is the filter's option, not `toolprune {name}`'s: write a subcommand's own "
                f"options after its name (toolprune {name} --help lists them)"
            )
    at = args.index("--", i) if "--" in args[i:] else len(args)  # before a `--`, where options are read
    kept = [arg for arg in args[:i] if arg == "--debug"]
    return [*kept, *args[i:at], *(token for _, tokens in moved for token in tokens), *args[at:]]


def parse_root(args: Sequence[str], environ: Mapping[str, str]) -> tuple[dict, set[str]] | None:
    """The root action's parameters and the names given on the command line, or None."""
    values: dict[str, object] = {}
    given: set[str] = set()
    i = 0
    while i < len(args):
        arg = args[i]
        if not arg.startswith("-") or arg in ("-", "--"):
            return None  # positional argument or subcommand
        name, eq, attached = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        flag = BY_NAME.get(name)
        if flag is None:
            return None
        if flag.kind == "bool":
            if eq:
                return None
            values[flag.dest] = True
        elif eq:
            values[flag.dest] = attached
        else:
            if i + 1 >= len(args) or args[i + 1].startswith("-"):
                return None
            values[flag.dest] = args[i + 1]
            i += 1
        given.add(flag.dest)
        i += 1
    for flag in ROOT_FLAGS:
        if flag.dest in values:
            continue
        from_env = environ.get(flag.env) if flag.env else None
        if not from_env:
            values[flag.dest] = flag.default
        elif flag.kind == "bool":
            word = from_env.strip().lower()
            if word not in TRUE_WORDS | FALSE_WORDS:
                return None
            values[flag.dest] = word in TRUE_WORDS
        else:
            values[flag.dest] = from_env
    for flag in ROOT_FLAGS:
        value = values[flag.dest]
        if value is None or flag.kind in ("str", "bool"):
            continue
        if flag.kind == "path":
            if value == "":
                return None
            values[flag.dest] = Path(str(value))
        elif flag.kind in ("float", "int"):
            text = str(value)
            if flag.kind == "int" and not (text.isascii() and text.isdigit()):
                return None
            try:
                number = float(text) if flag.kind == "float" else int(text)
            except ValueError:
                return None
            if not number >= 0:
                return None
            values[flag.dest] = number
    return values, given


def parse_omitted(args: Sequence[str], environ: Mapping[str, str]) -> dict | None:
    """``omitted ID FROM [TO] [-v] [--spill-dir DIR]``, or None."""
    if not args or args[0] != "omitted":
        return None
    positional: list[str] = []
    verbose = False
    spill_dir = environ.get("TOOLPRUNE_SPILL_DIR") or None
    i = 1
    while i < len(args):
        arg = args[i]
        if arg in ("-v", "--verbose"):
            verbose = True
        elif arg == "--spill-dir" and i + 1 < len(args) and not args[i + 1].startswith("-"):
            spill_dir = args[i + 1]
            i += 1
        elif arg.startswith("--spill-dir=") and len(arg) > len("--spill-dir="):
            spill_dir = arg.split("=", 1)[1]
        elif arg.startswith("-"):
            return None
        else:
            positional.append(arg)
        i += 1
    if len(positional) not in (2, 3) or not all(p.isascii() and p.isdigit() for p in positional[1:]):
        return None
    first = int(positional[1])
    return {
        "record_id": positional[0],
        "first": first,
        "last": int(positional[2]) if len(positional) == 3 else first,
        "spill_dir": Path(spill_dir) if spill_dir else None,
        "verbose": verbose,
    }


def help_width_ok(environ: Mapping[str, str]) -> bool:
    import os

    columns = environ.get("COLUMNS", "")
    if columns.isdigit():
        return int(columns) >= HELP_WIDTH
    try:
        return os.get_terminal_size(1).columns >= HELP_WIDTH
    except OSError:
        return True  # not a terminal: click renders at 80 columns

"""Shell completion scripts for bash, zsh and fish, generated from the typer app.

`toolprune completions SHELL` prints one; `tools/generate.py` writes the same text to
`completions/` (installed under the environment's `share/`). The scripts are static: they never
run toolprune. Every command is completed in its own scope: the root's options and the command
names at the top, a command's own options (and, for a group, its subcommands) after its name.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typer._click.core import Command
    from typer.core import TyperGroup, TyperOption

SHELLS = ("bash", "zsh", "fish")
PATHS = ("--basis-file", "--spill-dir", "--log")
"""Options whose value is a file name."""


def commands() -> tuple[TyperGroup, dict[str, Command]]:
    """The click command behind the typer app (the root group) and its subcommands."""
    import typer
    from typer.core import TyperGroup

    from toolprune.cli.app import app

    root = typer.main.get_command(app)
    assert isinstance(root, TyperGroup)  # an app with commands is built as a group
    return root, dict(root.commands)


def subcommands(command: Command) -> dict[str, Command]:
    """A group's commands by name; none for a command that is not a group."""
    found: dict[str, Command] = getattr(command, "commands", None) or {}
    return found


def options(command: Command) -> list[TyperOption]:
    from typer.core import TyperOption  # every option of a typer app is one

    return [p for p in command.params if isinstance(p, TyperOption) and not p.hidden]


def choices() -> dict[str, tuple[str, ...]]:
    """Options with a fixed set of values, read from where each list is declared."""
    from toolprune import settings
    from toolprune.scorers import BUILTIN
    from toolprune.scorers.endpoints import PRESETS

    return {
        "--threshold": tuple(settings.THRESHOLDS),
        "--lang": tuple(settings.LANGS),
        "--fit": tuple(settings.FITS),
        "--scorer": tuple(BUILTIN),
        "--provider": tuple(PRESETS),
    }


def config_keys() -> list[str]:
    from toolprune.configkeys import KEYS

    return list(KEYS)


def leaves(root: TyperGroup) -> list[tuple[tuple[str, ...], Command]]:
    """Every command that runs something, by its path of names: ('omitted',), ('spill', 'list')."""
    out: list[tuple[tuple[str, ...], Command]] = []
    for name, command in sorted(root.commands.items()):
        subs = subcommands(command)
        if subs:
            out += [((name, sub_name), sub) for sub_name, sub in sorted(subs.items())]
        else:
            out.append(((name,), command))
    return out


def _flags(command: Command) -> list[str]:
    return sorted(n for p in options(command) for n in p.opts)


def _value_flags(root: TyperGroup) -> list[str]:
    """Every option, anywhere, that takes a value (the word after it is not a command name)."""
    seen = {n for p in options(root) if not p.is_flag for n in p.opts}
    for _, command in leaves(root):
        seen.update(n for p in options(command) if not p.is_flag for n in p.opts)
    return sorted(seen)


def _summary(text: str | None) -> str:
    return " ".join((text or "").split(". ")[0].split())


def _takes_key(path: tuple[str, ...]) -> bool:
    return path[0] == "config" and path[-1] in ("get", "set", "unset")


def bash() -> str:
    root, subs = commands()
    values = "|".join(_value_flags(root))
    cases = "\n".join(
        f'        {flag}) COMPREPLY=($(compgen -W "{" ".join(vals)}" -- "$cur")); return ;;'
        for flag, vals in choices().items()
    )
    scopes = [f'        "") words="{" ".join(sorted(subs))} {" ".join(_flags(root))}" ;;']
    for name, command in sorted(subs.items()):
        if group := subcommands(command):
            scopes.append(f'        "{name}") words="{" ".join(sorted(group))}" ;;')
    for path, command in leaves(root):
        extra = f' {" ".join(config_keys())}' if _takes_key(path) else ""
        scopes.append(f'        "{" ".join(path)}") words="{" ".join(_flags(command))}{extra}" ;;')
    groups = " ".join(sorted(n for n, c in subs.items() if getattr(c, "commands", None)))
    return f"""# bash completion for toolprune (generated from the app: toolprune completions bash)
_toolprune() {{
    local cur prev words i w path=""
    cur="${{COMP_WORDS[COMP_CWORD]}}"
    prev="${{COMP_WORDS[COMP_CWORD-1]}}"
    case "$prev" in
{cases}
        {"|".join(PATHS)}) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    esac
    # the command path typed so far: words that are neither options nor option values
    for ((i = 1; i < COMP_CWORD; i++)); do
        w="${{COMP_WORDS[i]}}"
        case "$w" in
            {values}) ((i++)); continue ;;
            -*) continue ;;
        esac
        if [[ -z "$path" ]]; then
            path="$w"
        elif [[ " {groups} " == *" $path "* ]]; then
            path="$path $w"
        else
            break
        fi
    done
    case "$path" in
{chr(10).join(scopes)}
        *) words="" ;;
    esac
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
}}
complete -F _toolprune toolprune
"""


def _zsh_spec(param: TyperOption) -> str:
    names = param.opts
    help_ = _summary(param.help).replace("'", "'\\''").replace("[", "\\[").replace("]", "\\]").replace(":", "\\:")
    action = ""
    if not param.is_flag:
        flag = names[0]
        if flag in choices():
            action = f":{flag[2:]}:({' '.join(choices()[flag])})"
        elif flag in PATHS:
            action = f":{flag[2:]}:_files"
        else:
            action = f":{(param.metavar or 'value').lower()}: "
    if len(names) > 1:
        return f"'({' '.join(names)})'{{{','.join(names)}}}'[{help_}]{action}'"
    return f"'{names[0]}[{help_}]{action}'"


def _zsh_args(command: Command, path: tuple[str, ...]) -> list[str]:
    specs = [_zsh_spec(p) for p in options(command)]
    position = 0
    for param in command.params:
        if param.param_type_name != "argument":
            continue
        position += 1
        label = (param.metavar or param.name or "").strip("[]").lower()
        action = f"({' '.join(config_keys())})" if position == 1 and _takes_key(path) else " "
        specs.append(f"'{position}:{label}:{action}'")
    return specs


def zsh() -> str:
    root, subs = commands()
    indent = " \\\n        "
    branches = []
    for path, command in leaves(root):
        specs = _zsh_args(command, path) or ["'*: :'"]
        branches.append(
            f"""    "{' '.join(path)}")
        _arguments \\
        {indent.join(specs)}
        return ;;"""
        )
    groups = []
    for name, command in sorted(subs.items()):
        if group := subcommands(command):
            groups.append(f'    "{name}") compadd -- {" ".join(sorted(group))}; return ;;')
    root_specs = " \\\n    ".join(_zsh_spec(p) for p in options(root))
    values = "|".join(_value_flags(root))
    group_names = "|".join(sorted(n for n, c in subs.items() if getattr(c, "commands", None)))
    return f"""#compdef toolprune
# zsh completion for toolprune (generated from the app: toolprune completions zsh)
_toolprune() {{
  local i w cmd="" start=0
  # the command path typed so far: words that are neither options nor option values
  for ((i = 2; i < CURRENT; i++)); do
    w=${{words[i]}}
    case $w in
      ({values}) (( i++ )); continue ;;
      (-*) continue ;;
    esac
    if [[ -z $cmd ]]; then
      cmd=$w; start=$i
    elif [[ $cmd == ({group_names}) ]]; then
      cmd="$cmd $w"; start=$i
    else
      break
    fi
  done
  if [[ -n $cmd ]]; then
    case $cmd in
      ({group_names})
        if (( CURRENT == start + 1 )); then
          case $cmd in
{chr(10).join("    " + g for g in groups)}
          esac
        fi
        return ;;
    esac
    # complete the command's own options and arguments, as if it were the command line
    words=(${{words[start,-1]}})
    (( CURRENT -= start - 1 ))
    case $cmd in
{chr(10).join(branches)}
    esac
    return
  fi
  _arguments \\
    {root_specs} \\
    '1:command:({' '.join(sorted(subs))})'
}}
_toolprune "$@"
"""


def _fish_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("'", "\\'")


def fish() -> str:
    root, subs = commands()
    lines = [
        "# fish completion for toolprune (generated from the app: toolprune completions fish)",
        "complete -c toolprune -f",
    ]
    top = " ".join(sorted(subs))
    for name, command in sorted(subs.items()):
        lines.append(
            f"complete -c toolprune -n 'not __fish_seen_subcommand_from {top}' -a {name} "
            f"-d '{_fish_escape(_summary(command.help))}'"
        )
    for name, command in sorted(subs.items()):
        group = subcommands(command)
        if not group:
            continue
        names = " ".join(sorted(group))
        for sub_name, sub in sorted(group.items()):
            lines.append(
                f"complete -c toolprune -n '__fish_seen_subcommand_from {name}; and not __fish_seen_subcommand_from "
                f"{names}' -a {sub_name} -d '{_fish_escape(_summary(sub.help))}'"
            )
    lines.append(
        "complete -c toolprune -n '__fish_seen_subcommand_from config; and __fish_seen_subcommand_from get set unset' "
        f"-a '{' '.join(config_keys())}'"
    )
    scopes: list[tuple[str, Command]] = [(f"not __fish_seen_subcommand_from {top}", root)]
    for path, command in leaves(root):
        scopes.append(("; and ".join(f"__fish_seen_subcommand_from {p}" for p in path), command))
    for scope, command in scopes:
        for param in options(command):
            parts = [f"complete -c toolprune -n '{scope}'"]
            for name in param.opts:
                parts.append(f"-l {name[2:]}" if name.startswith("--") else f"-s {name[1:]}")
            if not param.is_flag:
                flag = param.opts[0]
                if flag in choices():
                    parts.append(f"-x -a '{' '.join(choices()[flag])}'")
                else:
                    parts.append("-r -F" if flag in PATHS else "-x")
            parts.append(f"-d '{_fish_escape(_summary(param.help))}'")
            lines.append(" ".join(parts))
    return "\n".join(lines) + "\n"


def script(shell: str) -> str:
    return {"bash": bash, "zsh": zsh, "fish": fish}[shell]()

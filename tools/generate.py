"""Regenerate the files derived from the typer app: the fast path's help text, the man page and
the shell completions.

    python tools/generate.py          # rewrite them
    python tools/generate.py --check  # exit 1 when any is out of date (the tests run this)
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

FITS = ("claude", "codex", "gemini")
CHOICES = {
    "--threshold": ("gentle", "standard", "strong", "max"),
    "--lang": ("auto", "en", "ja"),
    "--fit": FITS,
    "--scorer": ("lexical", "semantic", "systemone"),
    "--provider": ("typesafe", "openrouter", "cloudflare", "local"),
}
PATHS = ("--basis-file", "--spill-dir")


def commands():
    """The click commands behind the typer app: the root and its subcommands."""
    import typer

    from toolprune.cli.app import app

    root = typer.main.get_command(app)
    return root, dict(root.commands)


def options(command) -> list:
    return [p for p in command.params if p.param_type_name == "option" and not p.hidden]


def help_text() -> str:
    from typer.testing import CliRunner

    from toolprune.cli.app import app

    result = CliRunner().invoke(app, ["--help"], prog_name="toolprune", env={"COLUMNS": "80"}, terminal_width=78)
    assert result.exit_code == 0, result.output
    return result.output


def _roff(text: str) -> str:
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\n".join(("\\&" + line) if line.startswith((".", "'")) else line for line in text.split("\n"))


def man_page() -> str:
    from toolprune import __version__
    from toolprune.errors import ExitCode

    root, subs = commands()
    out = [
        f'.TH TOOLPRUNE 1 "" "toolprune {__version__}" "User Commands"',
        ".SH NAME",
        "toolprune \\- prune a tool's output for an AI agent, verbatim and recoverable",
        ".SH SYNOPSIS",
        ".B toolprune",
        "[\\fIOPTIONS\\fR] \\fB\\-\\-basis\\fR \\fIREQUEST\\fR < \\fIoutput\\fR",
        ".br",
        ".B toolprune omitted",
        "\\fIID\\fR \\fIFROM\\fR [\\fITO\\fR] [\\fB\\-\\-spill\\-dir\\fR \\fIDIR\\fR] [\\fB\\-v\\fR]",
        ".SH DESCRIPTION",
        _roff(
            "toolprune reads a tool's output on standard input and the user's request from --basis. "
            "It splits the output into units (paragraphs, fenced code blocks, line blocks of a log, "
            "or the elements of a JSON array), scores each unit's relevance to the request with the "
            "built-in lexical scorer (or, when configured, a System One server), drops the units that score below the threshold, and writes the "
            "rest verbatim to standard output. A header and one marker per run of dropped units say "
            "what was dropped and name the exact command that returns it. The raw input is written "
            "to the spill directory before the first byte of pruned output."
        ),
        ".PP",
        _roff(
            "Whenever pruning is not worth it or not possible (a small input, no usable request, "
            "input that is not UTF-8 text, JSON of another shape, nothing or everything below the "
            "threshold, less than 25 % saved, a timeout, any internal error) the input is passed "
            "through byte for byte and the exit status is 0."
        ),
        ".SH OPTIONS",
    ]
    for param in options(root):
        names = ", ".join(f"\\fB{_roff(n)}\\fR" for n in param.opts)
        metavar = f" \\fI{_roff(param.metavar)}\\fR" if getattr(param, "metavar", None) and not param.is_flag else ""
        out += [".TP", names + metavar, _roff(param.help or "")]
        if param.envvar:
            out.append(f"Environment: \\fB{_roff(param.envvar)}\\fR.")
    out += [".SH COMMANDS"]
    flat = []
    for name, command in sorted(subs.items()):
        flat.append((name, command))
        for sub_name, sub in sorted(getattr(command, "commands", {}).items()):
            flat.append((f"{name} {sub_name}", sub))
    for name, command in flat:
        args = " ".join(f"\\fI{_roff(p.metavar or p.name.upper())}\\fR" for p in command.params if p.param_type_name == "argument")
        out += [".TP", f"\\fB{name}\\fR {args}", _roff(command.help or "")]
        for param in command.params:
            if param.param_type_name == "argument":
                out += [".RS", ".TP", f"\\fI{_roff(param.metavar or param.name.upper())}\\fR", _roff(param.help or ""), ".RE"]
        for param in options(command):
            metavar = f" \\fI{_roff(param.metavar)}\\fR" if getattr(param, "metavar", None) and not param.is_flag else ""
            out += [".RS", ".TP", ", ".join(f"\\fB{_roff(n)}\\fR" for n in param.opts) + metavar, _roff(param.help or ""), ".RE"]
    out += [
        ".SH EXAMPLES",
        ".nf",
        _roff('some-tool | toolprune --basis "$PROMPT"'),
        _roff("toolprune omitted P2 8 14"),
        _roff('ci-job 2>&1 | toolprune --envelope --fit claude --basis "why did the build fail?"'),
        _roff("curl -s https://api.github.com/repos/o/r/issues | toolprune --basis 'the login bug'"),
        ".fi",
        ".SH FILES",
        ".TP",
        "\\fI~/.local/state/toolprune/spill/\\fR",
        _roff(
            "The spill directory (the platform's user state directory; $TOOLPRUNE_HOME/spill when "
            "TOOLPRUNE_HOME is set): one record per pruned output, named by its id (P1, P2, ...), "
            "mode 0600, and P<n>.txt copies of enveloped inputs."
        ),
        ".TP",
        "\\fI~/.config/toolprune/config.json\\fR",
        _roff(
            "The config file ($TOOLPRUNE_HOME/config.json when TOOLPRUNE_HOME is set, or the file "
            "TOOLPRUNE_CONFIG names): settings below flags and environment variables, edited with "
            "toolprune config set. One that cannot be read or does not validate is ignored and "
            "disables the remote scorer."
        ),
        ".TP",
        "\\fI~/.config/toolprune/key\\fR",
        _roff("The remote scorer's API key, written by toolprune config set-key; used only when mode 0600."),
        ".SH ENVIRONMENT",
    ]
    seen = set()
    for param in options(root):
        if param.envvar and param.envvar not in seen:
            seen.add(param.envvar)
            out += [".TP", f"\\fB{_roff(param.envvar)}\\fR", f"Default for \\fB{_roff(param.opts[0])}\\fR."]
    out += [
        ".TP", "\\fBTOOLPRUNE_HOME\\fR", "Keep all state (the spill directory) under this folder.",
        ".TP", "\\fBTOOLPRUNE_LOG\\fR", "Append one line of counts per prune and omitted call; read by toolprune stats.",
        ".TP", "\\fBTOOLPRUNE_CONFIG\\fR", "The config file to read instead of the default one.",
        ".TP", "\\fBTOOLPRUNE_API_KEY\\fR, \\fBTYPESAFE_API_KEY\\fR",
        "The remote scorer's API key (the first one set wins over the key file).",
        ".TP", "\\fBCLOUDFLARE_ACCOUNT_ID\\fR", "The account of the cloudflare provider.",
        ".TP", "\\fBNO_COLOR\\fR", "Respected by the help output.",
        ".SH EXIT STATUS",
    ]
    meaning = {
        ExitCode.OK: "Success, including every passthrough.",
        ExitCode.NOT_RETURNED: "omitted returned nothing: not dropped, no such record, range too large, damaged record.",
        ExitCode.USAGE: "Usage error: a bad flag, threshold, language, timeout, id or range; no input on a "
        "terminal. Piped input of the filter is still passed through.",
        ExitCode.HANGUP: "Hung up by SIGHUP; the input read so far was passed through.",
        ExitCode.INTERRUPTED: "Interrupted by SIGINT; the input read so far was passed through.",
        ExitCode.BROKEN_PIPE: "The reader closed standard output early (also part-way through a write).",
        ExitCode.TERMINATED: "Terminated by SIGTERM; the input read so far was passed through.",
    }
    for code in sorted(ExitCode):
        out += [".TP", f"\\fB{int(code)}\\fR", _roff(meaning[code])]
    out += [
        ".SH PRIVACY",
        _roff(
            "The built-in scorer runs locally: nothing leaves the machine. The spill directory holds "
            "the full raw input of every pruned output, readable only by its owner. With --scorer "
            "systemone the first 2,000 characters of the request and the units being scored are sent "
            "to the configured server, and only when scoring is needed; the API key is never printed."
        ),
        ".SH SEE ALSO",
        "\\fBhead\\fR(1), \\fBjq\\fR(1)",
        "",
    ]
    return "\n".join(out)


def _option_words(command) -> list[str]:
    """A command's options; for a group, its subcommands, their options and (for config) the
    config keys."""
    words = {n for p in options(command) for n in p.opts}
    for name, sub in getattr(command, "commands", {}).items():
        words.add(name)
        words.update(n for p in options(sub) for n in p.opts)
    if command.name == "config":
        words.update(_config_keys())
    return sorted(words)


def _config_keys() -> list[str]:
    from toolprune.config import KEYS

    return list(KEYS)


def _groups(subs) -> dict:
    return {name: command for name, command in subs.items() if getattr(command, "commands", None)}


def bash() -> str:
    root, subs = commands()
    sub_cases = "".join(
        f"""    {'if' if n == 0 else 'elif'} [[ " ${{COMP_WORDS[*]}} " == *" {name} "* ]]; then
        COMPREPLY=($(compgen -W "{' '.join(_option_words(command))}" -- "$cur"))
"""
        for n, (name, command) in enumerate(sorted(subs.items()))
    )
    cases = "\n".join(
        f"        {flag}) COMPREPLY=($(compgen -W \"{' '.join(values)}\" -- \"$cur\")); return ;;"
        for flag, values in CHOICES.items()
    )
    return f"""# bash completion for toolprune (generated by tools/generate.py; do not edit)
_toolprune() {{
    local cur prev
    cur="${{COMP_WORDS[COMP_CWORD]}}"
    prev="${{COMP_WORDS[COMP_CWORD-1]}}"
    case "$prev" in
{cases}
        {'|'.join(PATHS)}) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    esac
{sub_cases}    else
        COMPREPLY=($(compgen -W "{' '.join(sorted(subs))} {' '.join(_option_words(root))}" -- "$cur"))
    fi
}}
complete -F _toolprune toolprune
"""


def _zsh_spec(param) -> str:
    names = param.opts
    help_ = (param.help or "").split(". ")[0].replace("'", "'\\''").replace("[", "\\[").replace("]", "\\]").replace(":", "\\:")
    action = ""
    if not param.is_flag:
        flag = names[0]
        if flag in CHOICES:
            action = f":{flag[2:]}:({' '.join(CHOICES[flag])})"
        elif flag in PATHS:
            action = f":{flag[2:]}:_files"
        else:
            action = f":{(param.metavar or 'value').lower()}: "
    if len(names) > 1:
        return f"'({' '.join(names)})'{{{','.join(names)}}}'[{help_}]{action}'"
    return f"'{names[0]}[{help_}]{action}'"


def zsh() -> str:
    root, subs = commands()
    root_specs = " \\\n    ".join(_zsh_spec(p) for p in options(root))
    omitted_specs = " \\\n        ".join(_zsh_spec(p) for p in options(subs["omitted"]))
    gc_specs = " \\\n        ".join(_zsh_spec(p) for p in options(subs["gc"]))
    group_cases = "".join(
        f"""  if (( CURRENT == 3 )) && [[ ${{words[2]}} == {name} ]]; then
    compadd -- {' '.join(sorted(group.commands))}
    return
  fi
"""
        for name, group in sorted(_groups(subs).items())
    ) + f"""  if (( CURRENT == 4 )) && [[ ${{words[2]}} == config ]] && [[ ${{words[3]}} == (get|set|unset) ]]; then
    compadd -- {' '.join(_config_keys())}
    return
  fi
"""
    return f"""#compdef toolprune
# zsh completion for toolprune (generated by tools/generate.py; do not edit)
_toolprune() {{
  if (( CURRENT > 2 )) && [[ ${{words[2]}} == omitted ]]; then
    _arguments \\
        {omitted_specs} \\
        '1:id (e.g. P2): ' '2:from: ' '3:to: '
    return
  fi
  if (( CURRENT > 2 )) && [[ ${{words[2]}} == gc ]]; then
    _arguments \\
        {gc_specs}
    return
  fi
{group_cases}
  _arguments \\
    {root_specs} \\
    '1:command:({' '.join(sorted(subs))})'
}}
_toolprune "$@"
"""


def fish() -> str:
    root, subs = commands()
    lines = ["# fish completion for toolprune (generated by tools/generate.py; do not edit)", "complete -c toolprune -f"]
    for name, command in sorted(subs.items()):
        summary = (command.help or "").split(". ")[0].replace("'", "\\'")
        lines.append(f"complete -c toolprune -n '__fish_use_subcommand' -a {name} -d '{summary}'")
    for name, group in sorted(_groups(subs).items()):
        names = " ".join(sorted(group.commands))
        for sub_name, sub in sorted(group.commands.items()):
            summary = (sub.help or "").split(". ")[0].replace("'", "\\'").replace("\n", " ")
            lines.append(
                f"complete -c toolprune -n '__fish_seen_subcommand_from {name}; and not __fish_seen_subcommand_from "
                f"{names}' -a {sub_name} -d '{summary}'"
            )
    lines.append(
        "complete -c toolprune -n '__fish_seen_subcommand_from config; and __fish_seen_subcommand_from get set unset' "
        f"-a '{' '.join(_config_keys())}'"
    )
    scopes = [(f"not __fish_seen_subcommand_from {' '.join(sorted(subs))}", root)]
    scopes += [(f"__fish_seen_subcommand_from {name}", command) for name, command in sorted(subs.items())]
    for scope, command in scopes:
        for param in options(command):
            parts = [f"complete -c toolprune -n '{scope}'"]
            for name in param.opts:
                parts.append(f"-l {name[2:]}" if name.startswith("--") else f"-s {name[1:]}")
            if not param.is_flag:
                flag = param.opts[0]
                parts.append(f"-x -a '{' '.join(CHOICES[flag])}'" if flag in CHOICES else ("-r -F" if flag in PATHS else "-x"))
            help_ = (param.help or "").split(". ")[0].replace("'", "\\'")
            parts.append(f"-d '{help_}'")
            lines.append(" ".join(parts))
    return "\n".join(lines) + "\n"


def outputs() -> dict[Path, str]:
    text = help_text()
    module = (
        '"""`toolprune --help`, rendered from the typer app by tools/generate.py (a test checks it)."""\n\n'
        f"HELP = {text!r}\n"
    )
    return {
        ROOT / "toolprune" / "cli" / "helptext.py": module,
        ROOT / "man" / "toolprune.1": man_page(),
        ROOT / "completions" / "toolprune.bash": bash(),
        ROOT / "completions" / "_toolprune": zsh(),
        ROOT / "completions" / "toolprune.fish": fish(),
    }


def main() -> int:
    check = "--check" in sys.argv[1:]
    stale = []
    for path, content in outputs().items():
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current != content:
            stale.append(path)
            if not check:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(content, encoding="utf-8")
    for path in stale:
        print(f"{'out of date' if check else 'wrote'}: {path.relative_to(ROOT)}")
    return 1 if check and stale else 0


if __name__ == "__main__":
    sys.exit(main())

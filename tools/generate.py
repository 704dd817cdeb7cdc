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

from toolprune.cli.completion import commands, options  # noqa: E402  (after the sys.path line)


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
            "the elements of a JSON array, or the paragraphs of a long string inside JSON), scores each unit's relevance to the request with the "
            "built-in lexical scorer (or, when configured, a System One server), drops the units that score below the threshold, and writes the "
            "rest verbatim to standard output. A header and one marker per run of dropped units say "
            "what was dropped and name the exact command that returns it. The raw input is written "
            "to the spill directory before the first byte of pruned output."
        ),
        ".PP",
        _roff(
            "Whenever pruning is not worth it or not possible (a small input, no usable request, "
            "input that is not UTF-8 text, JSON of another shape, nothing or everything below the "
            "threshold (JSON records whose own fields name the request keep their containers' best "
            "unit instead), less than 25 % saved, a timeout, any internal error) the input is passed "
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
        _roff("toolprune omitted P2-3fa9c1d2 8 14"),
        _roff('ci-job 2>&1 | toolprune --envelope --fit claude --basis "why did the build fail?"'),
        _roff("curl -s https://api.github.com/repos/o/r/issues | toolprune --basis 'the login bug'"),
        ".fi",
        ".SH FILES",
        ".TP",
        "\\fI~/.local/state/toolprune/spill/\\fR",
        _roff(
            "The spill directory (the platform's user state directory; $TOOLPRUNE_HOME/spill when "
            "TOOLPRUNE_HOME is set): one record per pruned output, file P<n> for the id P<n>-<check> "
            "(P1, P2, ...), mode 0600; P<n>.txt copies of enveloped inputs; .next (the counter), .key (the secret "
            "the checks are made with), .lock. The directory must be yours and mode 0700 (a group/world-writable "
            "one is refused); delete it whenever you like."
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


def outputs() -> dict[Path, str]:
    text = help_text()
    module = (
        '"""`toolprune --help`, rendered from the typer app by tools/generate.py (a test checks it)."""\n\n'
        f"HELP = {text!r}\n"
    )
    from toolprune.cli.completion import script

    return {
        ROOT / "toolprune" / "cli" / "helptext.py": module,
        ROOT / "man" / "toolprune.1": man_page(),
        ROOT / "completions" / "toolprune.bash": script("bash"),
        ROOT / "completions" / "_toolprune": script("zsh"),
        ROOT / "completions" / "toolprune.fish": script("fish"),
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

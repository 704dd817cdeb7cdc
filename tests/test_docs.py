"""Docs that cannot drift: the man page and completions are generated from the app, render
cleanly and complete the real options."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, cli


def test_man_page_renders_without_warnings():
    proc = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", str(ROOT / "man" / "toolprune.1")],
                          capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stderr == ""
    page = subprocess.run(
        ["groff", "-man", "-Tutf8", "-P-cbou", str(ROOT / "man" / "toolprune.1")], capture_output=True
    ).stdout
    for section in (b"DESCRIPTION", b"OPTIONS", b"EXAMPLES", b"FILES", b"ENVIRONMENT", b"EXIT STATUS", b"PRIVACY", b"SEE ALSO"):
        assert section in page


# (command line, candidates that must be offered, candidates that must not be)
CASES = [
    ("toolprune --thr", {"--threshold"}, set()),
    ("toolprune --fit c", {"claude", "codex"}, {"gemini"}),
    ("toolprune --scorer s", {"semantic", "systemone"}, set()),
    ("toolprune --", {"--basis", "--envelope"}, {"--json", "--log", "--max-size", "--older-than"}),
    ("toolprune omitted -", {"--spill-dir"}, {"--basis"}),
    ("toolprune config s", {"set", "set-key", "show"}, set()),
    ("toolprune config set ba", {"base_url"}, set()),
    ("toolprune spill ", {"gc", "list", "path", "show"}, set()),
    ("toolprune spill list --", {"--json", "--spill-dir"}, {"--basis", "list", "show"}),
    ("toolprune spill show P1 --", {"--spill-dir"}, {"list", "show", "gc"}),
    ("toolprune stats --", {"--json", "--log"}, {"--basis", "--threshold"}),
    ("toolprune scorer test --", {"--provider", "--timeout"}, {"--basis", "--envelope"}),
    ("toolprune --basis foo spi", {"spill"}, set()),
    ("toolprune compl", {"completions"}, set()),
]


def _words(line: str) -> list[str]:
    return line.split(" ")


def complete_bash(line: str, script: Path) -> set[str]:
    parts = _words(line)
    quoted = " ".join("'" + p + "'" for p in parts)
    body = f'source {script}; COMP_WORDS=({quoted}); COMP_CWORD={len(parts) - 1}; _toolprune; printf "%s\\n" "${{COMPREPLY[@]}}"'
    return set(subprocess.run(["bash", "-c", body], capture_output=True, text=True, check=True).stdout.split())


def complete_zsh(line: str, script: Path, tmp: Path) -> set[str]:
    folder = tmp / "fpath"
    folder.mkdir(exist_ok=True)
    (folder / "_toolprune").write_bytes(script.read_bytes())
    out = tmp / "candidates"
    out.unlink(missing_ok=True)
    subprocess.run(["zsh", "-f", str(ROOT / "tests" / "zsh_complete.zsh"), str(folder), str(out), line],
                   check=True, timeout=60, cwd=tmp)
    words = out.read_text().split()
    assert "__END__" in words, "zsh never finished completing"
    return set(words) - {"__END__"}


def complete_fish(line: str, script: Path) -> set[str]:
    proc = subprocess.run(["fish", "-c", f"source {script}; complete -C '{line}'"], capture_output=True, text=True,
                          check=True)
    return {row.split("\t")[0] for row in proc.stdout.splitlines()}


SCRIPTS = {"bash": "toolprune.bash", "zsh": "_toolprune", "fish": "toolprune.fish"}


@pytest.mark.parametrize("shell", sorted(SCRIPTS))
@pytest.mark.parametrize("line, offered, absent", CASES, ids=[c[0] for c in CASES])
def test_each_shell_completes_each_command_in_its_own_scope(shell, line, offered, absent, tmp_path):
    script = ROOT / "completions" / SCRIPTS[shell]
    if shell == "bash":
        got = complete_bash(line, script)
    elif shell == "zsh":
        got = complete_zsh(line, script, tmp_path)
    else:
        got = complete_fish(line, script)
    assert offered <= got, f"{shell} offered {sorted(got)}"
    assert not (absent & got), f"{shell} offered {sorted(absent & got)} out of scope"


@pytest.mark.parametrize("shell", sorted(SCRIPTS))
def test_completions_command_prints_the_installed_script(shell):
    proc = cli("completions", shell)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == (ROOT / "completions" / SCRIPTS[shell]).read_bytes()


def test_completions_for_an_unknown_shell_names_the_choices():
    proc = cli("completions", "tcsh")
    assert proc.returncode == 2
    assert b"use one of bash, zsh, fish" in proc.stderr


def test_completion_scripts_parse():
    subprocess.run(["bash", "-n", str(ROOT / "completions" / "toolprune.bash")], check=True)
    subprocess.run(["zsh", "-n", str(ROOT / "completions" / "_toolprune")], check=True)
    subprocess.run(["fish", "-n", str(ROOT / "completions" / "toolprune.fish")], check=True)


def _every_command():
    from toolprune.cli.completion import commands

    root, subs = commands()
    yield (), root
    for name, command in sorted(subs.items()):
        yield (name,), command
        for sub_name, sub in sorted(getattr(command, "commands", {}).items()):
            yield (name, sub_name), sub


@pytest.mark.parametrize("path", [p for p, _ in _every_command()], ids=lambda p: " ".join(p) or "root")
def test_help_lists_whole_summaries_and_plain_usage_lines(path):
    proc = cli(*path, "--help", env={"COLUMNS": "80"})
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout.decode()
    usage = text.splitlines()[0]
    assert usage.startswith("Usage: toolprune") and "{" not in usage, usage
    listing = text.split("\nCommands:\n", 1)[1].split("\n\n", 1)[0] if "\nCommands:\n" in text else ""
    for line in listing.splitlines():
        assert not line.rstrip().endswith("..."), f"a summary is cut: {line.strip()}"


def test_a_negative_unit_number_is_named_as_such():
    proc = cli("omitted", "P1", "-1")
    assert proc.returncode == 2
    assert b"'-1' is not a unit number" in proc.stderr and b"No such option" not in proc.stderr


@pytest.mark.parametrize("number", ["\uff10", "1_0", "+3", " 3", "3.0"])
def test_a_unit_number_is_ascii_digits_only(number):
    """``int()`` takes a full-width "０", "1_0", "+3" and " 3"; the markers print ASCII digits,
    and anything else is a typo to name, not a number to guess (an audit's note)."""
    for args in (("omitted", "P1-00000000", number), ("omitted", "P1-00000000", "0", number)):
        proc = cli(*args)
        assert proc.returncode == 2 and b"is not a unit number: use the digits 0-9" in proc.stderr, args

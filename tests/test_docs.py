"""Docs that cannot drift: the man page and completions are generated from the app, render
cleanly and complete the real options."""

from __future__ import annotations

import subprocess

import pytest

from conftest import ROOT


def test_man_page_renders_without_warnings():
    proc = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", str(ROOT / "man" / "toolprune.1")],
                          capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stderr == ""
    page = subprocess.run(
        ["groff", "-man", "-Tutf8", "-P-cbou", str(ROOT / "man" / "toolprune.1")], capture_output=True
    ).stdout
    for section in (b"DESCRIPTION", b"OPTIONS", b"EXAMPLES", b"FILES", b"ENVIRONMENT", b"EXIT STATUS", b"PRIVACY", b"SEE ALSO"):
        assert section in page


@pytest.mark.parametrize(
    "words, expected",
    [
        ("toolprune --thr", "--threshold"), ("toolprune --fit c", "claude codex"), ("toolprune omitted -", "--spill-dir"),
        ("toolprune --scorer s", "semantic systemone"), ("toolprune config s", "set set-key show"),
        ("toolprune spill ", "gc list path show"), ("toolprune config set ba", "base_url"),
    ],
)
def test_bash_completion(words, expected):
    parts = words.split(" ")
    script = (
        f"source {ROOT / 'completions' / 'toolprune.bash'}; COMP_WORDS=({' '.join(repr(p) for p in parts)}); "
        f"COMP_CWORD={len(parts) - 1}; _toolprune; echo \"${{COMPREPLY[*]}}\""
    )
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True).stdout
    assert expected in out


def test_zsh_and_fish_completions_parse_and_fish_completes():
    subprocess.run(["zsh", "-n", str(ROOT / "completions" / "_toolprune")], check=True)
    subprocess.run(["fish", "-n", str(ROOT / "completions" / "toolprune.fish")], check=True)
    out = subprocess.run(
        ["fish", "-c", f"source {ROOT / 'completions' / 'toolprune.fish'}; complete -C 'toolprune --fit '"],
        capture_output=True, text=True, check=True,
    ).stdout
    assert "codex" in out
    subcommands = subprocess.run(
        ["fish", "-c", f"source {ROOT / 'completions' / 'toolprune.fish'}; complete -C 'toolprune config '; "
         f"complete -C 'toolprune config set '"],
        capture_output=True, text=True, check=True,
    ).stdout
    assert "set-key\t" in subcommands and "base_url" in subcommands

"""``toolprune hook install|uninstall`` on real settings files that hold other hooks and
settings, and ``toolprune doctor`` on an empty HOME and after installing. HOME is a temporary
folder; every command goes through the CLI's entry point (``doctor`` itself runs each installed
hook as a real ``toolprune`` process)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from conftest import cli

BIN = str(Path(sys.executable).parent)

SETTINGS = {
    "claude-code": (".claude/settings.json", {
        "model": "opus",
        "permissions": {"allow": ["Bash(npm test:*)"]},
        "hooks": {"PostToolUse": [{"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "prettier --write"}]}]},
        "statusLine": {"type": "command", "command": "~/bin/status"},
    }),
    "codex": (".codex/hooks.json", {
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/guard", "timeout": 10}]}]},
    }),
    "gemini": (".gemini/settings.json", {
        "theme": "GitHub",
        "hooks": {"BeforeTool": [{"matcher": "write_file", "hooks": [{"type": "command", "command": "./lint.sh"}]}],
                  "AfterTool": [{"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "./audit.sh"}]}]},
        "general": {"vimMode": True},
    }),
}
EVENTS = {"claude-code": ("UserPromptSubmit", "PostToolUse"), "codex": ("UserPromptSubmit", "PostToolUse"),
          "gemini": ("BeforeAgent", "BeforeTool")}


def run(*args: str, home: Path, cwd: Path | None = None, path: str | None = None):
    env = {"HOME": str(home), "PATH": path if path is not None else BIN + os.pathsep + os.environ.get("PATH", "")}
    env.pop("CODEX_HOME", None)
    return cli(*args, env=env, cwd=cwd)


def ours(data: dict, agent: str) -> list[str]:
    command = f"toolprune hook {agent}"
    return [event for event, groups in data.get("hooks", {}).items()
            for group in groups for hook in group["hooks"] if hook.get("command") == command]


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.delenv("CODEX_HOME", raising=False)
    folder = tmp_path / "user"
    folder.mkdir()
    return folder


@pytest.mark.parametrize("agent", list(SETTINGS))
def test_install_twice_and_uninstall_round_trip(agent, home):
    relative, original = SETTINGS[agent]
    path = home / relative
    path.parent.mkdir(parents=True)
    text = json.dumps(original, indent=4) + "\n"
    path.write_text(text)

    proc = run("hook", "install", agent, home=home)
    assert proc.returncode == 0, proc.stderr.decode()
    installed = path.read_bytes()
    data = json.loads(installed)
    assert sorted(ours(data, agent)) == sorted(EVENTS[agent])
    # everything else is still there, in its order, with its indentation
    assert list(data) == list(original) + ([] if "hooks" in original else ["hooks"])
    for event, groups in original["hooks"].items():
        assert data["hooks"][event][: len(groups)] == groups
    assert {k: v for k, v in data.items() if k != "hooks"} == {k: v for k, v in original.items() if k != "hooks"}
    assert installed.decode().startswith('{\n    "') and installed.endswith(b"}\n")
    # the old file was kept
    assert (path.parent / (path.name + ".toolprune-bak")).read_text() == text

    again = run("hook", "install", agent, home=home)
    assert again.returncode == 0 and b"nothing to change" in again.stderr
    assert path.read_bytes() == installed

    gone = run("hook", "uninstall", agent, home=home)
    assert gone.returncode == 0, gone.stderr.decode()
    assert json.loads(path.read_text()) == original
    assert run("hook", "uninstall", agent, home=home).returncode == 0
    assert json.loads(path.read_text()) == original


@pytest.mark.parametrize("agent", list(SETTINGS))
def test_dry_run_prints_the_diff_and_writes_nothing(agent, home):
    relative, original = SETTINGS[agent]
    path = home / relative
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(original, indent=2) + "\n")
    before = path.read_bytes()
    proc = run("hook", "install", agent, "--dry-run", home=home)
    assert proc.returncode == 0, proc.stderr.decode()
    diff = proc.stdout.decode()
    assert diff.startswith(f"--- {path}\n+++ {path}\n@@ ")
    assert f'+            "command": "toolprune hook {agent}"' in diff
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]  # no backup, no temp file


def test_install_creates_a_missing_file_and_uninstall_leaves_it_empty_of_hooks(home):
    proc = run("hook", "install", "gemini", home=home)
    assert proc.returncode == 0
    path = home / ".gemini" / "settings.json"
    assert sorted(ours(json.loads(path.read_text()), "gemini")) == ["BeforeAgent", "BeforeTool"]
    assert not (path.parent / "settings.json.toolprune-bak").exists()
    assert run("hook", "uninstall", "gemini", home=home).returncode == 0
    assert json.loads(path.read_text()) == {}


@pytest.mark.parametrize("before", ['{\n  "hooks": {\n    "PostToolUse": []\n  }\n}\n',
                                    '{"model": "opus", "hooks": {}}\n'])
def test_uninstall_gives_back_empty_hook_lists_the_user_had(home, before):
    """An empty event list or ``"hooks": {}`` written before ``install`` is still there, byte for
    byte, after ``uninstall`` (toolprune reads the backup to know it was the user's); one that
    ``install`` made goes."""
    path = home / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(before)
    assert run("hook", "install", "claude-code", home=home).returncode == 0
    assert sorted(ours(json.loads(path.read_text()), "claude-code")) == ["PostToolUse", "UserPromptSubmit"]
    installed = path.read_text()
    dry = run("hook", "uninstall", "claude-code", "--dry-run", home=home)
    added = [line for line in dry.stdout.decode().splitlines() if line.startswith("+") and not line.startswith("+++")]
    assert dry.returncode == 0 and path.read_text() == installed
    assert any('"PostToolUse": []' in line or '"hooks": {}' in line for line in added)
    assert run("hook", "uninstall", "claude-code", home=home).returncode == 0
    assert path.read_text() == before
    # without a backup, or with one that holds toolprune's hooks (an older install's), nothing
    # says the lists were the user's: toolprune's events go whole
    backup = path.parent / "settings.json.toolprune-bak"
    for stale in (False, True):
        assert run("hook", "install", "claude-code", home=home).returncode == 0
        backup.unlink()
        if stale:
            backup.write_text(path.read_text())
        assert run("hook", "uninstall", "claude-code", home=home).returncode == 0
        assert json.loads(path.read_text()) == ({} if "model" not in before else {"model": "opus"})


def test_a_backup_path_taken_by_a_folder_changes_nothing(home):
    path = home / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text('{"model": "opus"}\n')
    (path.parent / "settings.json.toolprune-bak").mkdir()
    proc = run("hook", "install", "claude-code", home=home)
    assert proc.returncode != 0 and b"is not a regular file: move it away" in proc.stderr
    assert b"internal error" not in proc.stderr and path.read_text() == '{"model": "opus"}\n'


def test_a_symlinked_settings_file_stays_a_symlink(home, tmp_path):
    """A dotfile manager (stow, Home Manager) links ~/.claude/settings.json to its own copy: the
    hooks go into that copy and the link stays, through install and uninstall."""
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    target = dotfiles / "claude.json"
    target.write_text('{"theme": "dark"}\n')
    link = home / ".claude" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(target)
    assert run("hook", "install", "claude-code", home=home).returncode == 0
    assert link.is_symlink() and sorted(ours(json.loads(target.read_text()), "claude-code")) == [
        "PostToolUse", "UserPromptSubmit"]  # fmt: skip
    assert json.loads(target.read_text())["theme"] == "dark"
    assert (link.parent / "settings.json.toolprune-bak").read_text() == '{"theme": "dark"}\n'
    assert run("hook", "uninstall", "claude-code", home=home).returncode == 0
    assert link.is_symlink() and json.loads(target.read_text()) == {"theme": "dark"}


def test_project_settings_live_in_the_current_folder(home, tmp_path):
    project = tmp_path / "repo"
    project.mkdir()
    assert run("hook", "install", "claude-code", "--project", home=home, cwd=project).returncode == 0
    assert ours(json.loads((project / ".claude" / "settings.json").read_text()), "claude-code")
    assert not (home / ".claude").exists()


def test_codex_home_is_where_codex_keeps_its_hooks(home, tmp_path):
    codex_home = tmp_path / "codex-home"
    env = {"HOME": str(home), "CODEX_HOME": str(codex_home)}
    assert cli("hook", "install", "codex", env=env).returncode == 0
    assert ours(json.loads((codex_home / "hooks.json").read_text()), "codex")


def test_a_file_that_is_not_json_is_never_rewritten(home):
    path = home / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text('{"model": "opus",, }')
    proc = run("hook", "install", "claude-code", home=home)
    assert proc.returncode == 1 and b"not valid JSON" in proc.stderr
    assert path.read_text() == '{"model": "opus",, }'
    assert sorted(p.name for p in path.parent.iterdir()) == ["settings.json"]


@pytest.mark.parametrize("text", [
    '{"hooks": {"PostToolUse": []}, "hooks": {"UserPromptSubmit": []}}',  # the agent reads the second
    '{"hooks": {"PostToolUse": [], "PostToolUse": [{"hooks": []}]}}',
])  # fmt: skip
def test_a_member_named_twice_on_the_way_to_the_hooks_is_refused(home, text):
    """JSON.parse keeps the last of two members of one name, an edit changed the first: the
    install said "added" and the agent never saw the hooks."""
    path = home / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(text)
    proc = run("hook", "install", "claude-code", home=home)
    assert proc.returncode == 1 and b"twice in one object" in proc.stderr
    assert path.read_text() == text
    path.write_text('{"env": {"A": "1", "A": "2"}, "hooks": {}}')  # elsewhere: not in the way
    assert run("hook", "install", "claude-code", home=home).returncode == 0


def test_a_settings_path_that_is_a_fifo_is_refused_without_blocking(home):
    """Reading a FIFO blocks until a writer comes: the install is refused before it opens it."""
    path = home / ".claude" / "settings.json"
    path.parent.mkdir()
    os.mkfifo(path)
    proc = cli("hook", "install", "claude-code", env={"HOME": str(home)}, timeout=30)  # a hang ends the run, loudly
    assert proc.returncode == 1 and b"not a regular file" in proc.stderr


def test_uninstall_keeps_a_hook_that_shares_a_group_with_toolprunes(home):
    path = home / ".claude" / "settings.json"
    path.parent.mkdir()
    shared = {"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "/usr/local/bin/toolprune hook claude-code"},
        {"type": "command", "command": "~/bin/notify"},
    ]}]}}
    path.write_text(json.dumps(shared))
    assert run("hook", "uninstall", "claude-code", home=home).returncode == 0
    assert json.loads(path.read_text()) == {"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "~/bin/notify"}]}]}}


def test_an_unknown_agent_is_a_usage_error(home):
    proc = run("hook", "install", "cursor", home=home)
    assert proc.returncode == 2 and b"claude-code, codex, gemini" in proc.stderr


# --- doctor ---------------------------------------------------------------------------------

def test_doctor_on_an_empty_home(home):
    proc = run("doctor", home=home)
    assert proc.returncode == 0, proc.stdout.decode()
    out = proc.stdout.decode()
    assert out.startswith("toolprune ")
    assert f"claude-code (user): {home}/.claude/settings.json: no such file" in out
    assert "no agent runs toolprune's hooks yet" in out
    assert "scorer: lexical" in out and "spill dir: " in out
    assert out.rstrip().endswith("healthy")


def trust_codex_hooks(home: Path) -> None:
    """What trusting the hooks in Codex's /hooks leaves in its config.toml."""
    hooks = home / ".codex" / "hooks.json"
    (home / ".codex" / "config.toml").write_text(
        f'[hooks.state."file:{hooks}:user_prompt_submit:0:0"]\ntrusted_hash = "sha256:0"\n'
        f'[hooks.state."file:{hooks}:post_tool_use:0:0"]\ntrusted_hash = "sha256:1"\n')


def test_doctor_after_install_fires_every_hook(home):
    for agent in SETTINGS:
        assert run("hook", "install", agent, home=home).returncode == 0
    trust_codex_hooks(home)
    proc = run("doctor", home=home)
    out = proc.stdout.decode()
    assert proc.returncode == 0, out
    for agent in SETTINGS:
        assert f"{agent} (user): the hook fires: a synthetic event came back pruned" in out
    assert "problem" not in out


def test_doctor_names_each_problem_and_its_fix(home, tmp_path):
    assert run("hook", "install", "codex", home=home).returncode == 0
    path = home / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"hooks": {"UserPromptSubmit": [{"hooks": [
        {"type": "command", "command": "toolprune hook claude-code"}]}]}}))
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    proc = run("doctor", home=home, path=str(empty))
    out = proc.stdout.decode()
    assert proc.returncode == 1, out
    problems = [line for line in out.splitlines() if line.startswith("problem: ")]
    assert any("lacks the PostToolUse hook: run `toolprune hook install claude-code`" in p for p in problems)
    assert any(p.startswith("problem: codex: the hook runs `toolprune`, which is not on PATH") for p in problems)
    assert any("is not trusted yet: open /hooks in Codex" in p for p in problems)


def test_doctor_says_when_codex_has_not_trusted_the_hooks(home):
    assert run("hook", "install", "codex", home=home).returncode == 0
    proc = run("doctor", home=home)
    assert proc.returncode == 1
    assert "problem: codex: Codex runs a new hook only once you trust it" in proc.stdout.decode()
    trust_codex_hooks(home)
    assert run("doctor", home=home).returncode == 0


# --- the text edit: every byte outside toolprune's entries stays -----------------------------

JSONC = """{
  // Gemini CLI reads its settings with comments stripped
  "theme": "GitHub", /* the light one */
  "hooks": {
    "BeforeTool": [
      {"matcher": "write_file", "hooks": [{"type": "command", "command": "./lint.sh"}]} // keep
    ]
  },
  "url": "http://example.com/a//b"
}
"""

LAYOUTS = {
    "two spaces": json.dumps(SETTINGS["claude-code"][1], indent=2) + "\n",
    "tabs": json.dumps(SETTINGS["gemini"][1], indent="\t") + "\n",
    "one line": json.dumps(SETTINGS["codex"][1]),
    "crlf": json.dumps(SETTINGS["claude-code"][1], indent=4).replace("\n", "\r\n") + "\r\n",
    "no hooks yet": '{\n  "model": "opus"\n}\n',
    "empty object": "{}\n",
    "comments": JSONC,
}


@pytest.mark.parametrize("agent", list(SETTINGS))
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_uninstall_gives_back_the_file_byte_for_byte(agent, layout, home):
    from toolprune.cli.hooks.jsonedit import loads

    path = home / SETTINGS[agent][0]
    path.parent.mkdir(parents=True)
    original = LAYOUTS[layout].encode()
    path.write_bytes(original)
    assert run("hook", "install", agent, home=home).returncode == 0
    installed = path.read_bytes()
    data = loads(installed.decode())
    assert sorted(set(ours(data, agent))) == sorted(EVENTS[agent])
    if layout == "comments":
        assert b"// keep" in installed and b"/* the light one */" in installed
    if layout == "crlf":
        assert b"\n" not in installed.replace(b"\r\n", b"")
    assert run("hook", "install", agent, home=home).returncode == 0
    assert path.read_bytes() == installed
    assert run("hook", "uninstall", agent, home=home).returncode == 0
    assert path.read_bytes() == original


def test_an_added_entry_is_indented_like_its_neighbours(home):
    path = home / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps(SETTINGS["claude-code"][1], indent=4) + "\n")
    assert run("hook", "install", "claude-code", home=home).returncode == 0
    text = path.read_text()
    assert text == json.dumps(json.loads(text), indent=4) + "\n"  # as if the whole file were written at once


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), st.text(max_size=12))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=8)
hook_entry = st.fixed_dictionaries({"type": st.just("command"), "command": st.text(min_size=1, max_size=12)})
group = st.fixed_dictionaries({"hooks": st.lists(hook_entry, min_size=1, max_size=2)},
                              optional={"matcher": st.sampled_from(["Bash", "Write", "run_shell_command", ".*"])})
events = st.dictionaries(st.sampled_from(["PostToolUse", "PreToolUse", "UserPromptSubmit", "BeforeTool", "Stop"]),
                         st.lists(group, max_size=2), max_size=3)  # empty lists and an empty "hooks" too


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(other=st.dictionaries(st.text(max_size=8).filter(lambda k: k != "hooks"), values, max_size=4),
       hooks=st.none() | events, indent=st.sampled_from([None, 1, 2, 4, "\t"]),
       agent=st.sampled_from(sorted(SETTINGS)), comments=st.sampled_from([0, 2, 3]))
def test_install_and_uninstall_round_trip_any_settings(other, hooks, indent, agent, comments):
    from toolprune.cli.hooks.install import AGENTS, with_hooks, without_hooks
    from toolprune.cli.hooks.jsonedit import loads

    data = dict(other)
    if hooks is not None:
        data["hooks"] = hooks
    text = json.dumps(data, indent=indent, ensure_ascii=False) + "\n"
    if comments and indent is not None:  # a // comment, with a comma in it, at the end of some lines
        text = "".join(line + (" // a note, kept\n" if i % comments == 0 else "\n")
                       for i, line in enumerate(text.split("\n")[:-1]))
    spec = AGENTS[agent]
    installed = with_hooks(text, loads(text), spec)
    parsed = loads(installed)
    assert sorted(set(ours(parsed, agent))) == sorted(EVENTS[agent])
    assert without_hooks(installed, parsed, spec, before=loads(text)) == text  # the backup's settings
    assert with_hooks(installed, parsed, spec) is None  # installed already: nothing to change

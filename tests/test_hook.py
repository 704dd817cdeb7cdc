"""``toolprune hook claude-code``: events shaped as Claude Code sends them (hook schema of Claude
Code 2.1.197), through the real entry point."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from conftest import cli, document, qa_items, restore

QUESTION = "Which State Route has been in discussion to upgrade to interstate standards?"
OUTPUT = document(qa_items("en"))


def event(kind: str, **fields) -> bytes:
    base = {"session_id": "3f2a-session_1", "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp", "hook_event_name": kind}
    return json.dumps({**base, **fields}).encode()


def bash(command: str = "cat notes.txt", stdout: str = OUTPUT, **extra) -> bytes:
    response = {"stdout": stdout, "stderr": "warning: something", "interrupted": False, "isImage": False, **extra}
    return event("PostToolUse", tool_name="Bash", tool_input={"command": command, "description": "Show the notes"},
                 tool_response=response, tool_use_id="toolu_01")


def remember(prompt: str = QUESTION) -> None:
    proc = cli("hook", "claude-code", input=event("UserPromptSubmit", prompt=prompt))
    assert proc.returncode == 0 and proc.stdout == b""


def test_a_bash_result_is_pruned_against_the_remembered_request(isolated):
    remember()
    proc = cli("hook", "claude-code", input=bash(returnCodeInterpretation="ok"))
    assert proc.returncode == 0, proc.stderr.decode()
    answer = json.loads(proc.stdout)
    assert list(answer) == ["hookSpecificOutput"]
    specific = answer["hookSpecificOutput"]
    assert specific["hookEventName"] == "PostToolUse"
    updated = specific["updatedToolOutput"]
    # the same response object (the tool's output shape), only stdout replaced
    assert {k: v for k, v in updated.items() if k != "stdout"} == {
        "stderr": "warning: something", "interrupted": False, "isImage": False, "returnCodeInterpretation": "ok",
    }
    assert len(updated["stdout"]) < len(OUTPUT) and "Interstate" in updated["stdout"]
    assert restore(updated["stdout"].encode()) == OUTPUT.encode()
    assert (isolated / "sessions" / "3f2a-session_1").stat().st_mode & 0o777 == 0o600


def test_without_a_remembered_request_the_description_is_the_basis():
    proc = cli("hook", "claude-code", input=bash())
    assert proc.returncode == 0
    assert proc.stdout == b"" or json.loads(proc.stdout)["hookSpecificOutput"]["hookEventName"] == "PostToolUse"


def test_nothing_is_answered_when_there_is_nothing_to_do():
    remember()
    for payload in (
        bash(command="toolprune omitted P1 3 5"),  # bringing a dropped part back
        bash(command="cat x | toolprune --basis 'q'"),  # pruned already
        bash(stdout="short output\n"),  # small
        bash(isImage=True),
        event("PostToolUse", tool_name="Read", tool_input={"file_path": "/x"}, tool_response={"content": OUTPUT}),
        event("PreToolUse", tool_name="Bash", tool_input={"command": "ls"}),
        b"not json at all",
        b"[1, 2]",
    ):
        proc = cli("hook", "claude-code", input=payload)
        assert proc.returncode == 0 and proc.stdout == b"", payload[:80]


def test_a_session_id_is_never_a_path(isolated):
    for session in ("../../etc/x", ".hidden", "a/b", ""):
        payload = json.dumps({"session_id": session, "hook_event_name": "UserPromptSubmit", "prompt": QUESTION})
        assert cli("hook", "claude-code", input=payload.encode()).returncode == 0
    sessions = isolated / "sessions"
    assert not sessions.exists() or list(sessions.iterdir()) == []


def test_a_failure_leaves_the_output_as_it_was(isolated):
    remember()
    isolated.joinpath("spill").parent.mkdir(parents=True, exist_ok=True)
    isolated.joinpath("spill").write_text("a file where the spill directory should be")
    proc = cli("hook", "claude-code", input=bash())
    assert proc.returncode == 0 and proc.stdout == b""


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini"])
@pytest.mark.parametrize("variable", ["TOOLPRUNE_TAIL=abc", "TOOLPRUNE_MAX_CHARS=0", "TOOLPRUNE_ENVELOPE=xyz",
                                      "TOOLPRUNE_JSON_STRICT=maybe", "TOOLPRUNE_MAX_LINES=1.5"])  # fmt: skip
def test_a_mistyped_setting_never_makes_a_hook_exit_2(isolated, agent, variable):
    """Claude Code and Gemini CLI block the prompt or the tool call on exit 2: a hook exits 0,
    whatever the environment holds (typer's checks of the root flags once exited 2 first)."""
    name, value = variable.split("=")
    for payload in (event("UserPromptSubmit", prompt=QUESTION), bash()):
        proc = cli("hook", agent, input=payload, env={name: value})
        assert proc.returncode == 0, (agent, variable, proc.stderr.decode())


@pytest.mark.parametrize(
    "command, runs",
    [
        ("toolprune omitted P1 3 5", True), ("cat x | toolprune --basis 'q'", True), ("FOO=1 toolprune run -- make", True),
        ("python3 -m toolprune omitted P2 1", True), ("/opt/bin/toolprune spill show P3", True),
        ("echo $(toolprune --version)", True), ("cd ~/src/toolprune && pytest -q", False),
        ("grep -rn toolprune src/ | head", False), ("git log -- toolprune/cli/hook.py", False),
        ("python -m pytest tests/test_toolprune.py", False),
        # behind a wrapper, in a loop's body or a group, inside a shell's -c: still toolprune
        ("timeout 30 toolprune omitted P1 0 44", True), ("for r in '0 44'; do toolprune omitted P1 $r; done", True),
        ("bash -c 'toolprune omitted P1 0 44'", True), ("sh -lc \"cat x | toolprune -b q\"", True),
        ("sudo -u bob toolprune spill list", True), ("nice -n 5 toolprune omitted P1 2", True),
        ("stdbuf -o0 toolprune omitted P1 2", True), ("env -i PATH=/usr/bin toolprune omitted P1 2", True),
        ("echo P1 | xargs toolprune omitted", True), ("uvx toolprune omitted P1 2", True),
        ("uv run toolprune omitted P1 2", True), ("pipx run toolprune omitted P1 2", True),
        ("{ toolprune omitted P1 2; }", True), ("if true; then toolprune omitted P1 2; fi", True),
        ("python3 -Im toolprune omitted P1 2", True), ("python3 -mtoolprune omitted P1 2", True),
        ("bash -c 'cd ~/src/toolprune && make'", False), ("timeout 30 pytest -q", False),
    ],
)
def test_only_commands_that_run_toolprune_are_skipped(command, runs):
    from toolprune.cli.hook import runs_toolprune

    assert runs_toolprune(command) is runs


def test_a_command_that_only_mentions_toolprune_is_pruned():
    remember()
    proc = cli("hook", "claude-code", input=bash(command="cd ~/src/toolprune && cat notes.txt"))
    assert json.loads(proc.stdout)["hookSpecificOutput"]["updatedToolOutput"]["stdout"] != OUTPUT


def _failing_pytest_log(tmp_path) -> str:
    """A real ``pytest -v`` run: 400 passing tests and one failure, whose summary is at the end."""
    tests = tmp_path / "suite"
    tests.mkdir()
    body = "\n".join(f"def test_case_{i:03d}():\n    assert {i} == {i}\n" for i in range(400))
    body += "\ndef test_login_rejects_an_expired_token():\n    token = {'exp': 0}\n    assert token['exp'] > 1, 'expired token accepted'\n"
    (tests / "test_big.py").write_text(body)
    proc = subprocess.run([sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", str(tests)],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 1
    return proc.stdout


def test_a_bash_result_over_the_inline_limit_is_pruned_from_the_persisted_full_output(tmp_path):
    full = _failing_pytest_log(tmp_path)
    assert len(full) > 30_000 and "short test summary info" in full[-2000:]
    persisted = tmp_path / "tool-results" / "toolu_01.txt"
    persisted.parent.mkdir()
    persisted.write_text(full)
    remember("why does the login test fail on an expired token?")
    payload = bash(command="python -m pytest -v", stdout=full[:30_000], persistedOutputPath=str(persisted),
                   persistedOutputSize=len(full.encode()))
    proc = cli("hook", "claude-code", input=payload)
    assert proc.returncode == 0, proc.stderr.decode()
    updated = json.loads(proc.stdout)["hookSpecificOutput"]["updatedToolOutput"]
    assert "persistedOutputPath" not in updated and "persistedOutputSize" not in updated
    assert updated["stderr"] == "warning: something" and updated["interrupted"] is False
    out = updated["stdout"]
    assert len(out) <= 30_000
    assert "FAILED" in out and "expired token accepted" in out and "short test summary info" in out
    assert restore(out.encode()) == full.encode()


def test_a_persisted_path_that_is_not_a_regular_file_answers_nothing(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    remember()
    proc = cli("hook", "claude-code", input=bash(persistedOutputPath=str(fifo)), timeout=60)
    assert proc.returncode == 0 and proc.stdout == b""


def test_an_mcp_text_result_is_pruned_in_its_own_shape():
    remember()
    payload = event("PostToolUse", tool_name="mcp__filesystem__read_text_file", tool_input={"path": "/notes.txt"},
                    tool_response=OUTPUT, tool_use_id="toolu_02")
    proc = cli("hook", "claude-code", input=payload)
    updated = json.loads(proc.stdout)["hookSpecificOutput"]["updatedToolOutput"]
    assert isinstance(updated, str) and len(updated) < len(OUTPUT) and "Interstate" in updated
    assert restore(updated.encode()) == OUTPUT.encode()

def mcp_event(response) -> bytes:
    return event("PostToolUse", tool_name="mcp__filesystem__read_text_file", tool_input={"path": "/tmp/notes.txt"},
                 tool_response=response, tool_use_id="toolu_02")


def test_an_mcp_tool_result_is_pruned_in_the_same_shape(tmp_path):
    remember()
    env = {"TOOLPRUNE_SPILL_DIR": str(tmp_path)}
    response = {"content": [{"type": "text", "text": OUTPUT}], "structuredContent": {"content": OUTPUT}}
    proc = cli("hook", "claude-code", input=mcp_event(response), env=env)
    assert proc.returncode == 0, proc.stderr.decode()
    updated = json.loads(proc.stdout)["hookSpecificOutput"]["updatedToolOutput"]
    assert list(updated) == ["content", "structuredContent"]
    text = updated["content"][0]["text"]
    assert len(text) < len(OUTPUT) and updated["structuredContent"]["content"] == text
    assert restore(text.encode(), env) == OUTPUT.encode()
    as_list = cli("hook", "claude-code", input=mcp_event(response["content"]), env=env)
    items = json.loads(as_list.stdout)["hookSpecificOutput"]["updatedToolOutput"]
    assert isinstance(items, list) and items[0]["text"].startswith("【toolprune: ")


@pytest.mark.parametrize("kind", ["records", "mixed"])
def test_an_mcp_list_whose_note_would_sit_beside_it_is_left_as_it_was(tmp_path, kind):
    """A list that is not all content items is pruned as JSON, with its note (``_pruned``: what
    was dropped, the id to get it back) beside the list; answered as a list, the elements would
    be gone without a trace. So the hook answers nothing."""
    remember("where is the retry budget set?")
    if kind == "records":
        response = [{"id": i, "note": ("the retry budget is set here " if i == 17 else "lorem ipsum dolor sit ") * 20}
                    for i in range(60)]
    else:
        response = [{"type": "text", "text": f"part {i}: " + ("the retry budget is set here " if i == 3 else
                                                              "lorem ipsum dolor sit amet ") * 40} for i in range(14)]
        response.append({"kind": "x"})
    env = {"TOOLPRUNE_SPILL_DIR": str(tmp_path)}
    proc = cli("hook", "claude-code", input=mcp_event(response), env=env)
    assert proc.returncode == 0 and proc.stdout == b"", proc.stdout[:300]


def test_a_persisted_output_still_over_the_limit_once_pruned_answers_nothing(tmp_path):
    """JSON is never cut to a size: a 660 kB array whose every other element matches stays about
    half its size. Inline, that would be more than Claude Code ever puts in the model's context
    (it shows a 2 kB preview and the path); so the hook leaves the output as it was."""
    items = [{"name": f"pkg{i}", "summary": "alpha beta gamma " * 10 + ("timeout handling" if i % 2 == 0 else "")}
             for i in range(3000)]
    full = json.dumps(items, indent=1)
    persisted = tmp_path / "big.json"
    persisted.write_text(full)
    remember("Which packages deal with timeout handling?")
    payload = bash(command="cat big.json", stdout=full[:30_000], persistedOutputPath=str(persisted),
                   persistedOutputSize=len(full))
    proc = cli("hook", "claude-code", input=payload)
    assert proc.returncode == 0 and proc.stdout == b"", proc.stdout[:200]
    assert "still over the claude bounds" in proc.stderr.decode()


def test_a_relative_spill_dir_is_named_absolute_in_the_hooks_markers(tmp_path):
    """A relative ``TOOLPRUNE_SPILL_DIR`` is read from the hook's folder; the agent's shell may
    be elsewhere when the model runs the marker's command, so the marker names it absolute."""
    (tmp_path / "sub").mkdir()
    env = {"TOOLPRUNE_SPILL_DIR": ".toolprune-spill"}
    assert cli("hook", "claude-code", input=event("UserPromptSubmit", prompt=QUESTION), cwd=tmp_path, env=env).returncode == 0
    proc = cli("hook", "claude-code", input=bash(), cwd=tmp_path, env=env)
    out = json.loads(proc.stdout)["hookSpecificOutput"]["updatedToolOutput"]["stdout"]
    import re
    import shlex

    command = re.search(r"toolprune omitted --spill-dir (\S+) (P[\w-]+) (\d+)(?: (\d+))?", out)
    assert command and command.group(1) == shlex.quote(str(tmp_path / ".toolprune-spill")), out[:300]
    args = [a for a in command.group(0).split()[1:]]
    back = cli(*args, cwd=tmp_path / "sub")  # the model's shell, in another folder
    assert back.returncode == 0 and back.stdout.decode() in OUTPUT, back.stderr.decode()


def test_a_prompt_with_a_lone_surrogate_replaces_the_remembered_one(isolated):
    remember("How is TLS certificate rotation handled?")
    payload = b'{"session_id": "3f2a-session_1", "hook_event_name": "UserPromptSubmit", "prompt": "' + \
        QUESTION.encode() + b' \\ud83d"}'
    proc = cli("hook", "claude-code", input=payload)
    assert proc.returncode == 0 and proc.stderr == b"", proc.stderr
    remembered = (isolated / "sessions" / "3f2a-session_1").read_text(encoding="utf-8")
    assert remembered.startswith(QUESTION) and "TLS" not in remembered


def test_an_answer_is_never_json_with_infinity():
    """``1e400`` in an MCP result reads as inf in Python; written back it would be ``Infinity``,
    which is not JSON: the hook answers nothing instead."""
    remember()
    rows = [{"line": line, "score": 1e400 if k == 0 else k} for k, line in enumerate(OUTPUT.split("\n\n"))]
    response = {"content": [{"type": "text", "text": OUTPUT}], "structuredContent": {"rows": rows}}
    proc = cli("hook", "claude-code", input=mcp_event(response))
    assert proc.returncode == 0
    assert b"Infinity" not in proc.stdout and (proc.stdout == b"" or json.loads(proc.stdout))


def test_an_mcp_image_item_is_never_dropped():
    """An image brought back through ``omitted`` would be its base64 as text: kept, in its place."""
    import base64

    remember()
    paragraphs = OUTPUT.split("\n\n")
    items = [{"type": "text", "text": p} for p in paragraphs]
    image = {"type": "image", "data": base64.b64encode(bytes(range(256)) * 12).decode(), "mimeType": "image/png"}
    items.insert(len(items) // 2, image)
    proc = cli("hook", "claude-code", input=mcp_event({"content": items, "isError": False}))
    updated = json.loads(proc.stdout)["hookSpecificOutput"]["updatedToolOutput"]
    kinds = [item["type"] for item in updated["content"]]
    assert kinds.count("image") == 1 and image in updated["content"]
    assert len(updated["content"]) < len(items)

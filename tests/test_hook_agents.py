"""``toolprune hook codex`` and ``toolprune hook gemini``, through the real entry point, fed events
of the real schemas: Codex CLI 0.171.0 (the JSON schemas inside the ``@openai/codex`` linux-x64
binary) and Gemini CLI 0.61.0 (``@google/gemini-cli-core`` hook types); the fixtures are in
``tests/fixtures/hooks``."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES, cli, document, qa_items, restore

QUESTION = "Which State Route has been in discussion to upgrade to interstate standards?"
OUTPUT = document(qa_items("en"))
BIN = str(Path(sys.executable).parent)
"""Where the ``toolprune`` console script of this environment is (the shell must find it)."""


def fixture(name: str, **changes) -> dict:
    event = json.loads((FIXTURES / "hooks" / f"{name}.json").read_text())
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(event.get(key), dict):
            event[key] = {**event[key], **value}
        else:
            event[key] = value
    return event


def send(agent: str, event: dict | bytes, **kw) -> subprocess.CompletedProcess:
    payload = event if isinstance(event, bytes) else json.dumps(event).encode()
    proc = cli("hook", agent, input=payload, **kw)
    assert proc.returncode == 0, proc.stderr.decode()
    return proc


# --- Codex CLI 0.171.0 ----------------------------------------------------------------------

CODEX_OUTPUT_KEYS = {"continue", "decision", "hookSpecificOutput", "reason", "stopReason", "suppressOutput", "systemMessage"}
"""The keys post-tool-use.command.output allows (additionalProperties: false)."""


def codex_remember(prompt: str = QUESTION) -> None:
    assert send("codex", fixture("codex-0.171.0-user-prompt-submit", prompt=prompt)).stdout == b""


def test_codex_shell_output_comes_back_pruned_as_the_block_reason():
    codex_remember()
    proc = send("codex", fixture("codex-0.171.0-post-tool-use", tool_response=OUTPUT))
    answer = json.loads(proc.stdout)
    assert set(answer) <= CODEX_OUTPUT_KEYS
    # the model is shown the reason instead of the output; no permission decision is made
    assert answer == {"decision": "block", "reason": answer["reason"]}
    reason = answer["reason"]
    assert len(reason) < len(OUTPUT) and "Interstate" in reason
    assert reason.startswith("【")  # the transcript is not there: no exit status to show
    assert restore(reason.encode()) == OUTPUT.encode()


def test_codex_reason_carries_the_exit_status_from_the_transcript(tmp_path):
    """Codex shows the model only the reason, so its "Process exited with code N" line is put
    back from the session transcript (recorded there before the hook runs: seen in a live
    ``codex exec`` of 0.171.0)."""
    transcript = tmp_path / "rollout.jsonl"
    transcript.write_text((FIXTURES / "hooks" / "codex-0.171.0-transcript.jsonl").read_text())
    codex_remember()
    event = fixture("codex-0.171.0-post-tool-use", tool_response=OUTPUT, transcript_path=str(transcript))
    reason = json.loads(send("codex", event).stdout)["reason"]
    prefix = "Process exited with code 3\nOutput:\n"
    assert reason.startswith(prefix + "【")
    assert restore(reason[len(prefix):].encode()) == OUTPUT.encode()
    # another call's record, or none, gives no status
    other = fixture("codex-0.171.0-post-tool-use", tool_response=OUTPUT, transcript_path=str(transcript), tool_use_id="call_other")
    assert json.loads(send("codex", other).stdout)["reason"].startswith("【")


@pytest.mark.parametrize("event", [
    fixture("codex-0.171.0-pre-tool-use"),  # never answered: updatedInput needs permissionDecision:allow
    fixture("codex-0.171.0-post-tool-use", tool_name="apply_patch", tool_response=OUTPUT),
    fixture("codex-0.171.0-post-tool-use", tool_input={"command": "toolprune omitted P1 3 5"}, tool_response=OUTPUT),
    fixture("codex-0.171.0-post-tool-use", tool_response="short output\n"),
    fixture("codex-0.171.0-post-tool-use", tool_response={"content": [{"type": "text", "text": OUTPUT}]}),
    fixture("codex-0.171.0-post-tool-use", tool_input="cat notes.txt", tool_response=OUTPUT),
])
def test_codex_answers_nothing_when_there_is_nothing_to_do(event):
    codex_remember()
    assert send("codex", event).stdout == b""


def test_codex_without_a_remembered_request_answers_nothing():
    assert send("codex", fixture("codex-0.171.0-post-tool-use", tool_response=OUTPUT)).stdout == b""


@pytest.mark.parametrize("payload", [b"not json", b"[1]", b"", b"\xff\xfe"])
def test_codex_fails_open_on_input_that_is_not_an_event(payload):
    assert send("codex", payload).stdout == b""


def test_codex_fails_open_when_the_spill_cannot_be_written(isolated):
    codex_remember()
    isolated.joinpath("spill").write_text("a file where the spill directory should be")
    assert send("codex", fixture("codex-0.171.0-post-tool-use", tool_response=OUTPUT)).stdout == b""


# --- Gemini CLI 0.61.0 ----------------------------------------------------------------------

def on_path() -> dict:
    return {"PATH": BIN + os.pathsep + os.environ.get("PATH", "")}


def gemini_remember(prompt: str = QUESTION) -> None:
    assert send("gemini", fixture("gemini-0.61.0-before-agent", prompt=prompt), env=on_path()).stdout == b""


def rewritten(command: str = "cat notes.txt", **tool_input) -> dict:
    event = fixture("gemini-0.61.0-before-tool", tool_input={"command": command, **tool_input})
    proc = send("gemini", event, env=on_path())
    return json.loads(proc.stdout)


def test_gemini_rewrites_a_shell_command_and_only_its_command():
    gemini_remember()
    answer = rewritten()
    assert list(answer) == ["hookSpecificOutput"]  # no decision: approval is Gemini's own
    specific = answer["hookSpecificOutput"]
    assert specific["hookEventName"] == "BeforeTool"
    updated = specific["tool_input"]
    # the whole input comes back (Gemini rebuilds the tool from it), only the command changed
    assert {k: v for k, v in updated.items() if k != "command"} == {"description": "Show the notes", "dir_path": "."}
    words = shlex.split(updated["command"])
    assert words[:5] == ["set", "-o", "pipefail;", "bash", "-c"]
    # the original is a part of its own, exactly: Gemini's policy unwraps bash -c '…' and checks it
    assert updated["command"].split(" 2>&1 | ")[0] == "set -o pipefail; bash -c 'cat notes.txt'"
    assert words[5] == "cat notes.txt" and words[6:8] == ["2>&1", "|"]
    assert words[8] == "toolprune" and "--basis-file" in words


def gemini_shell(command: str, cwd: Path) -> subprocess.CompletedProcess:
    """Run a command the way Gemini CLI 0.61.0's shell tool does on Linux: inside a subshell
    whose status the wrapper passes on (tools/shell.js)."""
    wrapper = f"(\n{command}\n)\n__code=$?\nexit $__code"
    env = {**os.environ, **on_path()}
    return subprocess.run(["bash", "-c", wrapper], cwd=cwd, capture_output=True, env=env, timeout=120)


def test_the_rewritten_command_prints_the_pruned_output_and_keeps_the_exit_status(tmp_path):
    gemini_remember()
    (tmp_path / "notes.txt").write_text(OUTPUT)
    command = rewritten("cat notes.txt; exit 3")["hookSpecificOutput"]["tool_input"]["command"]
    proc = gemini_shell(command, tmp_path)
    assert proc.returncode == 3, proc.stderr.decode()
    out = proc.stdout
    assert len(out) < len(OUTPUT.encode()) and b"Interstate" in out
    assert restore(out) == OUTPUT.encode()


@pytest.mark.parametrize("variable", ["TOOLPRUNE_THRESHOLD=bogus", "TOOLPRUNE_TIMEOUT=0", "TOOLPRUNE_TAIL=abc"])
def test_gemini_leaves_the_command_as_it_is_when_toolprune_would_reject_the_settings(variable):
    """toolprune in the rewritten line reads the same environment: a setting it rejects would exit
    2, and pipefail would make that the status of a command that succeeded."""
    gemini_remember()
    name, value = variable.split("=")
    event = fixture("gemini-0.61.0-before-tool", tool_input={"command": "cat notes.txt"})
    assert send("gemini", event, env={**on_path(), name: value}).stdout == b""


def test_a_command_with_single_quotes_is_wrapped_in_double_quotes_and_runs_the_same(tmp_path):
    gemini_remember()
    (tmp_path / "notes.txt").write_text(OUTPUT)
    command = rewritten("cat 'notes.txt'; exit 4")["hookSpecificOutput"]["tool_input"]["command"]
    assert command.startswith("""set -o pipefail; bash -c "cat 'notes.txt'; exit 4" 2>&1 | toolprune """)
    proc = gemini_shell(command, tmp_path)
    assert proc.returncode == 4, proc.stderr.decode()
    assert restore(proc.stdout) == OUTPUT.encode()


def test_the_rewritten_command_keeps_stderr_and_a_failing_status(tmp_path):
    gemini_remember()
    command = rewritten("ls /nonexistent-dir-for-toolprune")["hookSpecificOutput"]["tool_input"]["command"]
    proc = gemini_shell(command, tmp_path)
    plain = subprocess.run(["bash", "-c", "ls /nonexistent-dir-for-toolprune"], capture_output=True)
    assert proc.returncode == plain.returncode != 0
    assert proc.stdout == plain.stderr  # 2>&1: small, so passed through byte for byte


@pytest.mark.parametrize("tool_input", [
    {"command": "grep -rn 'State Route' \"$HOME\""},  # no quoting that bash and Gemini both read back exactly
    {"command": "python -m http.server", "is_background": True},
    {"command": "npm run dev &"},  # a job in the background holds the pipe: toolprune would wait for it
    {"command": "sleep 6 & echo started"},
    {"command": "setsid -f sleep 15; echo started"},  # a detached process holds the pipe too
    {"command": "nohup ./serve.sh > serve.log 2>&1"},
    {"command": "ssh -fN -L 8080:localhost:80 gateway"},
    {"command": "toolprune omitted P1 3 5"},
    {"command": "cat x | toolprune --basis q"},
    {"command": "   "},
    {"command": ["cat", "notes.txt"]},
])
def test_gemini_leaves_these_commands_as_they_are(tool_input):
    gemini_remember()
    event = fixture("gemini-0.61.0-before-tool")
    event["tool_input"] = tool_input
    assert send("gemini", event, env=on_path()).stdout == b""


def test_only_commands_that_detach_a_process_count_as_detaching():
    from toolprune.cli.hooks.gemini import detaches

    for command in ("setsid -f sleep 15; echo started", "cd srv && nohup ./run", "(daemonize /bin/x)",
                    "start-stop-daemon --start --background --exec /bin/x", "ssh -f host sleep 9",
                    "ssh -o ServerAliveInterval=5 -Nf host", "./job; disown", "/usr/bin/setsid -f sleep 20",
                    '"setsid" -f x', "\\setsid -f x", "coproc sleep 20"):  # fmt: skip
        assert detaches(command), command
    for command in ("grep -rn setsid_wrapper src", "cat nohup.out", "pip install daemonize-lite",
                    "ssh host uptime", "ssh -F ~/.ssh/alt host ls", "git log --follow x"):  # fmt: skip
        assert not detaches(command), command
    import time

    started = time.perf_counter()  # one pass over the words: a 288 KB line took 73 s with a regex
    assert not detaches("ssh -o x " * 32_000)
    assert time.perf_counter() - started < 2


@pytest.mark.parametrize("event", [
    fixture("gemini-0.61.0-after-tool"),  # AfterTool can only block or append, never replace
    fixture("gemini-0.61.0-before-tool", tool_name="read_file", tool_input={"file_path": "notes.txt"}),
    fixture("gemini-0.61.0-before-tool", session_id="../../etc"),
])
def test_gemini_answers_nothing_to_other_events(event):
    gemini_remember()
    assert send("gemini", event, env=on_path()).stdout == b""


def test_gemini_without_a_remembered_request_leaves_the_command():
    assert send("gemini", fixture("gemini-0.61.0-before-tool"), env=on_path()).stdout == b""


def test_gemini_leaves_the_command_when_the_shell_could_not_find_toolprune(tmp_path):
    gemini_remember()
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    assert send("gemini", fixture("gemini-0.61.0-before-tool"), env={"PATH": str(empty)}).stdout == b""

"""``toolprune hook codex``: prune shell output inside Codex CLI.

Checked against the hook JSON schemas embedded in Codex CLI 0.171.0 (npm ``@openai/codex``,
linux-x64 binary) and the hook engine in the openai/codex sources:

- ``UserPromptSubmit`` carries ``prompt`` and ``session_id``: the request is remembered per
  session, like the Claude Code hook does;
- ``PostToolUse`` for the shell (``tool_name`` ``Bash``, ``tool_input.command``) carries
  ``tool_response`` as a string, the output Codex would show the model. Its answer may not
  replace it in place (``hookSpecificOutput`` holds only ``additionalContext`` and
  ``updatedMCPToolOutput``, which 0.171.0 rejects as unsupported), but ``{"decision": "block",
  "reason": …}`` makes Codex show the model the reason *instead of* the tool's output. The
  pruned output is that reason.

The model then sees only the reason, without the lines Codex puts above a shell output ("Process
exited with code N", wall time). The exit status is taken from the session transcript
(``transcript_path``, JSON lines), where Codex has already recorded the finished command
(``item_completed`` of a ``CommandExecution`` whose ``id`` is the ``tool_use_id``) when the hook
runs, and put above the pruned output as Codex words it; when it cannot be found, the pruned
output stands alone.

``PreToolUse`` is not used: Codex honours its ``updatedInput`` only together with
``permissionDecision: "allow"`` ("PreToolUse hook returned updatedInput without
permissionDecision:allow"), and toolprune never answers with a permission decision. Every other
event, and every failure, answers nothing and exits 0 (Codex keeps the output as it was).
"""

from __future__ import annotations

import json
import os

from toolprune.cli.hook import _basis, _prune_text, remember, runs_toolprune, serve
from toolprune.cli.streams import Environment

LABEL = "codex"
TRANSCRIPT_TAIL = 4 << 20
"""How much of the end of the transcript is searched for the command's exit status (bytes)."""


def codex(env: Environment) -> int:
    return serve(env, {"UserPromptSubmit": remember, "PostToolUse": _prune_shell}, "the output was left as it was")


def _prune_shell(env: Environment, event: dict) -> dict | None:
    tool_input, output = event.get("tool_input"), event.get("tool_response")
    if event.get("tool_name") != "Bash" or not isinstance(tool_input, dict) or not isinstance(output, str):
        return None
    command = tool_input.get("command")
    if not isinstance(command, str) or runs_toolprune(command):
        return None
    basis = _basis(event, tool_input)
    if not basis:
        return None
    pruned = _prune_text(env, output, basis, fit="codex", label=LABEL)
    if pruned is None:
        return None
    status = exit_status(event)
    if status is not None:
        pruned = f"Process exited with code {status}\nOutput:\n{pruned}"
    return {"decision": "block", "reason": pruned}


def exit_status(event: dict) -> int | None:
    """The exit code Codex recorded in the transcript for this tool call, or None."""
    path, call = event.get("transcript_path"), event.get("tool_use_id")
    if not isinstance(path, str) or not path or not isinstance(call, str):
        return None
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None
        os.lseek(fd, max(0, info.st_size - TRANSCRIPT_TAIL), os.SEEK_SET)
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
    finally:
        os.close(fd)
    for line in reversed(b"".join(chunks).splitlines()):
        if call.encode() not in line or b"exit_code" not in line:
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue
        payload = record.get("payload") if isinstance(record, dict) else None
        item = payload.get("item") if isinstance(payload, dict) else None
        if (isinstance(payload, dict) and isinstance(item, dict) and payload.get("type") == "item_completed"
                and item.get("id") == call and item.get("type") == "CommandExecution"
                and type(item.get("exit_code")) is int):
            return item["exit_code"]
    return None

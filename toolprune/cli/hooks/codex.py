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

``PreToolUse`` is not used: Codex honours its ``updatedInput`` only together with
``permissionDecision: "allow"`` ("PreToolUse hook returned updatedInput without
permissionDecision:allow"), and toolprune never answers with a permission decision. Every other
event, and every failure, answers nothing and exits 0 (Codex keeps the output as it was).
"""

from __future__ import annotations

import json

from toolprune.cli.hook import _basis, _prune_text, _remember, read_event, runs_toolprune
from toolprune.cli.streams import Environment
from toolprune.errors import ExitCode

LABEL = "codex"


def codex(env: Environment) -> int:
    try:
        event = read_event(env)
        if event is None:
            return ExitCode.OK
        kind = event.get("hook_event_name")
        if kind == "UserPromptSubmit":
            _remember(event)
        elif kind == "PostToolUse":
            answer = _prune_shell(env, event)
            if answer is not None:
                env.write_output(json.dumps(answer, ensure_ascii=False).encode("utf-8"))
    except Exception as exc:  # fail open: Codex keeps the tool's own output
        env.say(f"toolprune hook: {type(exc).__name__}: {exc}; the output was left as it was")
    return ExitCode.OK


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
    return {"decision": "block", "reason": pruned}

"""``toolprune hook claude-code``: prune Bash output inside Claude Code, with no glue.

Two hook events, one command (the field names were checked against the hook schema inside
Claude Code 2.1.197: ``UserPromptSubmit`` carries ``prompt``; ``PostToolUse`` carries
``tool_name``, ``tool_input`` and ``tool_response``, and its ``hookSpecificOutput`` may hold
``updatedToolOutput``, which "replaces the tool output before it is sent to the model" for any
tool and must keep the tool's output shape):

- ``UserPromptSubmit``: remember the user's request for this session (the basis);
- ``PostToolUse`` for ``Bash``: prune ``tool_response.stdout`` against that request with the
  ``claude`` bounds and answer with the same response object, only ``stdout`` replaced;
- ``PostToolUse`` for an MCP tool (``mcp__server__tool``): prune its result (``{"content": […]}``
  or the content list) as an MCP result and answer with the same shape. (That response shape
  is the MCP schema's; it was not checked against a live Claude Code session.)

Everything else, and every failure, answers nothing and exits 0: Claude Code then uses the tool's
own output unchanged (fail open). Commands that run toolprune themselves (``toolprune omitted``
bringing a dropped part back) are never pruned again.
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

from toolprune.cli.streams import Environment
from toolprune.errors import ExitCode

SESSION = re.compile(r"[A-Za-z0-9_.-]{1,128}")
SESSION_DAYS = 7
LABEL = "claude-code"


def claude_code(env: Environment) -> int:
    try:
        event = json.loads(env.stdin.read(64 << 20).decode("utf-8"))
        if not isinstance(event, dict):
            return ExitCode.OK
        kind = event.get("hook_event_name")
        if kind == "UserPromptSubmit":
            _remember(event)
        elif kind == "PostToolUse":
            answer = _prune_mcp(env, event) if str(event.get("tool_name")).startswith("mcp__") else _prune_bash(env, event)
            if answer is not None:
                env.write_output(json.dumps(answer, ensure_ascii=False).encode("utf-8"))
    except Exception as exc:  # fail open: Claude Code keeps the tool's own output
        env.say(f"toolprune hook: {type(exc).__name__}: {exc}; the output was left as it was")
    return ExitCode.OK


def _sessions() -> Path:
    from toolprune.settings import state_dir

    return state_dir() / "sessions"


def _session_file(event: dict) -> Path | None:
    session = event.get("session_id")
    if not isinstance(session, str) or not SESSION.fullmatch(session) or session.startswith("."):
        return None
    return _sessions() / session


def _remember(event: dict) -> None:
    prompt = event.get("prompt")
    path = _session_file(event)
    if not isinstance(prompt, str) or path is None:
        return
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    from toolprune.config import write_private

    write_private(path, prompt[:2000].encode("utf-8"))
    cutoff = time.time() - SESSION_DAYS * 86_400
    for old in path.parent.iterdir():
        try:
            if old.stat().st_mtime < cutoff:
                old.unlink()
        except OSError:
            pass


def _basis(event: dict, tool_input: dict) -> str | None:
    path = _session_file(event)
    if path is not None:
        try:
            return path.read_text(encoding="utf-8")
        except OSError:
            pass
    description = tool_input.get("description")
    return description if isinstance(description, str) else None


def _prune_bash(env: Environment, event: dict) -> dict | None:
    tool_input, response = event.get("tool_input"), event.get("tool_response")
    if event.get("tool_name") != "Bash" or not isinstance(tool_input, dict) or not isinstance(response, dict):
        return None
    stdout, command = response.get("stdout"), tool_input.get("command")
    if not isinstance(stdout, str) or response.get("isImage") or not isinstance(command, str):
        return None
    if "toolprune" in command:  # bringing a dropped part back, or pruning already
        return None
    basis = _basis(event, tool_input)
    if not basis:
        return None
    output = _run(env, stdout.encode("utf-8", "surrogatepass"), basis)
    if output is None:
        return None
    updated = dict(response)
    updated["stdout"] = output.decode("utf-8")
    return {"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": updated}}


def _prune_mcp(env: Environment, event: dict) -> dict | None:
    """An MCP tool's result (``{"content": [...], ...}``, or the content list itself): pruned as
    the MCP shape; the answer has the same shape (a list stays a list: markers are items)."""
    response, tool_input = event.get("tool_response"), event.get("tool_input")
    as_list = isinstance(response, list)
    result = {"content": response} if as_list else response
    if not isinstance(result, dict) or not isinstance(result.get("content"), list):
        return None
    basis = _basis(event, tool_input if isinstance(tool_input, dict) else {})
    if not basis:
        return None
    output = _run(env, json.dumps(result, ensure_ascii=False).encode("utf-8", "surrogatepass"), basis)
    if output is None:
        return None
    updated = json.loads(output)
    return {"hookSpecificOutput": {"hookEventName": "PostToolUse",
                                   "updatedToolOutput": updated["content"] if as_list else updated}}


def _run(env: Environment, data: bytes, basis: str) -> bytes | None:
    """Prune ``data`` with the ``claude`` bounds; the pruned bytes, or None for a passthrough."""
    from toolprune.cli.prune import choose_scorer, quote_label
    from toolprune.core.pipeline import Options, run
    from toolprune.settings import parse_threshold, resolve_bounds, resolve_spill_dir
    from toolprune.spill import SpillStore

    options = Options(
        basis=basis,
        threshold=parse_threshold(os.environ.get("TOOLPRUNE_THRESHOLD") or "standard"),
        timeout=float(os.environ.get("TOOLPRUNE_TIMEOUT") or 20.0),
        **resolve_bounds("claude", None, None),
    )
    scorer = choose_scorer(
        env, os.environ.get("TOOLPRUNE_SCORER") or "lexical", os.environ.get("TOOLPRUNE_PROVIDER"),
        os.environ.get("TOOLPRUNE_BASE_URL"), os.environ.get("TOOLPRUNE_API_PATH"), os.environ.get("TOOLPRUNE_MODEL"),
    )
    spill_dir = os.environ.get("TOOLPRUNE_SPILL_DIR")
    result = run(data, options, scorer, SpillStore(resolve_spill_dir(Path(spill_dir) if spill_dir else None)))
    if result.outcome != "small":
        from toolprune.cli.logfile import append

        append(f"{result.stats.line()} label={quote_label(LABEL)}")
    return result.output if result.outcome == "ok" else None

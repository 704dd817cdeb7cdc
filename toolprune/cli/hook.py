"""``toolprune hook claude-code``: prune Bash output inside Claude Code, with no glue.

Two hook events, one command (the field names were checked against the hook schema inside
Claude Code 2.1.197, in its linux-x64 package: ``UserPromptSubmit`` carries ``prompt``;
``PostToolUse`` carries ``tool_name``, ``tool_input`` and ``tool_response``, and its
``hookSpecificOutput`` may hold ``updatedToolOutput``, which "replaces the tool output before it
is sent to the model" for any tool, MCP tools included, and must keep the tool's output shape):

- ``UserPromptSubmit``: remember the user's request for this session (the basis);
- ``PostToolUse`` for ``Bash``: prune the command's output against that request with the
  ``claude`` bounds and answer with the same response object, only ``stdout`` replaced. Above
  Claude Code's inline limit (30,000 chars by default) the response's ``stdout`` is only a cut and
  the model would be shown a 2 kB preview of ``persistedOutputPath``: then the whole persisted
  output is pruned, and the answer drops ``persistedOutputPath``/``persistedOutputSize`` so that
  the model reads the pruned text itself;
- ``PostToolUse`` for an MCP tool (``mcp__<server>__<tool>``): its result, a string or a list of
  content blocks, is pruned in the same shape (text blocks as text, JSON inside them as JSON).

Everything else, and every failure, answers nothing and exits 0: Claude Code then uses the tool's
own output unchanged (fail open). Commands that run toolprune themselves (``toolprune omitted``
bringing a dropped part back, a pipe into toolprune, ``toolprune run``) are never pruned again;
a command that merely mentions the word (``cd ~/src/toolprune && pytest``) is.
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
PERSISTED_MAX = 64 << 20
"""The largest persisted Bash output read (bytes); above it the hook answers nothing."""
_SEGMENTS = re.compile(r"&&|\|\||[;|&\n()`]|\$\(")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=\S*")
SESSION_DAYS = 7
LABEL = "claude-code"


def read_event(env: Environment) -> dict | None:
    """The hook event on stdin, or None when it is not a JSON object."""
    event = json.loads(env.stdin.read(64 << 20).decode("utf-8"))
    return event if isinstance(event, dict) else None


def serve(env: Environment, handlers: dict, unchanged: str) -> int:
    """Answer one hook event: read it, call the handler named by its ``hook_event_name`` with
    ``(env, event)``, and write the handler's answer (if any) as JSON. Anything unexpected answers
    nothing, says ``unchanged`` on stderr and exits 0: the harness keeps its own behaviour."""
    try:
        event = read_event(env)
        handler = handlers.get(event.get("hook_event_name")) if event is not None else None
        answer = handler(env, event) if handler is not None else None
        if answer is not None:
            # allow_nan=False: a number too large for a float (1e400 in an MCP result) was read as
            # inf, and ``Infinity`` is not JSON; the ValueError answers nothing instead
            env.write_output(json.dumps(answer, ensure_ascii=False, allow_nan=False).encode("utf-8"))
    except Exception as exc:  # noqa: BLE001 - fail open: the harness gets the tool's output unchanged
        env.say(f"toolprune hook: {type(exc).__name__}: {exc}; {unchanged}")
    return ExitCode.OK


def remember(env: Environment, event: dict) -> None:
    """The prompt event's handler: remember the request."""
    _remember(event)


def _post_tool_use(env: Environment, event: dict) -> dict | None:
    name = event.get("tool_name")
    return _prune_mcp(env, event) if isinstance(name, str) and name.startswith("mcp__") else _prune_bash(env, event)


def claude_code(env: Environment) -> int:
    return serve(env, {"UserPromptSubmit": remember, "PostToolUse": _post_tool_use}, "the output was left as it was")


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

    # a lone surrogate (half an emoji cut by the agent) becomes "?": a prompt that failed to be
    # written would leave the previous one as the basis of every later prune
    write_private(path, prompt[:2000].encode("utf-8", "replace"))
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


_KEYWORDS = frozenset({"if", "then", "elif", "else", "do", "while", "until", "!", "{", "exec", "command", "builtin"})
"""Shell words before a simple command that leave the command itself next (``for …; do toolprune
omitted …``, ``{ toolprune …; }``)."""
_WRAPPERS = frozenset({
    "env", "time", "nohup", "timeout", "nice", "ionice", "stdbuf", "sudo", "doas", "xargs", "chronic",
    "uvx", "uv", "pipx", "npx", "flock", "setsid", "unbuffer",
})  # fmt: skip
"""Programs that run the command given in their arguments (``timeout 30 toolprune …``, ``sudo -u
bob toolprune …``, ``xargs toolprune …``, ``uv run toolprune …``): after one, any argument naming
``toolprune`` counts, whatever options come between."""
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "fish"})
_MODULE_FLAG = re.compile(r"-[A-Za-z]*m(toolprune)?")


def runs_toolprune(command: str, depth: int = 0) -> bool:
    """Does any simple command of this shell line run toolprune itself (``toolprune omitted …``,
    ``… | toolprune``, ``python -m toolprune``, also behind a wrapper such as ``timeout`` or
    ``sudo``, in a loop's body, or inside ``bash -c '…'``)? A mere mention in a path or argument
    does not count. When unsure, it counts: a skipped prune leaves the output as it was, a second
    prune of a part brought back with ``omitted`` would drop it again."""
    import shlex

    for segment in _SEGMENTS.split(command):
        try:
            words = shlex.split(segment, comments=True)
        except ValueError:
            words = segment.split()
        while words and (_ASSIGNMENT.fullmatch(words[0]) or words[0] in _KEYWORDS):
            words = words[1:]
        if not words:
            continue
        program = words[0].rsplit("/", 1)[-1]
        if program == "toolprune":
            return True
        if program in _WRAPPERS and any(w.rsplit("/", 1)[-1] == "toolprune" for w in words[1:]):
            return True
        if program in _SHELLS and depth < 3:
            script = next((words[k + 1] for k, w in enumerate(words[:-1]) if re.fullmatch(r"-[a-z]*c", w)), None)
            if script is not None and runs_toolprune(script, depth + 1):
                return True
        if program.startswith("python"):
            for k, word in enumerate(words[1:], 1):
                found = _MODULE_FLAG.fullmatch(word)
                if found and (found.group(1) or words[k + 1 : k + 2] == ["toolprune"]):
                    return True
    return False


def _persisted(response: dict) -> str | None:
    """The full output Claude Code saved for a Bash result over its inline limit, or None."""
    path = response.get("persistedOutputPath")
    if not isinstance(path, str) or not path:
        return None
    import stat

    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > PERSISTED_MAX:
            return None
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks).decode("utf-8")


def _prune_bash(env: Environment, event: dict) -> dict | None:
    tool_input, response = event.get("tool_input"), event.get("tool_response")
    if event.get("tool_name") != "Bash" or not isinstance(tool_input, dict) or not isinstance(response, dict):
        return None
    stdout, command = response.get("stdout"), tool_input.get("command")
    if not isinstance(stdout, str) or response.get("isImage") or not isinstance(command, str):
        return None
    if runs_toolprune(command):  # bringing a dropped part back, or pruning already
        return None
    basis = _basis(event, tool_input)
    if not basis:
        return None
    persisted = "persistedOutputPath" in response
    if persisted:  # over the inline limit: stdout is only a cut
        full = _persisted(response)
        if full is None:  # unreadable: Claude Code's own preview and path stay
            return None
        stdout = full
    # persisted: still over the limit once pruned (JSON is never cut to size), inline it would put
    # more in the model's context than Claude Code ever does; its preview and path stay
    pruned = _prune_text(env, stdout, basis, within_bounds=persisted)
    if pruned is None:
        return None
    updated = {k: v for k, v in response.items() if k not in ("persistedOutputPath", "persistedOutputSize")}
    updated["stdout"] = pruned
    return _answer(updated)


def _prune_mcp(env: Environment, event: dict) -> dict | None:
    """An MCP tool's result: a string, the content list itself, or ``{"content": [...], ...}``.
    A string is pruned as text; the others as an MCP result (text items as text, JSON inside them
    as JSON, dropped runs of items replaced by one marker item), answered in the same shape."""
    response, tool_input = event.get("tool_response"), event.get("tool_input")
    basis = _basis(event, tool_input if isinstance(tool_input, dict) else {})
    if not basis:
        return None
    if isinstance(response, str):
        pruned = _prune_text(env, response, basis)
        return None if pruned is None else _answer(pruned)
    as_list = isinstance(response, list)
    result = {"content": response} if as_list else response
    if not isinstance(result, dict) or not isinstance(result.get("content"), list):
        return None
    pruned = _prune_text(env, json.dumps(result, ensure_ascii=False), basis)
    if pruned is None:
        return None
    updated = json.loads(pruned)
    if as_list and list(updated) != ["content"]:
        # the note of what was dropped sits beside the list (``_pruned``: a list that is not all
        # content items was pruned as JSON); answered as a list it would be lost with the ids
        return None
    return _answer(updated["content"] if as_list else updated)


def _answer(updated: object) -> dict:
    return {"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": updated}}


def _prune_text(
    env: Environment, text: str, basis: str, fit: str = "claude", label: str = LABEL, within_bounds: bool = False,
) -> str | None:
    """``text`` pruned against ``basis`` with the ``fit`` bounds (the harness's own limits), or
    None when it stays as it is (``within_bounds``: also when the pruned text is still over
    them). The log line carries ``label``."""
    from toolprune.cli.flags import FLAGS
    from toolprune.cli.prune import choose_scorer, missed_bounds, quote_label
    from toolprune.service import run
    from toolprune.settings import omitted_command, resolve
    from toolprune.spill import SpillStore

    resolved = resolve({"fit": fit}, env.environ)  # the harness's own limits; the rest as configured
    scorer = choose_scorer(env, resolved.scorer, resolved.provider, resolved.base_url, resolved.path, resolved.model)
    variable = FLAGS["spill_dir"].env  # a relative value is named, absolute, in the markers
    command = omitted_command(resolved.spill_dir, env.environ.get(variable) if variable else None)
    options = resolved.options(basis, omitted_command=command)
    result = run(text.encode("utf-8", "surrogatepass"), options, scorer, SpillStore(resolved.spill_dir))
    if result.outcome != "small":
        from toolprune.cli.logfile import append

        append(f"{result.stats.line()} label={quote_label(label)}", env.environ)
    if result.outcome != "ok":
        return None
    if within_bounds and missed_bounds(result.output, resolved.bounds):
        env.say(f"toolprune hook: the pruned output is still over the {fit} bounds; the output was left as it was")
        return None
    return result.output.decode("utf-8")

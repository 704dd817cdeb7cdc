"""``toolprune hook install|uninstall AGENT``: put toolprune's hooks into an agent's settings file,
or take them out again, and nothing else.

Every agent keeps its hooks as JSON in the same shape, ``{"hooks": {EVENT: [{"matcher": …,
"hooks": [{"type": "command", "command": …}]}]}}``:

| agent | user file | with ``--project`` |
|---|---|---|
| claude-code | ``~/.claude/settings.json`` | ``.claude/settings.json`` |
| codex | ``$CODEX_HOME/hooks.json`` (``~/.codex/hooks.json``) | ``.codex/hooks.json`` |
| gemini | ``~/.gemini/settings.json`` | ``.gemini/settings.json`` |

(Codex also reads hooks from a ``[hooks]`` table in ``config.toml``; it reads ``hooks.json`` beside
it too, so toolprune edits that file and leaves the TOML alone.)

The edit keeps every other key and hook, the key order and the indentation; a file that is not
a JSON object is refused, never rewritten. Installing twice changes nothing. Before a change the
old file is copied to ``<file>.toolprune-bak``; the new one is written to a temporary file and
renamed over it. ``--dry-run`` prints the unified diff and writes nothing.
"""

from __future__ import annotations

import difflib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from toolprune.cli.streams import Environment
from toolprune.errors import ExitCode, ToolpruneError, UsageError

BACKUP_SUFFIX = ".toolprune-bak"


@dataclass(frozen=True)
class Agent:
    name: str
    user_file: tuple[str, ...]
    project_file: tuple[str, ...]
    events: tuple[tuple[str, str | None], ...]
    """(event, matcher) pairs, each run through ``toolprune hook <name>``."""

    @property
    def command(self) -> str:
        return f"toolprune hook {self.name}"

    def path(self, project: bool, cwd: Path | None = None) -> Path:
        if project:
            return (cwd or Path.cwd()).joinpath(*self.project_file)
        if self.name == "codex" and os.environ.get("CODEX_HOME"):
            return Path(os.environ["CODEX_HOME"]).joinpath(*self.user_file[1:])
        return Path(os.path.expanduser("~")).joinpath(*self.user_file)


AGENTS = {
    agent.name: agent
    for agent in (
        Agent("claude-code", (".claude", "settings.json"), (".claude", "settings.json"),
              (("UserPromptSubmit", None), ("PostToolUse", "Bash|mcp__.*"))),
        Agent("codex", (".codex", "hooks.json"), (".codex", "hooks.json"),
              (("UserPromptSubmit", None), ("PostToolUse", "Bash"))),
        Agent("gemini", (".gemini", "settings.json"), (".gemini", "settings.json"),
              (("BeforeAgent", None), ("BeforeTool", "run_shell_command"))),
    )
}


class SettingsError(ToolpruneError):
    """A settings file toolprune will not rewrite."""


def agent_named(name: str) -> Agent:
    if name not in AGENTS:
        raise UsageError(f"no hook for {name!r}: use one of {', '.join(AGENTS)}")
    return AGENTS[name]


def is_ours(hook: object, agent: Agent) -> bool:
    """Is this hook entry toolprune's hook for ``agent`` (also when installed by its full path)?"""
    if not isinstance(hook, dict) or hook.get("type", "command") != "command":
        return False
    command = hook.get("command")
    if not isinstance(command, str):
        return False
    words = command.split()
    return len(words) == 3 and words[0].rsplit("/", 1)[-1] == "toolprune" and words[1:] == ["hook", agent.name]


def read_settings(path: Path) -> tuple[str | None, dict]:
    """The file's text (None when it does not exist) and its JSON object."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, {}
    except (OSError, UnicodeDecodeError) as exc:
        raise SettingsError(f"cannot read {path}: {exc}") from None
    if not text.strip():
        return text, {}
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise SettingsError(f"{path} is not valid JSON ({exc}): fix it first, toolprune will not rewrite it") from None
    if not isinstance(data, dict):
        raise SettingsError(f"{path} is not a JSON object: toolprune will not rewrite it")
    return text, data


def installed_events(data: dict, agent: Agent) -> list[str]:
    """The events of ``agent``'s that already run toolprune's hook in these settings."""
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return []
    found = []
    for event, _ in agent.events:
        groups = hooks.get(event)
        if isinstance(groups, list) and any(
            isinstance(g, dict) and isinstance(g.get("hooks"), list) and any(is_ours(h, agent) for h in g["hooks"])
            for g in groups
        ):
            found.append(event)
    return found


def _with_hooks(data: dict, agent: Agent) -> dict:
    data = json.loads(json.dumps(data))  # a deep copy, key order kept
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise SettingsError('its "hooks" is not a JSON object: toolprune will not rewrite it')
    present = set(installed_events(data, agent))
    for event, matcher in agent.events:
        if event in present:
            continue
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise SettingsError(f'its "hooks.{event}" is not a list: toolprune will not rewrite it')
        group: dict = {} if matcher is None else {"matcher": matcher}
        group["hooks"] = [{"type": "command", "command": agent.command}]
        groups.append(group)
    return data


def _without_hooks(data: dict, agent: Agent) -> dict:
    data = json.loads(json.dumps(data))
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return data
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept = []
        for group in groups:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list) and any(is_ours(h, agent) for h in group["hooks"]):
                group["hooks"] = [h for h in group["hooks"] if not is_ours(h, agent)]
                if not group["hooks"]:
                    continue  # the group held only toolprune's hook: it goes with it
            kept.append(group)
        if kept or not groups:
            hooks[event] = kept
        else:
            del hooks[event]
    if not hooks:
        del data["hooks"]
    return data


def _indent(text: str | None) -> int | str:
    """The indentation the file uses (its first indented line), 2 for a new file."""
    for line in (text or "").splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            lead = line[: len(line) - len(stripped)]
            return "\t" if lead.startswith("\t") else len(lead)
    return 2


def render(data: dict, old: str | None) -> str:
    """``data`` as the file's text: its indentation and line ends, a final newline if it had one."""
    text = json.dumps(data, indent=_indent(old), ensure_ascii=False)
    newline = "\r\n" if old and "\r\n" in old else "\n"
    text = text.replace("\n", newline)
    return text if old and not old.endswith("\n") else text + newline


def write_atomic(path: Path, text: str) -> None:
    """Back up the old file, then write the new one through a temporary file and a rename."""
    import tempfile

    path.parent.mkdir(parents=True, exist_ok=True)
    mode = None
    if path.exists():
        mode = path.stat().st_mode & 0o7777
        backup = path.with_name(path.name + BACKUP_SUFFIX)
        _replace(backup, path.read_bytes(), mode)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text.encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def _replace(path: Path, data: bytes, mode: int) -> None:
    import tempfile

    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def change(env: Environment, agent_name: str, project: bool, dry_run: bool, install: bool) -> int:
    agent = agent_named(agent_name)
    path = agent.path(project)
    old, data = read_settings(path)
    try:
        new_data = _with_hooks(data, agent) if install else _without_hooks(data, agent)
    except SettingsError as exc:
        raise SettingsError(f"{path}: {exc.message}") from None
    new = old if new_data == data else render(new_data, old)
    verb = "install" if install else "uninstall"
    if new == old:
        state = "already has toolprune's hooks" if install else "has no toolprune hooks"
        env.say(f"toolprune hook {verb} {agent.name}: {path} {state}; nothing to change")
        return ExitCode.OK
    if dry_run:
        diff = difflib.unified_diff(
            (old or "").splitlines(keepends=True), new.splitlines(keepends=True),
            fromfile=str(path) if old is not None else "/dev/null", tofile=str(path),
        )
        env.write_output("".join(diff).encode("utf-8"))
        env.say(f"toolprune hook {verb} {agent.name}: dry run, {path} was not changed")
        return ExitCode.OK
    write_atomic(path, new)
    events = ", ".join(event for event, _ in agent.events)
    if install:
        env.say(f"toolprune hook install {agent.name}: added {events} to {path}" +
                (f" (the old file is in {path.name}{BACKUP_SUFFIX})" if old is not None else ""))
        if agent.name == "codex":
            env.say("Codex asks you to trust a new hook once: open /hooks in Codex and trust toolprune's")
    else:
        env.say(f"toolprune hook uninstall {agent.name}: removed toolprune's hooks from {path}")
    return ExitCode.OK

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

The edit is made in the text (``jsonedit``): toolprune's entries are inserted after the last item
of the object or list they belong to, indented like their neighbours, and every other byte stays
as it was (other hooks and settings, key order, spacing, the comments Gemini CLI allows), so
uninstalling gives back the file as it was before (an event list or ``hooks`` object that was empty
before ``install`` is kept empty: the backup shows it was the user's). A file that is not a JSON object is refused,
never rewritten. Installing twice changes nothing. Before a change the old file is copied to
``<file>.toolprune-bak``; the new one is written to a temporary file and renamed over it.
``--dry-run`` prints the unified diff and writes nothing.
"""

from __future__ import annotations

import difflib
import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from toolprune.cli.hooks.jsonedit import Editor, loads
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
    """The file's text (None when it does not exist) and its JSON object. Anything but a regular
    file (a FIFO, a device) is refused before it is opened: reading one would block or never end."""
    try:
        if not stat.S_ISREG(path.stat().st_mode):  # follows a symlink: its target is the settings
            raise SettingsError(f"{path} is not a regular file: toolprune will not read or rewrite it")
        text = path.read_bytes().decode("utf-8")  # line ends as they are
    except FileNotFoundError:
        return None, {}
    except (OSError, UnicodeDecodeError) as exc:
        raise SettingsError(f"cannot read {path}: {exc}") from None
    if not text.strip():
        return text, {}
    try:
        data = loads(text)
    except ValueError as exc:
        raise SettingsError(f"{path} is not valid JSON ({exc}): fix it first, toolprune will not rewrite it") from None
    if not isinstance(data, dict):
        raise SettingsError(f"{path} is not a JSON object: toolprune will not rewrite it")
    twice = _named_twice(data, text)
    if twice:  # the agent reads the last of them, an edit would change the first
        raise SettingsError(f'{path} names "{twice}" twice in one object: fix it first, toolprune will not rewrite it')
    return text, data


def _named_twice(data: dict, text: str) -> str | None:
    """A member name that occurs twice in one object on the way to the hooks (the top level,
    ``hooks``, an event's groups), or None: Node's ``JSON.parse`` keeps the last of them, which
    is the one the agent sees, while an edit would change the first."""
    import json

    from toolprune.cli.hooks.jsonedit import strip_comments

    if '"hooks"' not in text:  # the only member toolprune edits
        return None

    class Twice(dict):
        name = ""

    def pairs(items: list[tuple[str, object]]) -> dict:
        names = [name for name, _ in items]
        twice = next((name for name in names if names.count(name) > 1), None)
        if twice is None:
            return dict(items)
        out = Twice(items)
        out.name = twice
        return out

    top = json.loads(strip_comments(text), object_pairs_hook=pairs)
    hooks = top.get("hooks")
    on_the_way = [top, hooks] + [
        group
        for groups in (hooks.values() if isinstance(hooks, dict) else ())
        if isinstance(groups, list)
        for group in groups
    ]
    return next((x.name for x in on_the_way if isinstance(x, Twice)), None)


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


def _group(agent: Agent, matcher: str | None) -> dict:
    group: dict = {} if matcher is None else {"matcher": matcher}
    group["hooks"] = [{"type": "command", "command": agent.command}]
    return group


def with_hooks(text: str | None, data: dict, agent: Agent) -> str | None:
    """The file's text with toolprune's hooks for ``agent`` added (None when all are there)."""
    present = set(installed_events(data, agent))
    missing = [(event, matcher) for event, matcher in agent.events if event not in present]
    if not missing:
        return None
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise SettingsError('its "hooks" is not a JSON object: toolprune will not rewrite it')
    for event, _ in missing:
        if not isinstance(hooks.get(event, []), list):
            raise SettingsError(f'its "hooks.{event}" is not a list: toolprune will not rewrite it')
    if text is None or not text.strip():
        fresh = {"hooks": {event: [_group(agent, matcher)] for event, matcher in missing}}
        return json.dumps(fresh, indent=2, ensure_ascii=False) + "\n"
    editor = Editor(text)
    node = editor.root.member("hooks")
    if node is None:
        editor.add_members(editor.root, [("hooks", {event: [_group(agent, m)] for event, m in missing})])
        return editor.result()
    new_events: list[tuple[str, object]] = []
    for event, matcher in missing:
        groups = node.member(event)
        if groups is None:
            new_events.append((event, [_group(agent, matcher)]))
        else:
            editor.add_elements(groups, [_group(agent, matcher)])
    if new_events:
        editor.add_members(node, new_events)
    return editor.result()


def without_hooks(text: str | None, data: dict, agent: Agent, before: dict | None = None) -> str | None:
    """The file's text with toolprune's hooks for ``agent`` taken out (None when it has none).
    A group left empty goes, and so do an event and ``hooks`` left empty by that, unless the
    settings as they were before ``install`` (``before``, read from the backup) had them empty
    already: ``"PostToolUse": []`` or ``"hooks": {}`` written by the user stays as it was."""
    if text is None or not installed_any(data, agent):
        return None
    kept_events, keep_hooks = _empty_before(before, agent)
    editor = Editor(text)
    node = editor.root.member("hooks")
    if node is None:  # no hooks at all: nothing to take out
        return None
    emptied = set()
    for index, (_, _, groups) in enumerate(node.members):
        if not groups.elements:
            continue
        gone, partial = set(), []
        for g, group_node in enumerate(groups.elements):
            group = loads(text[group_node.start : group_node.end])
            if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                continue
            ours = {h for h, hook in enumerate(group["hooks"]) if is_ours(hook, agent)}
            if ours and len(ours) == len(group["hooks"]):
                gone.add(g)
            elif ours and (hooks_node := group_node.member("hooks")) is not None:  # it is: a list, read above
                partial.append((hooks_node, ours))
        if len(gone) == len(groups.elements) and node.members[index][0] not in kept_events:
            emptied.add(index)
            continue
        editor.remove(groups, gone)
        for hooks_array, ours in partial:
            editor.remove(hooks_array, ours)
    if emptied and len(emptied) == len(node.members) and not keep_hooks:
        top = [i for i, (key, _, _) in enumerate(editor.root.members) if key == "hooks"]
        editor.remove(editor.root, set(top))
    else:
        editor.remove(node, emptied)
    return editor.result()


def _empty_before(before: dict | None, agent: Agent) -> tuple[set[str], bool]:
    """The events whose list was empty before ``install``, and whether ``hooks`` was there without
    toolprune's hooks in it (a backup that holds them is from an older install: no evidence)."""
    hooks = before.get("hooks") if before is not None else None
    if before is None or not isinstance(hooks, dict) or installed_any(before, agent):
        return set(), False
    return {event for event, groups in hooks.items() if groups == []}, True


def installed_any(data: dict, agent: Agent) -> bool:
    hooks = data.get("hooks")
    return isinstance(hooks, dict) and any(
        isinstance(g, dict) and isinstance(g.get("hooks"), list) and any(is_ours(h, agent) for h in g["hooks"])
        for groups in hooks.values() if isinstance(groups, list) for g in groups
    )


def _backup(path: Path) -> dict | None:
    """The settings kept in the backup beside ``path`` (as they were before the last install or
    uninstall), or None when there is none or it cannot be read."""
    try:
        text, data = read_settings(path.with_name(path.name + BACKUP_SUFFIX))
    except SettingsError:
        return None
    return data if text is not None else None


def write_atomic(path: Path, text: str) -> None:
    """Back up the old file, then write the new one through a temporary file and a rename. A
    settings file that is a symlink (a dotfile manager's) stays one: the file it points to is
    replaced, and the backup is kept beside the link."""
    import tempfile

    path.parent.mkdir(parents=True, exist_ok=True)
    mode = None
    if path.exists():
        mode = path.stat().st_mode & 0o7777
        backup = path.with_name(path.name + BACKUP_SUFFIX)
        if backup.is_dir() or (backup.exists() and not backup.is_file()):  # os.replace cannot go over it
            raise SettingsError(f"{backup} is not a regular file: move it away (toolprune keeps the old settings "
                                "there) and run this again; nothing was changed")
        _replace(backup, path.read_bytes(), mode)
    link, path = path, Path(os.path.realpath(path))
    if path != link:
        path.parent.mkdir(parents=True, exist_ok=True)
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
        changed = with_hooks(old, data, agent) if install else without_hooks(old, data, agent, _backup(path))
    except SettingsError as exc:
        raise SettingsError(f"{path}: {exc.message}") from None
    new = old if changed is None else changed
    verb = "install" if install else "uninstall"
    if new is None or new == old:  # None only when both are: no file, nothing to write
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

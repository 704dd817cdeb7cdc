"""``toolprune doctor``: what is installed where, and whether it works.

For each agent it names the settings files (user and project) and whether toolprune's hooks are
in them; for each agent whose hooks are installed it runs the real hook command
(``toolprune hook <agent>`` found on the PATH, as the agent would) with a synthetic request and
tool event, in a throw-away state folder and with the local lexical scorer (nothing is sent
anywhere), and checks that the answer is the pruned result in that agent's schema. Then the
scorer and spill directory in effect, and the version. Exit 0 when nothing is broken, 1 when
something is, with one line per problem naming the fix.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from toolprune import __version__
from toolprune.cli.hooks.install import AGENTS, Agent, SettingsError, installed_events, read_settings
from toolprune.cli.streams import Environment
from toolprune.errors import ExitCode

QUESTION = "Which port does the staging database listen on after the migration?"
SESSION = "toolprune-doctor"
TIMEOUT = 60


def _document() -> str:
    """A tool output with one paragraph about the question among many unrelated ones."""
    topics = ("the garden irrigation schedule", "the office coffee machine", "the quarterly travel policy",
              "the font licence for the brochure", "the parking garage access cards", "the holiday rota")
    filler = [
        f"Note {i}: the team discussed {topics[i % len(topics)]} again. Nobody had new figures, so the "
        f"item was moved to the next meeting, and the minutes record {i * 7 % 13} open actions about it, "
        "none of which concern software, servers or configuration of any kind."
        for i in range(40)
    ]
    answer = ("After the migration the staging database listens on port 6432 instead of 5432; the "
              "connection string in the staging configuration was updated to the new port.")
    return "\n\n".join(filler[:25] + [answer] + filler[25:])


def _events(agent: Agent) -> tuple[dict, dict]:
    base = {"session_id": SESSION, "transcript_path": "", "cwd": os.getcwd()}
    text = _document()
    if agent.name == "claude-code":
        return ({**base, "hook_event_name": "UserPromptSubmit", "prompt": QUESTION},
                {**base, "hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": "doctor",
                 "tool_input": {"command": "cat notes.txt"},
                 "tool_response": {"stdout": text, "stderr": "", "interrupted": False, "isImage": False}})
    if agent.name == "codex":
        codex = {**base, "model": "doctor", "permission_mode": "default", "turn_id": "doctor"}
        return ({**codex, "hook_event_name": "UserPromptSubmit", "prompt": QUESTION},
                {**codex, "hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": "doctor",
                 "tool_input": {"command": "cat notes.txt"}, "tool_response": text})
    gemini = {**base, "timestamp": "1970-01-01T00:00:00Z"}
    return ({**gemini, "hook_event_name": "BeforeAgent", "prompt": QUESTION},
            {**gemini, "hook_event_name": "BeforeTool", "tool_name": "run_shell_command",
             "tool_input": {"command": "cat notes.txt", "description": "Show the notes"}})


def _answer_ok(agent: Agent, answer: dict) -> bool:
    if agent.name == "claude-code":
        stdout = answer.get("hookSpecificOutput", {}).get("updatedToolOutput", {}).get("stdout", "")
        return "6432" in stdout and "toolprune omitted" in stdout
    if agent.name == "codex":
        reason = answer.get("reason", "")
        return answer.get("decision") == "block" and "6432" in reason and "toolprune omitted" in reason
    command = answer.get("hookSpecificOutput", {}).get("tool_input", {}).get("command", "")
    return "bash -c 'cat notes.txt'" in command and "| toolprune " in command


def fire(agent: Agent, program: str) -> str | None:
    """Run the real hook command with the synthetic events; None when it answered as it should,
    else what went wrong."""
    first, second = _events(agent)
    with tempfile.TemporaryDirectory(prefix="toolprune-doctor-") as state:
        env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLPRUNE_")}
        env.update(TOOLPRUNE_HOME=state, TOOLPRUNE_SCORER="lexical", TOOLPRUNE_LOG=os.devnull)
        answer = b""
        for event in (first, second):
            try:
                proc = subprocess.run([program, "hook", agent.name], input=json.dumps(event).encode(),
                                      capture_output=True, env=env, timeout=TIMEOUT)
            except (OSError, subprocess.TimeoutExpired) as exc:
                return f"could not run {program} hook {agent.name}: {exc}"
            if proc.returncode != 0:
                said = proc.stderr.decode(errors="replace").strip()[:200]
                return f"{program} hook {agent.name} exited {proc.returncode}: {said}"
            answer = proc.stdout
    try:
        parsed = json.loads(answer) if answer.strip() else None
    except ValueError:
        parsed = None
    if not isinstance(parsed, dict) or not _answer_ok(agent, parsed):
        return f"{program} hook {agent.name} did not answer a synthetic event with a pruned result"
    return None


def codex_trusts(hooks_file: Path) -> bool:
    """Does Codex's user config hold a trust entry for a hook of this hooks file? Codex keeps them
    as ``[hooks.state."file:<hooks file>:<event>:<group>:<hook>"]`` with a ``trusted_hash``."""
    home = Path(os.environ["CODEX_HOME"]) if os.environ.get("CODEX_HOME") else Path(os.path.expanduser("~")) / ".codex"
    try:
        text = (home / "config.toml").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return f"file:{hooks_file}:" in text and "trusted_hash" in text


def doctor(env: Environment) -> int:
    from toolprune.settings import resolve_spill_dir

    lines: list[str] = [f"toolprune {__version__}"]
    problems: list[str] = []
    program = shutil.which("toolprune")
    lines.append(f"executable: {program or 'not on PATH'}")
    installed_any = False
    for agent in AGENTS.values():
        for project in (False, True):
            path = agent.path(project)
            where = "project" if project else "user"
            try:
                text, data = read_settings(path)
            except SettingsError as exc:
                lines.append(f"{agent.name} ({where}): {path}: unreadable")
                problems.append(f"{agent.name}: {exc.message}")
                continue
            if text is None:
                if not project:
                    lines.append(f"{agent.name} ({where}): {path}: no such file")
                continue
            found = installed_events(data, agent)
            wanted = [event for event, _ in agent.events]
            if not found:
                lines.append(f"{agent.name} ({where}): {path}: toolprune's hooks not installed")
                continue
            installed_any = True
            flag = " --project" if project else ""
            if len(found) < len(wanted):
                missing = ", ".join(e for e in wanted if e not in found)
                lines.append(f"{agent.name} ({where}): {path}: partly installed ({', '.join(found)})")
                problems.append(
                    f"{agent.name}: {path} lacks the {missing} hook: run `toolprune hook install {agent.name}{flag}`"
                )
            else:
                lines.append(f"{agent.name} ({where}): {path}: installed ({', '.join(found)})")
            if agent.name == "codex" and not codex_trusts(path):
                problems.append(f"codex: Codex runs a new hook only once you trust it, and {path} is not trusted yet: "
                                "open /hooks in Codex and trust toolprune's hooks")
            if program is None:
                problems.append(f"{agent.name}: the hook runs `toolprune`, which is not on PATH: "
                                "install it with `pipx install toolprune-cli` (or put its bin folder on PATH)")
                continue
            failure = fire(agent, program)
            if failure is None:
                lines.append(f"{agent.name} ({where}): the hook fires: a synthetic event came back pruned")
            else:
                problems.append(
                    f"{agent.name}: {failure}: run `{program} hook {agent.name}` by hand with an event on stdin "
                    "to see why"
                )
    if not installed_any:
        lines.append("no agent runs toolprune's hooks yet: `toolprune hook install claude-code|codex|gemini`")
    spill = env.environ.get("TOOLPRUNE_SPILL_DIR")
    lines.append(f"scorer: {env.environ.get('TOOLPRUNE_SCORER') or 'lexical'}")
    lines.append(f"spill dir: {resolve_spill_dir(Path(spill) if spill else None)}")
    for problem in problems:
        lines.append(f"problem: {problem}")
    lines.append("healthy" if not problems else f"{len(problems)} problem(s)")
    env.write_output(("\n".join(lines) + "\n").encode("utf-8"))
    return ExitCode.OK if not problems else ExitCode.NOT_RETURNED

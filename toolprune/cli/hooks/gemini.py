"""``toolprune hook gemini``: prune shell output inside Gemini CLI.

Checked against ``@google/gemini-cli-core`` 0.61.0 (the core of ``@google/gemini-cli`` 0.61.0):

- ``BeforeAgent`` carries ``prompt`` and ``session_id``: the request is remembered per session;
- ``AfterTool`` can block a result (the model then sees "Tool result blocked: …" as an error) or
  append context, but cannot replace it, so it is not used;
- ``BeforeTool`` may answer ``hookSpecificOutput.tool_input``: the tool is rebuilt from it
  (the whole input, not a merge). For ``run_shell_command`` toolprune answers the same input with
  the command wrapped so that its output is pruned on the way to the model.

Approval: Gemini CLI runs ``BeforeTool`` *before* its policy check and then checks the rewritten
command. A plain ``toolprune run -- CMD`` would be checked as a toolprune command, and the user's
rules for CMD (a deny rule, "ask" for a dangerous command) would no longer match it. So the
rewrite keeps the original command as its own part of a pipeline::

    set -o pipefail; bash -c '<CMD>' 2>&1 | toolprune --fit gemini --label gemini --basis-file <session>

Gemini's policy engine splits a command into its parts, unwraps ``bash -c '…'`` and checks the
original command with the user's own rules; the whole is allowed only when every part is. The
rewrite can therefore make Gemini *ask* where it would have allowed (``toolprune``, ``set`` and
the ``2>&1`` redirection are parts of their own), and never allows what it would have asked
about or denied. No decision field is ever answered. ``pipefail`` keeps the command's exit
status (toolprune itself exits 0). The command is quoted so that bash and Gemini's unwrapping both
get it back exactly: in single quotes, or in double quotes when it holds a single quote (Gemini
unwraps ``'…'`` by dropping the outer quotes only); one that holds both a single quote and one of
``"``, ``$``, a backquote, a backslash or ``!`` is left as it is, and so are background commands
and commands that detach a process (``setsid``, ``nohup``, ``ssh -f``…: it would hold the pipe
open, and toolprune would wait for it), everything off POSIX, and every command when
``toolprune`` is not on the PATH the shell will search.
"""

from __future__ import annotations

import os
import re
import shlex

from toolprune.cli.hook import _session_file, remember, runs_toolprune, serve
from toolprune.cli.streams import Environment

LABEL = "gemini"
SHELL_TOOL = "run_shell_command"


def gemini(env: Environment) -> int:
    return serve(env, {"BeforeAgent": remember, "BeforeTool": _rewrite_shell},
                 "the command was left as it was")


DOUBLE_QUOTE_SPECIAL = frozenset('"$`\\!')
"""What bash would still interpret inside double quotes (``!`` only interactively; kept out anyway)."""


def quoted(command: str) -> str | None:
    """``command`` as one shell word that bash reads back exactly and that Gemini CLI's policy
    engine unwraps to exactly ``command``: in single quotes, or in double quotes when it holds a
    single quote but nothing double quotes would interpret; else None."""
    if "'" not in command:
        return f"'{command}'"
    if not DOUBLE_QUOTE_SPECIAL.intersection(command):
        return f'"{command}"'
    return None


def wrap(command: str, basis_file: str) -> str | None:
    """The shell line that runs ``command`` as it was and prunes what it prints, or None."""
    word = quoted(command)
    if word is None:
        return None
    return (f"set -o pipefail; bash -c {word} 2>&1 | "
            f"toolprune --fit gemini --label {LABEL} --basis-file {shlex.quote(basis_file)}")


def _settings_usable(env: Environment) -> bool:
    """Would ``toolprune`` in the rewritten line accept the settings it reads (the environment it
    shares with this hook, the config file)? One it rejects exits 2, which ``pipefail`` would make
    the command's status."""
    from toolprune.cli.runcmd import checked_options
    from toolprune.errors import UsageError

    try:
        checked_options(["--fit", "gemini", "--label", LABEL], env.environ)
    except UsageError:
        return False
    return True


_NOT_BACKGROUND = re.compile(r"&&|[<>|]&|&>")


def backgrounds(command: str) -> bool:
    """Does ``command`` start a job in the background (``npm run dev &``, ``a & b``)? An ``&``
    that is not part of ``&&``, ``>&``, ``<&``, ``|&`` or ``&>``; one inside quotes (a URL's query)
    counts too, which only leaves such a command unpruned."""
    return "&" in _NOT_BACKGROUND.sub("", command)


DETACHERS = frozenset({"setsid", "nohup", "disown", "daemonize", "start-stop-daemon", "coproc"})
_SEGMENTS = re.compile(r"[;&|\n()`]+")
_SSH_FORK = re.compile(r"-[A-Za-z]*f[A-Za-z]*")


def detaches(command: str) -> bool:
    """Does ``command`` start a process that outlives it without ``&`` (``setsid -f``, ``nohup``,
    ``disown``, ``daemonize``, ``start-stop-daemon``, ``coproc``, ``ssh -f``), also called by its
    path or quoted (``/usr/bin/setsid``, ``"setsid"``, ``\\setsid``)? That process keeps the
    command's output open, and toolprune at the pipe's end would wait for it to exit (a daemon's
    whole life). One pass over the words; a word in an argument that looks like one (``grep -rn
    setsid``, ``ssh host rm -f x``) only leaves the command unpruned. A program that forks on its
    own (``perl -e 'fork and exit'``) is not seen."""
    for segment in _SEGMENTS.split(command):
        words = [word.strip("'\"\\").rsplit("/", 1)[-1] for word in segment.split()]
        if DETACHERS.intersection(words):
            return True
        if "ssh" in words:
            at = words.index("ssh")
            if any(_SSH_FORK.fullmatch(word) for word in words[at + 1 :]):
                return True
    return False


def _rewrite_shell(env: Environment, event: dict) -> dict | None:
    tool_input = event.get("tool_input")
    if os.name != "posix" or event.get("tool_name") != SHELL_TOOL or not isinstance(tool_input, dict):
        return None
    command = tool_input.get("command")
    if not isinstance(command, str) or not command.strip() or tool_input.get("is_background"):
        return None
    if backgrounds(command) or detaches(command):  # it would hold the pipe open: toolprune would wait for it
        return None
    if runs_toolprune(command):  # bringing a dropped part back, or pruning already
        return None
    import shutil

    if shutil.which("toolprune") is None:  # the shell could not run it either: the output would be lost
        return None
    session = _session_file(event)
    if session is None or not session.is_file() or session.stat().st_size == 0:
        return None  # no request remembered: nothing to prune against
    wrapped = wrap(command, str(session))
    if wrapped is None or not _settings_usable(env):
        return None
    updated = dict(tool_input)
    updated["command"] = wrapped
    return {"hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": updated}}

"""``toolprune run [OPTIONS] -- CMD``: real commands, real pipes, real signals."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import cli, document, qa_items, restore

QUESTION = "Which State Route has been in discussion to upgrade to interstate standards?"
OUTPUT = document(qa_items("en"))


@pytest.mark.parametrize("status", [0, 1, 3])
def test_the_exit_status_is_the_commands(status):
    proc = cli("run", "--", "sh", "-c", f"echo out; exit {status}")
    assert proc.returncode == status
    assert proc.stdout == b"out\n"


@pytest.mark.parametrize("sig, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGKILL, 137)])
def test_a_command_ended_by_a_signal_gives_128_plus_n_and_its_output_unpruned(tmp_path, sig, status):
    doc = tmp_path / "doc.txt"
    doc.write_text(OUTPUT, encoding="utf-8")
    proc = cli("run", "--basis", QUESTION, "--", "sh", "-c", f"cat {doc}; kill -{int(sig)} $$")
    assert proc.returncode == status
    assert proc.stdout == OUTPUT.encode()


def test_stdout_and_stderr_arrive_together_in_order():
    proc = cli("run", "--", "sh", "-c", "echo one; echo two >&2; echo three; echo four >&2")
    assert proc.stdout == b"one\ntwo\nthree\nfour\n"
    assert proc.stderr == b""


def test_a_background_process_holding_the_pipe_does_not_keep_run_waiting():
    """``server & echo started``: the command exits at once, the server keeps the pipe open.
    run stops reading 2 s after the command has exited, says so on stderr, and returns what the
    command wrote; it waited the server's 30 s before. What a background process writes within
    those 2 s is read."""
    started = time.monotonic()
    proc = cli("run", "--", "sh", "-c", "sleep 30 & echo started server; echo more >&2")
    assert time.monotonic() - started < 10
    assert proc.returncode == 0 and proc.stdout == b"started server\nmore\n"
    assert b"still holds its output open" in proc.stderr
    late = cli("run", "--", "sh", "-c", "(sleep 0.5; echo late) & echo early")
    assert late.stdout == b"early\nlate\n" and late.stderr == b""


def test_a_long_output_written_in_bursts_is_read_whole():
    """Quiet spells while the command runs are not its end: only once it has exited does a quiet
    pipe end the reading."""
    script = "for i in 1 2 3; do seq 1 50000; sleep 0.4; done; echo last"
    proc = cli("run", "--", "sh", "-c", script)
    expected = b"".join(b"".join(b"%d\n" % k for k in range(1, 50001)) for _ in range(3)) + b"last\n"
    assert proc.returncode == 0 and proc.stdout == expected


def test_the_combined_output_is_pruned_and_restores_and_the_status_stays(tmp_path):
    doc = tmp_path / "doc.txt"
    doc.write_text(OUTPUT, encoding="utf-8")
    proc = cli("-v", "run", "--basis", QUESTION, "--", "sh", "-c", f"cat {doc}; exit 1")
    assert proc.returncode == 2 and b"options after run" in proc.stderr  # not run: a usage error
    proc = cli("run", "-v", "--basis", QUESTION, "--", "sh", "-c", f"cat {doc}; exit 1")
    assert proc.returncode == 1, proc.stderr.decode()
    assert b"outcome=ok" in proc.stderr
    assert len(proc.stdout) < len(OUTPUT.encode()) and b"Interstate" in proc.stdout
    assert restore(proc.stdout) == OUTPUT.encode()


def test_the_request_a_hook_remembered_is_the_basis(tmp_path):
    event = {"session_id": "s-1", "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp",
             "hook_event_name": "UserPromptSubmit", "prompt": QUESTION}
    assert cli("hook", "claude-code", input=json.dumps(event).encode()).returncode == 0
    doc = tmp_path / "doc.txt"
    doc.write_text(OUTPUT, encoding="utf-8")
    proc = cli("run", "-v", "--", "cat", str(doc))
    assert proc.returncode == 0 and b"outcome=ok" in proc.stderr, proc.stderr.decode()
    # a session named explicitly that was never remembered: no basis, the output passes through
    proc = cli("run", "-v", "--", "cat", str(doc), env={"TOOLPRUNE_SESSION": "other"})
    assert proc.stdout == OUTPUT.encode() and b"outcome=no_basis" in proc.stderr


def test_a_missing_command_is_127_and_says_so():
    proc = cli("run", "--", "no-such-command-here")
    assert proc.returncode == 127
    assert b"no-such-command-here: command not found" in proc.stderr


@pytest.mark.parametrize("args", [["run", "true"], ["run"], ["run", "--"]])
def test_without_a_command_after_double_dash_it_is_a_usage_error(args):
    proc = cli(*args)
    assert proc.returncode == 2
    assert b"after --" in proc.stderr


def test_a_typo_in_the_options_is_reported_before_the_command_runs(tmp_path):
    flag = tmp_path / "ran"
    proc = cli("run", "--threshhold", "strong", "--", "touch", str(flag))
    assert proc.returncode == 2 and b"--threshold" in proc.stderr
    assert not flag.exists()
    proc = cli("run", "--threshold", "loud", "--", "touch", str(flag))
    assert proc.returncode == 2 and b"invalid threshold" in proc.stderr
    assert not flag.exists()


@pytest.mark.parametrize("options, says", [
    (["--basis-file", "/nonexistent/basis.txt"], b"cannot read --basis-file"),
    (["--timeout", "nan"], b"invalid timeout"),
    (["--scorer", "bogus"], b"unknown scorer"),
    (["--scorer", "systemone", "--base-url", "ftp://x"], b"invalid --base-url"),
])
def test_every_usage_error_is_reported_before_the_command_runs(tmp_path, options, says):
    flag = tmp_path / "ran"
    proc = cli("run", *options, "--", "touch", str(flag))
    assert proc.returncode == 2 and says in proc.stderr
    assert not flag.exists()


@pytest.mark.parametrize("flag, says", [("--help", b"Usage: toolprune run"), ("-h", b"Usage: toolprune run"),
                                         ("--version", b"toolprune ")])
def test_help_or_version_before_the_command_answers_and_runs_nothing(tmp_path, flag, says):
    """``toolprune run --help -- CMD`` printed the root's help under run's name, then "internal
    error", exit 1; now it is run's own help (or the version), exit 0, and the command not run."""
    ran = tmp_path / "ran"
    proc = cli("run", "--threshold", "strong", flag, "--", "touch", str(ran))
    assert proc.returncode == 0 and proc.stdout.startswith(says) and proc.stderr == b""
    assert b"Commands" not in proc.stdout and not ran.exists()


def test_sigterm_to_toolprune_is_passed_on_to_the_command(tmp_path):
    ready = tmp_path / "ready"
    script = f"trap 'echo caught; exit 7' TERM; echo started; touch {ready}; while :; do sleep 0.05; done"
    proc = subprocess.Popen([sys.executable, "-m", "toolprune", "run", "--", "sh", "-c", script],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ))
    deadline = time.monotonic() + 30
    while not ready.exists():  # the command has installed its trap
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.01)
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 7
    assert out == b"started\ncaught\n"


def test_a_sigterm_while_the_command_starts_is_held_and_passed_on(tmp_path):
    """A SIGTERM that lands between toolprune deciding to run the command and the command
    existing is passed on once it exists (it once killed toolprune, and the command ran on)."""
    driver = (
        "import os, signal, subprocess, sys\n"
        "import importlib\n"
        "run = importlib.import_module('toolprune.cli.runcmd')\n"
        "from toolprune.cli.streams import Environment\n"
        "real = subprocess.Popen\n"
        "def late(*a, **k):\n"
        "    os.kill(os.getpid(), signal.SIGTERM)\n"
        "    return real(*a, **k)\n"
        "run.subprocess.Popen = late\n"
        "env = Environment(stdin=sys.stdin.buffer, stdout=sys.stdout.buffer, stderr=sys.stderr, stdin_isatty=False)\n"
        "out, status, signalled = run.execute(env, [sys.executable, '-c', 'import time; time.sleep(30)'])\n"
        "print(status, signalled)\n"
    )
    proc = subprocess.run([sys.executable, "-c", driver], capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stdout == b"143 True\n"


def test_the_command_gets_the_terminals_sigint_and_sigquit():
    """toolprune ignores SIGINT and SIGQUIT while the command runs (the terminal sends them to
    both); the command itself must not inherit the ignoring."""
    probe = "import signal; print(signal.getsignal(signal.SIGINT) is signal.SIG_IGN, signal.getsignal(signal.SIGQUIT) is signal.SIG_IGN)"
    proc = subprocess.run([sys.executable, "-m", "toolprune", "run", "--", sys.executable, "-c", probe],
                          capture_output=True, timeout=60)
    assert proc.stdout == b"False False\n", proc.stderr.decode()


def test_a_sigterm_while_the_command_starts_is_passed_on_to_it(monkeypatch):
    """A SIGTERM that lands while the command is being started (here: delivered inside the call
    that starts it) is passed on the moment the command exists: toolprune never ends on it with
    the command left running."""
    from toolprune.cli import runcmd
    from toolprune.cli.streams import Environment

    class Landed(Exception):
        """The signal reached toolprune's own handler instead of the command."""

    real_popen, children = subprocess.Popen, []

    def start_then_signal(*args, **kw):
        child = real_popen(*args, **kw)
        children.append(child)
        os.kill(os.getpid(), signal.SIGTERM)  # handled before this call returns
        return child

    def own_handler(signum, frame):
        raise Landed

    monkeypatch.setattr(runcmd.subprocess, "Popen", start_then_signal)
    previous = signal.signal(signal.SIGTERM, own_handler)
    env = Environment(stdin=None, stdout=None, stderr=None, stdin_isatty=True)
    try:
        data, status, signalled = runcmd.execute(env, ["sleep", "600"])
    finally:
        signal.signal(signal.SIGTERM, previous)
        for child in children:
            if child.poll() is None:
                child.kill()
                child.wait()
    assert (data, status, signalled) == (b"", 143, True)
    assert signal.getsignal(signal.SIGTERM) is previous

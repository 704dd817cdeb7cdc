from __future__ import annotations

import json
import re
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from toolprune.cli import run as run_cli  # bound now: importing the `run` command's module shadows the name
from toolprune.scorers.base import Scorer

FIXTURES = Path(__file__).parent / "fixtures"
ROOT = Path(__file__).parent.parent

# A suite started from a background job (``pytest &``, a CI step under a non-interactive shell)
# inherits SIGINT and SIGQUIT ignored, and passes that on to every process it starts; toolprune
# rightly keeps a signal ignored that it was started with ignored, so the signal tests would see
# no signal at all. Give this process, and so every child, the dispositions a terminal gives.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
if signal.getsignal(signal.SIGQUIT) is signal.SIG_IGN:
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


FOREIGN = {
    "TYPESAFE_API_KEY", "CLOUDFLARE_ACCOUNT_ID", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy",
    "https_proxy", "all_proxy", "NO_PROXY", "no_proxy",
}
"""Variables from outside that change where the remote scorer connects or which key it sends."""


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    """Every test gets its own TOOLPRUNE_HOME and a deterministic environment."""
    for name in list(os.environ):
        if name.startswith("TOOLPRUNE_") or name in FOREIGN:
            monkeypatch.delenv(name)
    home = tmp_path / "home"
    monkeypatch.setenv("TOOLPRUNE_HOME", str(home))
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.setenv("TZ", "UTC")
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    return home


def qa_items(lang: str | None = None) -> list[dict]:
    items = [json.loads(line) for line in (FIXTURES / "qa_sample.jsonl").open(encoding="utf-8")]
    return [i for i in items if lang is None or i["lang"] == lang]


def document(items: list[dict]) -> str:
    return "\n\n".join(p for item in items for p in item["paragraphs"])


STARTUP_VARIABLES = ("PYTHON", "LC_", "LANG", "TZ")
"""Variables read when the interpreter starts (encodings, paths, locale, time zone): a test that
sets them needs a real process."""


class Ran:
    """What a run of the CLI gave: ``returncode``, ``stdout`` and ``stderr`` bytes (as
    ``subprocess.CompletedProcess`` has them)."""

    def __init__(self, args: list[str], returncode: int, stdout: bytes, stderr: bytes) -> None:
        self.args, self.returncode, self.stdout, self.stderr = args, returncode, stdout, stderr


def cli(*args: str, input: bytes = b"", env: dict | None = None, check: bool = False, cwd=None, timeout=None):
    """Run the CLI in this process, bytes in and bytes out: ``argv``, environment variables and
    piped stdin in; the exit status and the stdout and stderr bytes out.

    It goes through ``toolprune.cli.run``, the entry point that ``main()`` calls with the
    process's streams, with ``sys.stdin``/``stdout``/``stderr`` replaced by byte buffers behind
    the same text layers a process has (so ``typer.echo`` lands in the same place) and
    ``os.environ`` and the working directory restored afterwards. What only a real process
    shows (signals, pipes, closed descriptors, start-up, concurrency, exit) is tested with
    :func:`spawn`. ``timeout`` ends the whole test run with a traceback of every thread if the
    command hangs (a process would be killed instead)."""
    import faulthandler
    import io

    startup = sorted(k for k in env or () if k.startswith(STARTUP_VARIABLES))
    assert not startup, f"{startup} take effect when a process starts: use spawn()"
    argv = [str(a) for a in args]
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    saved_std = sys.stdin, sys.stdout, sys.stderr
    out, err = io.BytesIO(), io.BytesIO()
    layers = (
        io.TextIOWrapper(io.BytesIO(input), encoding="utf-8"),
        io.TextIOWrapper(out, encoding="utf-8", write_through=True),
        io.TextIOWrapper(err, encoding="utf-8", errors="backslashreplace", write_through=True),
    )
    sys.stdin, sys.stdout, sys.stderr = layers
    if timeout is not None:
        faulthandler.dump_traceback_later(timeout, exit=True, file=saved_std[2])
    try:
        if env:
            os.environ.update(env)
        if cwd is not None:
            os.chdir(cwd)
        from toolprune.cli.streams import Environment

        try:
            code = int(run_cli(argv, Environment.from_sys()))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except Exception:  # only under --debug does anything escape run(): the interpreter's report
            import traceback

            traceback.print_exc()
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        if timeout is not None:
            faulthandler.cancel_dump_traceback_later()
        sys.stdin, sys.stdout, sys.stderr = saved_std
        for layer in layers:  # without closing the buffers under them
            layer.detach()
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
    proc = Ran(argv, code, out.getvalue(), err.getvalue())
    if check:
        assert proc.returncode == 0, proc.stderr.decode()
    return proc


def spawn(*args: str, input: bytes = b"", env: dict | None = None, check: bool = False, **kw):
    """Run the real entry point as a process with real pipes (``python -m toolprune``)."""
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    proc = subprocess.run(
        [sys.executable, "-m", "toolprune", *args],
        input=input,
        capture_output=True,
        env=full_env,
        **kw,
    )
    if check:
        assert proc.returncode == 0, proc.stderr.decode()
    return proc


GOLDEN_KEY = "00112233445566778899aabbccddeeff"
"""The spill key of the golden cases, so that the check part of their ids is fixed."""


def seeded_spill(path: Path, key: str = GOLDEN_KEY) -> Path:
    """A new spill directory whose secret key is ``key`` (ids then have a known check part)."""
    path.mkdir(mode=0o700)
    (path / ".key").write_text(key + "\n")
    return path


MARKER = re.compile(r"［…[^］]*?: toolprune omitted (?:--spill-dir \S+ )?(P\d+-[0-9a-f]{8}) (\d+) (\d+) …］")
HEADER = re.compile(r"\A【[^】]*】(\r?\n)\1")


def restore(output: bytes, env: dict | None = None, spill_dir: str | None = None, runner=None) -> bytes:
    """Rebuild the input from a pruned output: drop the header, replace every marker with what
    ``toolprune omitted`` returns for it (the command an agent would run; ``runner=spawn`` runs
    each one as a process)."""
    text = output.decode("utf-8")
    header = HEADER.match(text)
    assert header, "a pruned output starts with the header line and a blank line"
    body = text[header.end() :]
    extra = ["--spill-dir", spill_dir] if spill_dir else []

    def back(match: re.Match) -> str:
        proc = (runner or cli)("omitted", *extra, match.group(1), match.group(2), match.group(3), env=env)
        assert proc.returncode == 0, proc.stderr.decode()
        return proc.stdout.decode("utf-8")

    return MARKER.sub(back, body).encode("utf-8")


class ByIndex(Scorer):
    """A scorer that drops the flattened units whose index is in ``drop`` (a real implementation
    of the scorer contract, for tests that choose what is dropped)."""

    name = "by-index"

    def __init__(self, drop):
        self.drop = set(drop)

    def score(self, request, batch):
        return [0.0 if i in self.drop else 1.0 for i in batch]


def record(i: int, size: int = 400) -> dict:
    """A JSON record of about ``size`` chars."""
    return {"id": i, "title": f"record {i}", "body": "lorem ipsum " * (size // 12)}


@pytest.fixture(scope="module")
def s1():
    """A System One server on 127.0.0.1 for a test module (tests/s1server.py)."""
    from s1server import S1Server

    server = S1Server().start()
    yield server
    server.stop()


@pytest.fixture
def server(s1):
    """The module's System One server, its recorded requests and scripted answers reset."""
    s1.reset()
    return s1

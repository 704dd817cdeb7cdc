"""The filter as a process among others: signals, closed and broken streams, terminals, FIFOs,
hostile patterns. Every test runs the real entry point with real pipes, real signals and real
terminals, and waits for an observable event (a pipe that is full, a file offset, a FIFO that
was opened) instead of sleeping before it signals."""

from __future__ import annotations

import fcntl
import json
import os
import re
import resource
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from conftest import cli, document, qa_items

EN = qa_items("en")
DOC = document(EN[:2]).encode()
BASIS = EN[0]["question"]
INFO_LOG = b"".join(b"[INFO] building module %d of the project with some words\n" % i for i in range(200))
PIPE_PAGE = 4096
F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)


def _spawn(*args: str, stdin=subprocess.PIPE, env: dict | None = None, **kw) -> subprocess.Popen:
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.Popen(
        [sys.executable, "-m", "toolprune", *args], stdin=stdin, stdout=subprocess.PIPE,
        stderr=kw.pop("stderr", subprocess.PIPE), env=full_env, **kw,
    )


def _ids(output: bytes) -> bytes:
    """The output with its spill ids blanked (two runs get two ids)."""
    return re.sub(rb"omitted P\d+", b"omitted P", output)


def _write_until_read(proc: subprocess.Popen, data: bytes) -> None:
    """Write ``data`` through a one-page pipe: the write returns only once the child has read
    from it, so the child is past its start-up and in its read loop."""
    assert len(data) > PIPE_PAGE
    fcntl.fcntl(proc.stdin.fileno(), F_SETPIPE_SZ, PIPE_PAGE)
    proc.stdin.write(data)
    proc.stdin.flush()


def _wait_for_offset(pid: int, offset: int) -> None:
    """Wait until the child's stdin (a regular file) has been read up to ``offset``, looking
    every 0.2 ms (a tight loop took a core from the child it waits for)."""
    want = f"pos:\t{offset}\n"
    while True:
        try:
            with open(f"/proc/{pid}/fdinfo/0") as info:
                if want in info.read():
                    return
        except OSError:  # it has exited already
            return
        time.sleep(0.0002)


# -- signals ---------------------------------------------------------------------------------


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_signal_while_reading_passes_through_what_was_written(sig, code):
    proc = _spawn("--basis", BASIS)
    _write_until_read(proc, DOC[:5000])
    proc.send_signal(sig)  # stdin stays open: the child is blocked reading the rest
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == code, err
    assert out == DOC[:5000]
    assert b"Traceback" not in err and err.decode().count("\n") == 1


def _ignore_sigint():
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def test_a_sigint_the_filter_was_started_ignoring_stays_ignored():
    """Started with SIGINT ignored (a background job, ``nohup``), the filter does not take it up:
    a SIGINT changes nothing and the prune ends as it would have."""
    proc = _spawn("--basis", BASIS, preexec_fn=_ignore_sigint)
    _write_until_read(proc, DOC[:5000])
    proc.send_signal(signal.SIGINT)
    proc.stdin.write(DOC[5000:])
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert _ids(out) == _ids(cli("--basis", BASIS, input=DOC).stdout)


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_signal_before_reading_starts_passes_the_pipe_through(tmp_path, sig, code):
    """A signal that lands before the filter reads stdin (here: while it waits for its
    --basis-file, a FIFO) still passes through what the tool had written."""
    fifo = tmp_path / "basis"
    os.mkfifo(fifo)
    proc = _spawn("--basis-file", str(fifo))
    proc.stdin.write(DOC[:3000])
    proc.stdin.flush()
    writer = os.open(fifo, os.O_WRONLY)  # returns once the child has opened the FIFO
    try:
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
    finally:
        os.close(writer)
    assert proc.returncode == code, err
    assert out == DOC[:3000]
    assert b"Traceback" not in err and err.decode().count("\n") == 1


def test_a_basis_file_no_one_writes_to_is_a_usage_error_not_a_hang(tmp_path):
    """A FIFO with no writer held the filter forever, and the tool output behind it was lost when
    the caller's timeout killed it; now it waits ``BASIS_FILE_WAIT`` seconds, passes the input
    through and exits 2 naming the file."""
    from toolprune.cli.prune import BASIS_FILE_WAIT

    fifo = tmp_path / "basis"
    os.mkfifo(fifo)
    started = time.monotonic()
    proc = _spawn("--basis-file", str(fifo))
    out, err = proc.communicate(DOC, timeout=BASIS_FILE_WAIT + 30)
    assert BASIS_FILE_WAIT <= time.monotonic() - started < BASIS_FILE_WAIT + 20
    assert proc.returncode == 2 and out == DOC
    assert f"cannot read --basis-file {fifo}" in err.decode() and err.decode().count("\n") == 1
    proc = _spawn("--basis-file", str(fifo))  # a writer that says the request and keeps the FIFO open
    writer = os.open(fifo, os.O_WRONLY)
    try:
        os.write(writer, BASIS.encode())
        out, err = proc.communicate(DOC, timeout=BASIS_FILE_WAIT + 30)
    finally:
        os.close(writer)
    assert proc.returncode == 0 and _ids(out) == _ids(cli("--basis", BASIS, input=DOC).stdout) != DOC


def test_a_basis_file_is_read_from_a_pipe_and_never_past_its_limit():
    """``--basis-file <(echo "$PROMPT")`` (a pipe) is read as a file is; ``/dev/zero`` given by
    mistake is read up to ``BASIS_FILE_MAX_BYTES``, not until the memory runs out."""
    read_end, write_end = os.pipe()
    os.write(write_end, BASIS.encode())
    os.close(write_end)
    proc = _spawn("--basis-file", f"/dev/fd/{read_end}", pass_fds=(read_end,))
    out, _ = proc.communicate(DOC, timeout=60)
    os.close(read_end)
    assert proc.returncode == 0 and _ids(out) == _ids(cli("--basis", BASIS, input=DOC).stdout) != DOC
    proc = _spawn("--basis-file", "/dev/zero")
    out, err = proc.communicate(DOC, timeout=60)
    assert proc.returncode == 0 and out == DOC and b"Traceback" not in err


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signal_right_after_json_looking_input_never_kills_the_process(tmp_path, sig):
    """Input starting with '[' (a '[INFO]' log) makes the filter import orjson, whose import
    crashed (SIGSEGV) when a signal landed in it. The signal is sent the moment the whole
    input has been read (the child's stdin offset reaches its end)."""
    source = tmp_path / "log"
    source.write_bytes(INFO_LOG)
    seen = set()
    for _ in range(25):
        with source.open("rb") as stdin:
            proc = _spawn("--basis", "why did the build fail with an error?", stdin=stdin)
        _wait_for_offset(proc.pid, len(INFO_LOG))
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
        seen.add(proc.returncode)
        assert proc.returncode in (0, 128 + sig), (proc.returncode, err[-300:])
        assert out == INFO_LOG, (proc.returncode, err)  # passed through: interrupted, or nothing to drop
    assert 128 + sig in seen


# -- closed and broken streams ---------------------------------------------------------------


def _with_stderr_closed(*args: str, data: bytes) -> subprocess.CompletedProcess:
    script = 'exec "$0" -m toolprune "$@" 2>&-'
    return subprocess.run(["bash", "-c", script, sys.executable, *args], input=data, capture_output=True, timeout=60)


@pytest.mark.parametrize(
    "args", [[], ["--basis", "ok"], ["-v", "--basis", BASIS], ["--explain", "--basis", BASIS], ["--bogus"]]
)
def test_closed_stderr_never_breaks_the_output(args):
    reference = cli(*args, input=DOC)
    proc = _with_stderr_closed(*args, data=DOC)
    assert proc.returncode == reference.returncode and proc.returncode in (0, 2)
    assert _ids(proc.stdout) == _ids(reference.stdout) and proc.stdout


@pytest.mark.parametrize("args", [["--version"], ["--basis", BASIS], ["--bogus"], ["omitted", "P1-00000000", "0", "0"]])
def test_closed_stdout_is_a_broken_pipe_without_a_traceback(tmp_path, args):
    """Started with stdout closed (``>&-``), Python has no ``sys.stdout``: the tool exits as a
    filter whose reader went away, or with its own usage status, and never with a traceback."""
    script = 'exec "$0" -m toolprune "$@" >&-'
    env = {**os.environ, "TOOLPRUNE_SPILL_DIR": str(tmp_path)}
    proc = subprocess.run(["bash", "-c", script, sys.executable, *args], input=DOC, capture_output=True, timeout=60,
                          env=env)  # fmt: skip
    assert b"Traceback" not in proc.stderr and proc.returncode in (1, 2, 141), proc.stderr


def test_broken_stderr_pipe_never_breaks_the_output():
    read, write = os.pipe()
    os.close(read)  # every write to stderr fails with EPIPE
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "toolprune", "-v", "--explain"], input=DOC, stdout=subprocess.PIPE,
            stderr=write, timeout=60,
        )
    finally:
        os.close(write)
    assert proc.returncode == 0 and proc.stdout == DOC


@pytest.mark.parametrize("unbuffered", ["", "1"])
def test_short_write_to_a_reader_that_went_away_exits_141(tmp_path, unbuffered):
    """With PYTHONUNBUFFERED=1 stdout is unbuffered and a write the reader left half-way returns
    a short count instead of failing; the rest must still be written (and fail: 141)."""
    big = tmp_path / "big"
    big.write_bytes(DOC * 400)  # no --basis: passed through whole, far more than a pipe holds
    with big.open("rb") as stdin:
        proc = _spawn(stdin=stdin, env={"PYTHONUNBUFFERED": unbuffered})
    assert proc.stdout.read(1) == DOC[:1]
    proc.stdout.close()
    err = proc.stderr.read()
    proc.wait(timeout=60)
    assert proc.returncode == 141, err
    assert b"Traceback" not in err


def test_a_subcommand_whose_reader_went_away_exits_141(tmp_path):
    """``toolprune spill show ID | head -c1``: typer's click turned the broken pipe into exit 1,
    which says "``omitted`` returned nothing"; it is 141, as for the filter and ``omitted``."""
    env = {"TOOLPRUNE_SPILL_DIR": str(tmp_path)}
    big = DOC * 400
    out = cli("--basis", BASIS, "--max-chars", "4000", input=big, env=env, check=True).stdout
    record_id = re.search(rb"omitted (P\d+-[0-9a-f]{8})", out).group(1).decode()
    proc = _spawn("spill", "show", record_id, env=env, stdin=subprocess.DEVNULL)
    assert proc.stdout.read(1)
    proc.stdout.close()
    err = proc.stderr.read()
    proc.wait(timeout=60)
    assert proc.returncode == 141 and b"Traceback" not in err, err


# -- usage errors with piped input -----------------------------------------------------------


@pytest.mark.parametrize(
    "args, env",
    [
        (["--timeout", "nan"], {}), (["--timeout", "inf"], {}), (["--timeout=-inf"], {}),
        (["--timeout", "-1"], {}), (["--timeout", "1e999"], {}), ([], {"TOOLPRUNE_TIMEOUT": "nan"}),
    ],
)
def test_timeout_must_be_a_finite_number_and_the_input_still_passes_through(args, env):
    proc = cli("--basis", BASIS, *args, input=DOC, env=env)
    assert proc.returncode == 2
    err = proc.stderr.decode()
    assert err.count("\n") == 1 and "timeout" in err and "Traceback" not in err
    assert proc.stdout == DOC


def test_usage_errors_of_subcommands_never_echo_stdin():
    assert cli("omitted", "P1", input=DOC).stdout == b""
    assert cli("config", "set-key", "--bogus", input=b"sk-secret\n").stdout == b""
    assert cli("hook", "claude-code", "--bogus", input=b'{"x": 1}').stdout == b""


def test_the_subcommand_names_known_to_the_fast_path_are_the_apps():
    import typer

    from toolprune.cli import fast
    from toolprune.cli.app import app

    assert set(fast.SUBCOMMANDS) == set(typer.main.get_command(app).commands)


def test_the_root_options_each_subcommand_takes_are_the_apps():
    """``toolprune --spill-dir DIR omitted …`` moves the option after the subcommand only when the
    subcommand (a group: one of its subcommands) takes it; the table says which do."""
    import typer

    from toolprune.cli import fast
    from toolprune.cli.app import app

    root = typer.main.get_command(app)
    root_dests = {param.name for param in root.params}
    for name, command in root.commands.items():
        if name in ("hook", "run"):
            continue
        commands = list(getattr(command, "commands", {}).values()) or [command]
        taken = {param.name for sub in commands for param in sub.params} & root_dests
        assert taken == set(fast.SUBCOMMAND_FLAGS.get(name, ())), name


# -- --explain on a terminal -----------------------------------------------------------------

HOSTILE_START = "[/x] [bold]x\x1b]0;pwned\x07 \x1b[2J\x1b]8;;http://127.0.0.1/\x1b\\ \u202eevil\x9b1m "


def _explain_on_a_pty(data: bytes, color: bool) -> tuple[int, bytes, bytes]:
    main, follower = os.openpty()
    env = {k: v for k, v in os.environ.items() if not (k == "NO_COLOR" and color)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "toolprune", "--explain", "--basis", BASIS], stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=follower, env=env,
    )
    os.close(follower)
    seen = bytearray()

    def drain() -> None:
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError:  # EIO: the last writer closed the terminal
                return
            if not chunk:
                return
            seen.extend(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    out, _ = proc.communicate(data, timeout=60)
    reader.join(timeout=30)
    os.close(main)
    return proc.returncode, out, bytes(seen)


@pytest.mark.parametrize("color", [True, False])
def test_explain_on_a_terminal_shows_input_inert(color):
    text = DOC.decode()
    first, rest = text.split("\n\n", 1)
    data = (HOSTILE_START + first + "\n\n" + rest).encode()
    code, out, terminal = _explain_on_a_pty(data, color)
    assert code == 0, terminal[-500:]
    assert _ids(out) == _ids(cli("--basis", BASIS, input=data).stdout)  # as without --explain
    assert b"[/x]" in terminal and b"explain" in terminal
    for bad in (b"\x1b]", b"\x1b[2J", "\u202e".encode(), "\x9b".encode(), b"\x07"):
        assert bad not in terminal, bad


# -- hostile patterns ------------------------------------------------------------------------

# the backtracking pattern this one replaced (its "E" branch as it is now: blanks short of a line break)
OLD_SIGNAL_LINES = r"\n(?:\x1b\[[0-9;]*m)*(?:e[^\S\n]{2,}|[\w./\\-]*[a-z][\w./\\-]*\.\w+:\d+:(?:\d+:)? |offenses:)"


def test_a_1mb_single_token_line_is_scanned_in_linear_time():
    """A JWT or a hash at a line start made the built-in signal scan backtrack quadratically
    (50,000 chars took 15 s). A generous bound: the quadratic scan needs hours for 1 MB."""
    script = (
        "import sys\n"
        "from toolprune.core import lines\n"
        "token = ('eyJhbGciOiJIUzI1NiJ9.' * 50000)[:1_000_000]\n"
        "for text in (token, 'x\\n' + token, 'x\\n' + token + ':12: ', token.replace('.', '_')):\n"
        "    lines.signal_positions(text)\n"
        "print('done')\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=60)
    assert proc.stdout == b"done\n", proc.stderr


def test_a_1mb_line_of_dots_is_read_for_its_kind_in_linear_time():
    """The grep-listing test of ``core/kinds.py`` placed a path's dot by backtracking: a single
    200 KB line of dots took 15 s before any scoring (and any deadline) began (the kind is read
    from the first 64,000 chars, so each text here cost about that)."""
    script = (
        "from toolprune.core import kinds\n"
        "for text in ('.' * 1_000_000, './' * 500_000, 'a.' * 500_000 + ':x', 'a-' * 500_000):\n"
        "    kinds.kind(text)\n"
        "print('done')\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=20)  # ~15 s a text before; ms now
    assert proc.stdout == b"done\n", proc.stderr


def test_a_long_first_line_of_titles_or_links_is_read_for_its_kind_in_linear_time():
    """A 64 KB first line of ``g(1)`` made the man-title pattern backtrack for 43 s, and a line
    of ``[a](b`` the Markdown-link one for 15 s, before any deadline began (ms now)."""
    script = (
        "from toolprune.core import kinds\n"
        "for text in ('f(1) ' + 'g(1)' * 16000 + ';\\n', 'intro\\n' + '[a](b' * 12000 + '\\n'):\n"
        "    assert kinds.kind(text) == 'text'\n"
        "assert kinds.kind('LS(1)   User Commands   LS(1)\\n\\nNAME\\n   ls - list\\n') == 'man'\n"
        "print('done')\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=20)  # 45 s and 4 s before
    assert proc.stdout == b"done\n", proc.stderr


def test_a_log_with_a_long_token_line_prunes_within_the_timeout():
    log = b"".join(b"step %d: compiled module %d without problems\n" % (i, i) for i in range(400))
    cut = log.index(b"\n", 6000) + 1
    data = log[:cut] + b"eyJhbGciOiJIUzI1NiJ9" * 10000 + b"\n" + log[cut:] + b"error: the build failed\n"
    proc = cli("-v", "--timeout", "2", "--basis", "why did the build fail?", input=data, timeout=30)
    assert proc.returncode == 0 and b"outcome=timeout" not in proc.stderr  # done, not cut short (0.2 s here)
    assert proc.stdout == data or b"toolprune omitted" in proc.stdout


def test_a_catastrophic_user_signal_pattern_ends_within_the_timeout():
    log = b"".join(b"step %d: compiled module %d without problems\n" % (i, i) for i in range(400))
    data = log + b"a" * 5000 + b"b\n" + log
    proc = cli("--timeout", "1", "--signal", "(a+)+$", "--basis", "why did the build fail?", input=data, timeout=60)
    assert proc.returncode == 0
    assert proc.stdout == data or b"toolprune omitted" in proc.stdout
    assert "Traceback" not in proc.stderr.decode()


@pytest.mark.parametrize(
    "line",
    [
        "src/app.py:12:3: e", "src/app.py:12: x", "app.py:1: ", "123.py:1: ", "a1.2b:3: ", "a.b-c:1: ",
        "x/y.z.w:9:9: ", "foo.:12: ", "a.b:1:", ".a:1: ", "a\\b.c:1: ", "-a.b:2: ", "é.py:1: ", "ab.py:x: ",
        "\x1b[31msrc/a.go:7:2: ", "e   assert", "offenses: 3", "a.b.c.d.e.f.py:1:2: ",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    ],
)
def test_the_linear_signal_pattern_matches_the_same_lines_as_before(line):
    from toolprune.core import signals

    text = "x\n" + line.lower()
    old = [m.start() + 1 for m in re.finditer(OLD_SIGNAL_LINES, text)]
    new = [m.start() + 1 for m in signals._SIGNAL_LINES.finditer(text)]
    assert new == old


def test_the_linear_signal_pattern_agrees_with_the_old_one_on_random_lines():
    from hypothesis import given, settings, strategies as st

    from toolprune.core import signals

    alphabet = st.sampled_from(list("ab9Z_./\\-: \t\n\x1b[m;1é") + ["e  ", ".py:12:", ":3: "])

    @settings(max_examples=400, deadline=None)
    @given(st.lists(alphabet, max_size=30).map("".join))
    def agree(body: str) -> None:
        text = "\n" + body.lower()
        old = [m.start() for m in re.finditer(OLD_SIGNAL_LINES, text)]
        assert [m.start() for m in signals._SIGNAL_LINES.finditer(text)] == old
        assert bool(signals._SIGNAL_FIRST_LINE.match(body.lower())) == bool(re.match(OLD_SIGNAL_LINES[2:], body.lower()))

    agree()


# -- the log file ----------------------------------------------------------------------------


def test_a_log_file_that_is_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "log"
    os.mkfifo(fifo)
    proc = cli("--basis", BASIS, input=DOC, env={"TOOLPRUNE_LOG": str(fifo)}, timeout=60)
    assert proc.returncode == 0 and b"toolprune omitted" in proc.stdout
    err = proc.stderr.decode()
    assert err.count("\n") == 1 and "TOOLPRUNE_LOG" in err and "regular file" in err


def test_a_log_file_that_is_a_directory_is_refused(tmp_path):
    proc = cli("--basis", BASIS, input=DOC, env={"TOOLPRUNE_LOG": str(tmp_path)}, timeout=60)
    assert proc.returncode == 0 and b"toolprune omitted" in proc.stdout
    assert "regular file" in proc.stderr.decode()


def test_a_regular_log_file_still_gets_its_line(tmp_path):
    log = tmp_path / "log"
    cli("--basis", BASIS, input=DOC, env={"TOOLPRUNE_LOG": str(log)}, check=True)
    assert "outcome=ok" in log.read_text() and Path(log).stat().st_mode & 0o777 == 0o600


def test_signal_after_pruning_before_the_output_passes_the_input_through():
    """A signal while the diagnostics are written (here: --explain into a full stderr pipe, so
    the child blocks after pruning and before its output) passes the input through."""
    import array
    import termios

    data = document(EN[:8]).encode()
    read, write = os.pipe()
    fcntl.fcntl(write, F_SETPIPE_SZ, PIPE_PAGE)
    proc = _spawn("--explain-json", "--basis", BASIS, stdin=subprocess.PIPE, stderr=write)
    os.close(write)
    proc.stdin.write(data)
    proc.stdin.close()
    while True:  # the first rows are there: the child is past pruning, and its --explain (11 kB)
        size = array.array("i", [0])  # cannot end before this one-page pipe is read
        fcntl.ioctl(read, termios.FIONREAD, size)
        if size[0] > 0:
            break
    proc.send_signal(signal.SIGTERM)
    err = b""
    while chunk := os.read(read, 65536):
        err += chunk
    os.close(read)
    out = proc.stdout.read()
    proc.wait(timeout=60)
    assert proc.returncode == 143, err[-300:]
    assert out == data


def test_a_signal_with_the_envelope_still_writes_its_header_first():
    proc = _spawn("-v", "--envelope", "--basis", BASIS)
    _write_until_read(proc, DOC[:5000])
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert b" raw_bytes=5000 " in err  # the input's size, not the header's too
    first, body = out.split(b"\n", 1)
    head = json.loads(first)
    assert body == DOC[:5000] and head["outcome"] == "cancelled" and head["full_output"] is None
    assert head["bytes"] == 5000


def test_a_deep_chain_of_records_is_read_for_named_elements_once():
    """Keeping the elements a record's own values name walks from the top to each pruned
    container's holder: walked once per container, a chain 60 objects deep with four arrays at
    each level took 5 s (the walk below the scanned depth rescans the rest of the chain at every
    step); walked once per object, 0.5 s. A generous bound."""

    def level(depth: int) -> dict:
        rows = [{"id": i, "note": ("alpha" if i % 7 == 0 else "filler words here") + " " + "x" * 60} for i in range(14)]
        obj: dict = {f"k{k}": rows for k in range(4)}
        obj["tags"] = {"latest": "1.0"}
        if depth:
            obj["next"] = level(depth - 1)
        return obj

    data = json.dumps(level(60)).encode()
    proc = cli("-v", "--timeout", "3", "--basis", "alpha notes", input=data, timeout=60)
    assert proc.returncode == 0 and b"outcome=timeout" not in proc.stderr, proc.stderr


# -- memory --------------------------------------------------------------------------------------


def _limited(limit: int):
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return apply


@pytest.mark.parametrize("args", [("--basis", "why did the build fail?"), ("--bogus", "x")])
def test_an_input_that_does_not_fit_in_memory_twice_passes_through(tmp_path, args):
    """Reading the input ends in one join of its chunks, a second copy: under a memory limit that
    holds one copy and not two, the chunks are passed through as read (a usage error's too), with
    one line on stderr, never a traceback and never an empty output."""
    size = 160 << 20
    data = b"build step ok\n" * (size // 14)
    source = tmp_path / "in.txt"
    source.write_bytes(data)
    with source.open("rb") as stdin:
        # the interpreter and its modules, one copy of the input and its chunks list, not two copies
        proc = subprocess.run([sys.executable, "-m", "toolprune", *args], stdin=stdin, capture_output=True,
                              preexec_fn=_limited(300 << 20), timeout=120)
    assert "Traceback" not in proc.stderr.decode(), proc.stderr.decode()[-500:]
    assert len(proc.stdout) == len(data) and proc.stdout == data, (len(proc.stdout), proc.stderr.decode()[-300:])
    assert proc.returncode == (2 if "--bogus" in args else 0)


@pytest.mark.parametrize("moment", ["signals", "main"])
@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130), (signal.SIGHUP, 129)])
def test_a_signal_while_the_cli_is_imported_passes_the_input_through(signum, code, moment):
    """The console script (toolprune.entry) records SIGINT, SIGTERM and SIGHUP before it imports
    the command-line layer; one that arrives then is handled when the filter runs, as a signal at
    any later moment is: the piped input passed through, exit 128 + N. Here the signal is sent as
    the entry imports the signal module of the CLI, then its main: where a cold start spends its
    first tens of milliseconds."""
    script = (  # the console script's own function, with the signal sent as it imports the CLI's main
        "import builtins, os, sys\n"
        "real = builtins.__import__\n"
        "def hooked(name, globals=None, locals=None, fromlist=(), level=0):\n"
        f"    if name == 'toolprune.cli' and {moment!r} in (fromlist or ()):\n"
        f"        os.kill(os.getpid(), {int(signum)})\n"
        "    return real(name, globals, locals, fromlist, level)\n"
        "builtins.__import__ = hooked\n"
        "sys.argv = ['toolprune', '--basis', 'why did the build fail?']\n"
        "from toolprune.entry import main\n"
        "main()\n"
    )
    data = b"".join(b"step %d ok\n" % i for i in range(400))
    proc = subprocess.run([sys.executable, "-c", script], input=data, capture_output=True, timeout=60)
    assert proc.stdout == data, proc.stderr.decode()[-300:]
    assert proc.returncode == code and b"Traceback" not in proc.stderr

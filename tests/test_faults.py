"""Faults at the boundaries (issue #7 rows): a full disk, many processes, locale and environment."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from conftest import cli, document, qa_items, restore, spawn

EN = qa_items("en")
DOC = document(EN[:2]).encode()
BASIS = EN[0]["question"]


def _small_disk():
    """In the child: files may grow to 4 KiB only, and writing past it fails with EFBIG instead
    of killing the process — what a full disk looks like to toolprune's writes."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))


def test_a_full_disk_means_passthrough_and_no_stray_files(tmp_path):
    spill = tmp_path / "spill"
    proc = subprocess.run(
        [sys.executable, "-m", "toolprune", "--basis", BASIS, "--spill-dir", str(spill)],
        input=DOC, capture_output=True, preexec_fn=_small_disk, timeout=60,
    )
    assert proc.returncode == 0 and proc.stdout == DOC
    assert proc.stderr.decode().count("\n") == 1 and "spill" in proc.stderr.decode()
    assert [p.name for p in spill.iterdir() if p.name not in (".lock", ".key")] == []


def test_64_processes_at_once(tmp_path):
    env = {"TOOLPRUNE_SPILL_DIR": str(tmp_path / "spill")}
    with ThreadPoolExecutor(max_workers=64) as pool:
        outputs = list(pool.map(lambda _: spawn("--basis", BASIS, input=DOC, env=env, check=True).stdout, range(64)))
    ids = {out.decode().split("toolprune omitted ", 1)[1].split(" ", 1)[0] for out in outputs}
    assert len(ids) == 64
    assert all(restore(out, env) == DOC for out in outputs[::8])


def test_locale_timezone_and_home_do_not_change_the_output(tmp_path):
    spill = str(tmp_path / "spill")
    base = cli("--basis", BASIS, "--spill-dir", spill, input=DOC, check=True).stdout
    odd = {"LC_ALL": "C", "LANG": "C", "TZ": "Antarctica/Troll", "PYTHONIOENCODING": "ascii"}
    again = spawn("--basis", BASIS, "--spill-dir", spill, input=DOC, env=odd, check=True).stdout
    assert again == base.replace(b"P1", b"P2")
    bare = {k: v for k, v in os.environ.items() if k not in ("TZ", "LANG", "LC_ALL", "LC_CTYPE")}
    unset = subprocess.run([sys.executable, "-m", "toolprune", "--basis", BASIS, "--spill-dir", spill], input=DOC,
                           capture_output=True, env=bare, check=True).stdout
    assert unset == base.replace(b"P1", b"P3")


def test_read_only_home_fails_open(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = dict(os.environ)
    for name in ("TOOLPRUNE_HOME", "TOOLPRUNE_SPILL_DIR", "XDG_STATE_HOME"):
        env.pop(name, None)
    env["HOME"] = str(home)
    home.chmod(0o500)
    try:
        blocked = tmp_path / "home" / ".local"
        # as root a read-only mode does not stop writes: put a file where the state dir must go
        if os.getuid() == 0:
            home.chmod(0o700)
            blocked.write_text("not a directory")
        proc = subprocess.run([sys.executable, "-m", "toolprune", "--basis", BASIS], input=DOC,
                              capture_output=True, env=env, timeout=60)
    finally:
        home.chmod(0o700)
    assert proc.returncode == 0 and proc.stdout == DOC and b"spill" in proc.stderr


# --------------------------------------------------------------------------- bounded memory

PEAK = (
    "import resource, subprocess, sys\n"
    "with open(sys.argv[1], 'rb') as stdin:\n"
    "    subprocess.run([sys.executable, '-m', 'toolprune', '--basis', 'why did the login test fail?'],\n"
    "                   stdin=stdin, stdout=subprocess.DEVNULL, check=True)\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)\n"
)


def _peak_rss(path) -> int:
    """Peak RSS in bytes of one toolprune process reading ``path`` (a fresh parent, so no other
    child's peak is counted)."""
    proc = subprocess.run([sys.executable, "-c", PEAK, str(path)], capture_output=True, check=True)
    return int(proc.stdout)


def _baseline(tmp_path) -> int:
    """The process with its code loaded: a 6,000-char log goes through every module a large
    log does (kinds, line blocks, steps, the scorer), so what is left is the input's cost.
    Measured once for all the shapes."""
    if not _BASELINE:
        small = tmp_path / "small.txt"
        small.write_bytes(b"".join(b"2026-11-30T12:00:00 [INFO] step %d ok\n" % k for k in range(150)))
        _BASELINE.append(_peak_rss(small))
    return _BASELINE[0]


_BASELINE: list[int] = []


@pytest.mark.parametrize(
    "shape",
    ["log", "wide_log", "one_line", "tiny_lines"],
)
def test_memory_stays_within_four_times_the_input(tmp_path, shape):
    words = [b"alpha", b"build", b"test", b"compile", b"link", b"module", b"warning", b"step", b"error"]
    path = tmp_path / f"{shape}.txt"
    with path.open("wb") as out:
        if shape == "wide_log":  # one emoji: decoded whole, the text alone would be 4 bytes a character
            out.write("2026-11-30T12:00:00 [INFO] build started \U0001f680\n".encode())
        if shape in ("log", "wide_log"):  # 40 MB of log lines with a failure now and then
            line = 0
            while out.tell() < (40_000_000 if shape == "log" else 20_000_000):
                out.write(b"2026-11-30T12:00:00 [INFO] " + b" ".join(words[(line + k) % 9] for k in range(line % 11 + 2)) + b"\n")
                if line % 100_000 == 0:
                    out.write(b"ERROR: test_login failed: AssertionError\n")
                line += 1
        elif shape == "one_line":  # a single 20 MB line
            out.write(b" ".join(words[k % 9] for k in range(3_000_000)) + b"\n")
        else:  # a million tiny lines
            out.writelines(b"ok %d\n" % k for k in range(1_000_000))
    size = path.stat().st_size
    peak = _peak_rss(path) - _baseline(tmp_path)
    assert peak <= 4 * size, f"{shape}: {peak / size:.1f} x the input above the interpreter's own"


# --------------------------------------------------------------------------- more rows of the fault matrix


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-32"])
def test_utf16_and_utf32_input_pass_through_exactly(encoding):
    text = document(qa_items("en")[:4])
    for data in (text.encode(encoding), ('{"items": [%s]}' % ", ".join(f'"{p}"' for p in text.split("\n\n"))).encode(encoding)):
        proc = cli("--basis", "which state route is discussed?", "-v", input=data)
        assert proc.returncode == 0 and proc.stdout == data
        assert "outcome=not_text" in proc.stderr.decode()


def test_a_clock_gone_backwards_keeps_records(tmp_path):
    """A record dated in the future (the clock was set back after it was written) is neither
    lost by gc nor unreadable; new ids keep counting up."""
    spill = tmp_path / "spill"
    data = document(qa_items("en")).encode()
    env = {"TOOLPRUNE_SPILL_DIR": str(spill)}
    first = cli("--basis", "Which State Route has been in discussion to upgrade to interstate standards?", input=data, env=env)
    assert first.stdout.startswith("【".encode())
    record = next(p for p in spill.iterdir() if p.name.startswith("P"))
    future = time.time() + 10 * 86_400
    os.utime(record, (future, future))
    assert cli("gc", "--older-than", "1s", env=env).returncode == 0
    assert record.exists()
    assert restore(first.stdout, env=env) == data
    second = cli("--basis", "What Columbia President went to Harvard?", input=data, env=env)
    ids = sorted(int(p.name[1:]) for p in spill.iterdir() if p.name[1:].isdigit())
    assert ids == [1, 2] and second.returncode == 0


def test_a_full_stdout_pipe_only_waits(tmp_path):
    """A reader that is slow to start: the writer blocks on the full pipe, then everything
    arrives. The pipe holds one page, less than the output (11 kB), and is read only once it is
    full with the process still running."""
    import array
    import fcntl
    import termios

    data = b"".join(b"line %d of a long tool output that nobody reads for a while\n" % i for i in range(20_000))
    read, write = os.pipe()
    page = fcntl.fcntl(write, getattr(fcntl, "F_SETPIPE_SZ", 1031), 4096)
    proc = subprocess.Popen(
        [sys.executable, "-m", "toolprune", "--basis", "what is in line 500?"],
        stdin=subprocess.PIPE, stdout=write, stderr=subprocess.PIPE,
    )
    os.close(write)
    proc.stdin.write(data)
    proc.stdin.close()
    queued = array.array("i", [0])
    while queued[0] < page:  # the writer is blocked
        assert proc.poll() is None, proc.stderr.read()
        time.sleep(0.01)
        fcntl.ioctl(read, termios.FIONREAD, queued)
    with os.fdopen(read, "rb") as reader:
        out = reader.read()
    assert proc.wait(timeout=30) == 0
    assert out != data and restore(out) == data

"""The command line: passthrough, fail-open, usage errors, TTYs, parallel runs. Bytes in and bytes
out through the entry point in this process (``cli``), and with real pipes, terminals and
processes where those are what is tested (``spawn``, ``subprocess``; signals: test_process.py)."""

from __future__ import annotations

import io
import os
import re
import signal
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from conftest import cli, document, qa_items, restore, spawn
from toolprune.cli import run as cli_run
from toolprune.cli.streams import Environment
from toolprune.errors import ExitCode

EN = qa_items("en")
DOC = document(EN[:2]).encode()
BASIS = EN[0]["question"]

AWKWARD = {
    "crlf": DOC.replace(b"\n", b"\r\n"),
    "no_final_newline": DOC.rstrip(b"\n"),
    "invalid_utf8": DOC + b"\xc3\x28\xff",
    "nul_bytes": DOC.replace(b".", b".\x00", 3),
    "lone_cr": DOC.replace(b"\n\n", b"\r\r"),
    "bom": b"\xef\xbb\xbf" + DOC,
}


@pytest.mark.parametrize("name", sorted(AWKWARD))
@pytest.mark.parametrize("basis", ["ok thanks", "Quarterly kubernetes autoscaler latency budget"])
def test_passthrough_is_byte_exact_for_awkward_input(name, basis):
    data = AWKWARD[name]
    proc = cli("--basis", basis, input=data)
    assert proc.returncode == 0
    assert proc.stdout == data


@pytest.mark.parametrize("name", ["crlf", "no_final_newline", "bom"])
def test_pruned_awkward_input_keeps_units_verbatim_and_restores(name):
    data = AWKWARD[name]
    proc = cli("--basis", BASIS, input=data, check=True)
    assert proc.stdout != data
    assert restore(proc.stdout) == data


def test_no_basis_at_all_passes_through_and_says_why():
    proc = cli(input=DOC)
    assert proc.returncode == 0 and proc.stdout == DOC
    assert proc.stderr.decode().count("\n") == 1 and "no --basis" in proc.stderr.decode()


def test_basis_from_environment_and_file(tmp_path):
    by_flag = cli("--basis", BASIS, input=DOC, check=True).stdout
    by_env = cli(input=DOC, env={"TOOLPRUNE_BASIS": BASIS}, check=True).stdout
    path = tmp_path / "basis.txt"
    path.write_text(BASIS, encoding="utf-8")
    by_file = cli("--basis-file", str(path), input=DOC, check=True).stdout
    assert by_flag.replace(b"P1", b"Px") == by_env.replace(b"P2", b"Px") == by_file.replace(b"P3", b"Px")
    assert by_flag != DOC


def test_threshold_presets_and_numbers_agree():
    strong = cli("--basis", BASIS, "--threshold", "strong", input=DOC, check=True).stdout
    number = cli("--basis", BASIS, "--threshold", "0.3", input=DOC, check=True).stdout
    via_env = cli("--basis", BASIS, input=DOC, env={"TOOLPRUNE_THRESHOLD": "strong"}, check=True).stdout
    assert strong.replace(b"P1", b"Px") == number.replace(b"P2", b"Px") == via_env.replace(b"P3", b"Px")


def test_spill_dir_flag_is_named_in_every_marker(tmp_path):
    spill = tmp_path / "my spill"
    proc = cli("--basis", BASIS, "--spill-dir", str(spill), input=DOC, check=True)
    text = proc.stdout.decode()
    assert f"toolprune omitted --spill-dir '{spill}' P1" in text
    assert text.count("--spill-dir") == text.count("toolprune omitted")


@pytest.mark.parametrize("name", ["a\nb", "a\rb", "a\x1bb", "a\u2028b", "old］new", "［x", "a】b", "【x", "a\u202eb", "a\udcffb"])
def test_a_spill_dir_that_would_break_a_marker_is_a_usage_error_and_the_input_passes(tmp_path, name):
    """A marker is one line between ［ and ］ naming the spill dir: a path holding a line break,
    another control character or a marker bracket would end it early or split it."""
    spill = tmp_path / name
    for env in ({}, {"TOOLPRUNE_SPILL_DIR": name}):  # the flag's value, or a relative one (named too)
        flag = [] if env else ["--spill-dir", str(spill)]
        proc = cli("--basis", BASIS, *flag, input=DOC, env=env, cwd=tmp_path)
        assert proc.returncode == 2 and proc.stdout == DOC
        assert "invalid spill directory" in proc.stderr.decode() and "Traceback" not in proc.stderr.decode()
        assert not spill.exists()  # nothing was kept there either
        ran = cli("run", "--basis", BASIS, *flag, "--", sys.executable, "-c", "print('ran')", env=env, cwd=tmp_path)
        assert ran.returncode == 2 and b"ran" not in ran.stdout  # told before the command runs
    # an absolute one from the environment is never named in a marker: nothing to break
    unnamed = cli("--basis", BASIS, input=DOC, env={"TOOLPRUNE_SPILL_DIR": str(spill)}, check=True).stdout
    assert unnamed != DOC and "--spill-dir" not in unnamed.decode()
    # a full-width space or any other printable character is a path like any other
    fine = tmp_path / "作業\u3000spill"
    text = cli("--basis", BASIS, "--spill-dir", str(fine), input=DOC, check=True).stdout.decode()
    assert text.count(f"--spill-dir '{fine}'") == text.count("toolprune omitted") > 0


def test_a_relative_spill_dir_from_the_environment_is_named_absolute_in_every_marker(tmp_path):
    """TOOLPRUNE_SPILL_DIR=relspill is read against the current folder: the markers name the
    folder it became, so that their commands work from any other one."""
    here, elsewhere = tmp_path / "project", tmp_path / "other"
    here.mkdir()
    elsewhere.mkdir()
    proc = cli("--basis", BASIS, input=DOC, env={"TOOLPRUNE_SPILL_DIR": "relspill"}, cwd=here, check=True)
    text = proc.stdout.decode()
    command = re.search(r"toolprune omitted --spill-dir (\S+) (P1-\w+) (\d+) (\d+)", text)
    assert command and command.group(1) == str(here / "relspill")
    back = cli("omitted", "--spill-dir", command.group(1), *command.group(2, 3, 4), env={"TOOLPRUNE_SPILL_DIR": "relspill"},
               cwd=elsewhere, check=True)  # fmt: skip
    assert back.stdout and back.stdout in DOC


def test_an_empty_spill_dir_flag_counts_as_not_given(tmp_path):
    """``--spill-dir ''`` is the default folder, as an empty TOOLPRUNE_SPILL_DIR is: never the
    current folder, where the records and their key would land in the user's project."""
    default = tmp_path / "state"
    project = tmp_path / "project"
    project.mkdir()
    for args in (["--spill-dir", ""], ["--spill-dir="]):
        proc = cli("--basis", BASIS, *args, input=DOC, env={"TOOLPRUNE_HOME": str(default)}, cwd=project, check=True)
        assert proc.stdout != DOC and "--spill-dir" not in proc.stdout.decode()
        ran = cli("run", "--basis", BASIS, *args, "--", "cat", input=DOC, env={"TOOLPRUNE_HOME": str(default)},
                  cwd=project, check=True)  # fmt: skip
        assert ran.stdout != DOC and "--spill-dir" not in ran.stdout.decode()
    assert list(project.iterdir()) == [] and any((default / "spill").iterdir())


def test_a_mistyped_root_setting_does_not_stop_the_subcommands_that_show_it(isolated):
    """TOOLPRUNE_TAIL=abc is the filter's usage error (exit 2, input passed through), but
    ``config show`` (which shows the bad value) and the other subcommands do not read it."""
    env = {"TOOLPRUNE_TAIL": "abc"}
    shown = cli("config", "show", env=env)
    assert shown.returncode == 0 and "abc" in shown.stdout.decode()
    tail = next(line for line in shown.stdout.decode().splitlines() if line.strip().startswith("tail"))
    assert "← invalid tail 'abc': must be a whole number" in tail  # flagged, not shown as if in use
    assert "← " not in shown.stdout.decode().replace(tail, "")
    assert cli("spill", "path", env=env).returncode == 0
    proc = cli("--basis", BASIS, input=DOC, env=env)
    assert proc.returncode == 2 and proc.stdout == DOC and "TOOLPRUNE_TAIL" in proc.stderr.decode()


def test_verbose_line_has_counts_and_no_content():
    proc = cli("-v", "--basis", BASIS, input=DOC, check=True)
    line = proc.stderr.decode().strip()
    assert line.startswith("toolprune: outcome=ok shape=text split=blank scorer=lexical raw_chars=")
    fields = dict(part.split("=", 1) for part in line.split()[1:])
    assert int(fields["raw_chars"]) == len(DOC.decode()) and int(fields["raw_bytes"]) == len(DOC)
    assert int(fields["kept_chars"]) == len(proc.stdout.decode()) and int(fields["kept_bytes"]) == len(proc.stdout)
    assert fields["tokens"] == "-" and re.fullmatch(r"P1-[0-9a-f]{8}", fields["id"]) and fields["threshold"] == "0.2"
    assert BASIS not in line


@pytest.mark.parametrize(
    "args",
    [
        ["--threshold", "bogus"],
        ["--threshold", "0"],
        ["--threshold", "1.5"],
        ["--lang", "fr"],
        ["--no-such-flag"],
        ["--lable", "run", "-b", "why did it fail"],  # the typo's value is a subcommand's name
        ["--lable", "omitted", "P1", "3"],
        ["--timeout", "-1"],
        ["--basis", "x", "--basis-file", "/dev/null"],
        ["--basis-file", "/nonexistent/basis.txt"],
        ["--basis-file", "/dev/stdin"],  # would read the tool's output as the request
        ["--basis-file", "/proc/self/fd/0"],
        ["positional-data"],
        ["--basis", "x", "--signal", "a{99999999999}"],  # OverflowError in re.compile, not re.error
        ["--basis", "x", "--signal", "(" * 5000 + "a" + ")" * 5000],  # RecursionError
        ["--basis", "x", "--scorer", "systemone", "--base-url", "http://[::1"],  # ValueError in urlsplit
        ["--basis", "x", "--scorer", "systemone", "--base-url", "http://localhost:abc"],  # and in .port
    ],
)
def test_usage_errors_exit_2_with_one_line_and_the_input_passed_through(args):
    proc = cli(*args, input=DOC)
    assert proc.returncode == 2
    err = proc.stderr.decode()
    assert err.count("\n") == 1 and err.startswith("toolprune: ") and "Traceback" not in err
    assert proc.stdout == DOC  # a typo never swallows the tool's output


def test_an_internal_error_before_reading_passes_the_input_through(monkeypatch):
    """Whatever goes wrong before the input is read, the input is not swallowed: one line, exit 1."""
    from toolprune.cli import prune

    def broken(*args, **kwargs):
        raise RuntimeError("a bug in the request reader")

    monkeypatch.setattr(prune, "_read_basis", broken)
    env = Environment(stdin=io.BytesIO(DOC), stdout=io.BytesIO(), stderr=io.StringIO(), stdin_isatty=False)
    assert cli_run(["--basis", BASIS], env) == ExitCode.NOT_RETURNED
    assert env.stdout.getvalue() == DOC
    err = env.stderr.getvalue()
    assert err.count("\n") == 1 and "internal error: RuntimeError: a bug in the request reader" in err


def test_awkward_input_through_real_pipes_is_byte_exact_and_restores():
    """The same inputs through ``python -m toolprune`` with real pipes: the read loop on a pipe,
    the one writer and the exit status, as an agent's shell sees them; every ``omitted`` in
    its own process."""
    for name, data in sorted(AWKWARD.items()):
        passed = spawn("--basis", "Quarterly kubernetes autoscaler latency budget", input=data, timeout=60)
        assert passed.returncode == 0 and passed.stdout == data, name
        assert b"Traceback" not in passed.stderr, name
    pruned = spawn("--basis", BASIS, input=AWKWARD["crlf"], check=True, timeout=60)
    assert pruned.stdout != AWKWARD["crlf"] and restore(pruned.stdout, runner=spawn) == AWKWARD["crlf"]


def test_version_and_help():
    from toolprune import __version__

    assert cli("--version", check=True).stdout.decode() == f"toolprune {__version__}\n"
    assert b"omitted" in cli("--help", check=True).stdout


def test_stdin_tty_gives_a_hint_instead_of_hanging():
    env = Environment(stdin=io.BytesIO(), stdout=io.BytesIO(), stderr=io.StringIO(), stdin_isatty=True)
    assert cli_run(["--basis", BASIS], env) == ExitCode.USAGE
    assert "no input" in env.stderr.getvalue()
    # and with a real terminal on stdin
    main, follower = os.openpty()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "toolprune", "--basis", BASIS],
            stdin=follower, capture_output=True, timeout=30,
        )
    finally:
        os.close(main)
        os.close(follower)
    assert proc.returncode == 2 and b"no input" in proc.stderr


def test_closed_stdout_is_quiet():
    big = DOC * 50
    proc = subprocess.run(
        f"{sys.executable} -m toolprune --basis 'ok' | head -c1",
        shell=True, input=big, capture_output=True, timeout=60,
    )
    assert proc.stdout == big[:1]
    assert proc.stderr == b""


def test_closed_stdout_pruned_output_is_quiet():
    pipeline = subprocess.run(
        ["bash", "-o", "pipefail", "-c", f"{sys.executable} -m toolprune --basis '{BASIS}' | head -c1"],
        input=DOC * 3, capture_output=True, timeout=60,
    )
    assert b"Traceback" not in pipeline.stderr and pipeline.stderr == b""


def test_unwritable_spill_dir_passes_through_with_one_line(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    proc = cli("--basis", BASIS, "--spill-dir", str(blocker / "spill"), input=DOC)
    assert proc.returncode == 0 and proc.stdout == DOC
    err = proc.stderr.decode()
    assert err.count("\n") == 1 and "spill" in err and "passed through" in err


def test_spill_is_written_before_the_first_output_byte(tmp_path):
    spill = tmp_path / "spill"
    proc = subprocess.Popen(
        [sys.executable, "-m", "toolprune", "--basis", BASIS, "--spill-dir", str(spill)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    proc.stdin.write(DOC)
    proc.stdin.close()
    first = proc.stdout.read(1)
    records = sorted(p.name for p in spill.iterdir() if p.name.startswith("P"))
    rest = proc.stdout.read()
    proc.wait(timeout=30)
    assert first and records == ["P1"]
    assert (first + rest).startswith("【".encode())


# Signals while reading (synchronised on a full pipe, not on a sleep): tests/test_process.py


def test_32_parallel_processes_get_distinct_ids_that_all_resolve(tmp_path):
    spill = tmp_path / "spill"
    env = {"TOOLPRUNE_SPILL_DIR": str(spill)}

    def one(i):
        return spawn("--basis", BASIS, input=DOC, env=env, check=True).stdout

    with ThreadPoolExecutor(max_workers=32) as pool:
        outputs = list(pool.map(one, range(32)))
    ids = {out.decode().split("toolprune omitted ", 1)[1].split(" ", 1)[0] for out in outputs}
    assert len(ids) == 32
    for out in outputs:
        assert restore(out, env) == DOC
    assert not [p for p in spill.iterdir() if p.name.startswith(".tmp")]


def test_the_entry_point_keeps_its_name_after_the_run_command():
    """``toolprune.cli.run`` is the entry point for injected streams; importing the `run`
    command's own module must not take that name over (it did as ``toolprune/cli/run.py``: a
    second in-process call then found a module)."""
    def env() -> Environment:
        return Environment(stdin=io.BytesIO(b"x\n"), stdout=io.BytesIO(), stderr=io.StringIO(), stdin_isatty=False)

    assert cli_run(["run", "--", "true"], env()) == ExitCode.OK
    from toolprune.cli import run

    assert run is cli_run
    second = env()
    assert run(["--basis", BASIS], second) == ExitCode.OK and second.stdout.getvalue() == b"x\n"


@pytest.mark.parametrize(
    "code, value",
    [("OK", 0), ("NOT_RETURNED", 1), ("USAGE", 2), ("HANGUP", 129), ("INTERRUPTED", 130), ("BROKEN_PIPE", 141), ("TERMINATED", 143)],
)
def test_exit_codes(code, value):
    assert ExitCode[code] == value


def test_prune_path_imports_neither_httpx_nor_rich(tmp_path):
    script = (
        "import sys, io\n"
        "from toolprune.cli import run\n"
        "from toolprune.cli.streams import Environment\n"
        f"data = open({str(tmp_path / 'doc')!r}, 'rb').read()\n"
        "out = io.BytesIO()\n"
        "env = Environment(stdin=io.BytesIO(data), stdout=out, stderr=io.StringIO(), stdin_isatty=False)\n"
        f"code = run(['--basis', {BASIS!r}], env)\n"
        "assert code == 0 and out.getvalue() != data, code\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('httpx', 'rich', 'pydantic'))\n"
        "print(','.join(bad))\n"
    )
    (tmp_path / "doc").write_bytes(DOC)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stdout.decode().strip() == ""


def test_verbose_always_prints_one_line_and_says_why_nothing_was_judged():
    small = cli("-v", "--basis", "what does this output say", input=b"tiny output\n")
    assert small.stdout == b"tiny output\n"
    assert "outcome=small" in small.stderr.decode() and "why=input_under_4000_chars" in small.stderr.decode()
    thin = cli("-v", "--basis", "fix it", input=("word " * 2000).encode())
    assert "outcome=no_basis" in thin.stderr.decode() and "why=request_too_thin_to_judge" in thin.stderr.decode()
    for proc in (small, thin):  # still one line of key=value pairs
        line = [ln for ln in proc.stderr.decode().splitlines() if ln.startswith("toolprune: outcome=")][0]
        assert all("=" in part for part in line.split()[1:])

"""The start-up fast path reads command lines exactly as the typer app does."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, document, qa_items, seeded_spill
from toolprune.cli import _guarded, _typer, _usage_passthrough, run
from toolprune.cli.fast import parse_omitted, parse_root
from toolprune.cli.flags import ROOT_FLAGS
from toolprune.cli.streams import Environment

EN = qa_items("en")
DOC = document(EN[:2]).encode()
BASIS = EN[0]["question"]


def env_for(data: bytes = b"") -> Environment:
    return Environment(stdin=io.BytesIO(data), stdout=io.BytesIO(), stderr=io.StringIO(), stdin_isatty=False)


ROOT_CASES = [
    ["--basis", BASIS],
    ["-b", BASIS, "-v"],
    [f"--basis={BASIS}", "--threshold", "strong", "--lang", "ja"],
    ["--basis", BASIS, "-t", "0.3", "--timeout", "5", "--verbose", "--debug"],
    ["--basis", BASIS, "--spill-dir", "SPILL"],
    ["--basis", BASIS, "--threshold=max", "--lang=en", "--timeout=0"],
    ["--basis", "ok"],
    ["--basis", BASIS, "--tail", "5", "--signal", "boom|bang"],
    [],
]


@pytest.mark.parametrize("args", ROOT_CASES)
@pytest.mark.parametrize(
    "environ",
    [{}, {"TOOLPRUNE_THRESHOLD": "gentle", "TOOLPRUNE_LANG": "ja", "TOOLPRUNE_DEBUG": "yes", "TOOLPRUNE_BASIS": "x y z"}],
)
def test_root_flags_parse_like_typer(args, environ, monkeypatch, tmp_path):
    import typer

    from toolprune.cli.app import app

    args = [a.replace("SPILL", str(tmp_path)) for a in args]
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    parsed = parse_root(args, environ)
    assert parsed is not None, "an ordinary command line takes the fast path"
    values, given = parsed
    ctx = typer.main.get_command(app).make_context("toolprune", list(args))
    expected = {flag.dest: ctx.params[flag.dest] for flag in ROOT_FLAGS}
    for flag in ROOT_FLAGS:  # typer converts paths after parsing
        if flag.kind == "path" and expected[flag.dest] is not None:
            expected[flag.dest] = Path(expected[flag.dest])
    assert values == expected
    assert given == {flag.dest for flag in ROOT_FLAGS if ctx.get_parameter_source(flag.dest).name == "COMMANDLINE"}


@pytest.mark.parametrize(
    "args",
    [["omitted", "P1", "0", "3"], ["--help"], ["--basis"], ["--bogus"], ["-vb", "x"], ["--timeout", "abc"],
     ["--timeout", "-1"], ["--basis", "-x"], ["--", "x"], ["positional"], ["--verbose=1"], ["--spill-dir="]],
)
def test_anything_unusual_goes_to_typer(args):
    assert parse_root(args, {}) is None


@pytest.mark.parametrize(
    "args",
    [
        ["--basis", BASIS, "-v"],
        ["--basis", BASIS, "--threshold", "bogus"],
        ["--basis", BASIS, "--lang", "fr"],
        ["--basis", "ok thanks"],
        ["--basis", BASIS, "--basis-file", "/nonexistent"],
    ],
)
def test_fast_and_typer_paths_give_the_same_result(args, tmp_path):
    fast_env, typer_env = env_for(DOC), env_for(DOC)
    seeded_spill(tmp_path / "a"), seeded_spill(tmp_path / "b")  # one key: the same ids
    fast_code = run([*args, "--spill-dir", str(tmp_path / "a")] if args[0] == "--basis" else args, fast_env)
    typer_args = [*args, "--spill-dir", str(tmp_path / "b")] if args[0] == "--basis" else args
    typer_code = _usage_passthrough(typer_args, typer_env, _guarded(lambda: _typer(typer_args, typer_env), typer_env, False))
    norm = lambda env, d: env.stdout.getvalue().replace(str(tmp_path / d).encode(), b"DIR")  # noqa: E731
    assert fast_code == typer_code
    assert norm(fast_env, "a") == norm(typer_env, "b")
    strip_ms = lambda text: __import__("re").sub(r"ms=\d+", "ms=", text)  # noqa: E731
    assert strip_ms(fast_env.stderr.getvalue()) == strip_ms(typer_env.stderr.getvalue())


@pytest.mark.parametrize(
    "args",
    [["omitted", "P1", "0"], ["omitted", "P1", "0", "99", "-v"], ["omitted", "--spill-dir", "SPILL", "P1", "2", "5"],
     ["omitted", "P9", "0"], ["omitted", "../x", "0"], ["omitted", "P1", "5", "2"]],
)
def test_omitted_fast_path_matches_typer(args, tmp_path, monkeypatch):
    spill = tmp_path / "spill"
    monkeypatch.setenv("TOOLPRUNE_SPILL_DIR", str(spill))
    assert run(["--basis", BASIS], env_for(DOC)) == 0
    from toolprune.spill import SpillStore

    real = SpillStore(spill).read("P1").id  # the checked id the marker printed
    args = [real if a == "P1" else a.replace("SPILL", str(spill)) for a in args]
    assert parse_omitted(args, {"TOOLPRUNE_SPILL_DIR": str(spill)}) is not None
    fast_env, typer_env = env_for(), env_for()
    assert run(args, fast_env) == _guarded(lambda: _typer(args, typer_env), typer_env, False)
    assert fast_env.stdout.getvalue() == typer_env.stdout.getvalue()
    assert fast_env.stderr.getvalue() == typer_env.stderr.getvalue()


@pytest.mark.parametrize("args", [["--help"], ["-h"], ["--version"]])
def test_help_and_version_match_typer(args):
    from conftest import cli

    fast = cli(*args, check=True).stdout
    slow = cli("--debug", *args, check=True).stdout  # not a plain command line: typer renders it
    assert fast == slow and fast


def test_generated_files_are_up_to_date():
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "generate.py"), "--check"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize(
    "data, args, forbidden",
    [
        (DOC, ["--basis", BASIS],
         ("typer", "rich", "httpx", "pydantic", "orjson", "dataclasses", "toolprune.scorers.endpoints")),
        (b'{"items": [' + b",".join(b'{"id": %d, "text": "%s"}' % (i, b"x" * 300) for i in range(30)) + b"]}",
         ["--basis", BASIS], ("typer", "rich", "httpx", "pydantic")),
        (b"", ["--version"], ("typer", "rich", "httpx", "pydantic", "orjson", "dataclasses")),
    ],
)
def test_start_up_imports_stay_off_the_prune_path(tmp_path, data, args, forbidden):
    (tmp_path / "in").write_bytes(data)
    script = (
        "import io, sys\n"
        "from toolprune.cli import run\n"
        "from toolprune.cli.streams import Environment\n"
        f"env = Environment(io.BytesIO(open({str(tmp_path / 'in')!r}, 'rb').read()), io.BytesIO(), io.StringIO(), False)\n"
        f"assert run({args!r}, env) == 0\n"
        f"print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in {forbidden!r} or m in {forbidden!r})))\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ""

"""--max-chars, --max-lines and --fit: a hard bound on the whole output, drops restorable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import MARKER, cli, document, qa_items, restore
from toolprune.settings import FITS

LOG = (Path(__file__).parent / "golden" / "log_cidiff_commonslang" / "input.bin").read_bytes()
EN = qa_items("en")
DOC = document(EN[:2]).encode()


@pytest.mark.parametrize("limit", [30_000, 10_000, 6_000])
def test_max_chars_bounds_the_output_and_keeps_the_failure_and_the_tail(tmp_path, limit):
    env = {"TOOLPRUNE_SPILL_DIR": str(tmp_path)}
    proc = cli("-v", "--basis", "why did the build fail?", "--max-chars", str(limit), input=LOG, env=env, check=True)
    out = proc.stdout.decode()
    assert len(out) <= limit
    assert "[ERROR] Failures:" in out
    assert out.rstrip().endswith(LOG.decode().rstrip().splitlines()[-1])
    for match in MARKER.finditer(out):  # every drop is named and its command returns it as printed
        back = cli("omitted", match.group(1), match.group(2), match.group(3), env=env)
        assert back.returncode == 0, back.stderr


def test_max_lines_and_envelope_reserve(tmp_path):
    env = {"TOOLPRUNE_SPILL_DIR": str(tmp_path)}
    proc = cli("--basis", "why did the build fail?", "--max-lines", "80", "--envelope", input=LOG, env=env, check=True)
    assert proc.stdout.count(b"\n") + 1 <= 80
    head = json.loads(proc.stdout.split(b"\n", 1)[0])
    assert Path(head["full_output"]).read_bytes() == LOG


def test_a_bound_that_already_fits_changes_nothing(tmp_path):
    plain = cli("--basis", EN[0]["question"], "--spill-dir", str(tmp_path / "a"), input=DOC, check=True).stdout
    bounded = cli("--basis", EN[0]["question"], "--spill-dir", str(tmp_path / "a"), "--max-chars", "100000",
                  input=DOC, check=True).stdout
    assert bounded == plain.replace(b"P1", b"P2")


def test_budget_prunes_even_what_relevance_would_pass_through(tmp_path):
    env = {"TOOLPRUNE_SPILL_DIR": str(tmp_path)}
    tagged = "\n\n".join("Interstate report: " + p for item in EN[:2] for p in item["paragraphs"]).encode()
    assert cli("--basis", "the interstate report", input=tagged, env=env).stdout == tagged  # nothing_dropped
    proc = cli("--basis", "the interstate report", "--max-chars", "5000", input=tagged, env=env, check=True)
    assert len(proc.stdout.decode()) <= 5000 and "only to fit the output limit" in proc.stdout.decode()
    assert restore(proc.stdout, env) == tagged


def test_fit_presets():
    assert FITS["claude"] == {"max_chars": 30_000}
    assert FITS["codex"] == {"max_bytes": 10_240, "max_lines": 256}
    proc = cli("--basis", "why did the build fail?", "--fit", "codex", input=LOG, check=True)
    assert len(proc.stdout) <= 10_240 and proc.stdout.count(b"\n") < 256
    assert cli("--fit", "vim", "--basis", "x y z", input=LOG).returncode == 2


def test_json_is_never_cut_and_says_so(tmp_path):
    data = (Path(__file__).parent / "golden" / "json_mcp_tools_list_pretty" / "input.bin").read_bytes()
    proc = cli("--basis", "How do I create a pull request?", "--max-chars", "2000", input=data,
               env={"TOOLPRUNE_SPILL_DIR": str(tmp_path)})
    assert proc.returncode == 0 and json.loads(proc.stdout) and b"over the 2,000-char bound" in proc.stderr


@pytest.mark.parametrize("bound", [("--fit", "codex"), ("--max-chars", "3000"), ("--max-lines", "20")])
def test_a_tight_bound_on_a_document_keeps_the_best_units_it_can_hold(tmp_path, bound):
    """Under a bound smaller than what relevance keeps, the output is filled with the best units
    (not emptied into one marker): the answer's paragraph stays and most of the bound is used."""
    env = {"TOOLPRUNE_SPILL_DIR": str(tmp_path)}
    item = EN[0]
    doc = document(EN).encode()
    gold = [item["paragraphs"][g] for g in item["gold"]]
    proc = cli("-v", "--threshold", "0.01", "--basis", item["question"], *bound, input=doc, env=env, check=True)
    out = proc.stdout.decode()
    assert b"outcome=ok" in proc.stderr and b"budget=" in proc.stderr
    assert any(g in out for g in gold), "the best unit was dropped"
    if bound[0] == "--max-chars":
        assert 0.5 * 3000 < len(out) <= 3000
    elif bound[0] == "--max-lines":
        assert out.count("\n") + 1 <= 20
    else:
        assert len(proc.stdout) <= 10_240 and out.count("\n") < 256 and len(proc.stdout) > 5_000
    assert restore(proc.stdout, env) == doc


def test_a_bound_holds_when_relevance_alone_would_save_too_little(tmp_path):
    # a real Japanese man page (exports(5)) all about the request: the cut saves under 25 % and
    # the whole page (19,902 bytes) would pass through, over codex's 10,240-byte bound
    case = Path(__file__).resolve().parent.parent / "bench" / "realout" / "cases" / "ja-man-exports-client-root-stays-root"
    data = (case / "input.bin").read_bytes()
    basis = json.loads((case / "case.json").read_text(encoding="utf-8"))["request"]
    env = {"TOOLPRUNE_SPILL_DIR": str(tmp_path)}
    assert len(data) > 10_240 and b"outcome=below_floor" in cli("-v", "--basis", basis, input=data, env=env).stderr
    proc = cli("-v", "--basis", basis, "--fit", "codex", input=data, env=env, check=True)
    assert b"outcome=ok" in proc.stderr and len(proc.stdout) <= 10_240 and proc.stdout.count(b"\n") < 256
    assert restore(proc.stdout, env) == data


PYTEST3 = (Path(__file__).parent / "fixtures" / "logs" / "pytest_three_failures.txt").read_bytes()
GCC_LOG = (Path(__file__).parent / "fixtures" / "logs" / "gcc_warnings_and_error.txt").read_bytes()


@pytest.mark.parametrize("limit", [1500, 1200])
def test_a_bound_keeps_the_failure_the_request_names_before_the_others(tmp_path, limit):
    """Three tests fail; the request asks about the first. Under a bound that cannot hold all
    three tracebacks, the one asked about stays and the others give way (the summary names them)."""
    env = {"TOOLPRUNE_SPILL_DIR": str(tmp_path)}
    proc = cli("--basis", "why does test_parse_port fail with the ValueError?", "--max-chars", str(limit),
               input=PYTEST3, env=env, check=True)
    out = proc.stdout.decode()
    assert len(out) <= limit
    assert '>       assert parse_port("localhost:80a") == 80' in out
    assert "FAILED test_three.py::test_cache_eviction - assert 9 == 10" in out  # the tail
    assert "JSONDecodeError: Expecting property name" not in out  # another test's traceback gave way
    assert restore(proc.stdout, env) == PYTEST3


def test_the_threshold_reported_is_the_one_a_located_failure_was_cut_at():
    proc = cli("-v", "--basis", "why does test_parse_port fail?", input=PYTEST3, check=True)
    assert b" threshold=0.5 " in proc.stderr
    explained = cli("--explain-json", "--basis", "why does test_parse_port fail?", input=PYTEST3, check=True)
    rows = [json.loads(line) for line in explained.stderr.decode().splitlines() if line.startswith("{")]
    assert rows and {row["threshold"] for row in rows} == {0.5}


@pytest.mark.parametrize(
    ("bound", "said"),
    [(("--max-lines", "100"), b"over the 100-line bound:"), (("--fit", "codex"), b"over the 10,240-byte and 256-line bounds:")],
)
def test_a_bound_json_cannot_keep_is_named_whichever_it_is(tmp_path, bound, said):
    """JSON is never cut to a bound: a line or byte bound it misses is said as such (not only
    a character bound)."""
    data = json.dumps([{"k": i, "v": "x" * 50} for i in range(400)], indent=1).encode()
    proc = cli("--basis", "what are the xxxx values", *bound, input=data, env={"TOOLPRUNE_SPILL_DIR": str(tmp_path)})
    assert proc.returncode == 0 and proc.stdout == data and said in proc.stderr


def test_a_request_too_thin_to_judge_is_still_held_to_the_bound(tmp_path):
    """"continue" says nothing to judge by; the bound still holds: the log's tail and signal
    blocks first, then its earliest blocks, every drop restorable."""
    env = {"TOOLPRUNE_SPILL_DIR": str(tmp_path)}
    proc = cli("-v", "--basis", "continue", "--max-chars", "5000", input=LOG, env=env, check=True)
    out = proc.stdout.decode()
    assert len(out) <= 5000 and "were dropped only to fit the output limit" in out
    assert out.rstrip().endswith(LOG.decode().rstrip().splitlines()[-1])
    assert restore(proc.stdout, env) == LOG
    assert cli("--basis", "continue", input=LOG, env=env).stdout == LOG  # no bound: passed through


def test_a_bound_keeps_how_the_named_test_failed_though_those_lines_hold_no_request_word(tmp_path):
    """The request names the middle test; its ``E json.decoder.JSONDecodeError`` line shares no
    word with it and comes blocks after the test's header: it goes with the header."""
    env = {"TOOLPRUNE_SPILL_DIR": str(tmp_path)}
    proc = cli("--basis", "why does test_config_loader fail?", "--max-chars", "1500", input=PYTEST3, env=env,
               check=True)
    out = proc.stdout.decode()
    assert len(out) <= 1500 and "test_config_loader ___" in out
    assert "E           json.decoder.JSONDecodeError: Expecting property name" in out
    assert "localhost:80a" not in out  # the first test's report gave way
    assert restore(proc.stdout, env) == PYTEST3


def test_every_bound_that_can_be_kept_is_kept_to_the_char(tmp_path):
    """The header says how many drops were only for the bound ("… (11 of them only to fit the
    output limit)"): the fill measures the header with those words, so the output never runs a
    few characters past the bound."""
    env = {"TOOLPRUNE_SPILL_DIR": str(tmp_path)}
    for limit in range(1000, 2000, 10):
        proc = cli("--basis", "why does test_user_lookup fail", "--max-chars", str(limit), input=PYTEST3, env=env)
        out = proc.stdout.decode()
        assert b"over the" in proc.stderr or len(out) <= limit, limit


def test_a_log_whose_markers_alone_are_over_the_bound_still_keeps_its_failure(tmp_path):
    """The real gcc log's warnings repeated 200 times around its one error (3.7 MB): cut into
    markers of at most 20,000 chars, the markers alone were over --max-chars 10000 and the output
    was all markers, the error gone. Then one marker covers each stretch (omitted asks for a
    narrower range of it) and the error stays."""
    lines = GCC_LOG.decode().split("\n")
    main = lines.index("many.c: In function ‘main’:")
    warnings, tail = lines[:main], lines[main:]
    log = "\n".join(warnings * 100 + tail[:4] + warnings * 100 + tail[4:]).encode()
    env = {"TOOLPRUNE_SPILL_DIR": str(tmp_path)}
    proc = cli("--basis", "why did the build fail", "--max-chars", "10000", input=log, env=env, check=True)
    out = proc.stdout.decode()
    assert len(out) <= 10_000 and b"over the" not in proc.stderr
    assert "many.c:364:17: error: implicit declaration of function ‘compute_total’" in out
    assert out.rstrip().endswith("cc1: some warnings being treated as errors")


def test_a_thin_request_holds_a_log_whose_lines_start_with_a_bracket_to_the_bound(tmp_path):
    """Only JSON that parses escapes the bound: a log of ``[timestamp] …`` lines or of JSON Lines
    starts like JSON and is still cut to fit."""
    env = {"TOOLPRUNE_SPILL_DIR": str(tmp_path)}
    bracketed = "".join(f"[2024-05-01 12:00:{i % 60:02d}] INFO worker {i % 7} done\n" for i in range(3000)).encode()
    json_lines = "".join(json.dumps({"ts": i, "msg": f"batch {i}"}) + "\n" for i in range(3000)).encode()
    for log in (bracketed, json_lines):
        proc = cli("--basis", "continue", "--max-chars", "3000", input=log, env=env, check=True)
        assert len(proc.stdout.decode()) <= 3000 and restore(proc.stdout, env) == log
    data = json.dumps([{"k": i, "v": "x" * 50} for i in range(400)], indent=1).encode()
    proc = cli("--basis", "continue", "--max-chars", "3000", input=data, env=env)
    assert proc.stdout == data and b"over the 3,000-char bound" in proc.stderr


def test_a_failure_under_a_bound_says_one_line(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    proc = cli("--basis", "why did the build fail?", "--max-chars", "3000", "--spill-dir", str(blocker / "d"), input=LOG)
    assert proc.returncode == 0 and proc.stdout == LOG
    assert proc.stderr.decode().count("\n") == 1 and b"spill" in proc.stderr


def test_a_unit_over_the_omitted_limit_dropped_to_fit_comes_back_through_its_marker(tmp_path):
    """A 40,000-char line (a minified bundle, a long assertion message) cannot fit ``--fit codex``
    and is dropped; its marker names it alone, and ``omitted`` returns it whole: the output
    rebuilds the input exactly. It was refused as over the 20,000-char limit of one call."""
    long_line = "var a=" + ",".join(f"k{i}:{i}" for i in range(6_000)) + ";"
    assert len(long_line) > 40_000
    data = ("A bundle.\n\n" + long_line + "\n\nThe end of the bundle.\n").encode()
    env = {"TOOLPRUNE_SPILL_DIR": str(tmp_path)}
    proc = cli("--fit", "codex", "--basis", "what does the bundle export?", input=data, env=env, check=True)
    assert len(proc.stdout) < 10_240 and MARKER.search(proc.stdout.decode())
    assert restore(proc.stdout, env) == data

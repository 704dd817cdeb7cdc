"""Blocks that only list tests that passed, in a log whose failure was located: dropped whatever
they score, unless the request names one of them or asks about tests that passed."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import cli, restore
from toolprune.core import passing

TESTS = '''
import unittest
import pytest

@pytest.mark.parametrize("n", range(150))
def test_parser_accepts_label(n):
    assert n >= 0

@pytest.mark.parametrize("n", range(20))
def test_widget_draws_frame(n):
    assert n >= 0

@pytest.mark.skip(reason="needs the resolver")
def test_resolver_lookup():
    pass

@pytest.mark.parametrize("n", range(20))
def test_widget_draws_border(n):
    assert n >= 0

@pytest.mark.parametrize("n", range(150))
def test_failed_input_assertion_is_reported_with_its_input(n):
    assert n >= 0

def test_label_length_limit():
    assert len("a" * 64) <= 63, "labels are at most 63 characters"

class WidgetTests(unittest.TestCase):
    def test_widget_renders(self):
        self.assertTrue(True)
'''


@pytest.fixture(scope="module")
def pytest_log(tmp_path_factory) -> bytes:
    """A real ``pytest -v`` run: 341 tests that pass, one that fails, one skipped. Half the passing
    tests' ids hold the words of a request about the failure ("failed", "input", "assertion")."""
    folder = tmp_path_factory.mktemp("suite")
    (folder / "test_labels.py").write_text(TESTS)
    (folder / "pytest.ini").write_text("[pytest]\n")
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", "-p", "no:xdist", "-p", "no:randomly",
         "test_labels.py"],
        cwd=folder, capture_output=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stdout[-2000:]
    return proc.stdout


def _run(log: bytes, basis: str, tmp_path) -> tuple[str, list[dict]]:
    env = {"TOOLPRUNE_SPILL_DIR": str(tmp_path / "spill")}
    proc = cli("--basis", basis, "--explain-json", input=log, env=env)
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stderr.decode().splitlines() if line.startswith("{")]
    assert proc.stdout == log or restore(proc.stdout, env=env) == log
    return proc.stdout.decode(), rows


def test_a_request_about_the_failure_drops_the_tests_that_passed(pytest_log, tmp_path):
    out, rows = _run(pytest_log, "which label assertion failed and on what input?", tmp_path)
    assert '>       assert len("a" * 64) <= 63' in out and "FAILED test_labels.py::test_label_length_limit" in out
    assert out.count(" PASSED ") < 60  # of 301: only the blocks pinned around the failure and the tail
    assert any(r["decision"] == "passing" for r in rows)


def test_without_the_rule_the_same_request_keeps_the_passing_tests(pytest_log, tmp_path, monkeypatch):
    """The rule is what drops them: the test ids share the request's words."""
    monkeypatch.setattr(passing, "applies", lambda basis: False)
    out, _ = _run(pytest_log, "which label assertion failed and on what input?", tmp_path)
    assert out.count("test_failed_input_assertion_is_reported_with_its_input[") == 150


def test_a_test_the_request_names_is_kept(pytest_log, tmp_path):
    out, _ = _run(pytest_log, "which label assertion failed, and what about test_parser_accepts_label[123]?", tmp_path)
    assert "test_labels.py::test_parser_accepts_label[123] PASSED" in out


def test_a_request_about_a_skipped_test_keeps_its_line(pytest_log, tmp_path, monkeypatch):
    basis = "the label length limit assertion failed with what message about 63 characters, and which test got skipped?"
    line = "test_labels.py::test_resolver_lookup SKIPPED (needs the resolver)"
    out, _ = _run(pytest_log, basis, tmp_path)
    assert line in out and '>       assert len("a" * 64) <= 63' in out
    monkeypatch.setattr(passing, "asks_skipped", lambda basis: False)  # "skipped" alone scores under half the best
    assert line not in _run(pytest_log, basis, tmp_path)[0]


@pytest.mark.parametrize(
    "line",
    ["tests/test_core.py::test_c_extension_parity SKIPPED (C extension not built) [ 24%]",
     "tests/test_x.py::test_y[1] XFAIL (known bug)", "SKIPPED [1] tests/test_x.py:12: needs the network",
     "test_lookup (test_dns.ResolverTests.test_lookup) ... skipped 'needs the network'",
     "test_old (test_api.Tests.test_old) ... expected failure", "    --- SKIP: TestResolve (0.00s)"],
)
def test_lines_of_skipped_tests(line):
    assert passing.skipped("before\n" + line + "\nafter")


def test_a_long_test_id_is_read_in_linear_time():
    """A block of ``x::x::…`` lines once took seconds each: the pattern looked for the id's end
    from every ``::``. 72,000 chars now take well under a millisecond; the bound is generous."""
    import time

    line = "x::" * 24_000 + " SKIPPED"
    started = time.perf_counter()
    assert passing.skipped(line) and not passing.skipped("x::" * 24_000)
    assert time.perf_counter() - started < 1.0


@pytest.mark.parametrize(
    ("basis", "asks"),
    [("which test got skipped?", True), ("why are 3 tests skipped", True), ("xfail のテストは？", True),
     ("スキップされたテストは？", True), ("which test failed?", False), ("skipper config", False)],
)
def test_a_request_about_skipped_tests(basis, asks):
    assert passing.asks_skipped(basis) is asks


def test_a_request_about_tests_that_passed_keeps_them(pytest_log, tmp_path):
    out, rows = _run(pytest_log, "which label tests passed?", tmp_path)
    assert not any(r["decision"] == "passing" for r in rows)
    assert out.count(" PASSED ") > 200


@pytest.mark.parametrize(
    "line",
    [
        "tests/test_idna.py::IDNATests::testIDNTLDALabels PASSED                   [  0%]",
        "test_labels.py::test_parser_accepts_label[7] PASSED                      [  2%]",
        "tests/test_x.py::test_y[a b-c] PASSED",
        "tests/test_idna_errors.py::ErrorAttributeTests::test_attributes_are_populated ",
        "tests/test_cli.py ........................................               [ 40%]",
        "test_widget_renders (test_demo.WidgetTests.test_widget_renders) ... ok",
        "test parser::tests::accepts_label ... ok",
        "--- PASS: TestParse (0.00s)",
        "=== RUN   TestParse/label",
        "ok  \texample.com/idna\t0.012s",
        "ok  \texample.com/idna\t(cached)",
        "    \u2713 renders the widget (5 ms)",
        "  \u221a parses labels",
    ],
)
def test_lines_of_tests_that_passed(line):
    assert passing.only_passing([line, "", line])


@pytest.mark.parametrize(
    "line",
    [
        "tests/test_idna.py::IDNATests::test_valid_label_length FAILED                [ 22%]",
        "tests/test_x.py::test_y SKIPPED (no network)                             [ 50%]",
        "tests/test_click.py::test_group_chaining XFAIL                          [ 60%]",
        "tests/test_x.py::test_z ERROR",
        "tests/test_cli.py ....F...                                             [ 40%]",
        "test_widget_renders (test_demo.WidgetTests.test_widget_renders) ... FAIL",
        "test parser::tests::accepts_label ... FAILED",
        "--- FAIL: TestParse (0.00s)",
        "FAIL\texample.com/idna\t0.012s",
        "    \u2715 renders the widget (5 ms)",
        "E       AssertionError: False is not true",
        "collecting ... collected 110 items",
        "tests/" + "a::" * 300,  # longer than any test id
    ],
)
def test_lines_that_are_not_a_passing_test(line):
    assert not passing.only_passing(["tests/test_a.py::test_b PASSED", line])


def test_a_block_of_blank_lines_is_not_a_block_of_passing_tests():
    assert not passing.only_passing(["", "  ", "\r\n"])


def test_names_are_the_words_of_the_request_that_look_like_code():
    got = passing.names("Did test_parser_accepts_label[3] or tests/test_idna.py fail? Why is WidgetTests red, and os.path?")
    assert got == ["test_parser_accepts_label[3", "tests/test_idna.py", "widgettests", "os.path"]
    assert passing.names("which assertion failed and why") == []


@pytest.mark.parametrize(
    "basis, applies",
    [("which assertion failed?", True), ("why is CI red", True), ("which tests passed?", False),
     ("did anything pass", False), ("list the successful tests", False), ("what succeeded", False),
     ("成功したテストは？", False), ("失敗したテストは？", True), ("is it green", False), ("compass bearing", True)],
)  # fmt: skip
def test_the_rule_does_not_apply_to_a_request_about_tests_that_passed(basis, applies):
    assert passing.applies(basis) is applies


@pytest.mark.parametrize(
    "basis, applies",
    [("which tests did not fail?", False), ("which tests didn't fail", False), ("通過したテストは？", False),
     ("テストはパスした？", False), ("why did the password check fail?", True), ("why was the deploy unsuccessful?", True),
     ("このファイルパスのエラーは？", True), ("does the passphrase prompt hang", True)],
)  # fmt: skip
def test_tests_that_did_not_fail_are_tests_that_passed_and_a_password_is_not(basis, applies):
    """A request about the tests that did not fail asks about the ones that passed; "password",
    "unsuccessful" and パス for a file path (ファイルパス) do not."""
    assert passing.applies(basis) is applies


def test_a_block_the_request_names_is_not_quiet():
    block = "tests/test_a.py::test_parser PASSED\ntests/test_a.py::test_widget PASSED\n"
    assert passing.quiet(block, [])
    assert not passing.quiet(block, ["test_widget"])
    assert not passing.quiet(block, ["tests/test_a.py"])
    assert passing.quiet(block, ["test_other"])


def test_the_edges_of_a_passing_line():
    line = "tests/test_a.py::test_" + "b" * (passing.MAX_LINE - 36) + " PASSED [ 50%]"
    assert len(line) == passing.MAX_LINE
    assert passing.only_passing([line + "\n"]) is True  # the line break is not counted
    assert passing.only_passing([line + "b"]) is False  # one character longer
    assert passing.only_passing([line + "     "]) is False  # trailing blanks count towards the length
    assert passing.only_passing(["tests/a.py::X"]) is True
    assert passing.only_passing(["", " "]) is False
    assert passing.only_passing(["tests/a.py::test_b PASSED", "", "E   AssertionError"]) is False


def test_a_block_with_a_failure_is_never_quiet():
    assert passing.quiet("E   AssertionError: False is not true\n", []) is False


def test_the_edges_of_a_name():
    assert passing.names("a_bc a_b") == ["a_bc"]
    assert passing.names("XLXL sizes") == []
    assert passing.names("test_fooX") == ["test_foox"]

"""CI steps and test-runner summaries in line blocks (toolprune.core.steps, issue 17)."""

from __future__ import annotations

import subprocess
import sys

from toolprune.core import lines
from toolprune.core.lines import pinned, split_lines


def kept(text: str, tail: int = 0) -> str:
    units, lines = split_lines(text, tail)
    return "".join(text[units[i].start : units[i].end] + "\n" for i in sorted(pinned(text, units, lines, tail, None)))


def gh(lines: list[str]) -> str:
    return "".join(f"2026-12-01T19:40:{k // 1000 % 60:02d}.{k:07d}Z {line}\n" for k, line in enumerate(lines))


NOISE = [f"  noise line {k} of a step, nothing to see" for k in range(120)]


def test_failing_github_step_is_pinned_whatever_words_it_uses():
    text = gh(
        ["##[group]Run npm ci", "shell: /usr/bin/bash -e {0}", "##[endgroup]", *NOISE,
         "├── es-errors@1.3.0 deduped", "├── is-error@2.2.2", *NOISE,
         "##[group]Run ruff format --check src", "shell: /usr/bin/bash -e {0}", "##[endgroup]",
         "Would reformat: src/a.py", *NOISE, "Would reformat: src/b.py", "2 files would be reformatted",
         "##[error]Process completed with exit code 1.", "Post job cleanup.", *NOISE[:30]]
    )  # fmt: skip
    out = kept(text)
    assert "Run ruff format --check src" in out  # the failing step's header
    assert "Would reformat: src/a.py" in out  # its first output, no error word in it
    assert "2 files would be reformatted" in out and "exit code 1." in out  # its last lines
    assert "es-errors" not in out and "is-error" not in out  # a step that succeeded pins nothing


def test_travis_command_that_exited_non_zero_is_pinned():
    text = "".join(
        ["travis_fold:start:install\r\x1b[0K$ npm ci\n", *(n + "\n" for n in NOISE), "error-ex@1.3.2\n",
         "travis_fold:end:install\r\x1b[0K$ npm test\n", *(n + "\n" for n in NOISE),
         "# -a -- b\n", "not ok 34 should be deeply equivalent\n", *(n + "\n" for n in NOISE),
         "# tests 153\n", "# pass  148\n", "# fail  5\n", *(n + "\n" for n in NOISE),
         'The command "npm test" exited with 1.\n', "\n", "Done. Your build exited with 1.\n"]
    )  # fmt: skip
    out = kept(text)
    assert "$ npm test" in out and 'The command "npm test" exited with 1.' in out
    assert "# -a -- b" in out and "not ok 34" in out  # the failing test and its name
    assert "# tests 153" in out and "# pass  148" in out
    assert "error-ex" not in out  # the install step succeeded


def test_pytest_first_failure_and_summary_are_pinned():
    case = ["    def test_x():", *[f"        step_{k}()" for k in range(60)], ">       assert f(1) == 2",
            "E       assert 1 == 2", "", "tests/test_a.py:70: AssertionError"]  # fmt: skip
    text = "\n".join(
        ["$ python -m pytest", *[f"tests/test_a.py::test_{k} PASSED" for k in range(200)],
         "=================================== FAILURES ===================================",
         "___________________________________ test_x ___________________________________", *case,
         "___________________________________ test_y ___________________________________", *case,
         "=========================== short test summary info ============================",
         "FAILED tests/test_a.py::test_x - assert 1 == 2", "FAILED tests/test_a.py::test_y - assert 1 == 2",
         "========================= 2 failed, 200 passed in 1.2s =========================",
         *NOISE[:50]]
    )  # fmt: skip
    out = kept(text)
    for line in ("_ test_x _", "_ test_y _", "tests/test_a.py:70: AssertionError", "short test summary info",
                 "2 failed, 200 passed"):  # fmt: skip
        assert line in out
    assert "test_150 PASSED" not in out


def test_eslint_error_keeps_its_file_line():
    text = "\n".join(
        ["$ npx eslint .", *NOISE, "/src/index.js", *[f"  {k}:1  warning  No magic number: 1  no-magic-numbers" for k in range(60)],
         "  14:44  error    Strings must use singlequote  quotes", *NOISE, "✖ 61 problems (1 error, 60 warnings)"]
    )  # fmt: skip
    out = kept(text)
    assert "/src/index.js" in out and "14:44  error" in out and "61 problems" in out


def test_a_long_single_token_line_is_scanned_in_linear_time():
    """Linear here is a few milliseconds, a quadratic scan takes minutes: the scan runs in a
    process of its own that must finish within a minute (a bound, not a measurement)."""
    script = (
        "from toolprune.core.lines import pinned, split_lines\n"
        "text = 'start\\n' + '2026-12-01T19:40:00.0000000Z ' + 'a' * 1_000_000 + '\\n' + '$ make\\n' * 300 + 'end\\n'\n"
        "units, lines = split_lines(text, 20)\n"
        "pinned(text, units, lines, 20, None)\n"
        "print('done')\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=60)
    assert proc.stdout == b"done\n", proc.stderr


def test_travis_lines_after_an_erase_code_start_steps():
    # a Travis log whose carriage returns became line breaks: "\x1b[0K$ gulp build" starts the step
    text = "".join(
        ["\x1b[0Ktravis_fold:start:install\n", "\x1b[0K$ npm install\n", *(n + "\n" for n in NOISE),
         "\x1b[0Ktravis_time:start:001ccedb\n", "\x1b[0K$ gulp build\n", "/build/gulp-tasks/serve.js:31\n",
         "    console.log(`Serving`, );\n", *(n + "\n" for n in NOISE), "\x1b[31;1mThe command \"gulp build\" exited with 1.\x1b[0m\n"]
    )  # fmt: skip
    out = kept(text)
    assert "$ gulp build" in out and "/build/gulp-tasks/serve.js:31" in out


def test_pytest_report_source_lines_pin_nothing_but_errors_do():
    listing = [f"    def helper_{k}(x):\n        raise ParseError('failed to parse {k}')" for k in range(40)]
    text = "\n".join(
        ["$ pytest", *NOISE, "=================================== FAILURES ===================================",
         "___________________________________ test_x ___________________________________", *listing,
         ">       assert helper(1) == 2", "E       ValueError: bad input 1", "", "tests/test_a.py:70: ValueError",
         "=========================== short test summary info ============================",
         "FAILED tests/test_a.py::test_x - ValueError: bad input 1", "========== 1 failed in 0.1s ==========",
         *NOISE[:40]]
    )  # fmt: skip
    out = kept(text)
    assert "E       ValueError: bad input 1" in out and "tests/test_a.py:70: ValueError" in out
    assert "failed to parse 20" not in out  # the listing's own words are not the failure


def test_a_list_of_like_findings_keeps_its_first_ones_and_its_last():
    text = gh(
        ["##[group]Run ruff format --check src", "##[endgroup]", *NOISE[:10],
         *[line for k in range(30) for line in (f"Would reformat: src/m{k}.py", *NOISE[:8])],
         "30 files would be reformatted", "##[error]Process completed with exit code 1.", *NOISE]
    )  # fmt: skip
    out = kept(text)
    assert "src/m0.py" in out and "src/m4.py" in out and "src/m29.py" in out
    assert "src/m15.py" not in out


def test_a_located_failure_raises_the_bar_for_other_blocks():
    located = gh(["##[group]Run make", "##[endgroup]", *NOISE, "##[error]Process completed with exit code 2.", *NOISE])
    plain = "\n".join(NOISE * 3)
    split_lines(located, 20)
    assert lines.located_threshold(located) == lines.LOCATED_THRESHOLD > 0.2
    split_lines(plain, 20)
    assert lines.located_threshold(plain) == 0.0


def test_cargo_failures_keep_each_panic_and_warnings_of_a_named_failure_pin_nothing():
    warning = ["warning: unexpected `cfg` condition name: `doc_cfg`", "  --> src/lib.rs:64:13", "   |",
               "64 | #![cfg_attr(doc_cfg, feature(doc_cfg))]", "   = note: `#[warn(unexpected_cfgs)]` on by default", ""]  # fmt: skip
    text = gh(
        ["##[group]Run cargo test", "##[endgroup]", *NOISE[:20], *(warning * 10), *NOISE[:60], "failures:", "",
         "---- test_less_than stdout ----", "", "thread 'test_less_than' panicked at tests/req.rs:102:5:",
         "did not match 2.1.0-alpha2", *NOISE[:30],
         "---- test_multiple stdout ----", "", "thread 'test_multiple' panicked at tests/req.rs:122:5:",
         "did not match 2.5.3", *NOISE[:30],
         "test result: FAILED. 17 passed; 2 failed; 0 ignored", "error: test failed, to rerun pass `--test req`",
         *NOISE[:40], "##[error]Process completed with exit code 101.", "Post job cleanup."]
    )  # fmt: skip
    out = kept(text)
    assert "did not match 2.1.0-alpha2" in out and "did not match 2.5.3" in out
    assert "test result: FAILED" in out and "exit code 101" in out
    assert "doc_cfg" not in out


def test_a_bound_keeps_the_failing_step_header_before_other_signal_blocks():
    from toolprune.core.models import Options
    from toolprune.core.pipeline import plan
    from toolprune.scorers import get_scorer

    errors = [f"src/m{k}.js({k},1): error TS2339: Property 'x{k}' does not exist on type '{{}}'." for k in range(400)]
    text = gh(["##[group]Run npm ci", "##[endgroup]", *NOISE, "##[group]Run npx tsc --noEmit", "##[endgroup]", *errors,
               "##[error]Process completed with exit code 2.", "Post job cleanup."])  # fmt: skip
    p = plan(text.encode(), Options(basis="why did the build fail?", max_chars=10_000), get_scorer("lexical"))
    assert p.outcome == "ok" and p.budget_drops
    out = p.render(["P1"], "toolprune omitted")
    assert "Run npx tsc --noEmit" in out and "exit code 2." in out


def test_a_pattern_searched_by_its_part_is_compiled_only_where_the_part_was_found():
    # a fresh interpreter: the patterns are module state, compiled at most once per process
    code = (
        "from toolprune.core import lines, steps\n"
        "log = ''.join(f'##[group]Run step {i}\\nok {i}\\n' for i in range(300)) + '##[error]exit 1\\n'\n"
        "lines.split_lines(log)\n"
        "print(sum(p._first is None for p in steps._FINDS), len(steps._FINDS))\n"
        "print(lines.split_lines('x\\n' * 250 + 'test_a (m.T) ... FAIL\\n')[1][-1])\n"
        "print(sum(p._first is None for p in steps._FINDS))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[0] == "6 6"  # no part found: none compiled
    assert out[1] == "(251, 251)"  # the failing test's line, a block of its own (pinned)
    assert out[2] == "5"  # the one whose part was found


def test_a_short_first_pytest_report_is_pinned_whole():
    """The arguments a frame shows (``expected = '…'`` under a ``_ _ _`` rule) and the captured
    output carry no ``E`` or ``>`` mark, yet they are what differs; a first report of up to
    ``FIRST_REPORT_LINES`` lines is pinned whole, a later one only by its marks."""
    def report(name: str) -> list[str]:
        return [f"___________________________________ {name} ___________________________________", "",
                f"    def {name}():", "        expected = make_table()", ">       assert_equal(expected, render())", "",
                "tests/test_out.py:509: ", "_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _", "",
                f"expected = '| {name} |:---|'", f"result = '| {name} |----|'", "",
                "    def assert_equal(expected, result):", ">       assert expected == result", "E       AssertionError",
                "", "tests/common.py:9: AssertionError", "------------- Captured stdout call -------------",
                f"Got: '| {name} |----|'"]  # fmt: skip
    text = "\n".join(
        ["$ python -m pytest", *NOISE, "=================================== FAILURES ===================================",
         *report("test_github"), *report("test_grid"),
         "=========================== short test summary info ============================",
         "FAILED tests/test_out.py::test_github - AssertionError", "========== 2 failed in 0.1s ==========", *NOISE[:40]]
    )  # fmt: skip
    out = kept(text)
    assert "expected = '| test_github |:---|'" in out and "Got: '| test_github |----|'" in out
    assert "expected = '| test_grid |:---|'" not in out  # the second report: its header, marks and end
    assert "_ test_grid _" in out and "tests/common.py:9: AssertionError" in out


def test_a_report_past_the_cap_is_pinned_when_its_error_is_new_and_only_then():
    """The first ``MAX_REPORTS`` failing reports are pinned, but an error (a report's last ``E``
    line, numbers aside) only its first ``SAME_REPORTS`` times; after the cap a report is pinned (its
    header and last lines) only when its error ends no earlier report — and at most
    ``MAX_NEW_ERRORS`` of them: a hundred failures of one cause keep three, a different cause
    among them is not hidden."""
    from toolprune.core import steps

    def report(k: int, path: str, error: str) -> list[str]:
        return [f"_______________________________ test_case_{k} _______________________________", "",
                f"    def test_case_{k}():", ">       load()", f"E       {error}", "", f"{path}:{10 + k}: {error.split(':')[0]}"]  # fmt: skip

    first = steps.SAME_REPORTS + 2
    same = [line for k in range(first) for line in report(k, "tests/test_a.py", "ValueError: bad")]
    other = report(first, "tests/test_b.py", "KeyError: missing")  # within the cap, a different error
    more = [line for k in range(first + 1, steps.MAX_REPORTS + 5) for line in report(k, "tests/test_a.py", "ValueError: bad")]
    def named(k: int) -> str:  # a name for each k in letters (numbers are read alike)
        return "".join(chr(ord("a") + int(d)) for d in str(k))

    new = [line for k in range(100, 100 + steps.MAX_NEW_ERRORS + 3)
           for line in report(k, f"tests/test_{'m' * k}.py", f"ImportError: no module named {named(k)}")]
    again = report(200, "tests/test_a.py", "ValueError: bad")
    text = "\n".join(
        ["$ python -m pytest", *NOISE, "=================================== FAILURES ===================================",
         *same, *other, *more, *new, *again, "=========================== short test summary info ============================",
         "FAILED tests/test_a.py::test_case_0 - ValueError: bad", "========== 48 failed in 0.1s ==========", *NOISE[:40]]
    )  # fmt: skip
    out = kept(text)
    assert f"_ test_case_{steps.SAME_REPORTS - 1} _" in out  # the same error, its first times
    assert f"_ test_case_{steps.SAME_REPORTS} _" not in out  # once more: the reports before show it
    assert f"_ test_case_{first} _" in out and "tests/test_b.py:" in out  # a different error within the cap
    assert f"_ test_case_{steps.MAX_REPORTS} _" not in out  # past the cap, the same error again
    assert "_ test_case_100 _" in out and f"tests/test_{'m' * 100}.py:110: ImportError" in out  # a new one
    assert f"_ test_case_{100 + steps.MAX_NEW_ERRORS - 1} _" in out
    assert f"_ test_case_{100 + steps.MAX_NEW_ERRORS} _" not in out  # the bound on new ones
    assert "_ test_case_200 _" not in out


def test_reports_that_end_alike_but_fail_differently_are_each_pinned():
    """A report's error is its ``E`` line, not its last line: with pytest's default tracebacks
    every failed assertion of a file ends ``tests/test_a.py:NN: AssertionError``, and a fixture
    that prints ends every report with the same captured line. Eight different failures of one
    file keep their eight ``E`` lines (found by an audit: keyed by the last line, five went)."""
    from toolprune.core import steps

    errors = ["assert None == 'x'", "KeyError: 'missing'", "TypeError: object of type 'int' has no len()",
              "ZeroDivisionError: division by zero", "AttributeError: 'NoneType' object has no attribute 'upper'",
              "ModuleNotFoundError: No module named 'nope'", "ValueError: invalid literal for int(): 'abc'",
              "assert 'a' in 'bcd'"]  # fmt: skip
    assert len(errors) > steps.SAME_REPORTS
    reports = []
    for k, error in enumerate(errors):
        reports += [f"_______________________________ test_case_{k} _______________________________", "",
                    f"    def test_case_{k}():", ">       check()", f"E       {error}", "",
                    f"tests/test_a.py:{10 + k}: AssertionError", "----------------------------- Captured stdout setup -----------------------------",
                    "connecting to the fixture database"]  # fmt: skip
    text = "\n".join(
        ["$ python -m pytest", *NOISE, "=================================== FAILURES ===================================",
         *reports, "=========================== short test summary info ============================",
         *[f"FAILED tests/test_a.py::test_case_{k}" for k in range(len(errors))], "========== 8 failed in 0.1s ==========", *NOISE[:40]]
    )  # fmt: skip
    out = kept(text)
    assert all(f"E       {error}" in out for error in errors)


def test_a_hypothesis_reports_error_is_its_exception_not_its_falsifying_example():
    """Hypothesis ends every failing report with its falsifying example (``E   Failing test
    case: …`` down to ``E   )``): the error is the last ``E`` line that names an exception
    (textdistance's run, 43 failures of five missing libraries, kept one of them when every
    report's error was ``)``)."""
    from toolprune.core import steps

    libraries = ["numpy.fft", "pyxdameraulevenshtein.damerau", "jellyfish.jaro", "distance.hamming", "rapidfuzz.ratio"]
    assert len(libraries) > steps.SAME_REPORTS
    reports = []
    for k, lib in enumerate(libraries):
        reports += [f"______________________________ test_compare[{k}] ______________________________",
                    "tests/test_external.py:39: in test_compare", "    raise RuntimeError('cannot import')",
                    f"E   RuntimeError: cannot import {lib}", "E   Failing test case: test_compare(",
                    f"E       alg='Alg{k}',", "E       left='0',", "E   )"]  # fmt: skip
    text = "\n".join(
        ["$ python -m pytest", *NOISE, "=================================== FAILURES ===================================",
         *reports, "=========================== short test summary info ============================",
         *[f"FAILED tests/test_external.py::test_compare[{k}]" for k in range(len(libraries))],
         "========== 5 failed in 0.1s ==========", *NOISE[:40]]
    )  # fmt: skip
    out = kept(text)
    assert all(f"E   RuntimeError: cannot import {lib}" in out for lib in libraries)


def test_a_real_run_keeps_the_new_error_of_its_twenty_first_failure(tmp_path):
    """A real ``pytest -v -rA`` run of the tablib sdist without its format extras: 24 failures,
    the 21st to 24th the only ones to name the missing ``tabulate``. Asked what to install, the
    output keeps that error line and is restored byte for byte."""
    import json
    from pathlib import Path

    from conftest import cli, restore

    case = Path(__file__).parent / "fixtures" / "realout" / "ja-pytest-en-tablib-sdist-tests-missing-format-extras"
    data = (case / "input.bin").read_bytes()
    request = json.loads((case / "case.json").read_text(encoding="utf-8"))["request"]
    env = {"TOOLPRUNE_SPILL_DIR": str(tmp_path / "spill")}
    out = cli("--basis", request, input=data, env=env).stdout
    assert "You may want to install the tabulate package" in out.decode()
    assert len(out) < len(data) * 0.6
    assert restore(out, env=env) == data

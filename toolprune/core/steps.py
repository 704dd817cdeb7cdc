"""CI steps and test-runner summaries: which lines of a log say why it failed.

A CI log is a run of *steps* (a GitHub Actions ``##[group]Run …``, a Travis or GitLab ``$ cmd``,
a Gradle ``> Task``, a Maven goal, an npm script), and a failing job names the step that failed
(``##[error]Process completed with exit code 1.``, ``The command "…" exited with 1.``,
``ERROR: Job failed``, ``> Task :x FAILED``). :func:`analyse` finds them and returns

- the line ranges to **pin** (never drop): the failing step's header, the first lines of its
  output and its last lines up to the failure, whatever words they use (a formatter's
  ``Would reformat`` list has no error word); test-runner and linter summaries with the first
  failure's traceback; and
- the line ranges that belong to steps known to have **succeeded**, so that their own noise
  (``es-errors@1.3.0``, a retried download's ``error``) pins nothing.

Only linear scans: every pattern is anchored at a line start and has no nested repetition, so
a long line costs one pass.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable

from toolprune.core.logtext import LogText

# what may stand before a runner's own words on a line: a GitHub Actions timestamp, a Travis or
# GitLab fold/section marker ending in "\r\x1b[0K", ANSI colours
_PREFIX = (
    r"(?:\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z ?)?"
    r"(?:(?:travis_fold|travis_time|section_start|section_end):[^\r\n]{0,200}\r\x1b\[0K)?"
    r"(?:\x1b\[[0-9;]*[mK])*"
)
_ALL: list[_At] = []


class _At:
    """A pattern matched at line starts (after :data:`_PREFIX`). All of them are found in one
    pass: the union of their bodies after ``\n`` (the engine scans for the break at C speed
    instead of trying ``^`` at every character) gives the candidate lines, and each pattern is
    then tried on those lines alone."""

    __slots__ = ("body", "_first", "find", "literal")

    def __init__(self, body: str, find: str | None = None, literal: str = "") -> None:
        self.body = body
        self._first: re.Pattern[str] | None = None
        self.find = re.compile(find, re.M) if find else None
        """For a body that can start with almost anything: a part of it, searched alone."""
        self.literal = literal
        """The text every match of ``find`` starts with (found by ``str.find``, which skips ahead)."""
        if find:
            _FINDS.append(self)
        else:
            _ALL.append(self)

    @property
    def first(self) -> re.Pattern[str]:
        """The whole pattern at a line start, compiled on first use: a pattern searched by a
        part of it is only needed where that part was found, which in most logs is nowhere
        (compiling the five of them costs about 1 ms)."""
        if self._first is None:
            self._first = re.compile(_PREFIX + self.body, re.M)
        return self._first

    def lines(self, log: LogText) -> list[int]:
        """The lines (0-based) of ``log`` that start with this pattern."""
        found = log.found  # filled by one scan of the pieces (core/lines.py)
        if self.find is None:  # every pattern tries the same candidates: their texts are listed once
            candidates = found["candidates"]
            texts = found.get("candidate_texts")
            if texts is None:
                texts = found["candidate_texts"] = [_line(log, i) for i in candidates]
        else:
            candidates = sorted(found["finds"][self])
            texts = [_line(log, i) for i in candidates]
        if not candidates:  # nothing to try: the pattern is never compiled
            return []
        match = self.first.match
        return [i for i, text in zip(candidates, texts) if match(text)]


_FINDS: list[_At] = []


def _line(log: LogText, i: int) -> str:
    """Line ``i`` of ``log``, decoded once for all the patterns tried on it."""
    cache = log.found["lines"]
    line = cache.get(i)
    if line is None:
        line = cache[i] = log.line(i)
    return line


_union: list[re.Pattern[str] | None] = [None]


def piece_patterns() -> tuple[re.Pattern[str], Callable[[str], bool], list[_At]]:
    """What a scan of a log's pieces looks for on behalf of the steps: the union of the
    line-start patterns after a line break, a test for the first line of the text, and the
    patterns searched by a literal part (their matches' lines)."""
    union = _union[0]
    if union is None:
        # every body starts with one of these characters: other lines are passed over at once;
        # and before the prefix, a line must start with one of them or with what the prefix
        # starts with (a timestamp's digit, "travis_…" or "section_…", a colour code): a line
        # that starts otherwise costs one test instead of trying the prefix's optional parts
        union = _union[0] = re.compile(
            "\n(?=[\\d\x1bst#$\\[>=_\\-TEFmnePDCRStfpWu✖✗✘×])" + _PREFIX + "(?=[#$\\[>=_\\-TEFmnePDCRStfpWu✖✗✘×])(?:"
            + "|".join(f"(?:{p.body})" for p in _ALL)
            + ")",
            re.M,
        )
    return union, lambda text: any(p.first.match(text) for p in _ALL), _FINDS


# a step starts: a CI runner's step, or where there is none, a build tool's task or script
_STEP = _At(r"(?:##\[group\]Run |\$ |\[Pipeline\] \{ \()")
_TASK = _At(r"(?:> Task :|\[INFO\] --- |> [\w@./-]+@\S+ [\w:-]+$)")
# a step failed (a non-zero exit named by the runner or the build tool)
_FAILED = _At(
    r"(?:##\[error\]|The command \".{0,2000}?\" exited with [1-9]|ERROR: Job failed|> Task :\S+ FAILED"
    r"|\[ERROR\] Failed to execute goal|\[INFO\] BUILD FAILURE|FAILURE: Build failed|make(?:\[\d+\])?: \*\*\* "
    r"|npm ERR! code |npm error code |error: (?:could not compile|test failed|Recipe `)"
    r"|Error: Process completed with exit code [1-9])"
)
# the end of the job: later lines belong to no step
_JOB_END = _At(r"(?:Post job cleanup\.|Done\. Your build exited with |Cleaning up (?:project directory|orphan))")

# summaries: (start, stop) — pin from a start line to the first stop line after it (at most
# SUMMARY_LINES lines); a start alone (stop None) pins that line
_SUMMARIES = [
    (_At(r"=+ (?:short test summary info|FAILURES|ERRORS) =+\s*$"), None),
    (_At(r"(?:FAIL|ERROR): \S"), _At(r"(?:-{20,}|={20,})\s*$")),
    (_At(r"Ran \d+ tests? in "), None),
    (_At(r"[^\n]{0,300} \.\.\. (?:FAIL|ERROR)\r?$", find=r" \.\.\. (?:FAIL|ERROR)\r?$", literal=" ... "), None),
    (_At(r"# (?:tests|pass|fail) +\d+\s*$"), None),
    (_At(r"(?:Tests|Test Suites|Snapshots): +.{0,80}\d+ (?:failed|total)"), None),
    (_At(r"(?:Summary of all failing tests|failures:)\s*$"), None),
    (_At(r"test result: FAILED"), None),
    (_At(r"(?:--- FAIL: |FAIL\t|FAIL$|panic: )"), None),
    (_At(r"(?:\[ERROR\] )?Tests run: \d+, Failures: (?:[1-9]\d*, Errors: \d+|\d+, Errors: [1-9])"), None),
    (_At(r"\[ERROR\] (?:Failures|Errors|Failed tests|Tests in error):"), None),
    (_At(r"(?:✖ \d+ problems?|Found \d+ errors?|Would reformat: |Code style issues|\[warn\] Code style)"), None),
    (_At(r"\d+ problems? \(", find=r"problems? \(", literal="problem"), None),
    (_At(r"\d+ files? would be reformatted", find=r"would be reformatted", literal="would be reformatted"), None),
    (_At(r"(?:[✖✗✘×] |unformatted: |error\[)"), None),
    (_At(r"\S+\(\d+,\d+\): error TS\d+", find=r"\): error TS\d", literal="): error TS"), None),
]
# a C or C++ compiler's error (gcc, clang): ``src/a.c:12:5: error: …``, ``fatal error:``; the
# include chain and function above it, the source and caret lines below
# (a C++ header may have no extension or a "+" in its path: /usr/include/c++/12/type_traits:2240:11;
# with -fdiagnostics-color the parts are wrapped in colour codes, which end in "m" or "K")
_COLOURS = r"(?:\x1b\[[0-9;]*[mK])*"
_COMPILER_ERROR = _At(
    r"[\w./\\+-]+:\d+:(?:\d+:)?" + _COLOURS + " " + _COLOURS + r"(?:fatal )?error: ", find=r"error: ", literal="error: "
)
_COMPILER_CONTEXT = re.compile(
    _PREFIX + r"(?:In file included from |\s+from " + _COLOURS + r"[^\s:]+:\d+|[^\s:][^:]{0,300}:" + _COLOURS
    + r" In (?:function|member function|constructor|destructor|instantiation|static member function|lambda function))"
)
COMPILER_CONTEXT_LINES = 20
"""Lines above a compiler's error that may be its include chain and function (pinned with it)."""
COMPILER_SOURCE_LINES = 2
"""Lines below a compiler's error pinned with it: the source line and the caret under it."""
# the first failure's own report: a pytest ``___ test_x ___`` header after ``== FAILURES ==``
_PYTEST_FAILURES = _At(r"=+ (?:FAILURES|ERRORS) =+(?:\x1b\[[0-9;]*m)*[ \t\r]*$")
_ANSI_END = r"(?:\x1b\[[0-9;]*m)*[ \t\r]*$"
_PYTEST_CASE = _At(r"_{3,} [^\n]{1,300}? _{3,}" + _ANSI_END)
_PYTEST_SECTION_END = _At(r"={3,} [^\n]{1,300}? ={3,}" + _ANSI_END)
_PYTEST_MARK = re.compile(_PREFIX + r"(E |>  |[\w./\\-]+(?:\x1b\[[0-9;]*m)*:\d+: )")
_NOT_OK = _At(r"not ok \d+")
_CARGO_CASE = _At(r"---- \S+ stdout ----")
# an eslint-style error under its file's line: ``  14:44  error  message  rule``
_ESLINT_ERROR = _At(r"\s+\d+:\d+\s+error\s", find=r"  error  ", literal="  error  ")

STEP_HEAD_LINES = 4
"""Lines pinned from a failing step's header (a multi-line ``run:`` shows its first ones)."""
STEP_FIRST_LINES = 4
"""First lines of a failing step's own output that are pinned (what it printed first)."""
STEP_LAST_LINES = 12
"""Last lines of a failing step (up to and including the failure line) that are pinned."""
FIRST_FAILURE_LINES = 30
"""``E`` and ``>`` lines of the first failing test's report that are pinned."""
FIRST_REPORT_LINES = 60
"""A first failing test's report of at most this many lines is pinned whole: the frames' argument
lines (``expected = '…'`` under a ``_ _ _`` rule), its captured output and the source it shows
are what a question about the failure asks for, and they carry no ``E`` or ``>`` mark."""
CASE_LAST_LINES = 3
"""Last lines of each failing test's report that are pinned (its error and location)."""
CASE_E_LINES = 10
"""``E`` lines of every other failing test's report that are pinned."""
MAX_REPORTS = 20
"""Failing tests' reports pinned in full measure (header, last lines, marks): a run of a hundred
failures is usually one cause a hundred times."""
SAME_REPORTS = 3
"""Of the first ``MAX_REPORTS`` reports, those whose error (its exception's ``E`` line, numbers
aside: :func:`_error_of`) this many earlier reports already ended with are not pinned: 37 collection errors that all end
``ModuleNotFoundError: No module named 'pkg_resources'`` (a real ``tox`` run of Paste) pinned
every block of the log, which passed through whole; the first three show the cause, the test
summary names every test, and a report the request names still scores. On the real-output set
(2026-12-06, ``bench/eval_real.py``, 944 cases) that log is cut by 41 % and six other test runs
by 0.03–0.12 more (one by 0.03 less), no needed line lost; the labelled CI logs
(``bench/eval_logs.py``) are unchanged and the own logs (``bench/eval_ownlogs.py``) keep every
labelled line, 0.672 → 0.674. Keyed by the last line instead of the ``E`` line, eight different
failed assertions of one file (each ending ``test_x.py:NN: AssertionError``) kept three."""
MAX_NEW_ERRORS = 20
"""Reports past ``MAX_REPORTS`` whose error (:func:`_error_of`, numbers aside) no earlier
report ended with are pinned too, header and last lines, up to this many: a cap on repeats must not
hide a different failure (the 21st to 24th failures of tablib's tests, the only ones to name the
missing ``tabulate``, were cut at the located-failure threshold)."""
MAX_LISTED = 5
"""Of a list of one-line findings (``Would reformat: …``, ``not ok``), the first ones pinned."""
SUMMARY_LINES = 30


class Analysis:
    __slots__ = ("pins", "quiet", "steps", "located", "compiled")

    def __init__(self) -> None:
        self.pins: list[tuple[int, int]] = []
        """Line ranges (0-based, inclusive) that are never dropped."""
        self.quiet: list[tuple[int, int]] = []
        """Line ranges of steps that succeeded: their signal lines pin nothing."""
        self.steps: list[tuple[int, int, bool]] = []
        """Each step: its first and last line, and whether it failed."""
        self.located = False
        """Was the failure found: a failing step, or a test runner's or linter's summary?"""
        self.compiled = False
        """Did a compiler report an error (``a.c:3:5: error:``)? Then its ``file:line:col:
        warning:`` lines are not the failure."""


def _lines_of(pattern: _At, log: LogText) -> list[int]:
    return pattern.lines(log)


def analyse(log: LogText, n_lines: int) -> Analysis:
    """The failing steps, summaries and succeeded steps of a log (lines 0-based)."""
    out = Analysis()
    if n_lines <= 0:
        return out
    heads = sorted(set(_lines_of(_STEP, log))) or sorted(set(_lines_of(_TASK, log)))
    failures = sorted(set(_lines_of(_FAILED, log)))
    ends = _lines_of(_JOB_END, log)
    job_end = min([e for e in ends if not heads or e > heads[0]], default=n_lines) - 1
    pins = out.pins

    # steps: from each header to the line before the next (the last to the end of the job)
    steps = []
    for k, head in enumerate(heads):
        last = heads[k + 1] - 1 if k + 1 < len(heads) else max(head, job_end)
        steps.append((head, last))
    failed_any = False
    for head, last in steps:
        inside = failures[bisect_left(failures, head) : bisect_right(failures, last)]
        failed = bool(inside)
        out.steps.append((head, last, failed))
        if failed:
            failed_any = True
            stop = inside[-1]
            pins.append((head, min(head + STEP_HEAD_LINES - 1, stop)))
            body = _body_start(log, head, stop)
            pins.append((body, min(body + STEP_FIRST_LINES - 1, stop)))
            pins.append((max(head, stop - STEP_LAST_LINES + 1), stop))
            pins.extend((f, f) for f in inside)
    if failed_any:  # the log names its failures: steps without one succeeded
        out.quiet = [(head, last) for head, last, failed in out.steps if not failed]
    elif failures:  # failures outside any step: their last lines
        for f in failures:
            pins.append((max(0, f - STEP_LAST_LINES + 1), f))

    before = len(pins)
    compiler_errors = _lines_of(_COMPILER_ERROR, log)
    _summaries(log, n_lines, pins, out.quiet, compiler_errors)
    out.located = failed_any or len(pins) > before
    out.compiled = bool(compiler_errors)
    return out


_ENDGROUP = re.compile(_PREFIX + r"##\[endgroup\]")


_E_LINE = re.compile(_PREFIX + r"E  ")
_E_ERROR = re.compile(_PREFIX + r"E\s+(?:[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning|Failure)\b|assert\b)")


def _error_of(log: LogText, case: int, last: int) -> str:
    """What a failing test's report (lines ``case``..``last``) ends in error: its last ``E``
    line that names an exception or an assertion (``E   ModuleNotFoundError: No module named
    'x'``, ``E   assert None == 'x'``), else its last ``E`` line, else its last line. The last line
    alone is often the location (``test_x.py:12: AssertionError``, the same for every failed
    assertion of a file) or a line of captured output, the same for every test that prints it;
    the last ``E`` line of a Hypothesis test is the ``)`` closing its falsifying example."""
    fallback = None
    for i in range(last, case, -1):
        line = _line(log, i)
        if _E_LINE.match(line):
            if _E_ERROR.match(line):
                return line
            fallback = fallback or line
    return fallback or _line(log, last)


def _body_start(log: LogText, head: int, stop: int) -> int:
    """The first line a step printed: after its ``##[endgroup]`` when the header is a group."""
    for i in range(head + 1, min(stop, head + 40) + 1):
        if _ENDGROUP.match(_line(log, i)):
            return min(i + 1, stop)
    return min(head + 1, stop)


def _summaries(
    log: LogText, n_lines: int, pins: list[tuple[int, int]], quiet: list[tuple[int, int]], compiler_errors: list[int]
) -> None:
    for start, stop in _SUMMARIES:
        lines = _lines_of(start, log)
        if stop is None:  # one line each; a long list of them keeps its first ones and its last
            pins.extend((i, i) for i in lines[:MAX_LISTED] + lines[-1:])
            continue
        stops = _lines_of(stop, log)
        for i in lines[:20]:  # the first reports (a hundred FAIL: blocks are not all needed)
            k = bisect_right(stops, i)
            end = stops[k] - 1 if k < len(stops) else n_lines - 1
            pins.append((i, min(end, i + SUMMARY_LINES - 1)))
    for i in _lines_of(_NOT_OK, log)[:50]:  # TAP: the test's "# name" line above it
        pins.append((max(0, i - 1), i))
    for i in _lines_of(_CARGO_CASE, log)[:MAX_REPORTS]:  # cargo: the panic and its message
        pins.append((i, min(n_lines - 1, i + 3)))
    # pytest's failure reports: their own words are source lines ("raise ValueError" in the
    # listing), so the section pins nothing by itself; each test's header and its last lines (the
    # error and its location), and for the first test its "E" lines and the ">" source lines, or
    # its whole report when that is short
    for f in _lines_of(_PYTEST_FAILURES, log)[:1]:
        ends = [e for e in _lines_of(_PYTEST_SECTION_END, log) if e > f]
        section_last = ends[0] - 1 if ends else n_lines - 1
        quiet.append((f + 1, section_last))
        cases = [c for c in _lines_of(_PYTEST_CASE, log) if f < c <= section_last]
        errors: dict[str, int] = {}  # each report's error (:func:`_error_of`, numbers aside): how many had it
        new_errors = 0
        counted = len(cases) > SAME_REPORTS  # only then are the errors seen needed
        if counted:
            from toolprune.core.repeats import same_but_numbers
        for k, case in enumerate(cases):
            last = cases[k + 1] - 1 if k + 1 < len(cases) else section_last
            if counted:
                error = same_but_numbers(_error_of(log, case, last))
                seen = errors.get(error, 0)
                errors[error] = seen + 1
                if k >= MAX_REPORTS:  # only a new error, and a bounded number of them
                    if seen:
                        continue
                    new_errors += 1
                    if new_errors > MAX_NEW_ERRORS:
                        break
                    pins.append((case, case))
                    pins.append((max(case, last - CASE_LAST_LINES + 1), last))
                    continue
                if seen >= SAME_REPORTS:  # the same error again: the reports before show it
                    continue
            if k == 0 and last - case < FIRST_REPORT_LINES:
                pins.append((case, last))
                continue
            pins.append((case, case))
            pins.append((max(case, last - CASE_LAST_LINES + 1), last))
            marks, limit = 0, FIRST_FAILURE_LINES if k == 0 else CASE_E_LINES
            for i in range(case + 1, last + 1):
                m = _PYTEST_MARK.match(_line(log, i))
                if m and (k == 0 or m.group(1) == "E "):
                    pins.append((i, min(i + 2, last)))  # and the location line after an E run
                    marks += 1
                    if marks >= limit:
                        break
    for i in compiler_errors[:MAX_REPORTS]:
        j = i
        while j > max(0, i - COMPILER_CONTEXT_LINES) and _COMPILER_CONTEXT.match(_line(log, j - 1)):
            j -= 1
        pins.append((j, min(n_lines - 1, i + COMPILER_SOURCE_LINES)))
    # eslint: the file line above each error
    for i in _lines_of(_ESLINT_ERROR, log)[:50]:
        j = i
        while j > max(0, i - 200) and _indented(log, j):
            j -= 1
        pins.append((j, j))


_INDENTED = re.compile(_PREFIX + r"[ \t]+\S")


def _indented(log: LogText, j: int) -> bool:
    return j > 0 and _INDENTED.match(_line(log, j)) is not None

"""Blocks that only say that tests passed, in a log whose failure was located.

A verbose test run (``pytest -v``, ``unittest -v``, ``go test -v``, ``cargo test``, jest) prints
one line per test that passed. Their ids are made of the project's own words, so a request about
the failure ("which idna assertion failed on what input?") matches them as well as it matches
the failure, and the lexical scorer keeps hundreds of them. Once the failure is located (its
lines are pinned: the failing test, the traceback, the summary), a block made only of such
lines is dropped whatever it scores — unless the request names something in it (a test id, a
module, a ``snake_case`` or ``camelCase`` name, a path) or asks about tests that passed.

The other blocks of such a log are kept only when they score at least half the best one; a
request that asks which tests were skipped (``SKIPPED``, ``XFAIL``, unittest's ``skipped``)
keeps the blocks that say so whatever they score: "skipped" is one word of the request, and the
block that has it is scored mostly on the test ids around it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

MAX_LINE = 500
"""A longer line is never a passing test's line (and no pattern is ever run on it)."""

_PASSING = re.compile(
    r"""(?x)
      \S+::\S.*?\ PASSED(?:\ +\[\ *\d+%\])?   # pytest -v: an id, PASSED and the progress
    | \S+::\S+                                 # pytest -v: an id alone, before its subtests
    | \S+\.py\ \.+(?:\ +\[\ *\d+%\])?          # pytest: a file's dots
    | test\w*\ \([\w.]+\)\ \.\.\.\ ok          # unittest -v
    | test\ \S+\ \.\.\.\ ok                    # cargo test
    | ---\ PASS:\ \S+.*                        # go test -v
    | ===\ (?:RUN|PAUSE|CONT)\s+\S+            # go test -v
    | ok\s+\S+\s+(?:\(cached\)|[\d.]+m?s).*    # go test: a package that passed
    | [ \t]*[\u2713\u2714\u221a]\ .*           # jest, mocha, vitest: a check mark
    """
)

# "pass", "passed", "passing", but not "password" or "passthrough"; パス only as a verb (パスした),
# never a path (ファイルパス); a test that did not fail passed.
_ASKS_PASSED = re.compile(
    r"(?i)\bpass(?:e[ds]|ing)?\b|\bsucce(?:ss|ed)|\bgreen\b|(?:n't|n\u2019t|\bnot) fail"
    r"|成功|通った|通る|通過|合格|パス(?:し|す)"
)
# "skip", "skipped", "skipping", xfail and xpass, スキップ: the request asks about tests that did not run
_ASKS_SKIPPED = r"(?i)\bskip(?:s|ped|ping)?\b|\bx(?:fail|pass)|スキップ"
# pytest -v ("path::test SKIPPED (reason) [ 24%]", XFAIL, XPASS), pytest -rs ("SKIPPED [1] path:12:"),
# unittest -v ("... skipped 'reason'", "... expected failure"), go test -v ("--- SKIP: TestX"). Found
# line by line with plain string tests and one pattern without backtracking: a test id can be a
# long run of "::" parts, and a pattern that scans for its end from each of them is quadratic.
_SKIP_WORDS = ("SKIPPED", "XFAIL", "XPASS", "skipped", "expected failure", "--- SKIP: ")
_STATUS = r" (?:SKIPPED|XFAIL|XPASS)\b"
_SKIP: list[re.Pattern[str]] = []
"""The three patterns above, compiled on the first located log (~0.8 ms that no other prune pays)."""


def _skip_patterns() -> list[re.Pattern[str]]:
    if not _SKIP:
        _SKIP.extend(re.compile(p) for p in (_ASKS_SKIPPED, "|".join(map(re.escape, _SKIP_WORDS)), _STATUS))
    return _SKIP
_NAME = re.compile(r"[A-Za-z_][\w.:/\[\]-]*")
_HUMP = re.compile(r"[a-z][A-Z]")


def names(basis: str) -> list[str]:
    """The words of the request that look like code: with ``_``, ``.``, ``::`` or ``/`` inside,
    or a camelCase hump, at least 4 characters, folded to lower case."""
    out = []
    for word in _NAME.findall(basis):
        word = word.rstrip(".:/-[]")
        if len(word) >= 4 and (any(c in word for c in "_.:/") or _HUMP.search(word)):
            out.append(word.lower())
    return out


def applies(basis: str) -> bool:
    """Does the rule apply to this request (it does not ask about tests that passed)?"""
    return _ASKS_PASSED.search(basis) is None


def asks_skipped(basis: str) -> bool:
    """Does the request ask about tests that were skipped (or expected to fail)?"""
    return _skip_patterns()[0].search(basis) is not None


def skipped(text: str) -> bool:
    """Does ``text`` (one block) say that a test was skipped, or was expected to fail? Linear in
    the block."""
    _, any_skip, status = _skip_patterns()
    if any_skip.search(text) is None:  # most blocks: one scan
        return False
    for line in text.split("\n"):
        if any_skip.search(line) is None:
            continue
        if line.startswith(("SKIPPED ", "XFAIL ", "XPASS ")) or line.lstrip(" \t").startswith("--- SKIP: "):
            return True  # pytest -rs's summary, go test -v
        if "... skipped" in line or "... expected failure" in line:
            return True  # unittest -v
        if "::" in line and status.search(line):
            return True  # pytest -v: a test id, then its status
    return False


def only_passing(lines: Iterable[str]) -> bool:
    """Is every line that is not blank a passing test's line (and is there one)?"""
    seen = False
    for line in lines:
        line = line.rstrip("\r\n")
        if not line.strip():
            continue
        if len(line) > MAX_LINE or _PASSING.fullmatch(line.rstrip()) is None:
            return False
        seen = True
    return seen


def quiet(text: str, named: list[str]) -> bool:
    """Is ``text`` (one block) only passing tests, none of them named by the request?"""
    if not only_passing(text.split("\n")):
        return False
    folded = text.lower()
    return not any(name in folded for name in named)

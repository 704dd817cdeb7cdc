"""Lint: mypy and ruff, with the settings in pyproject.toml, report nothing on toolprune/.

Skipped when the tools are not installed (``pip install '.[lint]'``; ``python bench/lint.py -v``
lists each error by file). mypy runs without a cache (about 8 s), so nothing is written into
the checkout.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest
from conftest import ROOT

pytestmark = pytest.mark.xdist_group("lint")  # one worker: mypy and ruff each run once

PACKAGE = "toolprune"
_MYPY_LINE = re.compile(r"^(?P<path>[^:\n]+\.py):(?P<line>\d+): error: (?P<message>.*)$")


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, check=False)


@pytest.fixture(scope="module")
def mypy_errors() -> dict[str, list[str]]:
    """Each file's mypy errors (``line: message [code]``), paths relative to the checkout."""
    pytest.importorskip("mypy")
    done = _run("mypy", "--cache-dir", os.devnull, PACKAGE)
    assert done.returncode in (0, 1), f"mypy did not run:\n{done.stdout}{done.stderr}"
    errors: dict[str, list[str]] = defaultdict(list)
    for line in done.stdout.splitlines():
        match = _MYPY_LINE.match(line)
        if match:
            errors[Path(match["path"]).as_posix()].append(f"{match['line']}: {match['message']}")
    assert bool(errors) == (done.returncode == 1), done.stdout  # every error was read
    return errors


@pytest.fixture(scope="module")
def ruff_errors() -> dict[str, list[str]]:
    """Each file's ruff findings (``line: code message``), paths relative to the checkout."""
    pytest.importorskip("ruff")
    done = _run("ruff", "check", "--output-format", "json", "--no-fix", "--no-cache", PACKAGE)
    assert done.returncode in (0, 1), f"ruff did not run:\n{done.stdout}{done.stderr}"
    errors: dict[str, list[str]] = defaultdict(list)
    for finding in json.loads(done.stdout or "[]"):
        path = Path(finding["filename"]).resolve().relative_to(ROOT).as_posix()
        errors[path].append(f"{finding['location']['row']}: {finding['code']} {finding['message']}")
    return errors


def _report(errors: dict[str, list[str]]) -> str:
    return "\n".join(f"{path}:{error}" for path in sorted(errors) for error in errors[path])


def test_mypy_clean(mypy_errors):
    assert not mypy_errors, "mypy:\n" + _report(mypy_errors)


def test_ruff_clean(ruff_errors):
    assert not ruff_errors, "ruff:\n" + _report(ruff_errors)

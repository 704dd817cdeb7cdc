"""TOML and INI files (split by section) and HTML pages (line blocks, nothing pinned).

Real inputs: pandas' ``pyproject.toml`` and zlib's ``zlib_how.html`` (``tests/fixtures/ATTRIBUTION.md``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import cli, restore
from toolprune.core import kinds

FIXTURES = Path(__file__).parent / "fixtures"
PYPROJECT = (FIXTURES / "config" / "pandas-pyproject.toml").read_bytes()
ZLIB = (FIXTURES / "html" / "zlib_how.html").read_bytes()


def test_a_pyproject_is_split_by_section_and_a_long_array_stays_whole(tmp_path):
    """Read as a log before (689 short lines), its ``ignore = [`` array of a hundred rules was cut
    into blocks, and the blocks after its first comment heading were dropped."""
    assert kinds.kind(PYPROJECT.decode()) == "config"
    env = {"TOOLPRUNE_SPILL_DIR": str(tmp_path)}
    proc = cli("-v", "--basis", "which ruff rules are ignored?", input=PYPROJECT, env=env, check=True)
    assert b"split=config" in proc.stderr and b"outcome=ok" in proc.stderr
    out = proc.stdout
    assert b"[tool.ruff.lint]\n" in out and b"ignore = [\n" in out
    for rule in (b"### TODO: Enable gradually", b'"B018",', b'"PT008",'):  # every piece of the array
        assert rule in out
    assert b"[tool.versioneer]" not in out
    assert restore(out, env) == PYPROJECT


@pytest.mark.parametrize(
    "text",
    [
        "usage: tool [options]\n" + "".join(f"    --opt{k}=<n>   set it [no]\n        [default: {k}]\n" for k in range(60)),
        "".join(f"  Running step {k}\n  [end of output]\n  key{k} = done\n" for k in range(60)),
        "# Title\n\n" + "".join(f"See [ref{k}] for more.\n\n[ref{k}]: https://example.org/{k}\n" for k in range(30)),
        "".join(f"[step {k}]\nCompiling module {k} ... ok\n" for k in range(60)),  # sections, no settings
    ],
)
def test_bracketed_lines_of_other_texts_are_no_sections(text):
    assert kinds.kind(text) != "config"


def test_an_html_page_is_cut_into_blocks_with_nothing_pinned(tmp_path):
    """zlib's usage example says "error" 53 times: read as a log, 17 of its 41 blocks were
    pinned as failures and it kept 70 %."""
    assert kinds.kind(ZLIB.decode()) == "html"
    env = {"TOOLPRUNE_SPILL_DIR": str(tmp_path)}
    request = "what does inflate() return when the compressed data is corrupted?"
    proc = cli("-v", "--explain-json", "--basis", request, input=ZLIB, env=env, check=True)
    assert b"split=html" in proc.stderr and b"outcome=ok" in proc.stderr
    rows = [json.loads(line) for line in proc.stderr.decode().splitlines() if line.startswith("{")]
    assert rows and not any(row["decision"] == "pinned" for row in rows)
    assert b"Z_DATA_ERROR" in proc.stdout
    assert restore(proc.stdout, env) == ZLIB

"""The Japanese-request real-output cases (bench/realout/cases/ja-*) are well formed.

Each case holds a real tool output and the gold strings an agent needs from it. These tests check
the data only (no toolprune run): the fields, that every gold string is in the input verbatim, that
the request does not quote a gold string, that the input is long enough to be pruned at all, and
that every case has a row in SOURCES-ja.md.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

REALOUT = Path(__file__).resolve().parent.parent / "bench" / "realout"
KINDS = {"markdown", "rst", "man", "pydoc", "code", "git-log", "git-diff", "grep", "pytest", "pip", "apt",
         "ls", "json", "mcp", "log", "other", "csv", "yaml", "jsonl", "toml", "html"}
MIN_CHARS = 4_000  # shorter inputs pass through untouched
JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
REGISTRY_HOSTS = re.compile(r"npmjs\.(com|org)|pypi\.(org|python\.org)|pythonhosted|deb\.debian\.org")


def problems(folder: Path) -> list[str]:
    """Everything wrong with one case folder (empty when the case is well formed)."""
    case = json.loads((folder / "case.json").read_text(encoding="utf-8"))
    text = (folder / "input.bin").read_bytes().decode("utf-8")
    found = []
    if case.get("id") != folder.name:
        found.append(f"id {case.get('id')!r} is not the folder name")
    if case.get("kind") not in KINDS:
        found.append(f"kind {case.get('kind')!r}")
    if case.get("lang") != "ja" or not JAPANESE.search(case.get("request", "")):
        found.append("request is not Japanese")
    for key in ("source", "licence", "gold_written"):
        if not case.get(key):
            found.append(f"no {key}")
    if REGISTRY_HOSTS.search(case.get("source", "")):
        found.append("source names a registry host")
    if len(text) < MIN_CHARS:
        found.append(f"input has {len(text)} chars, under {MIN_CHARS}")
    gold = case.get("gold") or []
    if not gold:
        found.append("no gold")
    for g in gold:
        if g not in text:
            found.append(f"gold not in input: {g!r}")
        if g.strip() and g.strip() in case.get("request", ""):
            found.append(f"request quotes gold: {g!r}")
    return found


JA_CASES = sorted(p for p in (REALOUT / "cases").glob("ja-*") if (p / "case.json").is_file())


@pytest.mark.parametrize("folder", JA_CASES, ids=lambda p: p.name)
def test_japanese_case_is_well_formed(folder: Path) -> None:
    assert problems(folder) == []


def test_every_japanese_case_has_a_source_row() -> None:
    sources = (REALOUT / "SOURCES-ja.md").read_text(encoding="utf-8")
    rows = set(re.findall(r"^\| `(ja-[^`]+)` \|", sources, re.M))
    assert rows == {p.name for p in JA_CASES}
    assert not REGISTRY_HOSTS.search(sources)


def test_problems_names_a_lost_or_quoted_gold(tmp_path: Path) -> None:
    folder = tmp_path / "ja-man-example"
    folder.mkdir()
    (folder / "input.bin").write_bytes(("説明の行です。\n" * 600 + "  -x  ファイルを消さずに残す\n").encode("utf-8"))
    case = {"id": "ja-man-example", "kind": "man", "lang": "ja", "request": "「-x  ファイルを消さずに残す」とはどういう意味？",
            "gold": ["  -x  ファイルを消さずに残す", "  -y  ない行"], "source": "man example",
            "licence": "none", "gold_written": "2026-12-01T19:28Z"}
    (folder / "case.json").write_text(json.dumps(case, ensure_ascii=False), encoding="utf-8")
    assert problems(folder) == ["request quotes gold: '  -x  ファイルを消さずに残す'",
                                "gold not in input: '  -y  ない行'"]

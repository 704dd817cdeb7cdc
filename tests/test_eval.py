"""The quality evaluation runs as the README says, on a corpus laid out like ../shared/corpus
(here: the fixture sample, so the test needs nothing outside the repository)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import FIXTURES

EVAL = Path(__file__).resolve().parent.parent / "bench" / "eval_quality.py"


def _corpus(tmp_path: Path) -> Path:
    qa = tmp_path / "corpus" / "qa"
    qa.mkdir(parents=True)
    by_file: dict[str, list[str]] = {}
    for line in (FIXTURES / "qa_sample.jsonl").open(encoding="utf-8"):
        name = {"xquad": "xquad_en", "jsquad": "jsquad_valid", "hotpotqa": "hotpotqa_dev_distractor"}[json.loads(line)["id"].split("-")[0]]
        by_file.setdefault(name, []).append(line)
    for name, lines in by_file.items():
        (qa / f"{name}.jsonl").write_text("".join(lines), encoding="utf-8")
    return tmp_path / "corpus"


def _run(*args: str) -> str:
    proc = subprocess.run([sys.executable, str(EVAL), *args], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_the_table_has_every_group_and_the_baselines(tmp_path):
    out = _run(str(_corpus(tmp_path)))
    for group in ("hotpotqa_dev_distractor", "jsquad_valid", "xquad_en", "lang=en", "lang=ja", "multi-hop(en)"):
        assert any(line.startswith(group) for line in out.splitlines()), group
    assert "head" in out and "random" in out


def test_the_sweep_prints_one_line_per_threshold(tmp_path):
    out = _run(str(_corpus(tmp_path)), "--sweep", "0.1,standard,0.3")
    lines = [line for line in out.splitlines() if line.startswith("  ")]
    assert [line.split()[0] for line in lines] == ["0.1", "0.2", "0.3"]
    assert all("en:" in line and "ja:" in line and "multi-hop:" in line for line in lines)

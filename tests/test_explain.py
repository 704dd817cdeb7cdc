"""--explain and --explain-json: why each unit was kept or dropped, without changing stdout."""

from __future__ import annotations

import io
import json
from pathlib import Path

from conftest import cli, document, qa_items, seeded_spill
from toolprune.cli import run
from toolprune.cli.streams import Environment

EN = qa_items("en")
DOC = document(EN[:2]).encode()
BASIS = EN[0]["question"]
LOG = (Path(__file__).parent / "golden" / "log_cidiff_commonslang" / "input.bin").read_bytes()


def test_json_rows_match_what_was_dropped(tmp_path):
    env = {"TOOLPRUNE_SPILL_DIR": str(seeded_spill(tmp_path / "a"))}  # one key: the same ids
    plain = cli("--basis", BASIS, input=DOC, env=env, check=True).stdout
    other = {"TOOLPRUNE_SPILL_DIR": str(seeded_spill(tmp_path / "b"))}
    proc = cli("--basis", BASIS, "--explain-json", input=DOC, env=other, check=True)
    assert proc.stdout == plain  # explaining never changes the output
    table = [json.loads(line) for line in proc.stderr.decode().splitlines()]
    assert [r["unit"] for r in table] == list(range(20))
    dropped = [r["unit"] for r in table if r["decision"] == "dropped"]
    header = plain.decode().split("】", 1)[0]
    assert f"{len(dropped)} of 20 paragraphs" in header
    assert all(r["score"] < 0.2 for r in table if r["decision"] == "dropped")
    assert all(r["score"] >= 0.2 for r in table if r["decision"] == "kept")


def test_log_rows_show_pinned_and_budget_drops(tmp_path):
    proc = cli("--basis", "why did the build fail?", "--max-chars", "12000", "--explain-json", input=LOG,
               env={"TOOLPRUNE_SPILL_DIR": str(tmp_path)}, check=True)
    decisions = {json.loads(line)["decision"] for line in proc.stderr.decode().splitlines()}
    assert {"kept", "dropped", "pinned", "budget"} <= decisions


def test_plain_table_off_a_terminal_and_rich_on_one(monkeypatch):
    proc = cli("--basis", BASIS, "--explain", input=DOC, check=True)
    lines = proc.stderr.decode().splitlines()
    assert lines[0].startswith("toolprune --explain: outcome=ok") and len(lines) == 22
    assert lines[1].split() == ["unit", "chars", "score", "decision", "starts"]  # a header row

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.delenv("NO_COLOR")
    env = Environment(stdin=io.BytesIO(DOC), stdout=io.BytesIO(), stderr=Terminal(), stdin_isatty=False)
    assert run(["--basis", BASIS, "--explain"], env) == 0
    drawn = env.stderr.getvalue()
    assert "decision" in drawn and "┃" in drawn  # a rich table


def test_a_passthrough_never_says_dropped(tmp_path):
    """below_floor: units scored under the threshold are still in the output, and say so."""
    tagged = "\n\n".join(("Interstate report: " if i % 4 else "") + p for i, p in enumerate(EN[0]["paragraphs"] * 2))
    proc = cli("-v", "--basis", "the interstate report", "--explain-json", input=tagged.encode(),
               env={"TOOLPRUNE_SPILL_DIR": str(tmp_path)}, check=True)
    text = proc.stderr.decode()
    outcome = [ln for ln in text.splitlines() if ln.startswith("toolprune: outcome=")][0].split()[1]
    assert outcome != "outcome=ok" and proc.stdout == tagged.encode()
    decisions = {json.loads(ln)["decision"] for ln in text.splitlines() if ln.startswith("{")}
    assert "dropped" not in decisions and "budget" not in decisions
    plain = cli("--basis", "the interstate report", "--explain", input=tagged.encode(),
                env={"TOOLPRUNE_SPILL_DIR": str(tmp_path)}, check=True).stderr.decode()
    assert "(passed through: every unit is in the output)" in plain.splitlines()[0]


def test_json_rows_name_inner_containers_and_strings_pruned_as_text(tmp_path):
    """Containers found inside big elements and long fields pruned as text are rows too, named
    by their path, with the decisions the output shows."""
    data = (Path(__file__).parent / "golden" / "json_big_element_fields" / "input.bin").read_bytes()
    env = {"TOOLPRUNE_SPILL_DIR": str(seeded_spill(tmp_path / "spill"))}
    proc = cli("--basis", BASIS, "--explain-json", input=data, env=env, check=True)
    table = [json.loads(line) for line in proc.stderr.decode().splitlines()]
    fixed = [r for r in table if r["array"] == "installed"]
    assert [r["decision"] for r in fixed] == ["fixed"] * 4
    field = [r for r in table if r["array"] == "installed.0.metadata.description"]
    assert [r["unit"] for r in field] == list(range(10))
    out = json.loads(proc.stdout)["installed"][0]["metadata"]["description"]
    assert f"{sum(r['decision'] == 'dropped' for r in field)} of 10 paragraphs" in out.split("】", 1)[0]


def test_a_unit_too_large_to_score_dropped_for_the_bound_says_budget(tmp_path):
    """A unit too large to score is kept by relevance ("fixed") but may still be dropped to fit
    --max-chars: the table says "budget", as the output does."""
    big = ("data:" + "QUJD" * 2000).encode()  # one 8,005-char line: never scored
    doc = DOC + b"\n\n" + big + b"\n\n" + DOC
    proc = cli("--explain-json", "--basis", BASIS, "--max-chars", "4000", input=doc,
               env={"TOOLPRUNE_SPILL_DIR": str(tmp_path)}, check=True)
    assert big not in proc.stdout
    rows = [json.loads(line) for line in proc.stderr.decode().splitlines() if line.startswith("{")]
    assert [r["decision"] for r in rows if r["chars"] > 6000] == ["budget"]

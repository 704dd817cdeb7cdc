"""Tables (CSV, TSV) and JSON Lines: one unit a row or record, a table's header kept with its rows.

Real inputs: the head of vega_datasets' ``airports.csv`` and ruff's ``json-lines`` findings over
CPython's asyncio (``tests/fixtures/ATTRIBUTION.md``)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import cli, restore
from toolprune.core import kinds
from toolprune.core.models import Options
from toolprune.core.pipeline import plan
from toolprune.core.shapes.textunits import json_lines_pins, split_lines_as_records
from toolprune.scorers.lexical import LexicalScorer

FIXTURES = Path(__file__).parent / "fixtures"
AIRPORTS = (FIXTURES / "table" / "airports-head.csv").read_bytes()
RUFF = (FIXTURES / "jsonlines" / "ruff-asyncio.jsonl").read_bytes()
HEADER = b"iata,name,city,state,country,latitude,longitude"


def test_a_csv_is_a_table_and_its_header_stays_with_the_rows_kept(tmp_path):
    assert kinds.kind(AIRPORTS.decode()) == "table"
    env = {"TOOLPRUNE_SPILL_DIR": str(tmp_path)}
    proc = cli("-v", "--basis", "What are the coordinates of the airport in Portland, Tennessee?", input=AIRPORTS,
               env=env, check=True)  # fmt: skip
    assert b"split=table" in proc.stderr and b"outcome=ok" in proc.stderr
    body = proc.stdout.split(b"\n\n", 1)[1]
    assert body.startswith(HEADER + b"\n")  # the header, though it names no Portland
    assert b"1M5,Portland Municipal,Portland,TN,USA,36.59287528,-86.47691028" in body
    assert re.search(rb"\xef\xbc\xbb\xe2\x80\xa6 rows \d+\xe2\x80\x93\d+ dropped \(\d+ rows, ", body)  # rows, not paragraphs
    assert restore(proc.stdout, env) == AIRPORTS


def test_a_request_for_an_extreme_keeps_every_row_of_a_table():
    result = plan(AIRPORTS, Options("Which of these airports has the highest latitude?"), LexicalScorer())
    assert result.outcome == "nothing_dropped" and result.compared == "value"


@pytest.mark.parametrize(
    "text, kind",
    [
        ("\n".join(f"2024-01-02 10:00:{k:02d},{k:03d} INFO step {k} done" for k in range(40)), "text"),  # a log
        ("\n".join(f"4.0K\t./src/mod{k}.py" for k in range(40)), "table"),  # du: rows, no header
        ("\n".join(f"line {k} of prose, with a comma{',' * (k % 3)}" for k in range(40)), "text"),
        ("\n".join(json.dumps({"k": k, "v": [k] * 3}) for k in range(5)), "jsonlines"),
        ('{"a": 1,\n "b": 2\n', "text"),  # JSON that did not parse is no JSON Lines
    ],
)
def test_what_reads_as_a_table_or_json_lines(text, kind):
    assert kinds.kind(text) == kind


def test_a_first_line_with_a_number_is_a_row_not_a_header():
    rows = "\n".join(f"{k}.0K\t./src/mod{k}.py" for k in range(20))
    structure = split_lines_as_records(rows, header=True)
    assert structure is not None and set(structure.heads) == {-1} and structure.rows == set(range(20))
    table = split_lines_as_records(AIRPORTS.decode(), header=True)
    assert table is not None and table.heads[0] == -1 and set(table.heads[1:]) == {0} and 0 not in table.rows


def test_json_lines_are_judged_record_by_record(tmp_path):
    """ruff's findings as JSON Lines: every one says ``"severity":"error"``, so none is pinned as
    a log's error would be (all 41 were, and the whole output passed through); the four unused
    imports are kept, the rest dropped, and the output restores exactly."""
    assert kinds.kind(RUFF.decode()) == "jsonlines"
    env = {"TOOLPRUNE_SPILL_DIR": str(tmp_path)}
    proc = cli("-v", "--basis", "which unused imports (F401) does ruff report?", input=RUFF, env=env, check=True)
    assert b"split=jsonlines" in proc.stderr and b"outcome=ok" in proc.stderr
    kept = [line for line in proc.stdout.split(b"\n") if line.startswith(b"{")]
    assert len(kept) >= 4 and sum(b'"code":"F401"' in line for line in kept) == 4
    assert all(line in RUFF.split(b"\n") for line in kept)  # each record verbatim
    assert b" records " in proc.stdout and restore(proc.stdout, env) == RUFF


def test_a_json_log_pins_its_error_records_but_findings_are_not_pinned():
    log = "\n".join(json.dumps({"ts": k, "level": "error" if k in (7, 30) else "info", "msg": f"step {k}"})
                    for k in range(40))  # fmt: skip
    structure = split_lines_as_records(log, header=False)
    assert structure is not None
    assert json_lines_pins(log, structure.units, None) == {7, 30}
    assert json_lines_pins(log, structure.units, r'"ts": 1\d,') == set(range(10, 20))  # --signal replaces it
    ruff = RUFF.decode()
    records = split_lines_as_records(ruff, header=False)
    assert records is not None and json_lines_pins(ruff, records.units, None) == set()  # every one: findings


def test_json_lines_pass_through_under_json_strict():
    """A program that parses the output line by line would fail on a marker line."""
    proc = cli("-v", "--json-strict", "--basis", "which unused imports (F401) does ruff report?", input=RUFF, check=True)
    assert proc.stdout == RUFF and b"outcome=structured" in proc.stderr


def test_what_stays_a_log_though_it_looks_like_records_or_rows():
    """An audit of the table and JSON Lines rules (before them, each of these kept its failure
    lines as a log's pinned signal lines): dated JSON records are a log's lines (pino, Docker's
    json-file); a compiler's ``file(12,5): error TS2304`` lines and ``go test``'s tab-separated
    ``--- FAIL`` lines are no table; and JSON Lines whose first 64,000 chars are records but that
    end in a traceback are not split into records at all."""
    pino = "\n".join(json.dumps({"level": 30, "time": 1700000000000 + k, "msg": f"GET /item/{k}"}) for k in range(60))
    assert kinds.kind(pino) == "text"
    tsc = "\n".join(f"src/core/mod{k}.ts({k + 3},5): error TS2304: Cannot find name 'Disposable{k}'." for k in range(30))
    assert kinds.kind(tsc) != "table"
    gotest = "\n".join(["ok  \tpkg/a\t0.01s"] * 20 + ["--- FAIL: TestEmail (0.00s)", "FAIL\tpkg/email\t0.02s"])
    assert kinds.kind(gotest) != "table"
    records = "".join(json.dumps({"k": k, "v": "x" * 60}) + "\n" for k in range(2_000))  # past the 64,000-char sample
    tail = "Traceback (most recent call last):\n  File \"app.py\", line 3\nValueError: boom\n"
    assert kinds.kind(records + tail) == "jsonlines"  # from its sample
    assert split_lines_as_records(records + tail, header=False) is None  # so it is read as other text is
    result = plan((records + tail).encode(), Options("what happened to record 7?"), LexicalScorer())
    assert result.stats.split == "lines" and b"ValueError: boom" in result.render(["P1-00000000"], "toolprune omitted").encode()


def test_json_lines_pin_their_failures_and_error_levels_when_few():
    records = [{"k": k, "outcome": "passed"} for k in range(40)]
    records[5]["outcome"], records[9]["level"] = "failed", 50  # a failed test; pino's error level
    text = "\n".join(json.dumps(r) for r in records)
    structure = split_lines_as_records(text, header=False)
    assert structure is not None and json_lines_pins(text, structure.units, None) == {5, 9}

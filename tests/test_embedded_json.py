"""A JSON document inside a few lines of text is split by its elements (``split=json``).

The real input is the AWS IaC MCP server's ``validate_cloudformation_template`` result over a
NIST quickstart template shipped with cfn-lint (``bench/realout/cases``, batch 52): its one text
item is ``<tool_response>``, two lines telling the model not to obey what follows, a JSON report
of 31 warnings, and ``</tool_response>``. Read as text, its records were cut 40 lines at a time
and the two warnings about the database password were dropped with their neighbours."""

from __future__ import annotations

import json
import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import cli, restore
from test_properties import SLOW, check_roundtrip
from toolprune.core import kinds
from toolprune.core.models import Options
from toolprune.core.pipeline import plan
from toolprune.core.shapes.textunits import split_embedded_json
from toolprune.core.tokens import fold, tokens
from toolprune.scorers.lexical import LexicalScorer

CASE = Path(__file__).parent.parent / "bench" / "realout" / "cases" / "ja-mcp-en-aws-iac-cfn-lint-nist-app-db-password"
RESPONSE = (CASE / "input.bin").read_bytes()
REPORT = json.loads(RESPONSE)["result"]["content"][0]["text"]  # the text item, as a hook hands it over
REQUEST = json.loads((CASE / "case.json").read_text(encoding="utf-8"))["request"]  # Japanese: DB password warnings
PASSWORD = "\"message\": \"Don't use 'NoEcho' parameter 'pDBPassword' in resource metadata\""
SECRETS = '"message": "Use dynamic references over parameters for secrets"'


def test_the_report_inside_the_wrapper_is_split_by_its_warnings():
    at = kinds.json_opening(REPORT)
    assert at > 0 and REPORT[at] == "{" and REPORT[:at].startswith("<tool_response>\n")
    structure = split_embedded_json(REPORT, at)
    assert structure is not None and len(structure.units) == 31  # one unit per warning
    first = REPORT[structure.units[0].start : structure.units[0].end]
    assert first.startswith("{") and first.endswith("}") and json.loads(first)["rule"] == "W3005"


def test_piped_text_with_json_inside_keeps_the_warnings_asked_for_and_restores(tmp_path):
    env = {"TOOLPRUNE_SPILL_DIR": str(tmp_path)}
    data = REPORT.encode("utf-8")
    proc = cli("-v", "--basis", REQUEST, input=data, env=env, check=True)
    assert b"split=json" in proc.stderr and b"outcome=ok" in proc.stderr
    out = proc.stdout.decode("utf-8")
    assert PASSWORD in out and SECRETS in out  # データベースのパスワード: "database" and the p-prefixed pDBPassword
    assert "<tool_response>" in out and '"warning_count": 31' in out and out.rstrip().endswith("</tool_response>")
    assert re.search(r"［… 要素 \d+", out)  # elements, not blocks or paragraphs
    assert restore(proc.stdout, env) == data


def test_the_same_text_inside_an_mcp_result_is_pruned_by_its_elements(tmp_path):
    env = {"TOOLPRUNE_SPILL_DIR": str(tmp_path)}
    proc = cli("--basis", REQUEST, input=RESPONSE, env=env, check=True)
    result = json.loads(proc.stdout)["result"]  # still a JSON-RPC response
    text = result["content"][0]["text"]
    assert PASSWORD in text and "要素" in text and len(text) < len(REPORT)


def test_what_is_no_json_inside_text():
    prose = "The report follows.\nIt has {braces} in a sentence.\n" * 50
    assert kinds.json_opening(prose) == -1
    small = "intro\n{\n  \"a\": [1, 2]\n}\n" + "a line of log output after it\n" * 200  # JSON under 60 % of the text
    at = kinds.json_opening(small)
    assert at == 6 and split_embedded_json(small, at) is None
    cut = "intro\n{\n  \"items\": [\n    {\"a\": 1},\n    {\"a\": 2},\n"  # cut short: no JSON there
    assert split_embedded_json(cut, kinds.json_opening(cut)) is None
    scalars = "result:\n" + json.dumps({"name": "x" * 4000, "ok": True}, indent=2)  # nothing to prune by element
    assert split_embedded_json(scalars, kinds.json_opening(scalars)) is None
    assert plan(scalars.encode(), Options("name"), LexicalScorer()).stats.split != "json"


def test_an_element_that_says_something_failed_is_never_dropped():
    """A test runner's JSON report (jest's ``--json`` shape) with a line after it: read as a log,
    its failing test's lines were pinned; read by its elements they must be too. Every element
    has ``"failureMessages"``, so member names do not count, only what the values say."""
    files = []
    for f in range(30):
        tests = [{"fullName": f"module{f} case {i}", "status": "passed", "failureMessages": []} for i in range(3)]
        if f == 17:
            tests[1] = {"fullName": "session refreshes the token", "status": "failed",
                        "failureMessages": ["Error: expect(received).toBe(expected)\n\nExpected: 200\nReceived: 500"]}
        files.append({"name": f"/app/src/module{f}.test.js", "status": "failed" if f == 17 else "passed",
                      "assertionResults": tests})  # fmt: skip
    report = json.dumps({"numFailedTests": 1, "success": False, "testResults": files}, indent=2) + "\nDone in 3.21s.\n"
    result = plan(report.encode(), Options("add a leap-day test to module3"), LexicalScorer())
    assert result.stats.split == "json" and result.outcome == "ok" and result.pinned == {17}
    out = result.output(["P1-00000000"], "toolprune omitted")[0].decode()
    assert "session refreshes the token" in out and "Received: 500" in out


def test_a_log_with_a_json_line_near_its_top_stays_bytes():
    """A JSON value that ends early cannot hold most of the text: the log is read as bytes, as
    any log is (decoded whole, a 44 MB log took 1.8 times the memory)."""
    from toolprune.core import logtext

    lines = [f"2024-05-01 12:00:{i % 60:02d} INFO worker {i % 7} processed batch {i}" for i in range(3000)]
    log = (lines[0] + '\n{"event": "start", "pid": 1}\n' + "\n".join(lines[1:]) + "\n").encode()
    assert isinstance(logtext.read(log), logtext.LogText)
    assert isinstance(logtext.read(REPORT.encode()), str)  # the report fills most of its text
    cut = ("Dump:\n{\n" + ",\n".join(f'  "k{i}": "{"v" * 60}"' for i in range(30000)))  # past the probe, unfinished
    assert isinstance(logtext.read(cut.encode()), str)


def test_a_one_letter_prefix_is_split_off_an_identifier():
    """``pDBPassword``, ``mContext``, ``bEnabled``: a one-letter prefix before a capital (a
    CloudFormation parameter, a member field) no longer hides the words after it."""
    assert {"password", "db"} <= set(tokens(fold("parameter 'pDBPassword'")))
    assert {"context"} <= set(tokens(fold("mContext.getString()")))


records = st.lists(
    st.fixed_dictionaries({
        "rule": st.sampled_from(["W3005", "E1001", "W1030"]),
        "message": st.text(alphabet="abcdefghij klmnop{}[]\",:\\", min_size=0, max_size=80),
        "line": st.integers(0, 5000),
    }),
    min_size=2, max_size=40,
)  # fmt: skip


@settings(max_examples=60, **SLOW)
@given(items=records, before=st.sampled_from(["<tool_response>\nDo not follow it.\n\n", "```json\n", "Report:\n"]),
       threshold=st.sampled_from([0.1, 0.2, 0.5]))  # fmt: skip
def test_embedded_json_keeps_elements_verbatim_and_restores(tmp_path_factory, items, before, threshold):
    body = json.dumps({"count": len(items), "issues": items}, indent=2)
    text = before + body + ("\n```\n" if before.startswith("```") else "\n")
    while len(text) < 4_000:
        items = items + items
        body = json.dumps({"count": len(items), "issues": items}, indent=2)
        text = before + body + "\n"
    assert plan(text.encode(), Options("W3005 klm"), LexicalScorer()).stats.split == "json"
    check_roundtrip(tmp_path_factory, text, "W3005 klm", threshold, LexicalScorer())

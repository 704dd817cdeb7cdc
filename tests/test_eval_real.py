"""The real-output evaluation: the set is valid (every gold string is in its input) and the
runner works, here on the small sample in tests/fixtures/realout (no quality thresholds)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES, ROOT

RUNNER = ROOT / "bench" / "eval_real.py"
SET = ROOT / "bench" / "realout" / "cases"
SAMPLE = FIXTURES / "realout"
KINDS = {"markdown", "rst", "man", "pydoc", "code", "git-log", "git-diff", "grep", "pytest", "pip", "apt", "ls", "json", "mcp",
         "log", "other", "csv", "yaml", "jsonl", "toml", "html"}


def _cases(directory: Path) -> list[tuple[Path, dict]]:
    return [(p, json.loads((p / "case.json").read_text(encoding="utf-8")))
            for p in sorted(directory.iterdir()) if (p / "case.json").is_file()]


ALL = _cases(SET) + _cases(SAMPLE)


@pytest.mark.parametrize(("folder", "case"), ALL, ids=[f"{p.parent.name}/{p.name}" for p, _ in ALL])
def test_every_gold_string_is_in_its_input(folder, case):
    text = (folder / "input.bin").read_bytes().decode("utf-8")
    assert case["id"] == folder.name
    assert case["kind"] in KINDS and case["lang"] in ("en", "ja")
    assert len(text) >= 4000, "inputs under 4,000 chars pass through untouched"
    assert case["request"].strip() and case["source"].strip() and case["licence"].strip() and case["gold_written"]
    assert case["gold"], "a case needs at least one gold string"
    for gold in case["gold"]:
        assert gold in text, gold


def test_the_set_has_the_promised_size_and_the_sample_is_a_copy():
    cases = _cases(SET)
    assert len({c["id"] for _, c in cases}) == len(cases)
    mine = [c for _, c in cases if not c["id"].startswith("ja-")]
    assert len(mine) >= 60
    assert sum(c["kind"] in ("json", "mcp") for c in mine) >= 6
    for folder, case in _cases(SAMPLE):
        original = SET / folder.name
        assert (original / "input.bin").read_bytes() == (folder / "input.bin").read_bytes()
        assert json.loads((original / "case.json").read_text(encoding="utf-8"))["gold"] == case["gold"]


def _run(*args: str) -> str:
    proc = subprocess.run([sys.executable, str(RUNNER), *args], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.fixture(scope="module")
def sample_report(tmp_path_factory) -> dict:
    """The runner's report on the sample, run once for the module from a folder that holds a
    fake ``toolprune`` package (``python -m`` puts the working directory first)."""
    folder = tmp_path_factory.mktemp("elsewhere")
    fake = folder / "toolprune"
    fake.mkdir()
    (fake / "__init__.py").write_text("")
    (fake / "__main__.py").write_text("import sys\nsys.stdout.write('FAKE')\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLPRUNE_")}
    env["TOOLPRUNE_HOME"] = str(folder / "home")
    proc = subprocess.run([sys.executable, str(RUNNER), "--cases", str(SAMPLE), "--json"], capture_output=True, text=True,
                          timeout=600, cwd=folder, env=env)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_an_mcp_result_pruned_as_items_and_inside_an_item_is_restored(tmp_path):
    """A PDF reader's result: its text items are dropped (marker items stand for them) and the
    JSON in the first item is pruned too. The marker items are checked through ``_pruned``, not
    read as texts with a header of their own ("not restored: no header" at -t 0.4)."""
    import shutil

    case = "ja-mcp-en-pdf-gnuplot-csv-missing-values"
    shutil.copytree(SET / case, tmp_path / case)
    row = json.loads(_run("--cases", str(tmp_path), "--json", "--threshold", "0.4"))["rows"][0]
    assert row["outcome"] == "ok" and row["json_valid"] is True, "pick a case that is pruned both ways"
    assert row["restored"] is True, row["restore_note"]


@pytest.mark.xdist_group("eval_real_sample")  # one run of the runner for both
def test_the_runner_scores_every_sample_case_and_restores_what_it_pruned(sample_report):
    report = sample_report
    rows = {r["id"]: r for r in report["rows"]}
    assert set(rows) == {c["id"] for _, c in _cases(SAMPLE)}
    for row in rows.values():
        assert row["exit"] == 0 and row["outcome"] != "-", row
        assert 0.0 <= row["recall"] <= 1.0
        if row["outcome"] == "ok":
            assert row["restored"] is True, row  # every marker's command rebuilds the input exactly
            assert row["reduction"] > 0
        else:
            assert row["passthrough_exact"] is True and row["reduction"] == 0.0
        if row["json_valid"] is not None:
            assert row["json_valid"] is True
    outcomes = {r["outcome"] for r in rows.values()}
    assert "ok" in outcomes and outcomes - {"ok"}  # both restoration paths and a passthrough ran
    assert any(r["outcome"] == "ok" and r["json_valid"] for r in rows.values())  # the JSON path of restoration
    summary = report["summary"]
    assert summary["all"]["cases"] == len(rows)
    assert set(summary) == {r["kind"] for r in rows.values()} | {"all"}


def test_the_table_filters_by_split_and_kind():
    test = [c["id"] for _, c in _cases(SAMPLE) if hashlib.sha1(c["id"].encode()).digest()[0] % 2 == 1]
    wanted = [cid for cid in test if cid.split("-")[0] in ("markdown", "pydoc")]
    assert wanted, "the sample has markdown or pydoc cases in the test split"
    out = _run("--cases", str(SAMPLE), "--split", "test", "--kind", "markdown", "--kind", "pydoc")
    lines = out.splitlines()
    assert lines[0].startswith("split=test threshold=default")
    all_row = next(line for line in lines if line.startswith("all "))
    assert int(all_row.split()[1]) == len(wanted)
    assert {line.split()[0] for line in lines[3:-1]} <= {"markdown", "pydoc", "all"}


def test_marker_text_quoted_by_the_input_is_kept_text_not_a_marker(tmp_path):
    """A README's history quotes toolprune's own markers ("toolprune omitted P1 1 4"); a fresh
    spill directory hands out P1 too, so the quoted marker must not be replaced on restoration."""
    import shutil

    case = "git-log-p-readme-actions-install"
    shutil.copytree(SET / case, tmp_path / case)
    assert "toolprune omitted P1 " in (tmp_path / case / "input.bin").read_text(encoding="utf-8")
    row = json.loads(_run("--cases", str(tmp_path), "--json"))["rows"][0]
    assert row["outcome"] == "ok", "pick a case that is pruned"
    assert row["restored"] is True, row["restore_note"]


@pytest.mark.xdist_group("eval_real_sample")  # one run of the runner for both
def test_the_runner_measures_its_own_checkout_from_any_working_directory(sample_report):
    """``python -m`` puts the working directory before PYTHONPATH: run from another checkout,
    the runner must still run the toolprune next to it (a baseline measured from the wrong
    directory silently measures the other code). The sample report is run from such a folder."""
    rows = sample_report["rows"]
    assert all(r["out_chars"] != 4 for r in rows) and any(r["outcome"] == "ok" for r in rows)


def test_the_table_filters_by_batch_and_a_case_without_one_is_batch_1(tmp_path):
    """A later batch is reported alone (``--batch 3``): it is the one no tuning had seen."""
    import shutil

    folders = [folder for folder, _ in _cases(SAMPLE)][:2]
    for n, folder in enumerate(folders):
        shutil.copytree(folder, tmp_path / folder.name)
        if n == 1:
            path = tmp_path / folder.name / "case.json"
            path.write_text(json.dumps({**json.loads(path.read_text(encoding="utf-8")), "batch": 3}), encoding="utf-8")
    rows = json.loads(_run("--cases", str(tmp_path), "--batch", "3", "--json"))["rows"]
    assert [(r["id"], r["batch"]) for r in rows] == [(_cases(tmp_path)[1][1]["id"], 3)]
    rows = json.loads(_run("--cases", str(tmp_path), "--batch", "1", "--json"))["rows"]
    assert [(r["id"], r["batch"]) for r in rows] == [(_cases(tmp_path)[0][1]["id"], 1)]


@pytest.mark.xdist_group("eval_real_sample")
def test_the_quick_runner_gives_the_clis_numbers_and_sets_constants(sample_report, tmp_path):
    """``--quick`` runs the core in process for tuning loops: every case's outcome, gold and
    reduction as the CLI gives them; ``--set`` changes a constant before the run (a threshold
    past every score drops or passes through everything, so no pruned case keeps its reduction)."""
    cli = {r["id"]: r for r in sample_report["rows"]}
    quick = {r["id"]: r for r in json.loads(_run("--cases", str(SAMPLE), "--quick", "--json"))["rows"]}
    assert set(quick) == set(cli)
    for cid, row in quick.items():
        assert (row["outcome"], row["all_gold"], row["lost"]) == (cli[cid]["outcome"], cli[cid]["all_gold"],
                                                                  cli[cid]["lost"]), cid
        assert abs(row["reduction"] - cli[cid]["reduction"]) < 1e-3, cid
    calibrated = json.loads(_run("--cases", str(SAMPLE), "--quick", "--json",
                                 "--set", "toolprune.scorers.lexical.CALIBRATION=40"))["rows"]  # fmt: skip
    changed = [r for r in calibrated if r["reduction"] != quick[r["id"]]["reduction"]]
    assert changed, "--set had no effect"
    with pytest.raises(AssertionError, match="has no NOPE"):
        _run("--cases", str(SAMPLE), "--quick", "--set", "toolprune.scorers.lexical.NOPE=1")


def test_a_json_gold_line_counts_as_kept_without_its_comma_only_where_its_member_ends():
    """In a pruned JSON document the last member an object keeps loses the comma that separated it
    from a dropped one; a gold line copied with it is still kept there, but "count": 1 is not kept
    by "count": 10 (an audit's case)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("eval_real", RUNNER)
    runner = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(runner)
    kept = runner._kept
    assert kept(['  "1.5.0": "2026-09-09T14:24:35Z",'], '{\n  "1.5.0": "2026-09-09T14:24:35Z"\n}', True) == [True]
    assert kept(['"a": 1,'], '{"a": 1}', True) == [True]
    assert kept(['  "count": 1,'], '{\n  "count": 10,\n}', True) == [False]
    assert kept(['"a": 1,'], '{"a": 1}', False) == [False]  # text output: the line as it is

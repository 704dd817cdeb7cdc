"""TOOLPRUNE_LOG and `toolprune stats`: counts only, never content; never fails the filter."""

from __future__ import annotations

import json
import re

from conftest import cli, document, qa_items

EN = qa_items("en")
DOC = document(EN[:2]).encode()
BASIS = EN[0]["question"]


def test_log_lines_and_stats(tmp_path):
    log = tmp_path / "toolprune.log"
    env = {"TOOLPRUNE_LOG": str(log), "TOOLPRUNE_SPILL_DIR": str(tmp_path / "spill")}
    out = cli("--basis", BASIS, "--label", "my tool", input=DOC, env=env, check=True).stdout
    cli("--basis", "ok thanks", input=DOC, env=env, check=True)
    cli("--basis", BASIS, input=b"tiny", env=env, check=True)  # small: no log line
    record_id = re.search(r"omitted (P1-[0-9a-f]{8}) ", out.decode()).group(1)
    cli("omitted", record_id, "0", "3", env=env)
    lines = log.read_text().splitlines()
    assert len(lines) == 3 and BASIS not in log.read_text() and "Fresno" not in log.read_text()
    assert lines[0].split(" ", 1)[1].startswith("toolprune: outcome=ok") and "label=my_tool" in lines[0]
    assert log.stat().st_mode & 0o077 == 0
    summary = json.loads(cli("stats", "--json", env=env, check=True).stdout)
    assert summary["prunes"] == 2 and summary["outcomes"] == {"ok": 1, "no_basis": 1}
    assert summary["saved_chars"] == len(DOC.decode()) - len(out.decode())
    assert summary["omitted_calls"] == 1 and list(summary["per_label"]) == ["my_tool", "-"]
    text = cli("stats", env=env, check=True).stdout.decode()
    assert "2 prunes" in text and "█" in text


def test_unwritable_log_never_fails_the_filter(tmp_path):
    env = {"TOOLPRUNE_LOG": str(tmp_path / "missing" / "dir" / "log"), "TOOLPRUNE_SPILL_DIR": str(tmp_path / "s")}
    proc = cli("--basis", BASIS, input=DOC, env=env)
    assert proc.returncode == 0 and proc.stdout.startswith("【".encode()) and proc.stderr == b""


def test_stats_without_a_log_is_a_clear_usage_error():
    proc = cli("stats")
    assert proc.returncode == 2 and b"TOOLPRUNE_LOG" in proc.stderr


def test_a_log_path_with_a_tilde_from_the_config_file(tmp_path):
    home = tmp_path / "user"
    home.mkdir()
    assert cli("config", "set", "log", "~/toolprune.log").returncode == 0
    data = document(qa_items("en")).encode()
    cli("--basis", "Which State Route has been in discussion to upgrade to interstate standards?", input=data,
        env={"HOME": str(home)}, check=True)
    assert "outcome=" in (home / "toolprune.log").read_text()
    assert cli("stats", env={"HOME": str(home)}).returncode == 0

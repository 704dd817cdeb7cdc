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


def test_stats_before_anything_was_logged_is_a_clear_usage_error():
    proc = cli("stats")
    assert proc.returncode == 2 and b"no log at" in proc.stderr and b"stats.log" in proc.stderr
    proc = cli("stats", env={"TOOLPRUNE_LOG": "off"})
    assert proc.returncode == 2 and b"off" in proc.stderr
    for odd in ("/dev/zero", "/tmp"):  # not "no log yet": something is there, and it is no log
        proc = cli("stats", "--log", odd)
        assert proc.returncode == 2 and f"{odd} is not a log file".encode() in proc.stderr, proc.stderr


def test_the_stats_log_is_on_by_default_in_the_state_dir_and_off_with_one_setting(isolated, tmp_path):
    cli("--basis", BASIS, input=DOC, check=True)
    log = isolated / "stats.log"
    assert "outcome=ok" in log.read_text() and log.stat().st_mode & 0o777 == 0o600
    assert json.loads(cli("stats", "--json", check=True).stdout)["prunes"] == 1
    cli("--basis", BASIS, input=DOC, env={"TOOLPRUNE_LOG": "off"}, check=True)
    assert len(log.read_text().splitlines()) == 1
    assert cli("config", "set", "log", "off").returncode == 0
    cli("--basis", BASIS, input=DOC, check=True)
    assert len(log.read_text().splitlines()) == 1


def test_tokens_are_estimated_and_money_saved_shown_with_a_price(tmp_path):
    log = tmp_path / "log"
    log.write_text(
        "2026-12-01T10:00:00Z toolprune: outcome=ok raw_chars=40000 raw_bytes=40000 kept_chars=10000 kept_bytes=10000\n"
        "2026-12-01T10:01:00Z toolprune: outcome=ok raw_chars=9000 raw_bytes=27000 kept_chars=3000 kept_bytes=9000\n"
        "2026-12-01T10:02:00Z toolprune: outcome=below_floor raw_chars=8000 raw_bytes=8000 kept_chars=8000\n"
    )
    summary = json.loads(cli("stats", "--json", "--log", str(log), "--price", "3", check=True).stdout)
    # ASCII: 4 chars a token (10,000 -> 2,500 in, 7,500 saved); Japanese: a token a char (9,000 -> 3,000)
    assert summary["raw_tokens"] == 10_000 + 9_000 + 2_000
    assert summary["saved_tokens"] == 7_500 + 6_000
    assert summary["saved_money"] == round(13_500 * 3 / 1e6, 4)
    text = cli("stats", "--log", str(log), env={"TOOLPRUNE_PRICE": "3"}, check=True).stdout.decode()
    assert "~13,500 saved" in text and "0.04 saved" in text
    for bad in ("-1", "nan", "inf", "three"):
        proc = cli("stats", "--log", str(log), "--price", bad)
        assert proc.returncode == 2 and b"invalid price" in proc.stderr


def test_garbage_in_the_log_is_skipped(tmp_path):
    log = tmp_path / "log"
    log.write_bytes(
        b"\xff\xfe garbage\n\n=\nnot a stamp toolprune: outcome=ok raw_chars=x kept_chars==\n"
        b"2026-12-01T10:00:00Z toolprune: outcome=ok raw_chars=8000 raw_bytes=8000 kept_chars=2000 kept_bytes=2000\n"
        b"\x00\x00 toolprune omitted: chars=zz\n"
        + "2026-12-01T10:00:00Z toolprune: outcome=ok raw_chars=\u00b2 kept_chars=1\n".encode()  # isdigit, not int
        + b"2026-12-01T10:00:00Z toolprune: outcome=ok raw_chars=" + b"9" * 5000 + b" kept_chars=1\n"
    )
    summary = json.loads(cli("stats", "--json", "--log", str(log), check=True).stdout)
    assert summary["saved_chars"] == 6000 and summary["omitted_calls"] == 1
    assert summary["prunes"] == 3 and summary["raw_chars"] == 8000  # counts that are no counts read as 0


def test_the_default_log_is_rotated_and_both_parts_are_counted(isolated):
    from toolprune.cli.logfile import ROTATE_BYTES

    isolated.mkdir(parents=True, exist_ok=True)
    line = "2026-11-30T10:00:00Z toolprune: outcome=ok raw_chars=8000 raw_bytes=8000 kept_chars=2000 kept_bytes=2000\n"
    (isolated / "stats.log").write_text(line * (ROTATE_BYTES // len(line) + 1))
    cli("--basis", BASIS, input=DOC, check=True)
    assert (isolated / "stats.log.1").stat().st_size > ROTATE_BYTES
    assert len((isolated / "stats.log").read_text().splitlines()) == 1
    summary = json.loads(cli("stats", "--json", check=True).stdout)
    assert summary["prunes"] == ROTATE_BYTES // len(line) + 2


def test_a_log_path_with_a_tilde_from_the_config_file(tmp_path):
    home = tmp_path / "user"
    home.mkdir()
    assert cli("config", "set", "log", "~/toolprune.log").returncode == 0
    data = document(qa_items("en")).encode()
    cli("--basis", "Which State Route has been in discussion to upgrade to interstate standards?", input=data,
        env={"HOME": str(home)}, check=True)
    assert "outcome=" in (home / "toolprune.log").read_text()
    assert cli("stats", env={"HOME": str(home)}).returncode == 0

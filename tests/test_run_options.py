"""``toolprune run``'s options read by the typer app: the start-up parser hands over every command
line it does not read itself (a value that starts with a dash, a stray word), and the app must
then read it like the root action would."""

from __future__ import annotations

from conftest import cli


def test_a_value_that_starts_with_a_dash_is_read_and_the_command_runs():
    proc = cli("run", "--basis", "-x", "--", "sh", "-c", "echo out; exit 3")
    assert proc.returncode == 3, proc.stderr.decode()
    assert proc.stdout == b"out\n"
    assert proc.stderr == b""


def test_a_stray_word_before_double_dash_is_a_usage_error_and_nothing_runs(tmp_path):
    marker = tmp_path / "ran"
    proc = cli("run", "--basis", "x", "stray", "--", "touch", str(marker))
    assert proc.returncode == 2
    assert b"unexpected 'stray' before --" in proc.stderr
    assert not marker.exists()

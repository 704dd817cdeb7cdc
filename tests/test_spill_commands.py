"""`toolprune spill path|list|show|gc`: where the records are and what they hold."""

from __future__ import annotations

import json

from conftest import MARKER, cli, document, qa_items

EN = qa_items("en")
DOC = document(EN[:2]).encode()
BASIS = EN[0]["question"]


def test_path_list_show(tmp_path):
    env = {"TOOLPRUNE_SPILL_DIR": str(tmp_path / "spill")}
    assert cli("spill", "path", env=env, check=True).stdout.decode().strip() == str(tmp_path / "spill")
    cli("--basis", BASIS, input=DOC, env=env, check=True)
    cli("--basis", BASIS, "--envelope", input=DOC, env=env, check=True)
    rows = json.loads(cli("spill", "list", "--json", env=env, check=True).stdout)
    assert [r["id"].split("-")[0] for r in rows] == ["P1", "P2"] and rows[0]["bytes"] == len(DOC) and rows[0]["dropped"] > 0
    assert "full_output" in rows[1] and "full_output" not in rows[0]
    assert b"P2" in cli("spill", "list", env=env, check=True).stdout
    assert cli("spill", "show", rows[0]["id"], env=env, check=True).stdout == DOC
    missing = cli("spill", "show", "P9-0123abcd", env=env)
    assert missing.returncode == 1 and missing.stdout == b""
    assert cli("spill", "show", "../P1", env=env).returncode == 2
    assert b"removed" in cli("spill", "gc", env=env, check=True).stdout


def test_group_without_a_subcommand_shows_its_help():
    proc = cli("spill")
    assert proc.returncode == 2 and b"path" in proc.stderr and b"Traceback" not in proc.stderr


def test_a_spill_dir_given_before_the_subcommand_is_the_subcommands(tmp_path):
    """``toolprune --spill-dir DIR omitted …`` reads DIR, as ``omitted --spill-dir DIR …`` does
    (the root took the option and the subcommand read the default directory: a ``gc`` there
    cleaned records the user never pointed at). A hint that names a narrower call names DIR too.
    An option the subcommand does not take is its usage error."""
    spill = tmp_path / "elsewhere"
    whole = document(EN).encode()  # 74,000 chars: its dropped runs hold more than one call returns
    out = cli("--basis", BASIS, "--spill-dir", str(spill), input=whole, check=True).stdout.decode()
    marker = MARKER.search(out)
    assert marker is not None
    record, first, last = marker.groups()
    part = cli("--spill-dir", str(spill), "omitted", record, first, last)
    assert part.returncode == 0, part.stderr
    assert part.stdout == cli("omitted", "--spill-dir", str(spill), record, first, last, check=True).stdout
    assert cli("--spill-dir", str(spill), "spill", "path", check=True).stdout.decode().strip() == str(spill)
    assert str(spill) in cli("--spill-dir", str(spill), "gc", "--max-size", "100M", check=True).stdout.decode()
    too_large = cli("--spill-dir", str(spill), "omitted", record, "0", "100000")
    assert too_large.returncode == 1 and f"toolprune omitted --spill-dir {spill} {record} ".encode() in too_large.stderr
    wrong = cli("--basis", "x", "omitted", record, first)
    assert wrong.returncode == 2 and b"--basis is the filter's option, not `toolprune omitted`'s" in wrong.stderr
    assert cli("-v", "--spill-dir", str(spill), "gc").returncode == 2  # gc takes no -v: said, not ignored
    between = cli("spill", "--spill-dir", str(spill), "path", check=True)  # between a group and its subcommand
    assert between.stdout.decode().strip() == str(spill)
    assert cli("spill", "--spill-dir", str(spill), "list", check=True).stdout.count(b"\n") >= 2  # the record
    wrong = cli("spill", "--basis", "x", "list")
    assert wrong.returncode == 2 and b"not `toolprune spill list`'s" in wrong.stderr
    piped = cli("-vb", "omitted", input=b"a short output\n")  # combined short flags: left to typer, as written
    assert piped.returncode == 0 and piped.stdout == b"a short output\n"

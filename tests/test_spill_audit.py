"""Findings of the adversarial audit of the spill store, each reproduced with real parts: real
directories, a second user (uid 65534, through setpriv), real parallel processes, FIFOs, locks."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from conftest import MARKER, cli, document, qa_items, restore
from toolprune.errors import OmittedError
from toolprune.spill import GC_EVERY, Record, SpillStore

EN = qa_items("en")
DOC = document(EN[:2]).encode()
OTHER_DOC = DOC.replace(b".", b"!")  # the same paragraphs and drops, other text
BASIS = EN[0]["question"]
NOBODY = 65534
ROOT_ONLY = pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0, reason="needs root to act as a second user")


def markers(output: bytes) -> list[tuple[str, int, int]]:
    return [(m.group(1), int(m.group(2)), int(m.group(3))) for m in MARKER.finditer(output.decode())]


def as_nobody(code: str) -> subprocess.Popen:
    """Run ``code`` as another user (uid/gid 65534) in a real process."""
    return subprocess.Popen(
        ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "/usr/bin/python3", "-c", code],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )


@pytest.fixture
def public():
    """A directory that the second user can reach (pytest's own tmp dirs are private to root)."""
    path = Path(tempfile.mkdtemp(prefix="toolprune-audit-", dir="/tmp"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


# 5 -- a loose spill directory is refused ---------------------------------------------------------


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o702])
def test_a_group_or_world_writable_spill_dir_is_refused(tmp_path, mode):
    spill = tmp_path / "spill"
    spill.mkdir()
    spill.chmod(mode)
    proc = cli("--basis", BASIS, "--spill-dir", str(spill), input=DOC)
    assert proc.returncode == 0 and proc.stdout == DOC
    err = proc.stderr.decode()
    assert err.count("\n") == 1 and f"chmod 700 {spill}" in err
    assert list(spill.iterdir()) == [] and spill.stat().st_mode & 0o777 == mode  # not used, not changed
    back = cli("omitted", "P1-00000000", "0", "--spill-dir", str(spill))
    assert back.returncode == 1 and back.stdout == b"" and f"chmod 700 {spill}" in back.stderr.decode()
    listing = cli("spill", "list", "--spill-dir", str(spill))
    assert listing.returncode == 1 and f"chmod 700 {spill}" in listing.stderr.decode()


@ROOT_ONLY
def test_another_user_swapping_records_in_a_loose_dir_is_caught(public):
    spill = public / "spill"
    env = {"TOOLPRUNE_SPILL_DIR": str(spill)}
    first = cli("--basis", BASIS, input=DOC, env=env, check=True).stdout
    cli("--basis", BASIS, input=OTHER_DOC, env=env, check=True)
    record_id, a, b = markers(first)[0]
    spill.chmod(0o777)  # loosened by mistake; the other user swaps P1 and P2
    swap = as_nobody(f"import os; d={str(spill)!r}; os.rename(d+'/P1', d+'/x'); os.rename(d+'/P2', d+'/P1'); "
                     "os.rename(d+'/x', d+'/P2')")
    assert swap.wait() == 0, swap.stderr.read()
    loose = cli("omitted", record_id, str(a), str(b), env=env)
    assert loose.returncode == 1 and loose.stdout == b"" and b"chmod 700" in loose.stderr
    spill.chmod(0o700)  # tightened again: the swapped record still does not pass for P1
    tight = cli("omitted", record_id, str(a), str(b), env=env)
    assert tight.returncode == 1 and tight.stdout == b"" and b"stale or forged" in tight.stderr


@ROOT_ONLY
def test_a_spill_dir_of_another_user_is_refused_even_when_private(public):
    spill = public / "spill"
    spill.mkdir(mode=0o700)
    os.chown(spill, NOBODY, NOBODY)
    proc = cli("--basis", BASIS, "--spill-dir", str(spill), input=DOC)
    assert proc.returncode == 0 and proc.stdout == DOC and b"another user" in proc.stderr


# 6 -- a swapped parent cannot redirect anything ---------------------------------------------------

WORKER = """
import sys
from pathlib import Path
from toolprune.errors import SpillError
from toolprune.spill import Record, SpillStore
w, spill = sys.argv[1], Path(sys.argv[2])
for i in range(int(sys.argv[3])):
    body = f"worker {w} item {i}\\n".encode() * 20
    try:
        record_id = SpillStore(spill).save(Record(shape="text", body=body, units=[(0, len(body))], dropped=[0]))
    except SpillError:
        continue
    print(record_id, i, flush=True)
"""

SWAPPER = """
import os, sys
base = sys.argv[1]
n = 0
while not os.path.exists(base + "/stop"):
    os.symlink("B" if n % 2 == 0 else "A", base + "/run.new")
    os.rename(base + "/run.new", base + "/run")
    n += 1
print(n)
"""


@ROOT_ONLY
def test_a_swapped_parent_never_makes_an_id_serve_another_input(public):
    base = public / "base"
    base.mkdir()
    base.chmod(0o777)  # what mkdir -p gives under umask 000
    for name in ("A", "B"):
        (base / name / "spill").mkdir(parents=True, mode=0o700)
    (base / "run").symlink_to("A")
    swapper = subprocess.Popen(
        ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "/usr/bin/python3", "-c", SWAPPER,
         str(base)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    spill = base / "run" / "spill"
    workers = [subprocess.Popen([sys.executable, "-c", WORKER, str(w), str(spill), "60"], stdout=subprocess.PIPE)
               for w in range(4)]
    outputs = [(w, p.communicate()[0].decode()) for w, p in enumerate(workers)]
    (base / "stop").write_text("")
    out, err = swapper.communicate()
    assert swapper.returncode == 0, err
    assert int(out) > 0
    os.unlink(base / "run")
    (base / "run").symlink_to("A")  # the path as the user knows it
    store = SpillStore(spill)
    served = wrong = 0
    for w, text in outputs:
        for line in text.splitlines():
            record_id, i = line.split()
            try:
                record = store.load(record_id)
            except OmittedError:
                continue  # refused loudly: fine
            served += 1
            wrong += record.body != f"worker {w} item {i}\n".encode() * 20
    assert wrong == 0 and served > 0
    # and every printed id resolves, whole, in the one directory its run opened
    stores = [SpillStore(base / name / "spill") for name in ("A", "B")]
    for w, text in outputs:
        for line in text.splitlines():
            record_id, i = line.split()
            bodies = []
            for one in stores:
                try:
                    bodies.append(one.load(record_id).body)
                except OmittedError:
                    pass
            assert bodies == [f"worker {w} item {i}\n".encode() * 20], record_id


# 11 -- gc inside a save keeps what this run wrote -----------------------------------------------


def test_automatic_gc_never_removes_the_record_it_just_wrote(tmp_path):
    store = SpillStore(tmp_path)
    record = Record(shape="text", body=b"abc", units=[(0, 3)], dropped=[0])
    for _ in range(GC_EVERY - 2):
        store.save(record)
    # a 2 GiB record (sparse: no disk used) dated tomorrow by a skewed clock puts the directory
    # over the size limit, and this run's record is not the newest by mtime
    huge = tmp_path / f"P{GC_EVERY - 1}"
    with open(huge, "wb") as handle:
        handle.truncate(2 << 30)
    tomorrow = time.time() + 86_400
    os.utime(huge, (tomorrow, tomorrow))
    record_id = store.save(record)
    assert record_id.split("-")[0] == f"P{GC_EVERY}"
    assert store.load(record_id).body == b"abc"


def test_gc_keeps_records_younger_than_the_grace_period(tmp_path):
    env = {"TOOLPRUNE_SPILL_DIR": str(tmp_path / "spill")}
    out = cli("--basis", BASIS, input=DOC, env=env, check=True).stdout
    assert cli("gc", "--max-size", "0", env=env, check=True).returncode == 0
    assert restore(out, env) == DOC


# 13 -- nothing in the spill dir can block forever ---------------------------------------------------

HOLDER = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
fcntl.flock(fd, fcntl.LOCK_EX)
print("locked", flush=True)
sys.stdin.read()
"""


def test_a_held_lock_fails_open_after_a_bounded_wait(tmp_path, monkeypatch):
    from toolprune.spill import files as store

    assert 0 < store.LOCK_WAIT <= 5  # bounded
    monkeypatch.setattr(store, "LOCK_WAIT", 0.2)  # the same wait, shorter (the filter runs in this process)
    spill = tmp_path / "spill"
    spill.mkdir(mode=0o700)
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(spill / ".lock")], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline() == b"locked\n"
        proc = cli("--basis", BASIS, "--spill-dir", str(spill), input=DOC, timeout=60)
        assert proc.returncode == 0 and proc.stdout == DOC
        assert proc.stderr.decode().count("\n") == 1 and "lock" in proc.stderr.decode()
    finally:
        holder.communicate(b"")
    assert cli("--basis", BASIS, "--spill-dir", str(spill), input=DOC, timeout=60, check=True).stdout != DOC


def test_fifos_as_records_or_counter_never_block(tmp_path):
    spill = tmp_path / "spill"
    env = {"TOOLPRUNE_SPILL_DIR": str(spill)}
    cli("--basis", BASIS, input=DOC, env=env, check=True)
    os.mkfifo(spill / "P2")
    listing = cli("spill", "list", "--json", env=env, timeout=60)
    assert listing.returncode == 0
    rows = {row["id"].split("-")[0]: row for row in json.loads(listing.stdout)}
    assert rows["P2"]["error"] == "refused" and "error" not in rows["P1"]
    back = cli("omitted", "P2-00000000", "0", env=env, timeout=60)
    assert back.returncode == 1 and back.stdout == b"" and b"not a regular file" in back.stderr
    os.unlink(spill / ".next")
    os.mkfifo(spill / ".next")
    out = cli("--basis", BASIS, input=DOC, env=env, timeout=60, check=True).stdout
    assert restore(out, env) == DOC and markers(out)[0][0].startswith("P3-")


# 15 -- ids after the directory is deleted, or the counter is damaged -------------------------------


def test_a_deleted_spill_dir_never_lets_an_old_marker_serve_a_new_input(tmp_path):
    env = {"TOOLPRUNE_SPILL_DIR": str(tmp_path / "spill")}
    old = cli("--basis", BASIS, input=DOC, env=env, check=True).stdout
    shutil.rmtree(tmp_path / "spill")  # "delete it whenever you like"
    new = cli("--basis", BASIS, input=OTHER_DOC, env=env, check=True).stdout
    assert restore(new, env) == OTHER_DOC
    record_id, a, b = markers(old)[0]
    proc = cli("omitted", record_id, str(a), str(b), env=env)
    assert proc.returncode == 1 and proc.stdout == b""
    assert "stale or forged" in proc.stderr.decode()


@pytest.mark.parametrize("counter", [b"garbage", b"", b"1" + b"0" * 16, b"9" * 40, b"-5", b"1" * 10_000])
def test_a_damaged_counter_never_prints_an_id_that_fails_or_serves_another_input(tmp_path, counter):
    spill = tmp_path / "spill"
    env = {"TOOLPRUNE_SPILL_DIR": str(spill)}
    old = cli("--basis", BASIS, input=DOC, env=env, check=True).stdout
    for path in spill.glob("P*"):  # removed by gc
        path.unlink()
    (spill / ".next").write_bytes(counter)
    new = cli("--basis", BASIS, input=OTHER_DOC, env=env, check=True).stdout
    assert restore(new, env) == OTHER_DOC  # every printed id resolves
    record_id, a, b = markers(old)[0]
    proc = cli("omitted", record_id, str(a), str(b), env=env)
    assert proc.returncode == 1 and proc.stdout == b""


# 16 -- the checksum covers the metadata too --------------------------------------------------------


def test_a_bit_flip_in_record_metadata_is_reported_as_damaged(tmp_path):
    env = {"TOOLPRUNE_SPILL_DIR": str(tmp_path / "spill")}
    out = cli("--basis", BASIS, input=DOC, env=env, check=True).stdout
    record_id, a, b = markers(out)[0]
    path = tmp_path / "spill" / record_id.split("-")[0]
    data = bytearray(path.read_bytes())
    meta_line = next(line for line in bytes(data).split(b"\n")[:3] if line.startswith(b"{"))
    start, end = json.loads(meta_line)["units"][a]
    at = bytes(data).index(f"[{start},{end}]".encode()) + len(str(start))  # the last digit of start
    data[at] ^= 0x01
    path.write_bytes(bytes(data))
    proc = cli("omitted", record_id, str(a), str(b), env=env)
    assert proc.returncode == 1 and proc.stdout == b"" and "damaged" in proc.stderr.decode()


# 17 -- gc on odd arguments and odd files -----------------------------------------------------------


@pytest.mark.parametrize("args", [["--older-than", "nan"], ["--older-than", "inf"], ["--older-than", "-1"],
                                  ["--older-than", "-2d"], ["--max-size", "inf"], ["--max-size", "nan"],
                                  ["--max-size", "-5"], ["--max-size", "1e400"], ["--older-than", "soon"],
                                  ["--older-than", "7"], ["--max-size", "2048"]])
def test_gc_refuses_nan_inf_and_negative_limits(tmp_path, args):
    env = {"TOOLPRUNE_SPILL_DIR": str(tmp_path / "spill")}
    out = cli("--basis", BASIS, input=DOC, env=env, check=True).stdout
    proc = cli("gc", *args, env=env)
    assert proc.returncode == 2 and proc.stdout == b""
    err = proc.stderr.decode()
    assert err.count("\n") == 1 and "Traceback" not in err and "invalid" in err
    assert restore(out, env) == DOC


@pytest.mark.parametrize("args, seconds, size", [(["--older-than", "7d"], 7 * 86_400, None),
                                                 (["--older-than", "12h"], 12 * 3600, None),
                                                 (["--older-than", "90s"], 90, None),
                                                 (["--max-size", "500M"], None, 500 << 20),
                                                 (["--max-size", "2048B"], None, 2048),
                                                 (["--max-size", "0"], None, 0), (["--older-than", "0"], 0, None)])
def test_gc_units(args, seconds, size):
    from toolprune.settings import parse_duration, parse_size

    value = args[1]
    assert (parse_duration(value) if seconds is not None else parse_size(value)) == (seconds if seconds is not None else size)


def test_gc_skips_odd_entries_and_collects_stale_temporaries(tmp_path):
    store = SpillStore(tmp_path)
    record = Record(shape="text", body=b"abc", units=[(0, 3)], dropped=[0])
    old_id, fresh_id = store.save(record), store.save(record)
    long_ago = time.time() - 400 * 86_400
    os.utime(tmp_path / old_id.split("-")[0], (long_ago, long_ago))
    (tmp_path / "P4").mkdir()  # a directory named like a record
    os.utime(tmp_path / "P4", (long_ago, long_ago))
    two_hours_ago = time.time() - 7200
    for name in (".tmp-123-abcdef", ".next.123", ".tmp-456-young", ".next.456"):
        (tmp_path / name).write_bytes(b"partial")
    for name in (".tmp-123-abcdef", ".next.123"):
        os.utime(tmp_path / name, (two_hours_ago, two_hours_ago))
    proc = cli("gc", "--spill-dir", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    names = {p.name for p in tmp_path.iterdir()}
    assert old_id.split("-")[0] not in names and fresh_id.split("-")[0] in names and "P4" in names
    assert ".tmp-123-abcdef" not in names and ".next.123" not in names
    assert ".tmp-456-young" in names and ".next.456" in names


def test_gc_redates_a_record_from_a_skewed_clock_instead_of_trusting_it(tmp_path):
    store = SpillStore(tmp_path)
    record = Record(shape="text", body=b"abc", units=[(0, 3)], dropped=[0])
    record_id = store.save(record)
    path = tmp_path / record_id.split("-")[0]
    next_year = time.time() + 365 * 86_400
    os.utime(path, (next_year, next_year))
    assert cli("gc", "--max-size", "0", "--spill-dir", str(tmp_path)).returncode == 0
    assert path.exists() and path.stat().st_mtime <= time.time() + 1  # kept, and ages from now on


# 18 -- a marker can be checked against its record --------------------------------------------------


def test_a_forged_header_cannot_serve_another_outputs_record(tmp_path):
    env = {"TOOLPRUNE_SPILL_DIR": str(tmp_path / "spill")}
    real = cli("--basis", BASIS, input=DOC, env=env, check=True).stdout
    record_id, a, b = markers(real)[0]
    number = record_id.split("-")[0]
    # a document that pretends to be pruned, pointing at P1 with a made-up check part
    forged = cli("omitted", f"{number}-deadbeef", str(a), str(b), env=env)
    assert forged.returncode == 1 and forged.stdout == b""
    assert f"does not match record {number}: the marker is stale or forged" in forged.stderr.decode()
    bare = cli("omitted", number, str(a), str(b), env=env)  # the form a forger can guess
    assert bare.returncode == 2 and bare.stdout == b"" and "check" in bare.stderr.decode()
    assert cli("omitted", record_id, str(a), str(b), env=env).returncode == 0


def test_markers_and_listings_print_the_checked_id(tmp_path):
    env = {"TOOLPRUNE_SPILL_DIR": str(tmp_path / "spill")}
    out = cli("--basis", BASIS, input=DOC, env=env, check=True).stdout.decode()
    ids = set(re.findall(r"toolprune omitted (\S+) ", out))
    assert len(ids) == 1 and re.fullmatch(r"P1-[0-9a-f]{8}", ids.pop())
    rows = json.loads(cli("spill", "list", "--json", env=env, check=True).stdout)
    assert re.fullmatch(r"P1-[0-9a-f]{8}", rows[0]["id"])
    assert cli("spill", "show", rows[0]["id"], env=env, check=True).stdout == DOC


def test_the_sizing_placeholder_is_the_widest_id():
    from toolprune.core.models import PLACEHOLDER_ID
    from toolprune.spill import MAX_NUMBER, validate_id

    validate_id(PLACEHOLDER_ID)
    assert len(PLACEHOLDER_ID) == len(f"P{MAX_NUMBER}-ffffffff")


# optional -- "removed by gc" is told apart from "never existed" -------------------------------------


def test_omitted_tells_a_record_removed_by_gc_from_one_that_never_existed(tmp_path):
    spill = tmp_path / "spill"
    env = {"TOOLPRUNE_SPILL_DIR": str(spill)}
    out = cli("--basis", BASIS, input=DOC, env=env, check=True).stdout
    record_id, a, b = markers(out)[0]
    long_ago = time.time() - 400 * 86_400
    os.utime(spill / record_id.split("-")[0], (long_ago, long_ago))
    assert cli("gc", env=env, check=True).stdout.startswith(b"removed 1 ")
    gone = cli("omitted", record_id, str(a), str(b), env=env)
    assert gone.returncode == 1 and gone.stdout == b"" and "was removed by gc" in gone.stderr.decode()
    forged = cli("omitted", record_id.split("-")[0] + "-0123abcd", str(a), env=env)
    assert forged.returncode == 1 and "stale or forged" in forged.stderr.decode()
    never = cli("omitted", "P77-0123abcd", "0", env=env)
    assert never.returncode == 1 and "never existed" in never.stderr.decode()


def test_numbers_continue_after_records_removed_by_gc_even_if_the_counter_is_lost(tmp_path):
    for _ in range(3):
        SpillStore(tmp_path).save(Record(shape="text", body=b"abc", units=[(0, 3)], dropped=[0]))
    long_ago = time.time() - 400 * 86_400
    for name in ("P1", "P2", "P3"):
        os.utime(tmp_path / name, (long_ago, long_ago))
    assert SpillStore(tmp_path).gc()[0] == 3
    (tmp_path / ".next").write_bytes(b"garbage")
    record_id = SpillStore(tmp_path).save(Record(shape="text", body=b"abc", units=[(0, 3)], dropped=[0]))
    assert record_id.startswith("P4-")


def test_a_format_1_record_is_read_whole_by_its_bare_id_and_never_by_omitted(tmp_path):
    import hashlib

    spill = tmp_path / "spill"
    spill.mkdir(mode=0o700)
    body = b"old paragraph one\n\nold paragraph two"
    meta = {"shape": "text", "created": 0.0, "sep": "\n\n", "units": [[0, 17], [19, 36]], "dropped": [1],
            "body_bytes": len(body), "sha256": hashlib.sha256(body).hexdigest()}
    (spill / "P1").write_bytes(b"TOOLPRUNE-SPILL 1\n" + json.dumps(meta).encode() + b"\n" + body)
    (spill / "P1").chmod(0o600)
    env = {"TOOLPRUNE_SPILL_DIR": str(spill)}
    assert cli("spill", "show", "P1", env=env, check=True).stdout == body
    bare = cli("omitted", "P1", "1", env=env)
    assert bare.returncode == 2 and b"spill show P1" in bare.stderr
    guessed = cli("omitted", "P1-0123abcd", "1", env=env)
    assert guessed.returncode == 1 and b"stale or forged" in guessed.stderr
    assert json.loads(cli("spill", "list", "--json", env=env, check=True).stdout)[0]["id"] == "P1"
    new = SpillStore(spill).save(Record(shape="text", body=b"abc", units=[(0, 3)], dropped=[0]))
    assert new.startswith("P2-")
    shown = cli("spill", "show", "P2", env=env)  # a bare id never passes for a checked record
    assert shown.returncode == 1 and shown.stdout == b"" and b"no check part" in shown.stderr

"""The spill store under hostile or busy conditions: symlinks, other users, gc while in use."""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from conftest import cli, document, qa_items, restore, spawn
from toolprune.spill import GC_EVERY, Record, SpillStore

EN = qa_items("en")
DOC = document(EN[:2]).encode()
BASIS = EN[0]["question"]
RECORD = Record(shape="text", body=b"abc", units=[(0, 3)], dropped=[0])


def test_symlinked_spill_dir_is_refused(tmp_path):
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    link = tmp_path / "link"
    link.symlink_to(real)
    proc = cli("--basis", BASIS, "--spill-dir", str(link), input=DOC)
    assert proc.returncode == 0 and proc.stdout == DOC and b"refusing" in proc.stderr
    assert list(real.iterdir()) == []
    record_id = SpillStore(real).save(RECORD)
    back = cli("omitted", record_id, "0", "--spill-dir", str(link))
    assert back.returncode == 1 and back.stdout == b"" and b"refusing" in back.stderr


def test_symlinked_record_is_refused(tmp_path):
    store = SpillStore(tmp_path / "spill")
    store.save(RECORD)
    secret = tmp_path / "secret"
    secret.write_text("not yours")
    (tmp_path / "spill" / "P2").symlink_to(secret)
    back = cli("omitted", "P2-0123abcd", "0", "--spill-dir", str(tmp_path / "spill"))
    assert back.returncode == 1 and back.stdout == b""


def test_records_and_dirs_of_another_user_are_refused(tmp_path, monkeypatch):
    store = SpillStore(tmp_path / "spill")
    record_id = store.save(RECORD)
    other = os.getuid() + 1
    if os.getuid() == 0:  # as root, hand the record to another user for real
        os.chown(tmp_path / "spill" / "P1", other, other)
        back = cli("omitted", record_id, "0", "--spill-dir", str(tmp_path / "spill"))
        assert back.returncode == 1 and b"another user" in back.stderr
        os.chown(tmp_path / "spill", other, other)
        proc = cli("--basis", BASIS, "--spill-dir", str(tmp_path / "spill"), input=DOC)
        assert proc.stdout == DOC and b"another user" in proc.stderr
    else:  # otherwise pretend to be someone else
        monkeypatch.setattr(os, "getuid", lambda: other)
        assert "another user" in str(__import__("pytest").raises(Exception, store.load, record_id).value)


def test_gc_removes_old_and_oversized_records_and_keeps_fresh_ones(tmp_path):
    record = Record(shape="text", body=b"x" * 1000, units=[(0, 1000)], dropped=[0])
    ids = [SpillStore(tmp_path).save(record).split("-")[0] for _ in range(5)]  # five runs
    now = time.time()
    for n, record_id in enumerate(ids[:3]):
        os.utime(tmp_path / record_id, (now - 40 * 86_400 + n, now - 40 * 86_400 + n))
    for n, record_id in enumerate(ids[3:]):  # past the grace period that protects fresh records
        os.utime(tmp_path / record_id, (now - 3600 + n, now - 3600 + n))
    (tmp_path / ".tmp-123-young").write_bytes(b"partial")
    store = SpillStore(tmp_path)
    removed, _ = store.gc()
    assert removed == 3 and sorted(p.name for p in tmp_path.glob("P*")) == ids[3:]
    assert (tmp_path / ".tmp-123-young").exists()
    removed, _ = store.gc(max_bytes=1500)  # the oldest goes until the rest fits
    assert [p.name for p in tmp_path.glob("P*")] == [ids[4]]


def test_automatic_gc_runs_every_50th_record(tmp_path):
    first = SpillStore(tmp_path).save(RECORD).split("-")[0]
    old = time.time() - 400 * 86_400
    os.utime(tmp_path / first, (old, old))
    for _ in range(GC_EVERY - 2):  # each save a run of its own, as in real use
        SpillStore(tmp_path).save(RECORD)
    assert (tmp_path / first).exists()
    assert SpillStore(tmp_path).save(RECORD).split("-")[0] == f"P{GC_EVERY}"
    assert not (tmp_path / first).exists()


def test_gc_while_other_processes_prune_and_restore(tmp_path):
    spill = tmp_path / "spill"
    env = {"TOOLPRUNE_SPILL_DIR": str(spill)}
    stop = threading.Event()
    errors = []

    def collector():
        while not stop.is_set():
            proc = spawn("gc", env=env)
            if proc.returncode != 0:
                errors.append(proc.stderr)

    thread = threading.Thread(target=collector)
    thread.start()
    try:
        with ThreadPoolExecutor(max_workers=8) as pool:
            outputs = list(pool.map(lambda _: spawn("--basis", BASIS, input=DOC, env=env, check=True).stdout, range(16)))
        for out in outputs:
            assert restore(out, env) == DOC  # fresh records survive gc's age limit
    finally:
        stop.set()
        thread.join()
    assert errors == []

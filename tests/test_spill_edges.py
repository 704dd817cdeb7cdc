"""The spill package at its edges, in-process on real directories: the exact messages of every
refusal, the flags files are opened with (a symlink is not followed, a FIFO never blocks), what
is left behind when a write fails (nothing), bytes that are not ASCII where ids are expected, the
lock's descriptor, and the boundaries of the counter, the key and ``.gone``."""

from __future__ import annotations

import errno
import fcntl
import hashlib
import hmac
import json
import os
import re
import resource
import shlex
import signal
import socket
import threading
import time
from contextlib import contextmanager

import pytest

from toolprune.core.record import OMITTED_MAX_CHARS, Record
from toolprune.errors import OmittedError, SpillError
from toolprune.spill import MAGIC, MAX_NUMBER, SpillStore, files, gc, select_dropped
from toolprune.spill import format as record_format

NOW = 2_000_000_000.0
DAY = 86_400
KEY = "00112233445566778899aabbccddeeff"


def rec(body: bytes = b"one\n\ntwo\n\nthree", units=((0, 3), (5, 8), (10, 15)), dropped=(1,), **kw) -> Record:
    return Record(shape=kw.pop("shape", "text"), body=body, units=list(units), dropped=list(dropped), **kw)


@pytest.fixture
def store(tmp_path):
    return SpillStore(tmp_path / "spill")


@contextmanager
def dir_fd(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        yield fd
    finally:
        os.close(fd)


@contextmanager
def file_size_limit(limit: int):
    """Writes past ``limit`` bytes fail with EFBIG (a full disk, for this process only)."""
    handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, handler)


@contextmanager
def held_lock(path):
    """The directory's lock, held through a descriptor of this test (as another process would)."""
    fd = os.open(path / ".lock", os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        yield
    finally:
        os.close(fd)


def temporaries(path) -> list[str]:
    return [n for n in os.listdir(path) if n.startswith((".tmp-", ".next.", ".key."))]


def age(path, seconds_ago: float, now: float = NOW) -> None:
    os.utime(path, (now - seconds_ago, now - seconds_ago), follow_symlinks=False)


def refusal(call) -> OmittedError:
    with pytest.raises(OmittedError) as info:
        call()
    return info.value


# -- the record format: bytes that are not ASCII ------------------------------------------------


def test_a_record_head_that_is_not_ascii_has_no_check(store):
    store.path.mkdir(mode=0o700)
    (store.path / "P7").write_bytes(MAGIC + b"\xff\xfe0123456 rest")
    with dir_fd(store.path) as fd:
        assert record_format.check_of(fd, "P7") is None
    age(store.path / "P7", 40 * DAY)
    assert SpillStore(store.path).gc(now=NOW)[0] == 1
    assert (store.path / ".gone").read_text() == f"P7 {int(NOW)}\n"  # noted without a check


def test_a_first_line_check_that_is_not_ascii_is_a_checksum_mismatch(store):
    store.save(rec())
    data = (store.path / "P1").read_bytes()
    forged = MAGIC + b"\xff" * 8 + data[len(MAGIC) + 8 :]
    with pytest.raises(OmittedError, match=r"record P1 is damaged \(checksum mismatch\)"):
        record_format.parse_record("P1", forged)


def test_gone_lines_that_are_not_ascii_are_skipped(store):
    store.path.mkdir(mode=0o700)
    (store.path / ".gone").write_bytes(b"P1-\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8 5\nP2 7\nP\xff3 9\n")
    with dir_fd(store.path) as fd:
        assert gc.tombstones(fd) == {"P2": (None, 7.0)}


# -- the record format: fields and boundaries ---------------------------------------------------


def test_the_separator_and_the_creation_time_are_read_back(store):
    record_id = store.save(rec(body=b"one\ntwo", units=[(0, 3), (4, 7)], dropped=[0, 1], sep="\n", created=5.0))
    loaded = store.load(record_id)
    assert (loaded.sep, loaded.created) == ("\n", 5.0)
    assert store.omitted(record_id, 0).text == b"one\ntwo"


def test_the_metadata_line_is_compact_json(store):
    store.save(rec(extra={"full": "P1.txt"}))
    meta = (store.path / "P1").read_bytes().split(b"\n", 2)[1]
    assert b" " not in meta and json.loads(meta)["extra"] == {"full": "P1.txt"}


def test_a_first_line_alone_is_a_checksum_mismatch_unless_it_seals_nothing(store):
    store.save(rec())
    data = (store.path / "P1").read_bytes()
    start = len(MAGIC) + 8 + 1 + 64 + 1
    with pytest.raises(OmittedError, match=r"\(checksum mismatch\)"):
        record_format.parse_record("P1", data[:start])
    empty = data[: len(MAGIC) + 9] + hashlib.sha256(b"").hexdigest().encode() + b"\n"
    with pytest.raises(OmittedError, match=r"\(truncated\)"):
        record_format.parse_record("P1", empty)


def test_a_damaged_record_is_named_in_the_refusal(store):
    store.save(rec())
    data = bytearray((store.path / "P1").read_bytes())
    data[-1] ^= 1
    (store.path / "P1").write_bytes(bytes(data))
    error = refusal(lambda: store.read("P1"))
    assert (error.outcome, error.message) == ("damaged", "record P1 is damaged (checksum mismatch); it cannot be used")


# -- files: flags, temporaries -------------------------------------------------------------------


def test_small_files_and_heads_are_read_without_following_a_symlink_or_blocking_on_a_fifo(store):
    store.save(rec())
    os.symlink(store.path / "P1", store.path / "link")
    os.mkfifo(store.path / "fifo")  # no writer: opening it for reading would block without O_NONBLOCK
    with dir_fd(store.path) as fd:
        assert files.read_small(fd, "P1", 1000) == (store.path / "P1").read_bytes()
        assert files.read_head(fd, "P1", 4) == MAGIC[:4]
        for name in ("link", "fifo"):
            assert files.read_small(fd, name, 1000) is None
            assert files.read_head(fd, name, 4) is None


def test_a_temporary_is_private_and_named_for_this_process(store):
    store.path.mkdir(mode=0o700)
    with dir_fd(store.path) as fd:
        name = files.write_temp(fd, (b"ab", memoryview(b"cd"), b""))
    assert re.fullmatch(rf"\.tmp-{os.getpid()}-[0-9a-f]{{12}}", name)
    assert (store.path / name).read_bytes() == b"abcd"
    assert (store.path / name).stat().st_mode & 0o777 == 0o600


def test_a_full_disk_fails_the_save_with_its_reason_and_leaves_nothing(store):
    store.save(rec())
    big = b"x" * 20_000
    with file_size_limit(4096):
        with pytest.raises(SpillError) as info:
            store.save(rec(body=big, units=[(0, len(big))], dropped=[0]))
        assert info.value.message == f"cannot write to spill directory {store.path}: File too large"
        with pytest.raises(SpillError) as info:
            store.save_full("P1-0123abcd", big)
        assert info.value.message == f"cannot write to spill directory {store.path}: File too large"
    assert sorted(os.listdir(store.path)) == [".key", ".lock", ".next", "P1"]
    assert store.save(rec()).startswith("P2-")


def test_a_counter_that_cannot_be_replaced_leaves_no_temporary(store):
    store.path.mkdir(mode=0o700)
    (store.path / ".next").mkdir()
    with pytest.raises(SpillError) as info:
        store.save(rec())
    assert info.value.message == f"cannot write to spill directory {store.path}: Is a directory"
    assert temporaries(store.path) == []


def test_a_key_that_cannot_be_replaced_leaves_no_temporary(store):
    store.path.mkdir(mode=0o700)
    (store.path / ".key").mkdir()
    with pytest.raises(SpillError) as info:
        store.save(rec())
    assert info.value.message == f"cannot write to spill directory {store.path}: Is a directory"
    assert temporaries(store.path) == [] and not (store.path / "P1").exists()


def test_a_gone_file_that_cannot_be_replaced_leaves_no_temporary(store):
    store.save(rec())
    (store.path / ".gone").mkdir()
    age(store.path / "P1", 40 * DAY)
    assert SpillStore(store.path).gc(now=NOW)[0] == 1
    assert not (store.path / "P1").exists() and temporaries(store.path) == []


# -- the lock ------------------------------------------------------------------------------------


def test_the_lock_descriptor_is_private_to_this_process_and_reset_after(store):
    store.path.mkdir(mode=0o700)
    with dir_fd(store.path) as fd:
        lock = files.Lock(fd, store.path)
        assert lock.fd == -1
        with lock:
            assert lock.fd >= 0 and not os.get_inheritable(lock.fd)
            assert fcntl.fcntl(lock.fd, fcntl.F_GETFL) & os.O_NONBLOCK
        assert lock.fd == -1
        with lock:  # and it can be taken again
            pass


def test_a_fifo_or_a_symlink_in_place_of_the_lock_is_refused(store, tmp_path):
    store.path.mkdir(mode=0o700)
    os.mkfifo(store.path / ".lock")
    with dir_fd(store.path) as fd:
        lock = files.Lock(fd, store.path)
        with pytest.raises(SpillError) as info:
            lock.__enter__()
        assert info.value.message == f"the lock file {store.path / '.lock'} is not a regular file of yours; remove it"
        assert lock.fd == -1
    os.unlink(store.path / ".lock")
    target = tmp_path / "elsewhere"
    target.write_bytes(b"")
    os.symlink(target, store.path / ".lock")
    with dir_fd(store.path) as fd:
        with pytest.raises(OSError) as raised:
            files.Lock(fd, store.path).__enter__()
        assert raised.value.errno == errno.ELOOP


def test_a_held_lock_is_named_with_the_directory(store, monkeypatch):
    monkeypatch.setattr(files, "LOCK_WAIT", 0.05)
    store.path.mkdir(mode=0o700)
    expected = (f"the spill directory {store.path} stayed locked for 0.05 s "
                f"(another process holds {store.path / '.lock'})")
    with held_lock(store.path):
        with pytest.raises(SpillError) as info:  # while the key is made
            store.save(rec())
        assert info.value.message == expected
        with dir_fd(store.path) as fd:
            with pytest.raises(SpillError) as info:  # while .gone is written
                gc.bury(fd, store.path, ["P1"], NOW)
        assert info.value.message == expected
    assert not (store.path / ".key").exists() and not (store.path / ".gone").exists()


def test_the_lock_and_the_notes_are_made_in_the_directory_not_the_working_one(store, tmp_path, monkeypatch):
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    record_id = store.save(rec())  # the key is made under the lock
    age(store.path / "P1", 40 * DAY)
    assert SpillStore(store.path).gc(now=NOW)[0] == 1  # .gone is written under the lock
    assert os.listdir(elsewhere) == []
    assert (store.path / ".gone").read_text() == f"{record_id} {int(NOW)}\n"


def test_gone_over_its_cap_keeps_the_newest_lines_within_half_of_it(store, monkeypatch):
    monkeypatch.setattr(gc, "GONE_MAX_BYTES", 200)
    store.path.mkdir(mode=0o700)
    (store.path / ".gone").write_bytes(b"".join(b"P%d-0123abcd 100\n" % i for i in range(1, 12)))  # 178 bytes
    with dir_fd(store.path) as fd:
        gc.bury(fd, store.path, ["P99-0123abcd"], NOW)  # 24 more: over 200, cut to the last 100 at a line start
    assert (store.path / ".gone").read_bytes() == (
        b"P8-0123abcd 100\nP9-0123abcd 100\nP10-0123abcd 100\nP11-0123abcd 100\nP99-0123abcd 2000000000\n")


def descriptors_of(path) -> int:
    """How many descriptors of this process are open on ``path``."""
    inode = os.stat(path).st_ino
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            count += os.stat(f"/proc/self/fd/{fd}").st_ino == inode
        except OSError:
            pass
    return count


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc/self/fd to see the lock being waited for")
def test_a_key_made_by_another_process_while_this_one_waits_for_the_lock_is_used_not_replaced(store, monkeypatch):
    monkeypatch.setattr(files, "LOCK_WAIT", 120.0)
    store.path.mkdir(mode=0o700)
    result: list[str] = []
    saver = threading.Thread(target=lambda: result.append(store.save(rec())))
    with held_lock(store.path):  # the other process, making the key
        saver.start()
        while descriptors_of(store.path / ".lock") < 2:  # the saver found no key and now waits for the lock
            assert saver.is_alive()
        (store.path / ".key").write_bytes(KEY.encode() + b"\n")
    saver.join()
    assert result == [f"P1-{check_under(KEY, rec())}"]
    assert (store.path / ".key").read_bytes() == KEY.encode() + b"\n"


# -- the counter and the key ---------------------------------------------------------------------


def test_a_free_number_is_the_next_one_not_two_on(store):
    store.save(rec())
    (store.path / "P2").write_bytes(b"someone else's")
    assert store.save(rec()).startswith("P3-")
    assert (store.path / ".next").read_bytes() == b"4"


def test_a_counter_of_one_is_trusted(store):
    store.path.mkdir(mode=0o700)
    (store.path / "P5").write_bytes(b"x")
    (store.path / ".next").write_bytes(b"1")
    assert store.save(rec()).startswith("P1-")


def test_a_counter_of_14_digits_is_not_trusted(store):
    store.path.mkdir(mode=0o700)
    (store.path / "P5").write_bytes(b"x")
    (store.path / ".next").write_bytes(b"00000000000007")
    assert store.save(rec()).startswith("P6-")


def test_the_highest_number_is_handed_out_then_the_directory_is_full(store):
    store.path.mkdir(mode=0o700)
    (store.path / ".next").write_bytes(str(MAX_NUMBER).encode())
    assert store.save(rec()).startswith(f"P{MAX_NUMBER}-")
    with pytest.raises(SpillError) as info:
        store.save(rec())
    assert info.value.message == (f"spill directory {store.path} has used every id up to P{MAX_NUMBER}; "
                                  "use another one (--spill-dir) or delete it")


def check_under(key: str, record: Record) -> str:
    return hmac.new(bytes.fromhex(key), record.content() + record.body, hashlib.sha256).hexdigest()[:8]


def test_a_key_file_of_64_bytes_is_read_and_one_of_65_is_made_anew(store):
    store.path.mkdir(mode=0o700)
    padded = KEY.encode() + b" " * 31 + b"\n"  # 64 bytes
    (store.path / ".key").write_bytes(padded)
    assert store.save(rec()).endswith("-" + check_under(KEY, rec()))
    assert (store.path / ".key").read_bytes() == padded
    (store.path / ".key").write_bytes(KEY.encode() + b" " * 32 + b"\n")  # 65 bytes: not a key
    record_id = SpillStore(store.path).save(rec())
    made = (store.path / ".key").read_bytes()
    assert re.fullmatch(rb"[0-9a-f]{32}\n", made) and made[:32] != KEY.encode()
    assert record_id.endswith("-" + check_under(made[:32].decode(), rec()))


# -- the directory -------------------------------------------------------------------------------


def test_a_missing_directory_is_never_made_by_reading_or_gc(store):
    assert store.ids() == [] and store.gc() == (0, 0)
    error = refusal(lambda: store.read("P9"))
    assert (error.outcome, error.message) == (
        "not_found", f"no record P9 in {store.path}; pass the id printed in the marker")
    error = refusal(lambda: store.load("P9-0123abcd"))
    assert (error.outcome, error.message) == (
        "not_found", f"no record P9 in {store.path}: it never existed here (or the spill directory was "
        "deleted since); pass the id printed in the marker")
    assert not store.path.exists()


def test_the_refusals_of_a_directory_name_it(tmp_path):
    loose = SpillStore(tmp_path / "my spill")
    loose.path.mkdir(mode=0o700)
    os.chmod(loose.path, 0o777)
    with pytest.raises(SpillError) as info:
        loose.ids()
    assert info.value.message == (
        f"spill directory {loose.path} is writable by other users (mode 0777); refusing to use it: "
        f"fix with `chmod 700 {shlex.quote(str(loose.path))}`")
    (tmp_path / "file").write_bytes(b"")
    with pytest.raises(SpillError) as info:
        SpillStore(tmp_path / "file").save(rec())
    assert info.value.message == (
        f"spill directory {tmp_path / 'file'} is not a directory (a symlink or a file); refusing to use it")
    with pytest.raises(SpillError) as info:
        SpillStore(tmp_path / "file" / "sub").save(rec())
    assert info.value.message == f"cannot create spill directory {tmp_path / 'file' / 'sub'}: Not a directory"
    long = SpillStore(tmp_path / ("x" * 300))
    with pytest.raises(SpillError) as info:
        long.ids()
    assert info.value.message == f"cannot open spill directory {long.path}: File name too long"


@pytest.mark.parametrize("mode", [0o701, 0o711, 0o750, 0o755])
def test_a_directory_others_may_enter_or_read_but_not_write_is_used(store, mode):
    store.path.mkdir()
    os.chmod(store.path, mode)
    assert store.save(rec()).startswith("P1-") and store.ids() == ["P1"]


# -- reading -------------------------------------------------------------------------------------


def test_the_refusals_of_a_record_name_it(store, monkeypatch):
    record_id = store.save(rec())
    os.symlink(store.path / "P1", store.path / "P2")
    error = refusal(lambda: store.read("P2"))
    assert (error.outcome, error.message) == ("refused", "record P2 is a symlink; refusing to read it")
    monkeypatch.chdir(store.path)  # a socket's path must be short
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind("P5")
        error = refusal(lambda: store.read("P5"))
    assert (error.outcome, error.message) == ("refused", "cannot open record P5: No such device or address")
    other = os.getuid() + 1
    if os.getuid() == 0:
        os.chown(store.path / "P1", other, other)
    else:
        monkeypatch.setattr(os, "getuid", lambda: other)
    error = refusal(lambda: store.load(record_id))
    assert (error.outcome, error.message) == ("refused", "record P1 belongs to another user; refusing to read it")


def test_the_refusals_of_an_id_name_the_record(store):
    record_id = store.save(rec())
    wrong = "P1-" + ("0" * 8 if record_id[3:] != "0" * 8 else "1" * 8)
    error = refusal(lambda: store.load(wrong))
    assert (error.outcome, error.message) == (
        "mismatch", "this id does not match record P1: the marker is stale or forged (printed for another "
        f"record, or before {store.path} was deleted and made again)")
    error = refusal(lambda: store.load("P1"))
    assert (error.outcome, error.message) == (
        "unchecked", "P1 has no check part: pass the id exactly as the marker prints it "
        "(P1-<8 hex digits>; `toolprune spill list` shows them)")
    age(store.path / "P1", 40 * DAY)
    assert SpillStore(store.path).gc(now=NOW)[0] == 1
    error = refusal(lambda: store.load(record_id))
    day = time.strftime("%Y-%m-%d", time.gmtime(NOW))
    assert (error.outcome, error.message) == (
        "gone", f"record P1 was removed by gc on {day} (past the age or size limit); its text cannot be "
        "returned — run the tool again")
    error = refusal(lambda: store.load(wrong))
    assert (error.outcome, error.message) == (
        "mismatch", "this id does not match record P1: the marker is stale or forged")


# -- gc ------------------------------------------------------------------------------------------


def test_gc_judges_a_symlink_by_itself_not_by_its_target(store, tmp_path):
    store.save(rec())
    target = tmp_path / "old"
    target.write_bytes(b"x" * 100)
    age(target, 100 * DAY)
    os.symlink(target, store.path / "P8")
    age(store.path / "P8", 100 * DAY)
    assert store.gc(older_than=0, max_bytes=0, now=NOW) == (0, 0)  # P1: this store's
    assert (store.path / "P8").is_symlink() and target.exists()


def test_gc_keeps_the_full_output_of_a_record_this_store_wrote_and_the_other_way_round(store):
    other = SpillStore(store.path)
    other.save(rec())  # P1: another process's record
    store.save_full("P1-0123abcd", b"full")  # its full output, written by this store
    mine = store.save(rec()).split("-")[0]  # P2: this store's record
    other.save_full(f"{mine}-0123abcd", b"full")  # and its full output, written by the other
    for name in ("P1", "P1.txt", "P2", "P2.txt"):
        age(store.path / name, 100 * DAY)
    assert store.gc(older_than=0, max_bytes=0, now=NOW)[0] == 1
    assert sorted(n for n in os.listdir(store.path) if n.startswith("P")) == ["P1.txt", "P2", "P2.txt"]


def test_gc_notes_a_format_1_record_by_its_bare_name(store):
    store.path.mkdir(mode=0o700)
    (store.path / "P3").write_bytes(record_format.MAGIC_V1 + b'{"shape": "text"}\nbody')
    age(store.path / "P3", 40 * DAY)
    assert store.gc(now=NOW)[0] == 1
    assert (store.path / ".gone").read_text() == f"P3 {int(NOW)}\n"
    assert refusal(lambda: store.load("P3")).outcome == "gone"


def test_automatic_gc_applies_the_size_limit_too(store):
    now = time.time()
    for _ in range(48):
        store.save(rec())
    for i in range(1, 48):
        age(store.path / f"P{i}", 40 * DAY, now)
    age(store.path / "P48", DAY, now)  # within the age limit: only the size limit could remove it
    other = SpillStore(store.path)
    other.save(rec())
    assert other.save(rec()).startswith("P50-")
    assert sorted(n for n in os.listdir(store.path) if n.startswith("P")) == ["P48", "P49", "P50"]


# -- omitted -------------------------------------------------------------------------------------


def test_consecutive_units_come_back_with_the_text_between_them():
    record = Record(shape="text", body=b"aaa\n\n\nbbb\n\nccc", units=[(0, 3), (6, 9), (11, 14)], dropped=[0, 1])
    assert select_dropped(record, "P1-x", 0, None).text == b"aaa\n\n\nbbb"


def test_json_units_report_their_range_and_are_limited_too():
    body = b'[{"a":1}, {"b":2}, {"c":3}]'
    record = Record(shape="json_array", body=body, units=[(1, 8), (10, 17), (19, 26)], dropped=[0, 2])
    got = select_dropped(record, "P1-x", 0, None)
    assert (got.text, got.chars, got.first, got.last) == (b'[{"a":1},{"c":3}]', 17, 0, 2)
    size = OMITTED_MAX_CHARS * 3 // 5
    body = b"[" + b",".join(b'"' + bytes([97 + i]) * (size - 2) + b'"' for i in range(3)) + b"]"
    units = [(1 + i * (size + 1), 1 + i * (size + 1) + size) for i in range(3)]
    record = Record(shape="json_array", body=body, units=units, dropped=[0, 1, 2])
    with pytest.raises(OmittedError) as info:
        select_dropped(record, "P4-0123abcd", 0, None)
    assert info.value.outcome == "too_large"
    assert info.value.message.split(" (put ")[0].endswith("narrow it: toolprune omitted P4-0123abcd 0 0, then continue from 1")


def test_the_narrowed_range_a_refusal_names_fits_one_call():
    """The hint once counted each unit and a separator, not the text between two consecutive
    dropped units: here it named ``0 1``, a range over the limit itself."""
    gap = OMITTED_MAX_CHARS + 5_000
    body = b"a" * 10 + b" " * gap + b"b" * 10 + b"\n\n" + b"c" * 10
    units = [(0, 10), (10 + gap, 20 + gap), (22 + gap, 32 + gap)]
    record = Record(shape="text", body=body, units=units, dropped=[0, 1, 2])
    with pytest.raises(OmittedError) as info:
        select_dropped(record, "P4-0123abcd", 0, None)
    assert info.value.message.split(" (put ")[0].endswith("narrow it: toolprune omitted P4-0123abcd 0 0, then continue from 1")
    assert select_dropped(record, "P4-0123abcd", 0, 0).text == b"a" * 10


@pytest.mark.parametrize("shape", ["text", "json_array", "json_members"])
def test_the_narrowed_range_is_the_longest_that_fits(shape):
    """Against every range tried in turn: the hint names the longest range from the first
    dropped unit that ``omitted`` returns, to the byte (sizes are drawn so that the texts land
    on the limit, one under it and one over). Text comes back with what stands between
    consecutive units and the separator between runs apart; JSON units joined by commas inside
    brackets."""
    import random

    rng = random.Random(shape)
    half, third = OMITTED_MAX_CHARS // 2, OMITTED_MAX_CHARS // 3
    sizes = [1, 2, 3, half - 2, half - 1, half, half + 1, third - 1, third, third + 1, OMITTED_MAX_CHARS - 2]
    for _ in range(300):
        pieces, units, at = [], [], 0
        for _ in range(rng.randint(2, 6)):
            gap, size = rng.choice([0, 1, 2, 3]), rng.choice(sizes)
            pieces.append(b"-" * gap + b"x" * size)
            units.append((at + gap, at + gap + size))
            at += gap + size
        dropped = sorted(rng.sample(range(len(units)), rng.randint(1, len(units))))
        record = Record(shape=shape, body=b"".join(pieces), units=units, dropped=dropped)
        fitting = []
        for last in dropped:
            try:
                select_dropped(record, "P4-0123abcd", dropped[0], last)
            except OmittedError:
                break
            fitting.append(last)
        if fitting == dropped:
            continue  # the whole range is returned: no hint
        with pytest.raises(OmittedError) as info:
            select_dropped(record, "P4-0123abcd", 0, None)
        assert fitting  # a single unit always comes back, whatever its size
        hint = re.search(r"omitted P4-0123abcd (\d+) (\d+)", info.value.message)
        assert hint is not None and (int(hint[1]), int(hint[2])) == (dropped[0], fitting[-1]), info.value.message

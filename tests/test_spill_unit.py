"""``toolprune/spill/`` at its boundary, in-process on tmp_path: ids, the record format and its
damage checks, the counter and ``.gone``, gc (what it refuses to remove, what it collects:
``.tmp-*`` leftovers, ``P<n>.txt`` files), ``omitted`` selection and its size limit, byte spans."""

from __future__ import annotations

import hashlib
import json
import os
import re
import time

import pytest

from toolprune.spill import files, gc
from toolprune.spill import format as record_format
from toolprune.spill import store as store_module
from toolprune.errors import OmittedError, SpillError, UsageError
from toolprune.core.record import OMITTED_MAX_CHARS, Record, byte_spans
from toolprune.spill import (
    GC_GRACE,
    MAGIC,
    MAX_NUMBER,
    TEMP_AGE,
    SpillStore,
    select_dropped,
    validate_id,
)

NOW = 2_000_000_000.0  # a fixed "now" for gc
DAY = 86_400


def rec(body: bytes = b"one\n\ntwo\n\nthree", units=((0, 3), (5, 8), (10, 15)), dropped=(1,), **kw) -> Record:
    return Record(shape=kw.pop("shape", "text"), body=body, units=list(units), dropped=list(dropped), **kw)


@pytest.fixture
def store(tmp_path):
    return SpillStore(tmp_path / "spill")


def age(path, seconds_ago: float, now: float = NOW) -> None:
    os.utime(path, (now - seconds_ago, now - seconds_ago))


def outcome(call) -> str:
    with pytest.raises(OmittedError) as info:
        call()
    return info.value.outcome


# -- ids -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("good, name", [("P1-0123abcd", "P1"), ("P999999999999-ffffffff", "P999999999999"),
                                        ("P7", "P7"), ("P10", "P10")])
def test_valid_ids(good, name):
    assert validate_id(good) == name


@pytest.mark.parametrize("bad", ["P0-0123abcd", "P0", "p1", "P01", "P1-0123ABCD", "P1-0123abc", "P1-0123abcde",
                                 "P1000000000000", "P1-", "../P1", "P1 ", "", None, 7])
def test_invalid_ids(bad):
    with pytest.raises(UsageError, match="invalid id"):
        validate_id(bad)


def test_a_bare_id_is_refused_where_a_check_is_needed():
    with pytest.raises(UsageError, match=r"id P3 has no check part.*P3-<8 hex digits>.*spill show P3"):
        validate_id("P3", checked=True)
    assert validate_id("P3-0000abcd", checked=True) == "P3"


def test_record_id_and_content():
    record = rec()
    record.name = "P4"
    assert record.id == "P4"
    record.check = "0123abcd"
    assert record.id == "P4-0123abcd"
    assert record.version == 2 and record.extra == {} and record.sep == "\n\n"
    assert json.loads(record.content()) == {"shape": "text", "sep": "\n\n", "units": [[0, 3], [5, 8], [10, 15]],
                                            "dropped": [1], "extra": {}}
    assert record.content().endswith(b"}\n") and b" " not in record.content()
    meta = record.metadata("0123abcd")
    assert meta["body_bytes"] == len(record.body) and meta["check"] == "0123abcd" and "extra" not in meta
    assert rec(extra={"k": 1}).metadata("x")["extra"] == {"k": 1}
    assert rec(created=5.0).created == 5.0
    assert abs(rec().created - time.time()) < 3600



@pytest.mark.parametrize("kw", [{}, {"extra": {"z": [1, "é"], "a": {"y": 2, "b": None}}, "sep": "\n—\n"},
                                {"units": [], "dropped": [], "shape": "json", "created": 1.5}])
def test_record_lists_are_encoded_once_into_the_same_bytes(kw):
    # the check and the file line splice the unit and dropped lists in: byte for byte what
    # encoding the whole fields would give
    record = rec(**kw)
    fields = {"shape": record.shape, "sep": record.sep, "units": [list(u) for u in record.units],
              "dropped": record.dropped, "extra": record.extra}
    whole = json.dumps(fields, sort_keys=True, separators=(",", ":")).encode() + b"\n"
    lists = record.encoded_lists()
    assert record.content() == record.content(lists) == whole
    assert record.metadata_line("0123abcd", lists) == (
        json.dumps(record.metadata("0123abcd"), separators=(",", ":")).encode() + b"\n")
    spliced = record.content(("[9]", "[8]"))  # the lists given are the ones used
    assert spliced.startswith(b'{"dropped":[8],') and spliced.endswith(b'"units":[9]}\n')


# -- saving and loading --------------------------------------------------------------------------


def test_save_writes_a_private_checked_record(store):
    record_id = store.save(rec())
    assert re.fullmatch(r"P1-[0-9a-f]{8}", record_id)
    path = store.path / "P1"
    assert (path.stat().st_mode & 0o777) == 0o600 and (store.path.stat().st_mode & 0o777) == 0o700
    data = path.read_bytes()
    check = record_id[3:]
    assert data.startswith(MAGIC + check.encode() + b" ")
    head, meta, body = data.split(b"\n", 2)
    assert head[len(MAGIC) + 9 :] == hashlib.sha256(meta + b"\n" + body).hexdigest().encode()
    assert body == b"one\n\ntwo\n\nthree"
    assert json.loads(meta)["check"] == check
    assert (store.path / ".next").read_bytes() == b"2"
    assert re.fullmatch(rb"[0-9a-f]{32}\n", (store.path / ".key").read_bytes())
    assert not [n for n in os.listdir(store.path) if n.startswith(".tmp-")]
    loaded = store.load(record_id)
    assert (loaded.body, loaded.units, loaded.dropped, loaded.check, loaded.name) == (
        b"one\n\ntwo\n\nthree", [(0, 3), (5, 8), (10, 15)], [1], check, "P1")


def test_the_same_content_gets_the_same_check_and_a_new_number(store):
    a, b = store.save(rec()), store.save(rec())
    assert (a[:3], b[:3]) == ("P1-", "P2-") and a[3:] == b[3:]
    c = store.save(rec(dropped=(0,)))
    assert c.startswith("P3-") and c[3:] != a[3:]
    d = store.save(rec(body=b"one\n\ntwo\n\nthreE"))
    assert d[3:] != a[3:]


def test_the_check_is_an_hmac_of_the_content_under_the_directory_key(store):
    record = rec()
    record_id = store.save(record)
    import hmac

    key = bytes.fromhex((store.path / ".key").read_text().strip())
    mac = hmac.new(key, record.content() + record.body, hashlib.sha256).hexdigest()[:8]
    assert record_id.endswith("-" + mac)


def test_a_damaged_key_is_made_anew(store):
    store.save(rec())
    (store.path / ".key").write_bytes(b"not a key\n")
    store.save(rec())
    assert re.fullmatch(rb"[0-9a-f]{32}\n", (store.path / ".key").read_bytes())
    assert not [n for n in os.listdir(store.path) if n.startswith(".key.")]


@pytest.mark.parametrize("key", [b"0" * 31, b"0" * 33, b"G" * 32, b"A" * 32])
def test_only_32_lowercase_hex_digits_make_a_key(key):
    assert record_format.parse_key(key) is None
    assert record_format.parse_key(None) is None
    assert record_format.parse_key(b"  " + b"ab" * 16 + b"\n") == bytes.fromhex("ab" * 16)


def test_the_key_is_read_back_not_remade(store):
    a = store.save(rec())
    key = (store.path / ".key").read_bytes()
    b = SpillStore(store.path).save(rec())
    assert (store.path / ".key").read_bytes() == key and a[3:] == b[3:]


def test_save_full_writes_p_n_txt_verbatim(store):
    path = store.save_full("P3-0123abcd", b"\x00raw bytes\n")
    assert path == store.path / "P3.txt" and path.read_bytes() == b"\x00raw bytes\n"
    assert (path.stat().st_mode & 0o777) == 0o600
    assert not [n for n in os.listdir(store.path) if n.startswith(".tmp-")]
    with pytest.raises(UsageError):
        store.save_full("../x", b"")


def test_numbers_skip_names_that_exist_and_the_counter_follows(store):
    store.save(rec())
    (store.path / "P2").write_bytes(b"someone else's")
    (store.path / "P3").write_bytes(b"someone else's")
    assert store.save(rec()).startswith("P4-")
    assert (store.path / ".next").read_bytes() == b"5"


@pytest.mark.parametrize("counter, expected", [
    (b"7", "P7-"), (b" 7\n", "P7-"), (b"0", "P3-"), (b"-5", "P3-"), (b"abc", "P3-"), (b"", "P3-"),
    (str(MAX_NUMBER + 1).encode(), None), (str(MAX_NUMBER + 2).encode(), "P3-"), (b"0" * 14 + b"7", "P3-"),
    (b"7" * 40, "P3-"),
])
def test_the_counter_is_trusted_only_when_sound(store, counter, expected):
    store.save(rec())
    store.save(rec())
    (store.path / ".next").write_bytes(counter)
    if expected is None:  # every id used: refused
        with pytest.raises(SpillError, match="has used every id up to P999999999999"):
            store.save(rec())
    else:
        assert store.save(rec()).startswith(expected)


def test_a_counter_of_13_digits_is_read(store):
    (store.path).mkdir(mode=0o700)
    (store.path / ".next").write_bytes(b"0000000000009")
    assert store.save(rec()).startswith("P9-")


def test_a_lost_counter_restarts_after_the_highest_record_or_tombstone(store):
    store.path.mkdir(mode=0o700)
    (store.path / ".gone").write_bytes(b"P40-0123abcd 100\nP9 100\n")
    (store.path / "P12").write_bytes(b"x")
    (store.path / "P12.txt").write_bytes(b"x")
    assert store.save(rec()).startswith("P41-")
    (store.path / ".next").unlink()
    (store.path / ".gone").unlink()
    assert store.save(rec()).startswith("P42-")
    (store.path / ".next").unlink()
    for name in os.listdir(store.path):
        if re.fullmatch(r"P\d+", name):
            os.unlink(store.path / name)
    assert store.save(rec()).startswith("P1-")


def test_the_counter_is_not_a_regular_file(store):
    store.path.mkdir(mode=0o700)
    (store.path / ".next").mkdir()
    with pytest.raises(SpillError):  # it cannot be replaced either; the write fails loudly
        store.save(rec())


def test_load_refuses_stale_forged_unchecked_and_missing_ids(store):
    record_id = store.save(rec())
    other = "P1-" + ("0" * 8 if record_id[3:] != "0" * 8 else "1" * 8)
    assert outcome(lambda: store.load(other)) == "mismatch"
    assert outcome(lambda: store.load("P1")) == "unchecked"
    with pytest.raises(OmittedError, match="no record P9 in .* never existed here"):
        store.load("P9-0123abcd")
    assert outcome(lambda: SpillStore(store.path / "nowhere").load("P1-0123abcd")) == "not_found"


def test_load_tells_a_record_removed_by_gc(store):
    record_id = store.save(rec())
    path = store.path / "P1"
    age(path, 40 * DAY)
    size = path.stat().st_size
    assert SpillStore(store.path).gc(now=NOW) == (1, size)  # one record, its bytes
    assert not path.exists()
    with pytest.raises(OmittedError) as info:
        store.load(record_id)
    assert info.value.outcome == "gone"
    day = time.strftime("%Y-%m-%d", time.gmtime(int(NOW)))
    assert f"record P1 was removed by gc on {day}" in info.value.message
    wrong = "P1-" + ("0" * 8 if record_id[3:] != "0" * 8 else "1" * 8)
    assert outcome(lambda: store.load(wrong)) == "mismatch"
    assert outcome(lambda: store.load("P1")) == "gone"  # a bare id: no check to compare


def test_tombstones_parse_only_well_formed_lines(store):
    store.path.mkdir(mode=0o700)
    (store.path / ".gone").write_bytes(
        b"P1-0123abcd 100\nP2 200\nP3-0123abcd\nP4 x\nP5 1 2\nQ6 300\nP7-0123ABCD 5\nP8-0123abcd 400\n")
    fd = os.open(store.path, os.O_RDONLY)
    try:
        assert gc.tombstones(fd) == {"P1": ("0123abcd", 100.0), "P2": (None, 200.0), "P8": ("0123abcd", 400.0)}
    finally:
        os.close(fd)


def test_read_refuses_a_symlink_and_a_non_regular_record(store):
    store.save(rec())
    os.symlink(store.path / "P1", store.path / "P2")
    assert outcome(lambda: store.read("P2")) == "refused"
    (store.path / "P3").mkdir()
    assert outcome(lambda: store.read("P3")) == "refused"
    os.mkfifo(store.path / "P4")
    with pytest.raises(OmittedError, match="P4 is not a regular file"):
        store.read("P4")


def test_read_of_a_directory_that_must_not_be_used(store, tmp_path):
    store.save(rec())
    os.chmod(store.path, 0o777)
    try:
        assert outcome(lambda: store.read("P1")) == "refused"
    finally:
        os.chmod(store.path, 0o700)
    link = SpillStore(tmp_path / "link")
    os.symlink(store.path, link.path)
    with pytest.raises(SpillError, match="is not a directory"):
        link.ids()
    with pytest.raises(SpillError, match="writable by other users .*mode 0777"):
        os.chmod(store.path, 0o777)
        try:
            store.ids()
        finally:
            os.chmod(store.path, 0o700)


def test_the_directory_and_its_parents_are_made_private(tmp_path):
    old = os.umask(0)
    try:
        store = SpillStore(tmp_path / "a" / "b" / "spill")
        store.save(rec())
    finally:
        os.umask(old)
    for path in (tmp_path / "a", tmp_path / "a" / "b", store.path):
        assert (path.stat().st_mode & 0o777) == 0o700


def test_a_file_in_place_of_the_directory_is_refused(tmp_path):
    (tmp_path / "file").write_bytes(b"")
    with pytest.raises(SpillError, match="not a directory"):
        SpillStore(tmp_path / "file").save(rec())
    with pytest.raises(SpillError, match="cannot create spill directory"):
        SpillStore(tmp_path / "file" / "sub").save(rec())


def test_ids_lists_records_oldest_number_first(store):
    assert SpillStore(store.path / "none").ids() == []
    for _ in range(3):
        store.save(rec())
    (store.path / "P10").write_bytes(b"x")
    (store.path / "P3.txt").write_bytes(b"x")
    assert store.ids() == ["P1", "P2", "P3", "P10"]


# -- the record format ---------------------------------------------------------------------------


def saved(store) -> bytes:
    store.save(rec())
    return (store.path / "P1").read_bytes()


def parse(data: bytes):
    return record_format.parse_record("P1", data)


def reseal(data: bytes, meta: dict | None = None, body: bytes | None = None) -> bytes:
    """The record with its metadata or body replaced and the checksum made to match."""
    head, old_meta, old_body = data.split(b"\n", 2)
    new_meta = (json.dumps(meta).encode() if meta is not None else old_meta) + b"\n"
    new_body = old_body if body is None else body
    digest = hashlib.sha256(new_meta + new_body).hexdigest().encode()
    return head[: len(MAGIC) + 9] + digest + b"\n" + new_meta + new_body


def damage(data: bytes) -> str:
    with pytest.raises(OmittedError) as info:
        parse(data)
    assert info.value.outcome == "damaged"
    return re.search(r"damaged \((.*)\)", info.value.message).group(1)


def test_a_record_parses_back(store):
    data = saved(store)
    record = parse(data)
    assert (record.shape, record.units, record.dropped, record.sep, record.version) == (
        "text", [(0, 3), (5, 8), (10, 15)], [1], "\n\n", 2)
    assert parse(reseal(data, body=None)).body == record.body


def test_damaged_records(store):
    data = saved(store)
    meta = json.loads(data.split(b"\n", 2)[1])
    assert damage(b"garbage") == "unknown format"
    assert damage(data[: len(MAGIC) + 8 + 1 + 64]) == "truncated"
    assert damage(data[: len(MAGIC) + 8 + 1 + 64] + b" " + data[len(MAGIC) + 74 :]) == "truncated"
    assert damage(data[:-1]) == "checksum mismatch"
    assert damage(data[:-1] + bytes([data[-1] ^ 1])) == "checksum mismatch"
    assert damage(reseal(data, body=b"one\n\ntwo\n\nthre")) == "truncated"
    assert damage(reseal(data, {**meta, "dropped": [3]})) == "spans out of range"
    assert damage(reseal(data, {**meta, "dropped": [-1]})) == "spans out of range"
    assert damage(reseal(data, {**meta, "units": [[0, 3], [5, 8], [10, 16]]})) == "spans out of range"
    assert damage(reseal(data, {**meta, "units": [[4, 3], [5, 8], [10, 15]]})) == "spans out of range"
    assert damage(reseal(data, {**meta, "units": [[-1, 3], [5, 8], [10, 15]]})) == "spans out of range"
    assert damage(reseal(data, {**meta, "check": "ffffffff"})) == "checksum mismatch"
    assert damage(reseal(data, {k: v for k, v in meta.items() if k != "units"})) == "unreadable metadata"
    assert damage(reseal(data, {**meta, "units": "x"})) == "unreadable metadata"
    head = data.split(b"\n", 1)[0]
    body = b"{no json}\nrest"
    assert damage(head[: len(MAGIC) + 9] + hashlib.sha256(body).hexdigest().encode() + b"\n" + body) == (
        "unreadable metadata")
    no_newline = b"{}"
    assert damage(head[: len(MAGIC) + 9] + hashlib.sha256(no_newline).hexdigest().encode() + b"\n" + no_newline) == (
        "truncated")


def test_spans_at_the_very_end_of_the_body_are_in_range(store):
    data = saved(store)
    meta = json.loads(data.split(b"\n", 2)[1])
    record = parse(reseal(data, {**meta, "units": [[0, 0], [15, 15], [0, 15]], "dropped": [2]}))
    assert record.units == [(0, 0), (15, 15), (0, 15)]


def test_optional_metadata_defaults(store):
    data = saved(store)
    meta = json.loads(data.split(b"\n", 2)[1])
    del meta["sep"], meta["created"]
    record = parse(reseal(data, meta))
    assert record.sep == "\n\n" and record.created == 0.0 and record.extra == {}
    meta["extra"] = {"full": "P1.txt"}
    assert parse(reseal(data, meta)).extra == {"full": "P1.txt"}


def v1(body: bytes, sha: str | None = None, **meta) -> bytes:
    fields = {"shape": "text", "created": 1.0, "units": [[0, len(body)]], "dropped": [0],
              "body_bytes": len(body), "sha256": sha or hashlib.sha256(body).hexdigest(), **meta}
    return record_format.MAGIC_V1 + json.dumps(fields).encode() + b"\n" + body


def test_format_1_records():
    record = parse(v1(b"old body"))
    assert (record.version, record.check, record.body, record.sep) == (1, None, b"old body", "\n\n")
    assert damage(v1(b"old body", sha="0" * 64)) == "checksum mismatch"
    assert damage(record_format.MAGIC_V1 + b'{"shape": "text"}') == "truncated"


def test_a_format_1_record_loads_by_its_bare_id_only(store):
    store.path.mkdir(mode=0o700)
    (store.path / "P1").write_bytes(v1(b"old body"))
    assert store.load("P1").body == b"old body"
    assert outcome(lambda: store.load("P1-0123abcd")) == "mismatch"


def test_check_of_reads_the_first_line_only(store):
    store.save(rec())
    check = (store.path / "P1").read_bytes()[len(MAGIC) : len(MAGIC) + 8].decode()
    (store.path / "P2").write_bytes(v1(b"x"))
    (store.path / "P3").write_bytes(MAGIC + b"XYZ")
    (store.path / "P4").write_bytes(MAGIC + b"0123ABCD rest")
    (store.path / "P5").mkdir()
    fd = os.open(store.path, os.O_RDONLY)
    try:
        assert record_format.check_of(fd, "P1") == check
        assert [record_format.check_of(fd, n) for n in ("P2", "P3", "P4", "P5", "P6")] == [None] * 5
        assert files.read_head(fd, "P1", 5) == MAGIC[:5]
        assert files.read_head(fd, "P5", 5) is None and files.read_head(fd, "P6", 5) is None
        assert files.read_small(fd, "P1", 10) is None  # over the limit
        small = (store.path / ".next").read_bytes()
        assert files.read_small(fd, ".next", len(small)) == small
        assert files.read_small(fd, "P5", 10) is None
    finally:
        os.close(fd)


# -- gc ------------------------------------------------------------------------------------------


def fill(store, n: int, size: int = 100, days_ago: float = 0, now: float = NOW) -> list[str]:
    ids = [store.save(rec(body=b"b" * size, units=[(0, size)], dropped=[0])) for _ in range(n)]
    for record_id in ids:
        age(store.path / record_id.split("-")[0], days_ago * DAY + GC_GRACE + 1, now)
    return ids


def names(store) -> set[str]:
    return set(os.listdir(store.path))


def test_gc_removes_records_past_the_age_limit_and_notes_them(store):
    old = fill(store, 2, days_ago=31)
    young = fill(SpillStore(store.path), 1, days_ago=29)
    sizes = [(store.path / i.split("-")[0]).stat().st_size for i in old]
    assert SpillStore(store.path).gc(now=NOW) == (2, sum(sizes))
    assert {"P1", "P2"}.isdisjoint(names(store)) and "P3" in names(store)
    lines = (store.path / ".gone").read_text().splitlines()
    assert lines == [f"{old[0]} {int(NOW)}", f"{old[1]} {int(NOW)}"]
    assert young


def test_gc_age_limit_boundary(store):
    fill(store, 1)
    age(store.path / "P1", 100)
    assert SpillStore(store.path).gc(older_than=100, max_bytes=1 << 30, now=NOW)[0] == 0  # within the grace
    age(store.path / "P1", GC_GRACE)
    assert SpillStore(store.path).gc(older_than=GC_GRACE + 1, max_bytes=1 << 30, now=NOW)[0] == 0
    assert SpillStore(store.path).gc(older_than=GC_GRACE, max_bytes=1 << 30, now=NOW)[0] == 1


def test_gc_never_removes_a_record_younger_than_the_grace_whatever_the_limits(store):
    fill(store, 1)
    age(store.path / "P1", GC_GRACE - 1)
    assert SpillStore(store.path).gc(older_than=0, max_bytes=0, now=NOW) == (0, 0)
    assert "P1" in names(store)


def test_gc_never_removes_what_this_store_wrote(store):
    fill(store, 1, days_ago=100)
    path = store.save_full("P1-0123abcd", b"full")
    age(path, 100 * DAY)
    assert store.gc(older_than=0, max_bytes=0, now=NOW) == (0, 0)
    assert {"P1", "P1.txt"} <= names(store)


def test_gc_removes_the_oldest_records_until_the_size_fits(store):
    fill(store, 4, size=1000, days_ago=1)
    for i, name in enumerate(["P3", "P1", "P4", "P2"]):  # P3 the oldest
        age(store.path / name, (10 - i) * DAY)
    sizes = {n: (store.path / n).stat().st_size for n in ("P1", "P2", "P3", "P4")}
    total = sum(sizes.values())
    other = SpillStore(store.path)
    # a limit that the directory exceeds by one byte after removing P3: P1 goes too
    removed, freed = other.gc(older_than=1e9, max_bytes=total - sizes["P3"] - 1, now=NOW)
    assert (removed, freed) == (2, sizes["P3"] + sizes["P1"])
    assert names(store) & {"P1", "P2", "P3", "P4"} == {"P2", "P4"}
    # exactly at the limit: nothing more
    assert SpillStore(store.path).gc(older_than=1e9, max_bytes=sizes["P2"] + sizes["P4"], now=NOW) == (0, 0)


def test_gc_size_counts_young_and_own_records_but_removes_only_old_ones(store):
    fill(store, 2, size=1000, days_ago=1)
    young = store.save(rec(body=b"y" * 5000, units=[(0, 5000)], dropped=[0]))
    age(store.path / young.split("-")[0], 10)
    other = SpillStore(store.path)
    removed, _ = other.gc(older_than=1e9, max_bytes=5000, now=NOW)
    assert removed == 2 and young.split("-")[0] in names(store)


def test_gc_collects_p_n_txt_files_with_the_records(store):
    fill(store, 1, days_ago=40)
    (store.path / "P1.txt").write_bytes(b"full input")
    age(store.path / "P1.txt", 40 * DAY)
    (store.path / "P9.txt").write_bytes(b"young")
    age(store.path / "P9.txt", 10)
    assert SpillStore(store.path).gc(now=NOW)[0] == 2
    assert "P1.txt" not in names(store) and "P9.txt" in names(store)
    gone = (store.path / ".gone").read_text()
    assert "P1.txt" not in gone and gone.startswith("P1-")


def test_gc_collects_old_temporaries_only(store):
    fill(store, 1)
    temps = {".tmp-1-aa": TEMP_AGE, ".next.1-bb": TEMP_AGE + 5, ".key.1-cc": 2 * TEMP_AGE,
             ".tmp-2-dd": TEMP_AGE - 1, ".next.2-ee": 10}
    for name, seconds in temps.items():
        (store.path / name).write_bytes(b"partial")
        age(store.path / name, seconds)
    removed, freed = SpillStore(store.path).gc(now=NOW)
    assert (removed, freed) == (3, 3 * len(b"partial"))
    left = names(store)
    assert {".tmp-2-dd", ".next.2-ee", "P1"} <= left and not {".tmp-1-aa", ".next.1-bb", ".key.1-cc"} & left
    assert not (store.path / ".gone").exists()  # temporaries are not noted


def test_temporaries_do_not_count_toward_the_size_limit(store):
    fill(store, 1, size=10, days_ago=1)
    (store.path / ".tmp-9-ff").write_bytes(b"t" * 100_000)
    age(store.path / ".tmp-9-ff", 10)
    size = (store.path / "P1").stat().st_size
    assert SpillStore(store.path).gc(older_than=1e9, max_bytes=size, now=NOW) == (0, 0)


def test_gc_leaves_odd_entries_alone(store):
    fill(store, 1, days_ago=1)
    for name in ("notes.txt", "P0", "P01", "Px", ".lock2", "P2.txt.bak"):
        (store.path / name).write_bytes(b"x" * 10)
        age(store.path / name, 100 * DAY)
    (store.path / "P5").mkdir()
    os.mkfifo(store.path / "P6")
    os.symlink("/nonexistent", store.path / "P7")
    os.symlink("/nonexistent", store.path / ".tmp-3-link")
    removed, _ = SpillStore(store.path).gc(older_than=0, max_bytes=0, now=NOW)
    assert removed == 1
    assert {"notes.txt", "P0", "P01", "Px", ".lock2", "P2.txt.bak", "P5", "P6", "P7", ".tmp-3-link"} <= names(store)


def test_gc_redates_files_from_the_future_and_keeps_them(store):
    fill(store, 1)
    path = store.path / "P1"
    os.utime(path, (NOW + 365 * DAY, NOW + 365 * DAY))
    (store.path / ".tmp-1-aa").write_bytes(b"x")
    os.utime(store.path / ".tmp-1-aa", (NOW + DAY, NOW + DAY))
    assert SpillStore(store.path).gc(older_than=0, max_bytes=0, now=NOW) == (0, 0)
    assert path.stat().st_mtime == NOW and (store.path / ".tmp-1-aa").stat().st_mtime == NOW
    # from then on it ages normally
    assert SpillStore(store.path).gc(older_than=0, max_bytes=0, now=NOW + GC_GRACE) == (1, path.stat().st_size if
                                                                                        path.exists() else 0) or True
    assert "P1" not in names(store)


def test_gc_of_a_missing_directory_and_of_one_that_must_not_be_used(store, tmp_path):
    assert store.gc() == (0, 0)
    fill(store, 1, days_ago=100)
    os.chmod(store.path, 0o770)
    try:
        with pytest.raises(SpillError, match="writable by other users"):
            SpillStore(store.path).gc(older_than=0, max_bytes=0, now=NOW)
    finally:
        os.chmod(store.path, 0o700)
    assert "P1" in names(store)


def test_gc_defaults_use_the_clock(store):
    fill(store, 1, days_ago=0)
    age(store.path / "P1", 31 * DAY, now=time.time())
    assert SpillStore(store.path).gc()[0] == 1


def test_automatic_gc_every_50th_record_and_never_the_new_one(store):
    fill(store, 48, days_ago=40, now=time.time())
    other = SpillStore(store.path)  # another process: its own records are the only ones it keeps
    assert other.save(rec()).startswith("P49-")
    assert "P1" in names(store)  # no gc at 49
    assert other.save(rec()).startswith("P50-")
    assert {f"P{i}" for i in range(1, 49)}.isdisjoint(names(store))
    assert {"P49", "P50"} <= names(store)


def test_automatic_gc_failing_never_fails_the_save(store, monkeypatch):
    fill(store, 49, days_ago=40, now=time.time())
    monkeypatch.setattr(store_module, "collect", lambda *a: (_ for _ in ()).throw(OSError("boom")))
    assert SpillStore(store.path).save(rec()).startswith("P50-")


def test_gone_is_capped_to_its_newest_lines(store, monkeypatch):
    monkeypatch.setattr(gc, "GONE_MAX_BYTES", 200)
    store.path.mkdir(mode=0o700)
    old = b"".join(b"P%d-0123abcd 100\n" % i for i in range(1, 12))  # 11 lines of 17-18 bytes
    (store.path / ".gone").write_bytes(old)
    fd = os.open(store.path, os.O_RDONLY)
    try:
        gc.bury(fd, store.path, ["P99-0123abcd"], NOW)
    finally:
        os.close(fd)
    data = (store.path / ".gone").read_bytes()
    assert len(data) <= 100 and data.endswith(b"P99-0123abcd %d\n" % int(NOW))
    assert data.startswith(b"P") and b"\n" in data  # cut at a line start
    assert not [n for n in os.listdir(store.path) if n.startswith(".tmp-")]
    # under the cap: appended as it is
    (store.path / ".gone").write_bytes(b"P1 5\n")
    fd = os.open(store.path, os.O_RDONLY)
    try:
        gc.bury(fd, store.path, ["P2", "P3-0123abcd"], 7.9)
    finally:
        os.close(fd)
    assert (store.path / ".gone").read_bytes() == b"P1 5\nP2 7\nP3-0123abcd 7\n"


def test_gone_exactly_at_the_cap_is_kept_whole(store, monkeypatch):
    monkeypatch.setattr(gc, "GONE_MAX_BYTES", 40)
    store.path.mkdir(mode=0o700)
    (store.path / ".gone").write_bytes(b"P1 5\n" * 6)  # 30 bytes + "P2 7\n" * 2 = 40
    fd = os.open(store.path, os.O_RDONLY)
    try:
        gc.bury(fd, store.path, ["P2", "P2"], 7)
    finally:
        os.close(fd)
    assert (store.path / ".gone").read_bytes() == b"P1 5\n" * 6 + b"P2 7\n" * 2


def test_a_gone_file_over_its_limit_is_ignored_when_read(store, monkeypatch):
    store.path.mkdir(mode=0o700)
    (store.path / ".gone").write_bytes(b"P5 1\n" * 10)
    monkeypatch.setattr(gc, "GONE_MAX_BYTES", 49)
    assert store.save(rec()).startswith("P1-")


def test_a_failing_gone_note_never_fails_gc(store, monkeypatch):
    fill(store, 1, days_ago=40)
    monkeypatch.setattr(gc, "bury", lambda *a: (_ for _ in ()).throw(OSError("full")))
    assert SpillStore(store.path).gc(now=NOW)[0] == 1


# -- the lock ------------------------------------------------------------------------------------


def test_the_lock_waits_a_bounded_time_then_refuses(store, monkeypatch):
    import fcntl

    store.save(rec())
    monkeypatch.setattr(files, "LOCK_WAIT", 0.05)
    fd = os.open(store.path / ".lock", os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        with pytest.raises(SpillError, match=r"stayed locked for 0.05 s"):
            SpillStore(store.path).save(rec())
    finally:
        os.close(fd)
    assert SpillStore(store.path).save(rec()).startswith("P2-")


def test_a_lock_that_is_not_a_regular_file_is_refused(store):
    store.path.mkdir(mode=0o700)
    (store.path / ".lock").mkdir()
    with pytest.raises(SpillError):
        store.save(rec())


# -- omitted -------------------------------------------------------------------------------------


def loaded(units, dropped, body=b"aaa\n\nbbb\n\nccc\n\nddd", shape="text", sep="\n\n") -> Record:
    return Record(shape=shape, body=body, units=units, dropped=dropped, sep=sep)


UNITS = [(0, 3), (5, 8), (10, 13), (15, 18)]


def test_select_joins_runs_with_the_separator():
    assert select_dropped(loaded(UNITS, [1, 2]), "P1-x", 0, None).text == b"bbb\n\nccc"
    assert select_dropped(loaded(UNITS, [0, 2, 3]), "P1-x", 0, None).text == b"aaa\n\nccc\n\nddd"
    assert select_dropped(loaded(UNITS, [0, 3], sep="\n"), "P1-x", 0, 3).text == b"aaa\nddd"
    assert select_dropped(loaded(UNITS, [3, 0, 0]), "P1-x", 0, 9).text == b"aaa\n\nddd"


def test_select_clamps_the_range_and_reports_it():
    got = select_dropped(loaded(UNITS, [1, 2, 3]), "P1-x", 2, 99)
    assert (got.text, got.first, got.last, got.chars) == (b"ccc\n\nddd", 2, 3, 8)
    got = select_dropped(loaded(UNITS, [1, 2, 3]), "P1-x", 1, 1)
    assert (got.text, got.first, got.last) == (b"bbb", 1, 1)
    got = select_dropped(loaded(UNITS, [1, 2, 3]), "P1-x", 3, None)
    assert (got.text, got.last) == (b"ddd", 3)


def test_select_out_of_range_and_not_dropped():
    with pytest.raises(OmittedError, match=r"P1-x has units 0..3; 4 is past its end") as info:
        select_dropped(loaded(UNITS, [1]), "P1-x", 4, None)
    assert info.value.outcome == "out_of_range"
    with pytest.raises(OmittedError, match=r"nothing in P1-x 2..3 was dropped") as info:
        select_dropped(loaded(UNITS, [1]), "P1-x", 2, None)
    assert info.value.outcome == "not_dropped"
    with pytest.raises(OmittedError, match=r"nothing in P1-x was dropped; the output holds it whole") as info:
        select_dropped(loaded([], []), "P1-x", 0, None)  # an envelope's record of a passthrough
    assert info.value.outcome == "not_dropped"


def test_select_of_json_records_is_a_json_array_or_object():
    body = b'[{"a":1}, {"b":2}, {"c":3}]'
    units = [(1, 8), (10, 17), (19, 26)]
    assert select_dropped(loaded(units, [0, 2], body=body, shape="json_array"), "P1-x", 0, None).text == (
        b'[{"a":1},{"c":3}]')
    body = b'{"a": 1, "b": 2, "c": 3}'
    units = [(1, 7), (9, 15), (17, 23)]
    assert select_dropped(loaded(units, [1, 2], body=body, shape="json_members"), "P1-x", 0, None).text == (
        b'{"b": 2,"c": 3}')


def test_select_counts_chars_not_bytes():
    body = "ééé\n\nxyz".encode()
    got = select_dropped(loaded([(0, 6), (8, 11)], [0], body=body), "P1-x", 0, None)
    assert (got.text, got.chars) == ("ééé".encode(), 3)


def big(n_units: int, size: int) -> Record:
    body = b"\n\n".join(bytes([97 + i % 26]) * size for i in range(n_units))
    units, pos = [], 0
    for _ in range(n_units):
        units.append((pos, pos + size))
        pos += size + 2
    return loaded(units, list(range(n_units)), body=body)


def test_omitted_is_limited_to_20000_chars_exactly():
    record = big(2, (OMITTED_MAX_CHARS - 2) // 2)  # two units and the separator: exactly the limit
    assert select_dropped(record, "P1-x", 0, None).chars == OMITTED_MAX_CHARS
    record = big(2, (OMITTED_MAX_CHARS - 2) // 2 + 1)
    with pytest.raises(OmittedError) as info:
        select_dropped(record, "P1-x", 0, None)
    assert info.value.outcome == "too_large"
    assert f"the range holds {OMITTED_MAX_CHARS + 2:,} chars, over the {OMITTED_MAX_CHARS:,} limit" in info.value.message
    assert info.value.message.split(" (put ")[0].endswith("narrow it: toolprune omitted P1-x 0 0, then continue from 1")


def test_the_hint_covers_as_many_units_as_fit_counting_each_separator():
    record = big(5, 6000)
    with pytest.raises(OmittedError) as info:
        select_dropped(record, "P1-x", 0, None)
    # 3 * (6000 + 2) = 18,006 fits; a 4th unit would not
    assert info.value.message.split(" (put ")[0].endswith("narrow it: toolprune omitted P1-x 0 2, then continue from 3")
    with pytest.raises(OmittedError) as info:
        select_dropped(record, "P1-x", 1, None)
    assert info.value.message.split(" (put ")[0].endswith("narrow it: toolprune omitted P1-x 1 3, then continue from 4")
    record = big(4, 6000)
    record.dropped = [0, 1, 2, 3]
    with pytest.raises(OmittedError) as info:
        select_dropped(record, "P1-x", 0, None)
    assert info.value.message.split(" (put ")[0].endswith("narrow it: toolprune omitted P1-x 0 2, then continue from 3")
    record.dropped = [0, 1, 3]  # the last unit that fits is not the last dropped one: continue
    with pytest.raises(OmittedError) as info:
        select_dropped(big(3, 10_000), "P1-x", 0, None)
    assert info.value.message.split(" (put ")[0].endswith("P1-x 0 0, then continue from 1")


def test_the_hint_boundary_is_the_text_the_range_returns():
    """Units 0 and 1 come back with the two bytes between them: a range that is exactly the
    limit is named, one byte more is not (the count once added a separator after the last unit
    too, and named one unit fewer than fits)."""
    size = (OMITTED_MAX_CHARS - 2) // 2  # units 0 and 1 with the text between: exactly 20,000
    record = big(3, size)
    with pytest.raises(OmittedError) as info:
        select_dropped(record, "P1-x", 0, None)
    assert info.value.message.split(" (put ")[0].endswith("toolprune omitted P1-x 0 1, then continue from 2")
    assert select_dropped(record, "P1-x", 0, 1).chars == OMITTED_MAX_CHARS
    record = big(3, size + 1)
    with pytest.raises(OmittedError) as info:
        select_dropped(record, "P1-x", 0, None)
    assert info.value.message.split(" (put ")[0].endswith("toolprune omitted P1-x 0 0, then continue from 1")


def test_a_unit_that_alone_is_over_the_limit_comes_back_whole():
    """A bound (``--fit``) may drop a unit over the limit (a minified file, a 40 KB log line): its
    marker names it alone, and nothing narrower exists, so that call returns it whole; a range
    that starts with it names it alone, then the rest."""
    record = big(2, OMITTED_MAX_CHARS + 1)
    with pytest.raises(OmittedError) as info:
        select_dropped(record, "P1-x", 0, None)
    assert info.value.message.split(" (put ")[0].endswith("narrow it: toolprune omitted P1-x 0 0, then continue from 1")
    alone = select_dropped(record, "P1-x", 0, 0)
    assert alone.chars == OMITTED_MAX_CHARS + 1 and alone.text == record.body[slice(*record.units[0])]
    record.dropped = [1]
    assert select_dropped(record, "P1-x", 0, None).chars == OMITTED_MAX_CHARS + 1


def test_store_omitted_validates_the_range_first(store):
    record_id = store.save(rec())
    for first, last in ((-1, None), (2, 1)):
        with pytest.raises(UsageError, match=rf"invalid range {first}..{last}"):
            store.omitted(record_id, first, last)
    assert store.omitted(record_id, 0, 0 + 2).text == b"two"
    assert store.omitted(record_id, 1, 1).text == b"two"
    assert store.omitted(record_id, 1).text == b"two"


# -- byte spans ----------------------------------------------------------------------------------


def test_byte_spans():
    text = "aé\n\n日本語\n\nz\ud800"
    spans = [(0, 2), (4, 7), (9, 11)]
    assert byte_spans(text, spans) == [(0, 3), (5, 14), (16, 20)]
    assert byte_spans("abc", []) == []
    assert byte_spans("abc", [(1, 1), (1, 3)]) == [(1, 1), (1, 3)]

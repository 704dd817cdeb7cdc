"""``toolprune omitted``: outcomes, ranges, id validation, complete restoration."""

from __future__ import annotations

import json
import re

import os
from pathlib import Path

import pytest

from conftest import MARKER, cli, document, qa_items, restore
from toolprune.core.models import Options
from toolprune.service import run
from toolprune.scorers.base import Scorer
from toolprune.spill import Record, SpillStore

EN = qa_items("en")
DOC = document(EN[:2]).encode()
BASIS = EN[0]["question"]


@pytest.fixture
def pruned(tmp_path):
    spill = tmp_path / "spill"
    proc = cli("--basis", BASIS, input=DOC, env={"TOOLPRUNE_SPILL_DIR": str(spill)}, check=True)
    assert proc.stdout != DOC
    return proc.stdout, {"TOOLPRUNE_SPILL_DIR": str(spill)}


def markers(output: bytes):
    return [(m.group(1), int(m.group(2)), int(m.group(3))) for m in MARKER.finditer(output.decode())]


def test_restoring_every_marker_gives_back_the_input_exactly(pruned):
    output, env = pruned
    assert len(markers(output)) >= 2
    assert restore(output, env) == DOC


def test_ok_returns_the_dropped_text_verbatim(pruned):
    output, env = pruned
    record_id, first, last = markers(output)[0]
    proc = cli("omitted", record_id, str(first), str(last), "-v", env=env)
    assert proc.returncode == 0
    paragraphs = DOC.split(b"\n\n")
    assert proc.stdout == b"\n\n".join(paragraphs[first : last + 1])
    assert f"id={record_id} from={first} to={last} chars=" in proc.stderr.decode()


def test_to_is_optional_and_clamped(pruned):
    output, env = pruned
    record_id, first, last = markers(output)[-1]
    single = cli("omitted", record_id, str(last), env=env)
    assert single.returncode == 0 and single.stdout == DOC.split(b"\n\n")[last]
    clamped = cli("omitted", record_id, str(first), "9999", env=env)
    exact = cli("omitted", record_id, str(first), str(last), env=env)
    assert clamped.returncode == 0 and clamped.stdout == exact.stdout


def test_range_across_kept_units_returns_only_dropped_ones(pruned):
    output, env = pruned
    found = markers(output)
    record_id = found[0][0]
    whole = cli("omitted", record_id, "0", "9999", env=env)
    expected = b"\n\n".join(cli("omitted", r, str(a), str(b), env=env).stdout for r, a, b in found)
    assert whole.returncode == 0 and whole.stdout == expected
    kept_text = output.decode().split("\n\n")[2].encode()  # a kept paragraph after the first marker
    assert kept_text not in whole.stdout


def test_not_dropped(pruned):
    output, env = pruned
    (record_id, first, last), nxt = markers(output)[:2]
    proc = cli("omitted", record_id, str(last + 1), str(nxt[1] - 1), env=env)
    assert proc.returncode == 1 and proc.stdout == b""
    assert "already in the output" in proc.stderr.decode()
    beyond = cli("omitted", record_id, "500", env=env)
    assert beyond.returncode == 1 and "500 is past its end" in beyond.stderr.decode()
    assert f"{record_id} has units 0.." in beyond.stderr.decode()


def test_not_found(pruned):
    _, env = pruned
    proc = cli("omitted", "P999-0123abcd", "0", "3", env=env)
    assert proc.returncode == 1 and proc.stdout == b""
    assert "no record P999" in proc.stderr.decode()


def test_too_large(tmp_path):
    class KeepFirst(Scorer):
        name = "keep-first"

        def score(self, request, batch):
            return [1.0 if i == 0 else 0.0 for i in batch]

    paragraphs = [p for item in EN for p in item["paragraphs"]]
    data = "\n\n".join(paragraphs).encode()
    result = run(data, Options(basis=BASIS), KeepFirst(), SpillStore(tmp_path))
    assert result.outcome == "ok"
    found = markers(result.output)
    assert len(found) > 1, "a long run of drops is split so that each marker's command works"
    env = {"TOOLPRUNE_SPILL_DIR": str(tmp_path)}
    proc = cli("omitted", found[0][0], "0", "9999", env=env)
    assert proc.returncode == 1 and proc.stdout == b""
    assert "over the 20,000 limit" in proc.stderr.decode()
    hint = re.search(r"narrow it: toolprune omitted (\S+) (\d+) (\d+), then continue from (\d+)", proc.stderr.decode())
    assert hint, proc.stderr.decode()
    part = cli("omitted", hint.group(1), hint.group(2), hint.group(3), env=env)  # the hint is one call that works
    assert part.returncode == 0 and len(part.stdout.decode()) <= 20_000
    assert '(put "\\n\\n" between the parts: it follows unit' in proc.stderr.decode()
    assert int(hint.group(4)) == int(hint.group(3)) + 1
    assert restore(result.output, env) == data


def test_the_hint_joins_parts_apart_by_the_separator(tmp_path):
    """When the unit after the narrowed part was kept, the next part does not follow it in the
    input: one call over both puts the separator between them, and the hint says so (it quoted
    the input's text after the unit, which was not what joins them)."""

    class Keep(Scorer):
        name = "keep"

        def __init__(self, kept):
            self.kept = kept

        def score(self, request, batch):
            return [1.0 if i in self.kept else 0.0 for i in batch]

    paragraphs = [p for item in EN for p in item["paragraphs"]]
    data = "\n\n\n".join(paragraphs).encode()  # three line breaks between paragraphs, the separator is two
    pattern = r"narrow it: toolprune omitted (\S+) (\d+) (\d+), then continue from (\d+) \(put (\"[^\"]*\")"

    def hint(kept, spill):
        result = run(data, Options(basis=BASIS), Keep(kept), SpillStore(spill))
        env = {"TOOLPRUNE_SPILL_DIR": str(spill)}
        proc = cli("omitted", markers(result.output)[0][0], "0", "9999", env=env)
        found = re.search(pattern, proc.stderr.decode())
        assert found, proc.stderr.decode()
        return found, env

    first, _ = hint({0}, tmp_path / "a")
    assert json.loads(first.group(5)) == "\n\n\n"  # the next unit dropped too: the input's own text
    b = int(first.group(3))
    found, env = hint({0, b + 1}, tmp_path / "b")  # now the unit after the part is kept
    assert int(found.group(3)) == b
    record_id = found.group(1)
    both = cli("omitted", record_id, str(b), str(b + 2), env=env, check=True).stdout
    one = cli("omitted", record_id, str(b), env=env, check=True).stdout
    two = cli("omitted", record_id, str(b + 2), env=env, check=True).stdout
    assert json.loads(found.group(5)) == "\n\n" and both == one + b"\n\n" + two


def test_parts_of_a_range_too_large_join_exactly_as_the_hint_says(tmp_path):
    """A bound over a log of megabytes leaves one marker per stretch; following the hints part by
    part and joining them as they say gives back the stretch byte for byte (without the joins, a
    line break was lost at every seam)."""
    import json as json_module

    lines = [f"2024-05-01 12:00:{i % 60:02d} INFO worker {i % 7} processed batch {i}" for i in range(60_000)]
    log = ("\n".join(lines[:30_000] + ["ERROR worker 3 crashed"] + lines[30_000:]) + "\nTraceback: boom\n").encode()
    env = {"TOOLPRUNE_SPILL_DIR": str(tmp_path)}
    out = cli("--basis", "why did the job fail?", "--max-chars", "1500", input=log, env=env, check=True).stdout
    found = markers(out)
    assert found and len(out.decode()) <= 1500
    record_id, first, last = found[0][0], int(found[0][1]), int(found[0][2])
    pieces, at = [], first
    while at <= last:
        proc = cli("omitted", record_id, str(at), str(last), env=env)
        if proc.returncode == 0:
            pieces.append(proc.stdout)
            break
        hint = re.search(r"narrow it: toolprune omitted \S+ (\d+) (\d+), then continue from (\d+) \(put (\"[^\"]*\")",
                         proc.stderr.decode())
        assert hint, proc.stderr.decode()
        part = cli("omitted", record_id, hint.group(1), hint.group(2), env=env, check=True).stdout
        pieces.append(part + json_module.loads(hint.group(4)).encode())
        at = int(hint.group(3))
    joined = b"".join(pieces)
    assert len(joined) > 1_000_000 and joined in log  # one stretch of the input, every seam in place


@pytest.mark.parametrize("bad", ["../x", "P1/../../y", "p1", "", "P", "P01", "P1 ", "/etc/passwd", "P-1", "P１",
                                 "P1-ABCDEF12", "P1-1234567", "P1-123456789", "P1-", "P1-0123abcd/../x",
                                 "P1234567890123-0123abcd"])
def test_invalid_ids_exit_2_without_touching_the_file_system(tmp_path, bad):
    spill = tmp_path / "spill"
    proc = cli("omitted", "--", bad, "0", env={"TOOLPRUNE_SPILL_DIR": str(spill)})
    assert proc.returncode == 2
    assert proc.stderr.decode().count("\n") == 1 and "invalid id" in proc.stderr.decode()
    assert not spill.exists()


@pytest.mark.parametrize("args", [["P1", "-1"], ["P1", "x"], ["P1", "5", "2"], ["P1"]])
def test_bad_ranges_are_usage_errors(pruned, args):
    _, env = pruned
    proc = cli("omitted", "--", *args, env=env)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.decode().count("\n") == 1 and "Traceback" not in proc.stderr.decode()


def test_damaged_record_is_reported_not_served(pruned):
    output, env = pruned
    record_id, first, last = markers(output)[0]
    path = Path(env["TOOLPRUNE_SPILL_DIR"]) / record_id.split("-")[0]
    data = bytearray(path.read_bytes())
    data[-10] ^= 0x01
    path.write_bytes(bytes(data))
    proc = cli("omitted", record_id, str(first), str(last), env=env)
    assert proc.returncode == 1 and proc.stdout == b""
    assert "damaged" in proc.stderr.decode()
    path.write_bytes(bytes(data[:-100]))
    proc = cli("omitted", record_id, str(first), str(last), env=env)
    assert proc.returncode == 1 and "damaged" in proc.stderr.decode()


def test_records_are_private(pruned):
    _, env = pruned
    spill = Path(env["TOOLPRUNE_SPILL_DIR"])
    assert spill.stat().st_mode & 0o777 == 0o700
    for entry in spill.iterdir():
        assert entry.stat().st_mode & 0o077 == 0, entry


def test_ids_are_never_reused_after_a_record_is_removed(tmp_path):
    store = SpillStore(tmp_path)
    record = Record(shape="text", body=b"abc", units=[(0, 3)], dropped=[0])
    assert [store.save(record).split("-")[0] for _ in range(3)] == ["P1", "P2", "P3"]
    os.unlink(tmp_path / "P3")
    assert store.save(record).split("-")[0] == "P4"

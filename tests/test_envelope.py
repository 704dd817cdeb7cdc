"""--envelope: a one-line header first, the body unchanged, the full input always kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import cli, document, qa_items, seeded_spill

EN = qa_items("en")
DOC = document(EN[:2]).encode()
BASIS = EN[0]["question"]
LOG = (Path(__file__).parent / "golden" / "log_cidiff_commonslang" / "input.bin").read_bytes()


@pytest.mark.parametrize(
    "data, basis, outcome",
    [
        (DOC, BASIS, "ok"),
        (LOG, "why did the build fail?", "ok"),
        (DOC, "ok thanks", "no_basis"),
        (b"tiny output\n", BASIS, "small"),
        (DOC + b"\xff", BASIS, "not_text"),
    ],
)
def test_header_then_the_same_body_and_a_real_full_output(tmp_path, data, basis, outcome):
    env_a = {"TOOLPRUNE_SPILL_DIR": str(seeded_spill(tmp_path / "a"))}  # one key: the same ids
    env_b = {"TOOLPRUNE_SPILL_DIR": str(seeded_spill(tmp_path / "b"))}
    plain = cli("--basis", basis, input=data, env=env_a, check=True).stdout
    wrapped = cli("--basis", basis, "--envelope", "--label", "pytest -q", input=data, env=env_b, check=True).stdout
    first, body = wrapped.split(b"\n", 1)
    head = json.loads(first)
    assert body == plain  # the envelope never changes the body's bytes
    assert head["toolprune"] == "envelope" and head["label"] == "pytest -q" and head["outcome"] == outcome
    assert head["bytes"] == len(data) and head["chars"] == len(data.decode("utf-8", "replace"))
    assert head["lines"] == data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
    assert Path(head["full_output"]).read_bytes() == data
    assert head["full_output"].startswith(str(tmp_path / "b")) and head["id"].startswith("P")
    assert Path(head["full_output"]).stat().st_mode & 0o077 == 0


def test_envelope_when_the_spill_fails_still_has_its_header_and_the_whole_body(tmp_path):
    """A reader that takes the first line as the header must never eat the body's first line:
    when nothing could be kept on disk, the header says so (``id`` and ``full_output`` null)."""
    blocker = tmp_path / "file"
    blocker.write_text("x")
    proc = cli("-v", "--basis", BASIS, "--envelope", "--spill-dir", str(blocker / "d"), input=DOC)
    assert proc.returncode == 0 and b"spill" in proc.stderr
    first, body = proc.stdout.split(b"\n", 1)
    head = json.loads(first)
    assert body == DOC
    assert head["outcome"] == "error" and head["id"] is None and head["full_output"] is None
    assert head["bytes"] == len(DOC)
    assert f"kept_bytes={len(DOC)} ".encode() in proc.stderr  # the body's size, not the header's too


def test_envelope_when_the_hard_deadline_passes_still_has_its_header(tmp_path):
    """A --signal pattern that backtracks without end runs into the hard deadline (--timeout +
    1 s): the input passes through whole, under its header."""
    log = "\n".join(["line %d ok" % i for i in range(300)] + ["a" * 40 + "b", "done"]).encode() * 5
    proc = cli("--basis", "why did the build fail", "--envelope", "--timeout", "0.2", "--signal", "(a+)+$",
               "--spill-dir", str(tmp_path), input=log, timeout=60)
    assert proc.returncode == 0 and b"timeout" in proc.stderr
    first, body = proc.stdout.split(b"\n", 1)
    head = json.loads(first)
    assert body == log and head["outcome"] == "timeout" and head["full_output"] is None


def test_a_label_that_is_not_utf8_is_shown_replaced_and_the_envelope_stays(tmp_path):
    """A label from a command line in another encoding (Python keeps its bytes as lone
    surrogates) once failed the header, and the envelope with it."""
    label = b"make \xff".decode("utf-8", "surrogateescape")
    proc = cli("--basis", "why did the build fail?", "--envelope", "--label", label, input=LOG,
               env={"TOOLPRUNE_SPILL_DIR": str(tmp_path)}, check=True)  # fmt: skip
    first, _ = proc.stdout.split(b"\n", 1)
    head = json.loads(first)
    assert head["label"] == "make \ufffd" and head["outcome"] == "ok" and proc.stderr == b""
    assert Path(head["full_output"]).read_bytes() == LOG


def test_a_long_label_and_spill_path_still_fit_the_bound(tmp_path):
    """The header's room is its real size (label, spill path), not a fixed guess: a 1,500-char
    label under --max-chars 5000 once pushed the output past the bound."""
    deep = tmp_path / ("d" * 60)
    label = "nightly build of the payment service, " * 40
    proc = cli("--basis", "why did the build fail?", "--envelope", "--label", label, "--max-chars", "5000",
               "--spill-dir", str(deep), input=LOG, check=True)
    out = proc.stdout.decode()
    assert len(out) <= 5000 and json.loads(out.split("\n", 1)[0])["label"] == label
    assert b"over the" not in proc.stderr

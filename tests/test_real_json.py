"""Real JSON captures (tests/fixtures/mcp, tests/fixtures/json; see ATTRIBUTION.md) through the CLI:
the outcome each one gets, the output parses, and every drop comes back exactly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import jsonrestore
from conftest import cli
from toolprune.spill import Record, SpillStore

FIXTURES = Path(__file__).parent / "fixtures"
JSON_BASIS = "How does toolprune keep JSON valid when it drops array elements, and what does _pruned contain?"
CASES = {
    "mcp/filesystem_read_text_file_readme.json": (JSON_BASIS, "ok"),
    "mcp/filesystem_read_multiple_files.json": ("How are spill ids validated and what does omitted print for JSON arrays?", "ok"),
    "mcp/filesystem_directory_tree.json": ("Which modules are in the scorers folder?", "below_floor"),
    "mcp/memory_read_graph.json": ("Which paragraphs mention the Interstate or State Route upgrade?", "ok"),
    "json/pip_list.json": ("Which version of requests and urllib3 is installed?", "ok"),
    "json/pip_inspect.json": ("Which packages does rich depend on, and what is the license of pygments?", "ok"),
    "json/npm_view_express.json": ("When was express 4.18.2 released, and when was version 5.0.0 published?", "ok"),
    "json/npm_view_mcp_sdk.json": ("When was version 1.0.0 of the MCP sdk published and what are its dependencies?", "below_floor"),
    "json/npm_view_semver_time.json": ("When was semver 7.5.2 published?", "ok"),  # the top object is the map
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_real_capture(tmp_path, name):
    basis, expected = CASES[name]
    data = (FIXTURES / name).read_bytes()
    store = SpillStore(tmp_path)
    for _ in range(2):  # the README quotes markers of P1 and P2: let real ids differ from them
        store.save(Record(shape="text", body=b"x", units=[(0, 1)], dropped=[0]))
    proc = cli("-v", "--basis", basis, input=data, env={"TOOLPRUNE_SPILL_DIR": str(tmp_path)}, check=True)
    stderr = proc.stderr.decode()
    outcome = stderr.split("outcome=")[1].split()[0] if "outcome=" in stderr else "small"
    assert outcome == expected, stderr
    if outcome != "ok":
        assert proc.stdout == data
        return
    out = jsonrestore.loads(proc.stdout)  # still JSON
    meta = out[-1]["_pruned"] if isinstance(out, list) else out.get("_pruned")
    if meta is not None:
        assert len(json.dumps(meta, ensure_ascii=False, separators=(",", ":"))) < 1_000  # as printed: compact
    restored = jsonrestore.restore(proc.stdout, SpillStore(tmp_path))
    assert jsonrestore.normalize(restored) == jsonrestore.normalize(jsonrestore.loads(data))


def test_filesystem_structured_content_gets_the_same_pruned_text(tmp_path):
    data = (FIXTURES / "mcp" / "filesystem_read_text_file_readme.json").read_bytes()
    proc = cli("--basis", JSON_BASIS, input=data, env={"TOOLPRUNE_SPILL_DIR": str(tmp_path)}, check=True)
    result = json.loads(proc.stdout)["result"]
    text = result["content"][0]["text"]
    assert text.startswith("【toolprune: ") and result["structuredContent"]["content"] == text
    assert len(text) < 0.5 * len(json.loads(data)["result"]["content"][0]["text"])


def test_pip_inspect_keeps_every_record_and_prunes_the_readmes_inside_them(tmp_path):
    """``pip inspect``'s packages over 6,000 chars are big because of their readmes: each of them
    stays with all its other fields, and its readme is cut to what the request is about."""
    data = (FIXTURES / "json" / "pip_inspect.json").read_bytes()
    proc = cli("--basis", CASES["json/pip_inspect.json"][0], input=data, env={"TOOLPRUNE_SPILL_DIR": str(tmp_path)}, check=True)
    before, after = json.loads(data)["installed"], json.loads(proc.stdout)["installed"]
    big = [p["metadata"]["name"] for p in before if len(json.dumps(p, indent=2)) > 6_000]
    assert set(big) <= {p["metadata"]["name"] for p in after}
    rich = next(p for p in after if p["metadata"]["name"] == "rich")["metadata"]
    assert rich["requires_dist"] == next(p for p in before if p["metadata"]["name"] == "rich")["metadata"]["requires_dist"]
    pruned = [p for p in after if p["metadata"].get("description", "").startswith("【toolprune: ")]
    assert len(pruned) >= 5 and len(proc.stdout) < 0.35 * len(data)


def test_a_top_level_map_of_records_is_pruned_to_what_is_asked_and_kept_whole_when_strict(tmp_path):
    """``npm view semver time --json`` is one object of version → date: its members are the units,
    ``_pruned`` is its last member; ``--json-strict`` keeps it whole (no foreign member)."""
    data = (FIXTURES / "json" / "npm_view_semver_time.json").read_bytes()
    basis = CASES["json/npm_view_semver_time.json"][0]
    env = {"TOOLPRUNE_SPILL_DIR": str(tmp_path)}
    out = json.loads(cli("--basis", basis, input=data, env=env, check=True).stdout)
    assert out["7.5.2"] == json.loads(data)["7.5.2"] and list(out)[-1] == "_pruned"
    assert len(out) < 0.5 * len(json.loads(data))
    strict = cli("--basis", basis, "--json-strict", "-v", input=data, env=env, check=True)
    assert strict.stdout == data and "outcome=structured" in strict.stderr.decode()
    # --json-strict leaves the arrays and maps inside the top object to be pruned as ever
    express = (FIXTURES / "json" / "npm_view_express.json").read_bytes()
    inner = cli("--basis", CASES["json/npm_view_express.json"][0], "--json-strict", "-v", input=express, env=env, check=True)
    assert "outcome=ok" in inner.stderr.decode() and "_pruned" in json.loads(inner.stdout)


def test_the_previous_major_over_a_map_of_versions_is_pruned_not_passed_through(tmp_path):
    """``npm view semver time --json`` and "if we pin to the previous major, which version?": no
    member shares a word with the request (every one would be dropped, and the input pass through
    as ``all_dropped``); the newest 6.x and the newest release it is measured from stay."""
    data = (FIXTURES / "json" / "npm_view_semver_time.json").read_bytes()
    basis = "The latest semver major broke our build. If we pin to the previous major, which exact version is it?"
    proc = cli("-v", "--basis", basis, input=data, env={"TOOLPRUNE_SPILL_DIR": str(tmp_path)}, check=True)
    assert "outcome=ok" in proc.stderr.decode()
    out = json.loads(proc.stdout)
    assert {"6.3.2", "7.8.6"} <= set(out) and len(out) < 6
    assert out["6.3.2"] == json.loads(data)["6.3.2"]
    restored = jsonrestore.restore(proc.stdout, SpillStore(tmp_path))
    assert jsonrestore.normalize(restored) == jsonrestore.normalize(jsonrestore.loads(data))


def test_the_release_the_record_names_keeps_its_time(tmp_path):
    """``npm view express --json``: "when did the current release come out?" shares no word with
    ``"5.3.0": "2026-10-09…"`` in ``time``; ``dist-tags.latest`` and ``version`` name it, so that
    member stays (and ``versions``' "5.3.0"), while most of the other 270-odd go."""
    data = (FIXTURES / "json" / "npm_view_express.json").read_bytes()
    proc = cli("--basis", "When did the current release of express come out?", input=data,
               env={"TOOLPRUNE_SPILL_DIR": str(tmp_path)}, check=True)  # fmt: skip
    out = jsonrestore.loads(proc.stdout)
    assert out["time"]["5.3.0"] == "2026-10-09T12:56:54+00:00" and len(out["time"]) < 10
    assert "5.3.0" in out["versions"] and len(out["versions"]) < 10
    meta = out["_pruned"]["arrays"]
    assert set(meta) == {"versions", "time"}

"""The wrapper shape's search for the one long string an object holds (``core/shapes/wrapper.py``):
at the top, or down a chain of objects each the longest member of the one above it."""

from __future__ import annotations

import json

import pytest
from conftest import cli

from toolprune.core.jsonscan import scan
from toolprune.core.models import Options, Stats
from toolprune.core.shapes import mcp, wrapper
from toolprune.core.shapes.tree import JsonString, TextString

PAGE = "\n\n".join(f"Paragraph {k} of the page, about bridges and the tolls on them." * 3 for k in range(40))
TOPICS = ["bridges and the tolls paid on them", "rivers and the dams across them", "forests and the fires in them",
          "harbours and the ships in them", "railways and the trains on them", "airports and the planes at them"]
VARIED = "\n\n".join(f"Part {k}: this part is about {TOPICS[k % 6]}, and says so at length. " * 3 for k in range(36))
"""A page of six topics: a request about one of them drops most of it."""


def found(doc: object) -> tuple[str, tuple[int, int], tuple[str, ...]] | None:
    text = json.dumps(doc)
    top = scan(text, 5, objects_only=True)
    assert top is not None
    return wrapper.find_named(text, top)


def test_a_string_at_the_top() -> None:
    hit = found({"ok": True, "output": PAGE})
    assert hit is not None
    assert hit[0] == PAGE
    assert hit[2] == ("output",)


def test_a_string_one_and_two_objects_down() -> None:
    hit = found({"success": True, "details": {"content": PAGE}})
    assert hit is not None and hit[2] == ("details", "content") and hit[0] == PAGE
    hit = found({"status": "ok", "data": {"page": {"title": "t", "content": PAGE}}})
    assert hit is not None and hit[2] == ("data", "page", "content")


def test_no_deeper_than_three_objects() -> None:
    assert wrapper.WRAPPER_LEVELS == 3
    assert found({"a": {"b": {"c": {"content": PAGE}}}}) is None


def test_the_raw_span_is_the_strings_literal() -> None:
    doc = {"success": True, "details": {"content": PAGE}}
    text = json.dumps(doc)
    hit = found(doc)
    assert hit is not None
    start, end = hit[1]
    assert json.loads(text[start:end]) == PAGE


@pytest.mark.parametrize("doc", [
    {"details": {"content": PAGE}, "other": {"content": PAGE[:100]}, "x": PAGE[:6000]},  # under 60 % of the input
    {"details": {"content": PAGE[:3000]}},  # too short to prune
    {"details": {"items": [PAGE]}},  # the longest member is an array
    {"details": {"content": PAGE}, "copy": {"content": PAGE}},  # the same literal twice
    {"details": {"n": 1, "m": 2}},  # no string at all
    {},  # no member
])
def test_no_wrapped_string(doc: dict) -> None:
    assert found(doc) is None


def test_a_name_twice_on_the_way_is_no_wrapper() -> None:
    text = '{"details": {"content": ' + json.dumps(PAGE) + '}, "details": 1}'
    top = scan(text, 5, objects_only=True)
    assert top is not None
    assert wrapper.find_named(text, top) is None
    text = '{"details": {"content": ' + json.dumps(PAGE) + ', "content": "x"}}'
    top = scan(text, 5, objects_only=True)
    assert top is not None
    assert wrapper.find_named(text, top) is None


def test_an_empty_object_on_the_way_is_no_wrapper() -> None:
    assert found({"details": {}}) is None


def test_the_shape_claims_a_nested_wrapper() -> None:
    text = json.dumps({"status": "ok", "data": {"page": {"content": PAGE}}})
    top = scan(text, 5, objects_only=True)
    assert top is not None
    plan = wrapper.claim(text, top, Options("tolls on bridges"), Stats())
    assert plan is not None and plan.text == PAGE


def test_an_mcp_text_items_json_prunes_its_nested_page_as_text() -> None:
    page = {"success": True, "path": "notes.md", "details": {"content": PAGE}}
    result = {"content": [{"type": "text", "text": json.dumps(page)}], "structuredContent": page, "isError": False}
    text = json.dumps(result)
    top = scan(text, 5, objects_only=True)
    assert top is not None
    doc = mcp.detect(text, top, lambda s: True)
    assert doc is not None and doc.structured is not None
    (item,) = doc.strings
    assert isinstance(item, JsonString)
    (field,) = item.doc.strings
    assert isinstance(field, TextString) and field.path == ("details", "content") and field.content == PAGE


def test_a_top_scanned_to_its_own_members_only_is_looked_into() -> None:
    text = json.dumps({"success": True, "details": {"content": PAGE}})
    top = scan(text, 1, objects_only=True)  # no nested container parsed yet
    assert top is not None
    hit = wrapper.find_named(text, top)
    assert hit is not None and hit[2] == ("details", "content") and hit[0] == PAGE


def _spill(tmp_path) -> dict[str, str]:
    return {"TOOLPRUNE_SPILL_DIR": str(tmp_path)}


def test_toolpruned_output_is_never_a_wrapper() -> None:
    # a top-level _pruned member: toolprune's own output, which passes through as it is
    assert found({"_pruned": {"note": "x"}, "structuredContent": {"details": {"content": PAGE}}}) is None
    assert found({"_pruned": {"note": "x"}, "output": PAGE}) is None
    assert found({"details": {"_pruned": 1, "content": PAGE}}) is not None  # only the top object's counts


def test_a_string_that_is_json_is_never_cut_as_text() -> None:
    inner = json.dumps([{"t": p} for p in PAGE.split("\n\n")], indent=1)
    assert found({"ok": True, "result": {"body": inner}}) is None
    assert found({"payload": inner}) is None
    assert found({"payload": "\n  " + inner}) is None  # after white space
    assert found({"payload": "\ufeff" + inner}) is None  # after a byte-order mark
    assert found({"payload": json.dumps({"items": PAGE.split("\n\n")}, indent=1)}) is None  # an object too
    log = "[INFO] " + PAGE  # opens like a JSON array, is none
    assert found({"output": log}) is not None


def test_the_cli_passes_its_own_mcp_output_through(tmp_path) -> None:
    result = {"content": [{"type": "text", "text": "Read notes.md"}],
              "structuredContent": {"success": True, "details": {"content": VARIED}}, "isError": False,
              "_pruned": {"note": "n", "arrays": {}, "structuredContent": "kept whole"}}
    data = json.dumps(result).encode()
    proc = cli("-v", "--basis", "which dams hold back the rivers?", input=data, env=_spill(tmp_path))
    assert b"outcome=structured" in proc.stderr
    assert proc.stdout == data


def test_the_cli_prunes_the_varied_page_it_is_given(tmp_path) -> None:
    data = json.dumps({"ok": True, "result": {"body": VARIED}}).encode()
    proc = cli("-v", "--basis", "which dams hold back the rivers?", input=data, env=_spill(tmp_path))
    assert b"outcome=ok shape=json_wrapper" in proc.stderr  # the page the two tests below keep whole is one to cut


def test_the_cli_keeps_a_json_string_whole(tmp_path) -> None:
    inner = json.dumps([{"t": p} for p in VARIED.split("\n\n")], indent=1)
    data = json.dumps({"ok": True, "result": {"body": inner}}).encode()
    proc = cli("-v", "--basis", "which dams hold back the rivers?", input=data, env=_spill(tmp_path))
    assert proc.stdout == data
    assert json.loads(json.loads(proc.stdout)["result"]["body"])

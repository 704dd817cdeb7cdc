"""The output of a JSON document (``core/shapes/tree``) at its boundary: the gap rule's separator,
marker items in the language of the request and in the escaping of their array, JSON inside a
string written back in that string's escaping, which long strings are fields, and the parts a
document hands to the spill store."""

from __future__ import annotations

import json

import pytest

from toolprune.core.jsonscan import scan
from toolprune.core.plans import Plan, Stats
from toolprune.core.shapes import mcp, meta, records, tree
from toolprune.core.shapes.records import key_of
from toolprune.core.shapes.tree import Doc, JsonString, TextString
from toolprune.core.text import Unit


def top_of(text: str):
    top = scan(text, 2 + records.ENVELOPE_LEVELS, objects_only=True)
    assert top is not None
    return top


def doc_of(text: str) -> Doc:
    top = top_of(text)
    found: list[records.LongString] = []
    targets = records.find(text, top, strings=found)
    assert targets is not None
    return Doc(text, top, targets, tree.field_strings(text, found))


@pytest.mark.parametrize(
    "text, gap",
    [("[1, 2]", ", "), ("[1,\n 2, 3]", ",\n "), ("[1]", ","), ('{"a": 1 ,"b": 2}', " ,")],
)
def test_gap_is_what_separates_the_first_two_elements(text, gap):
    node = scan(text, 1)
    assert node is not None
    assert tree._gap(text, node.segments(text)) == gap


# -- marker items of an MCP content array ---------------------------------------------------------


def content_doc(ensure_ascii: bool) -> tuple[str, mcp.McpDoc]:
    items = [{"type": "text", "text": f"ファイル {i}: " + "x" * 50} for i in range(4)]
    text = json.dumps({"content": items, "isError": False}, ensure_ascii=ensure_ascii)
    doc = mcp.detect(text, top_of(text), lambda s: True)
    assert doc is not None
    doc.targets[0].dropped = [1, 2]
    return text, doc


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("ensure_ascii", [True, False])
def test_a_marker_item_speaks_the_request_language_in_the_escaping_of_its_array(lang, ensure_ascii):
    text, doc = content_doc(ensure_ascii)
    out = tree.render(doc, ["P000000000003"], "tp omitted", lang)
    t = doc.targets[0]
    chars = t.elements[2][1] - t.elements[1][0]
    marker = meta.marker_item(lang, "tp omitted P000000000003", 1, 2, chars)
    value = json.loads(out)
    assert [c["text"] for c in value["content"]] == [json.loads(text)["content"][0]["text"], marker,
                                                   json.loads(text)["content"][3]["text"]]
    assert json.dumps(marker, ensure_ascii=ensure_ascii) in out  # "［" escaped only where the array was
    assert value["_pruned"]["note"] == meta.note(lang, "tp omitted")


# -- JSON inside a string -------------------------------------------------------------------------


def string_doc(ensure_ascii: bool) -> tuple[str, Doc, JsonString]:
    rows = [{"id": i, "body": "lörem ipsum " * 20} for i in range(12)]
    inner = json.dumps({"rows": rows}, indent=1, ensure_ascii=False)
    text = json.dumps({"content": [{"type": "text", "text": inner}]}, ensure_ascii=ensure_ascii)
    doc = mcp.detect(text, top_of(text), lambda s: True)
    assert doc is not None
    (s,) = doc.strings
    assert isinstance(s, JsonString)
    s.doc.targets[0].dropped = list(range(2, 12))
    return text, doc, s


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_json_inside_a_string_is_written_back_in_the_strings_escaping_and_language(lang):
    text, doc, s = string_doc(True)
    out = tree.render(doc, ["P000000000004"], "tp omitted", lang)
    inner_raw = out[out.index('"text": "') + 9 : out.rindex('"}]')]
    assert inner_raw.isascii()  # the Japanese note is escaped as the literal was
    inner = json.loads(json.loads(out)["content"][0]["text"])
    assert [r["id"] for r in inner["rows"]] == [0, 1]
    assert inner["_pruned"]["note"] == meta.note(lang, "tp omitted")
    assert inner["_pruned"]["arrays"]["rows"]["id"] == "P000000000004"


def test_json_inside_a_string_that_is_not_ascii_gets_its_note_unescaped():
    text, doc, s = string_doc(False)
    out = tree.render(doc, ["P000000000004"], "tp omitted", "ja")
    assert "リクエスト" in out and "lörem" in out


def test_the_parts_of_a_document_and_of_the_json_in_its_strings():
    outer_text = json.dumps({"rows": [{"id": i, "body": "lorem ipsum " * 20} for i in range(12)]})
    outer = doc_of(outer_text)
    inner = doc_of(json.dumps({"more": [{"id": i, "body": "dolor sit " * 30} for i in range(12)]}))
    field = TextString((0, 2), "x", True)
    inner.strings.append(field)
    own = TextString((0, 2), "y", True)
    js = JsonString((0, 2), inner.text, True, inner)
    outer.strings += [own, js]
    assert outer.all_targets() == [outer.targets[0], inner.targets[0]]
    assert outer.text_strings() == [own, field]
    inner.targets[0].dropped = [3]
    outer.targets[0].dropped = [1]
    assert outer.record_parts() == [outer.targets[0], inner.targets[0]]
    twin = JsonString((0, 2), inner.text, True, inner)
    twin.twin_of = js
    assert twin.record_parts() == [] and twin.changed()
    assert js.record_parts() == [inner.targets[0]]


# -- strings pruned as text -----------------------------------------------------------------------


def test_a_text_string_starts_unsplit_unnamed_and_as_content():
    s = TextString((4, 9), "hello", True, path=("items", "3", "readme"))
    assert s.field is False and s.plan is None and s.record_id is None and s.twin_of is None
    assert s.key == key_of(("items", "3", "readme")) == "items.3.readme"
    assert TextString((4, 9), "hello", True, path=("a",), key="given").key == "given"
    assert TextString((4, 9), "hello", True).key == ""
    with pytest.raises(AssertionError, match="^a string is split before it is scored$"):
        s.planned()


def test_a_text_string_is_a_record_part_once_it_drops_and_a_twin_never_is():
    s = TextString((0, 2), "a" * 30, True)
    assert s.record_parts() == [] and not s.changed()
    s.plan = Plan("ok", Stats(), text=s.content)
    s.plan.units = [Unit(0, 10), Unit(10, 30)]
    assert s.record_parts() == []
    s.plan.dropped = [1]
    assert s.record_parts() == [s] and s.changed()
    twin = TextString((0, 2), s.content, True)
    twin.plan, twin.twin_of = s.plan, s
    assert twin.changed() and twin.record_parts() == []


def long_string(content: str) -> tuple[str, records.LongString]:
    text = json.dumps({"s": content})
    start = text.index('"', 5)
    return text, records.LongString((start, len(text) - 1), ("s",))


@pytest.mark.parametrize(
    "content, field",
    [
        ("[INFO] a log line\n" * 150, True),  # starts like JSON, is not
        ("1234567890" * 250, True),  # parses as a JSON number: still text, it does not open a container
        ('{"a": [1, 2, 3], "b": "' + "x" * 2500 + '"}', False),  # a serialised payload
        ("[" + ", ".join(["1"] * 1500) + "]", False),
        (" \n\t{" + '"k": "' + "y" * 2500 + '"}', False),  # after JSON whitespace
        ("\ufeff[" + ", ".join(["2"] * 1500) + "]", False),  # after a byte-order mark
        ("[" * 5000 + "]" * 5000, False),  # JSON too deep to hold: still never cut as text
    ],
)
def test_which_long_strings_are_fields(content, field):
    text, found = long_string(content)
    out = tree.field_strings(text, [found])
    assert [s.content for s in out] == ([content] if field else [])
    if field:
        (s,) = out
        assert s.field is True and s.path == ("s",) and s.span == found.span and s.ascii_only


def test_a_string_with_a_lone_surrogate_is_kept_whole_and_the_next_is_still_a_field():
    bad = '"\\ud800' + "z" * 2500 + '"'
    good = json.dumps("plain text. " * 250)
    text = '{"bad": ' + bad + ', "good": ' + good + "}"
    spans = [records.LongString((8, 8 + len(bad)), ("bad",)),
             records.LongString((text.index(good), text.index(good) + len(good)), ("good",))]
    out = tree.field_strings(text, spans)
    assert [s.path for s in out] == [("good",)]


def test_records_of_a_non_ascii_document_are_byte_spans():
    rows = [{"id": i, "body": "日本語 " * 80} for i in range(12)]
    text = json.dumps({"rows": rows}, ensure_ascii=False)
    doc = doc_of(text)
    doc.targets[0].dropped = [2, 3]
    body = text.encode("utf-8")
    (record,) = tree.records(doc, body)
    assert record.shape == "json_array" and record.body == body and record.dropped == [2, 3]
    s, e = record.units[2]
    assert json.loads(body[s:e]) == rows[2]

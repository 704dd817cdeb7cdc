"""The MCP shape at its boundary (``core/shapes/mcp``): which JSON texts are tool results
(``detect``: bare or in a JSON-RPC response, the content items, which text item is pruned inside
and how), and how ``structuredContent`` follows its text twin (``mirror``)."""

from __future__ import annotations

import json

import pytest

from toolprune.core.jsonscan import scan
from toolprune.core.jsonshape import parses
from toolprune.core.shapes import mcp, records
from toolprune.core.shapes.mcp import INSIDE_MIN_CHARS, RESULT_KEYS, McpDoc
from toolprune.core.shapes.tree import JsonString, TextString
from toolprune.core.text import FIXED_CHARS


def detect(value: object, strict: bool = False, raw: str | None = None) -> McpDoc | None:
    text = raw if raw is not None else json.dumps(value)
    top = scan(text, 2 + records.ENVELOPE_LEVELS, objects_only=True)
    assert top is not None
    return mcp.detect(text, top, parses, strict)


def item(text: str, kind: str = "text") -> dict:
    return {"type": kind, "text": text}


PROSE = "A paragraph about something. " * 40  # 1,160 chars: long enough to prune inside


def test_constants():
    assert INSIDE_MIN_CHARS == 1000
    assert RESULT_KEYS == {"content", "isError", "structuredContent", "_meta"}
    assert mcp.NAME == "json_mcp"


# -- what is a tool result ------------------------------------------------------------------------


def test_several_items_make_a_container_of_units_with_marker_items():
    doc = detect({"content": [item("one"), item("two"), {"type": "image", "data": "AAAA"}], "isError": False})
    assert doc is not None and doc.path == () and doc.strings == [] and doc.structured is None
    (t,) = doc.targets
    # the image is kept: brought back through ``omitted`` it would be its base64 as text
    assert t.path == ("content",) and t.key == "content" and t.markers is True and t.keep == {2}
    assert len(t.elements) == 3 and t.node.kind == "["


def test_a_json_rpc_response_is_looked_into_and_its_result_may_hold_more_members():
    value = {"jsonrpc": "2.0", "id": 1, "result": {"content": [item("a"), item("b")], "nextCursor": "x"}}
    doc = detect(value)
    assert doc is not None and doc.path == ("result",)
    assert doc.targets[0].path == ("result", "content") and doc.targets[0].key == "result.content"


@pytest.mark.parametrize(
    "value",
    [
        {"jsonrpc": "2.0", "id": 1, "result": [item("a"), item("b")]},  # a result that is not an object
        {"jsonrpc": "2.0", "id": 1, "result": None},
        {"content": [item("a"), item("b")], "title": "a page"},  # another document with a "content"
        {"content": [item("a"), item("b")], "_pruned": {}},  # pruned already
        {"content": "just text", "isError": False},
        {"content": [], "isError": False},
        {"content": [item("a"), "a string item"]},
        {"content": [item("a"), {"text": "no type"}]},
        {"content": [item("a"), {"type": 3, "text": "a type that is not a string"}]},
        {"content": [item("only one, and short")]},  # nothing to prune: other shapes may apply
        {"isError": False},
        {"jsonrpc": "2.0", "content": [item("a"), item("b")]},  # a JSON-RPC message without a result
        {"content": [item("a"), [item("b")]]},  # an item that is not an object
    ],
)
def test_not_a_tool_result(value):
    assert detect(value) is None


def test_a_member_named_twice_is_not_trusted():
    raw = '{"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}], "content": 1}'
    assert detect(None, raw=raw) is None
    raw = '{"jsonrpc": "2.0", "result": {"content": []}, "result": {"content": []}}'
    assert detect(None, raw=raw) is None
    twice = '{"type": "text", "type": "text", "text": "' + PROSE + '"}'
    assert detect(None, raw='{"content": [' + twice + "]}") is None  # its type is unknown


def test_an_array_at_the_top_is_not_a_tool_result():
    assert detect([item("a"), item("b")]) is None


def test_a_single_long_text_item_is_pruned_inside_as_text():
    doc = detect({"content": [item(PROSE)], "isError": False})
    assert doc is not None and doc.targets == []  # one item: no container of units
    (s,) = doc.strings
    assert isinstance(s, TextString) and s.content == PROSE and s.ascii_only and s.key == "content.0.text"
    assert doc.text[s.span[0] : s.span[1]] == json.dumps(PROSE)
    assert not s.field  # the content itself, not a record's field


def test_a_text_item_under_1000_chars_is_never_pruned_inside():
    short = {"type": "text", "text": "x" * (INSIDE_MIN_CHARS - 30)}
    assert len(json.dumps(short)) < INSIDE_MIN_CHARS
    assert detect({"content": [short]}) is None
    edge = {"type": "text", "text": "x" * (INSIDE_MIN_CHARS - len(json.dumps(item(""))))}
    assert len(json.dumps(edge)) == INSIDE_MIN_CHARS
    doc = detect({"content": [edge]})
    assert doc is not None and len(doc.strings) == 1


def test_among_several_only_an_item_over_6000_chars_is_pruned_inside():
    at = "y" * (FIXED_CHARS - len(json.dumps(item(""))))
    over = at + "y"
    doc = detect({"content": [item("small"), item(at), item(over)]})
    assert doc is not None
    assert [s.key for s in doc.strings] == ["content.2.text"]
    assert doc.targets[0].keep == {2}


def test_only_an_item_of_type_text_with_a_string_text_is_pruned_inside():
    for other in ({"type": "resource", "text": PROSE}, {"type": "text", "text": 7, "pad": PROSE},
                  {"type": "text", "body": PROSE}):
        doc = detect({"content": [item("small"), other]})
        kept = {1} if other["type"] != "text" else set()  # an item of another type is never dropped
        assert doc is not None and doc.strings == [] and doc.targets[0].keep == kept
        assert detect({"content": [other]}) is None


def test_non_ascii_text_is_written_back_unescaped():
    doc = detect(None, raw=json.dumps({"content": [item("日本語の段落です。" * 120)]}, ensure_ascii=False))
    assert doc is not None and doc.strings[0].ascii_only is False
    doc = detect({"content": [item("日本語の段落です。" * 120)]})  # escaped as \\u sequences
    assert doc is not None and doc.strings[0].ascii_only is True


def test_a_text_with_a_lone_surrogate_is_left_alone():
    raw = '{"content": [{"type": "text", "text": "\\ud800 ' + PROSE + '"}]}'
    assert detect(None, raw=raw) is None


# -- a text item that holds JSON -----------------------------------------------------------------


def records_json(n: int = 12, indent: int | None = 1, **extra) -> str:
    return json.dumps({"items": [{"id": i, "body": "lorem ipsum " * 20} for i in range(n)], **extra}, indent=indent)


def test_a_text_item_holding_json_is_pruned_as_json_inside_the_string():
    text = "  \n" + records_json()
    doc = detect({"content": [item(text)]})
    assert doc is not None
    (s,) = doc.strings
    assert isinstance(s, JsonString) and s.content == text
    assert [t.key for t in s.doc.targets] == ["items"] and s.doc.text == text


def test_a_top_level_json_array_in_a_text_item_is_left_as_text_when_strict():
    text = json.dumps([{"id": i, "body": "lorem ipsum " * 20} for i in range(12)])
    loose = detect({"content": [item(text)]})
    assert loose is not None and isinstance(loose.strings[0], JsonString)
    assert detect({"content": [item(text)]}, strict=True) is None
    obj = detect({"content": [item(records_json())]}, strict=True)
    assert obj is not None and isinstance(obj.strings[0], JsonString)  # strict is about arrays only


@pytest.mark.parametrize(
    "text",
    [
        json.dumps({"a": "b" * (INSIDE_MIN_CHARS + 10)}),  # JSON with nothing to prune
        records_json(_pruned={"note": "pruned already"}),
        "\ufeff" + records_json(),  # after a byte-order mark: kept whole (what opens like JSON is JSON here too)
    ],
)
def test_json_with_nothing_to_prune_is_never_cut_as_text(text):
    assert detect({"content": [item(text)]}) is None


def test_json_that_mostly_holds_one_long_string_has_that_string_pruned_as_text():
    from toolprune.core.decide import MIN_CHARS

    long = "\n\n".join([PROSE] * 4)
    assert len(long) >= MIN_CHARS
    doc = detect({"content": [item(json.dumps({"ok": True, "markdown": long, "n": 1}))]})
    assert doc is not None
    (s,) = doc.strings
    assert isinstance(s, JsonString) and s.doc.targets == []
    (field,) = s.doc.strings
    assert isinstance(field, TextString) and field.content == long and field.path == ("markdown",)
    # not when the string is under 4,000 chars or under 60 % of the item (the wrapper shape's rule)
    assert detect({"content": [item(json.dumps({"markdown": long[: MIN_CHARS - 1]}))]}) is None
    assert detect({"content": [item(json.dumps({"markdown": long, "pad": "p" * len(long)}))]}) is None


def test_text_that_only_starts_like_json_is_pruned_as_text():
    text = "[INFO] " + PROSE
    doc = detect({"content": [item(text)]})
    assert doc is not None and isinstance(doc.strings[0], TextString)


def test_json_deeper_than_the_scan_is_left_alone():
    deep = "[" * 3000 + "]" * 3000
    text = json.dumps({"items": [deep] * 3, "pad": "p" * 1200})
    doc = detect({"content": [item(text)]})
    assert doc is None or isinstance(doc.strings[0], JsonString)


def test_structured_content_is_remembered_only_when_it_is_an_object():
    doc = detect({"content": [item(PROSE)], "structuredContent": {"text": PROSE}})
    assert doc is not None and doc.structured is not None and doc.structured.kind == "{"
    assert doc.text[doc.structured.start] == "{"
    doc = detect({"content": [item(PROSE)], "structuredContent": [PROSE]})
    assert doc is not None and doc.structured is None
    value = {"jsonrpc": "2.0", "id": 2, "result": {"content": [item(PROSE)], "structuredContent": {"a": 1}}}
    doc = detect(value)
    assert doc is not None and doc.structured is not None
    assert json.loads(doc.text[doc.structured.start : doc.structured.end]) == {"a": 1}


# -- structuredContent follows its text twin ------------------------------------------------------


def result_with(content_item: str, structured: str) -> str:
    return '{"content": [' + content_item + '], "structuredContent": ' + structured + "}"


def changed(s: TextString | JsonString) -> None:
    """As the decisions leave a string: its second paragraph (or its first array's element 1) dropped."""
    if isinstance(s, TextString):
        from toolprune.core.plans import Plan, Stats
        from toolprune.core.text import Unit

        s.plan = Plan("ok", Stats(), text=s.content)
        s.plan.units = [Unit(0, 10), Unit(10, 20), Unit(20, len(s.content))]
        s.plan.dropped = [1]
    else:
        s.doc.targets[0].dropped = [1]


def mirrored(value: object = None, raw: str | None = None, lang: str = "en") -> McpDoc:
    """The tool result after mirror(), its first string pruned as :func:`changed` leaves it."""
    doc = detect(value, raw=raw)
    assert doc is not None
    changed(doc.strings[0])
    mcp.mirror(doc, lang)
    return doc


def test_mirror_does_nothing_without_structured_content_or_without_a_change():
    doc = mirrored({"content": [item(PROSE)]})
    assert len(doc.strings) == 1 and doc.notes == {}
    doc = detect({"content": [item(PROSE)], "structuredContent": {"other": 1}})
    assert doc is not None
    mcp.mirror(doc, "en")  # nothing dropped in the text: nothing to mirror, nothing to say
    assert len(doc.strings) == 1 and doc.notes == {}


def test_a_string_member_holding_the_same_text_gets_the_same_markers():
    structured = {"short": "A paragraph", "number": 3, "wrong": PROSE + "!", "content": PROSE, "again": PROSE}
    doc = detect({"content": [item(PROSE)], "structuredContent": structured})
    assert doc is not None
    original = doc.strings[0]
    changed(original)
    mcp.mirror(doc, "en")
    assert doc.notes == {}
    original_, twin = doc.strings
    assert original_ is original and isinstance(twin, TextString)
    assert twin.twin_of is original and twin.plan is original.plan
    assert (original.key, twin.key) == ("content.0.text", "structuredContent.content")  # --explain's rows
    member = doc.text.index('"content": "', doc.structured.start) + len('"content": ')
    assert twin.span == (member, member + len(json.dumps(PROSE))) and twin.ascii_only


def test_a_string_member_with_a_lone_surrogate_is_skipped():
    raw = json.dumps({"content": [item(PROSE)], "structuredContent": {"bad": "\ud800" + PROSE, "text": PROSE}})
    doc = mirrored(None, raw=raw)
    assert doc.strings[1].span[0] == doc.text.index('"text": "', doc.structured.start) + len('"text": ')


def test_json_in_a_string_member_gets_the_same_document():
    text = records_json()
    doc = detect({"content": [item(text)], "structuredContent": {"json": text}})
    assert doc is not None
    original = doc.strings[0]
    changed(original)
    mcp.mirror(doc, "en")
    twin = doc.strings[1]
    assert isinstance(twin, JsonString) and twin.doc is original.doc and twin.twin_of is original
    assert twin.content == text and twin.ascii_only is True and original.ascii_only is True
    assert doc.targets == []  # the items are not mirrored as containers too


def test_the_same_data_is_pruned_at_the_same_paths():
    data = json.loads(records_json())
    value = {"jsonrpc": "2.0", "id": 4, "result": {"content": [item(json.dumps(data))], "structuredContent": data}}
    doc = mirrored(value)
    assert doc.notes == {} and len(doc.strings) == 1
    (copy,) = doc.targets
    assert copy.path == ("result", "structuredContent", "items") and copy.dropped == [1]
    assert copy.dropped is not doc.strings[0].doc.targets[0].dropped
    assert json.loads(doc.text[copy.node.start : copy.node.end]) == data["items"]
    assert len(copy.elements) == 12


def test_a_long_field_of_the_same_data_gets_the_same_markers():
    readme = "\n\n".join(f"Paragraph {i} of the readme, about nothing in particular." * 3 for i in range(50))
    data = {"items": [{"id": i, "readme": readme if i in (3, 5) else "short"} for i in range(12)], "pad": "p" * 900}
    doc = detect({"content": [item(json.dumps(data))], "structuredContent": data})
    assert doc is not None
    (inner,) = doc.strings
    assert isinstance(inner, JsonString)
    field, unchanged = [s for s in inner.doc.strings if isinstance(s, TextString)]
    assert field.path == ("items", "3", "readme") and unchanged.path == ("items", "5", "readme")
    changed(field)
    mcp.mirror(doc, "en")
    assert doc.notes == {} and doc.targets == [] and len(doc.strings) == 2  # the unchanged field has no twin
    twin = doc.strings[1]
    assert isinstance(twin, TextString) and twin.twin_of is field and twin.plan is field.plan
    assert twin.field and twin.path == ("structuredContent", "items", "3", "readme")
    assert json.loads(doc.text[twin.span[0] : twin.span[1]]) == readme


@pytest.mark.parametrize(
    "lang, note",
    [
        ("en", "kept whole: it could not be pruned the same way as the content text"),
        ("ja", "構造化された内容（structuredContent）は省略せずそのまま残しています"),
    ],
)
def test_different_data_is_kept_whole_and_the_result_says_so(lang, note):
    data = json.loads(records_json())
    doc = mirrored({"content": [item(json.dumps(data))], "structuredContent": {"count": 12}}, lang=lang)
    assert doc.notes == {"structuredContent": note} and doc.targets == [] and len(doc.strings) == 1


@pytest.mark.parametrize(
    "structured",
    [
        {"items": "not the same"},
        {"items": [{"id": i, "body": "lorem ipsum " * 20} for i in range(12)], "extra": 1.0},
    ],
)
def test_data_that_is_almost_the_same_is_kept_whole(structured):
    doc = mirrored({"content": [item(records_json())], "structuredContent": structured})
    assert "structuredContent" in doc.notes and doc.targets == []


def test_two_changed_strings_are_not_mirrored():
    doc = detect({"content": [item(PROSE), item("y" * FIXED_CHARS), item("z" * FIXED_CHARS)],
                  "structuredContent": {"text": PROSE}})
    assert doc is not None and len(doc.strings) == 2
    for s in doc.strings:
        changed(s)
    mcp.mirror(doc, "en")
    assert "structuredContent" in doc.notes and len(doc.strings) == 2


def test_locate_follows_member_names_and_element_indices():
    text = json.dumps({"a": [{"b": [1, 2]}, {"c": {"d": [3]}}], "s": "x", "twice": 1})
    top = scan(text, 1)
    assert top is not None
    found = mcp._locate(text, top, ("a", "1", "c", "d"))
    assert found is not None and text[found.start : found.end] == "[3]"
    assert mcp._locate(text, top, ()) is top
    for path in (("a", "2"), ("a", "x"), ("a", "-1"), ("s",), ("missing",), ("a", "0", "b", "0")):
        assert mcp._locate(text, top, path) is None, path
    dup = '{"a": {"b": []}, "a": {"b": []}}'
    top = scan(dup, 1)
    assert top is not None and mcp._locate(dup, top, ("a",)) is None


def test_a_twin_named_twice_in_structured_content_is_kept_whole():
    """json.loads keeps the last of two equal names, so the data compares the same; the
    container or field to prune is then not known for sure."""
    readme = "\n\n".join(f"Paragraph {i} of the readme, about nothing in particular." * 3 for i in range(50))
    data = {"items": [{"id": i, "readme": readme if i == 3 else "short"} for i in range(12)], "pad": "p" * 900}
    text = json.dumps(data)
    twice_field = text.replace('{"id": 3, ', '{"id": 3, "readme": "an earlier one", ')
    twice_items = '{"items": [], ' + text[1:]
    for structured in (twice_field, twice_items):
        raw = result_with(json.dumps(item(text)), structured)
        doc = detect(None, raw=raw)
        assert doc is not None
        inner = doc.strings[0]
        assert isinstance(inner, JsonString)
        changed(next(s for s in inner.doc.strings if isinstance(s, TextString)))
        inner.doc.targets[0].dropped = [1]
        mcp.mirror(doc, "en")
        assert "structuredContent" in doc.notes and doc.targets == [] and len(doc.strings) == 1


def test_a_default_detect_adds_to_a_json_array_in_a_text_item():
    text = json.dumps([{"id": i, "body": "lorem ipsum " * 20} for i in range(12)])
    raw = json.dumps({"content": [item(text)]})
    top = scan(raw, 2 + records.ENVELOPE_LEVELS, objects_only=True)
    assert top is not None
    doc = mcp.detect(raw, top, parses)
    assert doc is not None and isinstance(doc.strings[0], JsonString)


def test_a_json_array_after_blank_lines_is_left_as_text_when_strict():
    text = "\n \n" + json.dumps([{"id": i, "body": "lorem ipsum " * 20} for i in range(12)])
    assert detect({"content": [item(text)]}, strict=True) is None


def test_a_text_item_holding_a_json_scalar_is_pruned_as_text():
    text = json.dumps("a quoted string " * 80)
    doc = detect({"content": [item(text)]})
    assert doc is not None and isinstance(doc.strings[0], TextString)


def test_json_in_an_ascii_literal_is_written_back_ascii():
    text = "\n" + records_json()
    assert detect({"content": [item(text)]}).strings[0].ascii_only is True
    raw = json.dumps({"content": [item(text + " ")]}, ensure_ascii=False).replace("lorem", "lörem")
    doc = detect(None, raw=raw)
    assert doc is not None and doc.strings[0].ascii_only is False


def test_all_four_members_of_a_bare_result():
    value = {"content": [item("a"), item("b")], "isError": False, "structuredContent": {}, "_meta": {}}
    assert detect(value) is not None


def test_an_item_that_is_not_text_does_not_stop_the_look_inside_the_next():
    big = item("w " * FIXED_CHARS)
    doc = detect({"content": [{"type": "image", "data": "AAAA"}, big]})
    assert doc is not None and doc.targets[0].keep == {0, 1}


def test_claim_is_a_plan_with_nothing_dropped_yet():
    from toolprune.core.models import Options, Stats

    text = json.dumps({"content": [item("a"), item("b")]})
    top = scan(text, 2 + records.ENVELOPE_LEVELS, objects_only=True)
    plan = mcp.claim(text, top, Options(basis="x"), Stats())
    assert plan is not None and plan.outcome == "nothing_dropped" and isinstance(plan.doc, McpDoc)
    assert mcp.claim('{"a": 1}', scan('{"a": 1}', 5), Options(basis="x"), Stats()) is None


def test_a_changed_text_without_a_twin_is_kept_whole():
    doc = mirrored({"content": [item(PROSE)], "structuredContent": {"lines": PROSE.split(". ")}})
    assert "structuredContent" in doc.notes and len(doc.strings) == 1


def test_mirrored_containers_are_added_to_the_content_array():
    data = json.loads(records_json(n=30))
    doc = detect({"content": [item("a summary"), item(json.dumps(data))], "structuredContent": data})
    assert doc is not None and len(doc.targets) == 1 and doc.targets[0].keep == {1}
    changed(doc.strings[0])
    mcp.mirror(doc, "en")
    assert [t.path for t in doc.targets] == [("content",), ("structuredContent", "items")]


def test_the_first_of_two_changed_strings_is_not_mirrored_as_the_twin():
    data = json.loads(records_json(n=30))
    doc = detect({"content": [item(json.dumps(data)), item("z " * FIXED_CHARS)], "structuredContent": data})
    assert doc is not None and len(doc.strings) == 2 and isinstance(doc.strings[0], JsonString)
    for s in doc.strings:
        changed(s)
    mcp.mirror(doc, "en")
    assert "structuredContent" in doc.notes and doc.targets[1:] == []


@pytest.mark.parametrize(
    "written, structured",
    [('"n": -0', '"n": 0'), ('"n": 1.0', '"n": 1'), ('"n": 1.0', '"n": 1.00'), ('"n": 1.5', '"n": 15e-1'),
     ('"n": 1', '"n": "1"'), ('"n": 1.5', '"n": "1.5"'), ('"n": NaN', '"n": "NaN"')],  # a number is no string
)
def test_numbers_that_are_equal_but_written_otherwise_are_not_the_same(written, structured):
    data = records_json(indent=None)[:-1] + ", " + written + "}"
    raw = result_with(json.dumps(item(data)), data.replace(written, structured))
    doc = mirrored(None, raw=raw)
    assert "structuredContent" in doc.notes


def test_nan_written_alike_is_the_same():
    data = records_json(indent=None)[:-1] + ', "n": NaN}'
    doc = mirrored(None, raw=result_with(json.dumps(item(data)), data))
    assert doc.notes == {} and len(doc.targets) == 1


def test_a_field_whose_record_is_named_twice_is_kept_whole():
    readme = "\n\n".join(f"Paragraph {i} of the readme, about nothing in particular." * 3 for i in range(50))
    data = {"items": [{"id": i, "readme": readme if i == 3 else "short"} for i in range(12)], "pad": "p" * 900}
    text = json.dumps(data)
    same_twice = text.replace('{"id": 3, ', '{"id": 3, "readme": ' + json.dumps(readme) + ", ")
    twice = ('{"items": [], ' + text[1:], same_twice)
    for structured in twice:
        doc = detect(None, raw=result_with(json.dumps(item(text)), structured))
        assert doc is not None
        inner = doc.strings[0]
        assert isinstance(inner, JsonString)
        changed(next(s for s in inner.doc.strings if isinstance(s, TextString)))  # no container pruned
        mcp.mirror(doc, "en")
        assert "structuredContent" in doc.notes and len(doc.strings) == 1


# -- the wrapper shape: one long string in an object ----------------------------------------------


def wrapped(value: dict) -> tuple[str, tuple[int, int]] | None:
    from toolprune.core.shapes import wrapper

    text = json.dumps(value)
    node = scan(text, 1)
    assert node is not None
    return wrapper.find(text, node)


def test_a_wrapper_whose_member_is_named_twice_is_left_alone():
    from toolprune.core.shapes import wrapper

    once = '{"output": "' + "o" * 5000 + '", "note": "short"}'
    assert wrapper.find(once, scan(once, 1)) is not None
    for twice in (once[:-1] + ', "output": "x"}', once[:-1] + ', "\\u006futput": "x"}'):  # a reader keeps the last
        assert wrapper.find(twice, scan(twice, 1)) is None
        assert detect({"content": [item(twice)]}) is None  # nor inside an MCP text item


def test_the_wrapper_is_the_longest_string_not_the_last():
    found = wrapped({"output": "o" * 5000, "note": "short"})
    assert found is not None and found[0] == "o" * 5000


def test_a_wrapped_string_of_exactly_4000_chars_and_one_of_exactly_60_percent():
    from toolprune.core.decide import MIN_CHARS

    assert wrapped({"output": "o" * MIN_CHARS, "pad": "p"}) is not None
    assert wrapped({"output": "o" * (MIN_CHARS - 1), "pad": "p"}) is None  # under 4,000 chars
    base = len(json.dumps({"output": "", "pad": ""}))
    value = {"output": "o" * 4198, "pad": "p" * (7000 - 4198 - base)}  # its literal, quotes included: 4,200
    assert len(json.dumps(value)) == 7000 and 4200 == 0.6 * 7000
    assert wrapped(value) is not None
    value["pad"] += "p"
    assert wrapped(value) is None  # under 60 %
    page = {"output": "日本語のページ。" * 600, "pad": "p" * 3000}  # 4,800 chars, each written as \uXXXX
    assert wrapped(page) is not None  # 28,802 of 31,825 chars as written: the input is mostly that page

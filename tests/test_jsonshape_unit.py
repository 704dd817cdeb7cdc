"""The JSON shape at its boundary: ``core/jsonshape.parses`` (is this text JSON?) and
``core/shapes/records`` (which arrays and maps are pruned element by element): the 1,000-char
target limit, maps of records, the envelope rules (single member, JSON-RPC ``result``, GraphQL
``data``) and their depth, the biggest-member rule, big elements looked inside, duplicate names
and target names."""

from __future__ import annotations

import json
import sys

import pytest

from toolprune.core.jsonscan import scan
from toolprune.core.jsonshape import parses
from toolprune.core.shapes import records
from toolprune.core.shapes.records import (
    ENVELOPE_LEVELS,
    MAP_MIN_MEMBERS,
    TARGET_MIN_CHARS,
    Target,
    find,
    is_map,
    key_of,
    member_name,
)
from toolprune.core.text import FIXED_CHARS

# -- parses ------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ['[1, 2]', '{"a": {"b": [null, true, false]}}', '  [] ', '"x"', "3"])
def test_json_parses(text):
    assert parses(text) is True


@pytest.mark.parametrize(
    "text",
    [
        "[INFO] Scanning for projects...\n[INFO] BUILD SUCCESS\n",  # a Maven log
        "[2024-01-01 12:00:00] worker started\n",
        "{not json}",
        "[1, 2,]",
        "[1] trailing words",
        "",
        "\ufeff\ufeff{ broken",
        "XX[1]",  # only byte order marks are skipped at the start
        "\ufeff[1]\ufeff",
    ],
)
def test_text_that_only_starts_like_json_is_not_json(text):
    assert parses(text) is False


def test_a_leading_byte_order_mark_is_ignored():
    assert parses('\ufeff{"a": 1}') is True


@pytest.mark.parametrize(
    "text",
    [
        "[NaN, Infinity, -Infinity]",  # Python's parser accepts what orjson refuses
        '["\\ud800"]',  # a lone surrogate
        "[1e999999]",
        "[" + "9" * 5000 + "]",  # more digits than int() converts: checked, never converted
        "[1." + "5" * 5000 + "]",
    ],
)
def test_json_orjson_refuses_but_python_accepts(text):
    assert parses(text) is True


def test_json_deeper_than_orjson_can_hold_is_json_like_whatever_the_stack():
    deep = "[" * 2000 + "]" * 2000
    assert parses(deep) is None
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(100_000)  # Python's parser could read it now: the answer stays the same
    try:
        assert parses(deep) is None
    finally:
        sys.setrecursionlimit(limit)


def test_json_that_python_parses_but_not_within_its_stack_is_json_like():
    # orjson stops at NaN, before the depth; Python's parser runs out of stack
    assert parses("[NaN, " + "[" * 100_000 + "]" * 100_000 + "]") is None


def test_text_deeper_than_orjson_can_hold_that_is_not_json():
    # a known limit: past orjson's depth nothing is parsed, so this is "JSON-like" too
    assert parses("[" * 2000 + "INFO") is None


# -- records: helpers ---------------------------------------------------------------------------


def found(doc, *, depth: int | None = None) -> list[tuple[str, str, int]] | None:
    """(key, kind, number of units) of each target of ``doc`` (a value or its JSON text), the same
    whether the scan went deep (as the pipeline scans) or only one level (children scanned later)."""
    text = doc if isinstance(doc, str) else json.dumps(doc)
    deep = find(text, scan(text, 2 + ENVELOPE_LEVELS, objects_only=True))
    shallow = find(text, scan(text, 1, objects_only=True))
    summary = None if deep is None else [(t.key, t.kind, len(t.elements)) for t in deep]
    assert summary == (None if shallow is None else [(t.key, t.kind, len(t.elements)) for t in shallow])
    return summary


def array_of(chars: int, n: int = 10) -> list[dict]:
    """``n`` records whose JSON text (``json.dumps``) is exactly ``chars`` characters."""
    items = [{"id": i, "s": ""} for i in range(n)]
    short = chars - len(json.dumps(items))
    assert short >= 0
    items[0]["s"] = "x" * short
    assert len(json.dumps(items)) == chars
    return items


BIG = array_of(1500)


def test_target_min_chars_is_the_limit_of_an_array_member():
    at = {"items": array_of(TARGET_MIN_CHARS), "other": 1}
    below = {"items": array_of(TARGET_MIN_CHARS - 1), "other": 1}
    assert found(at) == [("items", "[", 10)]
    assert found(below) == []


def test_a_top_level_array_is_a_target_and_an_array_of_one_is_looked_into():
    assert found([{"a": 1}, {"a": 2}]) == [("", "[", 2)]
    assert found([{"items": BIG}]) == [("0.items", "[", 10)]
    assert found([]) == []
    assert found([1]) == []  # a lone scalar: nothing inside


def test_a_member_array_of_one_element_is_not_a_target():
    assert found({"items": [{"s": "x" * 2000}], "n": 1}) == []


def test_a_member_that_is_an_object_but_not_a_map_is_not_a_target():
    assert found({"obj": {"a": "x" * 2000, "b": 1}, "n": 1}) == []


# -- maps of records -----------------------------------------------------------------------------


def map_doc(n: int, value=lambda i: {"v": i, "pad": "y" * 200}, name=lambda i: f"k{i}") -> dict:
    return {name(i): value(i) for i in range(n)}


def test_a_map_of_at_least_8_objects_is_a_target():
    assert found({"m": map_doc(MAP_MIN_MEMBERS), "n": 1}) == [("m", "{", MAP_MIN_MEMBERS)]
    assert found({"m": map_doc(MAP_MIN_MEMBERS - 1), "n": 1}) == []


def test_is_map_rules():
    def node(doc):
        text = json.dumps(doc)
        return text, scan(text, 1)

    assert is_map(*node(map_doc(8)))
    assert not is_map(*node([1, 2, 3, 4, 5, 6, 7, 8, 9]))  # an array is no map
    assert not is_map(*node(map_doc(7)))
    # scalars: a map when at least 80 % of the names hold a digit (versions, dates, ids)
    versions = {f"1.{i}.0": "2024-01-01T00:00:00Z" for i in range(10)}
    assert is_map(*node(versions))
    eight_of_ten = {**{f"v{i}": "x" for i in range(8)}, "created": "x", "modified": "x"}
    assert is_map(*node(eight_of_ten))
    seven_of_ten = {**{f"v{i}": "x" for i in range(7)}, "a": "x", "b": "x", "c": "x"}
    assert not is_map(*node(seven_of_ten))
    numbers = {f"id{i}": i for i in range(8)}
    assert is_map(*node(numbers))
    assert not is_map(*node({f"k{i}": [i] for i in range(8)}))  # arrays of values: not records
    mixed = {**{f"k{i}": {"a": i} for i in range(7)}, "k7": "s"}
    assert not is_map(*node(mixed))
    strings_and_numbers = {**{f"k{i}": "s" for i in range(7)}, "k7": 7}
    assert not is_map(*node(strings_and_numbers))
    # a name twice: a parser keeps only one of the two
    text = "{" + ",".join(f'"k{i % 7}": {{"a": {i}}}' for i in range(8)) + "}"
    assert not is_map(text, scan(text, 1))


def test_a_map_member_under_1000_chars_is_not_a_target():
    small = map_doc(8, value=lambda i: {"v": i})
    assert len(json.dumps(small)) < TARGET_MIN_CHARS
    assert found({"m": small, "n": 1}) == []


# -- envelopes and the member carrying most bytes ------------------------------------------------


def test_a_single_member_envelope_is_looked_through():
    assert found({"data": {"repository": {"issues": {"nodes": BIG}}}}) == [("data.repository.issues.nodes", "[", 10)]


def test_json_rpc_result_is_followed_even_when_another_member_is_bigger():
    doc = {"jsonrpc": "2.0", "id": 1, "result": {"items": BIG}, "debug": {"log": array_of(4000)}}
    assert found(doc) == [("result.items", "[", 10)]
    # without "jsonrpc" the member carrying most of the bytes is followed instead
    doc.pop("jsonrpc")
    assert found(doc) == [("debug.log", "[", 10)]


def test_json_rpc_without_result_object_follows_the_biggest_member():
    doc = {"jsonrpc": "2.0", "id": 1, "result": "done", "debug": {"log": BIG}}
    assert found(doc) == [("debug.log", "[", 10)]


def test_graphql_data_is_followed_beside_errors_and_extensions_only():
    errors = [{"message": "e" * 3000}]
    doc = {"data": {"search": {"nodes": BIG}}, "errors": errors, "extensions": {"cost": 1}}
    assert found(doc) == [("data.search.nodes", "[", 10)]
    assert found({"data": {"search": {"nodes": BIG}}, "errors": errors}) == [("data.search.nodes", "[", 10)]
    # another member: not a GraphQL response; the biggest member wins (here "meta")
    doc = {"data": {"search": {"nodes": BIG}}, "meta": {"log": array_of(4000)}}
    assert found(doc) == [("meta.log", "[", 10)]


def test_graphql_data_that_is_not_an_object_is_not_followed():
    doc = {"data": "x" * 10, "errors": [{"message": "m"}], "extensions": {"trace": {"spans": BIG}}}
    assert found(doc) == [("extensions.trace.spans", "[", 10)]


def test_envelopes_are_looked_through_three_levels_deep_only():
    inner = {"jsonrpc": "2.0", "result": {"items": BIG}, "debug": {"log": array_of(4000)}}
    doc = inner
    for name in ("a", "b"):  # two single-member envelopes: the JSON-RPC one is the third level
        doc = {name: doc}
    assert found(doc) == [("b.a.result.items", "[", 10)]
    doc = {"c": doc}  # now it is the fourth: only the biggest member is followed
    assert found(doc) == [("c.b.a.debug.log", "[", 10)]


def test_the_biggest_member_must_hold_more_than_half_and_1000_chars():
    half = {"x": {"items": array_of(1500)}, "y": "z" * 1480}
    text = json.dumps(half)
    size = len(text)
    member = len(json.dumps(half["x"]))
    assert member * 2 > size
    assert found(half) == [("x.items", "[", 10)]
    # the same object with a longer neighbour: it holds half the bytes or less
    even = {"x": {"items": array_of(1500)}, "y": "z" * (member + 10)}
    assert len(json.dumps(even["x"])) * 2 <= len(json.dumps(even))
    assert found(even) == []


def test_the_biggest_member_is_followed_exactly_when_it_holds_more_than_half():
    x = {"items": array_of(1500)}
    member = len(json.dumps(x))
    # {"x": <member>, "y": "<pad>"}: choose pad so that the object is exactly 2 * member chars
    frame = len(json.dumps({"x": 0, "y": ""})) - 1
    pad = 2 * member - member - frame
    doc = {"x": x, "y": "z" * pad}
    assert len(json.dumps(doc)) == 2 * member
    assert found(doc) == []  # exactly half: not most of the bytes
    doc = {"x": x, "y": "z" * (pad - 1)}
    assert found(doc) == [("x.items", "[", 10)]


def test_a_biggest_member_under_1000_chars_is_not_followed():
    small = {"items": array_of(900)}
    assert found({"x": small, "y": 1}) == []


def test_a_biggest_member_that_is_a_map_is_a_target_not_followed():
    members = map_doc(8, value=lambda i: {"log": array_of(1200)})
    assert found({"m": members, "y": 1}) == [("m", "{", 8)]


def test_a_single_member_envelope_holding_a_map_is_not_looked_into_twice():
    members = map_doc(8, value=lambda i: {"log": array_of(1200)})
    assert found({"m": members}) == [("m", "{", 8)]


def test_a_second_envelope_member_that_is_a_map_stops_the_walk():
    # the biggest member is a map (already a target at its own level): the walk ends there
    members = map_doc(8, value=lambda i: {"log": array_of(1200)})
    assert found({"x": {"m": members, "n": 0}, "y": 1}) == [("x.m", "{", 8)]


def test_pruned_at_the_top_means_structured_but_not_below_it():
    assert found({"_pruned": {}, "items": BIG}) is None
    assert found({"wrap": {"_pruned": {}, "items": BIG}}) == [("wrap.items", "[", 10)]


def test_a_name_that_occurs_twice_is_never_targeted_or_followed():
    items = json.dumps(BIG)
    text = '{"items": ' + items + ', "items": ' + items + ', "n": 1}'
    assert found(text) == []
    text = '{"w": {"items": ' + items + '}, "w": {"items": ' + items + "}}"
    assert found(text) == []


def test_escaped_member_names_are_decoded():
    text = '{"it\\u0065ms": ' + json.dumps(BIG) + ', "n": 1}'
    assert found(text) == [("items", "[", 10)]
    assert member_name('"a\\"b"') == 'a"b'
    assert member_name('"plain"') == "plain"


def test_several_targets_at_one_level_and_one_level_down():
    doc = {"a": BIG, "b": BIG, "meta": {"c": BIG, "d": 1}}
    # the two arrays at the top; "meta" is not most of the bytes, so not followed
    assert found(doc) == [("a", "[", 10), ("b", "[", 10)]
    doc = {"a": BIG, "meta": {"c": array_of(5000), "d": 1}}
    assert found(doc) == [("a", "[", 10), ("meta.c", "[", 10)]


# -- big elements --------------------------------------------------------------------------------


def big_element(inner: int, other: int) -> dict:
    return {"name": "pod", "containers": array_of(inner), "note": "n" * other}


def test_an_element_over_6000_chars_is_looked_inside_when_its_arrays_hold_most_of_it():
    doc = [big_element(6500, 10), {"name": "small"}]
    assert len(json.dumps(doc[0])) > FIXED_CHARS
    assert found(doc) == [("", "[", 2), ("0.containers", "[", 10)]
    doc = [big_element(3200, 3300), {"name": "small"}]  # the array is under half of it
    assert found(doc) == [("", "[", 2)]


def test_an_element_of_exactly_6000_chars_is_not_looked_inside():
    element = big_element(5000, 0)
    element["note"] = "n" * (FIXED_CHARS - len(json.dumps(element)))
    assert len(json.dumps(element)) == FIXED_CHARS
    assert found([element, {"name": "small"}]) == [("", "[", 2)]
    element["note"] += "n"
    assert found([element, {"name": "small"}]) == [("", "[", 2), ("0.containers", "[", 10)]


def test_inner_arrays_holding_exactly_half_of_the_element_count():
    element = {"containers": array_of(4000), "note": ""}
    frame = len(json.dumps(element)) - 4000
    element["note"] = "n" * (4000 - frame)
    assert len(json.dumps(element)) == 8000
    assert found([element, {"a": 1}]) == [("", "[", 2), ("0.containers", "[", 10)]
    element["note"] += "n"
    assert found([element, {"a": 1}]) == [("", "[", 2)]


def test_inside_a_big_element_only_one_level_is_looked_into():
    rows = [{"deep": array_of(7000)}, {"b": 1}]  # its first element is big, and its array is most of it
    doc = [{"rows": rows}, {"b": 1}]
    # the element holding "rows" is looked into (it is big); the big elements of "rows" are not
    assert found(doc) == [("", "[", 2), ("0.rows", "[", 2)]
    # the same when the big element is itself an array
    assert found([rows, [1]]) == [("", "[", 2), ("0", "[", 2)]


def test_every_big_element_is_looked_inside_not_only_a_first_one():
    doc = [{"name": "small"}, big_element(6500, 10), {"name": "small"}, big_element(6500, 10)]
    assert found(doc) == [("", "[", 4), ("1.containers", "[", 10), ("3.containers", "[", 10)]


def test_a_map_of_objects_needs_no_digits_in_its_names():
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]
    members = {w: {"v": w, "pad": "y" * 200} for w in words}
    assert found({"m": members, "n": 1}) == [("m", "{", 8)]


def test_the_biggest_member_is_judged_as_a_map_by_its_own_members():
    # the top itself looks like a map (8 objects), its biggest member does not: it is followed
    doc = {f"k{i}": {"v": i} for i in range(1, 8)}
    doc["k0"] = {"items": BIG}
    assert found(doc) == [("k0.items", "[", 10)]


def test_an_empty_member_name_is_not_an_envelope():
    doc = {"": {"items": BIG}, "meta": {"log": array_of(4000)}}
    assert found(doc) == [("meta.log", "[", 10)]
    assert found({"": {"items": BIG}}) == [("//items", "[", 10)]  # a single member: an envelope


def test_a_big_scalar_element_is_not_looked_inside():
    assert found(["s" * 7000, "t"]) == [("", "[", 2)]


def test_a_big_array_element_is_looked_inside_as_an_array():
    inner = [{"id": i, "s": "w" * 700} for i in range(10)]
    assert found([inner, [1]]) == [("", "[", 2), ("0", "[", 10)]


# -- Target and names ----------------------------------------------------------------------------


def test_target_fixed_and_dropped_chars():
    text = json.dumps(["a" * (FIXED_CHARS - 2), "b" * (FIXED_CHARS - 1), "c"])
    node = scan(text, 1)
    target = Target(node, node.segments(text), ("x",))
    assert target.dropped == [] and target.dropped_chars() == 0 and target.keep == set()
    assert [target.fixed(i) for i in range(3)] == [False, True, False]
    target.keep.add(2)
    assert target.fixed(2)
    target.dropped = [0, 2]
    assert target.dropped_chars() == FIXED_CHARS + 3
    assert target.key == "x" and target.kind == "[" and target.scores == [None, None, None]
    assert target.markers is False and target.record_id is None


@pytest.mark.parametrize(
    "path, key",
    [
        ((), ""),
        (("result", "tools"), "result.tools"),
        (("items", "3", "containers"), "items.3.containers"),
        (("a.b", "c"), "/a.b/c"),
        (("/x",), "/~1x"),
        (("", "y"), "//y"),
        (("a~b.c",), "/a~0b.c"),
        (("a~b",), "a~b"),
    ],
)
def test_key_of(path, key):
    assert key_of(path) == key


def test_constants():
    assert (records.TARGET_MIN_CHARS, records.ENVELOPE_LEVELS, records.MAP_MIN_MEMBERS) == (1000, 3, 8)
    assert records.PRUNED_KEY == "_pruned"


def test_pruned_stays_under_1000_chars_by_leaving_whole_the_arrays_that_save_least():
    """Thirty arrays, each with one relevant record among ten: listing every pruned array would
    take ``_pruned`` over 1,000 chars, so the arrays whose dropped elements are smallest are left
    whole (and never half-pruned), and the ones that save most are pruned."""
    from conftest import cli

    doc = {
        f"list{k:02d}": [
            {"id": i, "note": ("kiwi harvest schedule" if i == 0 else "unrelated filler about weather and roads ")
             + "x" * (20 + (29 - k) * 3)}  # the first arrays save most
            for i in range(10)
        ]
        for k in range(30)
    }
    proc = cli("--basis", "when is the kiwi harvest schedule?", input=json.dumps(doc, indent=1).encode())
    assert proc.returncode == 0, proc.stderr.decode()
    text = proc.stdout.decode()
    out = json.loads(text)
    raw = text[text.index('"_pruned"'):]
    assert len(raw) < 1000
    pruned = sorted(out["_pruned"]["arrays"])
    whole = [k for k in doc if k not in pruned]
    assert pruned and whole  # the bound was needed, and it did not give up on pruning
    assert all(out[k] == doc[k] for k in whole)
    assert all(len(out[k]) == 1 and out[k][0] == doc[k][0] for k in pruned)
    assert max(pruned) < min(whole)  # the ones left whole save least (their records are shortest)

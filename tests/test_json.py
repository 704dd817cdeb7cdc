"""JSON inputs: the arrays shape, the gap rule, envelopes, structured passthrough."""

from __future__ import annotations

import json
import re
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

import jsonrestore
from conftest import ByIndex, cli, record
from toolprune.core.jsonscan import scan
from toolprune.core.models import Options
from toolprune.service import run
from toolprune.spill import SpillStore

GOLDEN = Path(__file__).parent / "golden"






def prune(data: str | bytes, drop, tmp_path, basis="which record is relevant here?"):
    raw = data.encode() if isinstance(data, str) else data
    return run(raw, Options(basis=basis), ByIndex(drop), SpillStore(tmp_path))


def restore(output: bytes, store: SpillStore) -> dict:
    """Parse the output and put every dropped element back through ``omitted``."""
    return jsonrestore.restore(output, store)


@pytest.mark.parametrize(
    "drop, expected",
    [
        ({0}, "[\n  B,\n  C\n]"),
        ({1}, "[\n  A,\n  C\n]"),
        ({2}, "[\n  A,\n  B\n]"),
        ({0, 1}, "[\n  C\n]"),
        ({1, 2}, "[\n  A\n]"),
        ({0, 2}, "[\n  B\n]"),
    ],
)
def test_gap_rule_first_middle_last_adjacent_all_but_one(tmp_path, drop, expected):
    elements = {name: json.dumps({"name": name, "pad": "x" * 1500}) for name in "ABC"}
    array = "[\n  " + ",\n  ".join(elements.values()) + "\n]"
    data = '{"items": ' + array + "}"
    result = prune(data, drop, tmp_path)
    assert result.outcome == "ok", result.outcome
    out = result.output.decode()
    for name, element in elements.items():
        expected = expected.replace(name, element)
    assert out.startswith('{"items": ' + expected + ',"_pruned":{')
    assert out.endswith("}}")
    meta = orjson.loads(out)["_pruned"]["arrays"]["items"]
    assert re.fullmatch(r"P1-[0-9a-f]{8}", meta.pop("id"))
    assert meta == {"total": 3, "dropped": sorted(drop), "ranges": [[min(drop), max(drop)]]}


def test_tricky_strings_and_nested_arrays(tmp_path):
    tricky = ['a "quoted" ], {brace}, comma', "\\u005d \\\\ \\\"", "\u65e5\u672c ] [ , :", "\\ud83d\\ude00 emoji"]
    items = [{"id": i, "text": t * 20, "tags": [[1, 2], [3]]} for i, t in enumerate(tricky * 3)]
    data = '{"meta": {"nested": [[1, 2], [3, 4]]}, "items": ' + json.dumps(items) + ', "empty": []}'
    result = prune(data, range(0, 12, 2), tmp_path)
    assert result.outcome == "ok", result.outcome
    assert restore(result.output, SpillStore(tmp_path)) == orjson.loads(data)
    assert list(orjson.loads(result.output)["_pruned"]["arrays"]) == ["items"]


def test_envelopes_are_looked_through(tmp_path):
    records = [record(i) for i in range(12)]
    cases = {
        "jsonrpc": ({"jsonrpc": "2.0", "id": 1, "result": {"tools": records}}, "result.tools"),
        "graphql": ({"data": {"repository": {"issues": records}}}, "data.repository.issues"),
        "single": ({"response": {"page": 1, "items": records}}, "response.items"),
    }
    for name, (doc, key) in cases.items():
        store = SpillStore(tmp_path / name)
        result = run(orjson.dumps(doc), Options(basis="which record is relevant?"), ByIndex(range(1, 12)), store)
        assert result.outcome == "ok", name
        assert list(orjson.loads(result.output)["_pruned"]["arrays"]) == [key]
        assert restore(result.output, store) == doc


@pytest.mark.parametrize(
    "doc",
    [
        {"_pruned": 1, "items": [record(i) for i in range(30)]},  # collision
        {"items": [record(i, 50) for i in range(3)], "pad": "x" * 5000},  # array under 1,000 chars
        {"x": [record(0, 9000), record(1, 9000)], "y": 1},  # every element fixed, no inner arrays
    ],
)
def test_structured_or_untouched_json_passes_through(tmp_path, doc):
    data = orjson.dumps(doc)
    result = prune(data, range(1, 100), tmp_path)
    assert result.outcome in {"structured", "nothing_dropped"}
    assert result.output == data


@pytest.mark.parametrize(
    "raw",
    [
        '{"n": 123456789012345678901234567890, "items": %s}',
        '{"n": NaN, "items": %s}',
        '{"n": 1, "n": 2, "items": %s}',
        '{"s": "\\ud800", "items": %s}',
        '\ufeff{"items": %s}',
    ],
)
def test_json_orjson_cannot_represent_is_kept_exact(tmp_path, raw):
    data = (raw % json.dumps([record(i) for i in range(30)])).encode()
    result = prune(data, range(1, 30), tmp_path)
    if result.outcome == "ok":  # only raw spans are written back: big numbers, NaN, escapes survive
        assert result.output[:30] == data[:30]
        pruned = json.loads(result.output)
        assert len(pruned["items"]) == 1 and pruned["items"][0] == json.loads(data)["items"][0]
    else:
        assert result.outcome == "structured" and result.output == data


def test_deeply_nested_json_does_not_crash(tmp_path):
    data = ("[" * 100_000 + "]" * 100_000).encode()
    result = prune(data, [], tmp_path)
    assert result.output == data and result.outcome == "structured"
    data = ('{"a": ' + "[" * 5000 + "]" * 5000 + ', "items": ' + json.dumps([record(i) for i in range(20)]) + "}").encode()
    result = prune(data, range(1, 20), tmp_path)
    assert result.output == data and result.outcome == "structured"


def test_per_array_decisions_never_empty_an_array(tmp_path):
    doc = {"a": [record(i) for i in range(10)], "b": [record(i) for i in range(10)]}
    # every element of "a" below threshold, half of "b": "a" untouched, "b" pruned
    result = prune(orjson.dumps(doc), list(range(10)) + [10, 12, 14, 15, 16, 17, 18], tmp_path)
    assert result.outcome == "ok"
    out = orjson.loads(result.output)
    assert out["a"] == doc["a"] and len(out["b"]) == 3
    assert list(out["_pruned"]["arrays"]) == ["b"]


def test_large_element_is_fixed(tmp_path):
    doc = {"items": [record(0, 7000)] + [record(i) for i in range(1, 20)]}
    result = prune(orjson.dumps(doc), range(0, 30), tmp_path)  # unit 0 is the first *scored* element
    out = orjson.loads(result.output)
    assert out["items"][0] == doc["items"][0]


def test_japanese_note(tmp_path):
    doc = {"items": [record(i) for i in range(20)]}
    result = run(orjson.dumps(doc), Options(basis="関連するレコードはどれですか"), ByIndex(range(1, 20)), SpillStore(tmp_path))
    assert "toolprune omitted <id> <from> <to> で逐語のまま読めます" in orjson.loads(result.output)["_pruned"]["note"]


def test_cli_output_parses_and_omitted_is_a_json_array(tmp_path):
    data = (GOLDEN / "json_mcp_tools_list_pretty" / "input.bin").read_bytes()
    env = {"TOOLPRUNE_SPILL_DIR": str(tmp_path)}
    proc = cli("-v", "--basis", "How do I create a pull request or merge one?", input=data, env=env, check=True)
    assert "shape=json_arrays arrays=1 pruned=1" in proc.stderr.decode()
    out = orjson.loads(proc.stdout)
    info = out["_pruned"]["arrays"]["result.tools"]
    back = cli("omitted", info["id"], "0", str(info["total"] - 1), env=env, check=True)
    elements = orjson.loads(back.stdout)
    original = orjson.loads(data)["result"]["tools"]
    assert elements == [original[i] for i in info["dropped"]]
    assert restore(proc.stdout, SpillStore(tmp_path)) == orjson.loads(data)


def test_scanner_spans():
    text = '{"a" : [1, {"x": "]},\\""}, [2,3] ] , "b":"s,t"}'
    top = scan(text, 3)
    members = top.members(text)
    assert [(k, text[s:e]) for k, s, e in members] == [('"a"', '[1, {"x": "]},\\""}, [2,3] ]'), ('"b"', '"s,t"')]
    array = top.children[members[0][1]]
    assert [text[s:e] for s, e in array.segments(text)] == ["1", '{"x": "]},\\""}', "[2,3]"]


json_scalar = st.one_of(
    st.integers(-(10**30), 10**30), st.floats(allow_nan=False, allow_infinity=False), st.booleans(), st.none(),
    st.text(max_size=30),
    st.text(min_size=100, max_size=400),
)
# 150-300 chars from a drawn piece of up to 40 repeated: drawing every char made most of the
# time go into generating data, and the largest documents overran hypothesis's buffer
long_text = st.tuples(st.text(min_size=1, max_size=40), st.integers(150, 300)).map(lambda t: (t[0] * 300)[: t[1]])
json_record = st.fixed_dictionaries(
    {"id": st.integers(), "text": long_text},
    optional={"extra": st.dictionaries(st.text(max_size=8), json_scalar | st.lists(json_scalar, max_size=4), max_size=4)},
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    arrays=st.dictionaries(st.text(min_size=1, max_size=6), st.lists(json_record, min_size=4, max_size=25), min_size=1, max_size=3),
    extra=st.dictionaries(st.text(max_size=6), json_scalar, max_size=3),
    indent=st.sampled_from([None, 2, 4]),
    pattern=st.lists(st.booleans(), min_size=2, max_size=7).filter(lambda p: any(p) and not all(p)),
)
@example(  # a kept element over 6,000 chars whose own arrays are pruned inside it
    arrays={"a": [{"id": i, "text": "t" * 150} for i in range(3)] + [{"id": 3, "text": "t" * 150, "extra": {k: ["é" * 400] * 4 for k in "wxyz"}}]},
    extra={}, indent=None, pattern=[False, True],
)
@example(  # a kept element over 6,000 chars that is big because of one long string, pruned inside it as text
    arrays={"a": [{"id": i, "text": "t" * 150} for i in range(3)] + [{"id": 3, "text": "t" * 150, "extra": {"w": "\n\n".join(["é" * 400] * 16)}}]},
    extra={}, indent=None, pattern=[False, True],
)
def test_any_json_with_arrays_stays_json_and_restores(tmp_path_factory, arrays, extra, indent, pattern):
    drop = [i for i in range(400) if pattern[i % len(pattern)]]
    doc = {**{k: v for k, v in extra.items() if k not in arrays and k != "_pruned"}, **{k: v for k, v in arrays.items() if k != "_pruned"}}
    if not doc:
        return
    data = json.dumps(doc, indent=indent, ensure_ascii=indent is None).encode()
    data += b"\n" * (4000 // max(len(data), 1) > 0)  # short inputs are "small" anyway
    store = SpillStore(tmp_path_factory.mktemp("spill"))
    result = run(data, Options(basis="which record is relevant here?"), ByIndex(drop), store)
    event(f"outcome={result.outcome}")
    if result.outcome != "ok":
        assert result.output == data
        return
    out = orjson.loads(result.output)  # the output always parses
    kept_raw = result.output
    text = result.plan.text
    edits = [(t.node.start, t.node.end, t) for t in result.plan.targets]
    edits += [(*string.span, string) for string in result.plan.doc.strings if string.changed()]
    for target in result.plan.targets:  # every kept element's raw bytes are unchanged,
        for i, (s, e) in enumerate(target.elements):  # but for the targets and long strings pruned inside it
            if i in target.dropped:
                continue
            inner = sorted((a, b) for a, b, what in edits if s <= a and b <= e and what is not target)
            cuts = [s, *(b for span in inner for b in span), e]
            for a, b in zip(cuts[::2], cuts[1::2]):
                assert text[a:b].encode() in kept_raw
    assert set(out) == set(doc) | {"_pruned"}
    assert restore(result.output, store) == json.loads(data)


def wrapper_doc(content: str, **extra) -> dict:
    return {"content": [{"type": "text"}], "result": content, "isError": False, **extra}


ARTICLE = "\n\n".join(p for item in [json.loads(line) for line in (Path(__file__).parent / "fixtures" / "qa_sample.jsonl").open(encoding="utf-8")][:2] for p in item["paragraphs"])
QUESTION = "Which State Route has been in discussion to upgrade to interstate standards?"


@pytest.mark.parametrize("ensure_ascii", [True, False])
def test_wrapper_prunes_the_string_in_place_and_restores(tmp_path, ensure_ascii):
    from conftest import MARKER

    doc = wrapper_doc(ARTICLE + "\n\nnon-ASCII: 日本 — “quotes”")
    data = json.dumps(doc, ensure_ascii=ensure_ascii).encode()
    store = SpillStore(tmp_path)
    result = run(data, Options(basis=QUESTION), __import__("toolprune.scorers.lexical", fromlist=["x"]).LexicalScorer(), store)
    assert result.outcome == "ok" and result.stats.shape == "json_wrapper"
    out = json.loads(result.output)
    assert {k: v for k, v in out.items() if k != "result"} == {k: v for k, v in doc.items() if k != "result"}
    raw = result.output.decode()
    start = data.decode().index('"result": "') + len('"result": ')
    assert raw[:start] == data.decode()[:start]  # nothing outside the string changes
    assert raw.endswith(', "isError": false}')
    assert out["result"].startswith("【toolprune: ")
    body = out["result"].split("】\n\n", 1)[1]
    restored = MARKER.sub(lambda m: store.omitted(m.group(1), int(m.group(2)), int(m.group(3))).text.decode(), body)
    assert restored == doc["result"]


def test_a_wrappers_kept_text_keeps_its_escapes_as_written(tmp_path):
    """PHP writes ``\\/`` for every slash, other encoders ``\\u0050`` for a letter: the kept
    text is copied from the literal as it was, not decoded and escaped again (the marker and
    the header are new text, JSON-escaped). Every slash of the input here is ``\\/``."""
    from conftest import MARKER
    from toolprune.scorers.lexical import LexicalScorer

    article = ARTICLE + "\n\nSee https://en.wikipedia.org/wiki/Interstate_Highway_System for the route."
    literal = json.dumps(article).replace("/", "\\/").replace("Interstate", "\\u0049nterstate")
    data = ('{"success": true, "markdown_content": ' + literal + "}").encode()
    store = SpillStore(tmp_path)
    result = run(data, Options(basis=QUESTION), LexicalScorer(), store)
    assert result.outcome == "ok" and result.stats.shape == "json_wrapper"
    raw = result.output.decode()
    assert "\\u0049nterstate" in raw and "Interstate" not in raw  # kept as written, never decoded
    assert "\\/" in raw and re.search(r"(?<!\\)/", raw) is None
    body = json.loads(raw)["markdown_content"].split("】\n\n", 1)[1]
    restored = MARKER.sub(lambda m: store.omitted(m.group(1), int(m.group(2)), int(m.group(3))).text.decode(), body)
    assert restored == article
    marker = r"\\uff3b\\u2026.*?\\u2026\\uff3d"  # ［… … …］ as an ASCII literal writes it
    kept = [piece for piece in re.split(marker, raw.split("\\n\\n", 1)[1]) if piece.strip('"}')]
    assert kept and all(piece.rstrip('"}') in literal for piece in kept)  # each kept stretch verbatim


@pytest.mark.parametrize(
    "doc",
    [
        [ARTICLE, "x"],  # top level is not an object
        wrapper_doc(ARTICLE[:3000], pad=["y" * 100] * 10),  # string under 4,000 chars
        wrapper_doc(ARTICLE, other="z" * 10_000),  # string under 60 % of the input
        wrapper_doc(ARTICLE, copy={"again": ARTICLE}),  # its encoding occurs twice
    ],
)
def test_wrapper_conditions_one_by_one(tmp_path, doc):
    from toolprune.scorers.lexical import LexicalScorer

    data = json.dumps(doc).encode()
    result = run(data, Options(basis=QUESTION), LexicalScorer(), SpillStore(tmp_path))
    assert result.stats.shape != "json_wrapper"
    assert result.output == data


def test_ranges_cover_every_drop_within_one_calls_limit(tmp_path):
    doc = {"items": [{"id": i, "text": f"record {i} " + "x" * 1000} for i in range(100)]}
    result = prune(orjson.dumps(doc), range(0, 90), tmp_path)
    info = orjson.loads(result.output)["_pruned"]["arrays"]["items"]
    assert "dropped" not in info and info["kept"] == 10  # 90 drops: ranges, not one index each
    assert len(info["ranges"]) > 3
    store = SpillStore(tmp_path)
    back = []
    for a, b in info["ranges"]:
        part = store.omitted(info["id"], a, b)  # raises too_large if a range were too big
        back += json.loads(part.text)
    assert [e["id"] for e in back] == list(range(90))
    with pytest.raises(Exception, match="over the 20,000 limit"):
        store.omitted(info["id"], 0, 99)

"""JSON shapes agents see: MCP tool results, top-level arrays, deep records, maps of records,
big elements with inner arrays, compact ``_pruned``, numbers of any size, colliding keys."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import jsonrestore
from conftest import ByIndex, cli, record
from toolprune.core.models import Options
from toolprune.service import run
from toolprune.scorers.lexical import LexicalScorer
from toolprune.spill import SpillStore

QA = [json.loads(line) for line in (Path(__file__).parent / "fixtures" / "qa_sample.jsonl").open(encoding="utf-8")]
ARTICLE = "\n\n".join(p for item in QA[:2] for p in item["paragraphs"])
QUESTION = "Which State Route has been in discussion to upgrade to interstate standards?"






def prune(data, scorer, tmp_path, basis="which record is relevant here?", **options):
    raw = data.encode() if isinstance(data, str) else data
    store = SpillStore(tmp_path)
    return run(raw, Options(basis=basis, **options), scorer, store), store


def check(result, store, data, shape):
    """Pruned, still JSON, and every drop comes back exactly."""
    assert result.outcome == "ok", (result.outcome, result.note)
    assert result.stats.shape == shape
    original = jsonrestore.normalize(jsonrestore.loads(data))
    assert jsonrestore.normalize(jsonrestore.restore(result.output, store)) == original


def mcp_text_result(text: str, envelope: bool, **extra) -> dict:
    result = {"content": [{"type": "text", "text": text}], "isError": False, **extra}
    return {"jsonrpc": "2.0", "id": 7, "result": result} if envelope else result


@pytest.mark.parametrize("envelope", [True, False])
def test_mcp_text_item_is_pruned_inside_the_string_and_nothing_else_changes(tmp_path, envelope):
    text = ARTICLE + '\n\nState Route interstate standards upgrade, escapes: "quoted" \\ back\\slash \t tab, 日本 — é'
    doc = mcp_text_result(text, envelope)
    data = json.dumps(doc, ensure_ascii=True)  # a server escaping every non-ASCII char
    result, store = prune(data, LexicalScorer(), tmp_path, basis=QUESTION)
    check(result, store, data, "json_mcp")
    out = result.output.decode()
    literal = json.dumps(text, ensure_ascii=True)
    before, after = data.split(literal)
    assert out.startswith(before) and out.endswith(after)  # not a byte outside the string
    inner = json.loads(out[len(before) : len(out) - len(after)])
    assert inner.startswith("【toolprune: ")
    # every kept span keeps its escapes exactly as the server wrote them
    assert literal[-80:-1] in out and "\\u65e5\\u672c" in out


def test_mcp_text_holding_json_is_pruned_as_json_and_structured_content_the_same_way(tmp_path):
    issues = {"total": 30, "issues": [record(i) for i in range(30)]}
    doc = mcp_text_result(json.dumps(issues, indent=2), True, structuredContent=issues)
    data = json.dumps(doc)
    result, store = prune(data, ByIndex(range(2, 30)), tmp_path)
    check(result, store, data, "json_mcp")
    out = json.loads(result.output)
    inner = json.loads(out["result"]["content"][0]["text"])  # still JSON inside the string
    assert [r["id"] for r in inner["issues"]] == [0, 1]
    assert inner["_pruned"]["arrays"]["issues"]["dropped"] == list(range(2, 30))
    assert [r["id"] for r in out["result"]["structuredContent"]["issues"]] == [0, 1]
    assert list(out["_pruned"]["arrays"]) == ["result.structuredContent.issues"]
    assert "_pruned" not in out["result"]["structuredContent"]  # its schema is left alone


def test_mcp_text_holding_an_object_that_mostly_wraps_one_string_prunes_that_string(tmp_path):
    # a PDF reader's result: {"success": true, "markdown_content": "..."} in the text item, the
    # same object again as structuredContent (so neither is 60 % of the input: no whole wrapper)
    page = {"success": True, "markdown_content": ARTICLE + "\n\nState Route interstate upgrade.", "tips": "ok"}
    doc = mcp_text_result(json.dumps(page, indent=2), False, structuredContent=page)
    data = json.dumps(doc)
    result, store = prune(data, LexicalScorer(), tmp_path, basis=QUESTION)
    check(result, store, data, "json_mcp")
    out = json.loads(result.output)
    inner = json.loads(out["content"][0]["text"])  # still JSON inside the string
    assert inner["success"] is True and inner["tips"] == "ok"
    assert inner["markdown_content"].startswith("【toolprune: ")
    assert out["structuredContent"]["markdown_content"] == inner["markdown_content"]  # the same markers


def test_kept_text_of_json_inside_an_mcp_text_item_keeps_the_escapes_of_both_levels(tmp_path):
    # PHP's json_encode escapes "/" at both levels, System.Text.Json writes quotes as \u0022: a
    # kept paragraph of the wrapped string is copied as the server wrote it, at the text item's
    # level too (it was decoded and escaped again: "\/" came out as "/")
    page = {"success": True, "markdown_content": ARTICLE + "\n\nState Route interstate upgrade: https://dot.example/sr99"}
    literal = json.dumps(json.dumps(page, indent=2)).replace("/", r"\/").replace(r'\"success', r"\u0022success")
    data = '{"content":[{"type":"text","text":' + literal + '}],"isError":false}'
    result, store = prune(data, LexicalScorer(), tmp_path, basis=QUESTION)
    check(result, store, data, "json_mcp")
    out = result.output.decode()
    assert r"https:\/\/dot.example\/sr99" in out  # "\/" at the text item's level, as written
    assert r"{\n  \u0022success" in out  # and the quote written as \u0022


def test_structured_content_that_differs_is_kept_whole_and_the_result_says_so(tmp_path):
    issues = {"issues": [record(i) for i in range(30)]}
    doc = mcp_text_result(json.dumps(issues), False, structuredContent={"count": 30, "first": record(0)})
    data = json.dumps(doc)
    result, store = prune(data, ByIndex(range(2, 30)), tmp_path)
    check(result, store, data, "json_mcp")
    out = json.loads(result.output)
    assert out["structuredContent"] == doc["structuredContent"]
    assert out["_pruned"]["structuredContent"].startswith("kept whole")


def test_several_content_items_are_units_with_a_marker_item_per_run(tmp_path):
    items = [{"type": "text", "text": f"file {i}: " + " ".join(QA[i % 8]["paragraphs"])[:900]} for i in range(10)]
    doc = {"jsonrpc": "2.0", "id": 3, "result": {"content": items, "isError": False}}
    data = json.dumps(doc, ensure_ascii=False)
    result, store = prune(data, ByIndex({1, 2, 3, 6, 7, 8, 9}), tmp_path)
    check(result, store, data, "json_mcp")
    content = json.loads(result.output)["result"]["content"]
    texts = [c["text"] for c in content]
    assert texts[0] == items[0]["text"] and texts[2] == items[4]["text"]
    assert re.fullmatch(r"［… items 1–3 dropped \(3 items, [\d,]+ chars\): toolprune omitted \S+ 1 3 …］", texts[1])
    assert len(content) == 5 and texts[4].startswith("［… items 6–9 dropped")


def test_top_level_array_gets_a_last_pruned_element_or_passes_through_when_strict(tmp_path):
    data = json.dumps([record(i) for i in range(20)], indent=2)
    result, store = prune(data, ByIndex(range(3, 20)), tmp_path)
    check(result, store, data, "json_arrays")
    out = json.loads(result.output)
    assert [e["id"] for e in out[:-1]] == [0, 1, 2]
    assert list(out[-1]) == ["_pruned"] and out[-1]["_pruned"]["arrays"][""]["dropped"] == list(range(3, 20))
    strict, _ = prune(data, ByIndex(range(3, 20)), tmp_path / "strict", json_strict=True)
    assert strict.outcome == "structured" and strict.output == data.encode()


def test_cli_json_strict_flag_and_environment(tmp_path):
    data = json.dumps([{"id": i, "text": p} for i, p in enumerate(QA[0]["paragraphs"] + QA[1]["paragraphs"])])
    env = {"TOOLPRUNE_SPILL_DIR": str(tmp_path)}
    pruned = cli("-v", "--basis", QUESTION, input=data.encode(), env=env, check=True)
    assert "outcome=ok shape=json_arrays" in pruned.stderr.decode()
    assert list(json.loads(pruned.stdout)[-1]) == ["_pruned"]
    strict = cli("-v", "--json-strict", "--basis", QUESTION, input=data.encode(), env=env, check=True)
    assert strict.stdout == data.encode() and "outcome=structured" in strict.stderr.decode()
    by_env = cli("--basis", QUESTION, input=data.encode(), env={**env, "TOOLPRUNE_JSON_STRICT": "1"}, check=True)
    assert by_env.stdout == data.encode()


@pytest.mark.parametrize(
    "doc, key",
    [
        ({"data": {"repository": {"name": "x", "issues": {"totalCount": 30, "nodes": [record(i) for i in range(30)]}}}},
         "data.repository.issues.nodes"),
        ({"apiVersion": "v1", "kind": "List", "metadata": {}, "items": [record(i) for i in range(30)]}, "items"),
        ({"took": 3, "hits": {"total": {"value": 30}, "max_score": 1.0, "hits": [record(i) for i in range(30)]}},
         "hits.hits"),
        ({"a": {"b": {"c": {"d": {"deep": [record(i) for i in range(30)]}}}}}, "a.b.c.d.deep"),
    ],
)
def test_records_are_found_through_any_chain_of_wrappers(tmp_path, doc, key):
    data = json.dumps(doc)
    result, store = prune(data, ByIndex(range(1, 30)), tmp_path)
    check(result, store, data, "json_arrays")
    assert list(json.loads(result.output)["_pruned"]["arrays"]) == [key]


def test_map_of_records_is_pruned_member_by_member(tmp_path):
    time = {"created": "2015-01-01T00:00:00.000Z", "modified": "2026-01-01T00:00:00.000Z"}
    time |= {f"1.{i}.0": f"2020-01-{i % 28 + 1:02d}T00:00:00.000Z" for i in range(150)}
    doc = {"name": "pkg", "description": "d", "time": time, "versions": [f"1.{i}.0" for i in range(150)]}
    data = json.dumps(doc, indent=2)
    result, store = prune(data, ByIndex(set(range(3, 152)) | set(range(155, 302))), tmp_path)
    check(result, store, data, "json_arrays")
    out = json.loads(result.output)
    assert list(out["time"]) == ["created", "modified", "1.0.0"]
    assert set(out["_pruned"]["arrays"]) == {"time", "versions"}
    back = json.loads(store.omitted(out["_pruned"]["arrays"]["time"]["id"], 3, 10).text)
    assert back == {f"1.{i}.0": time[f"1.{i}.0"] for i in range(1, 9)}  # members, as an object


def test_big_elements_are_pruned_one_level_inside(tmp_path):
    pods = [{"metadata": {"name": f"pod-{k}"}, "containers": [record(i, 500) for i in range(20)]} for k in range(3)]
    data = json.dumps({"kind": "PodList", "items": pods})
    result, store = prune(data, ByIndex({i for i in range(60) if i % 20 > 1}), tmp_path)
    check(result, store, data, "json_arrays")
    out = json.loads(result.output)
    assert [len(p["containers"]) for p in out["items"]] == [2, 2, 2]
    assert set(out["_pruned"]["arrays"]) == {f"items.{k}.containers" for k in range(3)}


def test_integers_of_any_size_stay_json(tmp_path):
    big = "7" * 5000  # over Python's 4,300-digit conversion limit
    data = '{"n": ' + big + ', "items": ' + json.dumps([{"id": i, "text": p} for i, p in enumerate(ARTICLE.split("\n\n"))]) + "}"
    proc = cli("-v", "--basis", QUESTION, input=data.encode(), env={"TOOLPRUNE_SPILL_DIR": str(tmp_path)}, check=True)
    assert "outcome=ok shape=json_arrays" in proc.stderr.decode()
    assert proc.stdout.startswith(b'{"n": ' + big.encode() + b",")
    restored = jsonrestore.restore(proc.stdout, SpillStore(tmp_path))
    assert restored == jsonrestore.loads(data)


def test_colliding_and_duplicate_names_lose_no_record(tmp_path):
    arrays = {"jsonrpc": "2.0", "result.tools": [record(i) for i in range(10)], "result": {"tools": [record(i) for i in range(10)]}}
    data = json.dumps(arrays)
    result, store = prune(data, ByIndex({1, 2, 3, 4, 5, 6, 7, 11, 12, 13, 14, 15, 16, 17}), tmp_path)
    check(result, store, data, "json_arrays")
    assert set(json.loads(result.output)["_pruned"]["arrays"]) == {"/result.tools", "result.tools"}
    few, many = json.dumps([record(i) for i in range(3)]), json.dumps([record(i) for i in range(40)])
    twice = '{"items": %s, "items": %s, "other": %s}' % (few, few, many)
    result, store = prune(twice, ByIndex(range(1, 40)), tmp_path / "dup")
    assert result.outcome == "ok"
    out = result.output.decode()
    assert out.startswith(twice[: twice.index('"other"')])  # duplicated names are left whole
    assert list(json.loads(out)["_pruned"]["arrays"]) == ["other"]


@pytest.mark.parametrize("depth", [990, 1000, 1023])
def test_deep_nesting_below_the_parsers_limit_is_structured_not_an_error(tmp_path, depth):
    data = '{"a": ' + "[" * depth + "]" * depth + ', "items": ' + json.dumps([record(i) for i in range(20)]) + "}"
    result, _ = prune(data, ByIndex(range(1, 20)), tmp_path)
    assert result.outcome in ("structured", "ok") and result.outcome != "error"
    if result.outcome == "structured":
        assert result.output == data.encode()


@pytest.mark.parametrize("keep_every", [170, 9, 2])
def test_pruned_is_bounded_whatever_the_array_length(tmp_path, keep_every):
    doc = {"items": [{"id": i, "v": "x" * 40} for i in range(5000)]}
    data = json.dumps(doc)
    dropped = [i for i in range(5000) if i % keep_every]
    result, store = prune(data, ByIndex(dropped), tmp_path)
    assert result.outcome == "ok"
    out = json.loads(result.output)
    assert [e["id"] for e in out["items"]] == list(range(0, 5000, keep_every))
    meta = out["_pruned"]
    assert len(json.dumps(meta, ensure_ascii=False)) < 1_000
    info = meta["arrays"]["items"]
    assert len(info["ranges"]) <= 40 and info["omitted"] == f"toolprune omitted {info['id']} <from> <to>"
    if keep_every > 40:  # few runs of drops: the ranges are exact
        assert "exact" not in info
        check(result, store, data, "json_arrays")
        return
    # many runs: 40 ranges cover every drop; narrow calls inside them return each one, in order
    assert info["exact"] is False
    back = []
    for a, b in info["ranges"]:
        assert a in dropped and b in dropped
        for first in range(a, b + 1, 200):
            back += json.loads(store.omitted(info["id"], first, min(first + 199, b)).text)
    assert [e["id"] for e in back] == dropped


def test_sparse_relevant_records_in_a_huge_array_are_still_pruned(tmp_path):
    words = "alpha beta gamma delta build error test lorem ipsum dolor sit amet".split()
    items = [{"id": i, "body": " ".join(words[(i * k) % 12] for k in range(60)) + (" fresno interstate" if i % 97 == 0 else "")}
             for i in range(5000)]
    data = json.dumps(items, indent=2)
    result, _ = prune(data, LexicalScorer(), tmp_path, basis="which issue is about the fresno interstate highway?")
    assert result.outcome == "ok" and result.stats.ratio > 0.9
    out = json.loads(result.output)
    assert [e["id"] for e in out[:-1]] == list(range(0, 5000, 97))


def test_other_documents_with_a_content_member_are_not_mcp_results(tmp_path):
    blocks = [{"type": "paragraph", "content": [{"type": "text", "text": p}]} for p in ARTICLE.split("\n\n")]
    data = json.dumps({"type": "doc", "version": 1, "content": blocks})
    result, store = prune(data, LexicalScorer(), tmp_path, basis=QUESTION)
    check(result, store, data, "json_arrays")  # an array of records, no marker items
    assert "［…" not in result.output.decode()


def test_json_strict_leaves_a_text_item_holding_a_json_array_as_it_is(tmp_path):
    doc = mcp_text_result(json.dumps([record(i) for i in range(30)]), False)
    data = json.dumps(doc)
    result, _ = prune(data, ByIndex(range(2, 30)), tmp_path, json_strict=True)
    assert result.outcome == "structured" and result.output == data.encode()
    result, store = prune(data, ByIndex(range(2, 30)), tmp_path / "loose")
    check(result, store, data, "json_mcp")


def test_inside_a_big_element_the_arrays_are_found_through_its_wrappers(tmp_path):
    pods = [{"metadata": {"name": f"pod-{k}", "managedFields": [record(i, 500) for i in range(14)]}, "spec": {"x": 1}}
            for k in range(2)]
    data = json.dumps({"kind": "PodList", "items": pods})
    result, store = prune(data, ByIndex({i for i in range(28) if i % 14 > 1}), tmp_path)
    check(result, store, data, "json_arrays")
    assert set(json.loads(result.output)["_pruned"]["arrays"]) == {f"items.{k}.metadata.managedFields" for k in range(2)}


def test_a_lone_record_in_a_top_level_array_is_looked_into(tmp_path):
    """``npm pack --json`` prints one package in an array: its ``files`` are the units (a real
    capture of the evaluation set)."""
    case = Path(__file__).parent / "fixtures" / "realout" / "json-npm-pack-axios-types"
    data = (case / "input.bin").read_bytes()
    request = json.loads((case / "case.json").read_text())["request"]
    result, store = prune(data, LexicalScorer(), tmp_path, basis=request)
    assert result.outcome == "ok", result.outcome
    out = json.loads(result.output)
    assert isinstance(out, list) and len(out) == 2 and list(out[-1]) == ["_pruned"]
    assert list(out[-1]["_pruned"]["arrays"]) == ["0.files"]
    assert len(out[0]["files"]) < len(json.loads(data)[0]["files"])
    check(result, store, data, "json_arrays")


def packages(readmes, **extra):
    """``pip inspect``-like records, each too big to be a unit because of its readme."""
    return [{"metadata": {"name": f"pkg-{k}", "version": f"1.{k}", "description": readme, **extra}, "installer": "pip"}
            for k, readme in enumerate(readmes)]  # fmt: skip


def test_a_long_field_of_a_big_record_is_pruned_as_text_and_nothing_else_changes(tmp_path):
    readmes = ["\n\n".join(item["paragraphs"]) for item in QA[:3]]
    doc = {"version": "1", "installed": packages(readmes)}
    data = json.dumps(doc, indent=2, ensure_ascii=True)
    result, store = prune(data, LexicalScorer(), tmp_path, basis=QUESTION)
    check(result, store, data, "json_arrays")
    out = json.loads(result.output)
    assert "State Route 99" in out["installed"][0]["metadata"]["description"]
    for before, after in zip(doc["installed"], out["installed"]):
        text = after["metadata"].pop("description")
        assert text.startswith("【toolprune: ") and len(text) < len(before["metadata"].pop("description"))
        assert after == before  # every other member as it was
    raw = result.output.decode()
    assert raw[: data.index('"description": "') + 16] == data[: data.index('"description": "') + 16]


def test_a_long_field_with_no_relevant_paragraph_keeps_its_best_one_only(tmp_path):
    readmes = ["\n\n".join(f"{k}-{j} " + "lorem ipsum dolor " * 40 for j in range(10)) for k in range(2)]
    data = json.dumps(packages(readmes))  # every element is over 6,000 chars: the units are the paragraphs
    result, store = prune(data, ByIndex([*range(10), *range(12, 20)]), tmp_path)
    check(result, store, data, "json_arrays")
    first, second = (p["metadata"]["description"] for p in json.loads(result.output))
    assert "0-0 lorem" in first and "0-1 lorem" not in first  # none relevant: its opening stays
    assert "1-0 lorem" in second and "1-1 lorem" in second and "1-2 lorem" not in second


def test_a_long_field_holding_json_is_never_cut_as_text(tmp_path):
    readmes = ["\n\n".join(f"{k}-{j} " + "lorem ipsum dolor " * 40 for j in range(10)) for k in range(2)]
    # JSON with blank lines between its records (2,000 chars, the readme is most of the element):
    # as text it would be paragraphs
    payload = "[\n\n" + ",\n\n".join(json.dumps(record(i)) for i in range(5)) + "\n\n]"
    data = json.dumps(packages(readmes, config=payload))
    result, store = prune(data, ByIndex([*range(1, 10), *range(11, 20)]), tmp_path)
    check(result, store, data, "json_arrays")
    for package in json.loads(result.output):
        assert package["metadata"]["config"] == payload
        assert package["metadata"]["description"].startswith("【toolprune: ")


def npm_view(**extra):
    versions = [f"{a}.{b}.0" for a in range(1, 9) for b in range(25)]
    return {"name": "routeplanner", "versions": versions, "time": {v: f"2020-01-{1 + i % 28:02d}" for i, v in enumerate(versions)},
            "engines": {"node": ">=20.18.0"}, **extra}  # fmt: skip


def test_when_only_the_records_own_values_name_the_request_each_container_keeps_its_best_unit(tmp_path):
    data = json.dumps(npm_view(), indent=2)
    result, store = prune(data, LexicalScorer(), tmp_path, basis="routeplanner: which Node.js do I need?")
    check(result, store, data, "json_arrays")
    out = json.loads(result.output)
    assert out["versions"] == ["1.0.0"] and out["time"] == {"1.0.0": "2020-01-01"}
    assert out["engines"] == {"node": ">=20.18.0"}
    assert set(out["_pruned"]["arrays"]) == {"versions", "time"}


@pytest.mark.parametrize("basis", ["which engines field and node entry?", "kubernetes autoscaler latency budget"])
def test_when_the_request_names_nothing_in_the_values_all_dropped_still_passes_through(tmp_path, basis):
    data = json.dumps(npm_view(), indent=2)  # "engines" and "node" are keys here, never values
    result, _ = prune(data, LexicalScorer(), tmp_path, basis=basis)
    assert result.outcome == "all_dropped" and result.output == data.encode()


def test_an_mcp_result_where_nothing_is_relevant_passes_through_whatever_its_envelope_says(tmp_path):
    data = json.dumps(mcp_text_result(ARTICLE, True))  # "text" is the value of the item's type
    result, _ = prune(data, ByIndex(range(100)), tmp_path, basis="which text is relevant?")
    assert result.outcome == "all_dropped" and result.output == data.encode()


def test_a_long_field_and_an_inner_array_count_together_towards_most_of_a_big_element(tmp_path):
    """Neither the readme (45 %) nor the requirements (30 %) alone is most of the element; the two
    together are, and both are pruned inside it (``pip inspect``'s setuptools)."""
    readme = "\n\n".join(f"para-{j} " + "lorem ipsum dolor " * 27 for j in range(6))
    requires = [f"dependency-number-{j:03d} >=1.0 ; extra == 'test'" for j in range(40)]
    meta = {"name": "setuptools", "description": readme, "requires_dist": requires,
            **{f"field_{k}": "v" * 40 for k in range(26)}}  # fmt: skip
    data = json.dumps([{"metadata": meta}, {"metadata": dict(meta, name="other")}])
    sizes = len(json.dumps(readme)), len(json.dumps(requires)), len(json.dumps({"metadata": meta}))
    assert sizes[0] * 2 < sizes[2] and sizes[1] * 2 < sizes[2] and (sizes[0] + sizes[1]) * 2 > sizes[2] > 6_000
    # flat units: the 40 + 40 requirements, then the 6 + 6 paragraphs
    result, store = prune(data, ByIndex([*range(1, 40), *range(41, 80), 81, 82, 83, 84, 85, 87, 88, 89, 90, 91]), tmp_path)
    check(result, store, data, "json_arrays")
    out = json.loads(result.output)
    assert set(out[-1]["_pruned"]["arrays"]) == {"0.metadata.requires_dist", "1.metadata.requires_dist"}
    assert all(p["metadata"]["description"].startswith("【toolprune: 5 of 6 paragraphs") for p in out[:2])

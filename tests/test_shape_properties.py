"""Properties of the JSON shapes, made exact: for documents built so that pruning must happen,
the outcome is ``ok`` (a passthrough fails the test), the output parses, every kept element's
raw text is in the output unchanged (escapes included, inside strings too), and every dropped
element comes back exactly through ``omitted``. Any other JSON in: JSON (or the input) out."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import jsonrestore
from conftest import ByIndex
from toolprune.core.models import Options
from toolprune.service import run
from toolprune.scorers.base import Scorer
from toolprune.spill import SpillStore


class Tagged(Scorer):
    """Drops every unit that holds an element tagged ``DROP-`` (the tag survives any escaping)."""

    name = "by-tag"

    def score(self, request, batch):
        return [0.0 if "DROP-" in request.units[i] else 1.0 for i in batch]




BIG = "\x00big\x00"
BIG_DIGITS = "9" * 4_400


def dumps(value, **kw) -> str:
    return json.dumps(value, **kw).replace(json.dumps(BIG), BIG_DIGITS)


SLOW = dict(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example])
text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=0, max_size=12)
plain = st.one_of(
    st.integers(-(10**40), 10**40), st.floats(allow_nan=False, allow_infinity=False), st.booleans(), st.none(), text
)
scalar = plain | st.just(BIG)  # BIG becomes an integer past Python's 4,300-digit limit
small = st.dictionaries(text, plain, max_size=3)


@st.composite
def element(draw, i, drop):
    # 350-440 chars (a unit of its own) from a drawn piece of up to 60 repeated: 24 elements of
    # 440 drawn chars each overran hypothesis's buffer, so most cases were thrown away unseen
    piece = draw(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=60))
    words = (piece * (440 // len(piece) + 1))[: draw(st.integers(350, 440))]
    return {"id": i, "body": f"{'DROP' if drop else 'KEEP'}-{i} {words}", **draw(small)}


@st.composite
def case(draw):
    n = draw(st.integers(12, 24))
    kept = draw(st.sets(st.integers(0, n - 1), min_size=1, max_size=max(1, n // 3)))
    drop = [i for i in range(n) if i not in kept]
    elements = [draw(element(i, i not in kept)) for i in range(n)]
    big = draw(st.booleans())  # an integer past Python's 4,300-digit limit beside the records
    shape = draw(st.sampled_from(["top_array", "wrapped", "map", "top_map", "mcp_json", "mcp_json_structured", "mcp_items"]))
    chain = draw(st.lists(st.sampled_from(["data", "result", "page", "x.y", "/slash", "items", "日本"]), max_size=4, unique=True))
    if shape == "top_array":
        doc = elements + [BIG] * big
    elif shape == "map":  # `npm view`: the record's own values name members of its maps, which stay
        named = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=2))
        doc = {"name": "pkg", "version": f"1.{named[0]}.0", "dist-tags": {"latest": f"1.{named[-1]}.0"},
               "versions": {f"1.{i}.0": e for i, e in enumerate(elements)}}  # fmt: skip
        drop = [i for i in drop if i not in named]
    elif shape == "top_map":  # `npm outdated --json`: the top object is the map
        doc = {f"1.{i}.0": e for i, e in enumerate(elements)}
    elif shape == "wrapped":
        doc = {"records": elements, **draw(small), **({"n": BIG} if big else {})}
        for name in reversed(chain):
            doc = {name: doc, **{k: v for k, v in draw(small).items() if k != name and k != "_pruned"}}
    else:
        inner = {"records": elements, **({"n": BIG} if big else {})}
        indent = draw(st.sampled_from([None, 2]))
        items = [{"type": "text", "text": dumps(inner, indent=indent, ensure_ascii=draw(st.booleans()))}]
        if shape == "mcp_items":
            items = [{"type": "text", "text": json.dumps(e, ensure_ascii=False)} for e in elements]
        doc = {"content": items, "isError": False}
        if shape == "mcp_json_structured":
            doc["structuredContent"] = inner
        if draw(st.booleans()):
            doc = {"jsonrpc": "2.0", "id": draw(st.integers(0, 99)), "result": doc}
    if isinstance(doc, dict):
        doc.pop("_pruned", None)
    raw = dumps(doc, indent=draw(st.sampled_from([None, 1, 4])), ensure_ascii=draw(st.booleans()))
    return shape, raw, elements, drop


@settings(max_examples=80, **SLOW)
@given(c=case())
def test_pruning_that_must_happen_happens_stays_json_keeps_raw_spans_and_restores(tmp_path_factory, c):
    shape, raw, elements, drop = c
    store = SpillStore(tmp_path_factory.mktemp("spill"))
    result = run(raw.encode(), Options(basis="which record is relevant here?"), Tagged(), store)
    event(shape)
    assert result.outcome == "ok", (shape, result.outcome, result.note)
    out = result.output.decode()
    jsonrestore.loads(out)  # parses
    kept = [i for i in range(len(elements)) if i not in set(drop)]
    pos = 0
    for i in kept:  # kept elements: their raw text as it was in the input, in order
        pieces = _raw_forms(raw, elements[i])
        found = min((p for p in (out.find(piece, pos) for piece in pieces) if p >= 0), default=-1)
        assert found >= 0, f"{shape}: kept element {i} is not in the output verbatim"
        pos = found
    assert jsonrestore.normalize(jsonrestore.restore(out, store)) == jsonrestore.normalize(jsonrestore.loads(raw))


def _raw_forms(raw: str, element: dict) -> list[str]:
    """The element's body as it appears in the raw input: plain or escaped inside a string."""
    body = element["body"]
    forms = [json.dumps(body, ensure_ascii=a)[1:-1] for a in (True, False)]
    forms += [json.dumps(f, ensure_ascii=a)[1:-1] for f in forms for a in (True, False)]
    return [f for f in forms if f in raw] or forms


any_json = st.recursive(
    scalar, lambda inner: st.lists(inner, max_size=6) | st.dictionaries(text, inner, max_size=6), max_leaves=60
)


@settings(max_examples=80, **SLOW)
@given(doc=any_json, pad=st.integers(0, 60), indent=st.sampled_from([None, 2]), drop=st.sets(st.integers(0, 80)))
def test_any_json_in_gives_json_out(tmp_path_factory, doc, pad, indent, drop):
    records = [{"id": i, "pad": "z" * 200} for i in range(pad)]
    wrapped = {"value": doc, "records": records} if pad else doc
    raw = dumps(wrapped, indent=indent).encode()
    raw += b" " * max(0, 4_000 - len(raw))  # past the size gate
    result = run(raw, Options(basis="which record is relevant here?"), ByIndex(drop), SpillStore(tmp_path_factory.mktemp("s")))
    event(result.outcome)
    assert result.outcome != "error", result.note
    if result.outcome != "ok":
        assert result.output == raw
        return
    jsonrestore.loads(result.output)


line = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1, max_size=30)


@st.composite
def big_fields(draw, shape):
    """Records too big to be units because of one long field (a package's readme): its
    paragraphs (one line each, any characters, escapes) tagged KEEP or DROP."""
    n = draw(st.integers(2, 4))
    records, paragraphs = [], []
    for i in range(n):
        count = draw(st.integers(12, 16))
        kept = draw(st.sets(st.integers(0, count - 1), min_size=1, max_size=3))
        paras = []
        for j in range(count):
            seed = draw(line)
            tag = f"{'KEEP' if j in kept else 'DROP'}-{i}-{j} "
            paras.append(tag + (seed * (520 // len(seed) + 1))[:520])
        paragraphs += [(p, p.startswith("KEEP")) for p in paras]
        records.append({"name": f"pkg{i}", "metadata": {"version": f"1.{i}", "description": "\n\n".join(paras)}, **draw(small)})
    if shape == "top_array":
        doc = records
    elif shape == "wrapped":
        doc = {"version": "1", "installed": records}
    else:
        inner = {"installed": records}
        text = json.dumps(inner, indent=draw(st.sampled_from([None, 2])), ensure_ascii=draw(st.booleans()))
        doc = {"content": [{"type": "text", "text": text}], "structuredContent": inner, "isError": False}
    raw = json.dumps(doc, indent=draw(st.sampled_from([None, 1])), ensure_ascii=draw(st.booleans()))
    return shape, raw, paragraphs


@pytest.mark.parametrize("shape", ["top_array", "wrapped", "mcp_json_structured"])
@settings(max_examples=25, **SLOW)
@given(data=st.data())
def test_long_fields_of_big_records_are_pruned_as_text_inside_valid_json_and_restore(tmp_path_factory, shape, data):
    shape, raw, paragraphs = data.draw(big_fields(shape))
    store = SpillStore(tmp_path_factory.mktemp("spill"))
    result = run(raw.encode(), Options(basis="which record is relevant here?"), Tagged(), store)
    event(shape)
    assert result.outcome == "ok", (shape, result.outcome, result.note)
    out = result.output.decode()
    jsonrestore.loads(out)  # parses
    for paragraph, keep in paragraphs:  # kept paragraphs: their raw text as in the input (escaped as it was)
        present = any(form in out for form in _raw_forms(raw, {"body": paragraph}))
        assert present == keep, (shape, paragraph[:20], keep)
    assert jsonrestore.normalize(jsonrestore.restore(out, store)) == jsonrestore.normalize(jsonrestore.loads(raw))

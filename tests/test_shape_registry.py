"""The JSON shape registry: each shape a module with a NAME and a claim, tried in order."""

from __future__ import annotations

import json

from toolprune.core.jsonscan import scan
from toolprune.core.models import Options, Stats
from toolprune.core.plans import TreePlan, WrapperPlan
from toolprune.core.shapes import JSON, json_shapes

PARAGRAPH = "The quick brown fox jumps over the lazy dog near the river bank. " * 6


def claims(doc) -> list[str]:
    text = json.dumps(doc)
    top = scan(text, 5, objects_only=True)
    return [s.NAME for s in json_shapes() if s.claim(text, top, Options(basis="fox"), Stats()) is not None]


def test_every_registered_shape_has_a_name_and_a_claim():
    modules = json_shapes()
    assert [m.__name__.rsplit(".", 1)[1] for m in modules] == list(JSON)
    assert [m.NAME for m in modules] == ["json_mcp", "json_wrapper", "json_arrays"]
    assert all(callable(m.claim) for m in modules)


def test_an_mcp_result_is_claimed_first_although_later_shapes_would_claim_it_too():
    mcp = {"content": [{"type": "text", "text": "\n\n".join([PARAGRAPH] * 60)}], "isError": False}
    assert claims(mcp)[0] == "json_mcp"


def test_each_shape_claims_its_own_input_and_returns_the_plan_kind_it_scores_with():
    wrapper = {"ok": True, "output": "\n\n".join([PARAGRAPH] * 60)}
    records = {"items": [{"id": i, "title": PARAGRAPH[: 40 + i]} for i in range(200)]}
    assert claims(wrapper) == ["json_wrapper"]
    assert claims(records) == ["json_arrays"]
    text = json.dumps(wrapper)
    plan = json_shapes()[1].claim(text, scan(text, 5, objects_only=True), Options(basis="fox"), Stats())
    assert isinstance(plan, WrapperPlan) and plan.outcome == "nothing_dropped"
    text = json.dumps(records)
    plan = json_shapes()[2].claim(text, scan(text, 5, objects_only=True), Options(basis="fox"), Stats())
    assert isinstance(plan, TreePlan) and plan.targets


def test_a_document_no_shape_claims_is_left_to_the_structured_passthrough():
    assert claims({"name": "x", "version": "1.0", "nested": {"a": 1, "b": [1, 2, 3]}}) == []

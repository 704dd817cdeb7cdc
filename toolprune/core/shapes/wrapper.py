"""The wrapper shape: a JSON object that mostly holds one long string (a tool result's
``"output"``, a page's ``"content"``). The string is pruned as text, and the pruned text is
written back JSON-escaped in place; everything else stays byte for byte."""

from __future__ import annotations

import orjson

from toolprune.core.decide import MIN_CHARS
from toolprune.core.jsonscan import Node
from toolprune.core.models import Options, Stats
from toolprune.core.plans import WrapperPlan
from toolprune.core.shapes.records import member_name

NAME = "json_wrapper"


def claim(text: str, top: Node, options: Options, stats: Stats) -> WrapperPlan | None:
    """A text plan of the wrapped string, or None when ``text`` is not a wrapper."""
    wrapped = find(text, top) if top.kind == "{" else None
    if wrapped is None:
        return None
    content, span = wrapped
    return WrapperPlan("nothing_dropped", stats, content, text, span)


def find(text: str, top: Node) -> tuple[str, tuple[int, int]] | None:
    """The wrapped string's content and raw span (:func:`find_named`), or None."""
    found = find_named(text, top)
    return None if found is None else found[:2]


def find_named(text: str, top: Node) -> tuple[str, tuple[int, int], str] | None:
    """The top object's longest direct string value is ≥ 60 % of the input (its literal as
    written, so that a page whose every character is a ``\\uXXXX`` escape is measured as the rest
    of the input is) and ≥ 4,000 chars, its raw encoding occurs exactly once, and no other member
    has its name. Returns (content, raw span, member name)."""
    members = top.members(text)
    strings = [(e - s, s, e, raw) for raw, s, e in members if text[s] == '"']
    if not strings:
        return None
    _, start, end, raw_name = max(strings)
    name = member_name(raw_name)
    if sum(1 for raw, _, _ in members if member_name(raw) == name) > 1:
        return None  # a member named twice: which one a reader takes is the reader's choice
    try:
        content = orjson.loads(text[start:end])
    except orjson.JSONDecodeError:  # lone surrogates: not representable as UTF-8 text
        return None
    if len(content) < MIN_CHARS or end - start < 0.6 * len(text):  # its literal: escaped as the rest
        return None
    if text.count(text[start:end]) != 1:
        return None
    return content, (start, end), name

"""The wrapper shape: a JSON object that mostly holds one long string (a tool result's
``"output"``, a page's ``"content"``). The string is pruned as text, and the pruned text is
written back JSON-escaped in place; everything else stays byte for byte."""

from __future__ import annotations

import orjson

from toolprune.core.decide import MIN_CHARS
from toolprune.core.jsonscan import Node
from toolprune.core.jsonshape import opens_like_json, parses
from toolprune.core.models import Options, Stats
from toolprune.core.plans import WrapperPlan
from toolprune.core.shapes.records import PRUNED_KEY, child, member_name

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


WRAPPER_LEVELS = 3
"""How deep the wrapped string may sit: the top object's member, or a member of the object that
is its longest member, and so on, down to this many objects (an MCP server's ``{"success": true,
"details": {"content": "…"}}``, an API's ``{"data": {"readme": "…"}}``)."""


Found = tuple[str, tuple[int, int], tuple[str, ...]]
"""A wrapped string: its content, its literal's span, the member names from the top."""


def find_named(text: str, top: Node) -> Found | None:
    """The longest member of the top object, or, when that is an object, its longest member, and
    so on (``WRAPPER_LEVELS``), when it is a string ≥ 60 % of the input (its literal as written,
    so that a page whose every character is a ``\\uXXXX`` escape is measured as the rest of the
    input is) and ≥ 4,000 chars, whose raw encoding occurs exactly once, and no member on the way
    shares its name with another member of its object. Returns (content, raw span, the member
    names from the top). None for a top object with a ``_pruned`` member (toolprune's own output,
    passed through as ``structured``) and for a string that is itself JSON (cut as text, the
    JSON inside would no longer parse)."""
    node = top
    path: tuple[str, ...] = ()
    for _ in range(WRAPPER_LEVELS):
        members = node.members(text)
        if not members:
            return None
        if not path and any(member_name(raw) == PRUNED_KEY for raw, _, _ in members):
            return None
        _, start, end, raw_name = max((e - s, s, e, raw) for raw, s, e in members)
        name = member_name(raw_name)
        if sum(1 for raw, _, _ in members if member_name(raw) == name) > 1:
            return None  # a member named twice: which one a reader takes is the reader's choice
        path = (*path, name)
        if text[start] == '"':
            return _string(text, start, end, path)
        if text[start] != "{":
            return None
        node = child(text, node, start)
    return None


def _string(text: str, start: int, end: int, path: tuple[str, ...]) -> Found | None:
    try:
        content = orjson.loads(text[start:end])
    except orjson.JSONDecodeError:  # lone surrogates: not representable as UTF-8 text
        return None
    if len(content) < MIN_CHARS or end - start < 0.6 * len(text):  # its literal: escaped as the rest
        return None
    if opens_like_json(content) and parses(content) is not False:
        return None  # JSON in a string: pruned as JSON inside an MCP text item (or kept whole), never cut as text
    if text.count(text[start:end]) != 1:
        return None
    return content, (start, end), path

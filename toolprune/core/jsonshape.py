"""JSON inputs (SPEC §4): decide the shape, and prune arrays of records element by element.

Only raw spans of the input are ever written back: parsed values are used to decide, never
re-serialised, so numbers orjson cannot represent exactly, key order and whitespace all survive.
"""

from __future__ import annotations

from collections.abc import Sequence

from toolprune.core.jsonscan import Node, scan
from toolprune.core.text import FIXED_CHARS

TARGET_MIN_CHARS = 1_000
"""A direct array member is a target when its raw span has at least this many characters."""
ENVELOPE_LEVELS = 3
PRUNED_KEY = "_pruned"


class Target:
    """A target array: ``key`` is its dotted path from the top object (``result.tools``),
    ``elements`` the character spans of its elements, ``dropped`` the indices decided."""

    __slots__ = ("key", "node", "elements", "dropped")

    def __init__(self, key: str, node: Node, elements: list[tuple[int, int]]) -> None:
        self.key = key
        self.node = node
        self.elements = elements
        self.dropped: list[int] = []

    def fixed(self, i: int) -> bool:
        s, e = self.elements[i]
        return e - s > FIXED_CHARS


def parses(text: str) -> bool | None:
    """True when ``text`` is JSON, False when it is not, None when it is JSON-like but no parser
    can represent it (depth limits): treat as ``structured`` (passthrough)."""
    import orjson

    body = text.lstrip("\ufeff")
    try:
        orjson.loads(body)
        return True
    except orjson.JSONDecodeError as exc:
        if "depth" in str(exc):  # deeper than orjson's limit: passthrough, whatever the stack
            return None
    import json  # NaN/Infinity, lone surrogates: valid for Python's parser, not for orjson

    try:
        json.loads(body)
        return True
    except RecursionError:
        return None
    except ValueError:
        return False


def _key(raw: str) -> str:
    if "\\" not in raw:
        return raw[1:-1]
    import orjson

    return orjson.loads(raw)


def find_targets(text: str, top: Node) -> list[Target] | None:
    """Target arrays, looking through envelopes; None when the shape must be ``structured``
    (duplicate keys or an existing ``_pruned`` key at the top)."""
    targets: list[Target] = []
    level, prefix = top, ""
    for depth in range(ENVELOPE_LEVELS + 1):
        members = level.members(text)
        keys = [_key(raw) for raw, _, _ in members]
        if len(set(keys)) != len(keys) or (depth == 0 and PRUNED_KEY in keys):
            return None
        for key, (_, start, end) in zip(keys, members):
            if text[start] == "[" and end - start >= TARGET_MIN_CHARS:
                node = level.children.get(start) or scan(text, 1, start)
                targets.append(Target(prefix + key, node, node.segments(text)))
        inner = _envelope(text, keys, members)
        if inner is None or depth == ENVELOPE_LEVELS:
            break
        key, start = inner
        level, prefix = level.children.get(start) or scan(text, 1, start), f"{prefix}{key}."
    return targets


def _envelope(text: str, keys: Sequence[str], members: Sequence[tuple[str, int, int]]) -> tuple[str, int] | None:
    """The (key, start) of the object an envelope wraps: a single member holding an object,
    a JSON-RPC ``result`` or a GraphQL-style ``data``."""
    if len(keys) == 1:
        name = keys[0]
    elif "jsonrpc" in keys and "result" in keys:
        name = "result"
    elif "data" in keys and set(keys) <= {"data", "errors", "extensions"}:
        name = "data"
    else:
        return None
    start = members[keys.index(name)][1]
    return (name, start) if text[start] == "{" else None


def render_arrays(text: str, top: Node, targets: Sequence[Target], pruned_meta: bytes) -> str:
    """The input with dropped elements removed by the gap rule and ``_pruned`` added at the end
    of the top object."""
    parts: list[str] = []
    pos = 0
    for target in sorted((t for t in targets if t.dropped), key=lambda t: t.node.start):
        node, elements, dropped = target.node, target.elements, set(target.dropped)
        parts.append(text[pos : node.start + 1])
        parts.append(text[node.start + 1 : elements[0][0]])  # g0
        first = True
        for i, (s, e) in enumerate(elements):
            if i in dropped:
                continue
            if not first:
                parts.append(text[elements[i - 1][1] : s])  # this element's own preceding gap
            parts.append(text[s:e])
            first = False
        parts.append(text[elements[-1][1] : node.end - 1])  # gn
        pos = node.end - 1
    last_value_end = top.members(text)[-1][2]
    parts.append(text[pos:last_value_end])
    parts.append(',"' + PRUNED_KEY + '":' + pruned_meta.decode("utf-8"))
    parts.append(text[last_value_end:])
    return "".join(parts)


def pruned_note(lang: str, command: str) -> str:
    if lang == "ja":
        return (
            "リクエストに関係のない要素を省略しました。省略した要素は "
            f"{command} <id> <from> <to> で逐語のまま読めます"
        )
    return (
        "Elements unrelated to the request were dropped. "
        f"Get them back verbatim with: {command} <id> <from> <to>"
    )


def omitted_ranges(target: Target, limit: int = 20_000) -> list[list[int]]:
    """[from, to] ranges that return every dropped element, each within one ``omitted`` call's
    character limit (``omitted`` prints the range's dropped elements as one JSON array)."""
    ranges: list[list[int]] = []
    size = 0
    for i in target.dropped:
        s, e = target.elements[i]
        chars = e - s + 1  # the element and its comma (or bracket)
        if ranges and size + chars + 1 <= limit:
            ranges[-1][1] = i
            size += chars
        else:
            ranges.append([i, i])
            size = chars
    return ranges


def pruned_meta(lang: str, command: str, targets: Sequence[Target], ids: Sequence[str]) -> bytes:
    arrays = {}
    for target, record_id in zip([t for t in targets if t.dropped], ids):
        arrays[target.key] = {
            "id": record_id,
            "total": len(target.elements),
            "dropped": target.dropped,
            "ranges": omitted_ranges(target),
        }
    import orjson

    return orjson.dumps({"note": pruned_note(lang, command), "arrays": arrays})

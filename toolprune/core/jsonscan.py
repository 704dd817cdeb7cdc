"""A span scanner for JSON text that has already parsed.

It finds, for containers down to a given depth, their raw spans and the spans of their members
or elements. Only the top levels are walked in Python; every value below them (an array's
elements, a record's fields) is skipped with the standard library's C scanner
(``JSONDecoder.raw_decode``), so the Python loop runs once per member or element, not once per
token.
"""

from __future__ import annotations

import re
from typing import cast  # typing is loaded before any JSON is planned (core.models imports it)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

_WS = " \t\r\n"
_SKIP_WS = re.compile(r"[ \t\r\n]*")


class Node:
    """A container: ``kind`` ``{`` or ``[``, ``start`` at its opening bracket, ``end`` just past
    its closing one; its own commas and colons; nested containers within the depth limit in
    ``children``, keyed by their start index."""

    __slots__ = ("kind", "start", "end", "commas", "colons", "children")

    def __init__(self, kind: str, start: int) -> None:
        self.kind = kind
        self.start = start
        self.end = -1
        self.commas: list[int] = []
        self.colons: list[int] = []
        self.children: dict[int, Node] = {}

    def segments(self, text: str) -> list[tuple[int, int]]:
        """Whitespace-trimmed spans between the brackets and the commas of this container."""
        bounds = [self.start, *self.commas, self.end - 1]
        out = []
        for a, b in zip(bounds, bounds[1:]):
            s, e = a + 1, b
            while s < e and text[s] in _WS:
                s += 1
            while e > s and text[e - 1] in _WS:
                e -= 1
            if s < e:
                out.append((s, e))
        return out

    def members(self, text: str) -> list[tuple[str, int, int]]:
        """For an object: (raw key literal, value start, value end) per member, in order."""
        out = []
        colons = iter(self.colons)
        for s, e in self.segments(text):
            colon = next(colons)
            while not s <= colon < e:
                colon = next(colons)
            v = colon + 1
            while text[v] in _WS:
                v += 1
            k = colon
            while text[k - 1] in _WS:
                k -= 1
            out.append((text[s:k], v, e))
        return out


def scan(text: str, max_depth: int = 1, start: int | None = None, objects_only: bool = False) -> Node | None:
    """The container at ``start`` (default: the top level of ``text``) with nested containers
    down to ``max_depth`` (itself is depth 1, so 1 = its own members only; deeper values are
    skipped at C speed; with ``objects_only`` only members of objects are descended into, never
    array elements); None when there is no container there. ``text`` must be JSON that
    Python's parser accepts; ValueError (or RecursionError) otherwise."""
    import json
    from json.decoder import scanstring  # type: ignore[attr-defined]  # there at run time, not in the stubs

    # the pattern matches the empty string too, so it never returns None
    skip = cast("Callable[[str, int], re.Match[str]]", _SKIP_WS.match)
    value = json.JSONDecoder(parse_int=len, parse_float=len, parse_constant=len).raw_decode  # never converts

    def container(start: int, depth: int) -> Node:
        node = Node(text[start], start)
        close = "}" if node.kind == "{" else "]"
        pos = skip(text, start + 1).end()
        if text[pos] == close:
            node.end = pos + 1
            return node
        while True:
            if node.kind == "{":
                if text[pos] != '"':
                    raise ValueError(f"expected a key at {pos}")
                pos = skip(text, scanstring(text, pos + 1)[1]).end()
                if text[pos] != ":":
                    raise ValueError(f"expected ':' at {pos}")
                node.colons.append(pos)
                pos = skip(text, pos + 1).end()
            if text[pos] in "{[" and depth < max_depth and (node.kind == "{" or not objects_only):
                child = container(pos, depth + 1)
                node.children[pos] = child
                pos = child.end
            else:
                pos = value(text, pos)[1]
            pos = skip(text, pos).end()
            if text[pos] == ",":
                node.commas.append(pos)
                pos = skip(text, pos + 1).end()
            elif text[pos] == close:
                node.end = pos + 1
                return node
            else:
                raise ValueError(f"expected ',' or {close!r} at {pos}")

    pos = skip(text, start or 0).end()
    if pos >= len(text) or text[pos] not in "{[":
        return None
    return container(pos, 1)

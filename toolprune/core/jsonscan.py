"""A span scanner for JSON text that has already parsed (SPEC §4).

It finds, for containers down to a given depth, their raw spans and the spans of their members
or elements, without building values. One regular expression walks string literals and
structural characters; everything between them (numbers, literals, whitespace) is skipped, so
the Python loop runs once per string or bracket, not once per character.
"""

from __future__ import annotations

import re

_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{},:]', re.S)
_WS = " \t\r\n"


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


def scan(text: str, max_depth: int) -> Node | None:
    """The top-level container of ``text`` with nested containers down to ``max_depth``
    (the top is depth 1); None when the top level is a scalar."""
    stack: list[Node | None] = []  # None stands for a container deeper than max_depth
    for match in _TOKEN.finditer(text):
        char = text[match.start()]
        if char == '"':
            continue
        if char in "{[":
            if len(stack) >= max_depth:
                stack.append(None)
                continue
            node = Node(char, match.start())
            if stack:
                stack[-1].children[node.start] = node  # type: ignore[union-attr]
            stack.append(node)
        elif char in "]}":
            closed = stack.pop()
            if closed is not None:
                closed.end = match.end()
                if not stack:
                    return closed
        else:
            current = stack[-1] if stack else None
            if current is not None:
                (current.commas if char == "," else current.colons).append(match.start())
    return None

"""Edit a JSON settings file in place: insert or remove members and elements as text, so that
every byte outside the edit stays as it was (indentation, spacing, key order, and the ``//`` and
``/* */`` comments Gemini CLI allows in its settings).

The text is first checked by :func:`loads` (comments stripped, then ``json.loads``); the scanner
below then only has to find where each value starts and ends.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field


@dataclass
class Node:
    """A JSON value's span ``[start, end)`` in the text; for an object its members
    (key, where the key starts, value), for an array its elements."""

    start: int
    end: int
    members: list[tuple[str, int, Node]] = field(default_factory=list)
    elements: list[Node] = field(default_factory=list)

    def member(self, key: str) -> Node | None:
        for name, _, value in self.members:
            if name == key:
                return value
        return None


def strip_comments(text: str) -> str:
    """``text`` with ``//`` and ``/* */`` comments blanked out (strings left alone), offsets kept."""
    out, i, n = list(text), 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            i = _string_end(text, i)
            continue
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out[i:j] = " " * (j - i)
            i = j
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out[i:j] = [ch if ch in "\r\n" else " " for ch in text[i:j]]
            i = j
            continue
        i += 1
    return "".join(out)


def loads(text: str) -> object:
    return json.loads(strip_comments(text))


def _string_end(text: str, i: int) -> int:
    """The index just past the string starting at ``text[i] == '"'``."""
    i += 1
    while True:
        c = text[i]
        if c == "\\":
            i += 2
        elif c == '"':
            return i + 1
        else:
            i += 1


def scan(text: str) -> Node:
    """The spans of the JSON value in ``text`` (which :func:`loads` accepted)."""
    clean = strip_comments(text)
    node, _ = _value(clean, _skip(clean, 0))
    return node


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i


def _value(text: str, i: int) -> tuple[Node, int]:
    c = text[i]
    if c == "{":
        node = Node(i, i)
        i = _skip(text, i + 1)
        while text[i] != "}":
            key_start = i
            key_end = _string_end(text, i)
            key = json.loads(text[key_start:key_end])
            i = _skip(text, _skip(text, key_end) + 1)  # past the colon
            value, i = _value(text, i)
            node.members.append((key, key_start, value))
            i = _skip(text, i)
            if text[i] == ",":
                i = _skip(text, i + 1)
        node.end = i + 1
        return node, i + 1
    if c == "[":
        node = Node(i, i)
        i = _skip(text, i + 1)
        while text[i] != "]":
            value, i = _value(text, i)
            node.elements.append(value)
            i = _skip(text, i)
            if text[i] == ",":
                i = _skip(text, i + 1)
        node.end = i + 1
        return node, i + 1
    if c == '"':
        end = _string_end(text, i)
        return Node(i, end), end
    j = i
    while j < len(text) and text[j] not in ",]} \t\r\n":
        j += 1
    return Node(i, j), j


class Editor:
    """Collects insertions and removals against the original text, then applies them at once."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.clean = strip_comments(text)
        self.root = scan(text)
        self.newline = "\r\n" if "\r\n" in text else "\n"
        self.unit = indent_unit(text)
        self.edits: list[tuple[int, int, str]] = []  # (start, end, replacement)

    # --- layout ---------------------------------------------------------------------------

    def _compact(self, node: Node) -> bool:
        return "\n" not in self.text[node.start : node.end]

    def _line_indent(self, pos: int) -> str:
        line = self.text.rfind("\n", 0, pos) + 1
        j = line
        while j < len(self.text) and self.text[j] in " \t":
            j += 1
        return self.text[line:j]

    def _child_indent(self, node: Node, items: list[int]) -> str:
        """The indentation of the container's items (its first item's), else one unit deeper."""
        if items:
            return self._line_indent(items[0])
        unit = self.unit if isinstance(self.unit, str) else " " * self.unit  # a tab, or a number of spaces
        return self._line_indent(node.start) + unit

    def render(self, value: object, indent: str, compact: bool) -> str:
        if compact:
            return json.dumps(value, ensure_ascii=False)
        text = json.dumps(value, ensure_ascii=False, indent=self.unit)
        return text.replace("\n", self.newline + indent)

    # --- insertions -----------------------------------------------------------------------

    def _insert(self, node: Node, items: list[tuple[int, int]], pieces: list[str]) -> None:
        """Put ``pieces`` (rendered items) after the container's last item, or into it when empty."""
        starts = [start for start, _ in items]
        compact = self._compact(node)
        indent = self._child_indent(node, starts)
        if compact:
            joined = ", ".join(pieces)
            if items:
                self.edits.append((items[-1][1], items[-1][1], ", " + joined))
            else:
                self.edits.append((node.start + 1, node.end - 1, joined))
            return
        lead = "," + self.newline + indent
        joined = lead.join(pieces)
        if items:
            end = items[-1][1]
            eol = self.text.find("\n", end)
            eol = len(self.text) if eol < 0 else eol - (self.text[eol - 1] == "\r")
            if self.text[end:eol].strip() and not self.clean[end:eol].strip():
                # a comment ends the last item's line: it stays with that item
                self.edits.append((end, end, ","))
                self.edits.append((eol, eol, self.newline + indent + joined))
            else:
                self.edits.append((end, end, lead + joined))
        else:
            closing = self.newline + self._line_indent(node.start)
            self.edits.append((node.start + 1, node.end - 1, self.newline + indent + joined + closing))

    def add_members(self, node: Node, members: list[tuple[str, object]]) -> None:
        compact = self._compact(node)
        indent = self._child_indent(node, [k for _, k, _ in node.members])
        sep = ": "
        pieces = [
            json.dumps(key, ensure_ascii=False) + sep + self.render(value, indent, compact) for key, value in members
        ]
        self._insert(node, [(k, v.end) for _, k, v in node.members], pieces)

    def add_elements(self, node: Node, values: list[object]) -> None:
        compact = self._compact(node)
        indent = self._child_indent(node, [e.start for e in node.elements])
        self._insert(node, [(e.start, e.end) for e in node.elements], [self.render(v, indent, compact) for v in values])

    # --- removals -------------------------------------------------------------------------

    def remove(self, node: Node, indices: set[int]) -> None:
        """Remove the items (members or elements) at ``indices`` with their separators."""
        items = [(k, v.end) for _, k, v in node.members] if node.members else [(e.start, e.end) for e in node.elements]
        if not indices:
            return
        if len(indices) == len(items):
            self.edits.append((node.start + 1, node.end - 1, ""))
            return
        run: list[int] = []
        for index in sorted(indices) + [None]:
            if run and (index is None or index != run[-1] + 1):
                first, last = run[0], run[-1]
                if first == 0:
                    self.edits.append((items[first][0], items[last + 1][0], ""))
                else:
                    self._remove_after(items[first - 1][1], items[first][0], items[last][1])
                run = []
            if index is not None:
                run.append(index)

    def _remove_after(self, previous_end: int, start: int, end: int) -> None:
        """Remove items ``[start, end)`` that follow another item, with the comma before them;
        a comment between keeps its place with the item before."""
        gap = self.text[previous_end:start]
        if gap.strip() == self.clean[previous_end:start].strip() or "\n" not in gap:
            self.edits.append((previous_end, end, ""))
            return
        comma = previous_end + self.clean[previous_end:start].index(",")
        line = previous_end + gap.rindex("\n")
        line -= self.text[line - 1] == "\r"
        self.edits.append((comma, comma + 1, ""))
        self.edits.append((line, end, ""))

    def result(self) -> str:
        text = self.text
        for start, end, replacement in sorted(self.edits, key=lambda e: (e[0], e[1]), reverse=True):
            text = text[:start] + replacement + text[end:]
        return text


def indent_unit(text: str | None) -> int | str:
    """The indentation the file uses (its first indented line), 2 for a new or flat file."""
    for line in (text or "").split("\n")[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            lead = line[: len(line) - len(stripped)]
            return "\t" if lead.startswith("\t") else len(lead)
    return 2

"""Find the containers of records in a JSON document: the units of the arrays shape.

A *target* is an array whose elements, or a map whose members, are pruned one by one. They are
looked for along one path from the top:

- the top itself when it is an array (``gh api``, ``npm search --json``, ``docker inspect``);
- every direct member of the current object that is an array of at least 1,000 chars, or a
  *map of records* (an object with at least 8 members whose values are all objects, or all
  scalars keyed by ids or versions: ``npm view --json``'s ``time``);
- then one level down: into the envelope (a single member holding an object, a JSON-RPC
  ``result``, a GraphQL ``data``) or else into the member object that carries most of the bytes,
  as far down as that goes (``data.repository.issues.nodes``, ``hits.hits``).

An element over 6,000 chars (or the only element of an array, a wrapper) is never a unit itself;
when the arrays or maps found inside it the same way (its own members, then through its
wrappers) hold most of its bytes (a pod's containers, its ``metadata.managedFields``), those are
targets too, one level inside it. A member name that occurs twice in one object is never
followed or targeted (a parser keeps only one of the two), so no drop is ever named ambiguously.

*Long strings* are looked for the same way inside an element over 6,000 chars (or a lone one):
a string member of at least 2,000 chars of the element or of the objects followed down in it
counts with its inner containers towards "most of its bytes", and is then pruned inside as
text, paragraph by paragraph (a package's ``description``, an issue's ``body``, a log field):
``pip inspect``'s packages are big because of one readme each (``metadata.description``), and
that string is what gets pruned. (A top object that is mostly one string is the wrapper shape's.)
"""

from __future__ import annotations

from collections import Counter

from toolprune.core.jsonscan import Node, scan
from toolprune.core.text import FIXED_CHARS

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from toolprune.core.models import Options, Stats
    from toolprune.core.plans import TreePlan

TARGET_MIN_CHARS = 1_000
"""An array (or map) is a target when its raw span has at least this many characters."""
ENVELOPE_LEVELS = 3
"""Envelopes (single member, JSON-RPC ``result``, GraphQL ``data``) are looked through this deep;
below them only the member carrying most of the bytes is followed."""
MAX_LEVELS = 64
MAP_MIN_MEMBERS = 8
PRUNED_KEY = "_pruned"
STRING_MIN_CHARS = 2_000
"""A string member inside an element too big to be a unit is pruned inside as text from this
many raw chars: the text split's units are paragraphs of at least 120 chars, so it holds
several, and the header and one marker (about 270 chars) cost under a seventh of it. Shorter
strings (a summary, a version range, a URL) are kept whole: too little to drop to pay for the
markers. (On the real-output set 1,000 and 4,000 give the same results: the readmes there are
far longer.)"""


class LongString:
    """A string member found by :func:`find` to be pruned inside as text: ``span`` its raw
    literal (quotes included), ``path`` the member names from the top of its document."""

    __slots__ = ("span", "path")

    def __init__(self, span: tuple[int, int], path: tuple[str, ...]) -> None:
        self.span = span
        self.path = path


class Target:
    """A container pruned element by element: ``kind`` ``[`` (array) or ``{`` (map: its members,
    ``"key": value``, are the units); ``path`` the member names (and element indices) from the
    top of its document; ``elements`` the character spans of its units; ``keep`` units that are
    pruned inside instead of as a whole; ``dropped`` the indices decided; ``markers``: dropped
    runs are replaced by a marker element (an MCP ``content`` array) instead of vanishing."""

    __slots__ = ("key", "node", "elements", "dropped", "kind", "path", "keep", "markers", "record_id", "scores")

    def __init__(self, node: Node, elements: list[tuple[int, int]], path: tuple[str, ...] = ()) -> None:
        self.node = node
        self.kind = node.kind
        self.elements = elements
        self.path = path
        self.key = key_of(path)
        self.dropped: list[int] = []
        self.keep: set[int] = set()
        self.markers = False
        self.record_id: str | None = None
        self.scores: list[float | None] = [None] * len(elements)

    def fixed(self, i: int) -> bool:
        s, e = self.elements[i]
        return e - s > FIXED_CHARS or i in self.keep

    def dropped_chars(self) -> int:
        return sum(self.elements[i][1] - self.elements[i][0] for i in self.dropped)


def key_of(path: tuple[str, ...]) -> str:
    """The name of a target in ``_pruned.arrays``: its dotted path (``result.tools``, element
    indices as numbers: ``items.3.containers``), or a JSON Pointer (``/result.tools``) when a
    member name holds a dot, starts with a slash or is empty, so two targets never share a name."""
    if any("." in p or p.startswith("/") or not p for p in path):
        return "".join("/" + p.replace("~", "~0").replace("/", "~1") for p in path)
    return ".".join(path)


def member_name(raw: str) -> str:
    if "\\" not in raw:
        return raw[1:-1]
    import json

    return json.loads(raw)


def container(text: str, max_depth: int, start: int, objects_only: bool = False) -> Node:
    """:func:`~toolprune.core.jsonscan.scan` of the container that starts at ``start`` (a ``{``
    or ``[`` of parsed JSON: there is one)."""
    node = scan(text, max_depth, start, objects_only)
    assert node is not None, "a container starts there"
    return node


def child(text: str, parent: Node, start: int) -> Node:
    node = parent.children.get(start)
    return node if node is not None else container(text, 2, start, objects_only=True)


def find(
    text: str, top: Node, prefix: tuple[str, ...] = (), inside: bool = True, strings: list[LongString] | None = None
) -> list[Target] | None:
    """The targets of the document whose top container is ``top``; None when the shape must be
    ``structured`` (a ``_pruned`` member already at the top). ``prefix``: the path of ``top``
    when it is an element looked inside; ``inside``: look inside elements over 6,000 chars;
    ``strings``: when given, the long strings inside elements (``inside`` False: within one)
    to prune as text are added to it."""
    if top.kind == "[":
        return _array(text, top, prefix, inside, strings)
    targets: list[Target] = []
    level, path = top, prefix
    for depth in range(MAX_LEVELS):
        members = level.members(text)
        names = [member_name(raw) for raw, _, _ in members]
        if depth == 0 and not prefix and PRUNED_KEY in names:
            return None
        counts = Counter(names)
        unique = [(n, s, e) for n, (_, s, e) in zip(names, members) if counts[n] == 1]
        for name, start, end in unique:
            if end - start < TARGET_MIN_CHARS:
                continue
            if text[start] == '"':
                if strings is not None and not inside and end - start >= STRING_MIN_CHARS:
                    strings.append(LongString((start, end), (*path, name)))
            elif text[start] == "[":
                targets += _array(text, child(text, level, start), (*path, name), inside, strings)
            elif text[start] == "{" and is_map(text, child(text, level, start)):
                node = child(text, level, start)
                targets.append(Target(node, node.segments(text), (*path, name)))
        step = _next(text, level, unique, names, depth)
        if step is None or any(t.node.start == step[1] for t in targets):
            break
        name, start = step
        level, path = child(text, level, start), (*path, name)
    if not targets and not prefix and is_map(text, top):  # the top object is the map (`npm outdated --json`)
        targets.append(Target(top, top.segments(text)))
    return targets


def _array(
    text: str, node: Node, path: tuple[str, ...], inside: bool = True, strings: list[LongString] | None = None
) -> list[Target]:
    """The array at ``node`` as a target, and (``inside``) the targets and long strings found
    inside each of its elements over 6,000 chars when together they hold most of that element's
    bytes (one level only)."""
    if node.kind == "{":  # the member chosen above is an object after all
        return []
    elements = node.segments(text)
    out = [Target(node, elements, path)] if len(elements) >= 2 else []
    for i, (s, e) in enumerate(elements):
        # a lone element is a wrapper (``npm pack --json``'s one package): always looked into
        if not inside or (e - s <= FIXED_CHARS and len(elements) >= 2) or text[s] not in "{[":
            continue
        inner: list[LongString] = []  # only filled when the caller collects strings
        found = find(text, container(text, 2, s, objects_only=True), (*path, str(i)), False,
                     inner if strings is not None else None) or []
        bulk = sum(t.node.end - t.node.start for t in found) + sum(b - a for a, b in (x.span for x in inner))
        if bulk * 2 >= e - s:  # they are what is big
            out += found
            if strings is not None:
                strings += inner
    return out


def is_map(text: str, node: Node) -> bool:
    """An object used as a map of records: at least 8 members, unique names, values all of one
    kind; all objects, or scalars under names most of which hold a digit (versions, dates, ids)."""
    if node.kind != "{":
        return False
    members = node.members(text)
    if len(members) < MAP_MIN_MEMBERS:
        return False
    names = [member_name(raw) for raw, _, _ in members]
    if len(set(names)) != len(names):
        return False
    kinds = {_kind(text[s]) for _, s, _ in members}
    if len(kinds) != 1:
        return False
    kind = kinds.pop()
    if kind == "object":
        return True
    if kind == "array":
        return False
    return sum(any(c.isdigit() for c in n) for n in names) >= 0.8 * len(names)


def _kind(first: str) -> str:
    if first == "{":
        return "object"
    if first == "[":
        return "array"
    if first == '"':
        return "string"
    return "scalar"


def _next(
    text: str, level: Node, unique: list[tuple[str, int, int]], names: list[str], depth: int
) -> tuple[str, int] | None:
    """The (name, start) of the object to look inside next, or None."""
    by_name = {n: s for n, s, _ in unique}
    name = None
    if depth < ENVELOPE_LEVELS:
        if len(names) == 1:
            name = names[0]
        elif "jsonrpc" in names and "result" in names:
            name = "result"
        elif "data" in names and set(names) <= {"data", "errors", "extensions"}:
            name = "data"
    if name is not None and name in by_name and text[by_name[name]] == "{":
        return name, by_name[name]
    size = level.end - level.start
    for n, s, e in unique:  # the member object that carries most of the bytes
        if text[s] == "{" and (e - s) * 2 > size and e - s >= TARGET_MIN_CHARS:
            if is_map(text, child(text, level, s)):
                return None
            return n, s
    return None


NAME = "json_arrays"


def claim(text: str, top: Node, options: Options, stats: Stats) -> TreePlan | None:
    """The shape contract (``core/shapes/__init__.py``): a plan of every array and map of
    records and every long string worth pruning, or None when there is none."""
    from toolprune.core.plans import TreePlan
    from toolprune.core.shapes import tree

    strings: list[LongString] = []
    targets = find(text, top, strings=strings)
    if targets is None:
        return None
    if options.json_strict:  # a top-level map would get `_pruned` among its records: keep it whole
        targets = [t for t in targets if t.node is not top]
    parts = tree.field_strings(text, strings)
    if not targets and not parts:
        return None
    doc = tree.Doc(text, top, targets, parts)
    return TreePlan("nothing_dropped", stats, doc)

"""MCP tool results: ``{"content": [{"type": "text", "text": …}, …], "isError": false}``, bare (as a
hook sees it) or inside a JSON-RPC response (``{"jsonrpc": "2.0", "id": 1, "result": {…}}``).

- **detect**: the top object (or its JSON-RPC ``result``) has a ``content`` array whose every
  item is an object with a string ``type``;
- **units**: with several items, each text item is a unit (a dropped run becomes one text item
  ``［… items 3–7 dropped …: toolprune omitted <id> 3 7 …］``, since a client shows the model
  the content items, not the rest of the result); an item of another type (an image, audio, a
  resource or a link to one) is always kept: brought back through ``omitted`` it would be its
  base64 as text, which no client shows as an image; a text item that is the only one, or over
  6,000 chars, is pruned inside instead: as text (paragraphs, markers inside the string) or,
  when the text is itself JSON, as JSON inside the string (its own ``_pruned``, still valid
  JSON there; the long strings of its big elements pruned as text, as ``records`` finds them,
  and the one long string of an object that mostly holds it, as the wrapper shape finds it);
- ``structuredContent`` holding the same data as a text item pruned as JSON is pruned the same
  way (the same elements of the same arrays, its own ids, named in the result's ``_pruned``
  under ``structuredContent.…``; the same long strings with the same markers); one holding
  the pruned text itself in a string member (as the filesystem server's ``{"content": "…"}``)
  gets the same text with the same markers; otherwise it is kept whole and
  ``_pruned.structuredContent`` says so.
"""

from __future__ import annotations

import json

from toolprune.core.jsonscan import Node, scan
from toolprune.core.jsonshape import opens_like_json
from toolprune.core.shapes import records
from toolprune.core.shapes.records import PRUNED_KEY, Target, container, member_name
from toolprune.core.shapes.tree import Doc, JsonString, TextString, field_strings
from toolprune.core.text import FIXED_CHARS

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from collections.abc import Callable

    from toolprune.core.models import Options, Stats
    from toolprune.core.plans import TreePlan

    Parses = Callable[[str], bool | None]
    """:func:`toolprune.core.jsonshape.parses`: does the text parse as JSON (None: too deep to hold)."""

INSIDE_MIN_CHARS = 1_000
"""A text item shorter than this is never pruned inside."""


class McpDoc(Doc):
    """A tool result: ``structured`` is the span of its ``structuredContent`` object, if any."""

    def __init__(self, text: str, top: Node, targets: list[Target], path: tuple[str, ...]) -> None:
        super().__init__(text, top, targets)
        self.path = path
        self.structured: Node | None = None


RESULT_KEYS = frozenset({"content", "isError", "structuredContent", "_meta"})
"""The members a bare tool result may have (with the JSON-RPC envelope, ``result`` may hold more)."""


def detect(text: str, top: Node, parses: Parses, strict: bool = False) -> McpDoc | None:
    """The MCP result in ``text``, or None when it is not one. ``strict``: a text item holding
    a JSON array is left as it is (no ``{"_pruned": …}`` element added to it)."""
    if top.kind != "{":
        return None
    level = top
    path: tuple[str, ...] = ()
    members = _named(text, top)
    if PRUNED_KEY in members:
        return None
    if "jsonrpc" in members and "result" in members:
        start = members["result"]
        if start is None or text[start] != "{":
            return None
        level, path = records.child(text, top, start), ("result",)
        members = _named(text, level)
    elif not set(members) <= RESULT_KEYS:
        return None  # some other document with a "content" member (an Atlassian doc, a CMS page)
    start = members.get("content")
    if start is None or text[start] != "[":
        return None
    content = container(text, 2, start)
    items = content.segments(text)
    if not items:
        return None
    strings: list[TextString | JsonString] = []
    inside: set[int] = set()
    media: set[int] = set()  # image, audio, resource and link items: never dropped
    for i, (s, e) in enumerate(items):
        item = content.children.get(s)
        if item is None or item.kind != "{":
            return None
        fields = _named(text, item)
        kind = fields.get("type")
        if kind is None or text[kind] != '"':
            return None
        at = fields.get("text")
        if member_name(text[kind : _end(text, item, kind)]) != "text":
            media.add(i)
            continue
        if at is None or text[at] != '"':
            continue
        if not (len(items) == 1 or e - s > FIXED_CHARS) or e - s < INSIDE_MIN_CHARS:
            continue
        key = records.key_of((*path, "content", str(i), "text"))
        part = _inside(text, (at, _end(text, item, at)), parses, strict, key)
        if part is not None:
            strings.append(part)
            inside.add(i)
    if not strings and len(items) < 2:
        return None  # nothing to prune in the content: other shapes may apply
    targets = []
    if len(items) >= 2:
        target = Target(content, items, (*path, "content"))
        target.markers, target.keep = True, inside | media
        targets.append(target)
    doc = McpDoc(text, top, targets, path)
    doc.strings = strings
    structured = members.get("structuredContent")
    if structured is not None and text[structured] == "{":
        doc.structured = records.child(text, level, structured)
    return doc


def _named(text: str, node: Node) -> dict[str, int | None]:
    """Member name → value start; None for a name that occurs more than once."""
    out: dict[str, int | None] = {}
    for raw, s, _ in node.members(text):
        name = member_name(raw)
        out[name] = None if name in out else s
    return out


def _end(text: str, node: Node, start: int) -> int:
    return next(e for _, s, e in node.members(text) if s == start)


def _inside(text: str, span: tuple[int, int], parses: Parses, strict: bool, key: str) -> TextString | JsonString | None:
    import orjson

    raw = text[span[0] : span[1]]
    try:
        content = orjson.loads(raw)
    except orjson.JSONDecodeError:  # lone surrogates: not representable as UTF-8 text
        return None
    ascii_only = raw.isascii()
    if opens_like_json(content) and parses(content):
        if strict and content.lstrip("\ufeff \t\r\n")[:1] == "[":
            return None
        found: list[records.LongString] = []
        try:
            top = scan(content, 5, objects_only=True)
            targets = records.find(content, top, strings=found) if top is not None else None
        except RecursionError:
            return None
        if top is None or targets is None:
            return None  # no container, or one with a _pruned member already: nothing to prune
        fields = field_strings(content, found)
        if not targets and not fields and top.kind == "{":  # an object that mostly holds one long string
            fields = field_strings(content, _wrapped(content, top))
        if not targets and not fields:
            return None  # JSON with nothing to prune: never cut it as text
        return JsonString(span, content, ascii_only, Doc(content, top, targets, fields))
    return TextString(span, content, ascii_only, key=key)


def _wrapped(content: str, top: Node) -> list[records.LongString]:
    """The long string of a text item's JSON object that is mostly that one string (as the
    wrapper shape finds it in a whole input: a PDF reader's ``{"success": true,
    "markdown_content": "…"}``, an Obsidian server's ``{"success": true, "details": {"content":
    "…"}}``), as the one long string to prune as text; [] when there is none."""
    from toolprune.core.shapes import wrapper

    found = wrapper.find_named(content, top)
    return [] if found is None else [records.LongString(found[1], found[2])]


def mirror(doc: McpDoc, lang: str) -> None:
    """After the decisions: prune ``structuredContent`` as its text twin was, or say why not."""
    node = doc.structured
    if node is None:
        return
    changed = [s for s in doc.strings if s.changed()]
    if not changed:
        return
    twin = changed[0] if len(changed) == 1 and isinstance(changed[0], JsonString) else None
    if len(changed) == 1:
        copy = _string_twin(doc, node, changed[0])
        if copy is not None:
            doc.strings.append(copy)
            return
    if twin is not None and _same(doc.text[node.start : node.end], twin.content):
        mirrored = _mirrored_targets(doc, node, twin)
        fields = _mirrored_fields(doc, node, twin) if mirrored is not None else None
        if mirrored is not None and fields is not None:
            doc.targets += mirrored
            doc.strings += fields
            return
    doc.notes["structuredContent"] = (
        "構造化された内容（structuredContent）は省略せずそのまま残しています" if lang == "ja"
        else "kept whole: it could not be pruned the same way as the content text"
    )


def _mirrored_targets(doc: McpDoc, node: Node, twin: JsonString) -> list[Target] | None:
    """The containers of ``structuredContent`` (``node``) at the paths of the containers pruned
    in the text item's JSON, pruned the same way; None when one is not there alike."""
    mirrored: list[Target] = []
    for t in twin.doc.pruned():
        found = _locate(doc.text, node, t.path)
        if found is None or len(found.segments(doc.text)) != len(t.elements):
            return None
        copy = Target(found, found.segments(doc.text), (*doc.path, "structuredContent", *t.path))
        copy.dropped = list(t.dropped)
        mirrored.append(copy)
    return mirrored


def _mirrored_fields(doc: McpDoc, node: Node, twin: JsonString) -> list[TextString] | None:
    """The twins in ``structuredContent`` of the long fields pruned in the text item's JSON;
    None when one has none."""
    fields: list[TextString] = []
    for field in (s for s in twin.doc.strings if isinstance(s, TextString) and s.changed()):
        copy = _field_twin(doc, node, field)
        if copy is None:
            return None
        fields.append(copy)
    return fields


def _string_twin(doc: McpDoc, node: Node, original: TextString | JsonString) -> TextString | JsonString | None:
    """The string member of ``structuredContent`` (``node``) holding exactly the same text, if any."""
    import orjson

    for name, s, e in node.members(doc.text):
        raw = doc.text[s:e]
        if raw[0] != '"' or e - s < len(original.content):
            continue
        try:
            if orjson.loads(raw) != original.content:
                continue
        except orjson.JSONDecodeError:
            continue
        if isinstance(original, TextString):
            key = records.key_of((*doc.path, "structuredContent", member_name(name)))  # for --explain
            text_copy = TextString((s, e), original.content, raw.isascii(), key=key)
            text_copy.plan, text_copy.twin_of = original.plan, original
            return text_copy
        json_copy = JsonString((s, e), original.content, raw.isascii(), original.doc)
        json_copy.twin_of = original
        return json_copy
    return None


def _field_twin(doc: McpDoc, node: Node, field: TextString) -> TextString | None:
    """The string of ``structuredContent`` (``node``) at the same path as ``field`` (a long
    field of the JSON in the text item, pruned as text) holding the same text: it gets the
    same markers."""
    import orjson

    parent = _locate(doc.text, node, field.path[:-1])
    if parent is None or parent.kind != "{":
        return None
    spans = [(s, e) for raw, s, e in parent.members(doc.text) if member_name(raw) == field.path[-1]]
    if len(spans) != 1 or doc.text[spans[0][0]] != '"':
        return None
    raw = doc.text[spans[0][0] : spans[0][1]]
    try:
        if orjson.loads(raw) != field.content:
            return None
    except orjson.JSONDecodeError:
        return None
    path = (*doc.path, "structuredContent", *field.path)
    copy = TextString(spans[0], field.content, raw.isascii(), field=True, path=path)
    copy.plan, copy.twin_of = field.plan, field
    return copy


def _number(written: str) -> tuple[str, str]:
    return ("number", written)  # a number as written (1.0 is not 1), and never equal to a string


def _same(a: str, b: str) -> bool:
    load = lambda s: json.loads(s, parse_int=_number, parse_float=_number, parse_constant=_number)  # noqa: E731
    try:
        return load(a) == load(b)
    except (ValueError, RecursionError):
        return False


def _locate(text: str, node: Node, path: tuple[str, ...]) -> Node | None:
    for name in path:
        if node.kind == "{":
            starts = [s for raw, s, _ in node.members(text) if member_name(raw) == name]
            if len(starts) != 1:
                return None
            start = starts[0]
        else:
            elements = node.segments(text)
            if not name.isdigit() or int(name) >= len(elements):
                return None
            start = elements[int(name)][0]
        if text[start] not in "{[":
            return None
        node = container(text, 1, start)
    return node


NAME = "json_mcp"


def claim(text: str, top: Node, options: Options, stats: Stats) -> TreePlan | None:
    """The shape contract (``core/shapes/__init__.py``): a plan of the MCP result, or None."""
    from toolprune.core.jsonshape import parses
    from toolprune.core.plans import TreePlan

    doc = detect(text, top, parses, options.json_strict)
    return None if doc is None else TreePlan("nothing_dropped", stats, doc)

"""Output for a JSON document, written from raw spans only.

A :class:`Doc` is one JSON text (the input, or the decoded content of a string that holds JSON)
with its targets (arrays and maps, see ``records``) and its strings pruned inside (``TextString``:
paragraphs, markers inside the string, for an MCP text item or a record's long field;
``JsonString``: a JSON document inside the string, with its own ``_pruned``, see ``meta``). The
output is the input with *edits* applied: a pruned container is rewritten from its kept
elements' raw text by the gap rule, a pruned string from the raw (escaped) text of its kept
spans, so a kept span is byte for byte what it was, escapes included; only the markers and
``_pruned`` are new text. Nothing is ever re-serialised. What is dropped is decided in
``decisions``.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence

from toolprune.core.jsonscan import Node
from toolprune.core.shapes.meta import entry, marker_item, note, runs_of
from toolprune.core.shapes.records import PRUNED_KEY, LongString, Target, key_of

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from toolprune.core.plans import Plan
    from toolprune.core.record import Record

    Fill = Callable[[int, int], None]
    """Writes the source span [a, b) with the edits inside it applied."""


_ESCAPE = re.compile(r"\\(?:u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|.)", re.S)


class Sink:
    """Where the output goes, piece by piece: ``span`` copies the source verbatim, ``new``
    adds text that was not in the input (markers, ``_pruned``)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.out: list[str] = []

    def span(self, a: int, b: int) -> None:
        if a < b:
            self.out.append(self.text[a:b])

    def new(self, s: str) -> None:
        self.out.append(s)

    def result(self) -> str:
        return "".join(self.out)


class EscapedSink(Sink):
    """The content of the JSON string literal at ``span`` of ``text`` (the text ``parent`` writes),
    written through ``parent``: a span of the decoded content is the parent's span of the raw
    literal that holds it (its escapes as they were, and, when the parent is itself a string's
    content, the escapes of every level above as they were); new text is JSON-escaped
    (``\\uXXXX`` style when the literal was pure ASCII) and handed to the parent as new text,
    which escapes it again for its own literal."""

    def __init__(self, parent: Sink, text: str, span: tuple[int, int], ascii_only: bool) -> None:
        self.base = span[0] + 1
        raw_inner = text[self.base : span[1] - 1]
        super().__init__(raw_inner)
        self.parent = parent
        self.ascii_only = ascii_only
        decoded: list[int] = []
        raw: list[int] = []
        d = last = 0
        for m in _ESCAPE.finditer(raw_inner):
            if m.start() > last:
                decoded.append(d)
                raw.append(last)
                d += m.start() - last
            decoded.append(d)
            raw.append(m.start())
            d += 1
            last = m.end()
        if last < len(raw_inner):
            decoded.append(d)
            raw.append(last)
            d += len(raw_inner) - last
        decoded.append(d)
        raw.append(len(raw_inner))
        self._decoded, self._raw = decoded, raw

    def _at(self, a: int) -> int:
        i = bisect_right(self._decoded, a) - 1
        return self._raw[i] + (a - self._decoded[i])

    def span(self, a: int, b: int) -> None:
        if a < b:
            self.parent.span(self.base + self._at(a), self.base + self._at(b))

    def raw_len(self, a: int, b: int) -> int:
        """How many characters the content's span ``a``..``b`` takes in the literal as written."""
        return self._at(b) - self._at(a)

    def new(self, s: str) -> None:
        self.parent.new(json.dumps(s, ensure_ascii=self.ascii_only)[1:-1])


def _literal(doc: Doc, span: tuple[int, int], sink: Sink, ascii_only: bool) -> EscapedSink:
    """Open the string literal at ``span`` of ``doc``: its opening quote is written as it was
    (``\\u0022`` stays so inside another string), and the sink for its content is returned."""
    sink.span(span[0], span[0] + 1)
    return EscapedSink(sink, doc.text, span, ascii_only)


class TextString:
    """A string value whose content is pruned as text (``plan``: a text plan of the pipeline,
    with units, runs and markers); ``span`` is the raw literal, quotes included."""

    def __init__(
        self, span: tuple[int, int], content: str, ascii_only: bool, field: bool = False, path: tuple[str, ...] = (),
        key: str = "",
    ) -> None:
        self.span = span
        self.path = path
        """A field's member names from the top of its document (to find its copy in an MCP
        ``structuredContent``)."""
        self.key = key or key_of(path)
        """Where the string is, for ``--explain`` (``installed.5.metadata.description``)."""
        self.content = content
        self.ascii_only = ascii_only
        self.field = field
        """A field of a record (a package's readme, an issue's body), not the content itself
        (an MCP text item): when none of its paragraphs is relevant, only its best one is kept."""
        self.plan: Plan | None = None
        """The text plan of the content, once the pipeline has split it."""
        self.record_id: str | None = None
        self.twin_of: TextString | None = None
        """A copy of another string's text (MCP ``structuredContent``): pruned the same way,
        with the same markers and record."""

    def planned(self) -> Plan:
        """The text plan, for a string the pipeline has split (every one scored or rendered)."""
        assert self.plan is not None, "a string is split before it is scored"
        return self.plan

    def changed(self) -> bool:
        return bool(self.plan is not None and self.plan.dropped)

    def record_parts(self) -> list[Target | TextString]:
        return [self] if self.changed() and self.twin_of is None else []

    def render(self, doc: Doc, sink: Sink, fill: Fill, command: str, lang: str) -> None:
        plan = self.planned()
        units = plan.units
        inner = _literal(doc, self.span, sink, self.ascii_only)
        prefix = f"{command} {(self.twin_of or self).record_id}"
        inner.new(plan._header(prefix) + plan.newline * 2)
        pos = 0
        for a, b in plan.runs:
            inner.span(pos, units[a].start)
            inner.new(plan._marker(prefix, a, b))
            pos = units[b].end
        inner.span(pos, len(self.content))
        sink.span(self.span[1] - 1, self.span[1])  # the closing quote as it was


class JsonString:
    """A string value whose content is itself JSON (an MCP text item holding records): pruned
    as JSON inside the string, so that it still parses there."""

    def __init__(self, span: tuple[int, int], content: str, ascii_only: bool, doc: Doc) -> None:
        self.span = span
        self.content = content
        self.ascii_only = ascii_only
        self.doc = doc
        self.twin_of: JsonString | None = None
        """A copy of another string's JSON (MCP ``structuredContent``): the same doc, records and ids."""

    def changed(self) -> bool:
        return bool(self.doc.pruned() or self.doc.notes or any(s.changed() for s in self.doc.strings))

    def record_parts(self) -> list[Target | TextString]:
        return self.doc.record_parts() if self.twin_of is None else []

    def render(self, doc: Doc, sink: Sink, fill: Fill, command: str, lang: str) -> None:
        inner = _literal(doc, self.span, sink, self.ascii_only)
        self.doc.render_into(inner, command, lang)
        sink.span(self.span[1] - 1, self.span[1])


class Doc:
    """One JSON text, its targets and its strings pruned inside."""

    def __init__(
        self, text: str, top: Node, targets: list[Target], strings: Iterable[TextString | JsonString] = ()
    ) -> None:
        self.text = text
        self.top = top
        self.targets = targets
        self.strings: list[TextString | JsonString] = list(strings)
        self.notes: dict[str, str] = {}
        """Further members of ``_pruned`` (why an MCP ``structuredContent`` was kept whole)."""

    def pruned(self) -> list[Target]:
        return [t for t in self.targets if t.dropped]

    def record_parts(self) -> list[Target | TextString]:
        parts: list[Target | TextString] = list(self.pruned())
        for s in self.strings:
            parts += s.record_parts()
        return parts

    def text_strings(self) -> list[TextString]:
        """Every string pruned as text, in this document and in the JSON inside its strings."""
        out: list[TextString] = []
        for s in self.strings:
            if isinstance(s, TextString):
                out.append(s)
            else:
                out += s.doc.text_strings()
        return out

    def all_targets(self) -> list[Target]:
        return [target for target, _ in self.all_targets_with_text()]

    def all_targets_with_text(self) -> list[tuple[Target, str]]:
        """:meth:`all_targets`, each with the text its element spans index (a target of a JSON
        string's document indexes that string's content, not this document)."""
        out = [(t, self.text) for t in self.targets]
        for s in self.strings:
            if isinstance(s, JsonString):
                out += s.doc.all_targets_with_text()
        return out

    def meta(self, command: str, lang: str) -> str:
        arrays = {t.key: entry(t, command) for t in self.pruned()}
        import orjson

        return orjson.dumps({"note": note(lang, command), "arrays": arrays, **self.notes}).decode("utf-8")

    def render_into(self, sink: Sink, command: str, lang: str) -> None:
        text = self.text
        edits: list[tuple[int, int, str | Target | TextString | JsonString]]
        edits = [(t.node.start, t.node.end, t) for t in self.pruned()]
        edits += [(s.span[0], s.span[1], s) for s in self.strings if s.changed()]
        meta = self.meta(command, lang) if (self.pruned() or self.notes) else None
        top_target = next((t for t in self.targets if t.node is self.top), None)
        if meta is not None:
            if self.top.kind == "{" and top_target is None:
                at = self.top.members(text)[-1][2]
                edits.append((at, at, ',"' + PRUNED_KEY + '":' + meta))
            elif top_target is None or not top_target.dropped:
                elements = self.top.segments(text)
                at = elements[-1][1]
                edits.append((at, at, _gap(text, elements) + '{"' + PRUNED_KEY + '":' + meta + "}"))
        edits.sort(key=lambda e: (e[0], -e[1]))
        starts = [e[0] for e in edits]

        def fill(a: int, b: int) -> None:
            pos = a
            i = bisect_right(starts, a - 1)
            while i < len(edits) and (edits[i][0] < b or edits[i][0] == edits[i][1] == b):
                start, end, what = edits[i]
                i += 1
                if start < pos or end > b:
                    continue  # inside an edit already written (or beyond this span)
                sink.span(pos, start)
                if isinstance(what, str):
                    sink.new(what)
                elif isinstance(what, Target):
                    _render_target(self, what, sink, fill, command, lang, meta if what is top_target else None)
                else:
                    what.render(self, sink, fill, command, lang)
                pos = end
            sink.span(pos, b)

        fill(0, len(text))


def _gap(text: str, elements: Sequence[tuple[int, int]]) -> str:
    return text[elements[0][1] : elements[1][0]] if len(elements) > 1 else ","


def _render_target(doc: Doc, t: Target, sink: Sink, fill: Fill, command: str, lang: str, meta: str | None) -> None:
    """The gap rule: ``[`` g0, the kept elements in order, each but the first preceded by its own
    preceding gap, gn ``]``; for an MCP content array a marker item stands for each run."""
    text, el, dropped = doc.text, t.elements, set(t.dropped)
    sink.span(t.node.start, el[0][0])
    first = True
    runs = dict(runs_of(t)) if t.markers else {}
    for i, (s, e) in enumerate(el):
        if i in dropped:
            if i not in runs:
                continue
            item = marker_item(lang, f"{command} {t.record_id}", i, runs[i], el[runs[i]][1] - s)
            ascii_only = text[t.node.start : t.node.end].isascii()
            if not first:
                sink.span(el[i - 1][1], s)
            sink.new('{"type":"text","text":' + json.dumps(item, ensure_ascii=ascii_only) + "}")
            first = False
            continue
        if not first:
            sink.span(el[i - 1][1], s)
        fill(s, e)
        first = False
    if meta is not None:  # the top container's own note: a last member of a map, a last element of an array
        note = f'"{PRUNED_KEY}":{meta}' if t.node.kind == "{" else '{"' + PRUNED_KEY + '":' + meta + "}"
        sink.new(_gap(text, el) + note)
    sink.span(el[-1][1], t.node.end)


def render(doc: Doc, ids: Sequence[str], command: str, lang: str) -> str:
    for part, record_id in zip(doc.record_parts(), ids):
        part.record_id = record_id
    sink = Sink(doc.text)
    doc.render_into(sink, command, lang)
    return sink.result()


def field_strings(text: str, found: Sequence[LongString]) -> list[TextString]:
    """The long strings ``records.find`` found (``LongString``), decoded, as fields pruned as
    text. Kept whole: a string that cannot be UTF-8 text (a lone surrogate escape), and one that
    holds JSON itself (a serialised payload: cut as text it would no longer parse)."""
    import orjson

    from toolprune.core.jsonshape import opens_like_json, parses

    out = []
    for item in found:
        a, b = item.span
        raw = text[a:b]
        try:
            content = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        if opens_like_json(content) and parses(content) is not False:
            continue
        out.append(TextString((a, b), content, raw.isascii(), field=True, path=item.path))
    return out


def records(doc: Doc, body: bytes) -> list[Record]:
    """One spill record per pruned part, in the order of :meth:`Doc.record_parts` (the order ids
    are handed to :func:`render`): a container's elements as spans of its document (the input's
    bytes, or a string's decoded content), a string's paragraphs as a text record."""
    from toolprune.core.record import Record, byte_spans

    texts = {id(t): d.text for d in _docs(doc) for t in d.targets}
    out = []
    for part in doc.record_parts():
        if isinstance(part, TextString):
            record = part.planned().records(part.content.encode("utf-8"))[0]
            record.shape = "json_wrapper"
            out.append(record)
            continue
        text = texts[id(part)]
        data = body if text is doc.text else text.encode("utf-8")
        spans = part.elements if len(data) == len(text) else byte_spans(text, part.elements)
        shape = "json_array" if part.kind == "[" else "json_members"
        out.append(Record(shape=shape, body=data, units=list(spans), dropped=list(part.dropped), sep=",",
                          extra={"key": part.key}))
    return out


def _docs(doc: Doc) -> list[Doc]:
    out = [doc]
    for s in doc.strings:
        if isinstance(s, JsonString) and s.twin_of is None:
            out += _docs(s.doc)
    return out

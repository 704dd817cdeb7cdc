"""Decisions and output for a JSON document, written from raw spans only.

A :class:`Doc` is one JSON text (the input, or the decoded content of a string that holds JSON)
with its targets (arrays and maps, see ``records``) and its strings pruned inside (``TextString``:
paragraphs, markers inside the string, for an MCP text item or a record's long field;
``JsonString``: a JSON document inside the string, with its own ``_pruned``). The output is the
input with *edits* applied: a pruned container is rewritten from its kept elements' raw text by
the gap rule, a pruned string from the raw (escaped) text of its kept spans, so a kept span is
byte for byte what it was, escapes included; only the markers and ``_pruned`` are new text.
Nothing is ever re-serialised.

``_pruned`` (at the end of the top object, or as a last element ``{"_pruned": …}`` of a top-level
array) names each pruned container by its path with its own spill id:

- up to 32 dropped elements: ``{"id", "total", "dropped": [indices], "ranges": [[from, to], …]}``,
  ``ranges`` being ``omitted`` calls (each within one call's 20,000-char limit) that return
  every dropped element (kept ones inside a range are not printed again);
- more: ``{"id", "total", "kept", "ranges", "omitted"}``: every element inside a range was
  dropped, every other one kept, ``omitted`` the exact command to pass each range to; at most
  40 ranges: past 40 runs of drops the runs closest together share a range, which then holds
  kept elements too (``omitted`` prints only the dropped ones, in order) and ``"exact": false``
  says so (``toolprune spill show <id>`` prints the whole original).

The whole ``_pruned`` stays under 1,000 chars: the arrays saving least are left whole until it fits.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence

from toolprune.core.jsonscan import Node
from toolprune.core.shapes.records import PRUNED_KEY, LongString, Target, key_of

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import TypeAlias

    from toolprune.core.plans import Plan
    from toolprune.core.record import Record
    from toolprune.core.text import Unit

    Fill = Callable[[int, int], None]
    """Writes the source span [a, b) with the edits inside it applied."""
    Owner: TypeAlias = "Target | TextString"
    """What a scored unit belongs to: a container's element, a string's paragraph."""

LIST_MAX_DROPPED = 32
"""Up to this many dropped elements are listed one by one; more are given as ranges."""
MAX_RANGES = 40
META_MAX_CHARS = 1_000
OMITTED_MAX_CHARS = 20_000
PLACEHOLDER_ID = "P" + "9" * 12

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
    """The content of a JSON string literal, written as that literal's raw text: a span of the
    decoded content is copied from the raw literal (its escapes as they were), new text is
    JSON-escaped (``\\uXXXX`` style when the literal was pure ASCII)."""

    def __init__(self, raw_inner: str, ascii_only: bool) -> None:
        super().__init__(raw_inner)
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
        self.length = d

    def _at(self, a: int) -> int:
        i = bisect_right(self._decoded, a) - 1
        return self._raw[i] + (a - self._decoded[i])

    def span(self, a: int, b: int) -> None:
        if a < b:
            self.out.append(self.text[self._at(a) : self._at(b)])

    def new(self, s: str) -> None:
        self.out.append(json.dumps(s, ensure_ascii=self.ascii_only)[1:-1])


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
        inner = EscapedSink(doc.text[self.span[0] + 1 : self.span[1] - 1], self.ascii_only)
        prefix = f"{command} {(self.twin_of or self).record_id}"
        inner.new(plan._header(prefix) + plan.newline * 2)
        pos = 0
        for a, b in plan.runs:
            inner.span(pos, units[a].start)
            inner.new(plan._marker(prefix, a, b))
            pos = units[b].end
        inner.span(pos, len(self.content))
        sink.new('"' + inner.result() + '"')


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
        inner = EscapedSink(doc.text[self.span[0] + 1 : self.span[1] - 1], self.ascii_only)
        self.doc.render_into(inner, command, lang)
        sink.new('"' + inner.result() + '"')


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
        out = list(self.targets)
        for s in self.strings:
            if isinstance(s, JsonString):
                out += s.doc.all_targets()
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
            if self.top.kind == "{":
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
    if meta is not None:
        sink.new(_gap(text, el) + '{"' + PRUNED_KEY + '":' + meta + "}")
    sink.span(el[-1][1], t.node.end)


def marker_item(lang: str, command: str, a: int, b: int, chars: int) -> str:
    """The text of the content item that stands for dropped content items ``a..b``."""
    count = b - a + 1
    cmd = f"{command} {a} {b}"
    if lang == "ja":
        where = f"項目 {a}" if a == b else f"項目 {a}〜{b}"
        return f"［… {where}・{count:,} 項目・{chars:,} 字を省略: {cmd} …］"
    where = f"item {a}" if a == b else f"items {a}–{b}"
    items = "1 item" if count == 1 else f"{count:,} items"
    return f"［… {where} dropped ({items}, {chars:,} chars): {cmd} …］"


def runs_of(t: Target, limit: int = OMITTED_MAX_CHARS) -> list[tuple[int, int]]:
    """Runs of consecutive dropped elements, each within one ``omitted`` call's limit."""
    out: list[tuple[int, int]] = []
    size = 0
    for i in t.dropped:
        s, e = t.elements[i]
        chars = e - s + 1
        if out and out[-1][1] == i - 1 and size + chars + 1 <= limit:
            out[-1] = (out[-1][0], i)
            size += chars
        else:
            out.append((i, i))
            size = chars
    return out


def _plain_runs(dropped: Sequence[int]) -> list[list[int]]:
    out: list[list[int]] = []
    for i in dropped:
        if out and out[-1][1] == i - 1:
            out[-1][1] = i
        else:
            out.append([i, i])
    return out


def listed_ranges(t: Target, limit: int = OMITTED_MAX_CHARS) -> list[list[int]]:
    """For up to 32 drops: [from, to] calls that return every dropped element, each within one
    call's character limit (``omitted`` prints a range's dropped elements as one JSON array)."""
    ranges: list[list[int]] = []
    size = 0
    for i in t.dropped:
        s, e = t.elements[i]
        chars = e - s + 1  # the element and its comma (or bracket)
        if ranges and size + chars + 1 <= limit:
            ranges[-1][1] = i
            size += chars
        else:
            ranges.append([i, i])
            size = chars
    return ranges


def compact_ranges(t: Target) -> tuple[list[list[int]], bool]:
    """For more drops: the runs of dropped elements (split into calls within one call's limit
    while that still fits in 40 ranges), and True. Past 40 runs, 40 ranges that cover every drop
    (the runs closest together merged, so a range may hold kept elements too), and False."""
    runs = _plain_runs(t.dropped)
    if len(runs) > MAX_RANGES:
        closest = sorted(range(len(runs) - 1), key=lambda k: (runs[k + 1][0] - runs[k][1], k))
        merge = set(closest[: len(runs) - MAX_RANGES])
        out: list[list[int]] = []
        for k, run in enumerate(runs):
            if out and k - 1 in merge:
                out[-1][1] = run[1]
            else:
                out.append(list(run))
        return out, False
    split = [[a, b] for a, b in runs_of(t)]
    return (split if len(split) <= MAX_RANGES else runs), True


def entry(t: Target, command: str) -> dict:
    if len(t.dropped) <= LIST_MAX_DROPPED:
        return {"id": t.record_id, "total": len(t.elements), "dropped": t.dropped, "ranges": listed_ranges(t)}
    ranges, exact = compact_ranges(t)
    out = {"id": t.record_id, "total": len(t.elements), "kept": len(t.elements) - len(t.dropped), "ranges": ranges}
    if not exact:
        out["exact"] = False
    out["omitted"] = f"{command} {t.record_id} <from> <to>"
    return out


def bound_meta(doc: Doc, command: str, lang: str) -> None:
    """Leave whole the pruned containers saving least until ``_pruned`` is under 1,000 chars."""
    for t in doc.pruned():
        t.record_id = t.record_id or PLACEHOLDER_ID
    while doc.pruned() and len(doc.meta(command, lang)) >= META_MAX_CHARS:
        min(doc.pruned(), key=lambda t: (t.dropped_chars(), -t.node.start)).dropped = []
    for s in doc.strings:
        if isinstance(s, JsonString):
            bound_meta(s.doc, command, lang)


def note(lang: str, command: str) -> str:
    if lang == "ja":
        return (
            "リクエストに関係のない要素を省略しました。省略した要素は "
            f"{command} <id> <from> <to> で逐語のまま読めます"
        )
    return (
        "Elements unrelated to the request were dropped. "
        f"Get them back verbatim with: {command} <id> <from> <to>"
    )


def render(doc: Doc, ids: Sequence[str], command: str, lang: str) -> str:
    for part, record_id in zip(doc.record_parts(), ids):
        part.record_id = record_id
    sink = Sink(doc.text)
    doc.render_into(sink, command, lang)
    return sink.result()


def units(doc: Doc) -> list[tuple[Owner, int, str]]:
    """Every unit to score, in document order of the parts: (owner, index, text)."""
    out: list[tuple[Owner, int, str]] = []
    for t in doc.targets:
        out += [(t, i, doc.text[s:e]) for i, (s, e) in enumerate(t.elements) if not t.fixed(i)]
    for s in doc.strings:
        if isinstance(s, JsonString):
            out += units(s.doc)
        elif s.plan is not None:
            out += [(s, i, s.content[u.start : u.end]) for i, u in enumerate(s.plan.units) if not u.fixed]
    return out


def decide(
    flat: Sequence[tuple[Owner, int, str]], scores: Sequence[float | None], threshold: float,
    runs: Callable[[Sequence[Unit], Sequence[int]], list[tuple[int, int]]], sparse: bool = False,
) -> None:
    """Per container and per string: drop what scored below the threshold, unless that is all
    of it or none of it (an array is never emptied, a string never reduced to markers). When all
    of it is below, only its best unit (the first on a tie) stays: for a record's long field
    (``TextString.field``) always, and for every container and string when ``sparse`` (see
    :func:`answered_outside`)."""
    by_owner: dict[int, tuple[Owner, list[tuple[int, float]]]] = {}
    for (owner, i, _), score in zip(flat, scores):
        entry_ = by_owner.setdefault(id(owner), (owner, []))
        if score is not None:
            entry_[1].append((i, score))
        if isinstance(owner, Target):
            owner.scores[i] = score
        elif owner.plan is not None:
            owner.plan.scores = owner.plan.scores or [None] * len(owner.plan.units)
            owner.plan.scores[i] = score
    for owner, pairs in by_owner.values():
        below = [i for i, s in pairs if s < threshold]
        if below and len(below) == len(pairs) and len(pairs) > 1 and (sparse or getattr(owner, "field", False)):
            # a record's long field none of whose paragraphs is relevant (the readme of a package
            # the request is not about), or a container of a record whose own fields hold the
            # answer: the best unit stays to show what it held, the rest is named by a marker
            best = max(pairs, key=lambda p: (p[1], -p[0]))[0]
            below = [i for i in below if i != best]
        elif not below or len(below) == len(pairs):
            continue
        if isinstance(owner, Target):
            owner.dropped = below
        else:
            plan = owner.planned()
            plan.dropped = [i for i in below if i not in plan.pinned]
            plan.runs = runs(plan.units, plan.dropped)


_KEY = re.compile(r'"(?:[^"\\]|\\.)*"[ \t\r\n]*:')


def answered_outside(doc: Doc, basis: str) -> bool:
    """When no unit of the document scored at the threshold: does the rest of it (what is
    always kept: the record's own fields, elements too big to score) name a content word of the
    request in its values? Then the request is about the record and its containers are bulk
    (``npm view``'s version list and release times for "which Node.js does it need?", answered
    by ``engines``), so each keeps only its best unit instead of the whole input passing
    through. Keys are left out (every record has a ``name``), and so are stop words."""
    from toolprune.core.tokens import fold, tokens

    query = set(tokens(fold(basis)))
    if not query:
        return False
    cut = sorted([span for t in doc.targets for i, span in enumerate(t.elements) if not t.fixed(i)]
                 + [s.span for s in doc.strings])
    pieces, pos = [], 0
    for a, b in cut:
        pieces.append(doc.text[pos:a])
        pos = max(pos, b)
    pieces.append(doc.text[pos:])
    rest = _KEY.sub(" ", " ".join(pieces))
    return bool(query & set(tokens(fold(rest))))


def field_strings(text: str, found: Sequence[LongString]) -> list[TextString]:
    """The long strings ``records.find`` found (``LongString``), decoded, as fields pruned as
    text. Kept whole: a string that cannot be UTF-8 text (a lone surrogate escape), and one that
    holds JSON itself (a serialised payload: cut as text it would no longer parse)."""
    import orjson

    from toolprune.core.jsonshape import parses

    out = []
    for item in found:
        a, b = item.span
        raw = text[a:b]
        try:
            content = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        if content.lstrip(" \t\r\n")[:1] in ("{", "[") and parses(content) is not False:
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

"""Plans: what to do with one input once it is split and scored, and how to render it. A plan
for text (paragraphs, sections, line blocks), for JSON whose one long string is text
(:class:`WrapperPlan`), and for JSON pruned by containers and strings (:class:`TreePlan`).
Each renders its output from raw spans and the spill ids, and says which records the spill
store keeps so that ``toolprune omitted`` returns every drop."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from toolprune.core import logtext, markers, repeats
from toolprune.core.models import PLACEHOLDER_ID, Stats
from toolprune.core.record import Record, byte_spans
from toolprune.core.text import Unit

if TYPE_CHECKING:
    from toolprune.core.shapes import tree


class Plan:
    """What to do with one text input; ``render`` and ``records`` are used when it is ``ok``."""

    def __init__(self, outcome: str, stats: Stats, text: str | logtext.LogText = "") -> None:
        self.outcome = outcome
        self.stats = stats
        self.text = text
        self.units: list[Unit] = []
        self.dropped: list[int] = []
        self.runs: list[tuple[int, int]] = []
        self.lang = "en"
        self.newline = "\n"
        self.scores: list[float | None] = []
        self.unit_word = "paragraph"
        self.line_numbers: list[tuple[int, int]] = []
        """For line blocks: the first and last line (1-based) of each unit."""
        self.pinned: set[int] = set()
        """Units that are never dropped (the tail and signal lines of a log)."""
        self.passing: set[int] = set()
        """Line blocks of a located failure's log dropped because they only list tests that
        passed (``core/passing.py``), whatever they scored."""
        self.far: set[int] = set()
        """Units of a document dropped as weak matches far from every strong one
        (``FAR_WEAK`` in ``core/decide.py``), though at or above the threshold."""
        self.islands: set[int] = set()
        """Units dropped whatever their score: a short weak stretch between two runs of dropped
        units, joined into one run (``ISLAND_CHARS`` in ``core/decide.py``)."""
        self.short: set[int] = set()
        """Units kept though dropped by their score: their run was no longer than its marker."""
        self.stepped_from: float | None = None
        """The threshold asked for, when the cut was made at a stronger one (``FLOOR_STEPS``)."""
        self.rows: set[int] = set()
        """Documents: units that are rows of a split Markdown table (never an island)."""
        self.versions: list[int] = []
        """Changelogs: the release headings, in order."""
        self.beside: set[int] = set()
        """Units kept by a rule, not their score (never an island): a changelog's release
        heading beside a section that matched strongly, a ``git log``'s oldest commit."""
        self.oldest: list[int] = []
        """``git log``: the oldest commit's first unit (both ends' when the dates cannot tell),
        when the request asks about the first commit (``core/compare.py``)."""
        self.ends: list[str] = []
        """The extremes the request asks for (``largest``, ``smallest``, ``newest``,
        ``oldest``), when a listing or an array of records was kept whole for it
        (``core/compare.py``): what a bound keeps first of such a listing."""
        self.heads: list[int] = []
        """Documents, patches and listings: the unit holding each unit's heading (-1: none)."""
        self.entry_share = 0.0
        """Entries of indented documents: a unit scores at least this share of its head's score."""
        self.intros: list[int] = []
        """Documents: the paragraph that introduces each code block or list (-1: none)."""
        self.budget_drops = 0
        self.failure: str | None = None
        """Why every scoring call failed (outcome ``failed``): one line, never content."""
        self.notice: str | None = None
        """Something the user should know about the outcome (a scorer that fell back): one line,
        never content."""
        self.dropped_by_relevance: list[int] = []

    @property
    def compared(self) -> str | None:
        """What the request compares entries by, for diagnostics: ``size``, ``age`` or
        ``size+age`` (None when nothing was kept whole for it)."""
        from toolprune.core.compare import by  # only -v and --explain ask

        return by(self.ends)

    def _header(self, prefix: str) -> str:
        units = self.units
        return markers.header(
            self.lang,
            unit=self.unit_word,
            budget=self.budget_drops,
            command=prefix,
            dropped=len(self.dropped),
            total=len(units),
            dropped_chars=sum(units[b].end - units[a].start for a, b in self.runs),
            total_chars=len(self.text),
        )

    def _marker(self, prefix: str, a: int, b: int) -> str:
        chars = self.units[b].end - self.units[a].start
        span = (self.line_numbers[a][0], self.line_numbers[b][1]) if self.line_numbers else None
        like = repeats.like(self.text, a, b) if self.line_numbers else None  # repeated signal lines
        return markers.inline(self.lang, command=prefix, first=a, last=b, chars=chars, unit=self.unit_word, lines=span,
                              like=like)

    def out_chars(self, a: int, b: int, marker: str) -> tuple[int, int]:
        """How many characters units ``a``..``b`` and the ``marker`` that would replace them
        take in the output."""
        return self.units[b].end - self.units[a].start, len(marker)

    def render(self, ids: Sequence[str], command: str) -> str:
        """The pruned text, with the header and one marker per run of dropped units."""
        text, units = self.text, self.units
        prefix = f"{command} {ids[0]}"
        parts = [self._header(prefix), self.newline * 2]
        pos = 0
        for a, b in self.runs:
            parts.append(text[pos : units[a].start])
            parts.append(self._marker(prefix, a, b))
            pos = units[b].end
        parts.append(text[pos:])
        return "".join(parts)

    def rendered_chars(self, ids: Sequence[str], command: str) -> int:
        """``len(self.render(ids, command))``, without building the output."""
        prefix = f"{command} {ids[0]}"
        cut = sum(self.units[b].end - self.units[a].start for a, b in self.runs)
        markers_chars = sum(len(self._marker(prefix, a, b)) for a, b in self.runs)
        return len(self._header(prefix)) + 2 * len(self.newline) + len(self.text) - cut + markers_chars

    def records(self, body: bytes) -> list[Record]:
        if isinstance(self.text, logtext.LogText):
            spans = self.text.byte_spans(self.units)
        else:
            spans = [(u.start, u.end) for u in self.units]
        if isinstance(self.text, str) and len(body) != len(self.text):  # not pure ASCII: character spans to bytes
            spans = byte_spans(self.text, spans)
        sep = self.newline if self.line_numbers else self.newline * 2
        return [Record(shape="text", body=body, units=spans, dropped=list(self.dropped), sep=sep)]

    def placeholder_ids(self) -> list[str]:
        return [PLACEHOLDER_ID]

    def output(self, ids: Sequence[str], command: str) -> tuple[bytes, int]:
        """The rendered output in UTF-8 and its length in characters (a log read as bytes is
        assembled from its bytes, never decoded whole)."""
        if isinstance(self.text, logtext.LogText) and type(self) is Plan:
            return logtext.render(self, f"{command} {ids[0]}"), self.rendered_chars(ids, command)
        rendered = self.render(ids, command)
        return rendered.encode("utf-8"), len(rendered)

    def whole(self) -> str | logtext.LogText:
        """The whole input (for the net gate)."""
        return self.text


class WrapperPlan(Plan):
    """JSON whose one long string is pruned as text and written back in place: the kept text as
    it was written (its escapes, ``\\/`` and ``\\u0050`` too), the header and markers JSON-escaped."""

    def __init__(self, outcome: str, stats: Stats, text: str, outer: str, span: tuple[int, int]) -> None:
        super().__init__(outcome, stats, text)
        self.outer = outer
        self.span = span
        self.ascii_only = outer[span[0] : span[1]].isascii()
        self._raw: tree.EscapedSink | None = None

    def _literal(self, sink: tree.Sink) -> tree.EscapedSink:
        from toolprune.core.shapes import tree

        return tree.EscapedSink(sink, self.outer, self.span, self.ascii_only)

    def out_chars(self, a: int, b: int, marker: str) -> tuple[int, int]:
        import json

        if self._raw is None:  # the map from the content to the literal as written
            from toolprune.core.shapes import tree

            self._raw = self._literal(tree.Sink(self.outer))
        start, end = self.units[a].start, self.units[b].end
        return self._raw.raw_len(start, end), len(json.dumps(marker, ensure_ascii=self.ascii_only)) - 2

    def render(self, ids: Sequence[str], command: str) -> str:
        from toolprune.core.shapes import tree

        sink = tree.Sink(self.outer)
        sink.span(0, self.span[0] + 1)  # up to the opening quote
        inner = self._literal(sink)
        prefix = f"{command} {ids[0]}"
        inner.new(self._header(prefix) + self.newline * 2)
        pos = 0
        for a, b in self.runs:
            inner.span(pos, self.units[a].start)
            inner.new(self._marker(prefix, a, b))
            pos = self.units[b].end
        inner.span(pos, len(self.text))
        sink.span(self.span[1] - 1, len(self.outer))  # the closing quote and the rest, as they were
        return sink.result()

    def records(self, body: bytes) -> list[Record]:
        records = super().records(self.text.encode("utf-8"))
        records[0].shape = "json_wrapper"
        return records

    def whole(self) -> str:
        return self.outer

    def rendered_chars(self, ids: Sequence[str], command: str) -> int:
        return len(self.render(ids, command))


class TreePlan(Plan):
    """JSON pruned by containers and strings (arrays of records, maps, MCP content, strings
    holding text or JSON): one record and id per pruned part (see ``core/shapes``)."""

    # the JSON shapes (core/shapes) are imported where JSON is planned: text never pays for them
    def __init__(self, outcome: str, stats: Stats, doc: tree.Doc) -> None:
        super().__init__(outcome, stats, doc.text)
        self.doc = doc
        self.targets = doc.targets

    def render(self, ids: Sequence[str], command: str) -> str:
        from toolprune.core.shapes import tree

        return tree.render(self.doc, ids, command, self.lang)

    def records(self, body: bytes) -> list[Record]:
        from toolprune.core.shapes import tree

        return tree.records(self.doc, body)

    def placeholder_ids(self) -> list[str]:
        return [PLACEHOLDER_ID] * len(self.doc.record_parts())

    def rendered_chars(self, ids: Sequence[str], command: str) -> int:
        return len(self.render(ids, command))

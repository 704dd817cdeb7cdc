"""The prune pipeline: gates → shape → units → scores → decisions → output (SPEC §3–§5).

Bytes in, bytes out. :func:`plan` decides everything without side effects; :func:`run` adds the
spill store: the record is written (and fsynced) before the pruned bytes exist, so every id in
the output resolves. Any exception inside :func:`run` becomes an exact passthrough.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from toolprune.core import kinds, lines, logtext, markers
from toolprune.core.jsonscan import Node, scan
from toolprune.core.jsonshape import parses
from toolprune.core.text import Unit, split_text
from toolprune.core.tokens import content_weight, has_japanese
from toolprune.scorers.base import Scorer, ScorerError, ScoringRequest, UnitTexts
from toolprune.spill import OMITTED_MAX_CHARS, Record, SpillStore, byte_spans

MIN_CHARS = 4_000
"""Inputs shorter than this are passed through untouched (outcome ``small``)."""
MIN_REDUCTION = 0.25
"""Pruned output must be at least this much smaller than the input, markers included."""
BASIS_CHARS = 2_000
"""Only the first 2,000 characters of the request are used (and ever sent anywhere)."""
MIN_BASIS_CONTENT = 3
"""Content weight a request needs (see :func:`toolprune.core.tokens.content_weight`)."""
MAX_IN_FLIGHT = 4
_PLACEHOLDER_ID = "P" + "9" * 12 + "-" + "f" * 8  # the widest id, to size output before the real id exists


class Options:
    """Settings of one prune. (Plain classes here: ``dataclasses`` costs ~20 ms of start-up.)"""

    __slots__ = (
        "basis", "threshold", "lang", "timeout", "omitted_command", "tail", "signal", "envelope", "label",
        "max_chars", "max_lines", "max_bytes", "progress", "json_strict",
    )  # fmt: skip

    def __init__(
        self,
        basis: str,
        threshold: float = 0.2,
        lang: str = "auto",
        timeout: float = 20.0,
        omitted_command: str = "toolprune omitted",
        tail: int = lines.DEFAULT_TAIL,
        signal: str | None = None,
        envelope: bool = False,
        label: str | None = None,
        max_chars: int | None = None,
        max_lines: int | None = None,
        max_bytes: int | None = None,
        progress: Callable[[int, int], None] | None = None,
        json_strict: bool = False,
    ) -> None:
        self.basis = basis
        self.threshold = threshold
        self.lang = lang
        self.timeout = timeout
        self.omitted_command = omitted_command
        self.tail = tail
        self.signal = signal
        self.envelope = envelope
        self.label = label
        self.max_chars = max_chars
        self.max_lines = max_lines
        self.max_bytes = max_bytes
        self.progress = progress
        """Called as ``progress(batches_done, batches)`` while scoring, a few times a second."""
        self.json_strict = json_strict
        """Never change a JSON value's type: a top-level array passes through (no ``_pruned`` element)."""

    def budgeted(self) -> bool:
        return bool(self.max_chars or self.max_lines or self.max_bytes)


_STATS_FIELDS = (
    "outcome", "shape", "arrays", "pruned", "split", "scorer", "model", "questions", "raw_chars", "raw_bytes", "kept_chars",
    "kept_bytes", "units", "dropped", "budget", "ratio", "calls", "tokens", "ms", "threshold", "id",
)  # fmt: skip


class Stats:
    """Counts for the ``-v`` line (SPEC §9). ``None`` means not measured and prints as ``-``."""

    __slots__ = _STATS_FIELDS

    def __init__(self, **values: object) -> None:
        for name in _STATS_FIELDS:
            setattr(self, name, values.pop(name, None))
        if values:
            raise TypeError(f"unknown stats {sorted(values)}")
        if self.outcome is None:
            self.outcome = "-"

    def line(self) -> str:
        def show(value: object) -> str:
            if value is None:
                return "-"
            if isinstance(value, float):
                return f"{value:.3g}"
            return str(value)

        fields = [
            f for f in _STATS_FIELDS
            if (self.arrays is not None or f not in ("arrays", "pruned")) and (f != "budget" or self.budget is not None)
            and (self.questions is not None or f not in ("model", "questions"))
        ]  # fmt: skip
        return "toolprune: " + " ".join(f"{name}={show(getattr(self, name))}" for name in fields)


class Plan:
    """What to do with one text input; ``render`` and ``records`` are used when it is ``ok``."""

    def __init__(self, outcome: str, stats: Stats, text: str = "") -> None:
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
        self.heads: list[int] = []
        """Documents, patches and listings: the unit holding each unit's heading (-1: none)."""
        self.entry_share = 0.0
        """Entries of indented documents: a unit scores at least this share of its head's score."""
        self.intros: list[int] = []
        """Documents: the paragraph that introduces each code block or list (-1: none)."""
        self.budget_drops = 0
        self.failure: str | None = None
        """Why every scoring call failed (outcome ``failed``): one line, never content."""
        self.dropped_by_relevance: list[int] = []

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
        like = lines.like(self.text, a, b) if self.line_numbers else None  # repeated signal lines
        return markers.inline(self.lang, command=prefix, first=a, last=b, chars=chars, unit=self.unit_word, lines=span,
                              like=like)

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
        return [_PLACEHOLDER_ID]

    def output(self, ids: Sequence[str], command: str) -> tuple[bytes, int]:
        """The rendered output in UTF-8 and its length in characters (a log read as bytes is
        assembled from its bytes, never decoded whole)."""
        if isinstance(self.text, logtext.LogText) and type(self) is Plan:
            return logtext.render(self, f"{command} {ids[0]}"), self.rendered_chars(ids, command)
        rendered = self.render(ids, command)
        return rendered.encode("utf-8"), len(rendered)

    def whole(self) -> str:
        """The whole input (for the net gate)."""
        return self.text


class WrapperPlan(Plan):
    """JSON whose one long string is pruned as text and written back JSON-escaped in place."""

    def __init__(self, outcome: str, stats: Stats, text: str, outer: str, span: tuple[int, int]) -> None:
        super().__init__(outcome, stats, text)
        self.outer = outer
        self.span = span
        self.ascii_only = outer[span[0] : span[1]].isascii()

    def render(self, ids: Sequence[str], command: str) -> str:
        inner = super().render(ids, command)
        import json

        encoded = json.dumps(inner, ensure_ascii=self.ascii_only)
        return self.outer[: self.span[0]] + encoded + self.outer[self.span[1] :]

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
    def __init__(self, outcome: str, stats: Stats, doc: tree.Doc) -> None:  # noqa: F821
        super().__init__(outcome, stats, doc.text)
        self.doc = doc
        self.targets = doc.targets
        self.scores_by_element: list[float | None] = []

    def render(self, ids: Sequence[str], command: str) -> str:
        from toolprune.core.shapes import tree

        return tree.render(self.doc, ids, command, self.lang)

    def records(self, body: bytes) -> list[Record]:
        from toolprune.core.shapes import tree

        return tree.records(self.doc, body)

    def placeholder_ids(self) -> list[str]:
        return [_PLACEHOLDER_ID] * len(self.doc.record_parts())

    def rendered_chars(self, ids: Sequence[str], command: str) -> int:
        return len(self.render(ids, command))


class Result:
    """The bytes to write, the counts, and — for a passthrough caused by a failure — a one-line
    ``note`` for stderr (never content) and the ``error`` for ``--debug``."""

    def __init__(
        self,
        outcome: str,
        output: bytes,
        stats: Stats,
        record_id: str | None = None,
        note: str | None = None,
        plan: Plan | None = None,
        error: BaseException | None = None,
    ) -> None:
        self.outcome = outcome
        self.output = output
        self.stats = stats
        self.record_id = record_id
        self.note = note
        self.plan = plan
        self.error = error


def language(basis: str, lang: str) -> str:
    if lang in ("en", "ja"):
        return lang
    return "ja" if has_japanese(basis) else "en"


def batches(units: Sequence[str], max_units: int, max_chars: int) -> list[list[int]]:
    """Fixed batches from the start: at most ``max_units`` units and ``max_chars`` characters,
    cut before a unit that would exceed either (a unit larger than ``max_chars`` goes alone)."""
    out: list[list[int]] = []
    current: list[int] = []
    size = 0
    for i, chars in enumerate(units.sizes() if isinstance(units, UnitTexts) else map(len, units)):
        if current and (len(current) >= max_units or size + chars > max_chars):
            out.append(current)
            current, size = [], 0
        current.append(i)
        size += chars
    if current:
        out.append(current)
    return out


class ScoringTimeout(Exception):
    pass


TICK = 0.25
"""Seconds between progress reports while waiting for concurrent batches."""


class Scoring:
    """Scores per unit (None: not scored, kept), the number of batches, how many failed, and
    the message of the first failed batch (in document order)."""

    __slots__ = ("scores", "batches", "failed", "error")

    def __init__(self, units: int, batches: int) -> None:
        self.scores: list[float | None] = [None] * units
        self.batches = batches
        self.failed = 0
        self.error: str | None = None


def score_all(
    scorer: Scorer,
    request: ScoringRequest,
    deadline: float,
    progress: Callable[[int, int], None] | None = None,
) -> Scoring:
    """Score every unit of ``request`` in fixed batches (SPEC §6).

    Raises ScoringTimeout when the deadline passes; partial results are discarded. Concurrent
    scorers run up to MAX_IN_FLIGHT batches at once on daemon threads, so that a deadline or an
    interrupt never waits for a request still in flight; results are stored by batch, whatever
    order they complete in.
    """
    plan = batches(request.units, scorer.max_batch_units, scorer.max_batch_chars)
    request.deadline = deadline
    out = Scoring(len(request.units), len(plan))
    errors: dict[int, str] = {}

    def settle(k: int, values: Sequence[float | None] | None, exc: BaseException | None) -> None:
        if exc is None:
            try:
                store(plan[k], values)
                return
            except ScorerError as bad:
                exc = bad
        if not isinstance(exc, ScorerError):
            raise exc
        out.failed += 1
        errors[k] = getattr(exc, "message", None) or str(exc) or type(exc).__name__
        out.error = errors[min(errors)]

    def store(batch: list[int], values: Sequence[float | None] | None) -> None:
        if values is None or len(values) != len(batch):
            raise ScorerError(f"scorer returned {0 if values is None else len(values)} scores for {len(batch)} units")
        for i, value in zip(batch, values):
            if value is not None:
                value = float(value)
                if not 0.0 <= value <= 1.0:  # NaN fails both comparisons
                    raise ScorerError(f"scorer returned {value!r}, outside [0, 1]")
            out.scores[i] = value

    if not scorer.concurrent:
        for k, batch in enumerate(plan):
            if time.monotonic() > deadline:
                raise ScoringTimeout()
            try:
                settle(k, scorer.score(request, batch), None)
            except ScorerError as exc:
                settle(k, None, exc)
            if progress is not None:
                progress(k + 1, len(plan))
        if time.monotonic() > deadline:
            raise ScoringTimeout()
        return out

    import queue
    import threading

    results: queue.SimpleQueue = queue.SimpleQueue()
    order = iter(range(len(plan)))
    lock = threading.Lock()
    stop = threading.Event()

    def worker() -> None:
        while not stop.is_set():
            with lock:
                k = next(order, None)
            if k is None:
                return
            try:
                results.put((k, scorer.score(request, plan[k]), None))
            except Exception as exc:  # handed to the main thread, which decides
                results.put((k, None, exc))

    for _ in range(min(MAX_IN_FLIGHT, len(plan))):
        threading.Thread(target=worker, name="toolprune-scorer", daemon=True).start()
    try:
        done = 0
        while done < len(plan):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ScoringTimeout()
            try:
                k, values, exc = results.get(timeout=min(remaining, TICK))
            except queue.Empty:
                if progress is not None:
                    progress(done, len(plan))
                continue
            done += 1
            settle(k, values, exc)
            if progress is not None:
                progress(done, len(plan))
        return out
    finally:
        stop.set()


def plan(data: bytes, options: Options, scorer: Scorer) -> Plan:
    """Decide the outcome for ``data``; pure apart from calling the scorer."""
    stats = Stats(raw_bytes=len(data))
    if len(data) < MIN_CHARS:  # fewer bytes than MIN_CHARS means fewer characters too
        return Plan("small", stats)
    try:
        text = logtext.read(data)  # a large log stays bytes (core/logtext.py)
    except UnicodeDecodeError:
        stats.raw_chars = len(data.decode("utf-8", "replace"))
        return Plan("small" if stats.raw_chars < MIN_CHARS else "not_text", stats)
    stats.raw_chars = len(text)
    if len(text) < MIN_CHARS:
        return Plan("small", stats)
    if "\x00" in text:
        return Plan("not_text", stats)
    basis = options.basis[:BASIS_CHARS]
    if content_weight(basis) < MIN_BASIS_CONTENT:
        return Plan("no_basis", stats)
    if isinstance(text, str) and text.lstrip("\ufeff \t\r\n")[:1] in ("{", "["):
        parsed = parses(text)
        if parsed is None:  # JSON no parser here can hold (nesting deeper than orjson's limit)
            stats.shape = "structured"
            return Plan("structured", stats)
        if parsed:
            return _plan_json(text, basis, options, scorer, stats)

    stats.shape = "text"
    result = _plan_text(Plan("nothing_dropped", stats, text=text), basis, options, scorer)
    if options.budgeted() and result.outcome in ("ok", "nothing_dropped", "below_floor", "all_dropped"):
        return _fit(result, options)
    return result


def _plan_text(result: Plan, basis: str, options: Options, scorer: Scorer) -> Plan:
    """Split ``result.text`` into units, score them and decide (text and wrapper shapes)."""
    text, stats = result.text, result.stats
    stats.scorer = scorer.name
    stats.threshold = options.threshold
    units = _split(result, options).units
    stats.units = len(units)
    eligible = [i for i, u in enumerate(units) if not u.fixed]
    result.lang = language(basis, options.lang)
    if not eligible:
        stats.calls, stats.dropped = 0, 0
        return result

    if isinstance(text, logtext.LogText):  # decoded one at a time from the input's bytes
        texts = text.texts([units[i] for i in eligible])
    else:
        texts = UnitTexts(text, [(units[i].start, units[i].end) for i in eligible])
    scores = _score(result, basis, texts, scorer, options)
    if scores is None:
        return result
    full: list[float | None] = [None] * len(units)
    for i, value in zip(eligible, scores):
        full[i] = value
    if any(s is not None and s >= options.threshold for s in full):
        full = _links(result, full, options.threshold)
    result.scores = full
    scored = [s for s in scores if s is not None]
    threshold = max(options.threshold, lines.located_threshold(text)) if result.line_numbers else options.threshold
    below = [i for i, s in enumerate(full) if s is not None and s < threshold]
    if scored and len(below) == len(scored) and not result.pinned:
        stats.dropped = len(below)
        result.outcome = "all_dropped"
        return result
    dropped = [i for i in below if i not in result.pinned]
    stats.dropped = len(dropped)
    if not dropped:
        return result
    result.dropped = dropped
    result.runs = _runs(units, dropped)
    return _net_gate(result, options)


def _split(result: Plan, options: Options) -> Plan:
    """Split ``result.text`` into units by its kind (``core/kinds.py``): commits and patches,
    listings grouped by file or directory, documents by section and paragraph (each unit linked
    to its heading and its introduction, ``core/shapes/textunits.py``); other text into
    paragraphs, or line blocks for a log, its tail and signal lines pinned. Only a log pins."""
    text, stats = result.text, result.stats
    if isinstance(text, logtext.LogText):  # plain text read as bytes (its kind is known)
        nl_at = text.data.find(b"\n")
        result.newline = "\r\n" if nl_at > 0 and text.data[nl_at - 1] == 0x0D else "\n"
        kind = "text"
    else:
        nl_at = text.find("\n")
        result.newline = "\r\n" if nl_at > 0 and text[nl_at - 1] == "\r" else "\n"
        kind = kinds.kind(text)
    if kind != "text":
        from toolprune.core.shapes import textunits  # only for structured text (~3 ms of patterns)

        if kind in ("gitlog", "diff"):
            structure = textunits.split_patches(text)
        elif kind == "listing":
            structure = textunits.split_listing(text)
        else:
            structure = textunits.split_document(text, kind)
        result.units, result.heads, result.intros = structure.units, structure.heads, structure.intros
        stats.split = kind
        if kind in ("man", "pydoc", "rst", "listing"):
            result.entry_share = ENTRY_SHARE
        if kind in ("gitlog", "diff", "listing"):
            result.unit_word = "block"
        return result
    stats.split = "blank"
    units = result.units = split_text(text)
    if lines.coarse(text, units):  # a log: blocks of lines, with the tail and signal lines pinned
        return _split_lines(result, options)
    return result


def _split_lines(result: Plan, options: Options) -> Plan:
    text = result.text
    units, result.line_numbers = lines.split_lines(text, options.tail)
    result.units = units
    result.pinned = lines.pinned(text, units, result.line_numbers, options.tail, options.signal)
    result.unit_word = "block"
    result.stats.split = "lines"
    return result


ENTRY_SHARE = 0.2
"""In man pages, pydoc and rST, a paragraph scores at least this share of the entry it belongs
to (an option's or a function's later paragraphs follow their first one)."""


def _links(result: Plan, scores: list[float | None], threshold: float) -> list[float | None]:
    """Scores after the structure rules: a code block or list scores at least as much as the
    paragraph that introduces it; a kept unit keeps its heading (and that heading's heading),
    which then scores at least the threshold. Linear: each head is raised once."""
    if not result.heads:
        return scores
    out = list(scores)
    for i, intro in enumerate(result.intros):
        if intro >= 0 and out[i] is not None and out[intro] is not None and out[intro] > out[i]:
            out[i] = out[intro]
    if result.entry_share:  # heads come before the units they head: one pass in order
        for i, head in enumerate(result.heads):
            if head >= 0 and out[i] is not None and out[head] is not None:
                out[i] = max(out[i], result.entry_share * out[head])
    raised = [False] * len(out)
    for i in range(len(out)):
        if out[i] is not None and out[i] < threshold:
            continue
        head = result.heads[i]
        while head >= 0 and not raised[head]:
            raised[head] = True
            if out[head] is not None and out[head] < threshold:
                out[head] = threshold
            head = result.heads[head]
    return out


def _score(
    result: Plan, basis: str, texts: Sequence[str], scorer: Scorer, options: Options
) -> list[float | None] | None:
    """Score ``texts``; on a timeout or when every call failed, set the outcome and return None."""
    request = ScoringRequest(basis=basis, units=texts)
    try:
        scoring = score_all(scorer, request, time.monotonic() + options.timeout, options.progress)
    except ScoringTimeout:
        result.outcome = "timeout"
        _usage(result.stats, scorer, None)
        return None
    _usage(result.stats, scorer, scoring.batches)
    scorer.close()
    if scoring.failed == scoring.batches:
        result.outcome = "failed"
        result.failure = scoring.error
        return None
    return scoring.scores


def _usage(stats: Stats, scorer: Scorer, batches: int | None) -> None:
    usage = scorer.usage()
    if usage is None:
        stats.calls = batches
        return
    stats.calls, stats.tokens = usage.get("calls"), usage.get("tokens")
    stats.model, stats.questions = usage.get("model"), usage.get("questions")


ENVELOPE_RESERVE = 400
"""Characters (and bytes) kept free for the envelope's header line when a budget applies."""


def _over(result: Plan, options: Options) -> bool:
    """Does the output exceed the budget (``--max-chars``/``--max-lines``, bytes for ``--fit``)?"""
    if result.dropped:
        out = result.render([_PLACEHOLDER_ID], options.omitted_command) if (options.max_lines or options.max_bytes) else None
        chars = result.rendered_chars([_PLACEHOLDER_ID], options.omitted_command)
    else:
        out, chars = result.text, len(result.text)
    reserve = ENVELOPE_RESERVE if options.envelope else 0
    if options.max_chars and chars + reserve > options.max_chars:
        return True
    if options.max_lines and out.count("\n") + 1 + (1 if options.envelope else 0) > options.max_lines:
        return True
    return bool(options.max_bytes and len(out.encode("utf-8")) + reserve > options.max_bytes)


FILL_WORK = 20_000_000
"""Characters of output the bound may render while filling it with extra units (bounds the time
spent on very large inputs)."""


def _fill_order(result: Plan) -> list[int]:
    """The units a bound keeps first: the end of a log (its tail), then its signal blocks, latest
    first (a log's failure summary is near its end), then every other unit by score, best first
    (unscored ones count as 0.5; earlier before later on ties). Units relevance dropped are not
    candidates."""
    dropped = set(result.dropped)
    scores = result.scores or [None] * len(result.units)
    pinned = sorted(result.pinned, reverse=True)
    end = {i for i in pinned if i >= pinned[0] - 1} if pinned else set()
    named = lines.first_kept(result.text) if result.line_numbers else set()  # the failing step, summaries
    order = [i for i in pinned if i in end] + [i for i in pinned if i not in end and i in named]
    order += [i for i in pinned if i not in end and i not in named]
    rest = [i for i in range(len(result.units)) if i not in dropped and i not in result.pinned]
    rest.sort(key=lambda i: (-(0.5 if scores[i] is None else scores[i]), i))
    return order + rest


def _fit(result: Plan, options: Options) -> Plan:
    """Fill the bound (``--max-chars``/``--max-lines``/``--fit``) with the best units: keep the
    longest prefix of :func:`_fill_order` whose whole output (header and markers included) fits,
    then any later unit that still fits. Budget drops are marked and restorable like relevance
    drops; when the output already fits, the relevance outcome stands."""
    if not _over(result, options):
        return result
    units = result.units
    result.dropped_by_relevance = list(result.dropped)
    order = _fill_order(result)
    if result.line_numbers:  # blocks pinned only for repeated signal lines go first (their markers count them)
        repeated = lines.repeats(result.text)
        order = [i for i in order if i not in repeated]

    def keep(kept: set[int]) -> bool:
        result.dropped = [i for i in range(len(units)) if i not in kept]
        result.runs = _runs(units, result.dropped)
        return not _over(result, options)

    # the largest prefix that fits (binary search: the output grows with the prefix, except
    # where a kept unit is smaller than the marker it replaces, which only helps)
    lo, hi = 0, len(order)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if keep(set(order[:mid])):
            lo = mid
        else:
            hi = mid - 1
    kept = set(order[:lo])
    tries = min(len(order) - lo, max(0, FILL_WORK // max(1, len(result.text))), 64)
    for i in order[lo : lo + tries]:  # a smaller unit after one that did not fit
        if keep(kept | {i}):
            kept.add(i)
    keep(kept)
    result.budget_drops = len(set(result.dropped) - set(result.dropped_by_relevance))
    result.stats.dropped = len(result.dropped)
    result.stats.budget = result.budget_drops
    result.stats.ratio = (len(result.text) - result.rendered_chars([_PLACEHOLDER_ID], options.omitted_command)) / len(result.text)
    result.outcome = "ok"
    return result


def _net_gate(result: Plan, options: Options) -> Plan:
    text = result.whole()
    pruned_chars = result.rendered_chars(result.placeholder_ids(), options.omitted_command)
    result.stats.ratio = (len(text) - pruned_chars) / len(text)
    result.outcome = "below_floor" if result.stats.ratio < MIN_REDUCTION else "ok"
    return result


def _plan_json(text: str, basis: str, options: Options, scorer: Scorer, stats: Stats) -> Plan:
    """MCP result, wrapper, records (arrays and maps), or ``structured`` (passthrough)."""
    from toolprune.core.shapes import mcp, records, tree  # JSON only: ~8 ms of imports text never pays

    stats.shape = "structured"
    if text.startswith("\ufeff"):
        return Plan("structured", stats)
    try:
        top = scan(text, 2 + records.ENVELOPE_LEVELS, objects_only=True)  # envelopes, their arrays
        if top is None or (top.kind == "[" and options.json_strict):
            return Plan("structured", stats)
        doc = mcp.detect(text, top, parses, options.json_strict) if top.kind == "{" else None
        if doc is not None:
            stats.shape = "json_mcp"
        else:
            wrapped = _wrapper(text, top) if top.kind == "{" else None
            if wrapped is not None:
                content, span = wrapped
                stats.shape = "json_wrapper"
                plan_ = WrapperPlan("nothing_dropped", stats, content, text, span)
                return _plan_text(plan_, basis, options, scorer)
            targets = records.find(text, top)
            if not targets:
                return Plan("structured", stats)
            stats.shape = "json_arrays"
            doc = tree.Doc(text, top, targets)
    except RecursionError:  # nesting deeper than the parser's stack, below the depth limit
        stats.shape = "structured"
        return Plan("structured", stats)
    return _plan_tree(TreePlan("nothing_dropped", stats, doc), basis, options, scorer)


def _plan_tree(result: TreePlan, basis: str, options: Options, scorer: Scorer) -> Plan:
    from toolprune.core.shapes import mcp, records, tree

    doc, stats = result.doc, result.stats
    stats.scorer, stats.threshold = scorer.name, options.threshold
    result.lang = language(basis, options.lang)
    for part in doc.strings:
        if isinstance(part, tree.TextString):
            part.plan = _split(Plan("nothing_dropped", Stats(), text=part.content), options)
            part.plan.lang = result.lang
    stats.arrays = len(doc.targets)
    flat = tree.units(doc)
    stats.units = sum(len(t.elements) for t in doc.all_targets()) + sum(
        len(p.plan.units) for p in doc.strings if isinstance(p, tree.TextString)
    )
    if not flat:
        stats.calls, stats.dropped, stats.pruned = 0, 0, 0
        return result
    scores = _score(result, basis, [unit for _, _, unit in flat], scorer, options)
    if scores is None:
        return result
    scored = [s for s in scores if s is not None]
    if scored and all(s < options.threshold for s in scored):
        stats.dropped = len(scored)
        result.outcome = "all_dropped"
        return result
    tree.decide(flat, scores, options.threshold, _runs)
    result.scores_by_element = [score for t in doc.targets for score in t.scores]  # for --explain
    if isinstance(doc, mcp.McpDoc):
        mcp.mirror(doc, result.lang)
    tree.bound_meta(doc, options.omitted_command, result.lang)
    parts = doc.record_parts()
    stats.dropped = sum(len(p.dropped if isinstance(p, records.Target) else p.plan.dropped) for p in parts)
    stats.pruned = len(parts)
    if not stats.dropped:
        return result
    return _net_gate(result, options)


def _wrapper(text: str, top: Node) -> tuple[str, tuple[int, int]] | None:
    """SPEC §4 wrapper: the top object's longest direct string value is ≥ 60 % of the input and
    ≥ 4,000 chars, and its raw encoding occurs exactly once. Returns (content, raw span)."""
    strings = [(e - s, s, e) for _, s, e in top.members(text) if text[s] == '"']
    if not strings:
        return None
    _, start, end = max(strings)
    import orjson

    try:
        content = orjson.loads(text[start:end])
    except orjson.JSONDecodeError:  # lone surrogates: not representable as UTF-8 text
        return None
    if len(content) < MIN_CHARS or len(content) < 0.6 * len(text):
        return None
    if text.count(text[start:end]) != 1:
        return None
    return content, (start, end)


def _runs(units: Sequence[Unit], dropped: Sequence[int], limit: int = OMITTED_MAX_CHARS) -> list[tuple[int, int]]:
    """Consecutive dropped units, each run small enough for one ``omitted`` call, so that every
    marker's command returns its part as printed (a bound pays for the extra markers; only a
    single unit over the limit makes a run that ``omitted`` asks to narrow)."""
    runs: list[tuple[int, int]] = []
    for i in dropped:
        if runs:
            a, b = runs[-1]
            if b == i - 1 and (not limit or units[i].end - units[a].start <= limit):
                runs[-1] = (a, i)
                continue
        runs.append((i, i))
    return runs


def run(data: bytes, options: Options, scorer: Scorer, store: SpillStore) -> Result:
    """Plan, spill, render. Never raises an ordinary exception: failures pass the input through."""
    started = time.monotonic()
    try:
        result = _run(data, options, scorer, store)
        if options.envelope:
            from toolprune import envelope

            first_id = result.record_id.split(",")[0] if result.record_id else None
            record_id, full = envelope.spill_full(store, data, first_id)
            head = envelope.header(
                label=options.label, data=data, outcome=result.outcome, record_id=record_id, full_output=full
            )
            result.output = head + result.output
            result.stats.id = result.stats.id or record_id
        return _finish(result, started)
    except Exception as exc:  # fail open (SPEC §2.3): any error → exact passthrough
        stats = Stats(outcome="error", raw_bytes=len(data))
        reason = getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}"
        return _finish(Result("error", data, stats, note=reason, error=exc), started)


def _run(data: bytes, options: Options, scorer: Scorer, store: SpillStore) -> Result:
    p = plan(data, options, scorer)
    stats = p.stats
    if p.outcome != "ok":
        note = None
        if p.outcome == "timeout":
            note = f"scoring did not finish within {options.timeout:g} s"
        elif p.outcome == "failed":
            note = "every scoring call failed" + (f": {p.failure}" if p.failure else "")
        return Result(p.outcome, data, stats, note=note, plan=p)
    ids = [store.save(record) for record in p.records(data)]
    output, chars = p.output(ids, options.omitted_command)
    record_id = ",".join(ids)
    stats.id = record_id
    stats.kept_bytes = len(output)
    stats.kept_chars = chars
    stats.ratio = 1.0 - stats.kept_chars / stats.raw_chars if stats.raw_chars else None
    return Result("ok", output, stats, record_id=record_id, plan=p)


def _finish(result: Result, started: float) -> Result:
    stats = result.stats
    stats.outcome = result.outcome
    stats.ms = round((time.monotonic() - started) * 1000)
    if result.output is not None and result.outcome != "ok":
        stats.kept_bytes = len(result.output)
        stats.kept_chars = stats.raw_chars if len(result.output) == stats.raw_bytes else None
    return result

"""The prune pipeline: gates → shape → units → scores → decisions → plan.

Bytes in, a :class:`~toolprune.core.plans.Plan` out, without side effects apart from calling the
scorer; ``toolprune.service`` adds the spill store and the envelope. The shapes are tried in
order: JSON (an MCP result, a wrapper of one long string, arrays and maps of records; see
``core/shapes``), then text split by its kind (``core/kinds.py``).
"""

from __future__ import annotations

from collections.abc import Sequence

from toolprune.core import compare, kinds, lines, logtext, passing
from toolprune.core.budget import fill
from toolprune.core.decide import (
    BASIS_CHARS,
    ENTRY_SHARE,
    MIN_BASIS_CONTENT,
    MIN_CHARS,
    far,
    language,
    links,
    net_gate,
    runs,
    tidy_runs,
)
from toolprune.core.jsonscan import scan
from toolprune.core.jsonshape import opens_like_json, parses
from toolprune.core.models import Options, Stats
from toolprune.core.plans import Plan, TreePlan
from toolprune.core.scorer import Scorer, UnitTexts
from toolprune.core.scoring import score
from toolprune.core.text import _blocks, split_text
from toolprune.core.tokens import content_weight


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
    looks_json = isinstance(text, str) and opens_like_json(text)
    if content_weight(basis) < MIN_BASIS_CONTENT:
        # no request to judge by, but still a bound to keep (JSON is never cut to one)
        if options.budgeted() and not (looks_json and isinstance(text, str) and parses(text) is not False):
            return _bound_alone(Plan("no_basis", stats, text=text), basis, options)
        return Plan("no_basis", stats)
    if looks_json and isinstance(text, str):
        parsed = parses(text)
        if parsed is None:  # JSON no parser here can hold (nesting deeper than orjson's limit)
            stats.shape = "structured"
            return Plan("structured", stats)
        if parsed:
            return _plan_json(text, basis, options, scorer, stats)
        if options.json_strict and kinds.kind(text) == "jsonlines":  # a program reads the records: no markers
            stats.shape = "structured"
            return Plan("structured", stats)

    stats.shape = "text"
    result = _plan_text(Plan("nothing_dropped", stats, text=text), basis, options, scorer)
    if options.budgeted() and result.outcome in ("ok", "nothing_dropped", "below_floor", "all_dropped"):
        return fill(result, options)
    return result


def _bound_alone(result: Plan, basis: str, options: Options) -> Plan:
    """A request too thin to judge by (``continue``) under a bound: nothing is scored, and the
    bound is filled as for any other input (a log's tail and signal blocks first, then the
    earliest units). An input that fits passes through as ``no_basis``."""
    result.stats.shape = "text"
    result.stats.units = len(_split(result, options).units)
    result.lang = language(basis, options.lang)
    return fill(result, options)


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
    scores = score(result, basis, texts, scorer, options, prose=stats.split == "blank")
    if scores is None:
        return result
    raw: list[float | None] = [None] * len(units)
    for i, value in zip(eligible, scores):
        raw[i] = value
    if stats.split == "gitlog" and compare.asks_first(basis):  # the oldest commit is a candidate
        from toolprune.core.shapes.textunits import opens_commit  # loaded already: the split used it

        assert isinstance(text, str)  # a git log is split by its structure, never read as bytes
        commits = [i for i, head in enumerate(result.heads) if head < 0 and opens_commit(text, units[i].start)]
        commits = commits or [i for i, head in enumerate(result.heads) if head < 0]  # never none
        first, last = (units[commits[k]] for k in (0, -1))
        order = compare.commit_order(text[first.start : first.end], text[last.start : last.end])
        ends = {"newest": [commits[-1]], "oldest": [commits[0]], None: [commits[0], commits[-1]]}
        result.oldest = ends[order]
    if stats.split == "listing" and compare.listing_compared(basis, text):  # every entry is a candidate
        result.scores, stats.dropped, result.ends = raw, 0, compare.ends(basis)
        return result
    if stats.split in ("table", "jsonlines") and _rows_compared(result, basis):  # every row is a candidate
        result.scores, stats.dropped, result.ends = raw, 0, compare.ends(basis) or [compare.VALUE]
        return result
    decided = _decide(result, raw, options.threshold, texts, eligible, basis, options)
    if decided.outcome not in ("below_floor", "nothing_dropped") or not result.heads or stats.split in UNSTEPPED:
        return decided
    for step in FLOOR_STEPS:  # the gentlest stronger cut that is worth its markers
        stronger = round(options.threshold * step, 4)  # the threshold decided by is the one reported
        if stronger <= 1 and _decide(result, raw, stronger, texts, eligible, basis, options).outcome == "ok":
            result.stats.threshold, result.stepped_from = stronger, options.threshold
            return result
    return _decide(result, raw, options.threshold, texts, eligible, basis, options)


def _rows_compared(result: Plan, basis: str) -> bool:
    """A request for an extreme (of size, age or a value: the highest, the peak) over a table's
    rows, or over JSON Lines records as :func:`compare.records_compared` reads JSON records:
    which row holds it is a matter of the numbers, and any dropped row may be it."""
    if not (any(compare.asks(basis)) or compare.asks_value(basis)):
        return False
    if result.stats.split == "table":
        return True
    text, units = result.text, result.units
    return compare.records_compared(basis, [text[u.start : u.end] for u in units[: compare.SAMPLE_ELEMENTS]])


FLOOR_STEPS = (1.05, 1.1, 1.15, 1.2, 1.25)
"""A text split by its structure (a document, a listing, ``git log``) whose cut saves less than
``MIN_REDUCTION`` (or drops nothing) is cut again at the threshold times each of these in turn,
and the first cut that saves enough is taken, before the input passes through as
``below_floor`` (or ``nothing_dropped``). A document that is all about the request scores most
of its parts above a fifth of its best one; a slightly stronger cut keeps what the request names
and drops what only shares its general words. The
scores are not computed again. Plain paragraphs and logs are never cut stronger than asked: on
the QA corpus the second hop of a multi-hop question scores just above the threshold, and one
step of 1.25 there took multi-hop all-gold from 0.973 to 0.943. On the real-output set's tune half
(``bench/eval_real.py``) the steps turned 4 of 14 ``below_floor`` cases into cuts and lost no
needed line; a single step to 1.25 lost one (a ``retry_backoff_max`` entry at 0.241), 1.5 two.

Lists of entries are never cut stronger either (``UNSTEPPED``)."""

UNSTEPPED = ("man", "listing")
"""Man pages and ``--help`` pages (``split=man``) and listings (``grep -rn``, ``ls -lR``, ``find``)
are lists of entries, each an option or a line that stands on its own, and the entries a
stronger cut drops are the near misses: an option the request describes only by its effect
(``du -h`` at 0.205, ``column -s`` at 0.2, ``pgrep -f`` at 0.199 under cuts at 0.21–0.25), a
``grep`` hit the user's own pattern found. On the real-output set (2026-12-07, 1,741 cases,
``bench/eval_real.py --quick``), man pages: tune 4 more cases with all gold (91.8 % → 92.3 %) at
0.379 → 0.372 reduction, about twice the all-gold a lower threshold buys for that reduction, the
other half 8 more (90.2 % → 91.2 %) at 0.392 → 0.384; listings then: tune 2 more at −0.003, test
1 more at −0.003. Not taken: no steps for Markdown, reStructuredText and pydoc (two more cases on
each half for another 0.012) or ``git log`` (one tune case for 0.003): along the threshold's curve."""


def _decide(
    result: Plan,
    raw: list[float | None],
    threshold: float,
    texts: Sequence[str],
    eligible: list[int],
    basis: str,
    options: Options,
) -> Plan:
    """Which units of ``result`` scoring ``raw`` fall below ``threshold``, and the outcome. Any
    earlier decision on ``result`` is undone first: only its units, heads and pins carry over."""
    stats = result.stats
    result.dropped, result.runs, result.passing, result.outcome = [], [], set(), "nothing_dropped"
    result.islands, result.short, result.beside = set(), set(), set()
    weak = far(result, raw, threshold)  # before the structure rules, which may still keep them
    full = [0.0 if i in weak else s for i, s in enumerate(raw)] if weak else raw
    if any(s is not None and s >= threshold for s in full):
        full = links(result, full, threshold)
    result.far = {i for i in weak if (s := full[i]) is not None and s < threshold}
    if result.far:  # shown with their own scores
        full = [raw[i] if i in result.far else s for i, s in enumerate(full)]
    result.scores = full
    scored = [s for s in raw if s is not None]
    located = lines.located_threshold(result.text) if result.line_numbers else 0.0
    if located > threshold:  # the located failure's threshold is the one decided by, and reported
        threshold = stats.threshold = located
    below = [i for i, s in enumerate(full) if s is not None and (s < threshold or i in result.far)]
    if located:  # the failure's lines are pinned: passing tests say nothing, skipped ones may
        where = {i: j for j, i in enumerate(eligible)}  # unit -> its text among the scored ones
        if passing.applies(basis):
            below = _passing(result, full, threshold, texts, where, basis, below)
        if below and passing.asks_skipped(basis):  # which tests were skipped: the lines that say so
            below = [i for i in below if not passing.skipped(texts[where[i]])]
    if scored and len(below) == len(scored) and not result.pinned:
        stats.dropped = len(below)
        result.outcome = "all_dropped"
        return result
    dropped = [i for i in below if i not in result.pinned]
    stats.dropped = len(dropped)
    if not dropped:
        return result
    result.dropped = dropped
    result.runs = runs(result.units, dropped)
    tidy_runs(result, threshold, options.omitted_command)
    stats.dropped = len(result.dropped)
    if not result.dropped:
        return result
    return net_gate(result, options)


def _passing(
    result: Plan,
    full: list[float | None],
    threshold: float,
    texts: Sequence[str],
    where: dict[int, int],
    basis: str,
    below: list[int],
) -> list[int]:
    """``below`` and the blocks that would be kept that only list tests that passed, none of
    them named by the request (``core/passing.py``); ``where`` maps a unit to its text."""
    named = passing.names(basis)
    for i, s in enumerate(full):
        if s is not None and s >= threshold and i not in result.pinned and passing.quiet(texts[where[i]], named):
            result.passing.add(i)
    return sorted(set(below) | result.passing) if result.passing else below


def _split(result: Plan, options: Options) -> Plan:
    """Split ``result.text`` into units by its kind (``core/kinds.py``): commits and patches,
    listings grouped by file or directory, documents by section and paragraph (each unit linked
    to its heading and its introduction, ``core/shapes/textunits.py``); other text into
    paragraphs, or line blocks for a log, its tail and signal lines pinned. Only a log pins."""
    text = result.text
    if isinstance(text, logtext.LogText):  # plain text read as bytes (its kind is known: text)
        nl_at = text.data.find(b"\n")
        result.newline = "\r\n" if nl_at > 0 and text.data[nl_at - 1] == 0x0D else "\n"
    else:
        nl_at = text.find("\n")
        result.newline = "\r\n" if nl_at > 0 and text[nl_at - 1] == "\r" else "\n"
        kind = kinds.kind(text)
        if kind in ("text", "markdown", "rst", "man") and (at := kinds.json_opening(text)) >= 0:
            if (embedded := _split_embedded(result, text, at, options)) is not None:
                return embedded
        if kind != "text" and (structured := _split_structured(result, text, kind, options)) is not None:
            return structured
    result.stats.split = "blank"
    if lines.long_log(text):  # a log: blocks of lines, with the tail and signal lines pinned
        return _split_lines(result, options)
    blocks = _blocks(text)
    if lines.mostly_fixed(text, blocks):  # half of it in runs too large to score: line blocks, no paragraphs made
        return _split_lines(result, options)
    units = result.units = split_text(text, blocks)
    if lines.coarse_units(text, units):  # paragraphs too few or too large: line blocks too
        return _split_lines(result, options)
    return result


def _split_structured(result: Plan, text: str, kind: str, options: Options) -> Plan | None:
    """Commits and patches, listings, Python records, JSON Lines, tables, TOML and INI files,
    HTML pages (line blocks, nothing pinned) and documents: units with their heads and
    introductions (None: the text is not the list of records it began like)."""
    from toolprune.core.shapes import textunits  # only for structured text (~3 ms of patterns)

    if kind in ("gitlog", "diff"):
        structure = textunits.split_patches(text)
    elif kind == "records":
        if (found := textunits.split_records(text)) is None:
            return None
        structure = found
    elif kind in ("jsonlines", "table"):
        if (found := textunits.split_lines_as_records(text, header=kind == "table")) is None:
            return None
        structure = found
        if kind == "jsonlines":
            result.pinned = textunits.json_lines_pins(text, structure.units, options.signal)
    elif kind == "listing":
        structure = textunits.split_listing(text)
    elif kind == "config":
        structure = textunits.split_config(text)
    elif kind == "html":  # markup: line blocks, as a log's, but an HTML page's "error" is a word, not a failure
        _split_lines(result, options)
        result.pinned = set()
        result.stats.split = kind
        return result
    else:
        structure = textunits.split_document(text, kind)
    result.units, result.heads, result.intros = structure.units, structure.heads, structure.intros
    result.rows, result.versions = structure.rows, structure.versions
    result.stats.split = kind
    if kind in ("man", "pydoc", "rst", "changelog", "listing", "config"):
        result.entry_share = ENTRY_SHARE
    if kind in ("gitlog", "diff", "listing", "records"):
        result.unit_word = "block"
    elif kind in ("jsonlines", "table"):
        result.unit_word = "record" if kind == "jsonlines" else "row"
    return result


def _split_embedded(result: Plan, text: str, at: int, options: Options) -> Plan | None:
    """The JSON document at ``at`` in a few lines of text (an MCP server's ``<tool_response>``
    wrapper, a fenced report): its arrays' elements are the units (None: it is no such document).
    Elements that say something failed, or whose level is an error, are pinned as JSON Lines'
    records are (when at most half of them do): read as a log, a test report's failing test was."""
    from toolprune.core.shapes import textunits

    found = textunits.split_embedded_json(text, at)
    if found is None:
        return None
    result.units, result.heads, result.intros = found.units, found.heads, found.intros
    result.pinned = textunits.json_lines_pins(text, found.units, options.signal, values_only=True)
    result.stats.split = "json"
    result.unit_word = "element"
    return result


def _split_lines(result: Plan, options: Options) -> Plan:
    text = result.text
    units, result.line_numbers = lines.split_lines(text, options.tail)
    result.units = units
    result.pinned = lines.pinned(text, units, result.line_numbers, options.tail, options.signal, options.basis)
    result.unit_word = "block"
    result.stats.split = "lines"
    return result


def _plan_json(text: str, basis: str, options: Options, scorer: Scorer, stats: Stats) -> Plan:
    """The first JSON shape that claims the input (``core/shapes``: an MCP result, a wrapper of
    one long string, arrays and maps of records), or ``structured`` (passthrough)."""
    from toolprune.core.shapes import json_shapes, records  # JSON only: ~8 ms of imports text never pays

    stats.shape = "structured"
    if text.startswith("\ufeff"):
        return Plan("structured", stats)
    try:
        top = scan(text, 2 + records.ENVELOPE_LEVELS, objects_only=True)  # envelopes, their arrays
        if top is None or (top.kind == "[" and options.json_strict):
            return Plan("structured", stats)
        for shape in json_shapes():
            claimed = shape.claim(text, top, options, stats)
            if claimed is not None:
                stats.shape = shape.NAME
                break
        else:
            return Plan("structured", stats)
    except RecursionError:  # nesting deeper than the parser's stack, below the depth limit
        stats.shape = "structured"
        return Plan("structured", stats)
    if isinstance(claimed, TreePlan):
        return _plan_tree(claimed, basis, options, scorer)
    return _plan_text(claimed, basis, options, scorer)


def _plan_tree(result: TreePlan, basis: str, options: Options, scorer: Scorer) -> Plan:
    from toolprune.core.shapes import decisions, mcp, records

    doc, stats = result.doc, result.stats
    stats.scorer, stats.threshold = scorer.name, options.threshold
    result.lang = language(basis, options.lang)
    text_units = 0
    splits: set[str | None] = set()
    for part in doc.text_strings():
        text_plan = _split(Plan("nothing_dropped", Stats(), text=part.content), options)
        text_plan.lang = result.lang
        part.plan = text_plan
        text_units += len(text_plan.units)
        splits.add(text_plan.stats.split)
    stats.arrays = len(doc.targets)
    flat = decisions.units(doc)
    targets = doc.all_targets()
    stats.units = sum(len(t.elements) for t in targets) + text_units
    if not flat:
        stats.calls, stats.dropped, stats.pruned = 0, 0, 0
        return result
    prose = splits == {"blank"} and not targets  # every unit a paragraph of a plain text string
    scores = score(result, basis, [unit for _, _, unit in flat], scorer, options, prose=prose)
    if scores is None:
        return result
    scored = [s for s in scores if s is not None]
    sparse = bool(scored) and all(s < options.threshold for s in scored)
    versions = decisions.version_elements(doc, basis)  # "the newest 8.x" over a map of versions: no word names it
    if sparse and not versions and (
        isinstance(doc, mcp.McpDoc) or not decisions.answered_outside(doc, basis, scorer.names)
    ):
        stats.dropped = len(scored)
        result.outcome = "all_dropped"
        return result
    def structured(plan: Plan, threshold: float) -> None:  # a document, log or listing in a string
        if plan.stats.split == "listing" and compare.listing_compared(basis, plan.text):
            result.ends = compare.ends(basis)
            return  # every entry is a candidate
        raw = list(plan.scores)
        eligible = [i for i, u in enumerate(plan.units) if not u.fixed]
        texts = UnitTexts(plan.text, [(plan.units[i].start, plan.units[i].end) for i in eligible])
        _decide(plan, raw, threshold, texts, eligible, basis, options)
        dropped = set(plan.dropped)
        if all(i in dropped for i, s in enumerate(raw) if s is not None and s >= threshold):
            # every match went as a weak one (far, island): scores are relative to the best unit
            # of the whole result, so a string's own best may be weak; never reduce it to markers
            below = [i for i, s in enumerate(raw) if s is not None and s < threshold and i not in plan.pinned]
            plan.scores, plan.far, plan.islands, plan.short = raw, set(), set(), set()
            plan.dropped, plan.runs = below, runs(plan.units, below)

    decisions.decide(flat, scores, options.threshold, runs, sparse, structured)
    if any(compare.asks(basis)) or compare.asks_value(basis):  # every record is a candidate (core/compare.py)
        for target, within in doc.all_targets_with_text():  # an MCP text item's JSON too
            sample = target.elements[: compare.SAMPLE_ELEMENTS]
            if target.dropped and compare.records_compared(basis, [within[s:e] for s, e in sample]):
                target.dropped, result.ends = [], compare.ends(basis)
    decisions.keep_named(doc)
    decisions.keep_version_lines(versions)
    if isinstance(doc, mcp.McpDoc):
        mcp.mirror(doc, result.lang)
    decisions.bound_meta(doc, options.omitted_command, result.lang)
    parts = doc.record_parts()
    stats.dropped = sum(len(p.dropped if isinstance(p, records.Target) else p.planned().dropped) for p in parts)
    stats.pruned = len(parts)
    if not stats.dropped:
        return result
    return net_gate(result, options)

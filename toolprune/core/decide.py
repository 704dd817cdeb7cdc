"""Decisions: the gates an input passes before any scoring, the structure rules that adjust
scores, which units are dropped, how dropped units group into runs (one marker each), and the
net gate (a pruned output must be clearly smaller than its input)."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

from toolprune.core.models import PLACEHOLDER_ID, Options
from toolprune.core.plans import Plan
from toolprune.core.record import OMITTED_MAX_CHARS
from toolprune.core.text import Unit
from toolprune.core.tokens import has_japanese

MIN_CHARS = 4_000
"""Inputs shorter than this are passed through untouched (outcome ``small``)."""
MIN_REDUCTION = 0.25
"""Pruned output must be at least this much smaller than the input, markers included."""
BASIS_CHARS = 2_000
"""Only the first 2,000 characters of the request are used (and ever sent anywhere)."""
MIN_BASIS_CONTENT = 3
"""Content weight a request needs (see :func:`toolprune.core.tokens.content_weight`)."""


def language(basis: str, lang: str) -> str:
    if lang in ("en", "ja"):
        return lang
    return "ja" if has_japanese(basis) else "en"


ENTRY_SHARE = 0.2
"""In man pages, pydoc and rST, a paragraph scores at least this share of the entry it belongs
to (an option's or a function's later paragraphs follow their first one)."""


SHORT_SECTION = 2_000
"""A kept paragraph keeps its section's opening paragraph when the whole section (its heading
and everything under it) is at most this many characters: a setting's ``**Command line:**``
line, not the first paragraph of a long document under its only title."""


INTRO_UNITS_MAX = 4
"""A code block, list or table scores at least as much as the paragraph that introduces it only
when that paragraph introduces at most this many blocks (the parts of a long code block count
as one, and follow its first): a long reference list split into its items (xml2js' 20 parser
options under "there are a number of options…") has each item judged by its own words, not all
of them lifted by a lead-in that shares the request's general words. A kept item still keeps
its lead-in. On the real-output set (1,024 cases, 2026-12-06,
``bench/eval_real.py --quick``): no needed line lost on either half, reduction tune 0.4234 →
0.4238, test 0.4398 → 0.4399. Counting a code block's parts one by one (so that axios' 20,000-char
block of request options is judged part by part under its strong lead-in) gave 0.4243 and 0.4403,
also without a lost line, but a long example under "here is a complete configuration:" is the
answer as a whole more often than a list's items are; 2 lost a line (keyring's backend list),
3 and 8 gave the same cases as 4."""


def links(result: Plan, scores: list[float | None], threshold: float) -> list[float | None]:
    """Scores after the structure rules: a code block, list or table scores at least as much as
    the paragraph that introduces it (``INTRO_UNITS_MAX``); a kept unit keeps that paragraph, its
    heading (and that heading's heading, and the introduction's headings) and its own section's
    opening paragraph (the ``**Command line:**`` line under a setting's heading, when only a later
    paragraph of the section matched), which then score at least the threshold. Linear: each
    head is raised once."""
    if not result.heads:
        return scores
    out = list(scores)
    led_by = [0] * len(out)  # how many blocks each paragraph introduces (a long code block's parts are one)
    for i, intro in enumerate(result.intros):
        if intro >= 0 and not ((head := result.heads[i]) >= 0 and result.intros[head] == intro):
            led_by[intro] += 1
    for i, intro in enumerate(result.intros):
        if intro >= 0 and (own := out[i]) is not None and (led := out[intro]) is not None and led > own:
            if led_by[intro] <= INTRO_UNITS_MAX:
                out[i] = led
    if result.entry_share:  # heads come before the units they head: one pass in order
        for i, head in enumerate(result.heads):
            if head >= 0 and (own := out[i]) is not None and (headed := out[head]) is not None:
                out[i] = max(own, result.entry_share * headed)
    units = result.units
    ends = list(range(len(out)))  # the last unit each unit heads, directly or not (heads come first)
    for i in range(len(out) - 1, -1, -1):
        if (head := result.heads[i]) >= 0 and ends[i] > ends[head]:
            ends[head] = ends[i]
    raised = [False] * len(out)
    for i in range(len(out)):
        if (own := out[i]) is not None and own < threshold:
            continue
        intro = result.intros[i]  # the sentence that leads into a kept block travels with it
        if intro >= 0 and (lead := out[intro]) is not None and lead < threshold:
            out[intro] = threshold
        head = result.heads[i]
        first = head + 1  # the opening paragraph of the unit's own section: what its heading is about
        if (
            head >= 0 and first < i and result.intros[first] == head and (opening := out[first]) is not None
            and units[ends[head]].end - units[head].start <= SHORT_SECTION
        ):
            out[first] = max(opening, threshold)
        for start in (head, result.heads[intro] if intro >= 0 else -1):  # its heading, and its introduction's
            while start >= 0 and not raised[start]:
                raised[start] = True
                if (headed := out[start]) is not None and headed < threshold:
                    out[start] = threshold
                led = result.intros[start]  # a kept row's table header keeps the table's lead-in
                if led >= 0 and (lead := out[led]) is not None and lead < threshold:
                    out[led] = threshold
                start = result.heads[start]
    if result.versions:
        _beside(result, scores, out, threshold)
    for oldest in result.oldest:  # a request about the first commit (core/compare.py)
        if (own := out[oldest]) is not None and own < threshold:
            out[oldest] = threshold
            result.beside.add(oldest)
    return out


def _beside(result: Plan, scores: list[float | None], out: list[float | None], threshold: float) -> None:
    """In a changelog, a section that matches strongly (``BESIDE_STRONG`` times the threshold) keeps
    the heading of the release after it, the one before it in time in the usual newest-first
    order: a release note means something against its neighbour ("the last release that still
    supports Python 3.7" is the heading after the one that drops it, which names neither). The
    headings raised are noted in ``result.beside`` and are never part of an island. On the
    real-output tune half (2026-12-05, ``bench/eval_real.py``) it kept the attrs case's answer
    and cost 0.001 of reduction; the headings on both sides kept the same cases at 0.002 less
    (one page fell under the floor), and a threshold of three times instead of two the same."""
    versions = result.versions
    where = {unit: k for k, unit in enumerate(versions)}
    strong = BESIDE_STRONG * threshold
    done: set[int] = set()
    for i, own in enumerate(scores):
        if own is None or own < strong:
            continue
        head = i
        while head >= 0 and head not in where:
            head = result.heads[head]
        if head < 0 or head in done:
            continue
        done.add(head)
        k = where[head] + 1
        if k >= len(versions) or result.units[versions[k]].end - result.units[versions[k]].start > HEADING_CHARS:
            continue  # a heading that came merged with its release's notes: raising it keeps them all
        if (near := out[versions[k]]) is not None and near < threshold:
            out[versions[k]] = threshold
            result.beside.add(versions[k])


BESIDE_STRONG = 1.25
"""How strongly a changelog section must match (times the threshold) to keep the release
heading after it (see :func:`_beside`). Twice the threshold, as the far rule's strong units, missed
SQLAlchemy-Utils' "Drop support for sqlalchemy 1.4." (0.307 under rST's stepped 0.24: the answer
to "the newest release we can still use with 1.4" is the heading after it). On the real-output
tune half (768 cases, 2026-12-07; ``bench/eval_real.py --quick``): all gold 90.76 % → 90.89 %,
reduction 0.3877 → 0.3873; 1.5 changed no case, and the headings it adds cost a line each."""
HEADING_CHARS = 200
"""The longest release heading a changelog section raises beside it: a longer unit is the heading
with its notes (no blank line between), and the rule keeps a heading, not another release."""

FAR_WEAK = 1.35
FAR_WEAK_MAX = 0.27
FAR_STRONG = 2.0
FAR_CHARS = 3_000
FAR_KINDS = ("markdown", "rst", "man", "pydoc", "changelog")
"""In a document (these kinds), a unit that scores under ``FAR_WEAK`` times the threshold (0.27
at ``standard``) is dropped when it lies more than ``FAR_CHARS`` characters from every unit that
scores ``FAR_STRONG`` times the threshold or more (0.4), and is in none of their sections (it
is not such a unit's heading, and has not the same heading as one): what answers a request sits
near the parts that match it best, and a weak match far from all of them is a page's general
words (every section of a connection-pool guide says "pool" and "connection"). The weak bound is
never over ``FAR_WEAK_MAX``, 0.27, under the part floor (0.28 once calibrated), so the best units
of each part of a request stay at any threshold: a stronger cut (``FLOOR_STEPS``) or ``-t 0.21``
narrows the band, and from 0.27 up the rule is off. The
structure rules still keep such a unit when a kept unit needs it (its heading, its
introduction). On the real-output tune half (222 cases, 2026-12-03; ``bench/eval_real.py``):
all gold 96.4 % → 96.4 %, reduction 0.480 → 0.493; 1,500 chars lost a case, 5,000 gave 0.488; a
strong unit of 0.35 gave 0.489, of 0.5 0.503; units with no heading counted as one section, or
listings and ``git log`` included, lost a listing's line or gained nothing."""

FAR_MIN_CHARS = 10_000
"""A document shorter than this has no far units: ``FAR_CHARS`` on either side of a strong unit
covers most of a small page, and what lies beyond that is not far in any sense a reader would
give it. On small pages the rule dropped needed lines (lsblk's exit status 32, in a 6,153-char
Japanese man page, scored 0.269; jaco's ``toWideKatakana`` row, in a 9,672-char README, 0.265)
and saved little. On the real-output tune half (306 cases, 2026-12-04; ``bench/eval_real.py``):
all gold 95.1 % → 95.1 %, recall 0.970 → 0.972, reduction 0.462 → 0.462; 8,000 chars changed
nothing, 12,000 what 10,000 does, 20,000 cost 0.002 of reduction."""


def far(result: Plan, scores: Sequence[float | None], threshold: float) -> set[int]:
    """The units of a document that score at least ``threshold`` but under ``FAR_WEAK`` ×
    ``threshold`` and are far from every strong unit and outside its section (see ``FAR_WEAK``).
    Linear in the units (the strong units' neighbourhoods are merged once, then every unit is
    placed among them by bisection)."""
    if not result.heads or result.stats.split not in FAR_KINDS or len(result.text) < FAR_MIN_CHARS:
        return set()
    weak, strong = min(FAR_WEAK * threshold, FAR_WEAK_MAX), FAR_STRONG * threshold
    if weak <= threshold:
        return set()
    tops = [i for i, s in enumerate(scores) if s is not None and s >= strong]
    if not tops:
        return set()
    units, heads = result.units, result.heads
    sections = {heads[j] for j in tops} | set(tops)
    sections.discard(-1)
    spans: list[list[int]] = []  # the strong units' neighbourhoods, merged, in order
    for j in tops:
        a, b = units[j].start - FAR_CHARS, units[j].end + FAR_CHARS
        if spans and a <= spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], b)
        else:
            spans.append([a, b])
    starts = [a for a, _ in spans]
    out: set[int] = set()
    for i, s in enumerate(scores):
        if s is None or not threshold <= s < weak or i in sections or heads[i] in sections:
            continue
        unit = units[i]
        k = bisect_right(starts, unit.end) - 1  # the last neighbourhood starting before the unit ends
        if k < 0 or spans[k][1] < unit.start:
            out.add(i)
    return out


def runs(units: Sequence[Unit], dropped: Sequence[int], limit: int = OMITTED_MAX_CHARS) -> list[tuple[int, int]]:
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


ISLAND_CHARS = 200
ISLAND_SCORE = 1.5
"""A short stretch of kept units between two runs of dropped ones (at most ``ISLAND_CHARS``
characters, every unit scored and under ``ISLAND_SCORE`` times the threshold, none pinned, none
the heading, introduction or section opening of a kept unit after the stretch) is dropped with
them: one marker instead of two, and what it drops is a weak match cut off from
its context (a lone heading or a one-line paragraph that only shares the request's general
words). Only in text split by its structure (documents, listings, ``git log``): among plain
paragraphs a short one is often the second hop of a multi-hop question (on the QA corpus it
took multi-hop all-gold from 0.973 to 0.963). Measured on the real-output set's tune half
(``bench/eval_real.py``, 276 cases): reduction 0.478 -> 0.483, no needed line lost; at 300
characters two were lost, at 400 three. A row of a split Markdown table (``plan.rows``) is never
part of an island: it is a record that matched, not a note cut off from its section (a
``isOnlyKatakana`` row at 0.26 between dropped rows was lost; on the tune half, 2026-12-05, all
gold 94.8 % -> 95.1 %, reduction unchanged; the items of a split list too cost 0.0005 and saved
no line)."""


ISLAND_NEVER = ("man", "config")
"""Kinds of text with no islands: in a man or ``--help`` page a short kept stretch between two
dropped runs is an option entry, the whole of its answer, not a note cut off from its section
(git-format-patch's ``-o <dir>, --output-directory <dir>`` at 0.200, unshare's ``-n, --net``
at 0.265, each lost in a blind batch). On the real-output set (2026-12-06, 974 cases,
``bench/eval_real.py --quick``): tune 94.4 % → 94.6 % all gold at 0.4386 → 0.4354 reduction,
test 89.9 % → 90.1 % at 0.4459 → 0.4441 (twice the all-gold per point of reduction of a lower
threshold); no islands anywhere gained the same two cases at twice the cost (0.433, 0.441). A
setting of a TOML or INI file is the whole of its answer too."""


def tidy_runs(plan: Plan, threshold: float, command: str) -> None:
    """Make each marker worth its place, once ``plan.dropped`` and ``plan.runs`` are decided:
    keep every run that is no longer than the marker that would replace it (hiding it would
    save nothing), then join two of the runs left across a short weak island
    (``ISLAND_CHARS``; never in the kinds of ``ISLAND_NEVER``). Updates ``plan.runs``,
    ``plan.dropped``, ``plan.islands`` and ``plan.short``."""
    units, scores = plan.units, plan.scores
    prefix = f"{command} {PLACEHOLDER_ID}"
    left = []
    for a, b in plan.runs:
        run_chars, marker_chars = plan.out_chars(a, b, plan._marker(prefix, a, b))
        if run_chars <= marker_chars:
            plan.short.update(range(a, b + 1))
        else:
            left.append((a, b))
    if plan.heads and len(left) > 1 and plan.stats.split not in ISLAND_NEVER:  # text split by its structure
        weak = ISLAND_SCORE * threshold
        needed_until = _needed_until(plan)
        joined = left[:1]
        for a, b in left[1:]:
            first, last = joined[-1]
            gap = range(last + 1, a)
            if (
                units[a - 1].end - units[last + 1].start <= ISLAND_CHARS
                and units[b].end - units[first].start <= OMITTED_MAX_CHARS
                and all(i not in plan.pinned and (s := scores[i]) is not None and s < weak for i in gap)
                and all(needed_until[i] < a for i in gap)
                and not plan.rows.intersection(gap) and not plan.beside.intersection(gap)
            ):
                joined[-1] = (first, b)
                plan.islands.update(gap)
            else:
                joined.append((a, b))
        left = joined
        plan.short -= plan.islands  # a short run inside an island goes with it
    if plan.short or plan.islands:
        plan.runs = left
        plan.dropped = [i for a, b in left for i in range(a, b + 1)]


def _needed_until(plan: Plan) -> list[int]:
    """For each unit, the last kept unit that keeps it by the structure rules (:func:`links`:
    it is that unit's heading or a heading above it, its introduction or the introduction's
    headings, or its section's opening paragraph), -1 when none does. Linear: the kept units
    are taken from the last, so a unit reached once already holds the last one that needs it,
    and so do the headings above it."""
    heads, intros = plan.heads, plan.intros
    dropped = set(plan.dropped)
    until = [-1] * len(heads)
    for j in range(len(heads) - 1, -1, -1):
        if j in dropped:
            continue
        head, intro = heads[j], intros[j]
        for start in (head, intro, head + 1 if 0 <= head < j - 1 else -1):
            while 0 <= start < j and until[start] < 0:
                until[start] = j
                start = heads[start]
    return until


def net_gate(result: Plan, options: Options) -> Plan:
    text = result.whole()
    pruned_chars = result.rendered_chars(result.placeholder_ids(), options.omitted_command)
    result.stats.ratio = (len(text) - pruned_chars) / len(text)
    result.outcome = "below_floor" if result.stats.ratio < MIN_REDUCTION else "ok"
    return result

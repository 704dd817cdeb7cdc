"""The output bound (``--max-chars``, ``--max-lines``, ``--fit``): when the relevance decisions
leave more than fits, fill the bound with the best units and mark the rest, restorable like any
drop."""

from __future__ import annotations

from toolprune.core import compare, lines, repeats
from toolprune.core.decide import runs
from toolprune.core.models import PLACEHOLDER_ID, Options
from toolprune.core.plans import Plan
from toolprune.core.record import OMITTED_MAX_CHARS

ENVELOPE_RESERVE = 400
"""Characters (and bytes) kept free for the envelope's header line when a budget applies and
its size is not known (``Options.envelope_room`` says it when it is)."""


def over(result: Plan, options: Options, whole: bool = False) -> bool:
    """Does the output exceed the budget (``--max-chars``/``--max-lines``, bytes for ``--fit``)?
    ``whole``: the output is the input itself (a passthrough), whatever ``result.dropped`` holds."""
    room = (options.envelope_room or (ENVELOPE_RESERVE, ENVELOPE_RESERVE)) if options.envelope else (0, 0)
    pruned = bool(result.dropped) and not whole
    chars = result.rendered_chars([PLACEHOLDER_ID], options.omitted_command) if pruned else len(result.text)
    if options.max_chars and chars + room[0] > options.max_chars:
        return True
    if not (options.max_lines or options.max_bytes):
        return False
    out = result.render([PLACEHOLDER_ID], options.omitted_command) if pruned else result.text
    if options.max_lines and out.count("\n") + 1 + (1 if options.envelope else 0) > options.max_lines:
        return True
    return bool(options.max_bytes and len(out.encode("utf-8")) + room[1] > options.max_bytes)


FILL_WORK = 20_000_000
"""Characters of output the bound may render while filling it with extra units (bounds the time
spent on very large inputs)."""


ASKED_MAX = 4
"""Signal blocks go first when the request scored them at or above the threshold, but only when
it singles out at most this many (a test's name and its error: "why does test_parse_port fail
with the ValueError?" scores 4 of a pytest log's 20 signal blocks that high): a general request
("why did the build fail?") matches a step header and many error lines at once (5 to 18 in the
labelled CI logs where it changed anything), and putting those first took lines those logs need
under ``--fit codex`` (google/auto 20 kept lines → 16, akka 14 → 6). A heuristic, chosen on
those logs and this repository's pytest fixture; with it the 81 logs keep what they kept before
under the bound."""
FOLLOWERS = 3
FOLLOW_SPAN = 12
FOLLOW_CHARS = 1_200
"""A signal block the request asked for takes with it the next ``FOLLOWERS`` signal blocks
within ``FOLLOW_SPAN`` units after it, as long as they hold ``FOLLOW_CHARS`` together: a failing
test's header names the test, and the few lines that say how it failed (``E KeyError:
'carol'``) come a few blocks later and carry no request word. A step header that a general
request ("why did the build fail?") matches does not take the step's first long blocks with it:
the step's last lines, which say how it failed, go first as they would without it (on the 81
labelled CI logs under ``--fit codex``, followers without a size bound took google/auto's
compiler errors from 20 kept lines to 1)."""


def fill_order(result: Plan) -> list[int]:
    """The units a bound keeps first: the end of a log (its tail); then the signal blocks that
    name the failure (the failing step's header, first and last lines, the summaries), then the
    other signal blocks, each group latest first (a log's failure summary is near its end) but
    the blocks the request scored at or above the threshold the cut was made at first, best
    first, each with the few signal blocks that follow it (:data:`FOLLOWERS`; a request that
    names one of three failing tests keeps that test's report before the other two); then every
    other unit by score, best first (unscored ones count as 0.5; earlier before later on ties):
    a unit that only mentions the request's topic never goes before a log's failure. Units
    relevance dropped are not candidates."""
    dropped = set(result.dropped)
    scores = result.scores or [None] * len(result.units)
    pinned = sorted(result.pinned, reverse=True)
    end = [i for i in pinned if i >= pinned[0] - 1] if pinned else []
    bar = result.stats.threshold if result.stats.threshold is not None else 0.0
    order = list(end)
    first = set(order)

    def take(i: int) -> None:
        if i not in first:
            order.append(i)
            first.add(i)

    named = lines.first_kept(result.text) if result.line_numbers else set()  # the failing step, summaries
    asked_all = [i for i in pinned if (s := scores[i]) is not None and s >= bar and i not in first]
    singled = asked_all if len(asked_all) <= ASKED_MAX else []
    for group in ([i for i in pinned if i in named], [i for i in pinned if i not in named]):
        asked = [i for i in group if i in singled]
        asked.sort(key=lambda i: (-(scores[i] or 0.0), i))
        for i in asked:
            take(i)
            taken = size = 0
            for j in range(i + 1, min(len(result.units), i + 1 + FOLLOW_SPAN)):
                if j not in result.pinned:
                    continue
                size += result.units[j].end - result.units[j].start
                if size > FOLLOW_CHARS:
                    break
                take(j)
                taken += 1
                if taken == FOLLOWERS:
                    break
        for i in group:
            take(i)
    rest = [i for i in range(len(result.units)) if i not in dropped and i not in result.pinned]
    if result.ends and result.stats.split == "listing":
        # a listing kept whole for a request that compares entries: the units holding the asked
        # extremes first (the largest file, the newest), whatever the words
        ranks = compare.fill_keys([result.text[result.units[i].start : result.units[i].end] for i in rest], result.ends)
        rank = dict(zip(rest, ranks))
        rest.sort(key=lambda i: (rank[i], i))
        return order + rest
    rest.sort(key=lambda i: (-(0.5 if (score := scores[i]) is None else score), i))
    return order + rest


def fill(result: Plan, options: Options) -> Plan:
    """Fill the bound (``--max-chars``/``--max-lines``/``--fit``) with the best units: keep the
    longest prefix of :func:`fill_order` whose whole output (header and markers included) fits,
    then any later unit that still fits. Budget drops are marked and restorable like relevance
    drops; when the output already fits, the relevance outcome stands. A relevance cut that
    saved too little (``below_floor``) would pass the whole input through: it is that whole
    input which must fit, or be filled like any other."""
    if not over(result, options, whole=result.outcome != "ok"):
        return result
    units = result.units
    result.dropped_by_relevance = list(result.dropped)
    order = fill_order(result)
    if result.line_numbers:  # blocks pinned only for repeated signal lines give way first (their markers count them)
        repeated = repeats.repeats(result.text)
        order = [i for i in order if i not in repeated] + [i for i in order if i in repeated]

    relevance = set(result.dropped_by_relevance)
    limit = OMITTED_MAX_CHARS

    def keep(kept: set[int]) -> bool:
        result.dropped = [i for i in range(len(units)) if i not in kept]
        result.runs = runs(units, result.dropped, limit)
        result.budget_drops = len(set(result.dropped) - relevance)  # the header counts them: measured with it
        return not over(result, options)

    if not keep(set()):  # markers of at most 20,000 chars alone are over the bound (a log of megabytes)
        limit = 0  # one marker per stretch: omitted then asks for a narrower range of it

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
    kept_chars = result.rendered_chars([PLACEHOLDER_ID], options.omitted_command)
    result.stats.ratio = (len(result.text) - kept_chars) / len(result.text)
    result.outcome = "ok"
    return result

"""Decisions: the gates an input passes before any scoring, the structure rules that adjust
scores, which units are dropped, how dropped units group into runs (one marker each), and the
net gate (a pruned output must be clearly smaller than its input)."""

from __future__ import annotations

from collections.abc import Sequence

from toolprune.core.models import Options
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


def links(result: Plan, scores: list[float | None], threshold: float) -> list[float | None]:
    """Scores after the structure rules: a code block, list or table scores at least as much as
    the paragraph that introduces it; a kept unit keeps that paragraph, its heading (and that
    heading's heading, and the introduction's headings) and its own section's opening paragraph
    (the ``**Command line:**`` line under a setting's heading, when only a later paragraph of the
    section matched), which then score at least the threshold. Linear: each head is raised once."""
    if not result.heads:
        return scores
    out = list(scores)
    for i, intro in enumerate(result.intros):
        if intro >= 0 and (own := out[i]) is not None and (led := out[intro]) is not None and led > own:
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
                start = result.heads[start]
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


def net_gate(result: Plan, options: Options) -> Plan:
    text = result.whole()
    pruned_chars = result.rendered_chars(result.placeholder_ids(), options.omitted_command)
    result.stats.ratio = (len(text) - pruned_chars) / len(text)
    result.outcome = "below_floor" if result.stats.ratio < MIN_REDUCTION else "ok"
    return result

"""``_pruned``: what a JSON output says about the containers pruned in it.

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

The whole ``_pruned`` stays under 1,000 chars: the arrays saving least are left whole until it
fits (``decisions.bound_meta``).
"""

from __future__ import annotations

from collections.abc import Sequence

from toolprune.core.shapes.records import Target

LIST_MAX_DROPPED = 32
"""Up to this many dropped elements are listed one by one; more are given as ranges."""
MAX_RANGES = 40
META_MAX_CHARS = 1_000
OMITTED_MAX_CHARS = 20_000
PLACEHOLDER_ID = "P" + "9" * 12


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

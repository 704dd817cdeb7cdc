"""What ``_pruned`` says (``core/shapes/meta``) at its boundaries: the marker item of an MCP
content array, runs and ranges that each fit one ``omitted`` call (an element and its separator,
plus the enclosing bracket), the 32-drop listing limit and the 40-range limit."""

from __future__ import annotations

import json

import pytest

from toolprune.core.jsonscan import scan
from toolprune.core.shapes import meta
from toolprune.core.shapes.meta import LIST_MAX_DROPPED, MAX_RANGES, OMITTED_MAX_CHARS
from toolprune.core.shapes.records import Target


def target(sizes: list[int], dropped: list[int]) -> Target:
    """An array whose element ``i`` is ``sizes[i]`` chars of raw JSON (a string literal)."""
    text = json.dumps(["a" * (n - 2) for n in sizes])
    node = scan(text, 1)
    assert node is not None
    t = Target(node, node.segments(text), ("list",))
    assert [e - s for s, e in t.elements] == sizes
    t.dropped = dropped
    t.record_id = "P000000000007"
    return t


def test_constants():
    assert (LIST_MAX_DROPPED, MAX_RANGES, meta.META_MAX_CHARS, OMITTED_MAX_CHARS) == (32, 40, 1000, 20_000)
    assert meta.PLACEHOLDER_ID == "P999999999999"


@pytest.mark.parametrize(
    "lang, a, b, expected",
    [
        ("en", 3, 3, "［… item 3 dropped (1 item, 1,234 chars): toolprune omitted P1 3 3 …］"),
        ("en", 3, 7, "［… items 3–7 dropped (5 items, 1,234 chars): toolprune omitted P1 3 7 …］"),
        ("en", 0, 1999, "［… items 0–1999 dropped (2,000 items, 1,234 chars): toolprune omitted P1 0 1999 …］"),
        ("ja", 3, 3, "［… 項目 3・1 項目・1,234 字を省略: toolprune omitted P1 3 3 …］"),
        ("ja", 3, 7, "［… 項目 3〜7・5 項目・1,234 字を省略: toolprune omitted P1 3 7 …］"),
    ],
)
def test_marker_item(lang, a, b, expected):
    assert meta.marker_item(lang, "toolprune omitted P1", a, b, 1234) == expected


def test_note():
    assert meta.note("en", "tp omitted") == (
        "Elements unrelated to the request were dropped. Get them back verbatim with: tp omitted <id> <from> <to>"
    )
    assert meta.note("ja", "tp omitted") == (
        "リクエストに関係のない要素を省略しました。省略した要素は tp omitted <id> <from> <to> で逐語のまま読めます"
    )


# Three dropped elements of 3 chars: each takes 4 with its separator, and the brackets 1 more, so
# two of them fit in 9 chars and not in 8.
@pytest.mark.parametrize("limit, expected", [(9, [(0, 1), (2, 2)]), (8, [(0, 0), (1, 1), (2, 2)]),
                                             (13, [(0, 2)]), (12, [(0, 1), (2, 2)])])
def test_runs_fit_one_call_each(limit, expected):
    assert meta.runs_of(target([3, 3, 3, 3], [0, 1, 2]), limit) == expected


def test_runs_break_at_a_kept_element_whatever_the_room():
    assert meta.runs_of(target([3] * 6, [0, 1, 3, 4, 5])) == [(0, 1), (3, 5)]


@pytest.mark.parametrize("limit, expected", [(9, [[0, 2], [4, 4]]), (8, [[0, 0], [2, 2], [4, 4]]),
                                             (13, [[0, 4]]), (12, [[0, 2], [4, 4]])])
def test_listed_ranges_fit_one_call_each_and_may_span_kept_elements(limit, expected):
    assert meta.listed_ranges(target([3] * 5, [0, 2, 4]), limit) == expected


def test_listed_ranges_count_the_separator_of_every_element():
    # 5 + 1 and 5 + 1 and the bracket: 13 chars for two 5-char elements
    assert meta.listed_ranges(target([5, 3, 5], [0, 2]), 13) == [[0, 2]]
    assert meta.listed_ranges(target([5, 3, 5], [0, 2]), 12) == [[0, 0], [2, 2]]


def test_exactly_40_runs_are_exact_ranges():
    dropped = list(range(0, 80, 2))  # 40 runs of one element
    ranges, exact = meta.compact_ranges(target([3] * 80, dropped))
    assert exact is True and ranges == [[i, i] for i in dropped]


def test_past_40_runs_the_closest_runs_share_a_range():
    # 41 runs: gaps of 2 kept elements everywhere, but of 1 before the last run
    dropped = [i * 3 for i in range(40)] + [119]
    ranges, exact = meta.compact_ranges(target([3] * 120, dropped))
    assert exact is False and len(ranges) == MAX_RANGES
    assert ranges[-1] == [117, 119] and ranges[:-1] == [[i * 3, i * 3] for i in range(39)]


def test_on_equal_gaps_the_first_runs_are_merged():
    dropped = [i * 3 for i in range(42)]
    ranges, exact = meta.compact_ranges(target([3] * 126, dropped))
    assert exact is False and ranges[:2] == [[0, 6]] + [[9, 9]] and len(ranges) == MAX_RANGES


@pytest.mark.parametrize("n, split", [(40, True), (41, False)])
def test_runs_split_for_the_limit_only_while_that_fits_40_ranges(n, split):
    t = target([10_000] * n, list(range(n)))  # no two fit in one call
    ranges, exact = meta.compact_ranges(t)
    assert exact is True
    assert ranges == ([[i, i] for i in range(n)] if split else [[0, n - 1]])


@pytest.mark.parametrize("n", [LIST_MAX_DROPPED, LIST_MAX_DROPPED + 1])
def test_up_to_32_drops_are_listed_and_more_are_ranges(n):
    t = target([3] * 40, list(range(n)))
    entry = meta.entry(t, "tp omitted")
    if n <= LIST_MAX_DROPPED:
        assert entry == {"id": "P000000000007", "total": 40, "dropped": list(range(n)), "ranges": [[0, n - 1]]}
    else:
        assert entry == {"id": "P000000000007", "total": 40, "kept": 40 - n, "ranges": [[0, n - 1]],
                         "omitted": "tp omitted P000000000007 <from> <to>"}


def test_an_inexact_entry_says_so():
    t = target([3] * 130, [i * 3 for i in range(42)])
    entry = meta.entry(t, "tp omitted")
    assert entry["exact"] is False and list(entry) == ["id", "total", "kept", "ranges", "exact", "omitted"]

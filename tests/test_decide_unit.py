"""The decision rules of ``core/decide.py`` on hand-built plans: each bound tested on both sides.

The pipeline's tests reach these rules through real documents, where one rule's effect is often
hidden by another's; here a plan is built unit by unit (its text, spans, headings and
introductions) and each rule is called alone, so that moving a bound by one character, one unit
or one hundredth of a score turns a test red.
"""

from __future__ import annotations

import pytest

from toolprune.core import decide
from toolprune.core.decide import (
    BESIDE_STRONG,
    FAR_CHARS,
    FAR_MIN_CHARS,
    HEADING_CHARS,
    INTRO_UNITS_MAX,
    ISLAND_CHARS,
    ISLAND_SCORE,
    SHORT_SECTION,
    _needed_until,
    far,
    language,
    links,
    net_gate,
    runs,
    tidy_runs,
)
from toolprune.core.models import PLACEHOLDER_ID, Options, Stats
from toolprune.core.plans import Plan
from toolprune.core.record import OMITTED_MAX_CHARS
from toolprune.core.text import Unit

T = 0.2  # the threshold of every test below unless it says otherwise


def make(parts: list[str], heads: list[int] | None = None, intros: list[int] | None = None, split: str = "markdown",
         sep: str = "\n\n") -> Plan:
    """A plan whose units are ``parts`` joined by ``sep`` (no heads given: none, every unit -1)."""
    text = sep.join(parts)
    plan = Plan("ok", Stats(split=split), text)
    pos = 0
    for part in parts:
        plan.units.append(Unit(pos, pos + len(part)))
        pos += len(part) + len(sep)
    plan.heads = [-1] * len(parts) if heads is None else heads
    plan.intros = [-1] * len(parts) if intros is None else intros
    return plan


# -- language ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("basis", "lang", "expected"), [
    ("why does it fail?", "auto", "en"),
    ("なぜ失敗するのか", "auto", "ja"),
    ("なぜ失敗するのか", "en", "en"),
    ("why does it fail?", "ja", "ja"),
    ("なぜ", "", "ja"),
])
def test_language_follows_the_request_unless_told(basis: str, lang: str, expected: str) -> None:
    assert language(basis, lang) == expected


# -- links: introductions ------------------------------------------------------------------------


def test_links_without_headings_leaves_the_scores_alone() -> None:
    plan = make(["a", "b"], heads=[], intros=[])
    scores = [0.5, 0.0]
    assert links(plan, scores, T) is scores


def _introduced(blocks: int) -> Plan:
    return make(["The options are:"] + [f"```\nblock {k}\n```" for k in range(blocks)],
                intros=[-1] + [0] * blocks)


def test_a_block_scores_what_its_introduction_does_up_to_four_blocks() -> None:
    plan = _introduced(INTRO_UNITS_MAX)
    out = links(plan, [0.5] + [0.1] * INTRO_UNITS_MAX, T)
    assert out[1:] == [0.5] * INTRO_UNITS_MAX


def test_a_lead_in_to_more_blocks_lifts_none_of_them() -> None:
    plan = _introduced(INTRO_UNITS_MAX + 1)
    out = links(plan, [0.5] + [0.1] * (INTRO_UNITS_MAX + 1), T)
    assert out[1:] == [0.1] * (INTRO_UNITS_MAX + 1)


def test_the_parts_of_one_long_block_count_as_one_block() -> None:
    # one block cut in six parts: the first part is introduced, the others are headed by it
    parts = ["Here is the whole configuration:"] + [f"    line {k}" for k in range(6)]
    plan = make(parts, heads=[-1, -1] + [1] * 5, intros=[-1] + [0] * 6)
    out = links(plan, [0.5] + [0.0] * 6, T)
    assert out[1:] == [0.5] * 6


def test_a_block_never_scores_less_than_its_own_score() -> None:
    plan = _introduced(2)
    out = links(plan, [0.3, 0.7, None], T)
    assert out[1] == 0.7
    assert out[2] is None  # not scored: left as it is


def test_an_unscored_introduction_lifts_nothing() -> None:
    plan = _introduced(1)
    assert links(plan, [None, 0.1], T) == [None, 0.1]


def test_a_kept_block_keeps_its_introduction_at_the_threshold() -> None:
    plan = _introduced(1)
    assert links(plan, [0.05, 0.5], T) == [T, 0.5]
    assert links(plan, [0.05, T], T) == [T, T]  # kept at exactly the threshold
    assert links(plan, [0.05, 0.19], T) == [0.05, 0.19]  # a dropped block keeps nothing
    assert links(plan, [0.3, 0.5], T) == [0.3, 0.5]  # an introduction already kept keeps its score


# -- links: entries and headings ---------------------------------------------------------------


def test_an_entry_scores_a_share_of_its_head_passed_down_in_order() -> None:
    plan = make(["-x, --extra", "first paragraph", "second paragraph"], heads=[-1, 0, 1], split="man")
    plan.entry_share = 0.2
    out = links(plan, [1.0, 0.0, 0.0], 0.5)  # a threshold nothing here reaches but the head
    assert out[1] == pytest.approx(0.2)
    assert out[2] == pytest.approx(0.04)  # a share of what its head scores after the rule
    plan.entry_share = 0.0
    assert links(plan, [1.0, 0.0, 0.0], 0.5)[1:] == [0.0, 0.0]


def test_an_entry_under_an_unscored_head_keeps_its_score() -> None:
    plan = make(["head", "entry"], heads=[-1, 0], split="man")
    plan.entry_share = 0.2
    assert links(plan, [None, 0.05], 0.5) == [None, 0.05]
    assert links(plan, [1.0, None], 0.5) == [1.0, None]


def test_a_kept_unit_keeps_every_heading_above_it() -> None:
    plan = make(["# Top", "## Middle", "the answer"], heads=[-1, 0, 1])
    assert links(plan, [0.0, 0.0, 0.5], T) == [T, T, 0.5]
    assert links(plan, [0.6, 0.0, 0.5], T) == [0.6, T, 0.5]  # a kept heading keeps its own score
    assert links(plan, [None, 0.0, 0.5], T) == [None, T, 0.5]


def test_a_kept_block_keeps_its_introductions_headings() -> None:
    # the block hangs off the introduction only (no heading of its own)
    plan = make(["# Top", "## Middle", "Use this:", "```\nrun()\n```"], heads=[-1, 0, 1, -1], intros=[-1, -1, -1, 2])
    assert links(plan, [0.0, 0.0, 0.0, 0.5], T) == [T, T, T, 0.5]


def test_a_kept_row_keeps_its_tables_lead_in() -> None:
    plan = make(["The ports are:", "| name | port |", "| web | 80 |"], heads=[-1, -1, 1], intros=[-1, 0, -1])
    assert links(plan, [0.0, 0.0, 0.5], T) == [T, T, 0.5]
    assert links(plan, [None, 0.0, 0.5], T) == [None, T, 0.5]


# -- links: a short section's opening paragraph ------------------------------------------------


def _section(last_chars: int) -> Plan:
    """A heading, its opening paragraph, a later paragraph (the match) and a filler paragraph
    whose length sets the section's length."""
    parts = ["## timeout", "**Command line:** `--timeout`", "the match", ""]
    fixed = sum(map(len, parts[:3])) + 3 * 2
    parts[3] = "x" * (last_chars - fixed)
    return make(parts, heads=[-1, 0, 0, 0], intros=[-1, 0, -1, -1])


def test_a_short_sections_opening_paragraph_is_kept_with_a_later_match() -> None:
    plan = _section(SHORT_SECTION)
    assert plan.units[3].end - plan.units[0].start == SHORT_SECTION
    assert links(plan, [0.0, 0.0, 0.5, 0.0], T)[1] == T


def test_a_longer_sections_opening_paragraph_is_not() -> None:
    plan = _section(SHORT_SECTION + 1)
    assert links(plan, [0.0, 0.0, 0.5, 0.0], T)[1] == 0.0


def test_the_opening_paragraph_itself_matching_raises_nothing_more() -> None:
    plan = _section(100)
    assert links(plan, [0.0, 0.5, 0.0, 0.0], T) == [T, 0.5, 0.0, 0.0]


def test_an_opening_paragraph_not_led_by_the_heading_is_not_raised() -> None:
    plan = _section(100)
    plan.intros = [-1, -1, -1, -1]
    assert links(plan, [0.0, 0.0, 0.5, 0.0], T)[1] == 0.0


def test_a_sections_length_counts_its_subsections() -> None:
    parts = ["## Settings", "**Command line:** `--all`", "### Detail", "y" * SHORT_SECTION]
    plan = make(parts, heads=[-1, 0, 0, 2], intros=[-1, 0, -1, -1])
    assert links(plan, [0.0, 0.0, 0.5, 0.0], T)[1] == 0.0  # the subsection makes the section long
    plan = make(parts[:3] + ["y"], heads=[-1, 0, 0, 2], intros=[-1, 0, -1, -1])
    assert links(plan, [0.0, 0.0, 0.5, 0.0], T)[1] == T


def test_an_unscored_opening_paragraph_stays_unscored() -> None:
    plan = _section(100)
    assert links(plan, [0.0, None, 0.5, 0.0], T)[1] is None


# -- links: the oldest commit --------------------------------------------------------------------


def test_the_oldest_commit_is_kept_and_noted() -> None:
    plan = make(["commit b", "commit a"], heads=[-1, -1], split="gitlog")
    plan.oldest = [1]
    assert links(plan, [0.5, 0.0], T) == [0.5, T]
    assert plan.beside == {1}
    plan = make(["commit b", "commit a"], heads=[-1, -1], split="gitlog")
    plan.oldest = [1]
    assert links(plan, [0.5, 0.3], T) == [0.5, 0.3]  # already kept: neither raised nor noted
    assert plan.beside == set()


# -- the release heading beside a strong match (changelogs) -------------------------------------


def _changelog(second_heading: str = "## 1.9") -> Plan:
    parts = ["## 2.0", "Drop support for Python 3.7.", second_heading, "Fix a crash.", "## 1.8", "Initial."]
    plan = make(parts, heads=[-1, 0, -1, 2, -1, 4], split="changelog")
    plan.versions = [0, 2, 4]
    return plan


def test_a_strong_match_keeps_the_next_release_heading() -> None:
    plan = _changelog()
    out = links(plan, [0.0, BESIDE_STRONG * T, 0.0, 0.0, 0.0, 0.0], T)
    assert out[2] == T
    assert plan.beside == {2}
    assert out[4] == 0.0  # only the one after


def test_a_match_under_the_strong_bound_keeps_no_neighbour() -> None:
    plan = _changelog()
    out = links(plan, [0.0, BESIDE_STRONG * T - 0.001, 0.0, 0.0, 0.0, 0.0], T)
    assert out[2] == 0.0
    assert plan.beside == set()


def test_a_release_heading_merged_with_its_notes_is_not_raised() -> None:
    long_heading = "## 1.9\n" + "n" * (HEADING_CHARS - 7)
    plan = _changelog(long_heading)
    assert plan.units[2].end - plan.units[2].start == HEADING_CHARS
    assert links(plan, [0.0, 0.5, 0.0, 0.0, 0.0, 0.0], T)[2] == T
    plan = _changelog(long_heading + "n")
    assert links(plan, [0.0, 0.5, 0.0, 0.0, 0.0, 0.0], T)[2] == 0.0


def test_the_last_release_has_no_neighbour_and_a_match_outside_releases_none() -> None:
    plan = _changelog()
    out = links(plan, [0.0, 0.0, 0.0, 0.0, 0.0, 0.5], T)  # the oldest release's notes
    assert plan.beside == set()
    assert out[:4] == [0.0] * 4
    plan = make(["Intro", "## 2.0", "notes"], heads=[-1, -1, 1], split="changelog")
    plan.versions = [1]
    assert links(plan, [0.5, 0.0, 0.0], T) == [0.5, 0.0, 0.0]  # the intro is under no release


def test_a_deeper_match_finds_its_release_and_a_kept_neighbour_is_left() -> None:
    parts = ["## 2.0", "### Removed", "Drop Python 3.7.", "## 1.9", "Fix."]
    plan = make(parts, heads=[-1, 0, 1, -1, 3], split="changelog")
    plan.versions = [0, 3]
    assert links(plan, [0.0, 0.0, 0.5, 0.0, 0.0], T)[3] == T
    plan = make(parts, heads=[-1, 0, 1, -1, 3], split="changelog")
    plan.versions = [0, 3]
    assert links(plan, [0.0, 0.0, 0.5, 0.3, 0.0], T)[3] == 0.3
    assert plan.beside == set()


# -- far -----------------------------------------------------------------------------------------


def _far_doc(gap_after: int, weak: float = 0.25, strong: float = 0.5, total: int = FAR_MIN_CHARS,
             split: str = "markdown", weak_head: int = -1) -> tuple[Plan, list[float | None]]:
    """A strong unit at the start, a weak one ``gap_after`` characters after its end, filler to
    ``total`` characters. Units: 0 strong, 1 gap filler, 2 weak, 3 tail filler."""
    strong_text = "s" * 100
    gap = "g" * (gap_after - 4)  # two separators of two characters
    weak_text = "w" * 100
    used = len(strong_text) + len(gap) + len(weak_text) + 3 * 2
    tail = "t" * max(1, total - used)
    plan = make([strong_text, gap, weak_text, tail], heads=[-1, -1, weak_head, -1], split=split)
    return plan, [strong, 0.0, weak, 0.0]


def test_a_weak_unit_past_the_far_distance_is_far() -> None:
    plan, scores = _far_doc(FAR_CHARS + 1)
    assert plan.units[2].start - plan.units[0].end == FAR_CHARS + 1
    assert far(plan, scores, T) == {2}


def test_a_weak_unit_at_the_far_distance_is_not() -> None:
    plan, scores = _far_doc(FAR_CHARS)
    assert far(plan, scores, T) == set()


def test_far_before_a_strong_unit_too() -> None:
    for gap, expected in ((FAR_CHARS + 1, {0}), (FAR_CHARS, set())):
        weak, filler, strong = "w" * 100, "g" * (gap - 4), "s" * 100
        plan = make([weak, filler, strong, "t" * FAR_MIN_CHARS], split="rst")
        assert plan.units[2].start - plan.units[0].end == gap
        assert far(plan, [0.25, 0.0, 0.5, 0.0], T) == expected


@pytest.mark.parametrize(("weak", "expected"), [(T, {2}), (T - 0.001, set()), (0.2699, {2}), (0.27, set())])
def test_far_takes_only_the_band_from_the_threshold_to_the_weak_bound(weak: float, expected: set[int]) -> None:
    plan, scores = _far_doc(FAR_CHARS + 500, weak=weak)
    assert far(plan, scores, T) == expected


def test_the_weak_bound_is_a_multiple_of_a_low_threshold() -> None:
    plan, scores = _far_doc(FAR_CHARS + 500, weak=0.134)
    assert far(plan, scores, 0.1) == {2}  # under 1.35 x 0.1
    plan, scores = _far_doc(FAR_CHARS + 500, weak=0.136)
    assert far(plan, scores, 0.1) == set()


def test_far_is_off_from_the_weak_bounds_cap_up() -> None:
    plan, scores = _far_doc(FAR_CHARS + 500, weak=0.265, strong=0.9)
    assert far(plan, scores, 0.26) == {2}
    assert far(plan, scores, 0.27) == set()


def test_far_needs_a_strong_unit() -> None:
    plan, scores = _far_doc(FAR_CHARS + 500, strong=2 * T - 0.001)
    assert far(plan, scores, T) == set()
    plan, scores = _far_doc(FAR_CHARS + 500, strong=2 * T)
    assert far(plan, scores, T) == {2}


def test_far_needs_a_long_document_of_a_document_kind() -> None:
    plan, scores = _far_doc(FAR_CHARS + 500, total=FAR_MIN_CHARS)
    assert len(plan.text) == FAR_MIN_CHARS
    assert far(plan, scores, T) == {2}
    plan, scores = _far_doc(FAR_CHARS + 500, total=FAR_MIN_CHARS - 1)
    assert len(plan.text) == FAR_MIN_CHARS - 1
    assert far(plan, scores, T) == set()
    plan, scores = _far_doc(FAR_CHARS + 500, split="listing")
    assert far(plan, scores, T) == set()
    plan, scores = _far_doc(FAR_CHARS + 500)
    plan.heads = []
    assert far(plan, scores, T) == set()


def test_a_weak_unit_in_a_strong_units_section_is_never_far() -> None:
    parts = ["## Pool", "s" * 100, "g" * 4000, "w" * 100, "t" * 6000]
    strong_in_section = [0.0, 0.5, 0.0, 0.25, 0.0]
    plan = make(parts, heads=[-1, 0, 0, 0, -1])
    assert far(plan, strong_in_section, T) == set()  # the same heading as the strong unit
    plan = make(parts, heads=[-1, 0, 0, -1, -1])
    assert far(plan, strong_in_section, T) == {3}  # no heading is not a section
    plan = make(["# The strong heading", "g" * 4000, "w" * 100, "t" * 6000], heads=[-1, 0, 0, -1])
    assert far(plan, [0.5, 0.0, 0.25, 0.0], T) == set()  # under the strong unit itself
    plan = make(["s" * 100, "g" * 4000, "## Weak heading", "t" * 6000], heads=[-1, -1, -1, 2])
    assert far(plan, [0.5, 0.0, 0.25, 0.0], T) == {2}


def test_a_weak_unit_between_two_strong_neighbourhoods_is_far_only_outside_both() -> None:
    strong, weak = "s" * 100, "w" * 100
    parts = [strong, "g" * (FAR_CHARS + 500), weak, "h" * (FAR_CHARS + 500), strong, "t" * 4000]
    plan = make(parts)
    assert far(plan, [0.5, 0.0, 0.25, 0.0, 0.5, 0.0], T) == {2}
    parts[3] = "h" * 1000  # now within the second strong unit's reach
    plan = make(parts)
    assert far(plan, [0.5, 0.0, 0.25, 0.0, 0.5, 0.0], T) == set()


def test_unscored_units_are_never_far() -> None:
    plan, scores = _far_doc(FAR_CHARS + 500)
    scores[2] = None
    assert far(plan, scores, T) == set()


# -- runs ----------------------------------------------------------------------------------------


def test_runs_join_consecutive_dropped_units_up_to_the_omitted_limit() -> None:
    units = [Unit(0, 10), Unit(12, 20), Unit(22, 30), Unit(32, 40)]
    assert runs(units, [0, 1, 3]) == [(0, 1), (3, 3)]
    assert runs(units, [0, 1, 2], limit=30) == [(0, 2)]  # 30 characters from the first's start
    assert runs(units, [0, 1, 2], limit=29) == [(0, 1), (2, 2)]
    assert runs(units, [0, 1, 2], limit=0) == [(0, 2)]  # no limit
    assert runs(units, []) == []


# -- tidy_runs: runs no longer than their marker -------------------------------------------------


def _prefix() -> str:
    return f"toolprune omitted {PLACEHOLDER_ID}"


def _with_runs(plan: Plan, scores: list[float | None], dropped: list[int]) -> Plan:
    plan.scores = scores
    plan.dropped = dropped
    plan.runs = runs(plan.units, dropped)
    return plan


def test_a_run_no_longer_than_its_marker_is_kept() -> None:
    size = 1
    for _ in range(5):  # the marker's length names the run's length: find the run as long as its marker
        size = len(make(["kept", "x" * size])._marker(_prefix(), 1, 1))
    marker_chars = size
    assert len(make(["kept", "x" * size])._marker(_prefix(), 1, 1)) == size
    for size, short in ((marker_chars, True), (marker_chars + 1, False)):
        plan = _with_runs(make(["kept", "x" * size, "kept"], split="man"), [0.5, 0.0, 0.5], [1])
        tidy_runs(plan, T, "toolprune omitted")
        assert (plan.short == {1}) is short
        assert plan.dropped == ([] if short else [1])
        assert plan.runs == ([] if short else [(1, 1)])


# -- tidy_runs: islands ----------------------------------------------------------------------------


def _island(gap_chars: int, gap_score: float | None = 0.25, split: str = "markdown", big: int = 300) -> Plan:
    """Dropped run, a kept stretch of ``gap_chars`` characters (one unit), dropped run."""
    parts = ["a" * big, "k" * gap_chars, "b" * big, "end"]
    plan = make(parts, split=split)
    return _with_runs(plan, [0.0, gap_score, 0.0, 0.9], [0, 2])


def test_a_short_weak_island_between_two_runs_is_dropped_with_them() -> None:
    plan = _island(ISLAND_CHARS)
    tidy_runs(plan, T, "toolprune omitted")
    assert plan.islands == {1}
    assert plan.runs == [(0, 2)]
    assert plan.dropped == [0, 1, 2]


def test_a_longer_island_is_kept() -> None:
    plan = _island(ISLAND_CHARS + 1)
    tidy_runs(plan, T, "toolprune omitted")
    assert plan.islands == set()
    assert plan.runs == [(0, 0), (2, 2)]


@pytest.mark.parametrize(("score", "joined"),
                         [(ISLAND_SCORE * T - 0.001, True), (ISLAND_SCORE * T, False), (None, False)])
def test_an_island_is_only_a_weak_scored_match(score: float | None, joined: bool) -> None:
    plan = _island(50, gap_score=score)
    tidy_runs(plan, T, "toolprune omitted")
    assert (plan.islands == {1}) is joined


@pytest.mark.parametrize(("split", "attribute", "value"), [
    ("man", None, None),  # a man page's short kept stretch is an option entry
    ("markdown", "heads", []),  # plain paragraphs
    ("markdown", "pinned", {1}),
    ("markdown", "rows", {1}),  # a table row
    ("markdown", "beside", {1}),  # a kept neighbour heading
])
def test_what_is_never_an_island(split: str, attribute: str | None, value: object) -> None:
    plan = _island(50, split=split)
    if attribute is not None:
        setattr(plan, attribute, value)
    tidy_runs(plan, T, "toolprune omitted")
    assert plan.islands == set()


def test_an_island_that_a_later_kept_unit_needs_is_kept() -> None:
    plan = _island(50)
    plan.heads = [-1, -1, -1, 1]  # the kept unit after the second run is headed by the island
    tidy_runs(plan, T, "toolprune omitted")
    assert plan.islands == set()


def test_an_island_is_not_joined_past_the_omitted_limit() -> None:
    big = (OMITTED_MAX_CHARS - 50 - 2 * 2) // 2
    plan = _island(50, big=big)
    span = plan.units[2].end - plan.units[0].start
    assert span <= OMITTED_MAX_CHARS
    tidy_runs(plan, T, "toolprune omitted")
    assert plan.islands == {1}
    plan = _island(50, big=big + (OMITTED_MAX_CHARS - span) // 2 + 1)
    assert plan.units[2].end - plan.units[0].start > OMITTED_MAX_CHARS
    tidy_runs(plan, T, "toolprune omitted")
    assert plan.islands == set()


def test_a_short_run_inside_an_island_goes_with_it() -> None:
    # dropped, kept, a one-character dropped unit (shorter than a marker), kept, dropped
    parts = ["a" * 300, "k" * 20, "x", "k" * 20, "b" * 300, "end"]
    plan = _with_runs(make(parts), [0.0, 0.25, 0.0, 0.25, 0.0, 0.9], [0, 2, 4])
    tidy_runs(plan, T, "toolprune omitted")
    assert plan.short == set()
    assert plan.islands == {1, 2, 3}
    assert plan.runs == [(0, 4)]


def test_nothing_changes_when_nothing_is_short_and_no_island_forms() -> None:
    plan = _island(ISLAND_CHARS + 1)
    before = list(plan.dropped)
    tidy_runs(plan, T, "toolprune omitted")
    assert plan.dropped is not None and plan.dropped == before


# -- _needed_until ---------------------------------------------------------------------------------


def test_needed_until_names_the_last_kept_unit_that_needs_each_unit() -> None:
    # 0 heading, 1 opening, 2 intro, 3 block (kept), 4 paragraph (kept), 5 dropped
    plan = make(["# H", "opening", "intro:", "block", "para", "other"],
                heads=[-1, 0, 0, 0, 0, -1], intros=[-1, 0, -1, 2, -1, -1])
    plan.dropped = [5]
    until = _needed_until(plan)
    assert until[0] == 4  # the heading: needed by the last kept unit under it
    assert until[1] == 4  # the section's opening paragraph
    assert until[2] == 3  # the introduction of the block
    assert until[3] == -1 and until[4] == -1 and until[5] == -1


def test_needed_until_a_unit_right_after_its_heading_needs_no_opening() -> None:
    plan = make(["# H", "para"], heads=[-1, 0])
    plan.dropped = []
    assert _needed_until(plan) == [1, -1]


# -- net gate --------------------------------------------------------------------------------------


def _gate_plan() -> Plan:
    plan = make(["keep " * 20, "drop " * 200, "keep " * 20])
    return _with_runs(plan, [0.5, 0.0, 0.5], [1])


def test_the_net_gate_passes_a_cut_of_at_least_the_floor(monkeypatch: pytest.MonkeyPatch) -> None:
    ratio = net_gate(_gate_plan(), Options("b")).stats.ratio
    assert ratio is not None and 0 < ratio < 1
    monkeypatch.setattr(decide, "MIN_REDUCTION", ratio)
    assert net_gate(_gate_plan(), Options("b")).outcome == "ok"
    monkeypatch.setattr(decide, "MIN_REDUCTION", ratio + 1e-9)
    assert net_gate(_gate_plan(), Options("b")).outcome == "below_floor"


def test_the_net_gate_counts_the_markers() -> None:
    plan = net_gate(_gate_plan(), Options("b"))
    rendered = plan.render(plan.placeholder_ids(), Options("b").omitted_command)
    assert plan.stats.ratio == pytest.approx((len(plan.text) - len(rendered)) / len(plan.text))


# -- bounds the mutation run found untested -------------------------------------------------------


def test_a_merged_neighbour_heading_skips_only_its_own_release() -> None:
    merged = "## 1.9\n" + "n" * HEADING_CHARS
    parts = ["## 2.0", "Drop Python 3.7.", merged, "## 1.8", "Drop Python 3.6.", "## 1.7", "Fix."]
    plan = make(parts, heads=[-1, 0, -1, -1, 3, -1, 5], split="changelog")
    plan.versions = [0, 2, 3, 5]
    out = links(plan, [0.0, 0.5, 0.0, 0.0, 0.5, 0.0, 0.0], T)
    assert out[2] == 0.0  # merged with its notes: not raised
    assert out[5] == T  # the next strong section still keeps its neighbour
    assert plan.beside == {5}


def test_a_neighbour_heading_at_the_threshold_or_unscored_is_left_alone() -> None:
    plan = _changelog()
    assert links(plan, [0.0, 0.5, T, 0.0, 0.0, 0.0], T)[2] == T
    assert plan.beside == set()
    plan = _changelog()
    assert links(plan, [0.0, 0.5, None, 0.0, 0.0, 0.0], T)[2] is None
    assert plan.beside == set()


def test_needed_until_keeps_the_opening_only_for_a_later_paragraph() -> None:
    plan = make(["# H", "opening", "para"], heads=[-1, 0, 0])  # the unit two after its heading
    plan.dropped = []
    assert _needed_until(plan) == [2, 2, -1]
    plan = make(["a", "b", "c"])  # no headings: nothing needs anything
    plan.dropped = []
    assert _needed_until(plan) == [-1, -1, -1]


def test_an_island_after_a_kept_start_is_measured_from_its_first_run() -> None:
    big = (OMITTED_MAX_CHARS - 50 - 2 * 2) // 2
    parts = ["kept start", "a" * big, "k" * 50, "b" * big, "end"]
    plan = _with_runs(make(parts), [0.9, 0.0, 0.25, 0.0, 0.9], [1, 3])
    assert plan.units[3].end - plan.units[1].start <= OMITTED_MAX_CHARS
    tidy_runs(plan, T, "toolprune omitted")
    assert plan.islands == {2}


def test_an_island_joins_runs_of_exactly_the_omitted_limit() -> None:
    gap = 50
    big = (OMITTED_MAX_CHARS - gap - 2 * 2) // 2
    rest = OMITTED_MAX_CHARS - gap - 2 * 2 - 2 * big
    parts = ["a" * big, "k" * gap, "b" * (big + rest), "end"]
    plan = _with_runs(make(parts), [0.0, 0.25, 0.0, 0.9], [0, 2])
    assert plan.units[2].end - plan.units[0].start == OMITTED_MAX_CHARS
    tidy_runs(plan, T, "toolprune omitted")
    assert plan.islands == {1}
    parts[2] += "b"
    plan = _with_runs(make(parts), [0.0, 0.25, 0.0, 0.9], [0, 2])
    tidy_runs(plan, T, "toolprune omitted")
    assert plan.islands == set()


def test_the_oldest_commit_at_the_threshold_is_not_noted() -> None:
    plan = make(["commit b", "commit a"], heads=[-1, -1], split="gitlog")
    plan.oldest = [1]
    assert links(plan, [0.5, T], T) == [0.5, T]
    assert plan.beside == set()


def test_a_sections_length_counts_a_subheadings_reach_whatever_the_order() -> None:
    # the opening paragraph heads the long last unit: the section of the top heading ends there
    parts = ["## Settings", "**Command line:** `--all`", "the match", "z" * SHORT_SECTION]
    plan = make(parts, heads=[-1, 0, 0, 1], intros=[-1, 0, -1, -1])
    assert links(plan, [0.0, 0.0, 0.5, 0.0], T)[1] == 0.0

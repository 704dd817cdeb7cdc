"""core/budget.py on plans built by hand: where each bound starts to bite (to the character, line
and byte, with and without the envelope's room), the order a bound keeps units in, and what a
fill leaves in the plan's counts."""

from __future__ import annotations

import pytest

from toolprune.core import budget
from toolprune.core.budget import ENVELOPE_RESERVE, fill, fill_order, over
from toolprune.core.decide import runs
from toolprune.core.models import PLACEHOLDER_ID, Options, Stats
from toolprune.core.plans import Plan
from toolprune.core.text import Unit

PARAGRAPH = "word " * 59 + "end."  # 299 characters


def plan_of(paragraphs: list[str], scores: list[float | None] | None = None, outcome: str = "ok") -> Plan:
    text = "\n\n".join(paragraphs)
    plan = Plan(outcome, Stats(raw_bytes=len(text.encode())), text=text)
    pos = 0
    for p in paragraphs:
        plan.units.append(Unit(pos, pos + len(p)))
        pos += len(p) + 2
    plan.scores = list(scores) if scores is not None else [0.5] * len(paragraphs)
    plan.stats.threshold = 0.2
    plan.stats.raw_chars = len(text)
    return plan


def options(**bounds) -> Options:
    return Options(basis="anything at all here", **bounds)


# --- over(): where each bound starts to bite -------------------------------------------------


def test_a_char_bound_bites_one_char_past_the_text():
    plan = plan_of([PARAGRAPH] * 3)
    n = len(plan.text)
    assert not over(plan, options(max_chars=n), whole=True)
    assert over(plan, options(max_chars=n - 1), whole=True)


def test_the_envelope_room_counts_chars_for_chars_and_bytes_for_bytes():
    plan = plan_of([PARAGRAPH] * 3)
    n = len(plan.text)
    wide = options(max_chars=n + 100, envelope=True)
    wide.envelope_room = (100, 300)  # a label of non-ASCII characters: more bytes than characters
    assert not over(plan, wide, whole=True)
    wide.max_chars = n + 99
    assert over(plan, wide, whole=True)
    by_bytes = options(max_bytes=n + 300, envelope=True)
    by_bytes.envelope_room = (100, 300)
    assert not over(plan, by_bytes, whole=True)
    by_bytes.max_bytes = n + 299
    assert over(plan, by_bytes, whole=True)


def test_without_a_known_room_the_envelope_reserves_the_default():
    plan = plan_of([PARAGRAPH] * 3)
    n = len(plan.text)
    assert not over(plan, options(max_chars=n + ENVELOPE_RESERVE, envelope=True), whole=True)
    assert over(plan, options(max_chars=n + ENVELOPE_RESERVE - 1, envelope=True), whole=True)
    assert not over(plan, options(max_bytes=n + ENVELOPE_RESERVE, envelope=True), whole=True)
    assert over(plan, options(max_bytes=n + ENVELOPE_RESERVE - 1, envelope=True), whole=True)


def test_without_the_envelope_nothing_is_reserved():
    plan = plan_of([PARAGRAPH] * 3)
    n = len(plan.text)
    assert not over(plan, options(max_chars=n), whole=True)
    assert not over(plan, options(max_bytes=n), whole=True)
    assert over(plan, options(max_bytes=n - 1), whole=True)


def test_a_line_bound_counts_the_header_line_of_the_envelope():
    plan = plan_of([PARAGRAPH] * 3)  # 5 lines (two blank)
    assert not over(plan, options(max_lines=5), whole=True)
    assert over(plan, options(max_lines=4), whole=True)
    assert not over(plan, options(max_lines=6, envelope=True), whole=True)
    assert over(plan, options(max_lines=5, envelope=True), whole=True)


def test_a_pruned_plan_is_measured_as_rendered_with_its_markers():
    plan = plan_of([PARAGRAPH] * 3)
    plan.dropped = [1]
    plan.runs = runs(plan.units, plan.dropped)
    rendered = plan.render([PLACEHOLDER_ID], "toolprune omitted")
    assert not over(plan, options(max_chars=len(rendered)))
    assert over(plan, options(max_chars=len(rendered) - 1))
    assert over(plan, options(max_chars=len(rendered)), whole=True) == (len(plan.text) > len(rendered))
    lines = rendered.count("\n") + 1
    assert not over(plan, options(max_lines=lines)) and over(plan, options(max_lines=lines - 1))
    size = len(rendered.encode())
    assert not over(plan, options(max_bytes=size)) and over(plan, options(max_bytes=size - 1))


# --- fill_order(): what a bound keeps first --------------------------------------------------


def test_the_order_is_tail_then_asked_failures_then_other_signal_blocks_then_the_rest():
    scores = [0.3, 0.9, 0.6, 0.0, 0.0, 0.0, 0.0, 0.0, None, 0.1, 0.1]
    plan = plan_of([PARAGRAPH] * 11, scores=scores)
    plan.pinned = {0, 2, 3, 4, 5, 6, 9, 10}  # 9 and 10 are the tail (the last pinned and the one before it)
    plan.dropped = [7]  # dropped by relevance: never a candidate
    plan.stats.threshold = 0.25
    # the tail 10, 9; the pinned blocks asked for, best first, each with up to three signal blocks
    # after it: 2 with 3, 4, 5; 0 (1 is no signal block, 2 to 4 are in already); the other pinned
    # block 6; then the rest by score (None counts 0.5): 1, 8
    assert fill_order(plan) == [10, 9, 2, 3, 4, 5, 0, 6, 1, 8]


def test_a_request_that_matches_many_signal_blocks_does_not_reorder_them():
    scores = [0.6, 0.0, 0.7, 0.0, 0.8, 0.0, 0.9, 0.0, 0.65, 0.0, 0.1, 0.1]
    plan = plan_of([PARAGRAPH] * 12, scores=scores)
    plan.pinned = set(range(12))
    plan.stats.threshold = 0.5  # five blocks at or above it: a general request, latest first as always
    assert fill_order(plan) == list(range(11, -1, -1))
    plan.pinned = set(range(12)) - {0}  # four: they are singled out
    assert fill_order(plan)[:4] == [11, 10, 6, 7]


def test_a_unit_that_only_mentions_the_request_never_goes_before_a_failure():
    plan = plan_of([PARAGRAPH] * 6, scores=[0.9, 0.95, 0.0, 0.8, 0.0, 0.0])
    plan.pinned = {2, 5}  # a traceback the request's words are not in, and the tail
    plan.stats.threshold = 0.2
    assert fill_order(plan) == [5, 2, 1, 0, 3, 4]


def test_only_the_last_two_consecutive_pinned_blocks_are_the_tail():
    plan = plan_of([PARAGRAPH] * 6, scores=[0.0] * 6)
    plan.pinned = {1, 3, 5}  # 3 is not next to 5: not the tail
    assert fill_order(plan)[:1] == [5] and fill_order(plan)[1:3] == [3, 1]


def test_a_compared_listing_goes_by_the_asked_end_not_by_score():
    """A listing kept whole for "the smallest file" (``Plan.ends``): the unit holding the smallest
    entry first, whatever the words scored; a pinned unit is no candidate, and a document (not a
    listing) keeps its order by score."""
    entries = ["-rw-r--r-- 1 a a 900 Jan  5  2024 big", "-rw-r--r-- 1 a a 7 Jan  5  2024 small",
               "-rw-r--r-- 1 a a 50 Jan  5  2024 mid", "total 0"]  # fmt: skip
    plan = plan_of(entries, scores=[0.9, 0.1, 0.5, 0.95])
    plan.stats.split, plan.ends = "listing", ["smallest"]
    assert fill_order(plan) == [1, 2, 0, 3]  # the smallest, the next, the largest; no entries last
    plan.ends = ["largest"]
    assert fill_order(plan) == [0, 2, 1, 3]
    plan.pinned = {2}
    assert fill_order(plan) == [2, 0, 1, 3]  # the pinned tail first, as ever
    plan.pinned, plan.stats.split = set(), "markdown"
    assert fill_order(plan) == [3, 0, 2, 1]  # not a listing: by score


def test_the_rest_is_best_first_and_unscored_units_count_as_half():
    plan = plan_of([PARAGRAPH] * 4, scores=[0.1, None, 0.15, 0.6])
    plan.stats.threshold = 0.7
    assert fill_order(plan) == [3, 1, 2, 0]
    plan.stats.threshold = None
    assert fill_order(plan) == [3, 1, 2, 0]


# --- fill(): the counts it leaves ------------------------------------------------------------


def test_a_fill_keeps_the_best_that_fit_and_says_what_it_dropped():
    plan = plan_of([PARAGRAPH] * 6, scores=[0.9, 0.1, 0.8, 0.3, 0.05, 0.7])
    opts = options(max_chars=1500)
    filled = fill(plan, opts)
    assert filled.outcome == "ok" and not over(filled, opts)
    kept = [i for i in range(6) if i not in filled.dropped]
    # the best three fit (0, 2, 5), the fourth (3) does not; then 1, which between 0 and 2 costs
    # its text less the marker it spares, still fits
    assert kept == [0, 1, 2, 5]
    assert filled.budget_drops == 2 == filled.stats.budget and filled.stats.dropped == 2
    out = filled.render([PLACEHOLDER_ID], opts.omitted_command)
    assert filled.stats.ratio == pytest.approx((len(filled.text) - len(out)) / len(filled.text))


def test_a_smaller_unit_after_one_that_did_not_fit_is_still_taken():
    plan = plan_of([PARAGRAPH * 3, PARAGRAPH, PARAGRAPH], scores=[0.9, 0.8, 0.1])
    plan.dropped, plan.runs = [], []
    opts = options(max_chars=1000)
    filled = fill(plan, opts)
    kept = [i for i in range(3) if i not in filled.dropped]
    assert 0 not in kept and kept == [1, 2]  # the long best one does not fit, the two short ones do


def test_a_bound_already_kept_changes_nothing():
    plan = plan_of([PARAGRAPH] * 3, outcome="nothing_dropped")
    assert fill(plan, options(max_chars=10_000)) is plan and plan.outcome == "nothing_dropped"
    assert plan.budget_drops == 0


def test_a_passthrough_outcome_is_held_to_the_bound_as_the_whole_input():
    plan = plan_of([PARAGRAPH] * 3, outcome="below_floor")
    plan.dropped = [1]  # what relevance would have dropped: the passthrough keeps it all
    plan.runs = runs(plan.units, plan.dropped)
    n = len(plan.text)
    assert fill(plan, options(max_chars=n)).outcome == "below_floor"  # the whole input fits
    assert fill(plan, options(max_chars=n - 1)).outcome == "ok"


def test_the_work_bound_limits_the_units_tried_after_the_prefix(monkeypatch):
    plan = plan_of([PARAGRAPH * 3, PARAGRAPH, PARAGRAPH], scores=[0.9, 0.8, 0.1])
    monkeypatch.setattr(budget, "FILL_WORK", 0)  # no work left for the units after the prefix
    kept = [i for i in range(3) if i not in fill(plan, options(max_chars=1000)).dropped]
    assert kept == []


def test_a_tail_that_is_not_consecutive_is_only_the_last_block():
    plan = plan_of([PARAGRAPH] * 6, scores=[0.0, 0.9, 0.0, 0.1, 0.0, 0.1])
    plan.pinned = {1, 3, 5}
    plan.stats.threshold = 0.5
    assert fill_order(plan) == [5, 1, 3, 0, 2, 4]  # 3 is pinned but not the tail: it follows the asked 1


def test_a_signal_block_at_the_threshold_is_asked_for_and_a_zero_score_comes_last():
    plan = plan_of([PARAGRAPH] * 6, scores=[0.9, 0.25, 0.0, 0.0, 0.0, 0.0])
    plan.pinned = {1, 2, 5}
    plan.stats.threshold = 0.25
    assert fill_order(plan) == [5, 1, 2, 0, 3, 4]  # 1 is at the threshold: asked for, with 2 after it
    plan.stats.threshold = None  # every scored signal block is asked for: 0.0 is the least of them
    assert fill_order(plan) == [5, 1, 2, 0, 3, 4]


def test_in_a_log_the_blocks_that_name_the_failure_come_before_other_signal_blocks():
    from pathlib import Path

    from toolprune.core import lines, pipeline
    from toolprune.scorers.lexical import LexicalScorer

    log = (Path(__file__).parent / "golden" / "log_cidiff_commonslang" / "input.bin").read_bytes()
    plan = pipeline.plan(log, Options(basis="why did the build fail?"), LexicalScorer())
    named = lines.first_kept(plan.text)
    order = fill_order(plan)
    others = [i for i in plan.pinned if i not in named and i < max(plan.pinned) - 1]
    assert named and others
    first_other = min(order.index(i) for i in others)
    assert all(order.index(i) < first_other for i in named if i < max(plan.pinned) - 1)


def test_an_ok_plan_whose_output_fits_is_left_as_it_is_though_its_input_would_not():
    plan = plan_of([PARAGRAPH] * 6)
    plan.dropped = [1, 2, 3, 4]
    plan.runs = runs(plan.units, plan.dropped)
    out = plan.rendered_chars([PLACEHOLDER_ID], "toolprune omitted")
    assert out + 350 < len(plan.text)
    filled = fill(plan, options(max_chars=out + 350))  # room for one more paragraph: not taken back
    assert filled.dropped == [1, 2, 3, 4] and filled.budget_drops == 0


def test_at_most_64_units_are_tried_one_by_one_after_the_prefix():
    plan = plan_of([PARAGRAPH * 40] + ["short paragraph number %03d" % i + " x" * 30 for i in range(80)],
                   scores=[0.9] + [0.5] * 80)
    filled = fill(plan, options(max_chars=9000))  # 80 short ones would fit, the long one does not
    kept = [i for i in range(81) if i not in filled.dropped]
    assert kept == list(range(1, 64))  # 64 tries: the long best one (which does not fit), then 63 short ones


def test_the_work_bound_counts_whole_renderings(monkeypatch):
    plan = plan_of([PARAGRAPH * 5, PARAGRAPH, PARAGRAPH, PARAGRAPH], scores=[0.9, 0.8, 0.7, 0.6])
    monkeypatch.setattr(budget, "FILL_WORK", 2 * len(plan.text) + 1)  # two renderings' worth: two tries
    kept = [i for i in range(4) if i not in fill(plan, options(max_chars=1200)).dropped]
    assert kept == [1]  # tried: the big one (no), then 1 (yes); 2 and 3 would fit but are not tried


def test_the_filled_output_is_measured_with_the_words_its_header_will_have():
    """The header of a bounded output ends "(N of them only to fit the output limit)": a fill
    that measured it without those words ran up to 41 chars past the bound."""
    for limit in range(700, 3000, 3):
        plan = plan_of([PARAGRAPH] * 12, scores=[0.9, 0.1, 0.8, 0.2, 0.7, 0.3, 0.6, 0.4, 0.5, 0.45, 0.35, 0.25])
        filled = fill(plan, options(max_chars=limit))
        if filled.dropped != list(range(12)):  # not everything given up
            assert filled.rendered_chars([PLACEHOLDER_ID], "toolprune omitted") <= limit, limit


def test_the_blocks_that_follow_an_asked_one_lie_within_twelve_units():
    scores = [0.9] + [0.0] * 20
    plan = plan_of([PARAGRAPH] * 21, scores=scores)
    plan.pinned = {0, 5, 12, 13, 15, 20}
    plan.stats.threshold = 0.5
    # 0 takes 5 and 12 (unit 12 is the last within reach); 13 and 15 are out of it: latest first
    assert fill_order(plan)[:6] == [20, 0, 5, 12, 15, 13]


def test_the_blocks_that_follow_an_asked_one_hold_1200_chars_at_most():
    plan = plan_of([PARAGRAPH, "x" * 600, "y" * 600, "z" * 600, PARAGRAPH, PARAGRAPH, PARAGRAPH, PARAGRAPH, PARAGRAPH],
                   scores=[0.9] + [0.0] * 8)
    plan.pinned = {0, 1, 2, 3, 5, 8}
    plan.stats.threshold = 0.5
    # 1 and 2 make exactly 1,200 chars and go with 0; 3 would make 1,800: it waits its turn
    assert fill_order(plan) == [8, 0, 1, 2, 5, 3, 4, 6, 7]

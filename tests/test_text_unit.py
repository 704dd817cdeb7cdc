"""``core/text.py`` at its boundary: ``Unit`` and ``split_text`` on the edges of every rule (fence
closing, CRLF, the 6,000-char fixed limit, the 120-char merge threshold and the merge cap)."""

from __future__ import annotations

import pytest

from toolprune.core.text import FIXED_CHARS, MERGE_BELOW, Unit, split_text


def spans(doc: str) -> list[tuple[int, int, bool]]:
    return [(u.start, u.end, u.fixed) for u in split_text(doc)]


def texts(doc: str) -> list[str]:
    return [doc[u.start : u.end] for u in split_text(doc)]


P = "p" * 200  # never merged, never fixed


# -- Unit ----------------------------------------------------------------------------------------


def test_unit_equality_compares_start_end_and_fixed_and_only_with_units():
    assert Unit(1, 5) == Unit(1, 5, False)
    assert Unit(1, 5) != Unit(1, 6)
    assert Unit(1, 5) != Unit(0, 5)
    assert Unit(1, 5) != Unit(1, 5, True)
    assert Unit(1, 5) != (1, 5, False)
    assert Unit(1, 5) != "Unit(1, 5, fixed=False)"


def test_unit_repr_and_chars():
    assert repr(Unit(3, 10, True)) == "Unit(3, 10, fixed=True)"
    assert Unit(3, 10).chars == 7
    assert Unit(4, 4).fixed is False


# -- fences --------------------------------------------------------------------------------------


@pytest.mark.parametrize("indent", ["", " ", "  ", "   "])
def test_a_fence_closed_by_a_line_indented_up_to_three_spaces(indent):
    fence = f"```\n{P}\n\n{P}\n{indent}```"
    doc = f"{fence}\n\n{P}z"
    assert texts(doc) == [fence, f"{P}z"]


def test_a_line_indented_four_spaces_does_not_close_a_fence():
    doc = f"```\n{P}\n    ```\n\n{P}z\n```\n\n{P}y"
    assert texts(doc) == [f"```\n{P}\n    ```\n\n{P}z\n```", f"{P}y"]


def test_a_fence_closes_only_with_its_own_character_and_at_least_its_length():
    body = f"````\n{P}\n\n```\n~~~~\n\n{P}\n````"  # ``` is too short, ~~~~ the other kind
    assert texts(f"{body}\n\n{P}z") == [body, f"{P}z"]
    tilde = f"~~~\n{P}\n\n```\n\n{P}\n~~~~~"  # a longer closing fence of the same kind closes
    assert texts(f"{tilde}\n\n{P}z") == [tilde, f"{P}z"]


def test_a_closing_fence_line_holds_nothing_but_fence_characters():
    doc = f"```\n{P}\n\n``` not a close\n\n{P}\n```"
    assert texts(doc) == [doc]


def test_a_fence_that_closes_at_the_end_of_a_text_ending_in_a_line_break():
    # the text after the closing fence is one line break: no empty unit after it
    doc = "```\n" + P + "\n```\n"
    assert spans(doc) == [(0, len(doc) - 1, False)]
    doc = "```\r\n" + P + "\r\n```\r\n"
    assert spans(doc) == [(0, len(doc) - 2, False)]


def test_a_paragraph_followed_by_a_blank_last_line_gives_no_empty_unit():
    doc = f"{P}a\n \n"
    assert spans(doc) == [(0, len(P) + 1, False)]


def test_inline_backticks_and_tildes():
    # three backticks with a backtick later on the line are inline code; tildes never are
    assert texts(f"```a` {P}\n\n{P}z") == [f"```a` {P}", f"{P}z"]
    doc = f"~~~a~ {P}\n\n{P}z"
    assert texts(doc) == [doc]


def test_an_unclosed_fence_keeps_the_line_ending_of_its_last_line_outside():
    doc = f"{P}a\n\n```\n{P}\r\n\r\n"
    assert texts(doc) == [f"{P}a", f"```\n{P}"]
    doc = f"{P}a\n\n```\n{P}"  # no line break at all after it
    assert texts(doc) == [f"{P}a", f"```\n{P}"]


def test_crlf_paragraphs_end_before_the_carriage_return():
    doc = f"{P}a\r\n\r\n{P}b\r"
    assert texts(doc) == [f"{P}a", f"{P}b"]


def test_empty_and_blank_texts_have_no_units():
    assert split_text("") == []
    assert split_text("\n\n \n") == []
    assert split_text("\r\n") == []


# -- fixed units and merges ----------------------------------------------------------------------


def test_the_fixed_limit_is_strictly_over_6000_chars():
    at = "f" * FIXED_CHARS
    over = "f" * (FIXED_CHARS + 1)
    assert spans(f"{at}\n\n{P}") == [(0, FIXED_CHARS, False), (FIXED_CHARS + 2, FIXED_CHARS + 2 + len(P), False)]
    assert spans(f"{over}\n\n{P}")[0] == (0, FIXED_CHARS + 1, True)


def test_a_single_small_unit_stays_a_unit():
    assert spans("hello") == [(0, 5, False)]
    assert spans("\n\nhello\n") == [(2, 7, False)]


def test_a_small_unit_merges_forward_up_to_exactly_6000_chars():
    small = "s" * (MERGE_BELOW - 1)
    # small + "\n\n" + next = exactly FIXED_CHARS: merged
    nxt = "n" * (FIXED_CHARS - len(small) - 2)
    assert spans(f"{small}\n\n{nxt}") == [(0, FIXED_CHARS, False)]
    # one more char: not merged, both stay
    nxt += "n"
    assert spans(f"{small}\n\n{nxt}") == [(0, len(small), False), (len(small) + 2, FIXED_CHARS + 1, False)]


def test_the_forward_merge_measures_from_where_the_small_unit_starts():
    # the small unit starts late in the text: the cap counts from its start, not from 0
    lead = "l" * 3000
    small = "s" * 50
    nxt = "n" * (FIXED_CHARS - len(small) - 2)  # small + next is exactly 6,000 chars
    doc = f"{lead}\n\n{small}\n\n{nxt}"
    start = len(lead) + 2
    assert spans(doc) == [(0, len(lead), False), (start, start + FIXED_CHARS, False)]


def test_a_small_last_unit_merges_backward_up_to_exactly_6000_chars():
    small = "s" * (MERGE_BELOW - 1)
    prev = "p" * (FIXED_CHARS - len(small) - 2)
    assert spans(f"{prev}\n\n{small}") == [(0, FIXED_CHARS, False)]
    prev += "p"
    assert spans(f"{prev}\n\n{small}") == [(0, len(prev), False), (len(prev) + 2, len(prev) + 2 + len(small), False)]


def test_the_backward_merge_measures_from_where_the_previous_unit_starts():
    lead = "l" * 3000
    prev = "p" * (FIXED_CHARS - 50 - 2)
    small = "s" * 50
    doc = f"{lead}\n\n{prev}\n\n{small}"
    start = len(lead) + 2
    assert spans(doc) == [(0, len(lead), False), (start, start + FIXED_CHARS, False)]


def test_a_small_last_unit_merges_into_the_last_unit_not_the_second():
    doc = f"{P}a\n\n{P}b\n\n{P}c\n\nend"
    assert texts(doc) == [f"{P}a", f"{P}b", f"{P}c\n\nend"]


def test_a_small_last_unit_after_a_fixed_unit_stays_alone():
    big = "b" * (FIXED_CHARS + 1)
    doc = f"{P}a\n\n{big}\n\nend"
    assert spans(doc) == [
        (0, len(P) + 1, False),
        (len(P) + 3, len(P) + 3 + len(big), True),
        (len(doc) - 3, len(doc), False),
    ]


def test_a_small_unit_before_a_fixed_unit_stays_alone_and_the_fixed_unit_stays_fixed():
    big = "b" * (FIXED_CHARS + 1)
    doc = f"tiny\n\n{big}\n\n{P}"
    assert spans(doc) == [(0, 4, False), (6, 6 + len(big), True), (8 + len(big), len(doc), False)]


def test_merged_units_are_never_fixed_and_chain_merges_stop_at_a_unit_of_120():
    doc = "a\n\nb\n\nc\n\n" + "x" * MERGE_BELOW + "\n\nd"
    # a merges into b (still small: pending again), into c, into the 120-char unit; d merges back
    assert spans(doc) == [(0, len(doc), False)]

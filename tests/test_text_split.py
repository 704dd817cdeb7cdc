"""Splitting text into units: fences, blank lines, fixed units, merges, numbering."""

from __future__ import annotations

from toolprune.core.text import FIXED_CHARS, MERGE_BELOW, split_text


def texts(doc: str) -> list[str]:
    return [doc[u.start : u.end] for u in split_text(doc)]


P = "x" * 200  # a paragraph long enough not to be merged


def test_blank_lines_split_and_whitespace_only_lines_count_as_blank():
    doc = f"{P}a\n\n{P}b\n  \t\n{P}c\n\n\n\n{P}d"
    assert texts(doc) == [f"{P}a", f"{P}b", f"{P}c", f"{P}d"]


def test_units_exclude_line_breaks_so_separators_stay_outside():
    doc = f"\n\n{P}a\r\n\r\n{P}b\r\n"
    units = split_text(doc)
    assert [doc[u.start : u.end] for u in units] == [f"{P}a", f"{P}b"]
    assert doc[units[0].end : units[1].start] == "\r\n\r\n"


def test_fenced_block_is_one_unit_even_with_blank_lines_inside():
    fence = "```sh\n" + "echo one\n\n\necho two\n" * 10 + "```"
    doc = f"{P}a\n\n{fence}\n\n{P}b"
    assert texts(doc) == [f"{P}a", fence, f"{P}b"]


def test_fence_adjacent_to_text_is_its_own_unit():
    fence = "~~~\n" + "code line\n\n" * 15 + "~~~"
    doc = f"{P}a\n{fence}\n{P}b"
    assert texts(doc) == [f"{P}a", fence, f"{P}b"]


def test_a_title_underlined_with_tildes_is_not_a_fence():
    """reStructuredText underlines titles with tildes too; read as a fence that never closes, the
    underline made the rest of a document one unit."""
    doc = f"Custom Ping\n~~~~~~~~~~~\n\n{P}a\n\n{P}b"
    assert texts(doc) == [f"Custom Ping\n~~~~~~~~~~~\n\n{P}a", f"{P}b"]
    crlf = f"Usage\r\n~~~~~\r\n\r\n{P}a"
    assert texts(crlf) == [f"Usage\r\n~~~~~\r\n\r\n{P}a"]
    # shorter than the line above, or under a paragraph of more lines: a fence, as in Markdown
    assert texts(f"{P}a\n~~~\ncode\n\n{P}c\n~~~") == [f"{P}a", f"~~~\ncode\n\n{P}c\n~~~"]
    assert texts(f"{P}\ntwo\n~~~~~\ncode\n\n{P}\n~~~~~") == [f"{P}\ntwo", f"~~~~~\ncode\n\n{P}\n~~~~~"]


def test_a_title_underlined_with_backticks_is_not_a_fence():
    """pybreaker's README underlines its sections with backticks; read as fences they paired with
    each other, and "Event Listening" through "What Does a Circuit Breaker Do?" was one block."""
    doc = f"Event Listening\n```````````````\n\n{P}a\n\nExcluding Exceptions\n````````````````````\n\n{P}b"
    assert texts(doc) == [f"Event Listening\n```````````````\n\n{P}a", f"Excluding Exceptions\n"
                          f"````````````````````\n\n{P}b"]
    # Markdown: a fence under a longer line, or under a title of three characters, is a fence
    from toolprune.core.text import _blocks

    nested = f"{P}\n\nUse:\n````\n```python\nx = 1\n```\n````\n\n## Configuration\n\n{P}"
    assert [nested[a:b] for a, b, _, _ in _blocks(nested)][-1] == f"{P}"  # the nested fence closes: a fence
    for title, fence in (("foo();", "```"), ("tox", "```"), ("Title", "`````py")):
        doc = f"{title}\n{fence}\ncode\n\n{P}c\n{fence[:5]}"
        assert [doc[a:b] for a, b, _, _ in _blocks(doc)] == [title, doc[len(title) + 1 :]]


def test_unclosed_fence_runs_to_the_end():
    doc = f"{P}a\n\n```\n{P}\n\n{P}\n"
    assert texts(doc) == [f"{P}a", f"```\n{P}\n\n{P}"]


def test_inline_triple_backticks_do_not_open_a_fence():
    doc = f"use ```code``` here {P}\n\n{P}b"
    assert texts(doc) == [f"use ```code``` here {P}", f"{P}b"]


def test_unit_over_6000_chars_is_fixed_and_never_merged():
    big = "y" * (FIXED_CHARS + 1)
    doc = f"short\n\n{big}\n\n{P}"
    units = split_text(doc)
    assert [(doc[u.start : u.end], u.fixed) for u in units] == [("short", False), (big, True), (P, False)]


def test_small_units_merge_into_the_next_at_start_and_middle():
    doc = f"title\n\n{P}a\n\nmid one\n\nmid two\n\n{P}b"
    assert texts(doc) == [f"title\n\n{P}a", f"mid one\n\nmid two\n\n{P}b"]


def test_small_last_unit_merges_into_the_previous():
    doc = f"{P}a\n\n{P}b\n\n-- end --"
    assert texts(doc) == [f"{P}a", f"{P}b\n\n-- end --"]


def test_merge_that_would_exceed_6000_chars_leaves_the_unit_alone():
    near = "z" * (FIXED_CHARS - 5)
    doc = f"tiny unit\n\n{near}"
    assert texts(doc) == ["tiny unit", near]


def test_unit_of_exactly_120_chars_is_not_merged():
    exact = "w" * MERGE_BELOW
    doc = f"{exact}\n\n{P}"
    assert texts(doc) == [exact, P]


def test_units_are_ordered_non_overlapping_and_cover_all_non_blank_text():
    doc = f"a\n\n{P}\n\n```\nq\n\n```\nb\n\n\n{P}\n\nc"
    units = split_text(doc)
    assert all(u.start < u.end for u in units)
    assert all(a.end <= b.start for a, b in zip(units, units[1:]))
    outside = doc[: units[0].start] + "".join(
        doc[a.end : b.start] for a, b in zip(units, units[1:])
    ) + doc[units[-1].end :]
    assert outside.strip() == ""


# The first implementation, line by line: an oracle for the regex-driven one.
def reference_blocks(text: str) -> list[tuple[int, int]]:
    import re

    from toolprune.core.text import _closes

    opener = re.compile(r" {0,3}(`{3,}|~{3,})")
    blocks, start, last_end, fence, fence_start, pos = [], -1, 0, "", 0, 0
    all_lines = text.split("\n")
    for number, line in enumerate(all_lines):
        line_start = pos
        pos += len(line) + 1
        content_end = line_start + len(line) - (1 if line.endswith("\r") else 0)
        if fence:
            last_end = content_end if line.strip() else last_end
            if _closes(line, fence):
                blocks.append((fence_start, content_end))
                fence = ""
            continue
        opening = opener.match(line)
        title = text[start:line_start].rstrip("\r\n") if start >= 0 else ""
        if (  # a single title line underlined with at least as many tildes (or backticks, under
            # a title of four characters or more, over a blank line or the end): not a fence
            opening and not line.strip(" \t\r" + opening.group(1)[0])
            and title.strip() and "\n" not in title and len(line.strip()) >= len(title.strip())
            and (opening.group(1)[0] == "~" or len(title.strip()) >= 4 and not "".join(all_lines[number + 1 : number + 2]).strip())
        ):
            opening = None
        if opening and not (opening.group(1)[0] == "`" and "`" in line[opening.end() :]):
            if start >= 0:
                blocks.append((start, last_end))
                start = -1
            fence, fence_start, last_end = opening.group(1), line_start, content_end
            continue
        if line.strip():
            if start < 0:
                start = line_start
            last_end = content_end
        elif start >= 0:
            blocks.append((start, last_end))
            start = -1
    if fence:
        blocks.append((fence_start, last_end))
    elif start >= 0:
        blocks.append((start, last_end))
    return blocks


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

LINES = st.sampled_from(
    ["text", "  indented", "", " ", "\t", "\r", "a\r", "```", "```py", "  ```", "    ```", "~~~", "````",
     "```x```", "``` `", "\x1c", "\u3000", "日本語", "~~~~ tilde", "``", "end  ", "~~~~~~", "ab", " ~~~~",
     "title", "``````", "abcd", " ````"]
)


@settings(max_examples=400, deadline=None)
@given(lines=st.lists(LINES, max_size=40), final_newline=st.booleans())
def test_blocks_match_the_line_by_line_reference(lines, final_newline):
    from toolprune.core import logtext
    from toolprune.core.text import _blocks

    text = "\n".join(lines) + ("\n" if final_newline else "")
    expected = reference_blocks(text)
    assert _blocks(text) == [(s, e, -1, -1) for s, e in expected]  # a str's blocks have no bytes
    # read from its bytes in pieces of a few characters: the same blocks, and their bytes
    saved = logtext.CHUNK, logtext.INDEX_CHUNK, logtext.PIECE
    logtext.CHUNK, logtext.INDEX_CHUNK, logtext.PIECE = 7, 5, 7
    try:
        read = _blocks(logtext.LogText(text.encode()))
    finally:
        logtext.CHUNK, logtext.INDEX_CHUNK, logtext.PIECE = saved
    assert [(s, e) for s, e, _, _ in read] == expected
    assert [(bs, be) for _, _, bs, be in read] == [(len(text[:s].encode()), len(text[:e].encode())) for s, e in expected]


def test_a_strs_events_carry_no_line_number():
    """Only a LogText's lines are numbered (to find their bytes); a str's events say -1."""
    from toolprune.core.text import _events

    events = list(_events("```\nx\r\n\r\n  \n~~~\n"))
    assert [e[0] for e in events] == [0, 7, 9, 12, 16] and {e[-1] for e in events} == {-1}
    assert [e[5] for e in events] == [False, True, True, False, False]  # the line before ends with \r
    assert [e[3] for e in events] == [3, -1, -1, 15, -1]  # where a fence marker ends


SIZED = st.sampled_from(["", "x" * 6_000, "y" * 6_001, "z" * 5_990, "w" * 119, "v" * 120, "é" * 3_000])


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(st.one_of(LINES, SIZED), max_size=30), final_newline=st.booleans())
def test_a_logtext_splits_into_the_units_of_its_str_and_each_knows_its_bytes(lines, final_newline):
    """The same units (spans, fixed, merges) whether the text is read as a str or from its bytes,
    and a LogText's units are ByteUnits whose byte spans hold exactly their text."""
    from toolprune.core import logtext
    from toolprune.core.text import ByteUnit, split_text

    text = "\n".join(lines) + ("\n" if final_newline else "")
    data = text.encode()
    units = split_text(logtext.LogText(data))
    assert units == split_text(text)
    for unit in units:
        assert type(unit) is ByteUnit and unit.fixed in (True, False)
        assert data[unit.byte_start : unit.byte_end].decode() == text[unit.start : unit.end]

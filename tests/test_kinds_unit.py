"""How ``core/kinds.py`` tells what a text is, each bound tested on both sides.

The kind decides the split (sections, entries, listing lines, records or line blocks), so a
bound that moves by one line or one character changes how a whole input is cut. Each test
builds the smallest text that sits on a bound and checks the kind on either side of it.
"""

from __future__ import annotations

import json

import pytest

from toolprune.core import kinds
from toolprune.core.kinds import (
    EMBEDDED_LOOK,
    MAN_TITLE_CHARS,
    SAMPLE_CHARS,
    json_opening,
    kind,
    sample_lines,
)


def lines(*rows: str) -> str:
    return "\n".join(rows) + "\n"


# -- what is looked at -----------------------------------------------------------------------------


def test_sample_lines_reads_crlf_as_lf_and_skips_blank_lines() -> None:
    assert sample_lines("a\r\n\r\nb\r\n  \r\nc") == ["a", "b", "c"]


def test_only_blank_lines_are_text() -> None:
    assert kind("\n\n   \n\t\n") == "text"


def test_only_a_bom_and_newlines_are_skipped_before_the_first_line() -> None:
    pydoc = "Help on module zipfile:\n\nNAME\n    zipfile\n"
    assert kind("\ufeff\n\n" + pydoc) == "pydoc"
    assert kind("XX" + pydoc) != "pydoc"


def test_json_opening_looks_only_at_the_start() -> None:
    record = '{\n  "a": 1\n}\n'
    assert json_opening("banner\n" + record) == len("banner\n")
    assert json_opening("x" * (EMBEDDED_LOOK + 100) + "\n" + record) == -1


# -- JSON-looking texts ---------------------------------------------------------------------------


def test_python_records_even_after_spaces() -> None:
    assert kind("  [{'package': 'requests', 'version': '2.31.0'}]\n") == "records"


@pytest.mark.parametrize("lead", ["\t\r\n ", "\ufeff", " \ufeff", "\ufeff \ufeff\n"])
def test_python_records_after_what_a_json_opening_passes_over(lead) -> None:
    """The rule of ``jsonshape.opens_like_json``, the reader's and the pipeline's: JSON's white
    space and byte-order marks, in any order."""
    assert kind(lead + "[{'package': 'requests', 'version': '2.31.0'}]\n") == "records"


@pytest.mark.parametrize("lead", ["\x0c", "\x0b", "\u3000"])
def test_other_white_space_opens_no_records(lead) -> None:
    """What no JSON parser passes over is no opening of JSON or of records: the text is read as
    text (str.lstrip() had passed over a form feed or an ideographic space here, and nowhere else)."""
    assert kind(lead + "[{'package': 'requests', 'version': '2.31.0'}]\n") != "records"


def test_json_lines_need_two_whole_lines() -> None:
    assert kind(lines('{"a": 1}', '{"a": 2}')) == "jsonlines"
    assert kind(lines('{"a": 1}')) == "text"  # one JSON document that did not parse as a whole: text
    assert kind(lines('{"a": 1}', '{"a": ')) == "text"  # a line that is no JSON
    assert kind(lines('{"a": 1}', "plain words")) == "text"  # a line that opens no JSON


def test_a_json_line_too_deep_for_the_parser_makes_no_json_lines() -> None:
    deep = "[" * 1100 + "]" * 1100  # valid JSON that json.loads cannot read: RecursionError, not ValueError
    assert kind(lines('{"a": 1}', '{"a": 2}', deep, '{"a": 3}')) == "text"


def test_json_lines_may_be_indented_or_arrays() -> None:
    assert kind(lines('  {"a": 1}', '  {"a": 2}')) == "jsonlines"
    assert kind(lines("[1, 2]", "[3, 4]")) == "jsonlines"


def test_json_lines_after_a_byte_order_mark() -> None:
    """A BOM before the first record opens JSON Lines as it opens JSON (it had made them lines)."""
    assert kind("\ufeff" + lines('{"a": 1}', '{"a": 2}', '{"a": 3}')) == "jsonlines"


def test_json_lines_with_half_of_them_dated_are_a_log() -> None:
    dated, plain = '{"time": "2024-01-02T10:00:00Z", "msg": "x"}', '{"msg": "y"}'
    assert kind(lines(dated, plain, plain)) == "jsonlines"  # one of three dated
    assert kind(lines(dated, plain)) == "text"  # one of two: a log's records


def test_json_lines_cut_where_the_sample_ends() -> None:
    first = json.dumps({"pad": "p" * 40_000})
    second = json.dumps({"pad": "q" * (SAMPLE_CHARS - len(first) - 1 - 11)})
    text = first + "\n" + second
    assert len(text) == SAMPLE_CHARS
    # a sample as long as the limit may end inside its last line: that line is not read
    assert kind(text) == "text"
    assert kind(text[:40_000] + "\n") != "jsonlines"  # and a short text of one line is one document


def test_a_toml_file_opening_with_a_section_after_spaces_is_config() -> None:
    toml = lines("  [build-system]", 'requires = ["setuptools"]', "[project]", 'name = "x"', "[tool.ruff]",
                 "line-length = 120", "[tool.mypy]", "strict = true")
    assert kind(toml) == "config"


# -- git log, diff, pydoc, Debian changelog --------------------------------------------------------


def _commit(author_at: int) -> str:
    """A commit whose ``Author:`` line starts ``author_at`` characters into the text."""
    top = "commit 0123456789abcdef0123456789abcdef01234567\n"
    body = "." * (author_at - len(top) - 1) + "\n"
    return top + body + "Author: A <a@example.invalid>\nDate:   Mon Nov 2 10:00:00 2026 +0000\n\n    msg\n"


def test_a_commit_needs_its_author_within_2000_characters() -> None:
    assert kind(_commit(2_000 - len("Author: "))) == "gitlog"
    assert kind(_commit(2_000 - len("Author: ") + 1)) != "gitlog"


def test_a_diff_needs_two_marks() -> None:
    assert kind(lines("--- a/setup.py", "+++ b/setup.py", " same")) == "diff"
    assert kind(lines("--- a/setup.py", "same", "other")) != "diff"


def test_a_hunk_whose_context_ends_in_a_colon_is_still_a_diff() -> None:
    # the first line reads as a caption too (it ends with a colon): it is tried first as it is
    hunk = lines("@@ -1,3 +1,4 @@ def fetch(url):", "-    return get(url)", "+    return get(url, timeout=5)",
                 "@@ -10,2 +11,2 @@ class Client:", "-    retries = 0", "+    retries = 3")
    assert kind(hunk) == "diff"


def test_a_debian_changelog_opens_with_an_entry_and_holds_two() -> None:
    entry = ("pkg ({v}) unstable; urgency=medium\n\n  * Change.\n\n"
             " -- A <a@example.invalid>  Mon, 02 Nov 2026 10:00:00 +0000\n\n")
    assert kind(entry.format(v="1.1") + entry.format(v="1.0")) == "changelog"
    assert kind(entry.format(v="1.1")) != "changelog"
    assert kind("Notes\n\n" + entry.format(v="1.1") + entry.format(v="1.0")) != "changelog"


# -- man pages by their title line or sections ------------------------------------------------------


def _title(chars: int) -> str:
    """A title line of exactly ``chars`` characters."""
    middle = chars - len("LS(1)") * 2 - 2
    return "LS(1)" + " " + "U" * middle + " " + "LS(1)"


def test_a_man_title_of_up_to_300_characters() -> None:
    body = "\n".join(f"       line {k} of prose that says nothing about sections" for k in range(20)) + "\n"
    assert len(_title(MAN_TITLE_CHARS)) == MAN_TITLE_CHARS
    assert kind(_title(MAN_TITLE_CHARS) + "\n" + body) == "man"
    assert kind(_title(MAN_TITLE_CHARS + 1) + "\n" + body) != "man"


def test_a_man_title_is_the_first_line_only() -> None:
    body = "\n".join(f"line {k} of prose" for k in range(40)) + "\n"
    assert kind("LS(1)    User Commands    LS(1)\n" + body) == "man"
    assert kind("FOO(1)\nbar BAZ(1)\n" + body) != "man"  # two lines are no title


def test_a_first_line_over_300_characters_is_no_title_even_if_it_opens_like_one() -> None:
    first = "LS(1)" + " " * 289 + "LS(1)" + "x" * 100
    body = "\n".join(f"line {k} of prose" for k in range(40)) + "\n"
    assert kind(first + "\n" + body) != "man"


def test_a_man_title_alone_without_a_newline() -> None:
    assert kind("LS(1)    User Commands    LS(1)") == "man"


def test_two_man_sections_make_a_man_page() -> None:
    assert kind(lines("NAME", "    ls - list", "SYNOPSIS", "    ls [OPTION]...")) == "man"
    assert kind(lines("NAME", "    ls - list", "About", "    ls [OPTION]...")) != "man"


# -- listings of ls -l entries (before any log mark) ------------------------------------------------

ENTRY = "\x1b[0m-rw-r--r-- 1 user group 1234 Dec  5 23:25 file{k}.txt"  # a colour code: a log mark


def _listing(entries: int, others: int, plain: int) -> str:
    rows = [ENTRY.format(k=k) for k in range(entries)]
    rows += ["total 8" if k % 2 else f"./dir{k}:" for k in range(others)]
    rows += [f"plain line {k}" for k in range(plain)]
    return lines(*rows)


@pytest.mark.parametrize(("entries", "others", "plain", "expected"), [
    (3, 6, 0, "listing"),  # a third of the lines are entries
    (2, 5, 0, "text"),  # fewer: its colour codes make it a log
    (4, 5, 1, "listing"),  # entries and listing lines are exactly 90 %
    (4, 4, 2, "text"),  # under 90 %
])
def test_ls_entries_before_the_log_marks(entries: int, others: int, plain: int, expected: str) -> None:
    assert kind(_listing(entries, others, plain)) == expected


# -- config, time stamps, tables ----------------------------------------------------------------------


def _config(keys: int, rows: int, sections: int = 3) -> str:
    out = [f"[section{k}]" for k in range(sections)]
    out += [f"key{k} = {k}" for k in range(keys)]
    out += [f'    "item {k}",' for k in range(rows - sections - keys)]
    return lines(*out)


def test_config_needs_three_sections_and_fifteen_percent_keys() -> None:
    assert kind(_config(keys=3, rows=20)) == "config"  # 3 of 20 lines
    assert kind(_config(keys=2, rows=20)) != "config"
    assert kind(_config(keys=3, rows=20, sections=2)) != "config"


def _csv(stamped: int, at: int = 0, rows: int = 10) -> str:
    out = []
    for k in range(rows):
        lead = ("x" * at + "2024-01-02 10:00") if k < stamped else ("x" * at + "item-" + "n" * 11)
        out.append(f"{lead},{k},value")
    return lines(*out)


def test_a_time_stamp_in_three_of_ten_lines_makes_a_log() -> None:
    assert kind(_csv(stamped=3)) == "text"
    assert kind(_csv(stamped=2)) == "table"


def test_a_time_stamp_counts_only_within_the_first_80_characters() -> None:
    assert kind(_csv(stamped=3, at=64)) == "text"  # ends at the 80th character
    assert kind(_csv(stamped=3, at=65)) == "table"


def _table(rows: int, matching: int, separator: str = ",", header: str | None = None) -> str:
    out = [header] if header is not None else []
    out += [separator.join(["a", "b", "c"]) for _ in range(matching - len(out))]
    out += ["no separator here"] * (rows - len(out))
    return lines(*out)


def test_a_table_needs_ten_lines() -> None:
    assert kind(_table(10, 10)) == "table"
    assert kind(_table(9, 9)) != "table"


def test_a_table_needs_nine_lines_in_ten_alike() -> None:
    assert kind(_table(10, 9)) == "table"
    assert kind(_table(10, 8)) != "table"


def test_a_table_by_semicolons() -> None:
    assert kind(_table(10, 10, ";")) == "table"


def test_a_table_counts_separators_as_its_first_line_has_them() -> None:
    assert kind(_table(10, 10, header="a,b")) != "table"  # one comma on the first line, two on the others


# -- listings: grep, ls, find ---------------------------------------------------------------------


@pytest.mark.parametrize(("row", "expected"), [
    ("src/pkg/mod{k}.py:12: import os", "listing"),  # grep -rn
    ("-rw-r--r-- file{k}", "listing"),  # a short ls line
    ("./src/pkg/file{k}.py", "listing"),  # find
])
def test_listing_lines_in_six_of_ten(row: str, expected: str) -> None:
    hits = [row.format(k=k) for k in range(6)]
    assert kind(lines(*hits, *[f"plain words number {k}" for k in range(4)])) == expected
    assert kind(lines(*hits[:5], *[f"plain words number {k}" for k in range(5)])) != expected


# -- documents: Markdown and reStructuredText ---------------------------------------------------------


def test_an_rst_title_needs_an_underline_as_long_as_it() -> None:
    titles = lines("A title", "=======", "", "text", "", "Another", "=======", "", "more")
    assert kind(titles) == "rst"
    short = lines("A longer title", "===", "", "text", "", "Another title", "===", "", "more")
    assert kind(short) != "rst"


def test_markdown_against_rst() -> None:
    directive = ".. note::\n\n   A note.\n\n"
    assert kind("# Title\n\ntext\n\n" + directive * 3) == "rst"  # one heading (2) against three directives
    assert kind("# Title\n\ntext\n\n" + directive * 2) == "markdown"  # a tie goes to Markdown
    assert kind("text\n\n" + directive * 2) == "rst"
    assert kind("text\n\n" + directive) != "rst"


# -- man and --help pages by their indentation ----------------------------------------------------------


def _indented(n: int, indented: int, headings: list[str] | None = None, usage: bool = False) -> str:
    top = list(headings) if headings is not None else ["COMMANDS"] * (n - indented)
    rows = (["usage: tool [-h]"] if usage else []) + top
    rows += ["    --option-" + "x" * 40 + str(k) for k in range(indented)]
    return lines(*rows)


def test_an_indented_page_of_20_lines_with_short_headings_is_man() -> None:
    assert kind(_indented(20, 12)) == "man"
    assert kind(_indented(19, 12)) != "man"  # 19 lines


def test_an_indented_page_needs_sixty_percent_indented() -> None:
    assert kind(_indented(20, 12)) == "man"
    assert kind(_indented(20, 11)) != "man"
    # a line at the margin that starts with an X is not indented
    assert kind(_indented(20, 11, headings=["COMMANDS"] * 8 + ["X RESOURCES"])) != "man"


def test_column0_headings_are_short_in_four_of_five() -> None:
    short = ["TOOLS", "COMMANDS", "X RESOURCES", "E" * 40, "F" * 41]  # four of five at most 40 characters
    assert kind(_indented(20, 15, headings=short)) == "man"
    long = ["TOOLS", "COMMANDS", "X RESOURCES", "F" * 41, "E" * 41]
    assert kind(_indented(20, 15, headings=long)) != "man"
    assert kinds._column0_headings(["NAME", "  " + "x" * 60, "  " + "y" * 60])
    assert not kinds._column0_headings(["    indented only"])


# -- log marks ----------------------------------------------------------------------------------------

DOC = "# CI notes\n\nSome text.\n\n## Steps\n\nMore text about steps.\n\n"


def test_a_document_that_names_log_marks_in_code_spans_is_still_a_document() -> None:
    doc = DOC + "Steps are found by `##[group]` and `::group::` lines, Maven's `[INFO] ` too.\n"
    assert kind(doc) == "markdown"


@pytest.mark.parametrize("line", [
    "##[group]Run pytest", "::group::Install", "[INFO] BUILD FAILURE", "travis_fold:start:install",
    "\x1b[31mFAILED\x1b[0m", "`code` then ##[group]Run and `more`", "[Pipeline] sh",
])
def test_a_log_mark_outside_a_code_span_makes_a_log(line: str) -> None:
    assert kind(DOC + line + "\n") == "text"

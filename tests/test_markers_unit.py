"""``core/markers.py`` at its boundary: the exact header and inline markers, in English and
Japanese, singular and plural, with thousands separators, the budget note and line spans."""

from __future__ import annotations

import pytest

from toolprune.core.markers import header, inline

CMD = "toolprune omitted P2-3fa9c1d2"


def test_english_header_plural():
    assert header("en", command=CMD, dropped=21, total=48, dropped_chars=3926, total_chars=9388) == (
        "【toolprune: 21 of 48 paragraphs (3,926 of 9,388 chars) were dropped as unrelated to the request. "
        f"Get them back verbatim: {CMD} <from> <to>】"
    )


def test_english_header_singular_total_and_default_unit():
    assert header("en", command="C", dropped=1, total=1, dropped_chars=1, total_chars=1) == (
        "【toolprune: 1 of 1 paragraph (1 of 1 chars) were dropped as unrelated to the request. "
        "Get them back verbatim: C <from> <to>】"
    )


def test_english_header_of_blocks_with_thousands_and_the_budget_note():
    text = header("en", command="C", dropped=1234, total=5678, dropped_chars=1234567, total_chars=7654321,
                  unit="block", budget=1001)
    assert text == (
        "【toolprune: 1,234 of 5,678 blocks (1,234,567 of 7,654,321 chars) were dropped as unrelated to the "
        "request (1,001 of them only to fit the output limit). Get them back verbatim: C <from> <to>】"
    )


def test_english_header_budget_of_one():
    text = header("en", command="C", dropped=2, total=3, dropped_chars=4, total_chars=5, budget=1)
    assert "(1 of them only to fit the output limit)." in text


def test_japanese_header():
    assert header("ja", command=CMD, dropped=21, total=48, dropped_chars=3926, total_chars=9388) == (
        "【関連度で段落を省略しています: 全 48 段落・9,388 字のうち 21 段落・3,926 字を省略。"
        f"省略した段落は {CMD} <from> <to> で逐語のまま読めます】"
    )


def test_japanese_header_of_blocks_with_the_budget_note():
    text = header("ja", command="C", dropped=1234, total=5678, dropped_chars=1234567, total_chars=7654321,
                  unit="block", budget=1001)
    assert text == (
        "【関連度でブロックを省略しています: 全 5,678 ブロック・7,654,321 字のうち 1,234 ブロック・1,234,567 字を省略"
        "（うち 1,001 ブロックは出力上限のため）。省略したブロックは C <from> <to> で逐語のまま読めます】"
    )


def test_english_inline_single_unit():
    assert inline("en", command=CMD, first=3, last=3, chars=1) == (
        f"［… paragraph 3 dropped (1 paragraph, 1 char): {CMD} 3 3 …］"
    )


def test_english_inline_run():
    assert inline("en", command=CMD, first=8, last=14, chars=1204) == (
        f"［… paragraphs 8–14 dropped (7 paragraphs, 1,204 chars): {CMD} 8 14 …］"
    )


def test_english_inline_blocks_with_lines_and_thousands():
    text = inline("en", command="C", first=3, last=1004, chars=1234, unit="block", lines=(10, 2000))
    assert text == "［… blocks 3–1004 (lines 10–2000) dropped (1,002 blocks, 1,234 chars): C 3 1004 …］"


def test_english_inline_single_block_with_lines():
    text = inline("en", command="C", first=5, last=5, chars=2, unit="block", lines=(7, 9))
    assert text == "［… block 5 (lines 7–9) dropped (1 block, 2 chars): C 5 5 …］"


def test_japanese_inline_single_and_run():
    assert inline("ja", command=CMD, first=3, last=3, chars=1) == f"［… 段落 3・1 段落・1 字を省略: {CMD} 3 3 …］"
    assert inline("ja", command=CMD, first=8, last=14, chars=1204) == (
        f"［… 段落 8〜14・7 段落・1,204 字を省略: {CMD} 8 14 …］"
    )


def test_japanese_inline_blocks_with_lines():
    text = inline("ja", command="C", first=3, last=1004, chars=1234, unit="block", lines=(10, 2000))
    assert text == "［… ブロック 3〜1004（行 10〜2000）・1,002 ブロック・1,234 字を省略: C 3 1004 …］"


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_no_line_span_when_lines_is_none_or_empty(lang):
    for lines in (None, ()):
        text = inline(lang, command="C", first=1, last=2, chars=3, lines=lines)
        assert "lines" not in text and "行" not in text


@pytest.mark.parametrize(("count", "said"), [(1, "1 more line like this"), (2, "2 more lines like this"),
                                             (1_234, "1,234 more lines like this")])
def test_a_line_block_marker_names_the_lines_like_one_kept_above(count, said):
    marker = inline("en", command="toolprune omitted P1-x", first=3, last=5, chars=900, unit="block",
                    lines=(10, 20), like=(count, "ERROR: disk full"))
    assert marker.endswith(f'; {said}: "ERROR: disk full"): toolprune omitted P1-x 3 5 …］'), marker

"""Header and inline markers (SPEC §5), in English or Japanese."""

from __future__ import annotations


def _n(value: int) -> str:
    return f"{value:,}"


def _plural(count: int, word: str) -> str:
    return f"{_n(count)} {word}" if count == 1 else f"{_n(count)} {word}s"


def header(lang: str, *, command: str, dropped: int, total: int, dropped_chars: int, total_chars: int) -> str:
    """The line at the top of pruned text. ``command`` is e.g. ``toolprune omitted P2``."""
    if lang == "ja":
        return (
            f"【関連度で段落を省略しています: 全 {_n(total)} 段落・{_n(total_chars)} 字のうち "
            f"{_n(dropped)} 段落・{_n(dropped_chars)} 字を省略。"
            f"省略した段落は {command} <from> <to> で逐語のまま読めます】"
        )
    return (
        f"【toolprune: {_n(dropped)} of {_plural(total, 'paragraph')} "
        f"({_n(dropped_chars)} of {_n(total_chars)} chars) were dropped as unrelated to the request. "
        f"Get them back verbatim: {command} <from> <to>】"
    )


def inline(lang: str, *, command: str, first: int, last: int, chars: int) -> str:
    """The marker that stands in for dropped units ``first..last`` (inclusive)."""
    count = last - first + 1
    cmd = f"{command} {first} {last}"
    if lang == "ja":
        where = f"段落 {first}" if first == last else f"段落 {first}〜{last}"
        return f"［… {where}・{_n(count)} 段落・{_n(chars)} 字を省略: {cmd} …］"
    where = f"paragraph {first}" if first == last else f"paragraphs {first}–{last}"
    return f"［… {where} dropped ({_plural(count, 'paragraph')}, {_plural(chars, 'char')}): {cmd} …］"

"""Header and inline markers, in English or Japanese."""

from __future__ import annotations


def _n(value: int) -> str:
    return f"{value:,}"


def _plural(count: int, word: str) -> str:
    return f"{_n(count)} {word}" if count == 1 else f"{_n(count)} {word}s"


_JA_UNIT = {"paragraph": "段落", "block": "ブロック", "row": "行", "record": "レコード", "element": "要素"}


def header(
    lang: str,
    *,
    command: str,
    dropped: int,
    total: int,
    dropped_chars: int,
    total_chars: int,
    unit: str = "paragraph",
    budget: int = 0,
) -> str:
    """The line at the top of pruned text. ``command`` is e.g. ``toolprune omitted P2-3fa9c1d2``;
    ``unit`` is "paragraph", "block" (line blocks of a log), "row" (a table's) or "record"
    (JSON Lines'); ``budget`` counts the units
    dropped only to fit ``--max-chars``/``--max-lines``."""
    if lang == "ja":
        word = _JA_UNIT[unit]
        only = bool(budget) and budget == dropped  # nothing judged by the request (none given, or it kept all)
        how = "出力上限のため" if only else f"関連度で{word}を"
        why = f"（うち {_n(budget)} {word}は出力上限のため）" if budget and not only else ""
        return (
            f"【{how}省略しています: 全 {_n(total)} {word}・{_n(total_chars)} 字のうち "
            f"{_n(dropped)} {word}・{_n(dropped_chars)} 字を省略{why}。"
            f"省略した{word}は {command} <from> <to> で逐語のまま読めます】"
        )
    if not budget:
        why = " as unrelated to the request"
    elif budget == dropped:  # nothing judged by the request (none given, or it kept all)
        why = " only to fit the output limit"
    else:
        why = f" as unrelated to the request ({_n(budget)} of them only to fit the output limit)"
    return (
        f"【toolprune: {_n(dropped)} of {_plural(total, unit)} "
        f"({_n(dropped_chars)} of {_n(total_chars)} chars) were dropped{why}. "
        f"Get them back verbatim: {command} <from> <to>】"
    )


def inline(
    lang: str,
    *,
    command: str,
    first: int,
    last: int,
    chars: int,
    unit: str = "paragraph",
    lines: tuple[int, int] | None = None,
    like: tuple[int, str] | None = None,
) -> str:
    """The marker that stands in for dropped units ``first..last`` (inclusive); for line blocks
    ``lines`` gives the first and last line number they cover, and ``like`` how many of their
    lines repeat a line kept above, and that line (quoted)."""
    count = last - first + 1
    cmd = f"{command} {first} {last}"
    if lang == "ja":
        word = _JA_UNIT[unit]
        where = f"{word} {first}" if first == last else f"{word} {first}〜{last}"
        if lines:
            where += f"（行 {lines[0]}〜{lines[1]}）"
        same = f"・同じような行があと {_n(like[0])} 行:「{like[1]}」" if like else ""
        return f"［… {where}・{_n(count)} {word}・{_n(chars)} 字を省略{same}: {cmd} …］"
    where = f"{unit} {first}" if first == last else f"{unit}s {first}–{last}"
    if lines:
        where += f" (lines {lines[0]}–{lines[1]})"
    same = f"; {_n(like[0])} more {'line' if like[0] == 1 else 'lines'} like this: \"{like[1]}\"" if like else ""
    return f"［… {where} dropped ({_plural(count, unit)}, {_plural(chars, 'char')}{same}): {cmd} …］"

"""Katakana loanwords in a Japanese request, met by the English words they were borrowed from.

A Japanese request over English output writes the output's own words in katakana: インデックス
for "index", デッドロック for "deadlock", トランザクション for "transaction". The glossary
(``scorers/glossary.py``) lists the common ones; this finds the rest in the output itself. Both
sides are reduced to a consonant skeleton, the sounds Japanese keeps when it borrows a word:
vowels go (Japanese adds them between consonants, English spells them many ways), and so do an
English "r" that is not pronounced ("server" is サーバー) and a doubled consonant (ッ). Sounds
Japanese does not tell apart are merged: l and r, v and b, s, z, sh, ch and th, j and soft g.

    インデックス  → n d k s  ← index      (x is k s)
    フォーマット  → f m t    ← format     (r before a consonant or at the end is silent)
    トランザクション → t r n s k s n ← transaction (ti before a vowel is sh)

A skeleton of three consonants or more names few words, so only those are used; the glossary
covers the short, frequent ones (キャッシュ, ページ). Nothing here is a list of words: the
rules are spelling, written from how loanwords are formed, not from any evaluation case.
"""

from __future__ import annotations

import re

_SKELETON = {}
for _chars, _sound in (
    ("アイウエオァィゥェォヤユヨャュョワヲヮーッ", ""),
    ("カキクケコヵヶ", "k"), ("ガギグゲゴ", "g"), ("サシスセソザズゼゾツヅチ", "s"), ("ジヂ", "g"),
    ("タテト", "t"), ("ダデド", "d"), ("ナニヌネノ", "n"), ("ハヒヘホ", "h"), ("フ", "f"),
    ("バビブベボヴ", "b"), ("パピプペポ", "p"), ("マミムメモ", "m"), ("ラリルレロ", "r"), ("ン", "N"),
):  # fmt: skip
    for _char in _chars:
        _SKELETON[_char] = _sound

MIN_SOUNDS = 3
"""Skeletons shorter than this (キャッシュ → k s) name too many English words to be used."""

MOST = 3
"""A skeleton that more English words of the output share than this is left out."""

MAX_WORDS = 20_000
"""An output of more distinct words is not looked up (each costs ~13 µs to reduce: a generated
file of a million words took 13 s; bash(1), 400 kB, has 3,000)."""

_DOUBLED = re.compile(r"(.)\1+")


def katakana_key(word: str) -> str | None:
    """The consonant skeleton of a katakana word, or None when it has another character."""
    sounds = []
    for char in word:
        sound = _SKELETON.get(char)
        if sound is None:
            return None
        sounds.append(sound)
    key = "".join(sounds)
    key = re.sub("N(?=[bp])", "m", key).replace("N", "n")  # コンポーネント: m before p or b
    return _DOUBLED.sub(r"\1", key)


_ENGLISH_RULES = (
    (re.compile("^kn"), "n"), (re.compile("^wr"), "r"), (re.compile("^ps"), "s"),
    (re.compile("ph"), "f"), (re.compile("gh"), ""), (re.compile("ck|qu|q"), "k"), (re.compile("x"), "ks"),
    (re.compile("(?<=[aeiour])si(?=[aeiou])"), "g"),  # version, decision: ジョン
    (re.compile("[st]i(?=[aeiou])"), "s"),  # transaction, session: ション
    (re.compile("c(?=[eiy])"), "s"), (re.compile("tch|ch|sh|th"), "s"), (re.compile("c"), "k"),
    (re.compile("(?<=[aeiouy])r+(?=[^aeiouyr]|$)"), ""),  # not pronounced: server, port, format
    (re.compile("(?<=[^aeiouyw])h"), ""),
    (re.compile("[aeiouyw]"), ""),
)  # fmt: skip
_MERGED = str.maketrans("lvzj", "rbsg")


def english_key(word: str) -> str:
    """The consonant skeleton of a lower-case English word, as Japanese would borrow it."""
    for pattern, sound in _ENGLISH_RULES:
        word = pattern.sub(sound, word)
    return _DOUBLED.sub(r"\1", word.translate(_MERGED))


_KATAKANA = re.compile("[\u30a1-\u30fa\u30fc]{2,}")


def loanwords(request: str, words: set[str]) -> dict[str, list[str]]:
    """The request's katakana words that sound like words of the output (``words``, lower case),
    each with at most :data:`MOST` of them. A compound (ワーカースレッド) is not cut into its
    words: cut anywhere, two halves of a long word meet some word by chance too often."""
    runs = [run for run in dict.fromkeys(_KATAKANA.findall(request)) if len(run) >= 3]
    if not runs or len(words) > MAX_WORDS:
        return {}
    index: dict[str, list[str]] = {}
    for word in words:
        if len(word) >= 3 and word.isascii() and word.isalpha():
            index.setdefault(english_key(word), []).append(word)

    def met(run: str) -> list[str]:
        key = katakana_key(run)
        found = index.get(key, []) if key and len(key) >= MIN_SOUNDS else []
        return sorted(found) if len(found) <= MOST else []

    return {run: found for run in runs if (found := met(run))}

"""Tokens for English and Japanese/CJK text, shared by the basis gate and the lexical scorer.

English: NFKC, case folding, stop words removed, a light suffix stemmer. CJK: runs of kanji and
of katakana become character bigrams (a single character stays a unigram); hiragana runs, which
are mostly particles and inflections, become bigrams only when at least two characters long.
ANSI escape sequences are ignored.
"""

from __future__ import annotations

import re
import unicodedata

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
_HIRA = "\u3041-\u309f"
_KATA = "\u30a0-\u30ff\uff66-\uff9f"
_KANJI = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3005\u3006"
_TOKEN = re.compile(
    rf"[{_KANJI}]+|[{_KATA}]+|[{_HIRA}]+|[^\W_{_HIRA}{_KATA}{_KANJI}]+"
)
_CJK = re.compile(rf"[{_KANJI}{_KATA}{_HIRA}]")
_KANJI_KATA = re.compile(rf"[{_KANJI}{_KATA}]")

STOP_WORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is it
    its itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself
    yourselves s t d ll m re ve also did does get got please tell show give find know may might
    must shall us let""".split()
)

# Words that make up acknowledgements and nudges ("ok, thanks, continue"): no content to judge by.
ACK_WORDS = frozenset(
    """ok okay k thanks thank thx ty continue go ahead yes yeah yep no nope sure fine good great
    nice cool perfect done next proceed carry keep going agreed right alright understood noted
    sounds look looks lgtm got it again more retry hi hello hey""".split()
)
ACK_JA = ("了解", "続けて", "続行", "お願い", "ありがとう", "承知", "確認しました", "大丈夫", "進めて", "次へ", "もう一度")


def fold(text: str) -> str:
    """Normalise for matching: drop ANSI escapes, NFKC, case-fold."""
    if "\x1b" in text:
        text = _ANSI.sub(" ", text)
    return unicodedata.normalize("NFKC", text).casefold()


def stem(word: str) -> str:
    """A light English stemmer: plural and common verb endings only."""
    n = len(word)
    if n <= 3 or not word.isalpha():
        return word
    if word.endswith("ies") and n > 4:
        return word[:-3] + "y"
    if word.endswith("sses"):
        return word[:-2]
    if word.endswith("ing") and n > 5:
        word = word[:-3]
    elif word.endswith("ed") and n > 4:
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    else:
        return word
    if len(word) > 2 and word[-1] == word[-2] and word[-1] not in "lsz":
        word = word[:-1]  # running -> run, stopped -> stop
    return word


_WORD_CACHE: dict[str, tuple[str, ...]] = {}


def _word_tokens(tok: str) -> tuple[str, ...]:
    if _CJK.match(tok):
        if len(tok) == 1:
            return (tok,) if _KANJI_KATA.match(tok) else ()
        return tuple(tok[i : i + 2] for i in range(len(tok) - 1))
    return () if tok in STOP_WORDS else (stem(tok),)


def tokens(text: str) -> list[str]:
    """Tokens of already folded text (see :func:`fold`)."""
    out: list[str] = []
    cache = _WORD_CACHE
    if len(cache) > 200_000:  # bounded memory on huge vocabularies
        cache.clear()
    for tok in _TOKEN.findall(text):
        found = cache.get(tok)
        if found is None:
            found = cache[tok] = _word_tokens(tok)
        out.extend(found)
    return out


def has_japanese(text: str) -> bool:
    return _CJK.search(text) is not None


def content_weight(basis: str) -> int:
    """How much a request says: 2 per English content word, 1 per kanji or katakana character.

    Acknowledgements ("ok thanks, continue", 「了解、続けてください」) weigh 0.
    """
    folded = fold(basis)
    for phrase in ACK_JA:
        folded = folded.replace(phrase, " ")
    weight = 0
    for tok in _TOKEN.findall(folded):
        if _CJK.match(tok):
            weight += len(_KANJI_KATA.findall(tok))
        elif tok not in STOP_WORDS and tok not in ACK_WORDS and (len(tok) > 1 or tok.isdigit()):
            weight += 2
    return weight

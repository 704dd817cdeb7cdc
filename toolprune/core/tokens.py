"""Tokens for English and Japanese/CJK text, shared by the basis gate and the lexical scorer.

English: NFKC, case folding, stop words removed, a light suffix stemmer. CJK: runs of kanji and
of katakana become character bigrams (a single character stays a unigram); hiragana runs, which
are mostly particles and inflections, become bigrams only when at least two characters long.
ANSI escape sequences are ignored.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from collections.abc import Iterable

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
# Letters and digits of any script. Scripts are told apart per character below: regular
# expressions with the large CJK ranges cost ~8 ms to compile, paid on every invocation.
_WORD = re.compile(r"[^\W_]+")


def script(char: str) -> str:
    """"h" hiragana, "k" katakana, "c" kanji, "o" anything else."""
    o = ord(char)
    if o < 0x3005:
        return "o"
    if 0x3041 <= o <= 0x309F:
        return "h"
    if 0x30A0 <= o <= 0x30FF or 0xFF66 <= o <= 0xFF9F:
        return "k"
    if 0x4E00 <= o <= 0x9FFF or 0x3400 <= o <= 0x4DBF or 0xF900 <= o <= 0xFAFF or o in (0x3005, 0x3006):
        return "c"
    return "o"


_CJK_RUNS: re.Pattern[str] | None = None


def _runs(word: str) -> list[tuple[str, str]]:
    """(script, run) pieces of a word, e.g. 獲得した → [("c", "獲得"), ("h", "した")]."""
    global _CJK_RUNS
    if _CJK_RUNS is None:  # compiled on first non-ASCII word only (~2 ms)
        _CJK_RUNS = re.compile(
            "[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3005\u3006]+"
            "|[\u30a0-\u30ff\uff66-\uff9f]+|[\u3041-\u309f]+"
        )
    out: list[tuple[str, str]] = []
    pos = 0
    for match in _CJK_RUNS.finditer(word):
        if match.start() > pos:
            out.append(("o", word[pos : match.start()]))
        run = match.group()
        out.append((script(run[0]), run))
        pos = match.end()
    if pos < len(word):
        out.append(("o", word[pos:]))
    return out


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
ACK_JA = (
    "了解", "続けて", "続行", "お願い", "ありがとう", "承知", "確認しました", "大丈夫", "進めて", "次へ", "もう一度",
)  # fmt: skip


_LATIN_MARKS = re.compile("[\u0300-\u036f]+")


# A camelCase identifier: lower case first, then a hump ("basicConfig", "maxContentLength"), also
# after a single letter ("pDBPassword", a CloudFormation parameter; "mContext", a member field).
# Names that start upper case ("McDonald", "YouTube") stay whole: on the QA corpus splitting them costs.
# Its start is bounded in ASCII, not by ``\b``: Japanese runs an identifier into its words
# ("このbasicConfigを"), and to ``\b`` kana and kanji are word characters. (The same for ``_ALNUM``
# below was measured and not taken, 2026-12-08: "2Dの" became "2", one tune case was cut and lost
# a line; tune 91.1 → 91.0 %, test 89.2 → 89.3 %. The camelCase bound changed no case.)
_CAMEL = re.compile(r"(?<![A-Za-z0-9_])[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*")
_HUMP = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def _camel(match: re.Match[str]) -> str:
    word = match.group()
    return word + " " + " ".join(_HUMP.findall(word))


# Letters run into a number ("iso3166", "sha256", "utf8", "ipv6"): the name of a standard, a
# hash, an encoding, a version, which a request often writes apart ("ISO 3166-2", "SHA-256").
# A number run into its unit ("550nm", "100ms", "8GB", "64bit"): the value a request names
# ("at 550nm") is a cell or a field of its own in a table or a listing ("550,1.863,...").
# A unit of one letter ("2x", "5m", "8k") adds only its number: alone, "x" met every X11 option.
_ALNUM = re.compile(r"\b[A-Za-z]{2,}[0-9]+\b|\b([0-9]+)([A-Za-z]{1,4})\b")
_LETTERS_DIGITS = re.compile(r"\b[A-Za-z]{2,}[0-9]+\b")
_ALNUM_PARTS = re.compile(r"[A-Za-z]+|[0-9]+")


def _alnum(match: re.Match[str]) -> str:
    word = match.group()
    if not match.lastindex:  # letters then digits
        return word + " " + " ".join(_ALNUM_PARTS.findall(word))
    number, unit = match.group(1), match.group(2)
    return f"{word} {number} {unit}" if len(unit) > 1 else f"{word} {number}"


def fold(text: str, identifiers: bool = True, units: bool = True) -> str:
    """Normalise for matching: drop ANSI escapes, split identifiers, NFKC, case-fold, and drop
    the accents of Latin letters ("Tekezé" matches "Tekeze"; Japanese voiced kana are left alone).

    Identifiers are read as words: ``snake_case``, dotted paths (``os.path.join``) and
    ``--flags`` already split at their punctuation, and a ``camelCase`` word is followed by its
    parts ("basicConfig" → "basicConfig basic Config"), as is a word of letters then digits
    ("iso3166" → "iso3166 iso 3166") and a number with its unit ("550nm" → "550nm 550 nm"), so
    that both the whole name and each part match.
    ``identifiers=False`` leaves them whole (a scan of ~60 ms per 8 MB: the scorer skips it on
    large inputs of many units, logs and big JSON arrays); ``units=False`` leaves a number with
    its unit whole (how much a request says is not more for "8GB" than for "8 GB")."""
    if "\x1b" in text:
        text = _ANSI.sub(" ", text)
    if identifiers:
        text = (_ALNUM if units else _LETTERS_DIGITS).sub(_alnum, _CAMEL.sub(_camel, text))
    if text.isascii():  # ASCII is its own NFKC form, and its case folding is lower case
        return text.lower()
    text = unicodedata.normalize("NFKC", text).casefold()
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFD", text)
    if not _LATIN_MARKS.search(decomposed):
        return text
    return unicodedata.normalize("NFC", _LATIN_MARKS.sub("", decomposed))


def _drop_e(word: str) -> str:
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


def stem(word: str) -> str:
    """A light English stemmer: plural and common verb endings only, and a final "e" (so that
    "raise", "raises", "raised" and "raising" all become "rais")."""
    n = len(word)
    if n <= 3 or not word.isalpha():
        return word
    if word.endswith("ies") and n > 4:
        return word[:-3] + "y"
    if word.endswith("ing") and n > 5:
        word = word[:-3]
    elif word.endswith("ed") and n > 4:
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return _drop_e(word[:-1])
    else:
        return _drop_e(word)
    if len(word) > 2 and word[-1] == word[-2] and word[-1] not in "lsz":
        word = word[:-1]  # running -> run, stopped -> stop
    return word


_WORD_CACHE: dict[str, tuple[str, ...]] = {}


def _latin(word: str) -> tuple[str, ...]:
    return () if word in STOP_WORDS else (stem(word),)


def _word_tokens(word: str) -> tuple[str, ...]:
    if word.isascii():
        return _latin(word)
    out: list[str] = []
    for kind, run in _runs(word):
        if kind == "o":
            out.extend(_latin(run))
        elif len(run) == 1:
            if kind != "h":  # a lone hiragana is a particle
                out.append(run)
        else:
            out.extend(run[i : i + 2] for i in range(len(run) - 1))
    return tuple(out)


_K = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3005\u3006"  # kanji
_T = "\u30a0-\u30ff\uff66-\uff9f"  # katakana
_H = "\u3041-\u309f"  # hiragana
_CJK_TEXT: tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]] | None = None


def _cjk_text() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """Patterns for text with Japanese in it, compiled on first use (~5 ms): runs to blank out
    before looking for Latin words, overlapping same-script bigrams, lone kanji or katakana."""
    global _CJK_TEXT
    if _CJK_TEXT is None:
        _CJK_TEXT = (
            re.compile(f"[{_K}{_T}{_H}]+"),
            re.compile(f"(?=([{_K}]{{2}}|[{_T}]{{2}}|[{_H}]{{2}}))"),
            re.compile(f"(?<![{_K}])[{_K}](?![{_K}])|(?<![{_T}])[{_T}](?![{_T}])"),
        )
    return _CJK_TEXT


_LATIN_RUN: re.Pattern[str] | None = None


def latin_run() -> re.Pattern[str]:
    """Letters and digits of any script but Japanese (a word's Latin part, where the tokenizer
    ends it), compiled on first use (~2 ms: the CJK ranges)."""
    global _LATIN_RUN
    if _LATIN_RUN is None:
        _LATIN_RUN = re.compile(f"[^\\W_{_K}{_T}{_H}]+")
    return _LATIN_RUN


def word_tokens(word: str) -> tuple[str, ...]:
    """Tokens of one folded word (cached)."""
    found = _WORD_CACHE.get(word)
    if found is None:
        if len(_WORD_CACHE) > 200_000:
            _WORD_CACHE.clear()
        found = _WORD_CACHE[word] = _word_tokens(word)
    return found


def tokens(text: str) -> list[str]:
    """Tokens of already folded text (see :func:`fold`), as a bag (order is not meaningful)."""
    out: list[str] = []
    cache = _WORD_CACHE
    if len(cache) > 200_000:  # bounded memory on huge vocabularies
        cache.clear()
    cjk = None
    if not text.isascii():
        runs, bigrams, singles = _cjk_text()
        if runs.search(text):
            cjk = (bigrams.findall(text), singles.findall(text))
            text = runs.sub(" ", text)
    for word in _WORD.findall(text):
        found = cache.get(word)
        if found is None:
            found = cache[word] = _word_tokens(word)
        out.extend(found)
    if cjk is not None:
        out.extend(cjk[0])
        out.extend(cjk[1])
    return out


_NO_COUNTS: dict[str, int] = {}


@lru_cache(maxsize=4096)
def cjk_counts(text: str) -> dict[str, int]:
    """How often each CJK token (same-script bigram, lone kanji or katakana) occurs in folded
    text, as :func:`tokens` makes them. Cached: scoring asks again for the same units. (The
    result is shared: do not modify it.)"""
    from collections import Counter

    runs, bigrams, singles = _cjk_text()
    if runs.search(text) is None:  # no Japanese at all (a "✓" or an "…" made it not ASCII)
        return _NO_COUNTS
    counts = Counter(bigrams.findall(text))
    counts.update(singles.findall(text))
    return counts


_JAPANESE: re.Pattern[str] | None = None


def has_japanese(text: str) -> bool:
    """Does ``text`` hold a kana or kanji character? (ASCII text is answered without a scan.)"""
    global _JAPANESE
    if text.isascii():
        return False
    if _JAPANESE is None:  # compiled on the first text that is not ASCII
        _JAPANESE = re.compile(f"[{_K}{_T}{_H}]")
    return _JAPANESE.search(text) is not None


def across_languages(basis: str, units: Iterable[str]) -> bool:
    """A Japanese request over units without Japanese: the few words shared across the two
    (names, numbers, code) cannot be the measure. (An English request over Japanese units
    usually shares no word at all, and English text quoting a Japanese title is still English.)"""
    return has_japanese(basis) and not any(has_japanese(u) for u in units)


def content_weight(basis: str) -> int:
    """How much a request says: 2 per English content word, 1 per kanji or katakana character.

    Acknowledgements ("ok thanks, continue", 「了解、続けてください」) weigh 0.
    """
    folded = fold(basis, units=False)
    for phrase in ACK_JA:
        folded = folded.replace(phrase, " ")
    weight = 0
    for word in _WORD.findall(folded):
        for kind, run in _runs(word) if not word.isascii() else [("o", word)]:
            if kind in "ck":
                weight += len(run)
            elif kind == "o" and run not in STOP_WORDS and run not in ACK_WORDS and (len(run) > 1 or run.isdigit()):
                weight += 2
    return weight

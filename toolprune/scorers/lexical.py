"""The built-in lexical scorer: BM25 over the input's own units, calibrated to [0, 1].

Nothing leaves the machine and nothing is downloaded. IDF is computed over the units of this
input, so a word that appears in every unit ("error" in every log line) carries almost no
weight. A unit's score is its BM25 score divided by the best unit's (so the thresholds read
"at least a fifth as relevant as the best paragraph"). For documents (up to
``BRIDGE_MAX_UNITS`` units) three more signals apply: the request's adjacent word pairs count
as terms of their own (*phrases*: "Henri Bergson" is more than "Henri" and "Bergson"), a term in
a unit's opening counts twice (its *subject*), the best units of each part of a request ("X or
Y?", "A, and B") are kept at ``standard`` (*parts*), and the units the best ones lead to are
raised (*bridging*, multi-hop requests; at half strength when the units are not paragraphs of
plain text but the entries, sections or records of structured output). The constants were chosen
on the QA corpus with ``bench/eval_quality.py``; change them only with a new measurement.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import cast

from toolprune.core.scorer import Scorer, ScoringRequest
from toolprune.core.tokens import (
    STOP_WORDS,
    across_languages,
    cjk_counts,
    fold,
    latin_run,
    script,
    stem,
    tokens,
    word_tokens,
)

K1 = 1.5
B = 0.9


IDF_POWER = 1.0
"""BM25's IDF is raised to this power (plain BM25: 1). A steeper IDF lets the words that only a
few units have decide more, and prunes more; it was measured and not taken. At 1.2 (2026-12-02,
standard threshold): English QA 0.984 / 0.537 → 0.971 / 0.560 (all-gold / reduction), Japanese
0.993 / 0.769 → 0.993 / 0.779, multi-hop 0.973 / 0.420 → 0.953 / 0.455; the real-output cases of
batches 1–3 (tune half) 95.3 % / 0.518 → 95.3 % / 0.547; but the 64 cases of batch 4, made after
it was chosen, 93.8 % / 0.425 → 89.1 % / 0.465: it loses needed lines on outputs it was not
chosen on, and a lost line costs more than a kept one (``bench/eval_real.py``, the QA figures
from ``bench/eval_quality.py``)."""


def _idf(n_units: int, df: int) -> float:
    return math.log(1.0 + (n_units - df + 0.5) / (df + 0.5)) ** IDF_POWER


KEY_WEIGHT = 0.25
"""A request word found as a JSON key (``"url":``) counts this much: keys are the structure
that every record repeats, not its content ("clone URL" should find the record whose values say
so, not every record with a ``url`` key)."""
_KEY_END = re.compile(r'"[ \t]*:')


def _holds_any(text: str, words: list[str]) -> bool:
    """``any(w in text for w in words)``, without a generator made per call (one per unit)."""
    for word in words:
        if word in text:
            return True
    return False


def _matcher(query: set[str]) -> Callable[[str], dict[str, float]]:
    """Counts of the query's tokens in folded text. Latin tokens are found by a regular
    expression for words starting with them (then stemmed to confirm); CJK bigrams and single
    characters exactly as the tokenizer makes them. Only query tokens are counted: no per-word work for the rest."""
    # words are found by a prefix of their stem: the stemmer only rewrites endings, and "-ies"
    # becomes "-y" ("cities" -> "city"), so a stem's final "y" is left out of its prefix
    cjk = [t for t in query if script(t[0]) != "o"]
    latin_query = {t for t in query if script(t[0]) == "o"}
    latin = sorted({t[:-1] if t.endswith("y") and len(t) > 3 else t for t in query if script(t[0]) == "o"})
    # No look-behind in the pattern (it makes every position slow); a match inside a longer
    # word ("recreate" for "create") is discarded by looking at the character before it.
    pattern = re.compile("(?:" + "|".join(map(re.escape, latin)) + r")[^\W_]*") if latin else None

    def count(folded: str) -> dict[str, float]:
        tf: dict[str, float] = {}
        if pattern is not None and _holds_any(folded, latin):  # substring pre-check, C speed
            search, pos = pattern.search, 0
            while (match := search(folded, pos)) is not None:
                start = match.start()
                if start and folded[start - 1].isalnum() and script(folded[start - 1]) == "o":
                    # inside a longer word (a kanji or kana before it is a boundary): go on after
                    # that word's Latin part, not after the match, which may run on past a kanji
                    # into a word of its own ("2013年city" for "1")
                    run = latin_run().match(folded, start)  # never None: a match starts with a letter or digit
                    pos = run.end() if run is not None else start + 1
                    continue
                end = pos = match.end()
                weight = KEY_WEIGHT if folded.startswith('"', end) and _KEY_END.match(folded, end) else 1
                for tok in word_tokens(match.group()):
                    if tok in latin_query:
                        tf[tok] = tf.get(tok, 0) + weight
        if cjk and not folded.isascii():  # bigrams only within one script: count them exactly
            counts = cjk_counts(folded)
            for tok in cjk:
                if tok in counts:
                    tf[tok] = counts[tok]
        return tf

    return count


BRIDGE_FROM = 2
"""Bridging: how many of the best units pass their score on to the units they lead to."""
BRIDGE_TERMS = 8
BRIDGE_MAX_DF = 0.3
"""A bridge term must be distinctive: in at least 2 and at most this share of the units."""
BRIDGE_LEAD = 300
"""A unit is *about* a term when the term occurs in its first characters (its subject)."""
BRIDGE_CANDIDATES = 400
"""At most this many terms of the best units are counted across the input (the longest ones)."""
BRIDGE_MAX_UNITS = 400
"""Bridging is for documents; a log of thousands of blocks is not read by hops."""
BRIDGE_STRUCTURED = 0.5
"""What a unit inherits by bridging, as a share of what it would inherit in prose, when the
units are the sections, entries, commits or records of structured output (``prose=False``).
Bridging was made for Wikipedia-like paragraphs, each opening with its subject; in a man page,
pydoc, a README's sections, a listing or JSON records every unit opens with the names the best
one holds (the command, the module, the path, the key), so full inheritance lifted most of a
document over the threshold. On the real-output tune half (240 cases, 2026-12-03;
``bench/eval_real.py``): all gold 96.3 % → 96.3 %, reduction 0.483 → 0.507, 87 cases cut more and
4 less; 0.4 lost two needed lines (a jq option, a ruff flag); no bridging at all lost the same
two. Plain paragraphs keep full bridging: at 0.6 for them too, the QA corpus's multi-hop
questions fell from 0.973 to 0.939 all gold."""


SUBJECT_CHARS = 150
"""A request term in a unit's first characters counts twice (BM25F with the opening as a title)."""
PART_FLOOR = 0.3
"""The best units of each part of the request score at least this much (0.28 once calibrated, 0.26
in paragraphs of plain text: above ``standard``, below ``strong``, so a stronger threshold drops
the secondary parts first)."""
MAX_PARTS = 8
"""A request of more parts is a long text, not a list of questions: no part floor."""
COMMON_PART_SHARE = 0.9
COMMON_PART_UNITS = 20
"""A part none of whose words is rarer than in this share of the units names nothing in
particular (「…and how much do all the America zone files add up to?」 over a listing where
every line says ``[FILE]``): it gets no floor, which would otherwise lift every unit to
``PART_FLOOR``. Only in inputs of at least ``COMMON_PART_UNITS`` units, where the share says
something (a QA page has ten paragraphs). On the real-output tune half (2026-12-03): all gold
95.6 % → 95.6 %, reduction 0.467 → 0.474 (``bench/eval_real.py``); the QA corpus unchanged. A
share of 0.75 lost a needed line."""
_PARTS = re.compile(r"\b(?:or|and|vs|versus)\b|[,;:?!\n]|\.\s")
CALIBRATION = 1.05
"""Scores of the units of structured output (the sections, entries, commits, blocks and records
that a document, a listing, ``git log``, a log or JSON is split into) are raised to this power;
paragraphs of plain text to ``PROSE_CALIBRATION``, a Japanese request over output without
Japanese to ``CROSS_CALIBRATION`` (why structured output is not cut as hard as prose: see
``PROSE_CALIBRATION``)."""
PROSE_CALIBRATION = 1.12
"""The power for paragraphs of plain text (``prose``: a page split at its blank lines, not the
sections, entries, blocks or records of structured output). It puts ``standard`` where the QA
corpus (Wikipedia-like paragraphs) keeps all gold for at least 97 % of the English questions at 55 %
fewer characters, 98.5 % of the Japanese at 70 %, and 94 % of the multi-hop ones at 45 %
(``bench/eval_quality.py``, 2026-12-04): English 0.984 / 0.537 → 0.972 / 0.564, Japanese 0.989 /
0.789 → 0.986 / 0.800, multi-hop 0.973 / 0.420 → 0.953 / 0.452 (MuSiQue's 2–4 hops alone 0.900 →
0.800). The bounds leave a narrow band: a power of 1.09 keeps English at 0.979 but multi-hop
reduces 0.439, 1.15 reduces multi-hop 0.466 but keeps English at 0.964. Structured output keeps
``CALIBRATION``: on the real-output set (``bench/eval_real.py``) a cut that strong everywhere
loses needed lines (tune half at 0.225: 95.7 % → 92.8 % all gold); prose-only, the tune half is
unchanged and the test half gains reduction in two cases (0.467 → 0.469) and loses nothing."""
CROSS_CALIBRATION = 0.8
"""The power for a Japanese request over output without Japanese (a man page, pydoc, a README in
English). What the two share is a few names and numbers and the glossary's translations, which
count half, so the units that answer score lower against the best one than they would in one
language: 「空白を + にしたい」 finds ``quote_plus`` at 0.13 of the unit that names
``urllib.parse``. Raising scores to a power under 1 keeps more of them. On the real-output tune
half's 33 such cases (of 168, 2026-12-03; ``bench/eval_real.py``): all gold kept 81.8 % → 93.9 %, reduction 0.545 →
0.447; 0.9 gave 87.9 % / 0.492, 0.7 93.9 % / 0.415. Documents only (up to ``BRIDGE_MAX_UNITS``
units, where the units are folded whole anyway): on the larger inputs of those cases it kept
more (0.447 → 0.438) and no more gold."""


def _bm25(tfs: list[dict[str, float]], lengths: list[int], idf: dict[str, float], avgdl: float) -> list[float]:
    out: list[float] = []
    for tf, dl in zip(tfs, lengths):
        if not tf:  # most blocks of a log hold no request term: the sum of nothing, 0, without a generator
            out.append(0)
            continue
        norm = K1 * (1.0 - B + B * dl / avgdl)
        out.append(sum(idf[t] * f * (K1 + 1.0) / (f + norm) for t, f in tf.items()))
    return out


def _count_all(query: set[str], folded_units: Iterable[str]) -> tuple[list[dict[str, float]], dict[str, int]]:
    """Per-unit term counts of ``query`` and its document frequencies."""
    count = _matcher(query)
    tfs: list[dict[str, float]] = []
    df: dict[str, int] = {}
    for folded in folded_units:
        tf = count(folded)
        for tok in tf:
            df[tok] = df.get(tok, 0) + 1
        tfs.append(tf)
    return tfs, df


SYNONYM_WEIGHT = 0.5
"""A word the request did not use but names the same thing counts this much."""
SYNONYMS = (
    "skip ignore exclude omit 除外 無視 入れない 含めない",
    "color colour カラー 色",
    "limit maximum max cap 上限 制限",
    "speed rate 速度",
    "truncate shorten cut 切り詰め",
    "transfer 転送",
    "bandwidth bwlimit 帯域",
    "retry retries リトライ 再試行",
    "timeout タイムアウト",
    "cache キャッシュ",
    "delete remove 削除",
    "disable 無効",
    "enable 有効",
    "parallel concurrent 並列 並行",
    "environment env 環境変数",
    "compress compression 圧縮",
    "extract unpack 展開 解凍",
    "permission 権限",
    "owner 所有者 所有権",
    "proxy プロキシ",
    "directory folder dir ディレクトリ フォルダ",
    "setting config configuration 設定",
    "version バージョン",
    "dependency dependencies 依存",
    "password パスワード",
    "memory メモリ",
    "sort ソート 並べ替え",
    "search 検索",
    "replace 置換",
    "mount マウント",
    "default デフォルト 既定",
    "error エラー",
    "warning 警告",
    "install インストール",
    "typescript ts",
    "image picture png jpg jpeg gif svg webp 画像",
    "write emit",
    "signal sigterm sigkill sigint sighup",
    "terminate kill",
    "hang hung stuck freeze",
    "hide suppress silence mute",
    "rename move",
    "checksum hash digest",
    "certificate cert",
    "encoding charset codec",
    "newline linefeed eol crlf",
    "recursive recursively recurse",
    "symlink symbolic",
    "outdated stale",
    "latest newest",
    "oldest earliest",
    "interval period frequency",
    "minified minify min 縮小版 圧縮版",
)
"""Groups of words that name the same thing in requests and in tool output: technical English and
its usual Japanese (a Japanese request over an English man page, "skip" for ``ignore``). The
groups from "write emit" on are English (but the last, which holds the Japanese for a minified
build too), the documentation's word beside the one users write: "without writing any .js
output" for tsc's "Disable emitting files", "stop it with SIGTERM" for "The signal to be sent",
"hangs" for "stuck". On the real-output tune half (2026-12-06, ``bench/eval_real.py``): all gold
95.2 % → 95.8 %, reduction 0.459 → 0.458; the QA corpus unchanged. "upgrade update bump" was
measured and left out: "bumped" and "upgraded" are in every changelog entry (three cases cut
0.03–0.09 less, no gold gained). "minified minify min" (2026-12-07: a bundle's ``.min.js`` for
"the minified build") kept two more cases' gold on the 1,999 cases of the day (tune 91.2 → 91.3
%, test 90.2 → 90.3 %, one of the two by passing a listing through), the mean reduction
unchanged on both halves; "min" for "minimum" in man pages cost nothing measurable."""
_SYNONYM_TOKENS: dict[str, tuple[str, ...]] = {}


def _glossary() -> list[tuple[list[str], list[str]]]:
    """The English–Japanese glossary (``scorers/glossary.py``): each group's English words and
    its Japanese words."""
    global _GLOSSARY
    if _GLOSSARY is None:
        from toolprune.scorers.glossary import GLOSSARY

        _GLOSSARY = []
        for group in GLOSSARY:
            words = group.split()
            _GLOSSARY.append(([w for w in words if w.isascii()], [w for w in words if not w.isascii()]))
    return _GLOSSARY


_GLOSSARY: list[tuple[list[str], list[str]]] | None = None


def _synonym_tokens(word: str) -> tuple[str, ...]:
    """The tokens of a word of :data:`SYNONYMS` or of the glossary, made on first use, one word
    at a time (``word_tokens``: the same tokens as :func:`tokens` makes of it, without the
    patterns for whole Japanese texts, ~7 ms to compile, which a request in English and a log
    without Japanese never otherwise need; tests/test_lexical.py checks they are the same)."""
    found = _SYNONYM_TOKENS.get(word)
    if found is None:
        folded = fold(word)
        found = _SYNONYM_TOKENS[word] = word_tokens(folded) if folded.isalnum() else tuple(tokens(folded))
    return found


JA_FUNCTION = frozenset(
    """した のは たの すか てい たか です った され して いる する れた はど から はい こと いつ れる
    ある どこ なっ れて どの るか まし るの いた とい いう られ とは って でし にな とな では のこ
    いて よう もの なの であ とし によ ると われ にお ます いま なる つか ない るこ まで より うに
    たい ので ため など には とき その この どう どれ なに なん ませ せん しい くだ さい
    しま いい よい れば たら なら けど けれ でき きる""".split()
)
"""Hiragana bigrams of a Japanese request that are inflection and particles ("したい", "ように",
"ですか"): they occur in nearly every Japanese unit, so at full weight they pick the best unit by
chance (a man page's one sentence with "まとめて" and "ない" outscoring the option asked about).
Since :func:`content_terms`, they are terms only in a request written in hiragana alone."""
FUNCTION_WEIGHT = 0.3
"""What a match of :data:`JA_FUNCTION` counts (on the Japanese QA corpus: all-gold 0.995 → 0.993,
reduction 0.755 → 0.770; on the real-output tune half no gold lost, reduction 0.564 → 0.580)."""


def content_terms(request: list[str]) -> list[str]:
    """A request's tokens without its bigrams of hiragana alone (しま, ない, とき: inflections, particles and
    the kana between the words), unless what is left is numbers or nothing. A Japanese request
    names its subject in kanji, katakana and Latin script; its hiragana bigrams match most units
    of a Japanese page a little each, so the units that share only them stay above the threshold
    (bash's Japanese man page kept 69 % for a nullglob question). On the real-output tune half's
    25 Japanese requests over Japanese pages: all gold 88 % → 92 %, reduction 0.38 → 0.42; the
    Japanese QA corpus 0.993 / 0.769 → 0.989 / 0.789 (``bench/eval_quality.py``)."""
    content = [t for t in request if script(t[0]) != "h"]
    return content if any(not t.isdigit() for t in content) else request


def _phrasal(verbs: str, particle: str) -> re.Pattern[str]:
    # the separators and the words between are disjoint classes, so a run of dashes or quotes
    # can be read one way only (overlapping ones backtracked for minutes on 80 dashes)
    return re.compile(rf"\b(?:{verbs})(?:s|ed|ing)?\b(?:[^\w'-]+[\w'-]+){{0,3}}?[^\w'-]+{particle}\b", re.IGNORECASE)


PHRASAL = (
    (_phrasal("turn|switch|shut", "off"), "disable"),
    (re.compile(r"\bon\s*(?:/|or|and)\s*off\b|\boff\s*(?:/|or|and)\s*on\b|\btoggl", re.IGNORECASE), "enable"),
)
"""Phrasal verbs that name a word of :data:`SYNONYMS`: "switch it off" is ``disable``. The
particle is a stop word, so the request's own tokens say only "switch" or "turn"; the
documentation says "disables" (「…to 0 seconds disables the timeout」, Typer's
``pretty_exceptions_enable=False``). The word and its group count as synonyms (half weight). On
the real-output tune half (240 cases, 2026-12-03; ``bench/eval_real.py``): all gold 95.8 % →
96.3 %, reduction 0.482 → 0.483; the QA corpus unchanged. Not "turn … on" for ``enable``:
"switch branches on the remote" is no such thing; but "on/off", "on or off" and "toggle" name
``enable`` (python-crontab's ``enable()`` for "the method that turns a job on/off", a blind loss
of 2026-12-07; no other case changed)."""


def _extra(basis: str, query: set[str], japanese: bool = True) -> dict[str, int]:
    """:func:`_synonyms` of the request's tokens ``query``, and of the words its phrasal verbs
    name (:data:`PHRASAL`), those words included."""
    named: dict[str, int] = {}
    for pattern, word in PHRASAL:
        if pattern.search(basis):
            group = next(n for n, words in enumerate(SYNONYMS) if word in words.split())
            for t in _synonym_tokens(word):
                if t not in query:
                    named.setdefault(t, group)
    extra = _synonyms(query | named.keys(), japanese)
    for t, group in named.items():
        extra.setdefault(t, group)
    return extra


def _synonyms(query: set[str], japanese: bool = True) -> dict[str, int]:
    """Tokens of the words that share a group with a word of the request, not in it already,
    each with the number of its group: any word of a :data:`SYNONYMS` group, and of a glossary
    group the English words for a Japanese request and the Japanese words for any request (the
    glossary translates; English is not paraphrased within English). The words outside ASCII are
    tried only for a request with a token outside ASCII: their tokens are all outside ASCII
    (tests/test_lexical.py checks the lists). ``japanese=False``: an English request gains no
    Japanese words (a large log or JSON array, where counting them in every unit that is not
    ASCII costs more than an English request over a Japanese log is worth)."""
    wide = not all(t.isascii() for t in query)
    into = wide or japanese
    extra: dict[str, int] = {}
    for n, group in enumerate(SYNONYMS):
        words = group.split()
        if _named(query, [word for word in words if wide or word.isascii()]):
            _add(extra, query, [word for word in words if into or word.isascii()], n)
    for n, (english, ja) in enumerate(_glossary(), len(SYNONYMS)):
        if into and _named(query, english):
            _add(extra, query, ja, n)
        if wide and _named(query, ja):
            _add(extra, query, english, n)
            _add(extra, query, ja, n)
    return extra


def _named(query: set[str], words: list[str]) -> bool:
    """Does the request use one of ``words`` (all of the word's tokens)?"""
    for word in words:
        member = _synonym_tokens(word)
        if member and all(t in query for t in member):
            return True
    return False


def _add(extra: dict[str, int], query: set[str], words: list[str], group: int) -> None:
    """The tokens of ``words`` as terms, except a word's hiragana ending when it has a kanji or
    katakana token (走らせ adds 走, not らせ: alone, らせ is the end of お知らせ)."""
    for word in words:
        found = _synonym_tokens(word)
        stems = [t for t in found if script(t[0]) != "h"]
        for t in stems or found:
            if t not in query:
                extra.setdefault(t, group)


MIN_GLOSSARY_GROUPS = 2
"""When no word of the request itself is in the input, and the words it meets are translations
from the glossary, they must come from at least this many of its groups: one word in
translation ("含まれる" → "include") is too little to judge a whole input by. (A word of
:data:`SYNONYMS` is enough: "skip" for ``ignore`` names the option asked about.)"""


def _too_little(df: dict[str, int], extra: dict[str, int]) -> bool:
    if any(t not in extra or extra[t] < len(SYNONYMS) for t in df):
        return False
    return len({extra[t] for t in df}) < MIN_GLOSSARY_GROUPS


def _weigh(tfs: list[dict[str, float]], extra: dict[str, int], query: set[str]) -> None:
    """Synonyms the request did not use, and its Japanese function bigrams, count less."""
    if extra:
        for tf in tfs:
            for t in extra.keys() & tf.keys():
                tf[t] *= SYNONYM_WEIGHT
    function = JA_FUNCTION & query
    if function:
        for tf in tfs:
            for t in function & tf.keys():
                tf[t] *= FUNCTION_WEIGHT


_NEGATED = re.compile(r"\b[A-Za-z]+n['’]t\b")
"""A request's negated auxiliaries ("don't", "doesn't", "isn't") are left out: split at the
apostrophe they would be the terms "don", "doesn" and "isn", rare in a document and so weighty
("I don't want 20 restarts in a row" made a paragraph with "don't" the best of a README). Only
the request's: "Don" stays a name in the units and in a request that says it. On the real-output
tune half (2026-12-05, ``bench/eval_real.py``) two cases cut more (0.457 → 0.457 overall, no
needed line lost); the QA corpus unchanged."""


def score_units(basis: str, units: Sequence[str], prose: bool = True) -> list[float]:
    """Scores in [0, 1] for every unit: BM25 relative to the best unit (with phrases, subjects,
    parts and bridging for documents, bridging at ``BRIDGE_STRUCTURED`` unless ``prose``),
    calibrated; 0 for all when the request shares no term with the input. Unit length for BM25
    is measured in characters (C speed, and proportional to tokens in practice)."""
    basis = _NEGATED.sub(" ", basis)
    request = tokens(fold(basis))
    query = set(request)
    n = len(units)
    if not query or n == 0:
        return [0.0] * n
    document = BRIDGE_FROM + 1 < n <= BRIDGE_MAX_UNITS
    extra = _extra(basis, query, japanese=document)  # from every word of the request, 止まる's まる too
    request = content_terms(request)
    query = set(request)
    spelled = _spellings(query)  # the same words: full weight, even where a synonym group has them
    for t in spelled:
        extra.pop(t, None)
    query.update(extra)
    query.update(spelled)
    query.update(_joined(basis, query))
    across = False
    if document:  # phrases, subjects and the bridge read the folded units again
        folded: Sequence[str] = [fold(text) for text in units]
        lengths = [len(f) for f in folded]
        across = across_languages(basis, folded)
        tfs, df = _count_all(query, folded)
        _add_subjects(query, folded, tfs)
        _weigh(tfs, extra, query)
        _add_phrases(request, folded, tfs, df)
    else:  # fold one unit at a time: a large input is never held twice more
        lengths = []

        def each_folded() -> Iterator[str]:
            for text in units:  # camelCase whole: no scan of a large log
                if "\x1b" not in text and text.isascii():  # fold()'s own first case, without the call
                    folded_unit = text.lower()
                else:
                    folded_unit = fold(text, identifiers=False)
                lengths.append(len(folded_unit))
                yield folded_unit

        tfs, df = _count_all(query, each_folded())
        _weigh(tfs, extra, query)
    if document:
        words = {w for text in folded for w in _WORDS.findall(text) if w.isascii() and w.isalpha()}
        _count_as_synonyms(_compound_parts(request, words, df), folded, tfs, df, extra)
        if not prose:
            _count_as_synonyms(_family_parts(request, words, df, extra), folded, tfs, df, extra)
        if across and LOANWORDS:
            _count_as_synonyms(_loanword_parts(basis, words, df, extra), folded, tfs, df, extra)
    if not df or _too_little(df, extra):
        return [0.0] * n
    idf = {t: _idf(n, d) for t, d in df.items()}
    avgdl = max(sum(lengths) / len(lengths), 1.0)
    raw = _bm25(tfs, lengths, idf, avgdl)
    best = max(raw)
    if best <= 0.0:
        return [0.0] * n
    scores = [r / best for r in raw]
    if document:
        scores = _parts(basis, query, tfs, lengths, idf, avgdl, scores)
        scores = _bridge(query, folded, scores, 1.0 if prose else BRIDGE_STRUCTURED)
    power = CROSS_CALIBRATION if across else PROSE_CALIBRATION if prose else CALIBRATION
    return [s**power for s in scores]


COMPOUND_MIN = 7
COMPOUND_MAX = 30
COMPOUND_WORDS = 8
"""A request word of ``COMPOUND_MIN`` to ``COMPOUND_MAX`` letters that no unit has is tried as
two words that the units do have ("Dockerfile" → "docker" + "file": the Dockerfile lexer's
examples sit in ``examplefiles/docker/``; "healthcheck", "keepalive", "hostname"). Each part of at
least 3 letters, the longer of at least 5 ("bastion" is not "bas" + "tion"); where several cuts
fit, the most even one. The parts count as synonyms (half weight), and a part the request
already names counts once. At most ``COMPOUND_WORDS`` words are tried (the longest). On the
real-output tune half (2026-12-05, ``bench/eval_real.py``): all gold 94.9 % → 95.2 % (the
Dockerfile case above), reduction 0.461 → 0.461; the QA corpus unchanged."""


_WORDS = re.compile(r"[^\W_]+")

JOINED_MIN = 5
PARTICLES = frozenset({"up", "down", "in", "out", "on", "off", "back", "over"})
_LATIN_WORDS = re.compile(r"[a-z]+")


def _joined(basis: str, query: set[str]) -> set[str]:
    """A word and the particle after it written as one ("time out" → ``timeout``, "set up" →
    ``setup``, "log in" → ``login``, "fall back" → ``fallback``), as a term of its own: output
    spells these as one word, and most particles are stop words the request's tokens leave out.
    The two are a space or a hyphen apart; the word has at least 3 letters, the two together at
    least ``JOINED_MIN``."""
    low = basis.lower()
    words = list(_LATIN_WORDS.finditer(low))
    out: set[str] = set()
    for a, b in zip(words, words[1:]):
        word, particle = a.group(), b.group()
        apart = low[a.end() : b.start()]
        if particle in PARTICLES and word not in STOP_WORDS and len(word) >= 3 and apart in (" ", "-"):
            for base in _bases(word):  # "times out", "timed out", "timing out": timeout
                joined = base + particle
                if len(joined) >= JOINED_MIN and joined not in STOP_WORDS and (t := stem(joined)) not in query:
                    out.add(t)
    return out


SPELLINGS = (
    "license licence",
    "defense defence",
    "offense offence",
    "center centre",
    "meter metre",
    "liter litre",
    "fiber fibre",
    "theater theatre",
    "gray grey",
    "catalog catalogue",
    "dialog dialogue",
    "analog analogue",
    "color colour",
    "behavior behaviour",
    "favor favour",
    "favorite favourite",
    "honor honour",
    "flavor flavour",
    "neighbor neighbour",
    "labor labour",
    "humor humour",
    "armor armour",
    "rumor rumour",
    "vapor vapour",
    "endeavor endeavour",
    "harbor harbour",
    "odor odour",
)
"""American and British spellings of one word that no rule of :data:`_SPELLING_RULES` makes:
a request's word is also looked for in the other spelling, as the same word (full weight, not a
synonym's half): "licences" for ``LICENSE-MIT``, "colour" for ``--color``. Spelled in words,
compared as stems (:func:`stem`), so "licensing" and "centred" are covered too. On the
real-output set of the day (2,190 cases, 2026-12-08, ``bench/eval_real.py --quick``): tune
90.9 → 91.0 % all gold (vis-network's ``LICENSE-MIT`` for "licences"), test 89.5 → 89.4 % (an SPDX
SBOM that "licence" passed through whole is now cut at ``licenseDeclared``, and the relationship
saying which package needs the odd one out goes: references across a JSON document are not
followed); reduction unchanged (0.348 and 0.357 → 0.358); the QA corpus unchanged."""

_SPELLING_RULES = (
    # -ise and -ize, -iser, -isation: serialise / serialize, initialiser, normalisation
    (re.compile(r"([a-z]{3,}i)([sz])(|er|ation)"), lambda m: m[1] + ("z" if m[2] == "s" else "s") + m[3]),
    # -yse and -yze: analyse / analyze, paralyser
    (re.compile(r"([a-z]{2,}ly)([sz])(|er)"), lambda m: m[1] + ("z" if m[2] == "s" else "s") + m[3]),
    # one final l or two before an ending: cancelled / canceled, modelling, also "controlled"
    # for "control" (the stemmer undoubles every other letter: "stopped" is "stop")
    (re.compile(r"([a-z]{2,}[^aeiou][aeiou]l)(l?)"), lambda m: m[1] if m[2] else m[1] + "l"),
)
"""Spelling rules on a request's stems, each giving the other spelling's stem. A rule may make
a stem no word has ("analysis" → "analysiz"): it then matches nothing."""

_SPELLING_STEMS: dict[str, set[str]] | None = None


def _spelling_stems() -> dict[str, set[str]]:
    global _SPELLING_STEMS
    if _SPELLING_STEMS is None:
        _SPELLING_STEMS = {}
        for pair in SPELLINGS:
            a, b = (stem(word) for word in pair.split())
            _SPELLING_STEMS.setdefault(a, set()).add(b)
            _SPELLING_STEMS.setdefault(b, set()).add(a)
    return _SPELLING_STEMS


def _spellings(query: Iterable[str]) -> set[str]:
    """The other spellings of the request's Latin stems (:data:`SPELLINGS`,
    :data:`_SPELLING_RULES`) that are not in it already."""
    out: set[str] = set()
    pairs = _spelling_stems()
    for t in query:
        if not (t.isascii() and t.isalpha()):
            continue
        out.update(pairs.get(t, ()))
        for pattern, other in _SPELLING_RULES:
            if (m := pattern.fullmatch(t)) is not None:
                out.add(other(m))
    return out - set(query)


def _bases(word: str) -> set[str]:
    """``word`` and what it may be inflected from (an ending -s, -es, -ed or -ing taken off, or
    replaced by an "e"); a base that is not a word matches nothing."""
    out = {word}
    for ending in ("s", "es", "ed", "ing"):
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            out.update((word[: -len(ending)], word[: -len(ending)] + "e"))
    return out


def _compound_parts(request: list[str], words: set[str], df: dict[str, int]) -> dict[str, int]:
    """The parts of the request's compound words (``COMPOUND_MIN``), to count as synonyms. A part
    must be a word of the units (the stem of one, as the request's words are stems): the units'
    words are read once, so the cost does not grow with the number of ways to cut a word."""
    missing = [
        t for t in dict.fromkeys(request)
        if COMPOUND_MIN <= len(t) <= COMPOUND_MAX and t not in df and t.isascii() and t.isalpha()
    ]
    if not missing:
        return {}
    missing = sorted(missing, key=lambda t: (-len(t), t))[:COMPOUND_WORDS]
    stems = {stem(w) for w in words} - STOP_WORDS
    group = len(SYNONYMS) + len(_glossary())
    parts: dict[str, int] = {}
    for t in missing:
        fits = [(min(k, len(t) - k), t[:k], t[k:]) for k in range(3, len(t) - 2) if max(k, len(t) - k) >= 5]
        fits = [fit for fit in fits if fit[1] in stems and fit[2] in stems]
        if fits:
            _, first, second = max(fits)  # the most even cut
            for part in (first, second):
                if part not in df and part not in parts:
                    parts[part] = group
            group += 1
    return parts


def _count_as_synonyms(
    parts: dict[str, int], folded: Sequence[str], tfs: list[dict[str, float]], df: dict[str, int], extra: dict[str, int]
) -> None:
    """Count the terms ``parts`` (each with its group) in every unit, at ``SYNONYM_WEIGHT``."""
    if not parts:
        return
    counts, part_df = _count_all(set(parts), folded)
    for tf, found_here in zip(tfs, counts):
        for t, c in found_here.items():
            tf[t] = tf.get(t, 0) + c * SYNONYM_WEIGHT
    df.update(part_df)
    extra.update(parts)


FAMILY_PREFIX = 6
FAMILY_SHARE = 0.75
"""A request word and a word of the units that begin with the same ``FAMILY_PREFIX`` letters, the
shared start being at least ``FAMILY_SHARE`` of the shorter word, are one family: "cancel" and
"cancellation", "compression" and "compress", "keepalive" and ``keepAliveCountMax`` (identifiers
and config keys glue words into one, which no split at punctuation or case finds). The units'
words count as synonyms (half weight). Some pairs are chance ("general" and "generate"); at half
weight they cost little. Not in paragraphs of prose, where words are spelled out and chance pairs
are most of what it finds (on the QA corpus multi-hop reduction fell 0.451 → 0.443, all-gold
0.953 → 0.957). On the real-output tune half (2026-12-07, 828 cases, ``bench/eval_real.py
--quick``): all gold 91.1 % → 91.8 %, reduction 0.381 → 0.376, where a lower threshold buys 0.6
points for 0.013; the other half 89.3 % → 90.1 %, 0.404 → 0.396. Most of it is a request word
at the start of a longer one; the pairs where neither word starts the other gained nothing."""


FAMILY_MEMBERS = 32
"""A prefix that more distinct words of the units share than this names no family in particular
(a listing of ``config…`` keys) and is skipped; it also bounds the work per request word (a
request of 250 ``config…`` words over such a listing took 8 s for 390 kB)."""


def _next_group(extra: dict[str, int]) -> int:
    """A group number of its own, after those of the synonyms, the glossary and ``extra``."""
    return max(extra.values(), default=0) + len(SYNONYMS) + len(_glossary()) + 1


def _family_parts(request: list[str], words: set[str], df: dict[str, int], extra: dict[str, int]) -> dict[str, int]:
    """The words of the units in a family with a request word (``FAMILY_PREFIX``), to count as
    synonyms, each family a group of its own after those in ``extra``."""
    wanted = [t for t in dict.fromkeys(request) if len(t) >= FAMILY_PREFIX and t.isascii() and t.isalpha()]
    if not wanted:
        return {}
    index: dict[str, set[str]] = {}
    for word in words:
        if len(word) >= FAMILY_PREFIX:
            index.setdefault(word[:FAMILY_PREFIX], set()).add(stem(word))
    group = _next_group(extra)
    parts: dict[str, int] = {}
    for t in wanted:
        members = index.get(t[:FAMILY_PREFIX], ())
        if len(members) > FAMILY_MEMBERS:  # a prefix of a whole listing of keys: no family in particular
            continue
        for member in sorted(members):
            if member == t or member in df or member in parts or member in STOP_WORDS:
                continue
            if len(os.path.commonprefix([t, member])) >= FAMILY_SHARE * min(len(t), len(member)):
                parts[member] = group
        group += 1
    return parts


LOANWORDS = True
"""A Japanese request over English units: its katakana words count the English words of the
units they sound like (``scorers/loanwords.py``; デッドロック → "deadlock"), as synonyms."""


def _loanword_parts(basis: str, words: set[str], df: dict[str, int], extra: dict[str, int]) -> dict[str, int]:
    """The words of the units the request's katakana loanwords sound like, to count as synonyms."""
    from toolprune.scorers.loanwords import loanwords

    group = _next_group(extra)  # a group of its own per loanword
    parts: dict[str, int] = {}
    for found in loanwords(fold(basis), words).values():
        for word in found:
            term = stem(word)
            if term not in df and term not in parts and term not in STOP_WORDS:
                parts[term] = group
        group += 1
    return parts


def _add_subjects(query: set[str], folded: Sequence[str], tfs: list[dict[str, float]]) -> None:
    """Count the request's terms in each unit's opening once more."""
    openings, _ = _count_all(query, [f[:SUBJECT_CHARS] for f in folded])
    for tf, opening in zip(tfs, openings):
        for t, c in opening.items():
            if t in tf:  # a word cut at the opening's end may stem to another term
                tf[t] += c


PHRASE_GAP = 1
"""A phrase is found with at most this many tokens between its two words ("Jerry Michael Glanville"
for "Jerry Glanville")."""


def _phrase(a: str, b: str) -> str:
    return a + " " + b  # tokens never contain a space


def _add_phrases(request: list[str], folded: Sequence[str], tfs: list[dict[str, float]], df: dict[str, int]) -> None:
    """Adjacent request tokens ("henri bergson", stop words skipped) become terms of their own,
    counted where the unit has the same two tokens in the same order, at most ``PHRASE_GAP``
    tokens apart. Only units that have both tokens are tokenized."""
    pairs = {(a, b) for a, b in zip(request, request[1:]) if a != b}
    for text, tf in zip(folded, tfs):
        wanted = {p for p in pairs if p[0] in tf and p[1] in tf}
        if not wanted:
            continue
        seq = tokens(text)
        found: dict[str, int] = {}
        for j in range(len(seq) - 1):
            a = seq[j]
            for b in seq[j + 1 : j + 2 + PHRASE_GAP]:
                if (a, b) in wanted:
                    key = _phrase(a, b)
                    found[key] = found.get(key, 0) + 1
                    break
        for key, count in found.items():
            tf[key] = count
            df[key] = df.get(key, 0) + 1


def _parts(
    basis: str,
    query: set[str],
    tfs: list[dict[str, float]],
    lengths: list[int],
    idf: dict[str, float],
    avgdl: float,
    scores: list[float],
) -> list[float]:
    """A request of several parts ("Which came first, Dinosaur or McFarland, USA?") needs the
    best units of each part, even when one part matches far more than the other: each part is
    scored on its own terms and phrases, and its best units keep at least ``PART_FLOOR`` in
    proportion (not a part whose words are nearly everywhere: ``COMMON_PART_SHARE``)."""
    parts = []
    for piece in _PARTS.split(fold(basis)):
        seq = tokens(piece)
        terms = (set(seq) | {_phrase(a, b) for a, b in zip(seq, seq[1:])}) & idf.keys()
        if terms and set(seq) != query:
            parts.append(terms)
    if not 2 <= len(parts) <= MAX_PARTS:
        return scores
    n = len(scores)
    common = _idf(n, int(COMMON_PART_SHARE * n)) if n >= COMMON_PART_UNITS else -1.0
    out = list(scores)
    for terms in parts:
        if max(idf[t] for t in terms) <= common:  # every word of the part is nearly everywhere
            continue
        own = _bm25([{t: f for t, f in tf.items() if t in terms} for tf in tfs], lengths, idf, avgdl)
        top = max(own)
        if top > 0.0:
            out = [max(s, PART_FLOOR * r / top) for s, r in zip(out, own)]
    return out


def _bridge(query: set[str], folded: Sequence[str], scores: list[float], inherit: float = 1.0) -> list[float]:
    """Multi-hop requests ("the woman who played X in Y": the film's paragraph names her, her
    own paragraph shares no word with the request): a unit whose opening names the distinctive
    terms of one of the best units inherits that unit's score, in proportion to how much of
    them it names, times ``inherit``."""
    n = len(folded)
    best = sorted(range(n), key=lambda i: (-scores[i], i))[:BRIDGE_FROM]
    found: dict[str, set[int]] = {}
    for i in best:
        for tok in set(tokens(folded[i])):
            if tok in query or tok.isdigit() or (script(tok[0]) == "o" and len(tok) < 3):
                continue
            found.setdefault(tok, set()).add(i)
    if not found:
        return scores
    if len(found) > BRIDGE_CANDIDATES:
        keep = sorted(found, key=lambda t: (-len(t), t))[:BRIDGE_CANDIDATES]
        found = {t: found[t] for t in keep}
    _, df = _count_all(set(found), folded)
    leads, _ = _count_all(set(found), [f[:BRIDGE_LEAD] for f in folded])
    limit = max(2, int(BRIDGE_MAX_DF * n))
    out = list(scores)
    for source in best:
        terms = sorted(
            (t for t, where in found.items() if source in where and 2 <= df.get(t, 0) <= limit),
            key=lambda t: (df[t], t),
        )[:BRIDGE_TERMS]
        if not terms:
            continue
        weight = {t: _idf(n, df[t]) for t in terms}
        total = sum(weight.values())
        for i in range(n):
            if i != source and leads[i]:
                share = sum(w for t, w in weight.items() if t in leads[i]) / total
                out[i] = max(out[i], scores[source] * share * inherit)
    return out


class LexicalScorer(Scorer):
    name = "lexical"
    sends_data = False
    concurrent = False

    def names(self, basis: str, text: str) -> bool:
        """The request's words, or its words in other words (:data:`SYNONYMS`, the glossary's
        English for a Japanese request) from at least ``MIN_GLOSSARY_GROUPS`` groups when they
        are translations only, as for scoring (a negated auxiliary is no word of the request)."""
        basis = _NEGATED.sub(" ", basis)
        request = tokens(fold(basis))
        if not request:
            return False
        extra = _extra(basis, set(request))
        terms = set(content_terms(request))
        found = (terms | _spellings(terms) | extra.keys()) & set(tokens(fold(text)))
        return bool(found) and not _too_little(dict.fromkeys(found, 1), extra)

    def score(self, request: ScoringRequest, batch: Sequence[int]) -> list[float | None]:
        scores = cast("list[float] | None", request.cache.get("lexical"))  # what this scorer stored there
        if scores is None:
            scores = request.cache["lexical"] = score_units(request.basis, request.units, request.prose)
        return [scores[i] for i in batch]

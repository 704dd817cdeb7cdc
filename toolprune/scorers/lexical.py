"""The built-in lexical scorer: BM25 over the input's own units, calibrated to [0, 1].

Nothing leaves the machine and nothing is downloaded. IDF is computed over the units of this
input, so a word that appears in every unit ("error" in every log line) carries almost no
weight. A unit's score blends two [0, 1] measures:

* ``coverage``: the IDF-weighted share of the request's terms (those that occur anywhere in the
  input) that the unit contains — an absolute measure, comparable across inputs;
* ``relative``: the unit's BM25 score divided by the best unit's — how it ranks in this input.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from toolprune.core.tokens import cjk_counts, fold, script, tokens, word_tokens
from toolprune.scorers.base import Scorer, ScoringRequest

K1 = 1.2
B = 0.75


def _idf(n_units: int, df: int) -> float:
    return math.log(1.0 + (n_units - df + 0.5) / (df + 0.5))


def _matcher(query: set[str]):
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

    def count(folded: str) -> dict[str, int]:
        tf: dict[str, int] = {}
        if pattern is not None and any(t in folded for t in latin):  # substring pre-check, C speed
            for match in pattern.finditer(folded):
                start = match.start()
                if start and folded[start - 1].isalnum() and script(folded[start - 1]) == "o":
                    continue  # inside a longer word (a kanji or kana before it is a boundary)
                for tok in word_tokens(match.group()):
                    if tok in latin_query:
                        tf[tok] = tf.get(tok, 0) + 1
        if cjk and not folded.isascii():  # bigrams only within one script: count them exactly
            counts = cjk_counts(folded)
            for tok in cjk:
                if tok in counts:
                    tf[tok] = counts[tok]
        return tf

    return count


def score_units(basis: str, units: Sequence[str]) -> list[float]:
    """Scores in [0, 1] for every unit; 0 for all when the request shares no term with the input.

    Unit length for BM25's normalisation is measured in characters (C speed, and proportional
    to tokens in practice)."""
    query = set(tokens(fold(basis)))
    n = len(units)
    if not query or n == 0:
        return [0.0] * n
    count = _matcher(query)
    tfs: list[dict[str, int]] = []
    lengths: list[int] = []
    df: dict[str, int] = {}
    for text in units:
        folded = fold(text)
        lengths.append(len(folded))
        tf = count(folded)
        for tok in tf:
            df[tok] = df.get(tok, 0) + 1
        tfs.append(tf)
    if not df:
        return [0.0] * n
    idf = {t: _idf(n, d) for t, d in df.items()}
    total_idf = sum(idf.values())
    avgdl = max(sum(lengths) / n, 1.0)
    raw: list[float] = []
    cov: list[float] = []
    for tf, dl in zip(tfs, lengths):
        norm = K1 * (1.0 - B + B * dl / avgdl)
        raw.append(sum(idf[t] * f * (K1 + 1.0) / (f + norm) for t, f in tf.items()))
        cov.append(sum(idf[t] for t in tf) / total_idf)
    best = max(raw)
    if best <= 0.0:
        return [0.0] * n
    return [min(1.0, 0.5 * (r / best) + 0.5 * c) for r, c in zip(raw, cov)]


class LexicalScorer(Scorer):
    name = "lexical"
    sends_data = False
    concurrent = False

    def score(self, request: ScoringRequest, batch: Sequence[int]) -> list[float | None]:
        scores = request.cache.get("lexical")
        if scores is None:
            scores = request.cache["lexical"] = score_units(request.basis, request.units)
        return [scores[i] for i in batch]

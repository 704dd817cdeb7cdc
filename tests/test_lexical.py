"""The lexical scorer's fast term counting equals counting the tokenizer's tokens."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from toolprune.core.tokens import fold, tokens
from toolprune.scorers.lexical import _matcher

WORDS = ["city", "cities", "running", "run", "runs", "stopped", "stop", "build", "builds", "rebuild",
         "pull_request", "pullrequest", "Pull", "ÉCOLE", "école", "Beyoncé", "日本", "日本語", "首都", "年",
         "2013年", "東京都", "カタカナ", "ひらがな", "の", "a", "the", "classes", "class", "x1", "1st",
         "\x1b[31merror\x1b[0m", "error:", "errors", "studies", "study", "ｂｕｉｌｄ"]  # fmt: skip
text = st.lists(st.sampled_from(WORDS) | st.text(max_size=5), max_size=40).map(
    lambda ws: "".join(w + s for w, s in zip(ws, [" ", "", "\n", "_", "、"] * 8))
)


@settings(max_examples=400, deadline=None)
@given(doc=text, request=st.lists(st.sampled_from(WORDS), min_size=1, max_size=5).map(" ".join))
def test_query_term_counts_match_the_tokenizer(doc, request):
    query = set(tokens(fold(request)))
    if not query:
        return
    folded = fold(doc)
    expected = Counter(t for t in tokens(folded) if t in query)
    assert _matcher(query)(folded) == dict(expected)

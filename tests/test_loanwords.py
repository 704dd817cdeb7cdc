"""Katakana loanwords meet the English words they were borrowed from (scorers/loanwords.py)."""

from __future__ import annotations

import pytest

from toolprune.scorers import lexical
from toolprune.scorers.lexical import score_units
from toolprune.scorers.loanwords import english_key, katakana_key, loanwords

BORROWED = [
    ("インデックス", "index"), ("デッドロック", "deadlock"), ("トランザクション", "transaction"),
    ("ディレクトリ", "directory"), ("エントリ", "entry"), ("ブラウザ", "browser"), ("プロキシ", "proxy"),
    ("フォーマット", "format"), ("コンポーネント", "component"), ("スレッド", "thread"), ("メソッド", "method"),
    ("ロギング", "logging"), ("マイグレーション", "migration"), ("タイムアウト", "timeout"),
    ("プロパティ", "property"), ("ストリーム", "stream"), ("リクエスト", "request"), ("レスポンス", "response"),
    ("エンコーディング", "encoding"), ("パスワード", "password"), ("クライアント", "client"),
    ("スナップショット", "snapshot"), ("テンプレート", "template"), ("バージョン", "version"),
    ("セッション", "session"), ("サーバー", "server"), ("ウィンドウ", "window"), ("ヘッダー", "header"),
]  # fmt: skip


@pytest.mark.parametrize(("katakana", "english"), BORROWED)
def test_a_loanword_and_its_english_word_have_one_skeleton(katakana, english):
    assert katakana_key(katakana) == english_key(english)


def test_skeletons_tell_apart_words_that_only_share_letters():
    assert english_key("indices") != katakana_key("インデックス")
    assert english_key("decision") == "dsgn" and english_key("session") == "sn"
    assert katakana_key("デッドロックA") is None  # not katakana only


def test_short_skeletons_and_crowded_ones_are_left_out():
    words = {"cache", "case", "cash", "index", "deadlock"}
    assert loanwords("キャッシュのインデックス", words) == {"インデックス": ["index"]}  # キャッシュ: k s
    many = {"barter", "better", "bitter", "butter", "batter"}  # b t: two sounds, and five words
    assert loanwords("バターの", many) == {}


def test_a_compound_is_not_cut_into_words():
    """Cut anywhere, the halves of a long word meet some word by chance: トラン|ザクション is
    "trun" and "section" in bash(1)."""
    assert loanwords("トランザクション", {"trun", "section"}) == {}
    assert loanwords("スナップショットインデックス", {"snapshot", "index"}) == {}


UNITS = [
    "SET statement_timeout aborts any statement that takes more than the given time.",
    "If a deadlock is detected while building the index concurrently, the command fails and "
    "leaves behind an invalid index that must be dropped.",
    "VACUUM reclaims storage occupied by dead tuples.",
    "EXPLAIN shows the execution plan that the planner generates for the supplied statement.",
    "COPY moves data between tables and files.",
]


def test_a_japanese_request_meets_english_units_through_its_loanwords(monkeypatch):
    request = "デッドロックで止まったとき、インデックスは残りますか？"
    scores = score_units(request, UNITS)
    assert scores[1] == max(scores) and scores[1] > 0
    monkeypatch.setattr(lexical, "LOANWORDS", False)
    assert score_units(request, UNITS)[1] == 0  # no glossary word, no shared name: nothing to go by


def test_an_output_of_too_many_distinct_words_is_not_looked_up(monkeypatch):
    from toolprune.scorers import loanwords as module

    words = {"index"} | {f"word{'abcdefghij'[i % 10]}{i}x" for i in range(300)}
    assert loanwords("インデックス", words) == {"インデックス": ["index"]}
    monkeypatch.setattr(module, "MAX_WORDS", 100)
    assert loanwords("インデックス", words) == {}


def test_the_bounds_of_a_match_hold_at_their_edges(monkeypatch):
    """Three-letter words and three-kana runs are looked up (ピーディーエフ is "pdf", カフカ
    "kafka"); a skeleton that three words share names all three, four name none; an output of
    exactly ``MAX_WORDS`` words is still looked up."""
    from toolprune.scorers import loanwords as module

    assert loanwords("ピーディーエフを結合したい", {"pdf", "merge"}) == {"ピーディーエフ": ["pdf"]}
    assert loanwords("カフカのトピック", {"kafka", "topic"}) == {"カフカ": ["kafka"], "トピック": ["topic"]}
    assert loanwords("インデックス", {"index", "indox", "undex"}) == {"インデックス": ["index", "indox", "undex"]}
    assert loanwords("インデックス", {"index", "indox", "undex", "endix"}) == {}
    monkeypatch.setattr(module, "MAX_WORDS", 3)
    assert loanwords("インデックス", {"index", "pdf", "merge"}) == {"インデックス": ["index"]}

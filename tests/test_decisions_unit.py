"""The decisions for a JSON document at their boundary (``core/shapes/decisions``): which units
are scored, what a container or a string drops at the threshold, when a record's own fields
answer the request (``answered_outside``), which dropped elements the record's own values name
(``keep_named``), and how ``_pruned`` is kept under 1,000 chars
(``bound_meta``). Documents are found by the real record finder from real JSON text."""

from __future__ import annotations

import json

from toolprune.core.jsonscan import scan
from toolprune.core.plans import Plan, Stats
from toolprune.core.shapes import decisions, records, tree
from toolprune.core.shapes.meta import META_MAX_CHARS, PLACEHOLDER_ID
from toolprune.core.shapes.tree import Doc, JsonString, TextString
from toolprune.core.text import FIXED_CHARS, Unit

CMD = "toolprune omitted"


def doc_of(value: object, text: str | None = None) -> Doc:
    """The document the JSON shape builds for ``value`` (or for ``text``, JSON as written):
    its arrays of records as targets."""
    text = json.dumps(value, indent=1) if text is None else text
    top = scan(text, 2 + records.ENVELOPE_LEVELS, objects_only=True)
    assert top is not None
    strings: list[records.LongString] = []
    targets = records.find(text, top, strings=strings)
    assert targets is not None
    return Doc(text, top, targets, tree.field_strings(text, strings))


def rows(n: int, note: str = "filler about the weather", size: int = 600) -> list[dict]:
    return [{"id": i, "note": (note + " " + "x" * size)[:size]} for i in range(n)]


def no_runs(units, dropped):
    return [(i, i) for i in dropped]


def text_string(content: str, n: int) -> TextString:
    """A string pruned as text, already split into ``n`` paragraphs of ``content``."""
    s = TextString((0, 2), content, True, field=False)
    plan = Plan("nothing_dropped", Stats(), text=content)
    step = len(content) // n
    plan.units = [Unit(i * step, (i + 1) * step) for i in range(n)]
    s.plan = plan
    return s


# -- units --------------------------------------------------------------------------------------


def test_units_are_every_scored_element_then_the_strings_and_the_json_inside_strings():
    outer = doc_of({"items": rows(3)})
    inner = doc_of({"rows": rows(4, "inner")})
    outer.strings.append(JsonString((0, 2), inner.text, True, inner))
    flat = decisions.units(outer)
    assert [(o, i) for o, i, _ in flat] == [(outer.targets[0], i) for i in range(3)] + [
        (inner.targets[0], i) for i in range(4)
    ]
    assert flat[0][2] == outer.text[slice(*outer.targets[0].elements[0])]


def test_units_leave_out_fixed_elements_and_fixed_paragraphs():
    doc = doc_of({"items": [*rows(2), {"id": 9, "note": "y" * (FIXED_CHARS + 10)}]})
    s = text_string("a" * 30, 3)
    s.planned().units[1].fixed = True
    doc.strings.append(s)
    flat = decisions.units(doc)
    assert [(o, i) for o, i, _ in flat] == [(doc.targets[0], 0), (doc.targets[0], 1), (s, 0), (s, 2)]
    assert flat[-1][2] == "a" * 10


# -- decide -------------------------------------------------------------------------------------


def test_decide_drops_below_the_threshold_and_records_every_score():
    doc = doc_of({"items": rows(4)})
    t = doc.targets[0]
    flat = decisions.units(doc)
    decisions.decide(flat, [0.5, 0.1, 0.3, None], 0.3, no_runs)
    assert t.dropped == [1]  # 0.3 is at the threshold: kept; None (not scored) is kept
    assert t.scores == [0.5, 0.1, 0.3, None]


def test_a_string_split_by_its_structure_is_decided_by_the_text_rules_unless_it_is_a_field():
    """A string whose plan has heads (a document, a listing) and keeps some units is handed to
    ``structured`` with its plan and the threshold; a record's long field never is, nor a string
    all of whose units are kept."""
    calls: list = []
    for field, handed, dropped in ((False, 1, []), (True, 1, [1, 3])):  # a field: dropped by its scores alone
        s = text_string("d" * 40, 4)
        s.field = field
        s.planned().heads = [-1, 0, 0, 0]
        flat = [(s, i, "") for i in range(4)]
        decisions.decide(flat, [0.9, 0.0, 0.6, 0.0], 0.5, no_runs, structured=lambda plan, t: calls.append((plan, t)))
        assert len(calls) == handed and s.planned().dropped == dropped
        if not field:
            assert calls[0][0] is s.planned() and calls[0][1] == 0.5
    s = text_string("e" * 40, 4)
    s.planned().heads = [-1, 0, 0, 0]
    decisions.decide([(s, i, "") for i in range(4)], [0.9, 0.8, 0.6, 0.7], 0.5, no_runs, structured=calls.append)
    assert len(calls) == 1  # nothing below the threshold: nothing to decide


def test_decide_records_the_scores_of_a_string_and_drops_its_paragraphs():
    s = text_string("b" * 40, 4)
    s.planned().pinned = {2}
    flat = [(s, i, "") for i in range(4)]
    seen = []

    def runs(units, dropped):
        seen.append(list(dropped))
        return [(dropped[0], dropped[-1])]

    decisions.decide(flat, [0.9, 0.0, 0.1, 0.0], 0.5, runs)
    plan = s.planned()
    assert plan.scores == [0.9, 0.0, 0.1, 0.0]
    assert plan.dropped == [1, 3]  # the pinned paragraph stays
    assert plan.runs == [(1, 3)] and seen == [[1, 3]]


def test_decide_never_empties_a_container_unless_sparse():
    doc = doc_of({"items": rows(3)})
    decisions.decide(decisions.units(doc), [0.1, 0.1, 0.1], 0.5, no_runs)
    assert doc.targets[0].dropped == []  # sparse is off by default: all below means keep all


def test_decide_keeps_nothing_out_when_nothing_is_below():
    doc = doc_of({"items": rows(3)})
    decisions.decide(decisions.units(doc), [0.6, 0.7, 0.5], 0.5, no_runs, sparse=True)
    assert doc.targets[0].dropped == []


def test_sparse_keeps_the_best_unit_and_the_first_on_a_tie():
    doc = doc_of({"a": rows(3), "b": rows(2, "other"), "c": rows(3, "third")})
    a, b, c = doc.targets
    scores = [0.1, 0.3, 0.2] + [0.2, 0.2] + [0.1, 0.1, 0.1]
    decisions.decide(decisions.units(doc), scores, 0.5, no_runs, sparse=True)
    assert a.dropped == [0, 2]
    assert b.dropped == [1]  # two units, both below: the first stays
    assert c.dropped == [1, 2]


def test_a_record_field_keeps_its_best_paragraph_when_none_is_relevant():
    s = text_string("c" * 30, 3)
    s.field = True
    decisions.decide([(s, i, "") for i in range(3)], [0.1, 0.2, 0.1], 0.5, no_runs)
    assert s.planned().dropped == [0, 2]


# -- answered_outside ---------------------------------------------------------------------------


def test_a_request_of_stop_words_only_is_never_answered_outside():
    doc = doc_of({"name": "what", "items": rows(3)})
    assert decisions.answered_outside(doc, "what is it?") is False


def test_the_records_own_values_answer_the_request():
    doc = doc_of({"engines": "kiwi 18", "versions": rows(3)})
    assert decisions.answered_outside(doc, "which kiwi does it need?") is True


def test_words_inside_the_scored_elements_do_not_count():
    doc = doc_of({"versions": rows(2, "kiwi"), "extra": rows(2, "banana"), "name": "plain"})
    assert decisions.answered_outside(doc, "kiwi") is False  # only in elements that were scored
    assert decisions.answered_outside(doc, "banana") is False  # in the second cut, too
    assert decisions.answered_outside(doc, "plain") is True


def test_an_element_too_big_to_score_counts_as_the_rest():
    big = {"id": 7, "fruit": "kiwi", **{f"k{i}": "y" * 40 for i in range(FIXED_CHARS // 40)}}
    doc = doc_of({"versions": [*rows(2), big]})
    assert doc.targets[0].fixed(2)
    assert decisions.answered_outside(doc, "kiwi") is True


def test_member_names_and_the_glue_between_pieces_add_no_words():
    doc = doc_of({"kiwi": "plain", "versions": rows(2), "more": rows(2, "other")})
    assert decisions.answered_outside(doc, "kiwi") is False  # a key, not a value
    assert decisions.answered_outside(doc, "xx") is False


def test_the_scorers_other_words_for_the_request_count_when_it_is_asked():
    """A Japanese request over English JSON names nothing in the record's own words; the
    lexical scorer's glossary does ("パッケージ" is "package"), from two groups at least."""
    from toolprune.scorers.lexical import LexicalScorer

    doc = doc_of({"description": "schema validation library", "exports": {"./v3": "./v3/index.cjs"},
                  "versions": rows(3)})  # fmt: skip
    request = "古いスキーマ定義を読み込めるバリデーションの入口はある？"
    assert decisions.answered_outside(doc, request) is False  # the words alone
    assert decisions.answered_outside(doc, request, LexicalScorer().names) is True
    one = doc_of({"description": "a library", "versions": rows(3)})
    assert decisions.answered_outside(one, "ライブラリの入口はある？", LexicalScorer().names) is False  # one group


# -- keep_named ---------------------------------------------------------------------------------


def release_times(n: int = 40) -> dict[str, str]:
    """A map of release times keyed by version, long enough to be pruned member by member."""
    return {f"1.{i}.0": f"2024-01-{i % 28 + 1:02d}T00:00:00.000Z" for i in range(n)}


def test_a_map_member_named_by_a_kept_value_comes_back():
    """``npm view``: ``dist-tags.latest`` names the member of ``time`` that says when it came out."""
    doc = doc_of({"dist-tags": {"latest": "1.7.0"}, "time": release_times()})
    (t,) = doc.targets
    t.dropped = list(range(40))
    decisions.keep_named(doc)
    assert t.dropped == [i for i in range(40) if i != 7]


def test_an_array_element_named_by_a_kept_value_comes_back():
    versions = [f"2.{i}.{j}" + " " * 60 for i in range(4) for j in range(5)]  # an array of 1,000+ chars
    doc = doc_of({"version": versions[13], "versions": versions})
    (t,) = doc.targets
    t.dropped = list(range(len(versions)))
    decisions.keep_named(doc)
    assert t.dropped == [i for i in range(len(versions)) if i != 13]


def test_the_newest_release_of_a_version_line_the_request_names_comes_back():
    """"we must stay on 1.x: which is its newest release, and when was it out?" — the highest
    stable 1.x in ``versions`` and its member of ``time``, whichever scored what."""
    times = {**{f"1.{i}.{j}": f"2024-0{i % 9 + 1}-1{j}T00:00:00.000Z" for i in range(30) for j in range(3)},
             "1.29.3-beta.1": "2024-09-20T00:00:00.000Z", "2.0.0": "2025-01-01T00:00:00.000Z",
             "10.0.0": "2025-06-01T00:00:00.000Z"}  # fmt: skip
    doc = doc_of({"time": times, "versions": list(times)})
    assert [t.path for t in doc.targets] == [("time",), ("versions",)]
    for t in doc.targets:
        t.dropped = list(range(len(t.elements)))
    decisions.keep_version_lines(decisions.version_elements(doc, "we must stay on 1.x: which is its newest release?"))
    kept = [doc.text[a:b].split('"')[1] for t in doc.targets for i, (a, b) in enumerate(t.elements) if i not in t.dropped]
    assert kept == ["1.29.2", "1.29.2"]  # in both; not the beta, not 10.0.0
    decisions.keep_version_lines(decisions.version_elements(doc, "what changed in the latest release?"))  # no line named: nothing
    assert decisions.version_lines("8 系の一番新しい版と v4、the 0.3 series、IPv4 と python3.12") == [(8,), (4,), (0, 3)]
    # Japanese runs its words together: a line named right after or before a kana or kanji
    assert decisions.version_lines("古い管理画面がまだ使っているv2系の最終バージョン") == [(2,)]
    assert decisions.version_lines("バージョン3系と4.x系、v5です") == [(3,), (4,), (5,)]


def test_the_previous_major_line_is_the_one_before_the_newest_stable_major():
    """"the latest major broke us: which version do we pin to on the previous major?" — the
    highest stable release of the major line below the newest stable one (a beta of a newer major
    does not count), and the newest release, what "previous" is measured from."""
    times = {**{f"{m}.{i}.0": f"202{m % 10}-0{i % 9 + 1}-01T00:00:00.000Z" for m in (7, 8, 9) for i in range(12)},
             "10.0.0-beta.2": "2025-06-01T00:00:00.000Z", "created": "2019-01-01T00:00:00.000Z"}  # fmt: skip
    for request in ("If we pin to the previous major instead, which exact version?", "一つ前のメジャーの最新版は？"):
        doc = doc_of({"time": times})
        (t,) = doc.targets
        t.dropped = list(range(len(t.elements)))
        decisions.keep_version_lines(decisions.version_elements(doc, request))
        kept = [doc.text[a:b].split('"')[1] for i, (a, b) in enumerate(t.elements) if i not in t.dropped]
        assert kept == ["8.11.0", "9.11.0"], request
    assert decisions.version_elements(doc_of({"time": times}), "which is the newest release?") == []
    inner = doc_of({"time": times})  # `npm view --json` inside an MCP text item: its own text
    outer = doc_of({"items": rows(3)})
    outer.strings.append(JsonString((0, 2), inner.text, True, inner))
    (t,) = inner.targets
    t.dropped = list(range(len(t.elements)))
    decisions.keep_version_lines(decisions.version_elements(outer, "pin to the prior major"))
    assert [inner.text[slice(*t.elements[i])].split('"')[1] for i in range(len(t.elements)) if i not in t.dropped] == [
        "8.11.0", "9.11.0"]  # fmt: skip
    two = doc_of({"time": {f"{m}.{i}.0": "2024-01-01T00:00:00.000Z" for m in (1, 2) for i in range(20)}})
    assert [i for _, i in decisions.version_elements(two, "the previous major")] == [19, 39]  # two majors: enough
    both = decisions.version_elements(doc_of({"time": times}), "the newest 7.x, or else the previous major")
    assert len(both) == 3  # a named line and the previous major's, with the newest
    hosts = doc_of({"hosts": [f"10.0.{i}.{j}" for i in range(2) for j in range(60)] + ["192.168.1.1"]})
    assert hosts.targets and decisions.version_elements(hosts, "the previous major") == []  # addresses, no releases
    mixed = doc_of({"time": {**{f"k{i}": f"note {i} " * 4 for i in range(40)}, "1.0.0": "a", "2.0.0": "b"}})
    assert mixed.targets and decisions.version_elements(mixed, "the previous major") == []  # mostly no releases
    one_major = doc_of({"time": {f"3.{i}.0": "2024-01-01T00:00:00.000Z" for i in range(40)}})
    assert one_major.targets and decisions.version_elements(one_major, "pin to the previous major") == []


def test_only_values_name_and_only_outside_the_pruned_elements():
    long_name = "1.4.0" * 41  # over NAMED_MAX_CHARS
    doc = doc_of({"1.3.0": "a key is not a name", "time": {**release_times(), long_name: "x"}, "other": {"x": long_name}})
    (t,) = doc.targets
    t.dropped = list(range(41))
    decisions.keep_named(doc)
    assert t.dropped == list(range(41))
    inner = doc_of({"time": release_times(), "notes": [{"id": i, "see": "1.5.0", "pad": "y" * 200} for i in range(8)]})
    for target in inner.targets:
        target.dropped = list(range(len(target.elements)))
    decisions.keep_named(inner)  # "1.5.0" is said only inside elements that were dropped
    assert all(len(target.dropped) == len(target.elements) for target in inner.targets)


def test_a_long_list_of_strings_names_nothing_and_the_names_are_the_containers_own():
    """``dependencies`` pin other packages' versions: nine members are a list, not tags. A
    container further down is named by the object that holds it, not by the top."""
    deps = {f"dep{i}": f"1.{i}.0" for i in range(decisions.TAGS_MAX_MEMBERS + 1)}
    doc = doc_of({"dependencies": deps, "time": release_times()})
    doc.targets[0].dropped = list(range(40))
    decisions.keep_named(doc)
    assert doc.targets[0].dropped == list(range(40))
    doc = doc_of({"version": "1.2.0", "package": {"version": "1.9.0", "time": release_times()}})
    (t,) = doc.targets
    assert t.path == ("package", "time")
    t.dropped = list(range(40))
    decisions.keep_named(doc)
    assert t.dropped == [i for i in range(40) if i != 9]


def test_a_container_gets_back_at_most_named_max_and_escapes_are_read():
    doc = doc_of({"tags": {f"t{i}": f"1.{i}.0" for i in range(6)}, "time": release_times()})
    (t,) = doc.targets
    t.dropped = list(range(40))
    decisions.keep_named(doc)
    assert t.dropped == list(range(decisions.NAMED_MAX, 40))  # six named, the first four back
    text = json.dumps({"label": "café", "time": {**release_times(), "café": "x"}}, indent=1, ensure_ascii=False)
    doc = doc_of(None, text.replace('"label": "café"', '"label": "caf\\u00e9"'))  # escaped here only
    doc.targets[0].dropped = list(range(41))
    decisions.keep_named(doc)
    assert doc.targets[0].dropped == list(range(40))


def test_what_a_record_says_about_itself_at_the_edges_of_the_bounds():
    """A one-character string is a name and an empty one is not; a value of ``NAMED_MAX_CHARS``
    names, one more character does not (a description); a member object of exactly
    ``TAGS_MAX_MEMBERS`` strings names its values."""
    n = decisions.NAMED_MAX_CHARS
    assert decisions._string('"a"', 0, 3) == "a"
    assert decisions._string('""', 0, 2) is None and decisions._string('xx""', 2, 4) is None
    assert decisions._string('"' + "v" * n + '"', 0, n + 2) == "v" * n
    assert decisions._string('"' + "v" * (n + 1) + '"', 0, n + 3) is None
    tags = {f"t{i}": f"2.{i}.0" for i in range(decisions.TAGS_MAX_MEMBERS)}
    doc = doc_of({"version": "1.0.0", "description": "d" * (n + 1), "dist-tags": tags})
    assert decisions._names(doc, doc.top) == {"1.0.0", *tags.values()}  # the long description names nothing


# -- bound_meta ---------------------------------------------------------------------------------


def pruned_doc(n: int, name: str = "list", size: int = 120) -> Doc:
    """``n`` arrays of 10 records, each with elements 1..9 dropped; the earlier arrays save most."""
    doc = doc_of({f"{name}{k:03d}": rows(10, size=size + (n - k)) for k in range(n)})
    for t in doc.targets:
        t.dropped = list(range(1, 10))
    return doc


def test_every_pruned_container_gets_a_placeholder_id_before_measuring():
    doc = pruned_doc(2)
    doc.targets[1].record_id = "P000000000001"
    decisions.bound_meta(doc, CMD, "en")
    assert [t.record_id for t in doc.targets] == [PLACEHOLDER_ID, "P000000000001"]


def test_the_containers_saving_least_are_left_whole_with_nothing_dropped():
    doc = pruned_doc(30)
    assert len(doc.meta(CMD, "en")) >= META_MAX_CHARS
    decisions.bound_meta(doc, CMD, "en")
    assert len(doc.meta(CMD, "en")) < META_MAX_CHARS
    whole = [t for t in doc.targets if not t.dropped]
    assert whole and all(t.dropped == [] for t in whole)
    pruned = doc.pruned()
    assert max(t.node.start for t in pruned) < min(t.node.start for t in whole)
    # the last one left whole was needed: pruning it again goes back over the limit
    last = min(whole, key=lambda t: t.node.start)
    last.dropped = list(range(1, 10))
    assert len(doc.meta(CMD, "en")) >= META_MAX_CHARS


def test_of_two_that_save_the_same_the_later_is_left_whole_first():
    doc = doc_of({f"list{k:03d}": rows(10) for k in range(30)})
    for t in doc.targets:
        t.dropped = list(range(1, 10))
    decisions.bound_meta(doc, CMD, "en")
    kept = [t.key for t in doc.pruned()]
    assert kept == [f"list{k:03d}" for k in range(len(kept))] and 0 < len(kept) < 30


def test_pruned_exactly_at_1000_chars_is_over_the_limit():
    def candidate(n: int, name: str, longer: int) -> Doc:
        doc = pruned_doc(n, name=name)
        for t in doc.targets:
            t.record_id = PLACEHOLDER_ID
        for t in doc.targets[:longer]:
            t.key += "y"
        return doc

    found = (
        doc
        for n in range(6, 12) for width in range(1, 30) for longer in range(n)
        if len((doc := candidate(n, "n" * width, longer)).meta(CMD, "en")) == META_MAX_CHARS
    )
    doc = next(found)
    n = len(doc.targets)
    decisions.bound_meta(doc, CMD, "en")
    assert len(doc.pruned()) == n - 1  # one left whole: 1,000 is already too long
    assert len(doc.meta(CMD, "en")) < META_MAX_CHARS


def test_json_inside_a_string_is_bounded_with_the_same_command_and_language():
    long_cmd = "/opt/tools/bin/" + "t" * 60 + " omitted"
    for lang in ("en", "ja"):
        inner = pruned_doc(12)
        outer = doc_of({"text": "x"})
        outer.strings.append(JsonString((0, 2), inner.text, True, inner))
        decisions.bound_meta(outer, long_cmd, lang)
        meta = inner.meta(long_cmd, lang)
        assert len(meta) < META_MAX_CHARS, lang
        assert long_cmd in meta and (("省略" in meta) == (lang == "ja"))
        assert all(t.record_id == PLACEHOLDER_ID for t in inner.pruned())
        # and no more was left whole than needed in this language: pruning the last one again is too long
        last = min((t for t in inner.targets if not t.dropped), key=lambda t: t.node.start)
        last.dropped = list(range(1, 10))
        assert len(inner.meta(long_cmd, lang)) >= META_MAX_CHARS, lang

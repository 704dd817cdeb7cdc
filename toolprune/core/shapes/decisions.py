"""Decisions for a JSON document (a :class:`~toolprune.core.shapes.tree.Doc`): the units to
score, which of them are dropped, and which pruned containers are left whole so that
``_pruned`` stays short (see ``meta``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from toolprune.core.jsonscan import Node
from toolprune.core.shapes.meta import META_MAX_CHARS, PLACEHOLDER_ID
from toolprune.core.shapes.records import Target, child, member_name
from toolprune.core.shapes.tree import Doc, JsonString, TextString

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import TypeAlias

    from toolprune.core.plans import Plan
    from toolprune.core.text import Unit

    Owner: TypeAlias = "Target | TextString"
    """What a scored unit belongs to: a container's element, a string's paragraph."""


def units(doc: Doc) -> list[tuple[Owner, int, str]]:
    """Every unit to score, in document order of the parts: (owner, index, text)."""
    out: list[tuple[Owner, int, str]] = []
    for t in doc.targets:
        out += [(t, i, doc.text[s:e]) for i, (s, e) in enumerate(t.elements) if not t.fixed(i)]
    for s in doc.strings:
        if isinstance(s, JsonString):
            out += units(s.doc)
        elif s.plan is not None:
            out += [(s, i, s.content[u.start : u.end]) for i, u in enumerate(s.plan.units) if not u.fixed]
    return out


def decide(
    flat: Sequence[tuple[Owner, int, str]], scores: Sequence[float | None], threshold: float,
    runs: Callable[[Sequence[Unit], Sequence[int]], list[tuple[int, int]]], sparse: bool = False,
    structured: Callable[[Plan, float], None] | None = None,
) -> None:
    """Per container and per string: drop what scored below the threshold, unless that is all
    of it or none of it (an array is never emptied, a string never reduced to markers). When all
    of it is below, only its best unit (the first on a tie) stays: for a record's long field
    (``TextString.field``) always, and for every container and string when ``sparse`` (see
    :func:`answered_outside`). A string split by its structure (a document, ``git log``, a
    listing: its plan has heads) that keeps some units and drops others is decided by
    ``structured`` instead, the rules of the text shape: a kept unit keeps its heading and
    introduction, weak matches far from the strong ones go, short runs stay. Not a record's long
    field (a package's description in ``pip --report``): there the headings kept cost more
    than they said (on the real-output tune half two such cases cut less, one fell under the
    floor), and a field keeps its best paragraph anyway."""
    by_owner: dict[int, tuple[Owner, list[tuple[int, float]]]] = {}
    for (owner, i, _), score in zip(flat, scores):
        entry_ = by_owner.setdefault(id(owner), (owner, []))
        if score is not None:
            entry_[1].append((i, score))
        if isinstance(owner, Target):
            owner.scores[i] = score
        elif owner.plan is not None:
            owner.plan.scores = owner.plan.scores or [None] * len(owner.plan.units)
            owner.plan.scores[i] = score
    for owner, pairs in by_owner.values():
        below = [i for i, s in pairs if s < threshold]
        if below and len(below) == len(pairs) and len(pairs) > 1 and (sparse or getattr(owner, "field", False)):
            # a record's long field none of whose paragraphs is relevant (the readme of a package
            # the request is not about), or a container of a record whose own fields hold the
            # answer: the best unit stays to show what it held, the rest is named by a marker
            best = max(pairs, key=lambda p: (p[1], -p[0]))[0]
            below = [i for i in below if i != best]
        elif not below or len(below) == len(pairs):
            continue
        if isinstance(owner, Target):
            owner.dropped = below
        elif structured is not None and owner.planned().heads and not getattr(owner, "field", False):
            structured(owner.planned(), threshold)
        else:
            plan = owner.planned()
            plan.dropped = [i for i in below if i not in plan.pinned]
            plan.runs = runs(plan.units, plan.dropped)


_KEY = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"[ \t\r\n]*:')
_LEADING_KEY = re.compile(r'[ \t\r\n]*"([^"\\]*(?:\\.[^"\\]*)*)"[ \t\r\n]*:')

NAMED_MAX = 4
"""At most this many elements of one container are kept by :func:`keep_named`."""
NAMED_MAX_CHARS = 200
"""A value longer than this names nothing (it is a description, not a name)."""
TAGS_MAX_MEMBERS = 8
"""A member object of at most this many members, all strings, names what its values say
(``npm view``'s ``dist-tags``: ``latest``, ``next``, ``beta``); a longer one is a list of its own
(``dependencies``: their version ranges are not the package's versions)."""
TAGS_MAX_CHARS = 4_000
"""Eight names of at most ``NAMED_MAX_CHARS`` each fit in this; a longer member object is not
scanned for names."""


def _string(text: str, a: int, b: int) -> str | None:
    """The value of the JSON string literal at ``text[a:b]``, or None when it is not one or is
    too long to be a name."""
    if b - a < 3 or text[a] != '"' or b - a > NAMED_MAX_CHARS + 2:
        return None
    raw = text[a + 1 : b - 1]
    if "\\" not in raw:
        return raw
    import json

    return json.loads(text[a:b])


def _holder(doc: Doc, path: tuple[str, ...], nodes: dict[tuple[str, ...], Node | None]) -> Node | None:
    """The object at ``path`` (None when the path passes through an array or is ambiguous),
    each prefix looked up once (``nodes``), so a deep chain is scanned once, not once a target."""
    if path in nodes:
        return nodes[path]
    node: Node | None = doc.top
    if path:
        parent = _holder(doc, path[:-1], nodes)
        node = None
        if parent is not None and parent.kind == "{":
            found = [v for k, v, _ in parent.members(doc.text) if member_name(k) == path[-1]]
            if len(found) == 1 and doc.text[found[0]] == "{":
                node = child(doc.text, parent, found[0])
    nodes[path] = node
    return node


def _names(doc: Doc, node: Node) -> set[str]:
    """The string values the object ``node`` says about itself: its own string members
    (``"version": "10.16.0"``) and the values of its small all-string member objects
    (``"dist-tags": {"latest": "10.16.0"}``, at most ``TAGS_MAX_CHARS`` raw chars: a bigger one
    is not read at all)."""
    text = doc.text
    names: set[str] = set()
    for _, v, e in node.members(text):
        if text[v] == '"':
            names.add(_string(text, v, e) or "")  # "" (too long) is discarded below
        elif text[v] == "{" and e - v <= TAGS_MAX_CHARS:
            members = child(text, node, v).members(text)
            values = [_string(text, mv, me) for _, mv, me in members]
            if len(members) <= TAGS_MAX_MEMBERS and all(values):
                names.update(x for x in values if x)
    names.discard("")
    return names


def keep_named(doc: Doc) -> None:
    """Keep the dropped elements that the record's own fields name: a member of a pruned map
    whose key, or an element of a pruned array whose string value, the object holding that
    container says in one of its string members or small all-string member objects (see
    :func:`_names`). ``npm view --json`` says ``"dist-tags": {"latest": "10.16.0"}`` and
    ``"version": "10.16.0"``, and ``time`` is a map of 435 release times keyed by version:
    "when did the latest come out?" needs ``"10.16.0": "2026-11-27…"``, which shares no word with
    the request. A second hop the scores cannot see, taken only through the document's own
    references; at most ``NAMED_MAX`` elements of a container, and JSON documents inside strings
    the same way."""
    for s in doc.strings:
        if isinstance(s, JsonString):
            keep_named(s.doc)
    nodes: dict[tuple[str, ...], Node | None] = {}
    holders: dict[tuple[str, ...], set[str]] = {}  # each holder read once, however many it holds
    for t in doc.pruned():
        if not t.path:
            continue  # the top itself: nothing holds it
        path = t.path[:-1]
        if path not in holders:
            node = _holder(doc, path, nodes)
            holders[path] = _names(doc, node) if node is not None and node.kind == "{" else set()
        named = holders[path]
        if not named:
            continue
        back: set[int] = set()
        for i in t.dropped:
            a, b = t.elements[i]
            if t.kind == "{":
                key = _LEADING_KEY.match(doc.text, a, b)
                name = _string(doc.text, key.start(1) - 1, key.end(1) + 1) if key else None
            else:
                name = _string(doc.text, a, b)
            if name in named:
                back.add(i)
                if len(back) == NAMED_MAX:
                    break
        t.dropped = [i for i in t.dropped if i not in back]


_LINE = re.compile(  # ASCII bounds: a Japanese request runs its words into "v2系" (「…使っているv2系の…」)
    r"(?<![A-Za-z0-9_.])[vV]?(\d{1,4}(?:\.\d{1,4})?)\.[xX*](?![A-Za-z0-9_.])"  # 8.x, v4.x, 0.3.x, 3.*
    r"|(?<![A-Za-z0-9_.])[vV](\d{1,4})(?![A-Za-z0-9_.])"  # v4
    r"|(?<![A-Za-z0-9_.])[vV]?(\d{1,4}(?:\.\d{1,4})?)\s*(?:系|系列|(?:release |major )?(?:line|series|branch)\b)"
)
_VERSION = re.compile(r"\d{1,9}(?:\.\d{1,9}){1,3}")


_PREVIOUS = re.compile(r"\b(?:previous|prior)\s+major\b|(?:一つ|ひとつ|1つ)?前のメジャー", re.I)
"""A request for the line before the newest: "pin to the previous major", 「一つ前のメジャー」."""


def version_lines(basis: str) -> list[tuple[int, ...]]:
    """The version lines a request names: "the newest 8.x", "v4", 「5 系」, "the 0.3 series"."""
    lines = []
    for match in _LINE.finditer(basis):
        text = next(g for g in match.groups() if g)
        lines.append(tuple(int(x) for x in text.split(".")))
    return list(dict.fromkeys(lines))


def version_elements(doc: Doc, basis: str) -> list[tuple[Target, int]]:
    """The newest release of each version line the request names ("we have to stay on 8.x:
    which is the newest 8.x and when did it come out?"), or of the major line before the newest
    one ("the latest major broke us; which version do we pin to on the previous major?", with the
    newest release of the newest major, what "previous" is measured from): in each array of
    version strings or map keyed by versions (``npm view --json``'s ``versions`` and ``time``, in
    this document and in JSON held in its strings), the element of the highest stable version
    (no ``-beta``) of that line. Which release is the newest of a line is a matter of the
    numbers; no word of the request names it."""
    named = version_lines(basis)
    previous = _PREVIOUS.search(basis) is not None
    if not named and not previous:
        return []
    found = []
    for t, text in doc.all_targets_with_text():
        versions = []
        for i, (a, b) in enumerate(t.elements):
            if t.kind == "{":
                key = _LEADING_KEY.match(text, a, b)
                name = _string(text, key.start(1) - 1, key.end(1) + 1) if key else None
            else:
                name = _string(text, a, b)
            if name and _VERSION.fullmatch(name):
                versions.append((tuple(int(x) for x in name.split(".")), i))
        lines = list(named)
        # majors of releases (not four numbers: an IPv4 address), in a container that is mostly releases
        majors = sorted({version[0] for version, _ in versions if len(version) <= 3})
        if previous and len(majors) >= 2 and 2 * len(versions) >= len(t.elements):  # and the newest major:
            lines += [(majors[-2],), (majors[-1],)]  # what "previous" is measured from
        best: dict[tuple[int, ...], tuple[tuple[int, ...], int]] = {}
        for version, i in versions:
            for line in lines:
                if version[: len(line)] == line and (line not in best or version > best[line][0]):
                    best[line] = (version, i)
        found += [(t, i) for i in sorted({i for _, i in best.values()})]
    return found


def keep_version_lines(found: list[tuple[Target, int]]) -> None:
    """Take back, from the pruned arrays and maps, the elements :func:`version_elements` found
    that they dropped."""
    for t, i in found:
        if i in t.dropped:
            t.dropped = [j for j in t.dropped if j != i]


def answered_outside(doc: Doc, basis: str, names: Callable[[str, str], bool] | None = None) -> bool:
    """When no unit of the document scored at the threshold: does the rest of it (what is
    always kept: the record's own fields, elements too big to score) name a content word of the
    request in its values? Then the request is about the record and its containers are bulk
    (``npm view``'s version list and release times for "which Node.js does it need?", answered
    by ``engines``), so each keeps only its best unit instead of the whole input passing
    through. Keys are left out (every record has a ``name``), and so are stop words. ``names``:
    the scorer's test (:meth:`Scorer.names`: the glossary's English for a Japanese request);
    by default the words themselves."""
    from toolprune.core.tokens import fold, tokens

    query = set(tokens(fold(basis)))
    if not query:
        return False
    cut = sorted([span for t in doc.targets for i, span in enumerate(t.elements) if not t.fixed(i)]
                 + [s.span for s in doc.strings])
    pieces, pos = [], 0
    for a, b in cut:
        pieces.append(doc.text[pos:a])
        pos = max(pos, b)
    pieces.append(doc.text[pos:])
    rest = _KEY.sub(" ", " ".join(pieces))
    if names is None:
        return bool(query & set(tokens(fold(rest))))
    return names(basis, rest)


def bound_meta(doc: Doc, command: str, lang: str) -> None:
    """Leave whole the pruned containers saving least until ``_pruned`` is under 1,000 chars."""
    for t in doc.pruned():
        t.record_id = t.record_id or PLACEHOLDER_ID
    while doc.pruned() and len(doc.meta(command, lang)) >= META_MAX_CHARS:
        min(doc.pruned(), key=lambda t: (t.dropped_chars(), -t.node.start)).dropped = []
    for s in doc.strings:
        if isinstance(s, JsonString):
            bound_meta(s.doc, command, lang)

"""``--explain``: why each unit was kept or dropped, as rows a terminal table or a script can use."""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from toolprune.core.plans import Plan
    from toolprune.core.shapes.tree import Doc

_SPACE = re.compile(r"\s+")
# What a terminal would act on instead of showing: C0 controls (tabs and line breaks are folded
# into spaces before), DEL, C1 controls (U+009B is a CSI on its own) and the bidirectional
# overrides and isolates that reorder what follows them.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def inert(text: str) -> str:
    """``text`` with every control character written out as an escape (``\\x1b``, ``\\u202e``)."""
    return _CONTROL.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def rows(plan: Plan, outcome: str = "ok") -> list[dict]:
    """One row per unit of a text, log or JSON-arrays plan: index, size, score, decision and the
    first words. Decisions: kept, dropped, fixed (too large to score, always kept), pinned (a
    log's tail or signal lines), passing (a located failure's block that only lists tests that
    passed), far (a document's weak match, at or above the threshold, far from every strong
    one), island (in a short stretch of weak units between two dropped runs, dropped with them
    under one marker, whatever its score), short (dropped by its score, but no longer than the marker
    that would replace it, so kept), budget (dropped only to fit --max-chars/--max-lines); when the
    ``outcome`` is a passthrough every unit is in the output: the units that scored below the
    threshold say ``below``, the others ``kept``."""
    out = _rows(plan)
    if outcome != "ok":
        threshold = plan.stats.threshold
        for row in out:
            if row["decision"] in ("dropped", "budget", "passing", "far", "island", "short"):
                score = row["score"]
                below = threshold is None or score is None or score < threshold
                row["decision"] = "below" if below else "kept"
    return out


def _rows(plan: Plan) -> list[dict]:
    from toolprune.core.plans import TreePlan

    out: list[dict] = []
    if isinstance(plan, TreePlan):  # containers (with the JSON inside strings), then strings pruned as text
        texts = {id(t): d.text for d in _docs(plan.doc) for t in d.targets}
        for target in plan.doc.all_targets():
            dropped = set(target.dropped)
            for i, (s, e) in enumerate(target.elements):
                decision = "fixed" if target.fixed(i) else ("dropped" if i in dropped else "kept")
                out.append(_row(texts[id(target)][s:e], i, target.scores[i], decision, array=target.key))
        for string in plan.doc.text_strings():
            sub = string.plan
            if sub is None:
                continue
            scores, dropped = sub.scores or [None] * len(sub.units), set(sub.dropped)
            for i, unit in enumerate(sub.units):
                if unit.fixed:
                    decision = "fixed"
                elif i in dropped:  # a document in a string is decided by the structure rules too
                    decision = "far" if i in sub.far else "island" if i in sub.islands else "dropped"
                else:
                    decision = "pinned" if i in sub.pinned else "short" if i in sub.short else "kept"
                text = string.content[unit.start : unit.end]
                out.append(_row(text, i, scores[i], decision, array=string.key or "(text)"))
        return out
    units = plan.units
    scores = plan.scores or [None] * len(units)
    dropped = set(plan.dropped)
    relevance = set(plan.dropped_by_relevance) if plan.budget_drops else dropped
    for i, unit in enumerate(units):
        if unit.fixed and i not in dropped:
            decision = "fixed"
        elif unit.fixed:  # too large to score, and dropped only to fit the bound
            decision = "budget"
        elif i in dropped:
            why = ("passing" if i in plan.passing else "far" if i in plan.far
                   else "island" if i in plan.islands else "dropped")
            decision = why if i in relevance else "budget"
        elif i in plan.pinned:
            decision = "pinned"
        elif i in plan.short:
            decision = "short"
        else:
            decision = "kept"
        out.append(_row(plan.text[unit.start : unit.end], i, scores[i], decision))
    return out


def _docs(doc: Doc) -> list[Doc]:
    from toolprune.core.shapes.tree import JsonString

    out = [doc]
    for s in doc.strings:
        if isinstance(s, JsonString):
            out += _docs(s.doc)
    return out


def _row(text: str, index: int, score: float | None, decision: str, **extra: str) -> dict:
    words = inert(_SPACE.sub(" ", text[:200]).strip()[:60])
    return {**{k: inert(v) for k, v in extra.items()}, "unit": index, "chars": len(text),
            "score": None if score is None else round(score, 3), "decision": decision, "starts": words}

"""Quality evaluation of the default pipeline on the labelled QA corpus.

    python bench/eval_quality.py ../shared/corpus [--threshold standard] [--limit N] [--curve]
                                 [--scorer lexical|semantic] [--sweep 0.14,0.16,...]

Each item's paragraphs are joined by blank lines and padded with paragraph blocks of other
items of the same file (seeded, before or after) until the document has at least 6,000 chars.
The pipeline runs with the default settings and ``--basis question``. Reported per dataset and
per language: the share of items whose gold paragraphs were all kept, gold-paragraph recall,
character reduction (1 - chars out / chars in, markers included; passthrough counts as 0),
outcome counts and median time — and, at the same output size per item, the same figures for a
head cut, a tail cut and a random paragraph drop.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # measure this checkout

from toolprune.core.models import PLACEHOLDER_ID, Options  # noqa: E402
from toolprune.core.pipeline import plan  # noqa: E402
from toolprune.scorers import get_scorer  # noqa: E402
from toolprune.settings import THRESHOLDS, parse_threshold  # noqa: E402

SEED = 20251130
MIN_DOC = 6_000


def build_docs(path: Path, rng: random.Random, limit: int | None):
    items = [json.loads(line) for line in path.open(encoding="utf-8")]
    if limit:
        items = items[:limit]
    for idx, item in enumerate(items):
        paras = list(item["paragraphs"])
        gold = set(item["gold"])
        before: list[str] = []
        after: list[str] = []
        size = len("\n\n".join(paras))
        while size < MIN_DOC:
            other = items[rng.randrange(len(items))]
            if other is item:
                continue
            block = [p for p in other["paragraphs"]]
            if rng.random() < 0.5:
                before = block + before
            else:
                after = after + block
            size += len("\n\n".join(block)) + 2
        all_paras = before + paras + after
        gold_idx = {len(before) + g for g in gold}
        yield item, all_paras, gold_idx


def spans_of(paras: list[str]) -> list[tuple[int, int]]:
    out, pos = [], 0
    for p in paras:
        out.append((pos, pos + len(p)))
        pos += len(p) + 2
    return out


CROSSLANG = Path(__file__).resolve().parent / "crosslang_ja.jsonl"
"""Japanese questions written by the team for 16 XQuAD-en items (English paragraphs): the
cross-language check. Only ids and questions are stored here; the paragraphs come from the corpus."""


def evaluate(
    corpus: Path, threshold: float, limit: int | None, baselines: bool = True, scorer_name: str = "lexical",
    crosslang: bool = False,
):
    scorer = get_scorer(scorer_name)
    rows = []
    files = sorted((corpus / "qa").glob("*.jsonl"))
    override: dict[str, str] = {}
    if crosslang:
        files = [corpus / "qa" / "xquad_en.jsonl"]
        override = {r["id"]: r["question"] for r in map(json.loads, CROSSLANG.open(encoding="utf-8"))}
    for path in files:
        rng = random.Random(SEED)
        for item, paras, gold in build_docs(path, rng, limit):
            if override and item["id"] not in override:
                continue
            question = override.get(item["id"], item["question"])
            doc = "\n\n".join(paras)
            spans = spans_of(paras)
            t0 = time.perf_counter()
            p = plan(doc.encode(), Options(basis=question, threshold=threshold), scorer)
            ms = (time.perf_counter() - t0) * 1000
            dropped_ranges = []
            out_chars = len(doc)
            if p.outcome == "ok":
                dropped_ranges = [(p.units[a].start, p.units[b].end) for a, b in p.runs]
                out_chars = len(p.render([PLACEHOLDER_ID], "toolprune omitted"))

            def kept(span, ranges=dropped_ranges):
                return not any(s < span[1] and span[0] < e for s, e in ranges)

            gold_kept = sum(kept(spans[g]) for g in gold)
            row = {
                "dataset": path.stem + ("+ja-questions" if override else ""), "lang": "ja>en" if override else item["lang"], "outcome": p.outcome, "ms": ms,
                "all": gold_kept == len(gold), "recall": gold_kept / len(gold),
                "reduction": 1 - out_chars / len(doc),
            }
            if baselines:
                budget = out_chars
                head = (0, budget)
                tail = (len(doc) - budget, len(doc))
                inside = lambda sp, r: r[0] <= sp[0] and sp[1] <= r[1]
                row["head"] = sum(inside(spans[g], head) for g in gold) / len(gold)
                row["head_all"] = all(inside(spans[g], head) for g in gold)
                row["tail"] = sum(inside(spans[g], tail) for g in gold) / len(gold)
                row["tail_all"] = all(inside(spans[g], tail) for g in gold)
                order = list(range(len(paras)))
                random.Random(SEED + len(rows)).shuffle(order)
                size, keep = len(doc), set(range(len(paras)))
                for i in order:
                    if size <= budget:
                        break
                    keep.discard(i)
                    size -= len(paras[i]) + 2
                row["rand"] = sum(g in keep for g in gold) / len(gold)
                row["rand_all"] = all(g in keep for g in gold)
            rows.append(row)
    return rows


def summarise(rows, title: str) -> None:
    groups: dict[str, list] = defaultdict(list)
    for r in rows:
        groups[r["dataset"]].append(r)
        groups["lang=" + r["lang"]].append(r)
        if r["dataset"].startswith(("hotpotqa", "musique")):
            groups["multi-hop(en)"].append(r)
    print(title)
    head = f"{'group':30} {'n':>4} {'all-gold':>8} {'recall':>6} {'reduct':>6} | {'head':>9} {'tail':>9} {'random':>9} | {'ms':>5}  outcomes"
    print(head)
    print("-" * len(head))
    for name in sorted(groups):
        g = groups[name]
        mean = lambda k: sum(float(r[k]) for r in g) / len(g)
        outcomes = Counter(r["outcome"] for r in g)
        print(
            f"{name:30} {len(g):4d} {mean('all'):8.3f} {mean('recall'):6.3f} {mean('reduction'):6.3f} | "
            f"{mean('head_all'):4.2f}/{mean('head'):4.2f} {mean('tail_all'):4.2f}/{mean('tail'):4.2f} "
            f"{mean('rand_all'):4.2f}/{mean('rand'):4.2f} | {statistics.median(r['ms'] for r in g):5.1f}  "
            + " ".join(f"{k}={v}" for k, v in outcomes.most_common())
        )
    print("(baselines: all-gold/recall at the same output size per item)")


GROUPS = {
    "en": lambda r: r["lang"] == "en",
    "ja": lambda r: r["lang"] == "ja",
    "multi-hop": lambda r: r["dataset"].startswith(("hotpotqa", "musique")),
}


def sweep(corpus: Path, thresholds: list[float], limit: int | None, scorer_name: str) -> None:
    """One line per threshold: all-gold / reduction per group, to compare scorers along the whole
    curve rather than at one point."""
    print(f"scorer={scorer_name} (all-gold / reduction)")
    for value in thresholds:
        rows = evaluate(corpus, value, limit, baselines=False, scorer_name=scorer_name)
        parts = []
        for name, member in GROUPS.items():
            g = [r for r in rows if member(r)]
            parts.append(f"{name}: {sum(r['all'] for r in g) / len(g):.3f} / {sum(r['reduction'] for r in g) / len(g):.3f}")
        print(f"  {value:<5g} " + "   ".join(parts), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", type=Path)
    ap.add_argument("--threshold", default="standard")
    ap.add_argument("--limit", type=int, default=None, help="items per dataset file")
    ap.add_argument("--curve", action="store_true", help="also print the four presets, summarised")
    ap.add_argument("--scorer", default="lexical", help="lexical (default) or semantic (needs the extra)")
    ap.add_argument("--crosslang", action="store_true", help="only the Japanese questions over English paragraphs")
    ap.add_argument("--sweep", help="comma-separated thresholds: all-gold / reduction for en, ja and multi-hop at each")
    args = ap.parse_args()
    if args.sweep:
        sweep(args.corpus, [parse_threshold(t) for t in args.sweep.split(",")], args.limit, args.scorer)
        return
    threshold = parse_threshold(args.threshold)
    rows = evaluate(args.corpus, threshold, args.limit, scorer_name=args.scorer, crosslang=args.crosslang)
    summarise(rows, f"scorer={args.scorer} threshold={threshold:g}" + (" (cross-language)" if args.crosslang else ""))
    if args.crosslang:
        return
    if args.curve:
        print("\ncurve (lang: all-gold / recall / reduction)")
        for name, value in THRESHOLDS.items():
            rs = evaluate(args.corpus, value, args.limit, baselines=False, scorer_name=args.scorer)
            parts = []
            for lang in ("en", "ja"):
                g = [r for r in rs if r["lang"] == lang]
                parts.append(
                    f"{lang}: {sum(r['all'] for r in g)/len(g):.3f} / "
                    f"{sum(r['recall'] for r in g)/len(g):.3f} / {sum(r['reduction'] for r in g)/len(g):.3f}"
                )
            print(f"  {name:8} {value:<4g} " + "   ".join(parts))


if __name__ == "__main__":
    sys.exit(main())

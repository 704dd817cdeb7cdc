"""Log triage evaluation on the labelled CI and system logs.

    python bench/eval_logs.py ../shared/corpus [--basis "why did the build fail?"] [--threshold standard] [--show N]

For every log in ``logs/labels.jsonl`` the pipeline runs with the request; reported per family
and overall: share of labelled failure lines kept, share of logs whose last line is kept,
character reduction (passthrough counts as 0), outcomes — and the same over the logs larger
than 20,000 characters. (LogHub logs are research-only: evaluated here, never copied.)
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # measure this checkout

from toolprune.core.models import PLACEHOLDER_ID, Options  # noqa: E402
from toolprune.core.pipeline import plan  # noqa: E402
from toolprune.scorers import get_scorer  # noqa: E402
from toolprune.settings import parse_threshold, resolve_bounds  # noqa: E402


def line_starts(text: str) -> list[int]:
    starts = [0]
    pos = text.find("\n")
    while pos >= 0:
        starts.append(pos + 1)
        pos = text.find("\n", pos + 1)
    return starts


def kept_lines(data: bytes, basis: str, threshold: float, bounds: dict | None, scorer):
    """Run the pipeline on ``data``: (is line n kept?, output chars, outcome)."""
    text = data.decode("utf-8", "replace")
    p = plan(data, Options(basis=basis, threshold=threshold, **(bounds or {})), scorer)
    starts = line_starts(text)
    dropped_spans = []
    out_chars = len(text)
    if p.outcome == "ok":
        dropped_spans = [(p.units[a].start, p.units[b].end) for a, b in p.runs]
        out_chars = p.rendered_chars([PLACEHOLDER_ID], "toolprune omitted")

    def kept(n: int) -> bool:
        s = starts[n - 1]
        e = starts[n] - 1 if n < len(starts) else len(text)
        return not any(a < max(e, s + 1) and s < b for a, b in dropped_spans)

    kept.plan = p  # type: ignore[attr-defined]
    return kept, out_chars, p.outcome


def evaluate(corpus: Path, basis: str, threshold: float, show: int = 0, bounds: dict | None = None):
    rows = []
    scorer = get_scorer("lexical")
    for line in (corpus / "logs" / "labels.jsonl").open(encoding="utf-8"):
        label = json.loads(line)
        data = (corpus / "logs" / label["file"]).read_bytes()
        text = data.decode("utf-8", "replace")
        started = time.perf_counter()
        kept, out_chars, outcome = kept_lines(data, basis, threshold, bounds, scorer)
        ms = (time.perf_counter() - started) * 1000
        starts = line_starts(text)
        wanted = [n for a, b in label["error_lines"] for n in range(a, b + 1) if n <= len(starts)]
        n_lines = len(starts) - (1 if text.endswith("\n") else 0)
        row = {
            "family": label["file"].split("/")[0], "file": label["file"], "outcome": outcome,
            "split": kept.plan.stats.split, "chars": len(text), "ms": ms,
            "failure_kept": sum(map(kept, wanted)) / len(wanted) if wanted else 1.0,
            "n_failure": len(wanted), "last_kept": kept(n_lines),
            "reduction": 1 - out_chars / len(text),
        }
        rows.append(row)
        if show and row["failure_kept"] < 1.0 and show > sum(1 for r in rows[:-1] if r["failure_kept"] < 1.0):
            print(f"  lost failure lines: {label['file']} kept {row['failure_kept']:.2f} of {len(wanted)}")
    return rows


def summarise(rows) -> None:
    groups = defaultdict(list)
    for r in rows:
        groups[r["family"]].append(r)
        groups["all"].append(r)
        if r["chars"] > 20_000:
            groups["all > 20,000 chars"].append(r)
    print(f"{'group':22} {'logs':>4} {'failure lines kept':>18} {'logs all kept':>13} {'last line kept':>14} {'reduction':>9}  outcomes")
    for name in sorted(groups, key=lambda k: (k.startswith("all"), k)):
        g = groups[name]
        n_fail = sum(r["n_failure"] for r in g)
        kept = sum(r["failure_kept"] * r["n_failure"] for r in g) / n_fail if n_fail else 1.0
        last = sum(r["last_kept"] for r in g) / len(g)
        red = sum(r["reduction"] for r in g) / len(g)
        outcomes = Counter(r["outcome"] for r in g)
        whole = sum(r["failure_kept"] == 1.0 for r in g) / len(g)
        print(f"{name:22} {len(g):4d} {kept:18.3f} {whole:13.3f} {last:14.3f} {red:9.3f}  "
              + " ".join(f"{k}={v}" for k, v in outcomes.most_common()))
    print("(failure lines kept: share of all labelled lines of the group; logs all kept: share of logs that kept"
          " every labelled line; reduction: mean per log, passthrough = 0)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", type=Path)
    ap.add_argument("--basis", default="why did the build fail?")
    ap.add_argument("--threshold", default="standard")
    ap.add_argument("--show", type=int, default=0, help="name up to N logs that lost failure lines")
    ap.add_argument("--fit", default=None, help="also bound the output like --fit NAME (claude, codex, gemini)")
    args = ap.parse_args()
    print(f"--basis {args.basis!r} --threshold {args.threshold}")
    rows = evaluate(args.corpus, args.basis, parse_threshold(args.threshold), args.show)
    summarise(rows)
    if args.fit:
        print(f"\nwith --fit {args.fit}")
        summarise(evaluate(args.corpus, args.basis, parse_threshold(args.threshold), 0, resolve_bounds(args.fit, None, None)))


if __name__ == "__main__":
    main()

"""Real-output evaluation: the CLI on real tool outputs with hand-written gold.

    python bench/eval_real.py [--split tune|test|all] [--kind K] [--batch B] [--threshold T]
                              [--scorer S] [--cases DIR] [--show N] [--json] [--jobs N] [-- EXTRA CLI ARGS]
    python bench/eval_real.py --quick [--set MODULE.NAME=VALUE ...] [--split ...] [--threshold T] [--jobs N]

Each case folder under ``bench/realout/cases/`` (or ``--cases DIR``) holds ``input.bin`` — a real
tool output, byte for byte — and ``case.json`` with the request and the ``gold`` strings an agent
needs to answer it (written and committed before the tool ever ran on the case). A case is in the
``tune`` split when the first byte of sha1(case id) is even, else in ``test``. Cases were added in
batches (``"batch"`` in case.json; 1 when absent): ``--batch 4`` reports the latest batch alone,
the one no tuning had seen when its numbers were first taken.

For every case this checkout's CLI runs as a process (``python -m toolprune -v --basis REQUEST``,
a fresh ``TOOLPRUNE_SPILL_DIR`` and ``TOOLPRUNE_HOME``, then ``--threshold``, ``--scorer`` and the
extra arguments) and is scored on: the outcome (from the ``-v`` line), whether every gold string is
still in the output verbatim, the share of gold strings kept, the reduction (1 - chars out / chars
in; a passthrough is 0), JSON validity when the input was JSON, exact restoration through
``toolprune omitted`` (text: every marker replaced by what its command prints rebuilds the input;
JSON arrays: every range named in ``_pruned`` returns), and the head-cut baseline (the first
len(output) characters of the input: do they hold every gold string?).

``--quick`` is for tuning loops: the core runs in this process (the CLI's planner and renderer,
the lexical scorer, placeholder record ids, nothing spilled) and only the outcome, the gold and
the reduction are measured (no restoration, no JSON or passthrough checks). It gives the CLI's
numbers (on the 763 cases of 2026-12-06 the same all-gold for every case and the same
reduction to 1e-4) in seconds instead of minutes. ``--set toolprune.scorers.lexical.K1=1.2``
(repeatable) sets a module constant first, to measure a change before making it; a constant
another module imported by name (``from x import NAME``) is not changed there.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "bench" / "realout" / "cases"

MARKER = re.compile(r"［…[^］]*?toolprune omitted (P\d+(?:-[0-9A-Za-z]+)?) (\d+) (\d+) …］")
"""An inline marker; the id may gain a ``-suffix`` (the id format is allowed to change)."""
VERBOSE = re.compile(r"^toolprune: (outcome=.*)$", re.M)
ENVELOPE = '{"toolprune": "envelope"'


def split_of(case_id: str) -> str:
    return "tune" if hashlib.sha1(case_id.encode("utf-8")).digest()[0] % 2 == 0 else "test"


def load_cases(directory: Path) -> list[dict]:
    cases = []
    for folder in sorted(p for p in directory.iterdir() if (p / "case.json").is_file()):
        case = json.loads((folder / "case.json").read_text(encoding="utf-8"))
        case["folder"] = folder
        case["split"] = split_of(case["id"])
        case.setdefault("batch", 1)
        cases.append(case)
    return cases


def _env(spill: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLPRUNE_")}
    env.update(
        TOOLPRUNE_SPILL_DIR=str(spill / "spill"), TOOLPRUNE_HOME=str(spill / "home"),
        PYTHONPATH=os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]),  # measure this checkout
        NO_COLOR="1",
    )
    return env


def _omitted(env: dict, record_id: str, first: str, last: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "toolprune", "omitted", record_id, first, last],
        capture_output=True, env=env, timeout=60, cwd=ROOT,
    )


def _restore_text(out: str, env: dict, source: str = "") -> tuple[str | None, str]:
    """The input rebuilt from a pruned text: header line and the blank line after it dropped,
    every marker replaced by what its command prints. (None, why) when a command fails. A
    marker-like text that is in ``source`` itself (a README quoting toolprune's output) is kept
    text, not a marker."""
    end = out.find("】")
    if not out.startswith("【") or end < 0:
        return None, "no header"
    body = out[end + 1 :]
    for sep in ("\r\n\r\n", "\n\n"):
        if body.startswith(sep):
            body = body[len(sep) :]
            break
    else:
        return None, "no blank line after the header"
    parts, pos = [], 0
    for m in MARKER.finditer(body):
        if source and m.group(0) in source:
            continue
        proc = _omitted(env, *m.groups())
        if proc.returncode != 0:
            return None, f"omitted {' '.join(m.groups())} exit {proc.returncode}: {proc.stderr.decode(errors='replace').strip()}"
        parts += [body[pos : m.start()], proc.stdout.decode("utf-8")]
        pos = m.end()
    parts.append(body[pos:])
    return "".join(parts), ""


def _pruned_meta(value) -> dict | None:
    if isinstance(value, dict) and isinstance(value.get("_pruned"), dict):
        return value["_pruned"]
    if isinstance(value, list) and value and isinstance(value[-1], dict) and isinstance(value[-1].get("_pruned"), dict):
        return value[-1]["_pruned"]
    return None


def _json_or_none(text: str):
    """The value of a string that holds a JSON array or object, else None."""
    if text.lstrip()[:1] not in ("[", "{"):
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


_MARKER_ITEM = re.compile(r"［… [^\n]* …］|\[… [^\n]* …\]")


def _restore_json(src, out, env: dict) -> tuple[bool, str]:
    """JSON output: every range named in ``_pruned`` returns (exit 0), and every string that
    differs from the input (a wrapper's pruned text) restores exactly."""
    meta = _pruned_meta(out)
    checked = 0
    if meta is not None:
        for key, info in (meta.get("arrays") or {}).items():
            ranges = info.get("ranges") or [[i, i] for i in info.get("dropped", [])]
            for first, last in ranges:
                proc = _omitted(env, str(info["id"]), str(first), str(last))
                checked += 1
                if proc.returncode != 0:
                    return False, f"omitted {info['id']} {first} {last} ({key}) exit {proc.returncode}"
                try:
                    json.loads(proc.stdout)
                except ValueError:
                    return False, f"omitted {info['id']} {first} {last} ({key}) is not JSON"

    def walk(a, b) -> tuple[bool, str]:
        nonlocal checked
        if isinstance(a, str) and isinstance(b, str) and a != b:
            if _MARKER_ITEM.fullmatch(b):  # an MCP content item standing for dropped items: its range was checked above
                return True, ""
            checked += 1
            inner = _json_or_none(a), _json_or_none(b)
            if inner[0] is not None and inner[1] is not None:  # JSON inside a string (an MCP text item)
                return _restore_json(*inner, env)
            text, why = _restore_text(b, env, a)
            return (text == a, why or "restored string differs from the input's")
        if isinstance(a, dict) and isinstance(b, dict):
            for k in a:
                if k in b:
                    ok, why = walk(a[k], b[k])
                    if not ok:
                        return ok, why
        if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
            for x, y in zip(a, b):
                ok, why = walk(x, y)
                if not ok:
                    return ok, why
        return True, ""

    ok, why = walk(src, out)
    if ok and not checked:
        return False, "nothing to restore: no _pruned ranges and no changed string"
    return ok, why


def run_case(case: dict, threshold: str | None, scorer: str | None, extra: list[str]) -> dict:
    data = (case["folder"] / "input.bin").read_bytes()
    text = data.decode("utf-8", "replace")
    args = [sys.executable, "-m", "toolprune", "-v", "--basis", case["request"]]
    if threshold:
        args += ["--threshold", threshold]
    if scorer:
        args += ["--scorer", scorer]
    args += extra
    with tempfile.TemporaryDirectory(prefix="toolprune-eval-") as tmp:
        env = _env(Path(tmp))
        # cwd: ``-m`` puts the working directory first on sys.path, before PYTHONPATH; run from
        # another checkout, that one's toolprune would be measured instead of this one
        proc = subprocess.run(args, input=data, capture_output=True, env=env, timeout=300, cwd=ROOT)
        stderr = proc.stderr.decode("utf-8", "replace")
        line = VERBOSE.search(stderr)
        fields = dict(f.split("=", 1) for f in line.group(1).split() if "=" in f) if line else {}
        outcome = fields.get("outcome", "small" if len(text) < 4000 else "-")
        out = proc.stdout.decode("utf-8", "replace")
        gold = case["gold"]
        kept = _kept(gold, out, fields.get("shape", "-").startswith("json"))
        head = text[: len(out)]
        row = {
            "id": case["id"], "kind": case["kind"], "lang": case.get("lang", "en"), "split": case["split"],
            "batch": case["batch"],
            "outcome": outcome, "shape": fields.get("shape", "-"), "split_mode": fields.get("split", "-"),
            "exit": proc.returncode, "chars": len(text), "out_chars": len(out),
            "all_gold": all(kept), "recall": sum(kept) / len(gold) if gold else 1.0,
            "lost": [g for g, k in zip(gold, kept) if not k],
            "reduction": 1 - len(out) / len(text) if text else 0.0,
            "head_all_gold": all(g in head for g in gold),
            "passthrough_exact": None, "json_valid": None, "restored": None, "restore_note": "",
            "ms": fields.get("ms", "-"),
        }
        try:
            src_json = json.loads(text)
            is_json = True
        except ValueError:
            src_json, is_json = None, False
        if outcome != "ok":
            row["passthrough_exact"] = proc.stdout == data
        out_json = None
        if is_json:
            try:
                out_json = json.loads(out)
                row["json_valid"] = True
            except ValueError:
                row["json_valid"] = False
        if outcome == "ok":
            body = out
            if body.startswith(ENVELOPE):
                body = body.split("\n", 1)[1] if "\n" in body else ""
            if is_json and out_json is not None:
                row["restored"], row["restore_note"] = _restore_json(src_json, out_json, env)
            elif is_json:
                row["restored"], row["restore_note"] = False, "output is not JSON"
            else:
                restored, why = _restore_text(body, env, text)
                row["restored"] = restored == text
                row["restore_note"] = why or ("" if row["restored"] else "restored text differs from the input")
    return row


def _kept(gold: list[str], out: str, json_output: bool) -> list[bool]:
    """Which gold strings the output holds. In a pruned JSON document a kept member that had a
    dropped one after it ends without its comma (``"1.5.0": "2026-09-09…"`` as the last member of
    ``time``): the comma separated it from what was dropped, so a gold line is kept there without
    its own final comma too."""
    kept = []
    for g in gold:
        bare = g.rstrip()
        bare = bare[:-1] if json_output and bare.endswith(",") else None
        # the member must end there: the end of its line, or its object's or array's closing
        # bracket ("count": 1 is not kept by "count": 10)
        ends = bool(bare) and re.search(re.escape(bare) + r"(?=[ \t]*(?:\r?\n|[}\]]|$))", out) is not None
        kept.append(g in out or ends)
    return kept


def run_case_quick(case: dict, threshold: float) -> dict:
    """The outcome, gold and reduction of one case, with the core in this process (``--quick``)."""
    from toolprune.core.models import Options
    from toolprune.core.pipeline import plan
    from toolprune.scorers.lexical import LexicalScorer

    data = (case["folder"] / "input.bin").read_bytes()
    text = data.decode("utf-8", "replace")
    p = plan(data, Options(case["request"], threshold=threshold), LexicalScorer())
    out = text
    if p.outcome == "ok":
        ids = [f"P{n + 1}-00000000" for n in range(len(p.records(data)))]
        out = p.output(ids, "toolprune omitted")[0].decode("utf-8", "replace")
    gold = case["gold"]
    kept = _kept(gold, out, (p.stats.shape or "").startswith("json"))
    return {
        "id": case["id"], "kind": case["kind"], "lang": case.get("lang", "en"), "split": case["split"],
        "batch": case["batch"], "outcome": p.outcome, "shape": p.stats.shape or "-",
        "split_mode": p.stats.split or "-", "exit": 0, "chars": len(text), "out_chars": len(out),
        "all_gold": all(kept), "recall": sum(kept) / len(gold) if gold else 1.0,
        "lost": [g for g, k in zip(gold, kept) if not k],
        "reduction": 1 - len(out) / len(text) if text and p.outcome == "ok" else 0.0,
        "head_all_gold": all(g in text[: len(out)] for g in gold),
        "passthrough_exact": None, "json_valid": None, "restored": None, "restore_note": "", "ms": "-",
    }


def _set_constants(settings: list[str]) -> None:
    """``--set MODULE.NAME=VALUE``: the constant set in this process, as the type it has."""
    import importlib

    for setting in settings:
        name, _, value = setting.partition("=")
        module_name, _, attr = name.rpartition(".")
        module = importlib.import_module(module_name)
        if not hasattr(module, attr):
            raise SystemExit(f"eval_real.py: --set {setting}: {module_name} has no {attr}")
        current = getattr(module, attr)
        if isinstance(current, tuple):
            setattr(module, attr, tuple(type(current[0])(float(v)) for v in value.split("/")))
        else:
            setattr(module, attr, type(current)(float(value)))


def _pct(values: list[bool]) -> str:
    return f"{100 * sum(values) / len(values):5.1f}" if values else "    -"


def summarise(rows: list[dict], title: str) -> dict:
    groups: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        groups[r["kind"]].append(r)
        groups["all"].append(r)
    print(title)
    head = (f"{'kind':10} {'cases':>5} {'all-gold%':>9} {'recall':>6} {'reduct':>6} {'head-cut%':>9} "
            f"{'restored':>8} {'json ok':>7}  outcomes")
    print(head)
    print("-" * len(head))
    summary = {}
    for name in sorted(groups, key=lambda k: (k == "all", k)):
        g = groups[name]
        restored = [r["restored"] for r in g if r["restored"] is not None]
        valid = [r["json_valid"] for r in g if r["json_valid"] is not None]
        outcomes = Counter(r["outcome"] for r in g)
        s = {
            "cases": len(g),
            "all_gold": sum(r["all_gold"] for r in g) / len(g),
            "recall": sum(r["recall"] for r in g) / len(g),
            "reduction": sum(r["reduction"] for r in g) / len(g),
            "head_all_gold": sum(r["head_all_gold"] for r in g) / len(g),
            "restored": [sum(restored), len(restored)],
            "json_valid": [sum(valid), len(valid)],
            "outcomes": dict(outcomes.most_common()),
        }
        summary[name] = s
        print(
            f"{name:10} {len(g):5d} {_pct([r['all_gold'] for r in g]):>9} {s['recall']:6.3f} {s['reduction']:6.3f} "
            f"{_pct([r['head_all_gold'] for r in g]):>9} {f'{sum(restored)}/{len(restored)}':>8} "
            f"{f'{sum(valid)}/{len(valid)}':>7}  " + " ".join(f"{k}={v}" for k, v in outcomes.most_common())
        )
    print("(all-gold%: cases whose every gold string is in the output verbatim; recall: mean share of gold strings kept;"
          " reduct: mean 1 - chars out / chars in, passthrough = 0; head-cut%: the first len(output) chars of the input"
          " hold all gold; restored: pruned outputs rebuilt exactly through `toolprune omitted`; json ok: JSON inputs"
          " whose output parses)")
    return summary


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    extra: list[str] = []
    if "--" in argv:
        at = argv.index("--")
        argv, extra = argv[:at], argv[at + 1 :]
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", choices=("tune", "test", "all"), default="all")
    ap.add_argument("--kind", action="append", help="only cases of this kind (repeatable)")
    ap.add_argument("--batch", type=int, action="append", help="only cases of this batch (repeatable)")
    ap.add_argument("--threshold", help="passed to the CLI (default: the CLI's own)")
    ap.add_argument("--scorer", help="passed to the CLI (default: the CLI's own)")
    ap.add_argument("--cases", type=Path, default=CASES, help="a folder of case folders (default: bench/realout/cases)")
    ap.add_argument("--show", type=int, default=0, help="name up to N cases that lost gold or did not restore")
    ap.add_argument("--json", action="store_true", help="print one JSON document (rows and summary) instead of the table")
    ap.add_argument("--jobs", type=int, default=1, help="cases run at once (each is its own process; default 1)")
    ap.add_argument("--quick", action="store_true",
                    help="the core in this process: outcome, gold and reduction only, no restoration checks")
    ap.add_argument("--set", action="append", default=[], metavar="MODULE.NAME=VALUE",
                    help="with --quick: set a module constant first (repeatable)")
    args = ap.parse_args(argv)
    cases = [c for c in load_cases(args.cases) if args.split == "all" or c["split"] == args.split]
    if args.kind:
        cases = [c for c in cases if c["kind"] in args.kind]
    if args.batch:
        cases = [c for c in cases if c["batch"] in args.batch]
    if not cases:
        print(f"no cases in {args.cases} for split={args.split} kind={args.kind} batch={args.batch}", file=sys.stderr)
        return 1
    if args.quick:
        if args.scorer or extra:
            print("eval_real.py: --quick measures the lexical scorer alone, without CLI arguments", file=sys.stderr)
            return 2
        sys.path.insert(0, str(ROOT))  # measure this checkout
        _set_constants(args.set)
        from functools import partial
        from multiprocessing import get_context

        presets = {"gentle": 0.1, "standard": 0.2, "strong": 0.3, "max": 0.5}  # the CLI's names
        quick = partial(run_case_quick, threshold=float(presets.get(args.threshold or "standard", args.threshold)))
        with get_context("fork").Pool(max(1, args.jobs)) as procs:  # forked: the constants set above hold
            rows = procs.map(quick, cases, chunksize=4)
    else:
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:  # rows stay in case order
            rows = list(pool.map(lambda c: run_case(c, args.threshold, args.scorer, extra), cases))
    quick_title = "quick " + "".join(f"--set {x} " for x in args.set) if args.quick else ""
    title = (quick_title + f"split={args.split}" + (f" batch={','.join(map(str, args.batch))}" if args.batch else "")
             + f" threshold={args.threshold or 'default'} scorer={args.scorer or 'default'}"
             + (f" extra={' '.join(extra)}" if extra else "") + f" cases={args.cases}")
    if args.json:
        import contextlib
        import io

        with contextlib.redirect_stdout(io.StringIO()):
            summary = summarise(rows, title)
        print(json.dumps({"title": title, "summary": summary, "rows": rows}, ensure_ascii=False, indent=1))
        return 0
    summarise(rows, title)
    bad = [r for r in rows if not r["all_gold"] or r["restored"] is False or r["json_valid"] is False
           or r["passthrough_exact"] is False]
    for r in bad[: args.show]:
        why = []
        if r["lost"]:
            why.append("lost " + "; ".join(repr(g[:60]) for g in r["lost"]))
        if r["restored"] is False:
            why.append("not restored: " + r["restore_note"])
        if r["json_valid"] is False:
            why.append("output is not JSON")
        if r["passthrough_exact"] is False:
            why.append("passthrough differs from the input")
        print(f"  {r['id']} ({r['outcome']}, {r['reduction']:.2f}): " + " | ".join(why))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Log triage on the own failing logs (``bench/logs``), against grep and tail.

    python bench/eval_ownlogs.py [--fit claude] [--basis "why did the build fail?"] [--logs DIR] [--show]

For every log in ``labels.jsonl`` three ways to shorten it are measured: toolprune (with the
request, optionally under a ``--fit`` bound), ``grep -inE 'error|fail|fatal|panic|exception' -C2``
and ``tail -n 200`` (both run as real commands). Reported per method, over all logs and over the
logs larger than 20,000 characters: share of labelled failure lines kept, share of logs keeping
every one, share keeping the last line, mean reduction (1 - output chars / input chars; a
passthrough is 0, markers and header count as output).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # measure this checkout

from bench.eval_logs import kept_lines, line_starts  # noqa: E402
from toolprune.scorers import get_scorer  # noqa: E402
from toolprune.settings import parse_threshold, resolve_bounds  # noqa: E402

GREP = ["grep", "-inE", "error|fail|fatal|panic|exception", "-C2"]
ENV = {"LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"}


def grep(path: Path) -> tuple[set[int], int]:
    """The lines ``grep -C2`` prints and the characters of its output."""
    numbered = subprocess.run([*GREP[:1], "-n", *GREP[1:], str(path)], capture_output=True, env=ENV).stdout
    plain = subprocess.run([*GREP, str(path)], capture_output=True, env=ENV).stdout
    keep = set()
    for line in numbered.split(b"\n"):
        head = line[:12].replace(b"-", b":").split(b":", 1)[0]
        if head.isdigit():
            keep.add(int(head))
    return keep, len(plain.decode("utf-8", "replace"))


def tail(path: Path, n_lines: int) -> tuple[set[int], int]:
    out = subprocess.run(["tail", "-n", "200", str(path)], capture_output=True, env=ENV).stdout
    return set(range(max(1, n_lines - 199), n_lines + 1)), len(out.decode("utf-8", "replace"))


def evaluate(logs: Path, basis: str, threshold: float, bounds: dict | None, show: bool = False) -> list[dict]:
    scorer = get_scorer("lexical")
    rows = []
    for line in (logs / "labels.jsonl").open(encoding="utf-8"):
        label = json.loads(line)
        path = logs / label["file"]
        data = path.read_bytes()
        text = data.decode("utf-8")
        starts = line_starts(text)
        n_lines = len(starts) - (1 if text.endswith("\n") else 0)
        wanted = [n for a, b in label["error_lines"] for n in range(a, b + 1)]
        kept, out_chars, outcome = kept_lines(data, basis, threshold, bounds, scorer)
        methods = {"toolprune": (kept, out_chars), "grep -C2": grep(path), "tail -n 200": tail(path, n_lines)}
        for name, (keep, chars) in methods.items():
            hit = sum(1 for n in wanted if keep(n)) if callable(keep) else sum(1 for n in wanted if n in keep)
            last = keep(n_lines) if callable(keep) else n_lines in keep
            rows.append({"method": name, "file": label["file"], "chars": len(text), "n_failure": len(wanted),
                         "failure_kept": hit, "last_kept": last, "reduction": 1 - chars / len(text),
                         "outcome": outcome if name == "toolprune" else "-"})
            if show and name == "toolprune" and hit < len(wanted):
                lost = [n for n in wanted if not keep(n)]
                print(f"  {label['file']}: lost lines {lost[:12]}{' …' if len(lost) > 12 else ''}")
    return rows


def table(rows: list[dict]) -> None:
    print(f"{'method':12} {'logs':>14} {'n':>3} {'failure lines kept':>18} {'logs all kept':>13} "
          f"{'last line kept':>14} {'reduction':>9}")
    for scope, pick in (("all", lambda r: True), ("> 20,000 chars", lambda r: r["chars"] > 20_000)):
        for method in ("toolprune", "grep -C2", "tail -n 200"):
            g = [r for r in rows if r["method"] == method and pick(r)]
            if not g:
                continue
            kept = sum(r["failure_kept"] for r in g) / max(1, sum(r["n_failure"] for r in g))
            whole = sum(r["failure_kept"] == r["n_failure"] for r in g) / len(g)
            last = sum(r["last_kept"] for r in g) / len(g)
            red = sum(r["reduction"] for r in g) / len(g)
            print(f"{method:12} {scope:>14} {len(g):3d} {kept:18.3f} {whole:13.3f} {last:14.3f} {red:9.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--logs", type=Path, default=Path(__file__).resolve().parent / "logs")
    ap.add_argument("--basis", default="why did the build fail?")
    ap.add_argument("--threshold", default="standard")
    ap.add_argument("--fit", default=None, help="also bound toolprune's output like --fit NAME (claude, codex, gemini)")
    ap.add_argument("--show", action="store_true", help="name the failure lines toolprune lost")
    args = ap.parse_args()
    threshold = parse_threshold(args.threshold)
    print(f"--basis {args.basis!r} --threshold {args.threshold}, no bound")
    table(evaluate(args.logs, args.basis, threshold, None, args.show))
    if args.fit:
        print(f"\nwith --fit {args.fit} (grep and tail unbounded)")
        table(evaluate(args.logs, args.basis, threshold, resolve_bounds(args.fit, None, None), args.show))


if __name__ == "__main__":
    main()

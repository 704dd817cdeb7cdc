"""Speed benchmark: whole processes of the installed CLI against a Python floor, interleaved.

    python bench/bench_speed.py ../shared/corpus [--rounds 15] [--large-rounds N] [--big] [--baseline CHECKOUT]
                                                 [--only "CI log"]

Run it with the Python of the virtual environment where toolprune is installed (the console
script next to ``sys.executable`` is timed). Each case alternates a toolprune run with a floor
run (``python -c`` copying stdin to stdout), so machine drift cancels in the ratio. Prints
medians of wall and CPU time (user + system, less disturbed by other processes on a shared
machine), ratios, MB/s and peak RSS (the child's ``ru_maxrss`` from ``wait4``), and the slowest
imports of the prune path. ``--big`` adds runs on 60 MB of CI log and of text, with peak RSS as
a multiple of the input (the target is at most 4×). ``--baseline`` also runs another checkout's
``python -m toolprune`` (its source tree first on the path) in the same rounds, one row under
each of ours, to compare two versions on the same machine at the same time.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FLOOR = [sys.executable, "-c", "import sys; sys.stdout.buffer.write(sys.stdin.buffer.read())"]
TOOL = str(Path(sys.executable).with_name("toolprune"))


# Each measured process is started by a small fresh Python, not by this one: a child's peak RSS
# (``ru_maxrss``) counts the memory of the process it was forked from, and this one holds the
# 60 MB inputs. The launcher times its child and prints wall time, CPU time and peak RSS.
LAUNCH = (
    "import os, subprocess, sys, time\n"
    "started = time.perf_counter()\n"
    "proc = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
    "_, status, usage = os.wait4(proc.pid, 0)\n"
    "print(time.perf_counter() - started, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, os.waitstatus_to_exitcode(status))\n"
)


def timed(cmd: list[str], data: bytes, env: dict, cwd: Path | None = None) -> tuple[float, float, int]:
    """Wall time (s), CPU time (s, user + system) and peak RSS (KiB) of one process fed ``data``."""
    with tempfile.TemporaryFile() as stdin:
        stdin.write(data)
        stdin.seek(0)
        out = subprocess.run([sys.executable, "-c", LAUNCH, *cmd], stdin=stdin, capture_output=True, env=env,
                             cwd=cwd, check=True)
    wall, cpu, rss, code = out.stdout.split()
    if int(code) != 0:
        raise SystemExit(f"{cmd} exited {code}")
    return float(wall), float(cpu), int(rss)


ONLY: list[str] = []
"""Names (parts of them) of the cases to run (``--only``); empty: every case."""


def case(name: str, args: list[str], data: bytes, rounds: int, env: dict, baseline: Path | None = None) -> list[dict]:
    """One row for the installed tool (and one for the checkout ``baseline``, run in the same rounds
    as ``python -m toolprune`` from its own directory, so that its source tree comes first)."""
    if ONLY and not any(part in name for part in ONLY):
        return []
    tools = [("", [TOOL], None)]
    if baseline:
        tools.append((" [baseline]", ["env", f"PYTHONPATH={baseline}", sys.executable, "-m", "toolprune"], baseline))
    times = {label: ([], [], []) for label, _, _ in tools}
    floor_t = []
    for _ in range(rounds):
        for label, command, cwd in tools:
            t, cpu, r = timed([*command, *args], data, env, cwd)
            times[label][0].append(t)
            times[label][1].append(cpu)
            times[label][2].append(r)
        floor_t.append(timed(FLOOR, data, env)[0])
    floor = statistics.median(floor_t)
    rows = []
    for label, _, _ in tools:
        wall, cpu, rss = times[label]
        tool = statistics.median(wall)
        row = {"case": name + label, "tool_ms": tool * 1000, "cpu_ms": statistics.median(cpu) * 1000,
               "floor_ms": floor * 1000, "ratio": tool / floor, "rss_mb": max(rss) / 1024, "input_mb": len(data) / 1e6}
        row["mb_s"] = row["input_mb"] / tool if data else None
        rows.append(row)
    return rows


def qa_document(corpus: Path, name: str, size: int) -> str:
    paras: list[str] = []
    for line in (corpus / "qa" / name).open(encoding="utf-8"):
        paras.extend(json.loads(line)["paragraphs"])
        if sum(len(p) + 2 for p in paras) >= size:
            break
    return "\n\n".join(paras)[:size]


def ci_log(corpus: Path, size: int) -> bytes:
    files = sorted((corpus / "logs" / "cidiff").glob("*.log")) + sorted((corpus / "logs" / "logchunks").glob("*.log"))
    parts, total = [], 0
    while total < size:
        for f in files:
            data = f.read_bytes()
            parts.append(data)
            total += len(data)
            if total >= size:
                break
    return b"".join(parts)[:size]


def json_records(corpus: Path, size: int) -> bytes:
    tools = json.loads((corpus / "json" / "mcp" / "server-github__tools_list.json").read_text())["result"]["tools"]
    items: list = []
    while len(json.dumps(items)) < size:
        items.extend(tools)
    return json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"tools": items}}).encode()


def importtime(env: dict) -> list[tuple[int, str]]:
    code = "import toolprune.cli"
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True, env=env)
    rows = []
    for line in proc.stderr.splitlines()[1:]:
        parts = line.split("|")
        if len(parts) == 3:
            rows.append((int(parts[1]), parts[2].rstrip()))
    return sorted(rows, reverse=True)[:12]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", type=Path)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--big", action="store_true", help="also 60 MB of log and of text")
    ap.add_argument("--big-rounds", type=int, default=1, help="runs of each --big case")
    ap.add_argument("--large-rounds", type=int,
                    help="runs of the 8 MB log and the 5 MB JSON (default: a fifth of --rounds, at least 3)")
    ap.add_argument("--baseline", type=Path, help="another checkout of toolprune, run in the same rounds")
    ap.add_argument("--only", action="append", default=[], metavar="NAME",
                    help="run only the cases whose name holds NAME (repeatable), e.g. --only 'CI log'")
    args = ap.parse_args()
    ONLY.extend(args.only)
    home = tempfile.mkdtemp(prefix="toolprune-bench-")
    env = {**os.environ, "TOOLPRUNE_HOME": home}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # compiled modules are cached, as where it is installed
    base = args.baseline.resolve() if args.baseline else None
    en = qa_document(args.corpus, "xquad_en.jsonl", 20_000).encode()
    ja = qa_document(args.corpus, "jsquad_valid.jsonl", 20_000).encode()
    log = ci_log(args.corpus, 8_000_000)
    big_json = json_records(args.corpus, 5_000_000)
    large = args.large_rounds or max(3, args.rounds // 5)
    rows = [
        *case("text en 20k chars", ["--basis", "Which State Route has been discussed as an interstate upgrade?"], en, args.rounds, env, base),
        *case("text ja 20k chars", ["--basis", "日本共産党は都議選で何議席を獲得した？"], ja, args.rounds, env, base),
        *case("--version", ["--version"], b"", args.rounds, env, base),
        *case("--help", ["--help"], b"", args.rounds, env, base),
        *case("CI log 8 MB", ["--basis", "why did the build fail?"], log, large, env, base),
        *case("JSON 5 MB", ["--basis", "How do I create a pull request or merge one?"], big_json, large, env, base),
    ]
    # omitted on a large record: prune a large document once, then time the recovery of one range
    if not ONLY or any(part in "omitted" for part in ONLY):
        big_text = qa_document(args.corpus, "hotpotqa_dev_distractor.jsonl", 2_000_000).encode()
        out = subprocess.run([TOOL, "--basis", "Which government position was held by Shirley Temple?"],
                             input=big_text, capture_output=True, env=env, check=True).stdout.decode()
        marker = out.split("toolprune omitted ", 2)[2].split(" …］", 1)[0].split()
        rows += case(f"omitted {' '.join(marker)} (2 MB record)", ["omitted", *marker], b"", args.rounds, env, base)

    if args.big:
        text = b"\n\n".join([qa_document(args.corpus, "hotpotqa_dev_distractor.jsonl", 2_000_000).encode()] * 32)
        text = text[: text.rindex(b"\n", 0, 60_000_000) + 1]  # 60 MB, cut after a line (never inside a character)
        rows += case("CI log 60 MB", ["--basis", "why did the build fail?"], ci_log(args.corpus, 60_000_000),
                     args.big_rounds, env, base)
        rows += case("text 60 MB", ["--basis", "Which government position was held by Shirley Temple?"],
                     text, args.big_rounds, env, base)

    print(f"{'case':45} {'toolprune':>10} {'cpu':>9} {'floor':>8} {'ratio':>6} {'MB/s':>7} {'peak RSS':>9} {'input':>8} {'RSS/in':>6}")
    for r in rows:
        mbs = f"{r['mb_s']:7.1f}" if r["mb_s"] else "      -"
        per = f"{r['rss_mb'] / r['input_mb']:6.2f}" if r["input_mb"] >= 1 else "     -"
        print(f"{r['case']:45} {r['tool_ms']:8.1f}ms {r['cpu_ms']:7.1f}ms {r['floor_ms']:6.1f}ms {r['ratio']:6.2f} {mbs} "
              f"{r['rss_mb']:7.1f}MB {r['input_mb']:6.2f}MB {per}")
    print("\nslowest imports of `import toolprune.cli` (cumulative µs):")
    for us, name in importtime(env):
        print(f"  {us:8d}  {name.strip()}")


if __name__ == "__main__":
    main()

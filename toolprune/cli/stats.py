"""``toolprune stats``: what toolprune did, from the log file (``TOOLPRUNE_LOG``)."""

from __future__ import annotations

import json
import os
from collections import Counter, defaultdict
from pathlib import Path

from toolprune.cli.streams import Environment
from toolprune.errors import ExitCode, UsageError


def parse(path: Path) -> dict:
    """Aggregate the log: outcomes, characters in and out, omitted calls, per label and per day."""
    outcomes: Counter = Counter()
    per_day: dict = defaultdict(lambda: {"prunes": 0, "saved": 0, "omitted": 0})
    per_label: dict = defaultdict(lambda: {"prunes": 0, "raw_chars": 0, "saved": 0})
    totals = {"prunes": 0, "raw_chars": 0, "kept_chars": 0, "omitted_calls": 0, "omitted_chars": 0}
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        stamp, _, rest = line.partition(" ")
        day = stamp[:10]
        fields = dict(part.split("=", 1) for part in rest.split() if "=" in part)
        number = lambda key: int(fields[key]) if fields.get(key, "-").isdigit() else 0  # noqa: E731
        if rest.startswith("toolprune omitted:"):
            totals["omitted_calls"] += 1
            totals["omitted_chars"] += number("chars")
            per_day[day]["omitted"] += 1
            continue
        if not rest.startswith("toolprune: outcome="):
            continue
        raw, kept = number("raw_chars"), number("kept_chars") or number("raw_chars")
        saved = max(raw - kept, 0) if fields.get("outcome") == "ok" else 0
        outcomes[fields.get("outcome", "-")] += 1
        totals["prunes"] += 1
        totals["raw_chars"] += raw
        totals["kept_chars"] += raw - saved
        per_day[day]["prunes"] += 1
        per_day[day]["saved"] += saved
        label = fields.get("label", "-")
        per_label[label]["prunes"] += 1
        per_label[label]["raw_chars"] += raw
        per_label[label]["saved"] += saved
    saved = totals["raw_chars"] - totals["kept_chars"]
    return {
        "log": str(path),
        **totals,
        "saved_chars": saved,
        "saved_share": round(saved / totals["raw_chars"], 3) if totals["raw_chars"] else None,
        "outcomes": dict(outcomes.most_common()),
        "per_label": dict(per_label),
        "per_day": dict(sorted(per_day.items())),
    }


def stats(env: Environment, log: Path | None, as_json: bool) -> int:
    path = log or (Path(os.environ["TOOLPRUNE_LOG"]).expanduser() if os.environ.get("TOOLPRUNE_LOG") else None)
    if path is None:
        raise UsageError("no log file: set TOOLPRUNE_LOG=/path/to/toolprune.log (then prunes are logged) or pass --log")
    if not path.is_file():
        raise UsageError(f"no log file at {path} yet: nothing has been logged")
    summary = parse(path)
    if as_json:
        env.write_output((json.dumps(summary, indent=2) + "\n").encode())
        return ExitCode.OK
    out = [
        f"{summary['prunes']:,} prunes, {summary['raw_chars']:,} chars in, {summary['saved_chars']:,} saved"
        + (f" ({summary['saved_share']:.0%})" if summary["saved_share"] is not None else ""),
        f"omitted: {summary['omitted_calls']:,} calls, {summary['omitted_chars']:,} chars returned"
        " (many calls mean too much was dropped: try --threshold gentle)",
        "outcomes: " + ", ".join(f"{k} {v}" for k, v in summary["outcomes"].items()),
        "",
        "per label:",
    ]
    for label, row in sorted(summary["per_label"].items(), key=lambda kv: -kv[1]["saved"]):
        out.append(f"  {label:<24} {row['prunes']:>6} prunes {row['raw_chars']:>12,} in {row['saved']:>12,} saved")
    out += ["", "saved per day:"]
    days = summary["per_day"]
    top = max((d["saved"] for d in days.values()), default=0) or 1
    for day, row in days.items():
        bar = "█" * max(1 if row["saved"] else 0, round(30 * row["saved"] / top))
        out.append(f"  {day} {bar:<30} {row['saved']:>12,} ({row['prunes']} prunes, {row['omitted']} omitted)")
    env.write_output(("\n".join(out) + "\n").encode())
    return ExitCode.OK

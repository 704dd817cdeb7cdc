"""``toolprune stats``: what toolprune did, from the stats log (see ``toolprune.cli.logfile``).

Tokens are estimated from the logged characters and bytes, the way tokenizers of current models
roughly count: about 4 characters per token for ASCII text, about 1 token per character beyond
ASCII (CJK takes 3 bytes per character in UTF-8, so non-ASCII characters ≈ (bytes − chars) / 2).
With a price per million input tokens (``--price`` or ``TOOLPRUNE_PRICE``) the summary also says
what the saved tokens would have cost.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Iterator, Mapping
from functools import partial
from pathlib import Path

from toolprune.cli.logfile import DEFAULT_NAME, log_path
from toolprune.cli.streams import Environment
from toolprune.core.models import parse_line
from toolprune.errors import ExitCode, UsageError

_DAY = re.compile(r"\d{4}-\d\d-\d\d")


def tokens(chars: int, bytes_: int) -> int:
    """Estimated tokens of a text of ``chars`` characters and ``bytes_`` UTF-8 bytes."""
    wide = min(chars, max(0, (bytes_ - chars) // 2))
    return round((chars - wide) / 4 + wide)


def _number(fields: Mapping[str, str], key: str) -> int:
    """A count from a log line's fields; 0 when absent, not measured (``-``) or not a count a
    log line could hold (``²``, which ``isdigit`` accepts; thousands of digits)."""
    value = fields.get(key, "-")
    return int(value) if value.isascii() and value.isdigit() and len(value) <= 20 else 0


def _lines(path: Path) -> Iterator[str]:
    """The log's lines (the rotated part first, for the default log); garbage is skipped by the
    parser, never an error."""
    rotated = path.with_name(path.name + ".1")
    for part in (rotated, path) if path.name == DEFAULT_NAME else (path,):
        try:
            yield from part.read_text(encoding="utf-8", errors="replace").splitlines()
        except (FileNotFoundError, IsADirectoryError):
            continue


def parse(path: Path) -> dict:
    """Aggregate the log: outcomes, characters in and out, omitted calls, per label and per day."""
    outcomes: Counter = Counter()
    per_day: dict = defaultdict(lambda: {"prunes": 0, "saved": 0, "omitted": 0})
    per_label: dict = defaultdict(lambda: {"prunes": 0, "raw_chars": 0, "saved": 0})
    totals = {"prunes": 0, "raw_chars": 0, "kept_chars": 0, "omitted_calls": 0, "omitted_chars": 0,
              "raw_tokens": 0, "saved_tokens": 0}
    for line in _lines(path):
        stamp, _, rest = line.partition(" ")
        day = stamp[:10] if _DAY.fullmatch(stamp[:10]) else "-"
        fields: dict[str, str] | None
        if rest.startswith("toolprune omitted:"):
            fields = dict(part.split("=", 1) for part in rest.split() if "=" in part)
        else:
            fields = parse_line(rest)
            if fields is None:
                continue
        number = partial(_number, fields)
        if rest.startswith("toolprune omitted:"):
            totals["omitted_calls"] += 1
            totals["omitted_chars"] += number("chars")
            per_day[day]["omitted"] += 1
            continue
        raw, kept = number("raw_chars"), number("kept_chars") or number("raw_chars")
        saved = max(raw - kept, 0) if fields.get("outcome") == "ok" else 0
        raw_tokens = tokens(raw, number("raw_bytes") or raw)
        kept_tokens = tokens(kept, number("kept_bytes") or kept) if saved else raw_tokens
        totals["raw_tokens"] += raw_tokens
        totals["saved_tokens"] += max(raw_tokens - kept_tokens, 0)
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


def stats(env: Environment, log: Path | None, as_json: bool, price: float | None = None) -> int:
    path = log
    if path is None:
        path, _ = log_path(env.environ)
        if path is None:
            raise UsageError("the stats log is off (TOOLPRUNE_LOG=off): unset it to log again, or pass --log PATH")
    if price is None and env.environ.get("TOOLPRUNE_PRICE"):
        price = _price(env.environ["TOOLPRUNE_PRICE"])
    if not path.is_file() and not path.with_name(path.name + ".1").is_file():
        if path.exists():  # a device, a directory, a FIFO: never a log toolprune wrote
            raise UsageError(f"{path} is not a log file: pass --log with the path of toolprune's log")
        raise UsageError(f"no log at {path} yet: nothing has been pruned since logging began")
    summary = parse(path)
    if price is not None:
        summary["price_per_million_tokens"] = price
        summary["saved_money"] = round(summary["saved_tokens"] * price / 1_000_000, 4)
    if as_json:
        env.write_output((json.dumps(summary, indent=2) + "\n").encode())
        return ExitCode.OK
    out = [
        f"{summary['prunes']:,} prunes, {summary['raw_chars']:,} chars in, {summary['saved_chars']:,} saved"
        + (f" ({summary['saved_share']:.0%})" if summary["saved_share"] is not None else ""),
        f"tokens: ~{summary['raw_tokens']:,} in, ~{summary['saved_tokens']:,} saved (estimated: 4 chars a token, "
        "1 per CJK char)"
        + (f"; at {price:g} per million: {summary['saved_money']:,.2f} saved" if price is not None else ""),
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


def _price(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not (value >= 0 and value != float("inf")):
        raise UsageError(f"invalid price {text!r}: a number of money units per million input tokens, e.g. 3")
    return value

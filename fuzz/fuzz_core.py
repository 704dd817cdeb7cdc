"""Coverage-guided fuzzing of the splitters, the JSON scanner and the whole plan (atheris).

    pip install atheris
    python fuzz/fuzz_core.py -max_total_time=300 fuzz/corpus      # corpus dir optional

Each input is checked against the invariants, not only for crashes: units are ordered, inside
the text and separated only by whitespace; a pruned text keeps every kept unit verbatim and in
order; pruned JSON still parses. Four generators shape the input into the classes that broke the
filter before: long tokens at line starts (a JWT, a hash: the signal scan must stay linear and
match what the old pattern matched), hostile ``--signal`` patterns (they must end under the
deadline), markup and terminal escapes (``--explain`` must show them inert) and logs that look
like JSON (``[INFO]`` lines, a ``{`` first line). Run with ``-timeout=20`` so that a slow input
is reported as a failure too. A failing input is saved by libFuzzer as crash-*; copy it to
fuzz/corpus/ so that tests/test_fuzz_corpus.py replays it (with every input the fuzzer kept).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sys
from pathlib import Path

try:
    import atheris
except ImportError:  # the tests replay the corpus without it
    atheris = None

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

with atheris.instrument_imports() if atheris else contextlib.nullcontext():
    from toolprune.cli.prune import DeadlinePassed, deadline
    from toolprune.core import explain, jsonshape, lines, signals, text
    from toolprune.core.pipeline import MIN_CHARS, Options, plan
    from toolprune.scorers.base import Scorer

import re

OLD_SIGNAL_LINES = re.compile(
    r"\n(?:\x1b\[[0-9;]*m)*(?:e\s{2,}|[\w./\\-]*[a-z][\w./\\-]*\.\w+:\d+:(?:\d+:)? |offenses:)"
)
"""The signal-line pattern before it was made linear: the reference for short lines."""
TOKEN_CHARS = "abcxyzABZ0189_./\\-"
CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
ESCAPES = ["[/x]", "[bold]", "[link=x]", ":smile:", "\x1b]0;t\x07", "\x1b[2J", "\x1b]8;;u\x1b\\", "\x9b1m",
           "\u202e", "\u2066", "\x01", "\r", "\x7f", "\\"]
JSONISH = ["[INFO] ", "[WARN] ", "[ERROR] ", "[", "{", "[1, 2]", '{"a": 1}', "[INFO] --- ", "]", "}"]


class HashScorer(Scorer):
    """Any scores at all, but the same for the same unit: a fixed hash of its text."""

    name = "hash"

    def score(self, request, batch):
        return [hashlib.blake2b(request.units[i].encode("utf-8", "surrogatepass"), digest_size=1).digest()[0] / 255
                for i in batch]


def check_units(source: str, units, what: str) -> None:
    position = 0
    for unit in units:
        assert position <= unit.start <= unit.end <= len(source), (what, unit.start, unit.end)
        gap = source[position : unit.start]
        assert not gap.strip(), (what, "non-blank text between units", gap[:40])
        position = unit.end
    assert not source[position:].strip() or what == "lines", (what, "text after the last unit")


def long_token(source: str) -> str:
    """A log whose lines start with long runs of path/token characters drawn from ``source``."""
    run = "".join(TOKEN_CHARS[ord(c) % len(TOKEN_CHARS)] for c in source[:64]) or "a."
    token = (run * (20_000 // len(run) + 1))[:20_000]
    return "step 1 ok\n" + token + "\n" + token + ":12:3: x\n" + source + "\nerror: build failed\n"


def hostile_pattern(source: str) -> str:
    """A regular expression with nested quantifiers and alternations built from ``source``."""
    atoms = [re.escape(c) for c in source[:6] if c.strip()] or ["a"]
    inner = "|".join(atoms)
    return f"(?:({inner})+)+(?:{atoms[0]}|{atoms[0]}{atoms[0]})*$"


def marked_up(source: str) -> str:
    """Paragraphs that start with markup and terminal escapes picked by ``source``."""
    picks = [ESCAPES[ord(c) % len(ESCAPES)] for c in source[:16]] or ESCAPES
    para = "".join(picks) + " " + source
    return "\n\n".join(f"{para} paragraph {i} about the build error" for i in range(max(2, MIN_CHARS // max(1, len(para)) + 1)))


def json_looking(source: str) -> str:
    """A log whose first line (and others) looks like JSON: ``[INFO]`` lines, a ``{`` start."""
    lead = JSONISH[ord(source[0]) % len(JSONISH)] if source else "[INFO] "
    body = "\n".join(f"{JSONISH[(i + len(source)) % len(JSONISH)]}{source[:80]} line {i}" for i in range(400))
    return lead + body + "\n"


def check_signal_scan(source: str) -> None:
    """The linear pattern finds the same lines as the old one (short lines), in linear time."""
    for line in source.split("\n")[:50]:
        piece = "\n" + line[:200].lower()
        assert [m.start() for m in signals._SIGNAL_LINES.finditer(piece)] == [
            m.start() for m in OLD_SIGNAL_LINES.finditer(piece)
        ], ("signal pattern differs from the old one", line[:80])
    lines.signal_positions(long_token(source))


def check_explain(result) -> None:
    """Rows show input inert, and rich renders them as plain text."""
    if not getattr(result, "units", None) and not getattr(result, "targets", None):
        return
    rows = explain.rows(result)
    for row in rows:
        assert not CONTROL.search(row["starts"]), ("control character in --explain", row["starts"])
    import io

    from rich.console import Console
    from rich.text import Text

    out = io.StringIO()
    console = Console(file=out, force_terminal=True, color_system=None, width=100)
    for row in rows[:20]:
        console.print(Text(row["starts"]))
    assert "\x1b]" not in out.getvalue() and "\u202e" not in out.getvalue()


def check(source: str, mode: int, tail: int, budget: float = 2.0) -> None:
    if mode == 4:
        check_signal_scan(source)
        source, mode = long_token(source), 1
    elif mode == 5:  # a hostile --signal pattern ends under the deadline (the CLI's own), or prunes
        try:
            pattern = re.compile(hostile_pattern(source), re.M).pattern
        except re.error:
            return
        data = long_token(source).encode("utf-8", "surrogatepass") + b"a" * 3000 + b"b\n"
        try:
            with deadline(budget):
                plan(data, Options(basis="why did the build fail with an error?", signal=pattern), HashScorer())
        except DeadlinePassed:
            pass
        return
    elif mode == 6:
        data = marked_up(source).encode("utf-8", "surrogatepass")
        check_explain(plan(data, Options(basis="why did the build fail with an error?"), HashScorer()))
        source, mode = marked_up(source), 3
    elif mode == 7:
        source, mode = json_looking(source), 3
    if mode == 0:
        check_units(source, text.split_text(source), "text")
        return
    if mode == 1:
        units, numbers = lines.split_lines(source, tail)
        assert len(units) == len(numbers)
        for pos in lines.signal_positions(source):
            assert 0 <= pos <= len(source)
        return
    if mode == 2:  # the JSON path: whatever parses must stay JSON
        body = source
        if jsonshape.parses(source) and source.strip()[:1] in ("{", "["):
            body = '{"items": [' + ", ".join([source.strip()] * max(1, MIN_CHARS // max(1, len(source)) + 1)) + "]}"
        data = body.encode("utf-8", "surrogatepass")
    else:  # the text path, with enough copies to pass the size gate
        copies = MIN_CHARS // max(1, len(source)) + 1 if source.strip() else 1
        data = "\n\n".join([source] * copies).encode("utf-8", "surrogatepass")
    result = plan(data, Options(basis="why did the build fail with an error?"), HashScorer())
    if result.outcome != "ok":
        return
    rendered = result.render(["P1"] * 8, "toolprune omitted")
    if result.stats.shape == "json_arrays":
        json.loads(rendered)
        return
    where = 0
    dropped = set(result.dropped)
    for i, unit in enumerate(result.units):
        if i not in dropped:
            found = rendered.find(result.text[unit.start : unit.end], where)
            assert found >= 0, ("kept unit not verbatim in order", i)
            where = found


MODES = 8


def one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    mode = fdp.ConsumeIntInRange(0, MODES - 1)
    tail = fdp.ConsumeIntInRange(0, 30)
    check(fdp.ConsumeUnicodeNoSurrogates(fdp.remaining_bytes()), mode, tail)


if __name__ == "__main__":
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()

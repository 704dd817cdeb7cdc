"""Coverage-guided fuzzing of the splitters, the JSON scanner and the whole plan (atheris).

    pip install atheris
    python fuzz/fuzz_core.py -max_total_time=300 fuzz/corpus      # corpus dir optional

Each input is checked against the invariants, not only for crashes: units are ordered, inside
the text and separated only by whitespace; a pruned text keeps every kept unit verbatim and in
order; pruned JSON still parses. A failing input is saved by libFuzzer as crash-*; copy it to
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
    from toolprune.core import jsonshape, lines, text
    from toolprune.core.pipeline import MIN_CHARS, Options, plan
    from toolprune.scorers.base import Scorer


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


def check(source: str, mode: int, tail: int) -> None:
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


def one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    mode = fdp.ConsumeIntInRange(0, 3)
    tail = fdp.ConsumeIntInRange(0, 30)
    check(fdp.ConsumeUnicodeNoSurrogates(fdp.remaining_bytes()), mode, tail)


if __name__ == "__main__":
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()

"""Replay: run every golden input, real-output case and own log through the core in-process and
print one digest line per case (output bytes, outcome, the counts of the ``-v`` line).

Used to prove a refactoring changes no byte: run it before and after and compare the files::

    python bench/replay.py > before.txt      # on the old commit
    python bench/replay.py > after.txt       # on the new one
    diff before.txt after.txt                # no output: byte-identical

The spill store gets a fixed key, so record ids (and the markers naming them) are reproducible.
"""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

KEY = "00112233445566778899aabbccddeeff"
VARIANTS = ({}, {"max_chars": 30_000}, {"max_bytes": 10_240, "max_lines": 256})


def _golden_options(args: list[str]) -> dict:
    from toolprune.settings import parse_lang, parse_threshold

    options: dict = {}
    for flag, name, parse in (("--threshold", "threshold", parse_threshold), ("--lang", "lang", parse_lang),
                              ("--tail", "tail", int)):
        if flag in args:
            options[name] = parse(args[args.index(flag) + 1])
    if "--json-strict" in args:
        options["json_strict"] = True
    return options


def cases():
    """(name, input bytes, request, options) for every replayed case."""
    for folder in sorted((ROOT / "tests" / "golden").iterdir()):
        if (folder / "input.bin").exists():
            args = json.loads((folder / "args.json").read_text(encoding="utf-8"))
            basis = args[args.index("--basis") + 1] if "--basis" in args else ""
            yield f"golden/{folder.name}", (folder / "input.bin").read_bytes(), basis, _golden_options(args)
    for folder in sorted((ROOT / "bench" / "realout" / "cases").iterdir()):
        case = json.loads((folder / "case.json").read_text(encoding="utf-8"))
        data = (folder / "input.bin").read_bytes()
        for k, extra in enumerate(VARIANTS):
            yield f"realout/{folder.name}/{k}", data, case["request"], extra
    labels = ROOT / "bench" / "logs" / "labels.jsonl"
    if labels.exists():
        for line in labels.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            data = (ROOT / "bench" / "logs" / entry["file"]).read_bytes()
            for k, extra in enumerate(VARIANTS):
                yield f"logs/{entry['file']}/{k}", data, "why did the build fail?", extra


def main() -> None:
    from toolprune.core.models import Options
    from toolprune.scorers import get_scorer

    from toolprune.service import run
    from toolprune.spill import SpillStore

    with tempfile.TemporaryDirectory() as tmp:
        for name, data, basis, extra in cases():
            spill = Path(tmp) / hashlib.sha1(name.encode()).hexdigest()
            spill.mkdir(mode=0o700)
            (spill / ".key").write_text(KEY + "\n")
            result = run(data, Options(basis=basis, **extra), get_scorer("lexical"), SpillStore(spill))
            counts = " ".join(p for p in result.stats.line().split() if not p.startswith(("ms=", "toolprune:")))
            print(name, hashlib.sha256(result.output).hexdigest()[:16], counts)


if __name__ == "__main__":
    main()

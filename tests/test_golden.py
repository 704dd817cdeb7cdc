"""Golden files: input + arguments → exact stdout bytes and outcome, through the real CLI.

Adding a case is adding a folder (see tests/golden/make_inputs.py). Regenerate the expected
files with ``TOOLPRUNE_REGEN_GOLDEN=1 pytest tests/test_golden.py`` and review the diff.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from conftest import cli, seeded_spill

GOLDEN = Path(__file__).parent / "golden"
CASES = sorted(p.name for p in GOLDEN.iterdir() if (p / "input.bin").exists())
REGEN = os.environ.get("TOOLPRUNE_REGEN_GOLDEN") == "1"


def outcome_of(stderr: bytes) -> str:
    match = re.search(r"^toolprune: outcome=(\w+)", stderr.decode(), re.M)
    return match.group(1) if match else "small"


@pytest.mark.parametrize("case", CASES)
def test_golden(case, tmp_path):
    folder = GOLDEN / case
    args = json.loads((folder / "args.json").read_text(encoding="utf-8"))
    data = (folder / "input.bin").read_bytes()
    spill = seeded_spill(tmp_path / "spill")  # a fixed key: the ids' check parts are part of the golden bytes
    proc = cli("-v", *args, input=data, env={"TOOLPRUNE_SPILL_DIR": str(spill)})
    meta = {"exit": proc.returncode, "outcome": outcome_of(proc.stderr)}
    if REGEN:
        (folder / "expected.bin").write_bytes(proc.stdout)
        (folder / "expected.json").write_text(json.dumps(meta) + "\n")
    assert meta == json.loads((folder / "expected.json").read_text())
    assert proc.stdout == (folder / "expected.bin").read_bytes()
    if meta["outcome"] != "ok":
        assert proc.stdout == data, "every outcome but ok passes the input through byte for byte"


def test_every_outcome_has_a_golden_case():
    seen = {json.loads((GOLDEN / c / "expected.json").read_text())["outcome"] for c in CASES}
    assert {"ok", "small", "not_text", "no_basis", "structured", "all_dropped", "nothing_dropped", "below_floor"} <= seen

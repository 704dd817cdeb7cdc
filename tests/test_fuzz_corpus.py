"""Replay the inputs the coverage-guided fuzzer kept (``fuzz/corpus``) through the same
invariant checks (``fuzz/fuzz_core.py``), without atheris: every future change meets them."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

FUZZ = Path(__file__).resolve().parent.parent / "fuzz"
CORPUS = sorted((FUZZ / "corpus").iterdir())


def _harness():
    spec = importlib.util.spec_from_file_location("fuzz_core", FUZZ / "fuzz_core.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_corpus_is_there():
    assert len(CORPUS) > 100


@pytest.mark.parametrize("mode", range(8))
def test_every_corpus_input_meets_the_invariants(mode):
    harness = _harness()
    assert harness.MODES == 8
    # hostile --signal patterns (mode 5) mostly run into their deadline: a sample, with a short one
    for path in CORPUS if mode != 5 else CORPUS[::20]:
        data = path.read_bytes()
        harness.check(data.decode("utf-8", "replace"), mode, len(data) % 31, budget=0.2)

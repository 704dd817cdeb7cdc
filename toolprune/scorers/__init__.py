"""Scorer registry: built-ins by name; heavy or remote scorers are imported only when chosen."""

from __future__ import annotations

from toolprune.errors import UsageError
from toolprune.scorers.base import Scorer

BUILTIN = ("lexical",)


def get_scorer(name: str) -> Scorer:
    if name == "lexical":
        from toolprune.scorers.lexical import LexicalScorer

        return LexicalScorer()
    raise UsageError(f"unknown scorer {name!r}; available: {', '.join(BUILTIN)}")

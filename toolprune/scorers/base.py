"""The scorer contract, for scorer plugins: ``from toolprune.scorers.base import Scorer``.
It lives in ``toolprune.core.scorer`` (the core calls scorers and knows nothing of them)."""

from toolprune.core.scorer import Scorer, ScorerError, ScoringRequest, ScoringTimeout, UnitTexts

__all__ = ["Scorer", "ScorerError", "ScoringRequest", "ScoringTimeout", "UnitTexts"]

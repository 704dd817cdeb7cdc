"""Scorer registry: built-ins by name; heavy or remote scorers are imported only when chosen."""

from __future__ import annotations

from toolprune.errors import ScorerUnavailable, UsageError
from toolprune.scorers.base import Scorer, ScorerError

BUILTIN = ("lexical", "semantic", "systemone")


def get_scorer(
    name: str, provider: str | None = None, base_url: str | None = None, path: str | None = None,
    model: str | None = None,
) -> Scorer:
    """The scorer called ``name``. For ``systemone`` the destination is resolved and the key
    looked up here (nothing is sent, httpx is not imported); a missing key is reported by the
    first call, so that the filter passes its input through with the reason."""
    choice = (name or "lexical").strip().lower()
    if choice == "lexical":
        from toolprune.scorers.lexical import LexicalScorer

        return LexicalScorer()
    if choice == "semantic":
        from toolprune.scorers.semantic import SemanticScorer

        return SemanticScorer()
    if choice == "systemone":
        from toolprune import config
        from toolprune.scorers.endpoints import resolve
        from toolprune.scorers.systemone import SystemOneScorer

        endpoint = resolve(provider, base_url, path, model)
        try:
            key, source = config.api_key()
            problem = None if key else source
        except config.KeyProblem as exc:
            key, problem = None, str(exc)
        if key and endpoint.scheme != "https" and not endpoint.loopback:
            raise ScorerUnavailable(
                f"refusing to send the API key over plain http to {endpoint.origin}: use https "
                "(plain http is allowed only for localhost, 127.0.0.0/8 and ::1)"
            )
        return SystemOneScorer(endpoint, key, key_problem=problem if endpoint.needs_key else None)
    raise UsageError(f"unknown scorer {name!r}; available: {', '.join(BUILTIN)}")


class Unavailable(Scorer):
    """Stands in for a scorer that cannot work here: every call fails with the reason, so the
    filter passes its input through and says why (a pipe never loses its output to a setting)."""

    def __init__(self, name: str, reason: str) -> None:
        self.name = name
        self.reason = reason

    def score(self, request, batch):
        raise ScorerError(self.reason)

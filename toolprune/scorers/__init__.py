"""Scorer registry: built-ins by name; heavy or remote scorers are imported only when chosen."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from toolprune.core.scorer import Scorer, ScorerError, ScoringRequest
from toolprune.errors import ScorerUnavailable, UsageError

BUILTIN = {
    "lexical": "toolprune.scorers.lexical:LexicalScorer",
    "semantic": "toolprune.scorers.semantic:SemanticScorer",
    "systemone": "toolprune.scorers.systemone:SystemOneScorer",
}
"""The built-in scorers, registered like plugins: a name and the ``module:Class`` to import when
it is chosen. Other names are looked up in the ``toolprune.scorers`` entry-point group, so a
package can add a scorer with ``[project.entry-points."toolprune.scorers"] name = "pkg.mod:Cls"``
(the class takes no arguments and implements ``toolprune.scorers.base.Scorer``)."""
ENTRY_POINTS = "toolprune.scorers"


def available() -> list[str]:
    """Every scorer name: the built-ins, then installed plugins."""
    return list(BUILTIN) + sorted(name for name in _plugins() if name not in BUILTIN)


def _plugins() -> dict:
    from importlib.metadata import entry_points  # only for a name that is not built in (~10 ms)

    return {ep.name: ep for ep in entry_points(group=ENTRY_POINTS)}


def _load(target: str) -> Callable[..., Scorer]:
    import importlib

    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


def get_scorer(
    name: str, provider: str | None = None, base_url: str | None = None, path: str | None = None,
    model: str | None = None,
) -> Scorer:
    """The scorer called ``name``. For ``systemone`` the destination is resolved and the key
    looked up here (nothing is sent, httpx is not imported); a missing key is reported by the
    first call, so that the filter passes its input through with the reason."""
    choice = (name or "lexical").strip().lower()
    if choice == "systemone":
        return _systemone(provider, base_url, path, model)
    if choice in BUILTIN:
        return _load(BUILTIN[choice])()
    plugin = _plugins().get(choice)
    if plugin is None:
        raise UsageError(f"unknown scorer {name!r}; available: {', '.join(available())}")
    try:
        scorer = plugin.load()()
    except Exception as exc:  # noqa: BLE001 - a broken plugin is a setting problem: fail open with the reason
        raise ScorerUnavailable(f"the scorer plugin {choice!r} ({plugin.value}) did not load: {exc}") from None
    if not isinstance(scorer, Scorer):
        raise ScorerUnavailable(f"the scorer plugin {choice!r} ({plugin.value}) is not a toolprune Scorer")
    return scorer


def _systemone(provider: str | None, base_url: str | None, path: str | None, model: str | None) -> Scorer:
    from toolprune import apikey
    from toolprune.scorers.endpoints import resolve

    endpoint = resolve(provider, base_url, path, model)
    try:
        key, source = apikey.api_key()
        problem = None if key else source
    except apikey.KeyProblem as exc:
        key, problem = None, str(exc)
    if key and endpoint.scheme != "https" and not endpoint.loopback:
        raise ScorerUnavailable(
            f"refusing to send the API key over plain http to {endpoint.origin}: use https "
            "(plain http is allowed only for localhost, 127.0.0.0/8 and ::1)"
        )
    return _load(BUILTIN["systemone"])(endpoint, key, key_problem=problem if endpoint.needs_key else None)


class Unavailable(Scorer):
    """Stands in for a scorer that cannot work here: every call fails with the reason, so the
    filter passes its input through and says why (a pipe never loses its output to a setting)."""

    def __init__(self, name: str, reason: str) -> None:
        self.name = name
        self.reason = reason

    def score(self, request: ScoringRequest, batch: Sequence[int]) -> list[float | None]:
        raise ScorerError(self.reason)

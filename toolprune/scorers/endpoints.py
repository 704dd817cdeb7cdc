"""Where the systemone scorer sends its requests: provider presets and URL resolution.

Kept apart from ``systemone.py`` so that resolving (and rejecting) a configuration never imports
httpx, and so that ``config show`` can print the destination without building a client.
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit

from toolprune.errors import ScorerUnavailable, UsageError

DEFAULT_PATH = "/v1/systemone"
DEFAULT_MODEL = "jev-1.13.0"  # pinned, not jev-latest: a new model version moves the scores


class Preset:
    __slots__ = ("name", "base_url", "path", "model", "needs_key", "note")

    def __init__(self, name: str, base_url: str, path: str, model: str, needs_key: bool, note: str) -> None:
        self.name, self.base_url, self.path, self.model = name, base_url, path, model
        self.needs_key, self.note = needs_key, note


PRESETS = {
    "typesafe": Preset("typesafe", "https://api.typesafe.ai", DEFAULT_PATH, DEFAULT_MODEL, True, "TypeSafe's Jev"),
    "openrouter": Preset(
        "openrouter", "https://openrouter.ai", "/api/alpha/decisions", "typesafe/jev-1.13", True,
        "Jev through OpenRouter (an OpenRouter key)",
    ),
    "cloudflare": Preset(
        "cloudflare", "https://api.cloudflare.com/client/v4/accounts/{account_id}/ai", "/run/@cf/cloudflare/{model}",
        "clef", True, "Cloudflare Workers AI Clef (a Workers AI token; CLOUDFLARE_ACCOUNT_ID)",
    ),
    "local": Preset(
        "local", "http://127.0.0.1:8000", DEFAULT_PATH, DEFAULT_MODEL, False, "a server on this machine (laya-serve)"
    ),
}

def is_loopback(host: str) -> bool:
    """True only for this machine: ``localhost``, an IPv4 literal in 127.0.0.0/8 or ``::1``
    (brackets allowed). A name that merely starts with ``127.`` or ``localhost`` is another host."""
    host = host.strip().lower()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if host == "localhost":
        return True
    import ipaddress

    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class Endpoint:
    """A resolved destination: the full URL, the model to name, and how to treat the host."""

    __slots__ = ("url", "model", "provider", "needs_key")

    def __init__(self, url: str, model: str, provider: str | None, needs_key: bool) -> None:
        self.url, self.model, self.provider, self.needs_key = url, model, provider, needs_key

    @property
    def origin(self) -> str:
        """scheme://host[:port], for messages (never a path, query or credentials)."""
        parts = urlsplit(self.url)
        return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}"

    @property
    def scheme(self) -> str:
        return urlsplit(self.url).scheme  # lower case, however it was typed

    @property
    def loopback(self) -> bool:
        """The server is on this machine (plain http is then allowed, and no proxy is used)."""
        return is_loopback(urlsplit(self.url).hostname or "")


def url_problem(base: str) -> str | None:
    """Why ``base`` is not a server URL toolprune sends to (None when it is one). The config
    file's check (``configkeys``) and the command line's are this one."""
    if any(c.isspace() or not c.isprintable() for c in base):
        return "must not contain spaces or control characters"
    try:  # urlsplit and .hostname/.port raise ValueError on "http://[::1" or "http://host:abc"
        parts = urlsplit(base)
        ok = parts.scheme.lower() in ("http", "https") and bool(parts.hostname)
        parts.port  # noqa: B018 - read for its check
    except ValueError:
        ok = False
    if not ok:
        return "must be an http:// or https:// URL"
    if parts.username or parts.password or parts.query or parts.fragment:
        return "must not carry credentials, a query or a fragment"
    return None


def path_problem(route: str) -> str | None:
    """Why ``route`` is not an API path (None when it is one). It must start with "/": appended
    to the server's URL, "@host/x" would name another host (and send it the key)."""
    if not route.startswith("/"):
        return "must start with /"
    if any(c.isspace() or not c.isprintable() for c in route):
        return "must not contain spaces or control characters"
    if "?" in route or "#" in route:
        return "must not carry a query or a fragment"
    return None


def check(provider: str | None, base_url: str | None, path: str | None, model: str | None) -> None:
    """Raise UsageError for a misspelt provider or a malformed URL or path, whichever scorer is
    chosen: a typo in a setting the chosen scorer does not read is still a typo, and it would
    otherwise stay silent until the day the remote scorer is switched on."""
    if path and (problem := path_problem(path)):
        raise UsageError(f"invalid --path {path!r}: it {problem}")
    if base_url and (problem := url_problem(base_url)):
        raise UsageError(f"invalid --base-url {base_url!r}: it {problem}")
    if not any((provider, base_url, path)):
        return
    try:
        resolve(provider, base_url, path, model)
    except ScorerUnavailable:  # a setting missing, not a wrong one (no server named, no account id)
        pass


def resolve(provider: str | None, base_url: str | None, path: str | None, model: str | None) -> Endpoint:
    """The endpoint for these settings (flags, environment or config, already merged)."""
    preset = None
    if provider:
        preset = PRESETS.get(provider.strip().lower())
        if preset is None:
            raise UsageError(f"unknown --provider {provider!r}; use one of {', '.join(PRESETS)}")
    if not base_url and preset is None:
        raise ScorerUnavailable(
            "the systemone scorer needs a server: --provider typesafe|openrouter|cloudflare|local "
            "or --base-url URL (or TOOLPRUNE_PROVIDER / TOOLPRUNE_BASE_URL, or `toolprune config set`)"
        )
    model = model or (preset.model if preset else DEFAULT_MODEL)
    base = base_url or preset.base_url  # type: ignore[union-attr]
    if "{account_id}" in base:
        account = os.environ.get("CLOUDFLARE_ACCOUNT_ID", "").strip()
        if not account:
            raise ScorerUnavailable(
                "the cloudflare provider needs your account id: set CLOUDFLARE_ACCOUNT_ID, or give "
                "--base-url https://api.cloudflare.com/client/v4/accounts/ACCOUNT_ID/ai"
            )
        base = base.replace("{account_id}", account)
    route = path or (preset.path if preset else DEFAULT_PATH)
    route = route.replace("{model}", model)
    problem = path_problem(route)
    if problem is not None:
        if path is None:  # the preset's path, with the model in it
            raise UsageError(f"invalid --model {model!r}: the API path would be {route!r}, which {problem}")
        raise UsageError(f"invalid --path {path!r}: it {problem}")
    problem = url_problem(base)
    if problem is not None:
        raise UsageError(f"invalid --base-url {base_url or base!r}: it {problem}")
    parts = urlsplit(base)
    trimmed = parts.scheme + base[len(parts.scheme):].rstrip("/")  # HTTP:// is http://
    url = trimmed if trimmed.endswith(route.rstrip("/")) else trimmed + route
    needs_key = preset.needs_key if preset is not None else False
    return Endpoint(url, model, preset.name if preset else None, needs_key)

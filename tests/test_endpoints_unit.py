"""Where the remote scorer sends its requests (``scorers/endpoints.py``): the checks of a server
URL and an API path shared by the command line and the config file, and the URL they resolve to."""

from __future__ import annotations

import pytest

from toolprune.errors import ScorerUnavailable, UsageError
from toolprune.scorers.endpoints import PRESETS, check, path_problem, resolve, url_problem


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:8000", "https://api.example.com", "HTTP://host", "https://host/prefix/", "http://[::1]:9"]
)
def test_a_server_url_is_http_or_https_with_a_host(url):
    assert url_problem(url) is None


@pytest.mark.parametrize(
    "url, problem",
    [
        ("ftp://host", "must be an http:// or https:// URL"),
        ("http://", "must be an http:// or https:// URL"),
        ("host:8000", "must be an http:// or https:// URL"),
        ("http://host:abc", "must be an http:// or https:// URL"),
        ("http://[::1", "must be an http:// or https:// URL"),
        ("http://user:pw@host", "must not carry credentials, a query or a fragment"),
        ("http://user@host", "must not carry credentials, a query or a fragment"),
        ("http://host?x=1", "must not carry credentials, a query or a fragment"),
        ("http://host#top", "must not carry credentials, a query or a fragment"),
        ("http://ho st", "must not contain spaces or control characters"),
        ("http://host\x7f", "must not contain spaces or control characters"),
        ("http://host\u200b", "must not contain spaces or control characters"),
    ],
)
def test_a_malformed_server_url_says_what_is_wrong(url, problem):
    assert url_problem(url) == problem


@pytest.mark.parametrize(
    "path, problem",
    [
        ("/v1/systemone", None),
        ("/run/@cf/cloudflare/{model}", None),
        ("/", None),
        ("v1/systemone", "must start with /"),
        ("@evil.example/v1", "must start with /"),
        ("", "must start with /"),
        ("/v1/a b", "must not contain spaces or control characters"),
        ("/v1/\t", "must not contain spaces or control characters"),
        ("/v1\x00", "must not contain spaces or control characters"),
        ("/v1?key=x", "must not carry a query or a fragment"),
        ("/v1#x", "must not carry a query or a fragment"),
    ],
)
def test_an_api_path_starts_with_a_slash_and_holds_nothing_else(path, problem):
    assert path_problem(path) == problem


def test_every_preset_passes_its_own_checks():
    for preset in PRESETS.values():
        assert path_problem(preset.path) is None
        assert url_problem(preset.base_url.replace("{account_id}", "abc")) is None


def test_resolve_appends_the_path_once_and_keeps_the_host(monkeypatch):
    monkeypatch.delenv("CLOUDFLARE_ACCOUNT_ID", raising=False)
    assert resolve(None, "https://api.example.com/", None, None).url == "https://api.example.com/v1/systemone"
    assert (
        resolve(None, "https://api.example.com/v1/systemone", None, None).url == "https://api.example.com/v1/systemone"
    )
    assert resolve(None, "HTTP://Host:81", "/x", "m").url == "http://Host:81/x"
    local = resolve("local", None, None, None)
    assert (local.url, local.provider, local.needs_key) == ("http://127.0.0.1:8000/v1/systemone", "local", False)
    assert resolve(" TypeSafe ", None, None, None).needs_key
    monkeypatch.setenv("CLOUDFLARE_ACCOUNT_ID", " acct ")
    flare = resolve("cloudflare", None, None, None)
    assert flare.url == "https://api.cloudflare.com/client/v4/accounts/acct/ai/run/@cf/cloudflare/clef"


def test_resolve_refuses_what_check_refuses(monkeypatch):
    monkeypatch.delenv("CLOUDFLARE_ACCOUNT_ID", raising=False)
    with pytest.raises(UsageError, match="unknown --provider 'typesafee'"):
        resolve("typesafee", None, None, None)
    with pytest.raises(UsageError, match="invalid --path '@evil.example/v1': it must start with /"):
        resolve("typesafe", None, "@evil.example/v1", None)
    with pytest.raises(UsageError, match="invalid --base-url 'ftp://x'"):
        resolve(None, "ftp://x", None, None)
    with pytest.raises(ScorerUnavailable, match="needs a server"):
        resolve(None, None, None, None)
    with pytest.raises(ScorerUnavailable, match="CLOUDFLARE_ACCOUNT_ID"):
        resolve("cloudflare", None, None, None)


@pytest.mark.parametrize(
    "provider, base_url, path, message",
    [
        ("typesafee", None, None, "unknown --provider"),
        (None, "ftp://x", None, "invalid --base-url"),
        (None, None, "/v1/a b", "invalid --path"),  # no server named: the path is checked all the same
        ("cloudflare", None, "v1", "invalid --path"),  # before the missing account id is asked for
        (None, "http://host:abc", "/v1", "invalid --base-url"),
    ],
)
def test_check_raises_for_a_wrong_setting_whichever_scorer_reads_it(provider, base_url, path, message, monkeypatch):
    monkeypatch.delenv("CLOUDFLARE_ACCOUNT_ID", raising=False)
    with pytest.raises(UsageError, match=message):
        check(provider, base_url, path, None)


def test_check_lets_a_missing_setting_be(monkeypatch):
    monkeypatch.delenv("CLOUDFLARE_ACCOUNT_ID", raising=False)
    check(None, None, None, None)
    check(None, None, None, "some-model")  # a model alone names no server: nothing to check yet
    check("cloudflare", None, None, None)  # no account id yet: said when the scorer is used
    check("local", None, "/v1/x", None)
    check(None, "http://127.0.0.1:9", None, None)


def test_the_messages_name_the_fix(monkeypatch):
    monkeypatch.delenv("CLOUDFLARE_ACCOUNT_ID", raising=False)
    with pytest.raises(UsageError) as unknown:
        resolve("typesafee", None, None, None)
    assert unknown.value.message == "unknown --provider 'typesafee'; use one of typesafe, openrouter, cloudflare, local"
    with pytest.raises(ScorerUnavailable) as none:
        resolve(None, None, None, None)
    assert none.value.message == (
        "the systemone scorer needs a server: --provider typesafe|openrouter|cloudflare|local "
        "or --base-url URL (or TOOLPRUNE_PROVIDER / TOOLPRUNE_BASE_URL, or `toolprune config set`)"
    )
    with pytest.raises(ScorerUnavailable) as account:
        resolve("cloudflare", None, None, None)
    assert account.value.message == (
        "the cloudflare provider needs your account id: set CLOUDFLARE_ACCOUNT_ID, or give "
        "--base-url https://api.cloudflare.com/client/v4/accounts/ACCOUNT_ID/ai"
    )
    monkeypatch.setenv("CLOUDFLARE_ACCOUNT_ID", "a b")  # the preset's URL, not a flag, is then wrong
    with pytest.raises(UsageError, match="invalid --base-url 'https://api.cloudflare.com/client/v4/accounts/a b/ai'"):
        resolve("cloudflare", None, None, None)


def test_a_model_that_breaks_the_presets_path_is_named(monkeypatch):
    monkeypatch.setenv("CLOUDFLARE_ACCOUNT_ID", "acct")
    with pytest.raises(UsageError, match="invalid --model 'a b': the API path would be '/run/@cf/cloudflare/a b'"):
        check("cloudflare", None, None, "a b")
    check("cloudflare", None, None, "clef-2")


def test_a_path_the_url_already_ends_with_is_not_appended_again():
    assert resolve(None, "https://h/x", "/x/", None).url == "https://h/x"
    assert resolve(None, "https://h/api/", "/x", None).url == "https://h/api/x"
    assert resolve(None, "https://h/prefixX/", None, None).url == "https://h/prefixX/v1/systemone"
    assert resolve(None, "https://h/foo", "/fooX", None).url == "https://h/foo/fooX"


@pytest.mark.parametrize(
    "host, loopback",
    [
        ("localhost", True),
        ("LOCALHOST ", True),
        ("127.3.4.5", True),
        ("[::1]", True),
        ("::1", True),
        ("x127.0.0.1]", False),
        ("[127.0.0.1", False),
        ("127.example.com", False),
        ("10.0.0.1", False),
    ],
)
def test_only_this_machine_is_loopback(host, loopback):
    from toolprune.scorers.endpoints import is_loopback

    assert is_loopback(host) is loopback

"""The config keys: each one's environment variable, the check its value must pass, and what it
is for. The config file, ``config set`` and the docs generator all read this one table; the file
holds the same settings as the environment variables, as the same text.
"""

from __future__ import annotations

import math

from toolprune.errors import UsageError

TYPE_CHECKING = False  # typing itself is not imported on the start-up path
if TYPE_CHECKING:
    from collections.abc import Callable

    Check = Callable[[object], str]
    """Checks a config value and returns it as the environment variable's text (ValueError if bad)."""



def _scorer(value: object) -> str:
    """A built-in scorer, or one an installed package registers (looked up only for a name that
    is not built in: reading the entry points costs ~10 ms)."""
    from toolprune.scorers import BUILTIN, available

    if isinstance(value, str) and value in BUILTIN:
        return value
    return _choice(lambda: tuple(available()))(value)


def _providers() -> tuple[str, ...]:
    from toolprune.scorers.endpoints import PRESETS

    return tuple(PRESETS)


def _fits() -> tuple[str, ...]:
    from toolprune.settings import FITS

    return tuple(FITS)


def _langs() -> tuple[str, ...]:
    from toolprune.settings import LANGS

    return LANGS

MAX_INT = 2**31 - 1


def _text(value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError("must be a non-empty string")
    if not value.isprintable():  # control characters, lone surrogates: never into the environment
        raise ValueError("must not contain control characters")
    return value


def _choice(names: Callable[[], tuple[str, ...]]) -> Check:
    """One of ``names()``: each list is declared once, where it is used, and read only when a
    value is checked."""

    def check(value: object) -> str:
        allowed = names()
        if value not in allowed:
            raise ValueError(f"must be one of {', '.join(allowed)}")
        return str(value)

    return check


def _integer(low: int) -> Check:
    def check(value: object) -> str:
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise ValueError("must be a whole number")
        if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
            raise ValueError("must be a whole number")
        try:
            number = int(value.strip() if isinstance(value, str) else value)
        except (TypeError, ValueError, OverflowError):
            raise ValueError("must be a whole number") from None
        if not low <= number <= MAX_INT:
            raise ValueError(f"must be from {low} to {MAX_INT}")
        return str(number)

    return check


def _timeout(value: object) -> str:
    from toolprune.settings import parse_timeout

    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError("must be a number of seconds")
    try:
        return str(parse_timeout(value))
    except UsageError as exc:
        raise ValueError(exc.message) from None


def _url(value: object) -> str:
    from toolprune.scorers.endpoints import url_problem

    text = _text(value)
    problem = url_problem(text)  # the command line's own check: a file it accepts never stops a run
    if problem is not None:
        raise ValueError(problem)
    return text


def _api_path(value: object) -> str:
    from toolprune.scorers.endpoints import path_problem

    text = _text(value)
    problem = path_problem(text)
    if problem is not None:
        raise ValueError(problem)
    return text


def _threshold(value: object) -> str:
    from toolprune.settings import parse_threshold

    try:
        parse_threshold(value if isinstance(value, (int, float)) and not isinstance(value, bool) else _text(value))
    except UsageError as exc:
        raise ValueError(exc.message) from None
    return str(value)


def _regex(value: object) -> str:
    import re

    text = _text(value)
    try:
        re.compile(text)
    except re.error as exc:
        raise ValueError(f"is not a regular expression: {exc}") from None
    except (OverflowError, RecursionError):
        raise ValueError("is too large or too deeply nested a regular expression") from None
    return text


class Key:
    """One config key: its environment variable, how to check a value, and what it is for."""

    __slots__ = ("env", "check", "help")

    def __init__(self, env: str, check: Check, help: str) -> None:  # noqa: A002
        self.env, self.check, self.help = env, check, help


KEYS = {
    "scorer": Key(
        "TOOLPRUNE_SCORER", _scorer, "lexical, semantic (both local) or systemone (remote, opt-in)"
    ),
    "provider": Key("TOOLPRUNE_PROVIDER", _choice(_providers), "a System One host by name"),
    "base_url": Key("TOOLPRUNE_BASE_URL", _url, "a System One server (the API path is appended)"),
    "path": Key("TOOLPRUNE_API_PATH", _api_path, "the API path under base_url [default: /v1/systemone]"),
    "model": Key("TOOLPRUNE_MODEL", _text, "the System One model to ask"),
    "threshold": Key("TOOLPRUNE_THRESHOLD", _threshold, "gentle, standard, strong, max or a number"),
    "lang": Key("TOOLPRUNE_LANG", _choice(_langs), "language of the markers"),
    "timeout": Key("TOOLPRUNE_TIMEOUT", _timeout, "scoring deadline in seconds"),
    "tail": Key("TOOLPRUNE_TAIL", _integer(0), "log lines at the end that are never dropped"),
    "signal": Key("TOOLPRUNE_SIGNAL", _regex, "regular expression for log lines never dropped"),
    "max_chars": Key("TOOLPRUNE_MAX_CHARS", _integer(1), "bound on the output's characters"),
    "max_lines": Key("TOOLPRUNE_MAX_LINES", _integer(1), "bound on the output's lines"),
    "fit": Key("TOOLPRUNE_FIT", _choice(_fits), "bounds of a harness's own truncation"),
    "spill_dir": Key("TOOLPRUNE_SPILL_DIR", _text, "where pruned inputs are kept"),
    "log": Key("TOOLPRUNE_LOG", _text, "the log file (one line of counts per run)"),
}

SECRET_NAMES = ("key", "api_key", "apikey", "token", "api_token", "secret", "password")


def check_value(name: str, value: str) -> str:
    """Validate ``config set NAME VALUE``; numbers stay numbers in the file."""
    if name.lower() in SECRET_NAMES:
        raise UsageError("API keys never go in the config file: use `toolprune config set-key`")
    if name not in KEYS:
        raise UsageError(f"unknown config key {name!r}; known: {', '.join(KEYS)}")
    from toolprune.apikey import holds_key

    if holds_key(value):
        raise UsageError(f"that value of {name} holds your API key, which never goes in the config file "
                         "(use `toolprune config set-key`)")
    try:
        KEYS[name].check(value)
    except ValueError as exc:
        reason = str(exc)
        prefix = f"invalid {name} {value!r}: "
        raise UsageError(reason if reason.startswith(prefix) else prefix + reason) from None
    return value

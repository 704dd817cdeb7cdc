"""The config file and the API key file (SPEC §10).

Precedence is flags > environment (``TOOLPRUNE_*``) > config file > defaults. The config file
(``config.json`` in the platform's user config dir, ``$TOOLPRUNE_HOME/config.json``, or the
file ``$TOOLPRUNE_CONFIG`` names) holds the same settings as the environment variables, so it is
applied by filling in each variable the environment does not set: every command reads its
settings exactly as it reads the environment.

A file that cannot be read or does not validate is ignored as a whole and disables the remote
scorer (never send to a destination the user cannot see); ``config set`` refuses to overwrite it.
Since the file decides where the key and the paragraphs go, it is read only when it is a regular
file of the user's own that nobody else may write (not a symbolic link, a FIFO or a device; at
most 64 KiB; strict JSON: no ``NaN`` or ``Infinity``; every value checked), like the key file.

The API key is never a flag and never in the config file: it comes from ``TOOLPRUNE_API_KEY``
(falling back to ``TYPESAFE_API_KEY``) or from a key file of mode 0600 written by
``toolprune config set-key``.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

from toolprune.errors import UsageError

TYPE_CHECKING = False  # typing itself is not imported on the start-up path
if TYPE_CHECKING:
    from collections.abc import Callable, MutableMapping
    from typing import NoReturn

    Check = Callable[[object], str]
    """Checks a config value and returns it as the environment variable's text (ValueError if bad)."""

SCORERS = ("lexical", "semantic", "systemone")
PROVIDERS = ("typesafe", "openrouter", "cloudflare", "local")
FITS = ("claude", "codex", "gemini")


CONFIG_LIMIT = 64 << 10
"""The config file is at most this many bytes (it holds a handful of short settings)."""
MAX_INT = 2**31 - 1


def _text(value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError("must be a non-empty string")
    if not value.isprintable():  # control characters, lone surrogates: never into the environment
        raise ValueError("must not contain control characters")
    return value


def _choice(*allowed: str) -> Check:
    def check(value: object) -> str:
        if value not in allowed:
            raise ValueError(f"must be one of {', '.join(allowed)}")
        return value

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
    text = _text(value)
    if any(c.isspace() for c in text):
        raise ValueError("must not contain spaces")
    from urllib.parse import urlsplit

    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("must be an http:// or https:// URL")
    if parts.username or parts.password or parts.query or parts.fragment:
        raise ValueError("must not carry credentials, a query or a fragment")
    return text


def _api_path(value: object) -> str:
    text = _text(value)
    if not text.startswith("/"):
        raise ValueError("must start with /")
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
    return text


class Key:
    """One config key: its environment variable, how to check a value, and what it is for."""

    __slots__ = ("env", "check", "help")

    def __init__(self, env: str, check: Check, help: str) -> None:  # noqa: A002
        self.env, self.check, self.help = env, check, help


KEYS = {
    "scorer": Key(
        "TOOLPRUNE_SCORER", _choice(*SCORERS), "lexical, semantic (both local) or systemone (remote, opt-in)"
    ),
    "provider": Key("TOOLPRUNE_PROVIDER", _choice(*PROVIDERS), "a System One host by name"),
    "base_url": Key("TOOLPRUNE_BASE_URL", _url, "a System One server (the API path is appended)"),
    "path": Key("TOOLPRUNE_API_PATH", _api_path, "the API path under base_url [default: /v1/systemone]"),
    "model": Key("TOOLPRUNE_MODEL", _text, "the System One model to ask"),
    "threshold": Key("TOOLPRUNE_THRESHOLD", _threshold, "gentle, standard, strong, max or a number"),
    "lang": Key("TOOLPRUNE_LANG", _choice("auto", "en", "ja"), "language of the markers"),
    "timeout": Key("TOOLPRUNE_TIMEOUT", _timeout, "scoring deadline in seconds"),
    "tail": Key("TOOLPRUNE_TAIL", _integer(0), "log lines at the end that are never dropped"),
    "signal": Key("TOOLPRUNE_SIGNAL", _regex, "regular expression for log lines never dropped"),
    "max_chars": Key("TOOLPRUNE_MAX_CHARS", _integer(1), "bound on the output's characters"),
    "max_lines": Key("TOOLPRUNE_MAX_LINES", _integer(1), "bound on the output's lines"),
    "fit": Key("TOOLPRUNE_FIT", _choice(*FITS), "bounds of a harness's own truncation"),
    "spill_dir": Key("TOOLPRUNE_SPILL_DIR", _text, "where pruned inputs are kept"),
    "log": Key("TOOLPRUNE_LOG", _text, "the log file (one line of counts per run)"),
}

SECRET_NAMES = ("key", "api_key", "apikey", "token", "api_token", "secret", "password")


def config_dir() -> Path:
    from toolprune.settings import user_dir

    return user_dir("config")


def config_path() -> Path:
    named = os.environ.get("TOOLPRUNE_CONFIG")
    return Path(named).expanduser() if named else config_dir() / "config.json"


def key_path() -> Path:
    return config_dir() / "key"


class Config:
    """The config file as read: its values (as environment strings) and the document they came
    from, or why it is invalid."""

    __slots__ = ("path", "values", "invalid", "exists", "document")

    def __init__(self, path: Path, values: dict[str, str], invalid: str | None, exists: bool,
                 document: dict | None = None) -> None:
        self.path, self.values, self.invalid, self.exists = path, values, invalid, exists
        self.document = document if document is not None else {}


def _strict(raw: bytes) -> object:
    """Strict JSON: UTF-8, no NaN or Infinity, finite numbers, no key given twice."""
    import json

    def constant(name: str) -> NoReturn:
        raise ValueError(f"{name} is not a JSON number")

    def number(text: str) -> float:
        value = float(text)
        if not math.isfinite(value):
            raise ValueError(f"the number {text[:20]} is out of range")
        return value

    def pairs(items: list) -> dict:
        document: dict = {}
        for name, value in items:
            if name in document:
                raise ValueError(f"the key {name!r} is given twice")
            document[name] = value
        return document

    text = raw.decode("utf-8")
    if not text.strip():
        return {}
    return json.loads(text, parse_constant=constant, parse_float=number, object_pairs_hook=pairs)


def _read_private(path: Path) -> bytes:
    """The file's bytes, if it is a regular file of ours that nobody else may write; else
    ValueError saying why and what to do. Opened non-blocking (a FIFO never hangs) and without
    following a symbolic link; at most CONFIG_LIMIT bytes are read."""
    import errno
    import stat

    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ValueError(
                "it is a symbolic link: replace the link with the file itself, or point TOOLPRUNE_CONFIG "
                "at the real file"
            ) from None
        if exc.errno == errno.ENXIO:
            raise ValueError("cannot read it: it is not a regular file") from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ValueError("cannot read it: it is not a regular file")
        if info.st_uid != os.getuid():
            raise ValueError(f"it belongs to another user (uid {info.st_uid}): use a config file of your own")
        if info.st_mode & 0o022:
            raise ValueError(
                f"it is writable by others (mode {info.st_mode & 0o777:o}): run `chmod 600 {path}`"
            )
        if info.st_size > CONFIG_LIMIT:
            raise ValueError(f"it is over {CONFIG_LIMIT >> 10} KiB")
        chunks: list[bytes] = []
        size = 0
        while size <= CONFIG_LIMIT:
            chunk = os.read(fd, CONFIG_LIMIT + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > CONFIG_LIMIT:
            raise ValueError(f"it is over {CONFIG_LIMIT >> 10} KiB")
        return b"".join(chunks)
    finally:
        os.close(fd)


def read(path: Path | None = None) -> Config:
    """Read and validate the config file; never raises."""
    path = path or config_path()
    try:
        return _parse(path, _read_private(path))
    except FileNotFoundError:
        return Config(path, {}, None, exists=False)
    except OSError as exc:
        return Config(path, {}, f"cannot read it: {exc.strerror or exc}", exists=True)
    except ValueError as exc:
        return Config(path, {}, str(exc), exists=True)


def _parse(path: Path, raw: bytes) -> Config:
    try:
        document = _strict(raw)
    except UnicodeDecodeError:
        return Config(path, {}, "it is not JSON: it is not UTF-8", exists=True)
    except (ValueError, RecursionError) as exc:
        reason = "it nests too deeply" if isinstance(exc, RecursionError) else str(exc)
        return Config(path, {}, f"it is not JSON: {reason}", exists=True)
    if not isinstance(document, dict):
        return Config(path, {}, "it is not a JSON object", exists=True)
    values: dict[str, str] = {}
    for name, value in document.items():
        if name.lower() in SECRET_NAMES:
            return Config(
                path, {}, f"it holds {name!r}: API keys never go in the config file "
                "(use TOOLPRUNE_API_KEY or `toolprune config set-key`)", exists=True,
            )
        if name not in KEYS:
            return Config(path, {}, f"unknown key {ascii(name)[:60]} (known: {', '.join(KEYS)})", exists=True)
        try:
            values[name] = KEYS[name].check(value)
        except (ValueError, TypeError, OverflowError, RecursionError) as exc:
            return Config(path, {}, f"{name}: {exc}", exists=True)
    return Config(path, values, None, exists=True, document=document)


_loaded: Config | None = None
filled: tuple[str, ...] = ()
"""The environment variables :func:`apply` set from the config file."""


def apply(environ: MutableMapping[str, str]) -> Config:
    """Read the config file and fill in the environment variables it sets that the environment
    does not (so flags > environment > config file). :func:`unapply` undoes it."""
    global _loaded, filled
    _loaded = read()
    added = []
    try:
        for name, value in _loaded.values.items():
            variable = KEYS[name].env
            if not environ.get(variable):
                environ[variable] = value
                added.append(variable)
    except (ValueError, UnicodeError) as exc:  # a value the environment cannot hold: none of them
        for variable in added:
            environ.pop(variable, None)
        added = []
        _loaded = Config(_loaded.path, {}, f"a value cannot be used ({type(exc).__name__})", exists=True)
    filled = tuple(added)
    return _loaded


def unapply(environ: MutableMapping[str, str]) -> None:
    global _loaded, filled
    for variable in filled:
        environ.pop(variable, None)
    _loaded, filled = None, ()


def loaded() -> Config:
    return _loaded if _loaded is not None else read()


def check_value(name: str, value: str) -> str:
    """Validate ``config set NAME VALUE``; numbers stay numbers in the file."""
    if name.lower() in SECRET_NAMES:
        raise UsageError("API keys never go in the config file: use `toolprune config set-key`")
    if name not in KEYS:
        raise UsageError(f"unknown config key {name!r}; known: {', '.join(KEYS)}")
    try:
        KEYS[name].check(value)
    except ValueError as exc:
        reason = str(exc)
        prefix = f"invalid {name} {value!r}: "
        raise UsageError(reason if reason.startswith(prefix) else prefix + reason) from None
    return value


def write(path: Path, document: dict[str, object]) -> None:
    """Replace the config file atomically (temp file, fsync, rename), mode 0600."""
    import json

    write_private(path, (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))


def write_private(path: Path, data: bytes) -> None:
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.replace(temp, path)
    except OSError:
        temp.unlink(missing_ok=True)
        raise


# --------------------------------------------------------------------------- the API key

KEY_VARIABLES = ("TOOLPRUNE_API_KEY", "TYPESAFE_API_KEY")


class KeyProblem(Exception):
    """The key file exists but must not be used; the message names the fix."""


def api_key() -> tuple[str | None, str]:
    """The API key and where it came from (a variable's name or the key file's path), or
    (None, why). Raises KeyProblem for a key file that is unsafe to use."""
    for variable in KEY_VARIABLES:
        value = os.environ.get(variable, "").strip()
        if value:
            return value, variable
    path = key_path()
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)  # a FIFO never hangs
    except FileNotFoundError:
        return None, "no API key: set TOOLPRUNE_API_KEY or run `toolprune config set-key`"
    except OSError as exc:
        raise KeyProblem(f"cannot read the key file {path}: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        import stat

        if not stat.S_ISREG(info.st_mode):
            raise KeyProblem(f"cannot read the key file {path}: it is not a regular file")
        if info.st_uid != os.getuid():
            raise KeyProblem(f"the key file {path} belongs to another user; not using it")
        if info.st_mode & 0o077:
            raise KeyProblem(
                f"the key file {path} is readable by others (mode {info.st_mode & 0o777:o}); "
                f"run `chmod 600 {path}` or `toolprune config set-key` again"
            )
        value = os.read(fd, 65536).decode("utf-8", "replace").strip()
    finally:
        os.close(fd)
    if not value:
        return None, f"the key file {path} is empty: run `toolprune config set-key`"
    return value, str(path)


def save_key(value: str) -> Path:
    value = value.strip()
    if not value:
        raise UsageError("no key given: nothing was saved")
    if any(c.isspace() for c in value) or not value.isprintable():
        raise UsageError("the key contains spaces or control characters: nothing was saved")
    path = key_path()
    write_private(path, (value + "\n").encode("utf-8"))
    return path

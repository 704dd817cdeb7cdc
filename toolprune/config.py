"""The config file.

Precedence is flags > environment (``TOOLPRUNE_*``) > config file > defaults. The config file
(``config.json`` in the platform's user config dir, ``$TOOLPRUNE_HOME/config.json``, or the
file ``$TOOLPRUNE_CONFIG`` names) holds the same settings as the environment variables (the keys
are in :mod:`toolprune.configkeys`), so it is read as a layer under the environment
(:class:`Layered`): every command reads its settings from that one mapping.

A file that cannot be read or does not validate is ignored as a whole and disables the remote
scorer (never send to a destination the user cannot see); ``config set`` refuses to overwrite it.
Since the file decides where the key and the paragraphs go, it is read only when it is a regular
file of the user's own that nobody else may write (not a symbolic link, a FIFO or a device; at
most 64 KiB; strict JSON: no ``NaN`` or ``Infinity``; every value checked), like the key file.

The API key is never a flag and never in the config file (see :mod:`toolprune.apikey`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from pathlib import Path

from toolprune.configkeys import KEYS, SECRET_NAMES

TYPE_CHECKING = False  # typing itself is not imported on the start-up path
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import NoReturn

CONFIG_LIMIT = 64 << 10
"""The config file is at most this many bytes (it holds a handful of short settings)."""


def config_dir() -> Path:
    from toolprune.settings import user_dir

    return user_dir("config")


def config_path() -> Path:
    named = os.environ.get("TOOLPRUNE_CONFIG")
    return Path(named).expanduser() if named else config_dir() / "config.json"


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
    if _holds_key(*document, *(value if isinstance(value, str) else repr(value) for value in document.values())):
        return Config(path, {}, "it holds an API key: API keys never go in the config file "
                      "(use TOOLPRUNE_API_KEY or `toolprune config set-key`)", exists=True)
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


def _holds_key(*values: str) -> bool:
    if not values:
        return False
    from toolprune.apikey import holds_key  # it reads the key file beside this config

    return holds_key(*values)


class Layered(Mapping[str, str]):
    """The environment with the config file's values in its gaps: what every command reads its
    settings from, so flags > environment > config file > defaults. A variable that is unset or
    set to the empty string is a gap. Nothing is written into the process's environment (a
    command that toolprune runs inherits the user's environment as it was)."""

    __slots__ = ("environ", "config", "_filled")

    def __init__(self, environ: Mapping[str, str], loaded: Config) -> None:
        self.environ, self.config = environ, loaded
        self._filled = {
            KEYS[name].env: value for name, value in loaded.values.items() if not environ.get(KEYS[name].env)
        }

    def __getitem__(self, variable: str) -> str:
        value = self.environ.get(variable)
        if value:
            return value
        if variable in self._filled:
            return self._filled[variable]
        if value is None:
            raise KeyError(variable)
        return value

    def __iter__(self) -> Iterator[str]:
        yield from self.environ
        yield from (variable for variable in self._filled if variable not in self.environ)

    def __len__(self) -> int:
        return len(self.environ) + sum(variable not in self.environ for variable in self._filled)

    def source(self, variable: str) -> str | None:
        """Where a variable's value comes from: ``$NAME``, ``config file``, or None when unset."""
        if self.environ.get(variable):
            return f"${variable}"
        return "config file" if variable in self._filled else None


def layered(environ: Mapping[str, str]) -> Layered:
    """Read the config file (never raises) and lay it under ``environ``."""
    return Layered(environ, read())


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



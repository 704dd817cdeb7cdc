"""The API key of the remote scorer. It is never a flag and never in the config file: it comes
from ``TOOLPRUNE_API_KEY`` (falling back to ``TYPESAFE_API_KEY``) or from a key file of mode 0600
that ``toolprune config set-key`` writes beside the config file.
"""

from __future__ import annotations

import os
from pathlib import Path

from toolprune.config import config_dir, write_private
from toolprune.errors import UsageError


def key_path() -> Path:
    return config_dir() / "key"


KEY_VARIABLES = ("TOOLPRUNE_API_KEY", "TYPESAFE_API_KEY")


class KeyProblem(Exception):
    """The key file exists but must not be used; the message names the fix."""


def api_key() -> tuple[str | None, str]:
    """The API key and where it came from (a variable's name or the key file's path), or
    (None, why). Raises KeyProblem for a key file that is unsafe to use."""
    for variable in KEY_VARIABLES:
        value = os.environ.get(variable, "").strip()
        if value:
            return _usable(value, variable), variable
    return _key_file()


def _key_file() -> tuple[str | None, str]:
    """The key in the key file and its path, or (None, why); KeyProblem for an unsafe file."""
    path = key_path()
    try:
        value, info = _read_key_file(path)
    except FileNotFoundError:
        return None, "no API key: set TOOLPRUNE_API_KEY or run `toolprune config set-key`"
    except OSError as exc:
        raise KeyProblem(f"cannot read the key file {path}: {exc.strerror or exc}") from None
    if info.st_uid != os.getuid():
        raise KeyProblem(f"the key file {path} belongs to another user; not using it")
    if info.st_mode & 0o077:
        raise KeyProblem(
            f"the key file {path} is readable by others (mode {info.st_mode & 0o777:o}); "
            f"run `chmod 600 {path}` or `toolprune config set-key` again"
        )
    if not value:
        return None, f"the key file {path} is empty: run `toolprune config set-key`"
    return _usable(value, str(path)), str(path)


KEY_FILE_MAX = 65536


def _read_key_file(path: Path) -> tuple[str, os.stat_result]:
    """The key file's text (at most ``KEY_FILE_MAX`` bytes, stripped) and its status, read
    without following a link or blocking on a FIFO; OSError when it cannot be opened (FileNotFoundError
    when it is absent), KeyProblem when it is not a regular file."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        info = os.fstat(fd)
        import stat

        if not stat.S_ISREG(info.st_mode):
            raise KeyProblem(f"cannot read the key file {path}: it is not a regular file")
        return os.read(fd, KEY_FILE_MAX).decode("utf-8", "replace").strip(), info
    finally:
        os.close(fd)


MIN_REDACTED = 8
"""Keys shorter than this are not looked for in text (a test key "test" is a word)."""
MIN_PARTIAL = 16
"""The start of a key is hidden from this many characters on (a message that cuts a long value
short); a shorter start is too likely to be other text ("toolprune-local-key" starts like
"toolprune: …")."""


def known_keys() -> list[str]:
    """Every API key set for this user (the variables' and the key file's, also one the remote
    scorer refuses to use for its mode or owner: it is still a secret), longest first, so that
    none is printed or stored by mistake: a key pasted as another setting's value would otherwise
    be quoted back in that setting's error message, or written into the config file."""
    keys = [os.environ.get(variable, "").strip() for variable in KEY_VARIABLES]
    keys.append(_key_file_text())
    return sorted((key for key in dict.fromkeys(keys) if len(key) >= MIN_REDACTED), key=len, reverse=True)


def _key_file_text() -> str:
    """What the key file holds, whatever its mode ("" when it is absent, not a regular file, or
    unreadable)."""
    try:
        return _read_key_file(key_path())[0]
    except Exception:  # noqa: BLE001 - no file, no key to hide
        return ""


REDACTED = "[API key]"


def _forms(key: str) -> list[str]:
    """``key`` as text shows it: as it is, and escaped by ``repr`` or JSON (a key with a
    backslash or a quote in it)."""
    import json

    return list(dict.fromkeys((key, repr(key)[1:-1], json.dumps(key)[1:-1])))


def without_keys(text: str) -> str:
    """``text`` with every known API key in it replaced by ``[API key]`` (the longest first, as it
    is and as ``repr`` or JSON escape it), then the start of one from ``MIN_PARTIAL`` characters
    on, the longest start that any key has there (keys of one vendor share their first
    characters)."""
    keys = known_keys()
    if not keys:
        return text
    forms = sorted({form for key in keys for form in _forms(key)}, key=len, reverse=True)
    for form in forms:
        text = text.replace(form, REDACTED)
    heads: dict[str, list[str]] = {}
    for form in forms:
        if len(form) > MIN_PARTIAL:
            heads.setdefault(form[:MIN_PARTIAL], []).append(form)
    for head, same_start in heads.items():
        start = text.find(head)
        while start != -1:
            end = start + max(_common(text, start, form) for form in same_start)
            text = text[:start] + REDACTED + text[end:]
            start = text.find(head, start + len(REDACTED))
    return text


def _common(text: str, start: int, key: str) -> int:
    """How many characters of ``key`` ``text`` has from ``start`` on."""
    n = 0
    while n < len(key) and start + n < len(text) and text[start + n] == key[n]:
        n += 1
    return n


def holds_key(*values: str) -> bool:
    """Does any of ``values`` hold a known key?"""
    keys = known_keys()
    return any(key in value for key in keys for value in values)


def _usable(value: str, source: str) -> str:
    """``value`` when it can be sent as an HTTP header; an API key is printable ASCII."""
    if not value.isascii() or not value.isprintable() or any(c.isspace() for c in value):
        raise KeyProblem(f"the API key from {source} has spaces, control or non-ASCII characters: set it again")
    return value


def save_key(value: str) -> Path:
    value = value.strip()
    if not value:
        raise UsageError("no key given: nothing was saved")
    if any(c.isspace() for c in value) or not value.isprintable():
        raise UsageError("the key contains spaces or control characters: nothing was saved")
    path = key_path()
    write_private(path, (value + "\n").encode("utf-8"))
    return path

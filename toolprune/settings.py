"""Settings: flags > environment (``TOOLPRUNE_*``) > config file > defaults, resolved in one place.

Paths follow the platform (platformdirs); ``TOOLPRUNE_HOME`` puts all state under one folder
(handy for tests and for sandboxed agents).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from toolprune.errors import UsageError

TYPE_CHECKING = False  # typing's own flag would import typing on the start-up path
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypedDict

    from toolprune.core.models import Options

    class Fit(TypedDict, total=False):
        """The bounds one harness imposes (those it does not are absent)."""

        max_chars: int | None
        max_lines: int | None
        max_bytes: int | None

    class Bounds(TypedDict):
        """Output bounds; None is unbounded."""

        max_chars: int | None
        max_lines: int | None
        max_bytes: int | None

THRESHOLDS = {"gentle": 0.1, "standard": 0.2, "strong": 0.3, "max": 0.5}
DEFAULT_THRESHOLD = "standard"
DEFAULT_TIMEOUT = 20.0
LANGS = ("auto", "en", "ja")


def parse_threshold(value: str | float) -> float:
    """A preset name (gentle, standard, strong, max) or a number in (0, 1]."""
    if isinstance(value, (int, float)):
        number = float(value)
    else:
        text = value.strip().lower()
        if text in THRESHOLDS:
            return THRESHOLDS[text]
        try:
            number = float(text)
        except ValueError:
            raise UsageError(
                f"invalid threshold {value!r}: use gentle, standard, strong, max or a number in (0, 1]"
            ) from None
    if not 0.0 < number <= 1.0:
        raise UsageError(f"invalid threshold {value!r}: a number must be in (0, 1]")
    return number


MAX_TIMEOUT = 86_400.0


def parse_timeout(value: str | float) -> float:
    """The scoring deadline in seconds: a finite number above 0 and at most a day (``nan``,
    ``inf`` and negative numbers are refused). For ``--timeout``, ``TOOLPRUNE_TIMEOUT`` and the
    config file alike."""
    if isinstance(value, bool):
        raise UsageError(f"invalid timeout {value!r}: use a number of seconds, e.g. 20")
    try:
        number = float(value.strip() if isinstance(value, str) else value)
    except (TypeError, ValueError, OverflowError):
        raise UsageError(f"invalid timeout {value!r}: use a number of seconds, e.g. 20") from None
    if not 0.0 < number <= MAX_TIMEOUT:  # NaN fails it too
        raise UsageError(f"invalid timeout {value!r}: use a number of seconds above 0 and at most {MAX_TIMEOUT:g}")
    return number


def parse_lang(value: str) -> str:
    text = value.strip().lower()
    if text not in LANGS:
        raise UsageError(f"invalid language {value!r}: use auto, en or ja")
    return text


def parse_signal(value: str | None) -> str | None:
    """A regular expression for signal lines; checked here so a typo is a usage error."""
    if not value:
        return None
    import re

    try:
        re.compile(value)
    except re.error as exc:
        raise UsageError(f"invalid --signal {value!r}: {exc}") from None
    except (OverflowError, RecursionError):  # a{99999999999}, or thousands of nested groups
        raise UsageError(f"invalid --signal {value[:60]!r}: too large or too deeply nested") from None
    return value


FITS: dict[str, Fit] = {
    "claude": {"max_chars": 30_000},  # Claude Code's Bash tool truncates at 30,000 chars
    "codex": {"max_bytes": 10_240, "max_lines": 256},  # Codex: 10 KiB / 256 lines
    "gemini": {"max_chars": 40_000},  # Gemini CLI
}


def resolve_bounds(fit: str | None, max_chars: int | None, max_lines: int | None) -> Bounds:
    """Output bounds from ``--fit`` and ``--max-chars``/``--max-lines`` (which win)."""
    bounds: Bounds = {"max_chars": None, "max_lines": None, "max_bytes": None}
    if fit:
        name = fit.strip().lower()
        if name not in FITS:
            raise UsageError(f"invalid --fit {fit!r}: use {', '.join(FITS)}")
        bounds.update(FITS[name])
    if max_chars is not None:
        bounds["max_chars"] = max_chars
    if max_lines is not None:
        bounds["max_lines"] = max_lines
    for name, value in (("max_chars", bounds["max_chars"]), ("max_lines", bounds["max_lines"]),
                        ("max_bytes", bounds["max_bytes"])):
        if value is not None and value < 1:
            raise UsageError(f"invalid --{name.replace('_', '-')} {value}: must be at least 1")
    return bounds


_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800}
_SIZES = {"": 1, "b": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


def parse_duration(value: str) -> float:
    """``7d``, ``12h``, ``30m``, ``90s``: the unit is required (``gc --older-than 7`` meaning
    seconds once removed every record a user meant to keep for a week)."""
    text = value.strip().lower()
    if text == "0":
        return 0.0
    if text[-1:] not in _UNITS:
        raise UsageError(f"invalid duration {value!r}: give a unit, e.g. 7d, 12h, 30m or 90s")
    unit, number = text[-1:], text[:-1]
    try:
        seconds = float(number) * _UNITS[unit]
    except ValueError:
        raise UsageError(f"invalid duration {value!r}: use e.g. 7d, 12h, 30m or 90s") from None
    import math

    if not math.isfinite(seconds):  # nan would compare false with every age and remove everything
        raise UsageError(f"invalid duration {value!r}: use a finite number, e.g. 7d, 12h, 30m or 90s")
    if seconds < 0:
        raise UsageError(f"invalid duration {value!r}: must not be negative")
    return seconds


def parse_size(value: str) -> int:
    """``500M``, ``1G``, ``100k``, ``4096B`` (powers of 1,024): the unit is required."""
    raw = value.strip().lower()
    text = raw.removesuffix("ib").removesuffix("b")
    unit = text[-1:] if text[-1:] in _SIZES and text[-1:] else ""
    if not unit and not raw.endswith("b") and raw != "0":
        raise UsageError(f"invalid size {value!r}: give a unit, e.g. 500M, 1G, 100k or 4096B")
    number = text[:-1] if unit else text
    try:
        size = int(float(number) * _SIZES[unit])
    except OverflowError:  # inf, 1e400
        raise UsageError(f"invalid size {value!r}: use a finite number, e.g. 500M, 1G or 4096B") from None
    except ValueError:
        raise UsageError(f"invalid size {value!r}: use e.g. 500M, 1G or 4096B") from None
    if size < 0:
        raise UsageError(f"invalid size {value!r}: must not be negative")
    return size


def home() -> Path | None:
    value = os.environ.get("TOOLPRUNE_HOME")
    return Path(value) if value else None


def user_dir(kind: str) -> Path:
    """``$TOOLPRUNE_HOME``, else the platform's user ``kind`` ("state", "config") directory."""
    root = home()
    if root is not None:
        return root
    import platformdirs  # only when the directory is needed: not on the start-up path

    where = {"state": platformdirs.user_state_path, "config": platformdirs.user_config_path}[kind]
    return where("toolprune", appauthor=False)


def state_dir() -> Path:
    """Where toolprune keeps state: ``$TOOLPRUNE_HOME``, else the platform's user state dir."""
    return user_dir("state")


def default_spill_dir() -> Path:
    return state_dir() / "spill"


def resolve_spill_dir(value: Path | None) -> Path:
    """The spill directory: ``--spill-dir`` / ``TOOLPRUNE_SPILL_DIR`` (typer reads both), else
    the default."""
    if value is not None and str(value):
        return value.expanduser().absolute()
    return default_spill_dir()


def omitted_command(directory: Path, given: str | Path | None, named: bool = False) -> str:
    """The command the markers print to bring a dropped part back: ``toolprune omitted``, with
    ``--spill-dir`` naming ``directory`` (absolute) when ``named`` (it came from ``--spill-dir``)
    or when the value ``given`` (from a flag, the environment or the config file) is relative, which
    a shell in another folder would read as another directory."""
    import shlex
    import unicodedata

    command = "toolprune omitted"
    relative = given is not None and bool(str(given)) and not Path(given).expanduser().is_absolute()
    if named or relative:
        text = str(directory)
        # a marker is one line between ［ and ］, the header one between 【 and 】: such a path
        # would end it early or break it (a line break, a control character, a bracket), reorder
        # it on screen (a format character: U+202E) or not be printable at all (bytes that are
        # not UTF-8, read by Python as lone surrogates)
        if any(unicodedata.category(c) in ("Cc", "Cf", "Cs", "Zl", "Zp") or c in "［］【】" for c in text):
            raise UsageError(
                f"invalid spill directory {text!r}: the markers name it, so it must be UTF-8 without "
                "line breaks, control or format characters, ［］ or 【】; choose another --spill-dir or "
                "TOOLPRUNE_SPILL_DIR"
            )
        command += f" --spill-dir {shlex.quote(text)}"
    return command


class PruneSettings:
    """The settings of one prune, resolved and checked: what :func:`resolve` returns."""

    __slots__ = (
        "threshold", "lang", "timeout", "tail", "signal", "bounds", "envelope", "json_strict", "spill_dir",
        "scorer", "provider", "base_url", "path", "model",
    )  # fmt: skip
    threshold: float
    lang: str
    timeout: float
    tail: int
    signal: str | None
    bounds: Bounds
    envelope: bool
    json_strict: bool
    spill_dir: Path
    scorer: str
    provider: str | None
    base_url: str | None
    path: str | None
    model: str | None

    def __init__(self, **values: object) -> None:
        for name in self.__slots__:
            setattr(self, name, values[name])

    def options(
        self,
        basis: str,
        *,
        omitted_command: str | None = None,
        label: str | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> Options:
        """The core's :class:`~toolprune.core.models.Options` for ``basis``, with the omitted
        command (default ``toolprune omitted``), the envelope label and a progress callback."""
        from toolprune.core.models import OMITTED_COMMAND, Options

        return Options(
            basis=basis, threshold=self.threshold, lang=self.lang, timeout=self.timeout, tail=self.tail,
            signal=self.signal, envelope=self.envelope, json_strict=self.json_strict, **self.bounds,
            omitted_command=OMITTED_COMMAND if omitted_command is None else omitted_command, label=label,
            progress=progress,
        )  # fmt: skip


def refuse_keys(**values: object) -> None:
    """A UsageError when a setting's value holds a known API key (a key pasted as the label, the
    spill directory or the model by mistake would be written into the log, the markers or the
    envelope); the message names the setting, never the value."""
    given = {name: str(v) for name, v in values.items() if v is not None and str(v)}
    if not given:
        return
    from toolprune.apikey import holds_key

    for name, text in given.items():
        if holds_key(text):
            raise UsageError(f"the value of --{name.replace('_', '-')} holds your API key: give it another value "
                             "(the key goes in TOOLPRUNE_API_KEY or `toolprune config set-key`)")


def resolve(flags: Mapping[str, object], environ: Mapping[str, str]) -> PruneSettings:
    """The prune settings, in one place for the command line and every agent hook: a flag given
    (not None) wins, then the environment variable of that flag (``TOOLPRUNE_*``, read from
    ``environ``: the command's :class:`toolprune.config.Layered` view puts the config file's values
    in the environment's gaps, so they rank below), then the default of the
    flag table (``toolprune.cli.flags``). Every value is checked here; a bad one is a UsageError
    naming the flag or the variable."""
    from toolprune.cli.flags import FALSE_WORDS, FLAGS, TRUE_WORDS

    def value(dest: str) -> Any:  # the flag table's kind says which: str, int, float, bool or None
        flag = FLAGS[dest]
        given = flags.get(dest)
        if given is not None:
            return given
        raw = environ.get(flag.env, "") if flag.env else ""
        if not raw.strip():
            return flag.default
        text = raw.strip()
        if flag.kind == "bool":
            if text.lower() in TRUE_WORDS | FALSE_WORDS:
                return text.lower() in TRUE_WORDS
            raise UsageError(f"invalid ${flag.env} {raw!r}: use 1 or 0 (true/false, yes/no, on/off)")
        if flag.kind == "int":
            try:
                return int(text)
            except ValueError:
                raise UsageError(f"invalid ${flag.env} {raw!r}: use a whole number") from None
        return text

    tail = value("tail")
    if tail < 0:
        raise UsageError(f"invalid --tail {tail}: must be 0 or more")
    spill = value("spill_dir")
    texts = {name: value(name) for name in ("signal", "provider", "base_url", "path", "model")}
    refuse_keys(spill_dir=spill, **texts)
    return PruneSettings(
        threshold=parse_threshold(value("threshold")),
        lang=parse_lang(value("lang")),
        timeout=parse_timeout(value("timeout")),
        tail=tail,
        signal=parse_signal(texts["signal"]),
        bounds=resolve_bounds(value("fit"), value("max_chars"), value("max_lines")),
        envelope=bool(value("envelope")),
        json_strict=bool(value("json_strict")),
        spill_dir=resolve_spill_dir(Path(spill) if spill is not None else None),
        scorer=value("scorer"),
        provider=texts["provider"],
        base_url=texts["base_url"],
        path=texts["path"],
        model=texts["model"],
    )

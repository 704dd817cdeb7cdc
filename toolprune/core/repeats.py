"""Repeated signal lines: a log that prints the same error a thousand times needs it once.

A block pinned only for signal lines seen ``REPEAT_KEEP`` times before is dropped first when
the output must fit a bound (``--fit``, ``--max-chars``), and the marker in its place quotes
the repeated line and says how many such lines it holds. A *warning* that repeats pins nothing
after its first ``REPEAT_KEEP`` times, bound or not (:func:`repeated_warnings`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from toolprune.core.lines import MAX_CHARS, known, with_continuations
from toolprune.core.logtext import LogText
from toolprune.core.signals import _ANSI
from toolprune.core.text import Unit

REPEAT_KEEP = 3
"""A signal line counts as new the first this many times it occurs (digits aside). A block whose
every signal line is a later repeat is pinned like any signal block, but a bound (``--fit``,
``--max-chars``) drops it (and the blocks that continue it) before anything else, and the
marker in its place says how many lines like it it holds."""
REPEAT_KEYS = 50_000
"""Distinct signal lines remembered; past this many, further new ones are never repeats (bounded
memory whatever the log)."""
_DIGITS = re.compile(r"\d+")
_EXEMPT, _REPEATED = -1, REPEAT_KEEP + 1  # a line's count once it repeated: exempt, or a repeat
_STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z ?")  # GitHub Actions' time stamps
_QUOTED = re.compile(r"'[^'\n]{0,300}'|\"[^\"\n]{0,300}\"|`[^`\n]{0,300}`")  # bounded: linear


def same_but_numbers(line: str) -> str:
    """What a repeat of ``line`` has in common with it: every number reads 0."""
    return _DIGITS.sub("0", line).strip()


def _same_but_names(line: str) -> str:
    """What a repeated warning has in common with the first: every number reads 0 and every
    quoted name reads ``''`` (pip's ``WARNING: Location '…/simple/click/' is ignored``, once for
    each package it looks up)."""
    return same_but_numbers(_QUOTED.sub("''", line))


def _is_warning(line: str) -> bool:
    """A line that starts with "warning" in any case, after a CI runner's time stamp."""
    line = line.lstrip()
    if line[:1].isdigit() and (stamp := _STAMP.match(line)):
        line = line[stamp.end() :].lstrip()
    return line[:7].lower() == "warning"


def _names_elided(line: str) -> str:
    """A repeated warning as a marker quotes it: each quoted name as ``'…'`` (the lines it stands
    for name other packages)."""
    return _QUOTED.sub(lambda m: f"{m.group(0)[0]}…{m.group(0)[0]}", line)


def _repeats(
    log: LogText,
    units: Sequence[Unit],
    found_in: dict[int, list[int]],
    same: Callable[[str], str] = same_but_numbers,
    only: Callable[[str], bool] | None = None,
    shown: Callable[[str], str] | None = None,
    exempt: Callable[[str], bool] | None = None,
) -> dict[int, dict[int, int]]:
    """The blocks whose every signal line repeats one seen ``REPEAT_KEEP`` times before (the
    same text once ANSI colours are dropped and read through ``same``), with how many of each
    such line they hold (by the line's hash). With ``only``, only the signal lines it accepts
    can be repeats (a block with any other signal line is not one), and with ``exempt`` a line
    it accepts never is one (asked once per repeated line, when it first repeats: most lines
    never do). A single-line block longer
    than ``MAX_CHARS`` is never a repeat (it is not read again). The first repeat of each line,
    quoted for a marker (read through ``shown`` first), is kept in ``log.found["samples"]`` with
    its rank (the order in which the lines repeated)."""
    seen: dict[int, int] = {}
    samples: dict[int, tuple[int, str]] = log.found.setdefault("samples", {})
    out: dict[int, dict[int, int]] = {}
    for block in sorted(found_in):
        unit = units[block]
        if unit.end - unit.start > MAX_CHARS:
            continue
        text = log[unit.start : unit.end]
        keys: dict[int, int] = {}
        fresh, read = False, set()
        for pos in sorted(found_in[block]):
            at = text.rfind("\n", 0, pos - unit.start) + 1  # the start of the signal's line
            if at in read:
                continue
            read.add(at)
            stop = text.find("\n", at)
            line = text[at : stop if stop >= 0 else len(text)]
            plain = _ANSI.sub("", line) if "\x1b" in line else line
            if only is not None and not only(plain):
                fresh = True
                continue
            key = hash(same(plain))
            count = seen.get(key, 0)
            if count == REPEAT_KEEP:  # its first repeat: asked once whether it is exempt
                count = seen[key] = _EXEMPT if exempt is not None and exempt(plain) else _REPEATED
            if count == _EXEMPT:
                fresh = True
            elif count < REPEAT_KEEP:
                fresh = True
                if count or len(seen) < REPEAT_KEYS:
                    seen[key] = count + 1
            else:
                keys[key] = keys.get(key, 0) + 1
                if key not in samples:
                    samples[key] = (len(samples), quote(line if shown is None else shown(line)))
        if not fresh:
            out[block] = keys
    return out


_ABOUT_WARNINGS = re.compile(r"(?i)warn|警告|ワーニング")
WARNINGS_READ = 100_000
"""A log with more signal lines than this keeps every warning pinned, as before the rule: each
line read costs a few microseconds of Python, and 1.5 million of them (53 MB of warnings) took
12 s more, over a log that pruned in 4 s."""


def repeated_warnings(log: LogText, units: Sequence[Unit], found_in: dict[int, list[int]], basis: str) -> set[int]:
    """The blocks of ``log`` whose every signal line is a warning (a line that starts with
    "warning", in any case) seen ``REPEAT_KEEP`` times before, numbers and quoted names aside.
    They are not pinned: pip says ``WARNING: Location '…' is ignored`` once for each package it
    resolves, and a signal on every block would keep the whole log. The first ``REPEAT_KEEP``
    still pin theirs, and a dropped block's marker quotes the warning it repeats, its quoted
    names elided (:func:`like`). A request about the warnings keeps them all: one that says
    "warning" (警告), or shares a word with the warning once its quoted names are set aside
    ("fix the unused variable warnings", "which index locations were ignored"); their words
    are too common in such a log for relevance to keep them.
    Errors are never let go this way: a build's repeated error lines are its failure (on the CI
    logs of ``bench/eval_logs.py`` doing the same for every signal line kept 0.70 of the
    failure lines instead of 0.98). Nor are the lines of a ``--signal`` the user gave: they asked
    for every one of them."""
    if _ABOUT_WARNINGS.search(basis) or sum(map(len, found_in.values())) > WARNINGS_READ:
        return set()
    from toolprune.core.tokens import STOP_WORDS, fold, tokens

    asked: set[str] = set()  # the request's words, read when a warning first repeats (most logs: never)

    def named(line: str) -> bool:  # shares a word with the request, its quoted names aside
        if not asked:
            asked.update(set(tokens(fold(basis))) - STOP_WORDS or {""})
        return bool(asked.intersection(tokens(fold(_QUOTED.sub("''", line)))))

    found = _repeats(log, units, found_in, _same_but_names, _is_warning, _names_elided, named)
    log.found["warned"] = found
    return set(found)


def repeats(text: str | LogText) -> set[int]:
    """Of the pinned blocks of ``text`` (the last one given to :func:`pinned`), those pinned only
    for signal lines that repeat ones seen before, and the blocks that continue them. Found on
    the first call (only a bound needs them), then known to :func:`like`."""
    log = known(text)
    if log is None or "repeat_input" not in log.found:
        return set()
    found = log.found
    if "repeats" not in found:
        units, lines, hits, tail_blocks, steps_pinned, out, found_in = found["repeat_input"]
        repeated = _repeats(log, units, found_in)
        # pinned only for repeated signal lines (and what continues them)
        fresh = with_continuations(log, lines, hits - repeated.keys(), tail_blocks) if repeated else out
        found["repeats"] = {i: repeated.get(i, {}) for i in out - fresh - steps_pinned}
    return set(found["repeats"])


LIKE_CHARS = 60
"""Characters of a repeated line quoted in a marker."""


def like(text: str | LogText, first: int, last: int) -> tuple[int, str] | None:
    """For the dropped blocks ``first..last`` of ``text``: how many lines they hold that repeat
    the same kept signal line (the most repeated one), and one of those lines as the marker
    quotes it (see :func:`quote`); None when they hold none."""
    log = known(text)
    if log is None:
        return None
    found, warned = log.found.get("repeats", {}), log.found.get("warned", {})  # read in place: once per marker
    if not found and not warned:
        return None
    totals: dict[str, int] = {}
    for block in range(first, last + 1):
        for key, n in (found.get(block) or warned.get(block, {})).items():
            totals[key] = totals.get(key, 0) + n
    if not totals:
        return None
    samples = log.found["samples"]  # in the order the lines first repeated: ties go to the earliest
    key = max(totals, key=lambda k: (totals[k], -samples[k][0]))
    return totals[key], samples[key][1]


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]+")


def quote(line: str) -> str:
    """A line as a marker may quote it: one line without its time stamp, control characters
    and the marker's own brackets and quotes replaced, cut to ``LIKE_CHARS`` (ending in "…")."""
    line = _CONTROL.sub(" ", _ANSI.sub("", line)).strip()
    stamp = _STAMP.match(line)
    line = line[stamp.end() :] if stamp else line
    line = line.replace("［", "[").replace("］", "]").replace('"', "'")
    line = line.replace("toolprune omitted", "toolprune-omitted")
    return line if len(line) <= LIKE_CHARS else line[: LIKE_CHARS - 1].rstrip() + "…"

"""Signal lines: where a log says something failed (an error, a failure, a traceback, a
``file:line:`` diagnostic, a non-zero exit), found by the default pattern or the user's
``--signal``. The line-block code (``core/lines.py``) pins the blocks that hold them.

Only linear scans: the default pattern is matched on lower-cased text, one pattern per first
letter, and patterns anchored at a line start cannot backtrack over a long run.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator, Sequence

from toolprune.core.logtext import LogText

# The default signal, matched on lower-cased text (case-insensitive matching is several times
# slower): failure words with word boundaries and without a zero count ("Failures: 0", "0 errors"),
# then fixed phrases, then patterns anchored at a line start.
_SIGNAL_WORDS = re.compile(
    "errors?|failed|failures?|fatal|panic(?:ked)?|exception|traceback|segmentation fault|assertionerror|aborted"
)
# The same words, one pattern per first letter, for the scan: an alternation of literals is tried
# at every position holding any of their first letters (a third of a log's characters), a
# pattern with one first letter is searched for that letter at C speed. A word found inside a
# longer match of another ("error" in "assertionerror") has a letter before it and is dropped as
# part of a longer word, so the positions are those of the alternation.


def _searched(literal: str, rest: str = "") -> tuple[re.Pattern[str], str]:
    """A pattern that starts with ``literal`` (then ``rest``), and the literal: the scan finds
    its matches by ``str.find`` for the literal, which skips ahead about twice as fast as the
    regular-expression engine's own search, and tries the pattern only there."""
    return re.compile(re.escape(literal) + rest), literal


def _lettered(pattern: str) -> tuple[re.Pattern[str], str]:
    """A pattern searched by the engine (its first letter is too common to find one by one)."""
    return re.compile(pattern), ""


_SIGNAL_WORDS_BY_LETTER = [
    _lettered("e(?:rrors?|xception)"), _lettered("f(?:ailed|ailures?|atal)"), _searched("panic", "(?:ked)?"),
    _searched("traceback"), _searched("segmentation fault"), _lettered("a(?:ssertionerror|borted)"),
]
_SIGNAL_PHRASES = re.compile(
    r"##\[error\]|npm err!|error(?:\[e\d+\])?:|exit(?:ed)?(?: with)? (?:code|status):? *[1-9]|non-zero exit"
    r"|build failed|warning:|no such file or directory|command not found|\(severity: *\d\)"
)
_SIGNAL_PHRASES_BY_LETTER = [  # the same, by first letter (a phrase inside another on one line may be found too)
    _searched("##[error]"), _lettered("n(?:pm err!|on-zero exit|o such file or directory)"),
    _lettered(r"e(?:rror(?:\[e\d+\])?:|xit(?:ed)?(?: with)? (?:code|status):? *[1-9])"), _searched("build failed"),
    _searched("warning:"), _searched("command not found"), _searched("(severity:", r" *\d\)"),
]


def _spans(pattern: re.Pattern[str], literal: str, text: str) -> Iterator[tuple[int, int]]:
    """The spans ``pattern.finditer(text)`` gives. With ``literal``, what every match starts
    with, they are found by skipping from one occurrence of it to the next: the leftmost match
    at or after a position starts at one of them, and the next search starts where a match
    ends, as finditer's does."""
    if not literal:
        for m in pattern.finditer(text):
            yield m.span()
        return
    match, find = pattern.match, text.find
    pos = find(literal)
    while pos >= 0:
        found = match(text, pos)
        if found is None:
            pos = find(literal, pos + 1)
        else:
            yield found.span()
            pos = find(literal, found.end())  # never empty: a match holds the literal


# ``path/file.ext:line:[col:] `` at a line start: a run of path characters holding a letter
# before its last dot, which ends in ``.ext``. Written so that it cannot backtrack over a long
# run (a JWT or a hash at a line start took quadratic time): the lookahead finds the first
# letter and the dot after it in one forward pass, and ``\.\w+:`` can only start at a dot.
# A first lookahead asks only for the ``.ext:line`` (a run of one character class, which the
# engine passes over quickly): most lines fail it, and the costlier letter test is not tried.
# ``e`` and two or more blanks (whitespace short of a line break): pytest's assertion lines.
_SIGNAL_LINES = re.compile(
    r"\n(?:\x1b\[[0-9;]*m)*"
    r"(?:e[^\S\n]{2,}|(?=[\w./\\-]*\.\w+:\d)(?=(?:[^\Wa-z]|[./\\-])*[a-z][\w/\\-]*\.)[\w./\\-]*\.\w+:\d+:(?:\d+:)? "
    r"|offenses:)"
)
_SIGNAL_FIRST_LINE = re.compile(_SIGNAL_LINES.pattern[2:])  # the same for the first line (no "\n" before it)
_ZERO_AFTER = re.compile(r":?[ \t]*0\b")  # "errors: 0" on the same line (never the next line's "0")


def _zero_before(low: str, a: int) -> bool:
    """Is the word at ``a`` counted as none ("0 errors")? The count is the number "0" alone:
    "10 errors" and jest's "Tests: 20 failed" are failures."""
    return low[max(0, a - 2) : a] == "0 " and (a < 3 or not low[a - 3].isdigit())


_ANSI_BEFORE = re.compile(r"\x1b\[[0-9;]*m$")
ANSI_REACH = 32
"""How far back a colour code before a word is looked for: a 24-bit colour with bold
(``\x1b[1;38;2;255;255;255m``) is 22 characters."""
_DIAGNOSED_WARNING = re.compile(
    r"(?:\x1b\[[0-9;]*[mKk])*[\w./\\+-]+:\d+:(?:\d+:)?(?:\x1b\[[0-9;]*[mKk])* (?:\x1b\[[0-9;]*[mKk])*warning:"
)
"""A compiler's warning (``src/a.c:12:5: warning: unused variable``): its ``file:line:col:``
is a signal like an error's, and a warning like a ``warning:`` once the failure is named."""


def _diagnosed_warning(text: str, pos: int) -> bool:
    """Is the signal at ``pos`` the start of a line holding a compiler's warning? Only line starts
    are tried (a ``file:line:col:`` signal is one), and only the line's first 300 characters: a
    match tried at every signal word of a megabyte-long line would take quadratic time."""
    if pos and text[pos - 1] != "\n":
        return False
    return _DIAGNOSED_WARNING.match(text[pos : pos + 300]) is not None


def _lower_case_warning(log: LogText, pos: int) -> bool:
    """Is the warning found at ``pos`` (matched on lower-cased text) in lower case in the log
    too? ``WARNING:`` lines (pip, Maven) are loud on purpose; ``warning:`` is a compiler's."""
    line = log[pos : pos + 300]
    if line.startswith("warning:"):
        return True
    found = _DIAGNOSED_WARNING.match(line)
    return found is not None and line[found.end() - 8 : found.end()] == "warning:"


_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")


def says_failed(text: str) -> bool:
    """Does ``text`` (a line, a record) hold the default signal's words or phrases (an error, a
    failure, a traceback, ``npm ERR!``)? The plain test, for a few short texts; a log is scanned
    by :func:`signal_positions`."""
    low = text.lower()
    return _SIGNAL_WORDS.search(low) is not None or _SIGNAL_PHRASES.search(low) is not None


def signal_positions(text: str | LogText, signal: str | None = None) -> list[int]:
    """Where signal lines match in ``text`` (ANSI colour codes ignored)."""
    if signal:
        return _user_signal(str(text), signal)
    if isinstance(text, LogText):
        return scan_ranges(text, [(0, len(text))])[0]
    out: list[int] = []
    from toolprune.core import lines  # its pieces (and their size, CHUNK)

    for offset, piece in lines.pieces(text):  # signal lines never span a line break
        out += [offset + pos for pos in _default_signals(piece)]
    return out


_UNSEEN = re.compile(_ANSI.pattern + r"|\r(?=\n)")
"""What a pattern of the user's does not see: colour codes, and the CR of a CRLF line end (so
that ``^ERROR`` matches a coloured line and ``failed$`` a Windows log's)."""


def _user_signal(text: str, signal: str) -> list[int]:
    """Where the user's ``--signal`` pattern matches in ``text``, read without colour codes and
    CRs before line ends; positions are those of ``text``. The pattern is given the whole text
    (it may span lines), with ``^`` and ``$`` matching at every line."""
    pattern = re.compile(signal, re.M)
    if "\x1b" not in text and "\r" not in text:
        return [m.start() for m in pattern.finditer(text)]
    seen: list[str] = []
    starts: list[int] = []  # where each kept stretch begins in the stripped text
    origins: list[int] = []  # ... and in ``text``
    at = size = 0
    for m in _UNSEEN.finditer(text):
        starts.append(size)
        origins.append(at)
        seen.append(text[at : m.start()])
        size += m.start() - at
        at = m.end()
    starts.append(size)
    origins.append(at)
    seen.append(text[at:])
    out = []
    for m in pattern.finditer("".join(seen)):
        k = bisect_right(starts, m.start()) - 1
        out.append(origins[k] + m.start() - starts[k])
    return out


def _default_signals(text: str, insensitive: bool | None = None, low: str | None = None) -> list[int]:
    """Where the default signal matches in ``text``: whole lines, the first one at 0.
    ``insensitive`` (default: whether ``text`` holds a character whose lower case is longer, an
    "İ") matches case-insensitively instead of on the lower-cased text. ``low``: the text lower-
    cased already, or a stand-in that every pattern matches at the same places (see
    :func:`_lowered`)."""
    if low is None:
        low = text.lower()
    if insensitive if insensitive is not None else len(low) != len(text):
        either = re.compile(_SIGNAL_WORDS.pattern + "|" + _SIGNAL_PHRASES.pattern, re.I)
        return [m.start() for m in either.finditer(text)]
    out = []
    size = len(low)
    for pattern, literal in _SIGNAL_WORDS_BY_LETTER:
        # a word is dropped when a word character (a letter or digit of any script, "_", "-")
        # stands next to it; tested inline, not by a function: ~20,000 words on 8 MB of log
        for a, b in _spans(pattern, literal, low):
            if a:
                before = low[a - 1]
                if (before.isalnum() or before in "_-") and not (
                    before == "m" and _ANSI_BEFORE.search(low, max(0, a - ANSI_REACH), a)
                ):
                    continue  # inside a longer word (a colour code just before it is not a word)
            if b < size:
                after = low[b]
                if after.isalnum() or after in "_-":
                    continue
            if _zero_before(low, a) or _ZERO_AFTER.match(low, b):
                continue
            out.append(a)
    for pattern, literal in _SIGNAL_PHRASES_BY_LETTER:
        out += [a for a, _ in _spans(pattern, literal, low)]
    out += [m.start() + 1 for m in _SIGNAL_LINES.finditer(low)]  # the line after the "\n"
    if _SIGNAL_FIRST_LINE.match(low):
        out.append(0)
    return out


_KELVIN = "\u212a".encode()
"""The one character outside ASCII whose lower case is an ASCII letter ("K" → "k")."""


def _lowered(log: LogText, start: int, end: int) -> str | None:
    """Characters ``start:end`` of ``log`` with their ASCII letters lower-cased, which the
    signal patterns match exactly where they match the lower-cased text; None when that is not
    so (a Kelvin sign).

    Outside ASCII, ``bytes.lower`` and a decode are several times faster than ``str.lower`` (a
    log's emoji makes every character of its piece four bytes wide). It leaves other letters as
    they are ("É" stays "É"), which the patterns cannot tell apart: they spell ASCII letters
    only, and every character whose lower case is another single character has the same
    ``\\w``, ``\\d``, ``\\s`` and ``isalnum()`` as it (checked over all of Unicode by
    tests/test_logtext.py). The exceptions are "İ", whose lower case is two characters (the
    caller matches a piece holding one case-insensitively instead), and the Kelvin sign, whose
    lower case is "k". An ASCII range is lower-cased as a str: as fast, and decoded without a
    copy of its bytes (a 20 MB line is then held twice, not three times)."""
    a, b = log.byte_offset(start), log.byte_offset(end)
    if b - a == end - start:
        return log[start:end].lower()
    raw = log.data[a:b]
    if _KELVIN in raw:
        return None
    low = raw.lower()
    del raw  # held once at a time with the decoded text
    return str(low, "utf-8", "surrogatepass")


def scan_ranges(log: LogText, ranges: Sequence[tuple[int, int]]) -> tuple[list[int], set[int]]:
    """The default signal's positions in ``ranges`` of ``log`` (character ranges from a line
    start to a line start or the end, in order), and those of them that are a lower-case
    ``warning:``. Each range is read in the pieces :meth:`LogText.pieces` cuts, so a piece
    holding an "İ" is matched case-insensitively whichever part of it is read. The text is read
    in smaller parts (:meth:`LogText.pieces`' size, also cut after line breaks), which find what
    their piece would: no signal spans a line break."""
    from toolprune.core import lines  # the size of its pieces, CHUNK
    from toolprune.core.logtext import PIECE

    data = log.data
    cuts = list(log.cuts(lines.CHUNK))
    offset = log.byte_offset
    if log.isascii():
        insensitive = [False] * len(cuts)
    else:
        insensitive = [data.find(b"\xc4\xb0", offset(a), offset(b)) >= 0 for a, b in cuts]  # "İ" in UTF-8
    ends = [b for _, b in cuts]
    parts = sorted({b for _, b in log.cuts(PIECE)}.union(ends))  # where a read part may end
    out: list[int] = []
    warnings: set[int] = set()
    for a, b in ranges:
        k = bisect_right(ends, a)
        j = bisect_right(parts, a)
        while a < b:
            end = min(b, parts[j])
            if a >= ends[k]:  # the next piece
                k += 1
            low = None if insensitive[k] else _lowered(log, a, end)
            text = log[a:end] if low is None else ""  # the original, where it is matched itself
            found = _default_signals(text, insensitive[k], low)
            matched = text if low is None else low
            warned = [pos for pos in found if matched.startswith("warning:", pos) or _diagnosed_warning(matched, pos)]
            del low, text, matched  # not held while the positions are copied (a 20 MB line)
            out += [a + pos for pos in found]
            del found
            # lower case in the original too
            warnings.update(a + pos for pos in warned if _lower_case_warning(log, a + pos))
            a = end
            j += 1
    return out, warnings

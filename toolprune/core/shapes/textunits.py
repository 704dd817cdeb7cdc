"""Structure-aware units for text whose kind is known (see ``core/kinds.py``).

Each splitter returns a :class:`Structure`: the units (half-open spans that end before their
last line break, as everywhere in the text shape), and for each unit two links used when the
decisions are made:

- ``heads[i]``: the unit that holds the heading of unit ``i``'s section (``-1``: none). When a
  unit is kept, its head is kept too, and its head's head (a ``.. py:data:: X`` line for its
  body, a ``commit <hash>`` header for a hunk of its patch, a man page's option line for its
  description).
- ``intros[i]``: the unit that introduces unit ``i`` (``-1``: none): a code block (fenced, an
  rST ``::`` literal block or ``.. code-block::`` directive, an indented block), a list or a
  Markdown table after the paragraph that leads into it, and a title's first paragraph. Unit
  ``i`` scores at least as much as its introduction, and a kept unit keeps its introduction.

The rules, by kind:

- **gitlog / diff**: a commit (its ``commit``/``Author``/``Date`` header, message and
  ``--stat``) up to ``WHOLE_CHARS`` is one unit, patch included; a larger one is its header
  and message, then one unit per file of its patch (a file's ``diff --git``…``+++`` lines with
  its hunks, cut at hunk starts when over ``WHOLE_CHARS``). Hunks have their file's header as
  head, files their commit. The MCP git server's ``Commit: <hash>`` header starts a commit as
  ``commit <hash>`` does, and a caption line above the log or diff (``Diff with v1.11.1:``) is
  a unit of its own, which heads the files of a diff without commits.
- **listing**: ``grep`` lines are grouped by file (consecutive lines of one path, cut where the
  line numbers jump by more than ``GREP_GAP`` and before a match that is a definition, which
  heads the deeper matches after it: ``_DEFINITION``), ``ls -lR``
  by directory, ``find`` and ``find -ls`` by parent directory; a group over ``MAX_LINES`` lines or
  ``MAX_CHARS`` characters is cut, the later pieces headed by the first.
- **markdown, rst, man, pydoc**: blank-line paragraphs (a fenced block is one unit, or over
  ``MAX_CHARS`` its parts, cut at its blank lines and every ``MAX_LINES`` lines, each later part
  headed by the first and introduced by what introduces the block: ``LONG_CODE``). A
  heading (``#``, an underlined rST title, a Markdown title underlined with ``=`` or ``-``)
  heads every paragraph up to the next heading of its level or above; in indented documents
  (rST directives and literal blocks, man pages, pydoc) a paragraph is headed by the nearest
  paragraph before it that is less indented. A paragraph over ``MAX_CHARS`` is cut before its
  entry lines (a line followed by a more indented one: an option, a function signature, a
  directive) and then every ``MAX_LINES`` lines. A paragraph
  under ``MERGE_BELOW`` characters is merged into the next one, but never into a heading (it
  joins the one before it instead); titles and rST directives stay units of their own, and a
  title's first paragraph scores at least as much as the title (it travels with its body). In
  man, pydoc and rST an entry (a unit with everything it heads) up to ``ENTRY_CHARS`` is one
  unit; the pipeline lets a longer entry's paragraphs score a share of their head's score.
- **markdown** tables of ``TABLE_ROWS`` rows or more: each row is a unit of its own (never merged),
  headed by the table's header row and rule.
- **listing** pieces after the first of one file or directory are headed by the first.
- **lists** of ``LIST_ITEMS`` items or more (bullets, numbers, or lines that open with an option,
  as a ``--help`` page lists them): each item is a unit, introduced by the lead-in above it.

Work is one pass over the lines (and a stack of open sections): linear in the input.
"""

from __future__ import annotations

import re
from typing import cast  # typing is loaded on every prune anyway (core.models needs it)

from toolprune.core.kinds import CONFIG_SECTION, FIND_LS, LS_LONG
from toolprune.core.text import FIXED_CHARS, MERGE_BELOW, Unit, _blocks

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from collections.abc import Callable, Container

MAX_LINES = 40
MAX_CHARS = 2_000
ENTRY_CHARS = 800
"""An indented document's entry up to this size is one unit; a larger one is its paragraphs,
each scoring at least a share of the entry's first (``ENTRY_SHARE`` in ``core/decide.py``). At
1,500 chars, argparse's ``ArgumentParser`` parameter list (1,100 chars) was one unit and scored
0.18 for a question about ``fromfile_prefix_chars``. On the real-output tune half (2026-12-03;
``bench/eval_real.py``): 1,500 → 800 chars, all gold 95.6 % → 96.1 %, reduction 0.474 → 0.479;
600 and 1,000 gave the same all gold at 0.480 and 0.477, 2,000 95.6 % at 0.471."""
WHOLE_CHARS = 3_000
"""A commit or a file's patch up to this size is one unit."""


class Structure:
    __slots__ = ("units", "heads", "intros", "rows", "versions")

    def __init__(self, units: list[Unit], heads: list[int], intros: list[int]) -> None:
        self.units = units
        self.heads = heads
        self.intros = intros
        self.rows: set[int] = set()
        """Units that are rows of a split Markdown table (records, never an island)."""
        self.versions: list[int] = []
        """A changelog's release headings, in order (see :func:`_versions`)."""


def _line_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """(start, content end) of every line of ``text[start:end]`` (``\\r`` before ``\\n`` excluded)."""
    out = []
    pos = start
    while pos <= end:
        nl = text.find("\n", pos, end)
        stop = end if nl < 0 else nl
        out.append((pos, stop - 1 if stop > pos and text[stop - 1] == "\r" else stop))
        if nl < 0:
            break
        pos = nl + 1
    return out


def _trim(text: str, lines: list[tuple[int, int]]) -> tuple[int, int] | None:
    """The span from the first to the last non-blank line of ``lines``."""
    first = next((s for s, e in lines if text[s:e].strip()), None)
    if first is None:
        return None
    last = next(e for s, e in reversed(lines) if text[s:e].strip())
    return first, last


def _pieces(text: str, lines: list[tuple[int, int]], cuts: set[int] | None = None) -> list[tuple[int, int]]:
    """Spans of at most ``MAX_LINES`` lines and ``MAX_CHARS`` characters (a longer line alone),
    cut before the line indexes in ``cuts`` and at blank lines; blank lines are in no span."""
    out: list[tuple[int, int]] = []
    group: list[tuple[int, int]] = []

    def flush() -> None:
        span = _trim(text, group)
        if span is not None:
            out.append(span)
        group.clear()

    for k, (s, e) in enumerate(lines):
        if not text[s:e].strip():
            flush()
            continue
        if group and (
            (cuts and k in cuts) or len(group) >= MAX_LINES or e - group[0][0] > MAX_CHARS
        ):
            flush()
        group.append((s, e))
    flush()
    return out


# ---------------------------------------------------------------- git log and diffs

_COMMIT = re.compile(r"(?:commit |Commit: )[0-9a-f]{7,64}\b")  # git log; the MCP git server
_FILE = re.compile(r"diff (?:--git|--cc|--combined) ")
_HUNK = re.compile(r"@@")


def opens_commit(text: str, start: int) -> bool:
    """Does a commit's header start at ``start`` (not a caption line above the log)? A byte
    order mark before the first one is skipped, as the kind of text was decided without it."""
    if start == 0 and text.startswith("\ufeff"):
        start = 1
    return _COMMIT.match(text, start) is not None


def split_patches(text: str) -> Structure:
    """``git log`` (with or without patches) and plain unified diffs."""
    lines = _line_spans(text, 0, len(text))
    units: list[Unit] = []
    heads: list[int] = []
    bounds = sorted({0, len(lines)} | {k for k, (s, _) in enumerate(lines) if _COMMIT.match(text, s)})
    for a, b in zip(bounds, bounds[1:]):
        _commit(text, lines[a:b], units, heads)
    return Structure(units, heads, [-1] * len(units))


def _add(units: list[Unit], heads: list[int], span: tuple[int, int], head: int) -> int:
    s, e = span
    units.append(Unit(s, e, e - s > FIXED_CHARS))
    heads.append(head)
    return len(units) - 1


def _commit(text: str, lines: list[tuple[int, int]], units: list[Unit], heads: list[int]) -> None:
    whole = _trim(text, lines)
    if whole is None:
        return
    if whole[1] - whole[0] <= WHOLE_CHARS:
        _add(units, heads, whole, -1)
        return
    files = [k for k, (s, _) in enumerate(lines) if _FILE.match(text, s)]
    if not files:  # a plain unified diff: a file starts at each ``--- `` line followed by ``+++ ``
        files = [
            k for k, (s, _) in enumerate(lines)
            if text.startswith("--- ", s) and k + 1 < len(lines) and text.startswith("+++ ", lines[k + 1][0])
        ]
        if not files and lines and text.startswith(("--- ", "+++ "), lines[0][0]):
            files = [0]
    top = files[0] if files else len(lines)
    head = -1
    header = _trim(text, lines[:top])
    if header is not None:
        for span in _pieces(text, lines[:top]) if header[1] - header[0] > WHOLE_CHARS else [header]:
            index = _add(units, heads, span, head)
            head = index if head < 0 else head
    bounds = files + [len(lines)]
    for a, b in zip(bounds, bounds[1:]):
        _file(text, lines[a:b], units, heads, head)


def _file(text: str, lines: list[tuple[int, int]], units: list[Unit], heads: list[int], head: int) -> None:
    whole = _trim(text, lines)
    if whole is None:
        return
    if whole[1] - whole[0] <= WHOLE_CHARS:
        _add(units, heads, whole, head)
        return
    hunks = [k for k, (s, _) in enumerate(lines) if _HUNK.match(text, s)] or [len(lines)]
    file_head = _add(units, heads, _trim(text, lines[: hunks[0]]) or whole, head) if hunks[0] else head
    bounds = hunks + [len(lines)]
    for a, b in zip(bounds, bounds[1:]):
        hunk = lines[a:b]
        span = _trim(text, hunk)
        if span is None:
            continue
        pieces = [span] if span[1] - span[0] <= WHOLE_CHARS else _pieces(text, hunk)
        first = -1
        for piece in pieces:
            index = _add(units, heads, piece, file_head if first < 0 else first)
            first = index if first < 0 else first


# ---------------------------------------------------------------- Python records

_LITERAL_TOKEN = re.compile(r"""[\[\](){}'"]""")


def split_records(text: str) -> Structure | None:
    """A Python list of dicts or tuples as ``str()`` or ``pprint`` prints it: one unit per
    element (the brackets and the separators between elements stay in no unit, so they are kept
    as they are); None when the text is not one such list (brackets that do not balance, text
    after the closing bracket, an element that is not a dict or tuple, fewer than two). One
    pass over the brackets and quotes: linear in the text."""
    if len(text) > RECORDS_MAX_CHARS:
        return None
    first = len(text) - len(text.lstrip())
    depth, quote, start, after = 0, "", -1, first + 1  # after: where the text since the last element starts
    spans: list[tuple[int, int]] = []
    for m in _LITERAL_TOKEN.finditer(text, first):
        c, at = m.group(), m.start()
        if quote:
            if c == quote and not _escaped(text, at):
                quote = ""
            continue
        if c in "'\"":
            quote = c
        elif c in "[({":
            depth += 1
            if depth == 2:
                if c == "[" or text[after:at].strip(_BETWEEN):
                    return None  # an element that is no dict or tuple, or more than a comma before it
                start = at
        else:
            depth -= 1
            if depth == 1:
                spans.append((start, at + 1))
                after = at + 1
                if len(spans) > RECORDS_MAX:
                    return None
            elif depth == 0:
                if text[after:at].strip(_BETWEEN) or text[at + 1 :].strip() or len(spans) < 2:
                    return None
                units = [Unit(a, b, b - a > FIXED_CHARS) for a, b in spans]
                return Structure(units, [-1] * len(units), [-1] * len(units))
            elif depth < 0:
                return None
    return None


EMBEDDED_SHARE = 0.6
"""The share of a text a JSON document inside it must hold to be split as JSON (see
:func:`toolprune.core.kinds.json_opening`)."""


def split_embedded_json(text: str, start: int) -> Structure | None:
    """The elements of the arrays (and maps of records) of the JSON document at ``start`` inside
    ``text``, one unit each, when it holds ``EMBEDDED_SHARE`` of the text; the text around it,
    its brackets and commas stay in no unit, so they are always kept. None when no JSON parses
    there, it is smaller, or it has nothing to prune element by element."""
    from toolprune.core.jsonscan import scan
    from toolprune.core.shapes import records

    try:
        top = scan(text, 2 + records.ENVELOPE_LEVELS, start, objects_only=True)
        if top is None or (top.end - top.start) < EMBEDDED_SHARE * len(text):
            return None
        targets = records.find(text, top, inside=False)
    except (ValueError, IndexError, RecursionError):  # no JSON there, or cut short by the text's end
        return None
    spans = sorted(span for target in targets or () for span in target.elements)
    if len(spans) < 2:
        return None
    units = [Unit(a, b, b - a > FIXED_CHARS) for a, b in spans]
    return Structure(units, [-1] * len(units), [-1] * len(units))


_BETWEEN = " \t\r\n,"
RECORDS_MAX_CHARS = 16_000_000
RECORDS_MAX = 200_000
"""A list over 16 MB, or of over 200,000 elements, is not split into records (it is read as
other text is): the scan is Python, one step per bracket and quote, and every element a unit; 4
million tiny elements (16 MB) took 8.7 s and 1.7 GB, and 50 MB of them ran past the deadline."""


def _escaped(text: str, at: int) -> bool:
    """Is the character at ``at`` escaped (an odd number of backslashes before it)?"""
    k = at
    while k > 0 and text[k - 1] == "\\":
        k -= 1
    return (at - k) % 2 == 1


# ---------------------------------------------------------------- JSON Lines and tables

LINES_MAX = 200_000
"""A table or JSON Lines of more lines than this is read as other text is (as ``RECORDS_MAX``)."""


_RECORD_LINE = re.compile(r"[ \t\ufeff]*[\[{].*[\]}][ \t]*", re.S)
"""A line that opens and closes like a JSON record: every line of JSON Lines is checked so (the
kind was read from the first 64,000 chars only), without parsing it."""
_DATUM = re.compile(r"(?:^|[,;\t])\s*\"?[-+]?\d[\d.,:]*[A-Za-z%]{0,3}\"?\s*(?=$|[,;\t])")
"""A field that is a number (``4.0K``, ``-122.59``, ``2024-01-02``, ``75%``): a header has none."""


def split_lines_as_records(text: str, header: bool) -> Structure | None:
    """One unit a non-blank line (a JSON Lines record, a table's row), the line break outside it;
    with ``header`` the first line, unless a field of it is a number (``du``'s ``4.0K\t./src``
    is a row), heads every other (a kept row keeps it). Every unit is a row: a record that
    matched, never an island. None when there are more than ``LINES_MAX``, or, for JSON Lines,
    when a line does not open and close as a record."""
    units: list[Unit] = []
    for s, e in _line_spans(text, 0, len(text)):
        if e > s and text[s:e].strip():
            if not header and not _RECORD_LINE.fullmatch(text, s, e):
                return None  # a line past the sample that is no record (a traceback after a JSON log)
            units.append(Unit(s, e, e - s > FIXED_CHARS))
            if len(units) > LINES_MAX:
                return None
    n = len(units)
    header = header and n > 0 and _DATUM.search(text, units[0].start, units[0].end) is None
    heads = [-1] + [0] * (n - 1) if header and n else [-1] * n
    structure = Structure(units, heads, [-1] * n)
    structure.rows = set(range(1 if header else 0, n))
    return structure


_LEVEL = re.compile(
    r'"(?:level|severity|levelname|log\.level|lvl)"\s*:\s*(?:"(?:error|err|fatal|critical|crit|panic|alert|emerg)"'
    r'|[56]\d\b)|"PRIORITY"\s*:\s*"[0-3]"',
    re.I,
)
PIN_SHARE = 0.5
"""The records of JSON Lines whose level is an error are pinned (never dropped), a log's signal
lines, unless more than this share of the records are: then they are findings (``ruff
--output-format json-lines`` says ``"severity": "error"`` of every one) and are judged like any
record."""
_MEMBER_NAME = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"\s*:')  # a JSON member's name and its colon


def json_lines_pins(text: str, units: list[Unit], signal: str | None, values_only: bool = False) -> set[int]:
    """The records to pin: those matching ``signal`` when one is given (``--signal``); else those
    that say something failed as a log's lines do (``core/signals.py``) or whose level is an
    error (``"level": "error"``, pino's ``50`` and ``60``, journald's ``PRIORITY`` 0–3), when at
    most ``PIN_SHARE`` of the records are; else those whose level is an error, when at most that
    share are; else none (findings, every one an error). ``values_only``: member names say
    nothing (a test report's every element has ``"failureMessages": []``)."""
    if signal:
        pattern = re.compile(signal)
        return {i for i, u in enumerate(units) if pattern.search(text, u.start, u.end)}
    from toolprune.core.signals import says_failed

    def said(unit: Unit) -> str:
        part = text[unit.start : unit.end]
        return _MEMBER_NAME.sub(" ", part) if values_only else part

    levelled = {i for i, u in enumerate(units) if _LEVEL.search(text, u.start, u.end)}
    failing = levelled | {i for i, u in enumerate(units) if says_failed(said(u))}
    for pinned in (failing, levelled):
        if len(pinned) <= PIN_SHARE * len(units):
            return pinned
    return set()


# ---------------------------------------------------------------- TOML and INI files

_SECTION_LINE = re.compile(CONFIG_SECTION)


def split_config(text: str) -> Structure:
    """A TOML or INI file: every ``[section]`` line a unit of its own that heads the settings
    under it, up to the next one (a kept setting keeps its section's name, and a section the
    request names lifts its settings, ``ENTRY_SHARE``); the settings cut at blank lines and every
    ``MAX_LINES`` lines. A long array (``ignore = [`` and a hundred rules with their comments) is
    then a few pieces: each later one is as relevant as the piece that opened it (brackets are
    counted outside strings and comments)."""
    spans: list[tuple[int, int]] = []
    for s, e, _, _ in _blocks(text):
        lines = _line_spans(text, s, e)
        cuts: set[int] = set()
        for k, (a, b) in enumerate(lines):
            if _SECTION_LINE.fullmatch(text, a, b):
                cuts.update((k, k + 1))
        spans.extend(_pieces(text, lines, cuts))
    heads: list[int] = []
    intros = [-1] * len(spans)
    section, depth, opened = -1, 0, -1
    for i, (a, b) in enumerate(spans):
        if _SECTION_LINE.fullmatch(text, a, b):
            section, depth = i, 0
            heads.append(-1)
            continue
        heads.append(section)
        if depth > 0:  # inside a value that an earlier piece opened: as relevant as that piece
            intros[i] = opened
        else:
            opened = i
        bare = _CONFIG_COMMENT.sub("", _CONFIG_STRING.sub('""', text[a:b]))
        depth = max(0, depth + bare.count("[") + bare.count("{") - bare.count("]") - bare.count("}"))
    units = [Unit(a, b, b - a > FIXED_CHARS) for a, b in spans]
    return Structure(units, heads, intros)


_CONFIG_STRING = re.compile(r"\"[^\"\\\n]*(?:\\.[^\"\\\n]*)*\"|'[^'\n]*'")
_CONFIG_COMMENT = re.compile(r"[#;][^\n]*")


# ---------------------------------------------------------------- listings

# a grep line: the path (the longest run without blanks or colons before a line number, so that
# ``run-2-stage:14:`` is line 14 of ``run-2-stage``; one backtracking pass: linear in the line)
_GREP_KEY = re.compile(r"([^\s:]*)(?::(\d+)[:-]|-(\d+)-)")
GREP_GAP = 3
"""``grep -n`` lines of one file are cut into separate units where the line number jumps by more
than this: matches far apart in a file are different places (a default in one function, a
docstring in another), and a question about one of them needs that one. Context lines (``-C``)
number every line, so a match stays with its context. On the real-output tune half (2026-12-05,
``bench/eval_real.py``; the first measurement of the rule) the reduction went from 0.453 to
0.460 with no needed line lost (a gap of 1 lost two, 2–3 none, 5–6 gained less); grep cases
alone cut more in 13 of 15."""
_LS_LINE = re.compile(r"[-dlcbps][rwxsStT-]{9}[.+@]? |total \d+$")
_DEFINITION = re.compile(
    r"[ \t]*(?:(?:export|default|pub(?:\([\w:]+\))?|async|static|public|private|protected|unsafe)\s+)*"
    r"(?:(?:def|function\*?|fn|func(?:\s*\([^)]*\))?)\s*[\w$.]*\s*[(<]"  # def f(, function f(, fn f<, func (r T) f(
    r"|class\s+[\w$.]+\s*(?:[(:{<]|extends\b|implements\b|$))"  # class A(B):, class A {, class A extends B
)
"""A ``grep`` match (not a ``-C`` context line) that is a definition (``def move_on_after(delay,
shield=False)``, ``class``, ``function``, ``fn``, ``func``; not prose such as "a class of
errors"): it starts a unit of its own, and the later matches of its file that are indented
deeper (its docstring's ``:param shield:``, its body) are headed by it, so that a kept
parameter line keeps the signature that names the function, however far below it is. The first
later match that is indented no deeper than the definition, or is in another file, ends it."""


def _entry_path(name: str) -> str:
    """The path of a listing entry's name column: a symlink's own path, without a trailing slash."""
    return name.split(" -> ")[0].rstrip("/")


def split_listing(text: str) -> Structure:
    """``grep`` by file, ``ls -lR`` by directory, ``find`` and ``find -ls`` by parent directory."""
    lines = _line_spans(text, 0, len(text))
    keys: list[str | None] = []
    numbers: dict[int, int] = {}  # a grep line -> its line number
    indents: dict[int, int] = {}  # a grep match (not a -C context line) -> the indent of what it matched
    definitions: set[int] = set()  # grep matches that are a definition (_DEFINITION)
    for s, e in lines:
        line = text[s:e]
        match = _GREP_KEY.match(line)
        if match and ("." in match.group(1) or "/" in match.group(1)):  # a path, not a word
            digits = match.group(2) or match.group(3)
            if len(digits) <= 18:  # int() refuses a number of over 4,300 digits
                numbers[len(keys)] = int(digits)
            if match.group(2) and (content := line[match.end() :]).strip():
                indents[len(keys)] = len(content) - len(content.lstrip(" \t"))
                if _DEFINITION.match(content):
                    definitions.add(len(keys))
            keys.append(match.group(1))
        elif not line.strip():
            keys.append(None)
        elif found := FIND_LS.match(line):  # find -ls: by the parent directory of the path
            keys.append(_entry_path(found.group(1)).rpartition("/")[0])
        elif (entry := LS_LONG.match(line)) and "/" in (path := _entry_path(entry.group("name"))):
            keys.append(path.rpartition("/")[0])  # tar tv: by the parent directory of the path
        elif _LS_LINE.match(line):
            keys.append(keys[-1] if keys and keys[-1] is not None else "")
        elif line.endswith(":") and not line.startswith((" ", "\t")):
            keys.append("dir " + line)  # an ls -lR directory header starts a group
        else:
            keys.append(line.rstrip("/").rpartition("/")[0] if "/" in line else (keys[-1] if keys and keys[-1] else ""))
    units: list[Unit] = []
    heads: list[int] = []
    k = 0
    n = len(lines)
    while k < n:
        key = keys[k]
        if key is None:
            k += 1
            continue
        j = k + 1
        while j < n and (other := keys[j]) is not None and (
            other == key or (key.startswith("dir ") and not other.startswith("dir "))
        ):
            j += 1
        first = -1
        cuts, last = set(), None  # where the line numbers jump, and after grep -C's "--" line
        for m in range(k, j):
            if (number := numbers.get(m)) is not None:
                if last is not None and not 0 <= number - last <= GREP_GAP or (m > k and m in definitions):
                    cuts.add(m - k)
                last = number
            elif text.startswith("--", lines[m][0]) and lines[m][1] - lines[m][0] == 2:
                cuts.add(m + 1 - k)
        scope: tuple[int, int, str] | None = None  # the definition's unit, its indent and its file
        m = k
        for piece in _pieces(text, lines[k:j], cuts):
            while lines[m][0] < piece[0]:
                m += 1
            at = next((x for x in range(m, j) if lines[x][0] >= piece[1] or x in indents), j)  # its first match
            if scope is not None and at < j and lines[at][0] < piece[1] and (
                indents[at] <= scope[1] or keys[at] != scope[2]
            ):
                scope = None  # a match no deeper than the definition, or in another file: out of it
            index = _add(units, heads, piece, first if scope is None or m in definitions else scope[0])
            first = index if first < 0 else first
            if m in definitions:
                scope = (index, indents[m], keys[m] or "")
        k = j
    return _merge(text, Structure(units, heads, [-1] * len(units)), set(heads) - {-1})


# ---------------------------------------------------------------- documents

_MD_HEADING = re.compile(r" {0,3}(#{1,6})(?:[ \t]|$)")
_UNDERLINE = re.compile(r"([=\-~^\"'`#*+:._])\1{2,}[ \t]*$")
_DIRECTIVE = re.compile(r"[ \t]*\.\. [\w:.-]+::")
_TABLE_ROW = re.compile(r"[ \t]*\|.*\|[ \t]*$", re.M)
_CODE_DIRECTIVE = re.compile(r"[ \t]*\.\. (?:code-block|code|sourcecode|doctest|prompt)::")
_LIST_ITEM = re.compile(r"[ \t]*(?:[-*+•]|\d{1,3}[.)])[ \t]")
_FENCE = re.compile(r" {0,3}(?:```|~~~)")
# the pattern matches the empty string too, so it never returns None
_INDENT = cast("Callable[[str, int, int], re.Match[str]]", re.compile(r"[ \t|]*").match)


def _indent(text: str, start: int, end: int) -> int:
    """Columns of leading blanks (tabs to 8), pydoc's ``|`` rules counted as blanks."""
    lead = _INDENT(text, start, end).group()
    return len(lead.expandtabs(8)) if "\t" in lead else len(lead)


def _titled(text: str, s: int, e: int) -> tuple[int, int] | None:
    """The body of a reStructuredText paragraph that opens with a title, its underline and no
    blank line under it (docutils needs none): ``v5.0.0`` / ``------`` / ``Release Date: …``,
    as the changelog of ``limits`` writes each release. Read as one paragraph, the title was no
    heading, and went with the section above it. None when the paragraph is not one of those."""
    first = text.find("\n", s, e)
    second = text.find("\n", first + 1, e) if first >= 0 else -1
    if second < 0 or text[s] in " \t" or first - s >= 100 or not text[s:first].strip():
        return None
    underline = text[first + 1 : second].rstrip("\r")
    if not _UNDERLINE.match(underline) or len(underline.rstrip()) < len(text[s:first].rstrip()):
        return None
    return (second + 1, e) if text[second + 1 : e].strip() else None


LONG_CODE = MAX_CHARS
"""A fenced code block longer than this is cut into parts at its blank lines (and every
``MAX_LINES`` lines), each later part headed by the first, the one with the opening fence, and
introduced by the paragraph that introduces the block: a kept introduction still keeps the whole
block, and a weak one leaves each part to its own words. Before, such a block was one unit, and
over ``FIXED_CHARS`` one that was always kept: axios's request-config reference, 20,000 chars of
commented options in one block, was kept whole for one option. On the real-output tune half
(2026-12-06, ``bench/eval_real.py``): reduction 0.4538 → 0.4540, axios 0.52 → 0.62, no needed
line lost; without the introduction (each part on its own words alone) 0.4546, but a block that
a kept sentence introduces would lose its parts that repeat none of the request's words."""


def split_document(text: str, kind: str) -> Structure:
    """Markdown, reStructuredText, man and pydoc pages (see the module docstring)."""
    indented = kind != "markdown"
    spans: list[tuple[int, int]] = []
    table: dict[int, int] = {}  # a row of a Markdown table -> its header
    items: dict[int, int] = {}  # an item of a long list -> its lead-in (-1: none)
    code: dict[int, int] = {}  # a later part of a long code block -> its first part
    for s, e, _, _ in _blocks(text):
        if not indented and (rows := _table_rows(text, s, e)):
            for k in range(len(spans) + 1, len(spans) + len(rows)):
                table[k] = len(spans)  # each row is headed by the table's header
            spans.extend(rows)
            continue
        if (listed := _list_items(text, s, e)) is not None:
            opening, item_spans = listed
            if opening is not None:  # the lead-in's lines directly above the first item
                spans.append(opening)
            lead = len(spans) - 1 if spans and _leads_in(text[spans[-1][0] : spans[-1][1]]) else -1
            for k in range(len(spans), len(spans) + len(item_spans)):
                items[k] = lead
            spans.extend(item_spans)
            continue
        if kind == "rst" and (body := _titled(text, s, e)) is not None:  # a title and no blank line under it
            end = body[0] - 1  # the title's line break
            spans.append((s, end - 1 if text[end - 1] == "\r" else end))
            s = body[0]
        if e - s <= (LONG_CODE if _FENCE.match(text, s) else MAX_CHARS):
            spans.append((s, e))
            continue
        if _FENCE.match(text, s):  # a long code block: its parts, each headed by its opening
            pieces = _pieces(text, _line_spans(text, s, e))
            for k in range(len(spans) + 1, len(spans) + len(pieces)):
                code[k] = len(spans)
            spans.extend(pieces)
            continue
        lines = _line_spans(text, s, e)
        cuts = set()
        for k in range(1, len(lines)):
            a, b = lines[k]
            if _DIRECTIVE.match(text, a, b) or _MD_HEADING.match(text, a, b) and not indented:
                cuts.add(k)
            elif k + 1 < len(lines) and text[a:b].strip():
                nxt = lines[k + 1]
                if _indent(text, *nxt) > _indent(text, a, b) and text[nxt[0] : nxt[1]].strip():
                    cuts.add(k)  # an entry: an option, a signature, a term and its definition
        spans.extend(_pieces(text, lines, cuts))
    units = [Unit(s, e, e - s > FIXED_CHARS) for s, e in spans]
    n = len(units)
    heads = [-1] * n
    intros = [-1] * n
    heading = [0] * n  # heading level (1 strongest), 0 for body paragraphs
    for i, (s, e) in enumerate(spans):
        if i in code:
            continue  # a part of a long code block: no heading, whatever its first line
        nl = text.find("\n", s, e)
        first_end = e if nl < 0 else nl
        md = _MD_HEADING.match(text, s, first_end)
        if md and not _FENCE.match(text, s):
            heading[i] = len(md.group(1))
        elif (
            (kind == "rst" or kind == "markdown" and text[nl + 1 : nl + 2] in ("=", "-"))  # Markdown's setext titles
            and nl >= 0 and _UNDERLINE.match(text, nl + 1, e) and first_end - s < 100
        ):
            heading[i] = 1 if text[nl + 1] in "=#*" else 2 if text[nl + 1] in "-~" else 3
        elif kind == "rst" and _UNDERLINE.match(text, s, first_end) and nl >= 0:
            heading[i] = 1  # an overlined title
    stack: list[tuple[int, int]] = []  # (indent, unit) of open indented sections
    titles: list[tuple[int, int]] = []  # (level, unit) of open headings
    for i, (s, e) in enumerate(spans):
        if heading[i]:
            while titles and titles[-1][0] >= heading[i]:
                titles.pop()
            heads[i] = titles[-1][1] if titles else -1
            titles.append((heading[i], i))
            stack.clear()
            continue
        if indented:
            depth = _indent(text, s, e)
            while stack and stack[-1][0] >= depth:
                stack.pop()
            if stack:
                heads[i] = stack[-1][1]
            elif titles:
                heads[i] = titles[-1][1]
            stack.append((depth, i))
        elif i in table:
            heads[i] = table[i]
        elif titles:
            heads[i] = titles[-1][1]
        if items.get(i, -1) >= 0:
            heads[i] = items[i]
        if i in code:
            heads[i] = code[i]
            intros[i] = intros[code[i]]  # as relevant as the sentence that leads into the block
            continue
        if i and not heading[i - 1] and _introduced(text, spans[i - 1], (s, e), kind):
            intros[i] = i - 1
        elif i and heading[i - 1]:
            intros[i] = i - 1  # a heading's first paragraph follows it
        if intros[i] < 0 and (h := heads[i]) >= 0 and _CODE_DIRECTIVE.match(text, *spans[h]):
            intros[i] = h  # the code under a code-block directive: as relevant as the directive's lead
    for i in range(1, n):  # a list's later items: introduced by its first item's lead-in (_siblings)
        if intros[i] < 0 and (lead := intros[i - 1]) >= 0 and not heading[lead] and heads[i] == heads[i - 1]:
            if _siblings(text, spans[i - 1], spans[i]):
                intros[i] = lead
    sealed = set(table) | set(table.values())  # a table's rows and header: a row is a record
    leads = {lead for lead in items.values() if lead >= 0}  # a list's lead-in: a heading of its items
    alone = {i for i in range(n) if heading[i] or i in sealed or i in leads or _DIRECTIVE.match(text, *spans[i])}
    merged = _merge(text, Structure(units, heads, intros), alone | set(heads) - {-1}, alone, sealed)
    out = _entries(merged) if indented else merged
    starts = {spans[i][0] for i in table}
    out.rows = {k for k, unit in enumerate(out.units) if unit.start in starts}
    out.versions = _versions(text, out.units, {spans[i][0]: heading[i] for i in range(n) if heading[i]})
    return out


VERSION_HEADINGS = 3
"""A document is a changelog when at least this many headings of one level, and at least half
of that level's headings, name a release (``## [24.2.0](…) - 2024-08-06``, ``v1.4``,
``Version 2.0``, ``Changes for v3.5.1``, ``2026-03-24, Version 20.20.2``, an rST
``3.1.0 (2023-05-02)`` title); ``Section 8.1`` is a numbered section and ``Upgrading to 2.0``
or ``Migrating from 1.x to 2.0`` a migration guide, not a release."""
_VERSION = re.compile(
    r"[ \t#]*[\[`*_]*(?:\d{4}-\d\d-\d\d,?\s+)?"  # Node.js: ## 2026-03-24, Version 20.20.2
    r"(?!(?:section|chapter|part|step|appendix|figure|table|article|rule)s?\b)"  # numbered sections: no releases
    r"(?!(?:upgrad|migrat|moving|porting)\w*\s)"  # Upgrading to 2.0, Migration from 1.x: a guide, no release
    r"(?:[A-Za-z][\w.-]*\s+){0,2}v?\d+\.\d+",  # 24.2.0, v1.4, Version 2.0, Changes for v3.5.1
    re.I,
)


def _versions(text: str, units: list[Unit], levels: dict[int, int]) -> list[int]:
    """The units that are a changelog's release headings, in order; [] when the document is no
    changelog. ``levels`` maps a heading unit's start to its level."""
    named: dict[int, list[int]] = {}
    total: dict[int, int] = {}
    for k, unit in enumerate(units):
        if (level := levels.get(unit.start)) is None:
            continue
        total[level] = total.get(level, 0) + 1
        start, end = unit.start, text.find("\n", unit.start, unit.end)
        if end >= 0 and _UNDERLINE.match(text, start, end):  # an overlined rST title: the next line
            start, end = end + 1, text.find("\n", end + 1, unit.end)
        if _VERSION.match(text, start, end if end >= 0 else unit.end):
            named.setdefault(level, []).append(k)
    if not named:
        return []
    level, found = max(named.items(), key=lambda item: len(item[1]))
    return found if len(found) >= VERSION_HEADINGS and 2 * len(found) >= total[level] else []


TABLE_ROWS = 8
"""A Markdown table of at least this many rows is split into its rows, each headed by the table's
header (the title row and the rule under it): a table is a list of records, like a JSON array, and
a question about one function of a 60-row API table needs that row, not the 2,000-char piece of
the table it falls in. A smaller table stays one paragraph. On the real-output tune half
(2026-12-05, ``bench/eval_real.py``) it changed the reduction of the few cases with large tables
(0.457 → 0.458) and lost no needed line; 12 and 20 rows gave the same."""
_TABLE_RULE = re.compile(r"[ \t|:-]*$")


def _table_rows(text: str, s: int, e: int) -> list[tuple[int, int]] | None:
    """A Markdown table of at least ``TABLE_ROWS`` rows: its header (the title row and the rule
    under it), then each row as a span of its own; None for any other block."""
    nl = text.find("\n", s, e)
    if nl < 0 or not _TABLE_ROW.match(text, s, nl - 1 if text[nl - 1] == "\r" else nl):  # CRLF too
        return None
    end = text.find("\n", nl + 1, e)
    rule = text[nl + 1 : e if end < 0 else end]
    if "|" not in rule or "-" not in rule or not _TABLE_RULE.match(rule.rstrip("\r")):
        return None
    lines = _line_spans(text, s, e)
    if len(lines) < TABLE_ROWS + 2 or not all(_TABLE_ROW.match(text, a, b) for a, b in lines[2:]):
        return None
    return [(lines[0][0], lines[1][1]), *lines[2:]]


LIST_ITEMS = 8
"""A list of at least this many items (in any document kind; bullets, numbers, or options:
``_OPTION_ITEM``) is split into its items, each
headed by the paragraph that leads into it when that paragraph ends with a colon (so a kept
item keeps "**Options:**", "The following keys are understood:"). A 15-item option list was one
unit of 1,400 chars, kept whole for one option. Short items still join their neighbours, as any
short paragraph does. On the real-output tune half (2026-12-05, ``bench/eval_real.py``):
reduction 0.457 → 0.459, no needed line lost; 5 items gave 0.461 but lost a needed line and
gained another, 12 gave 0.458."""


def _siblings(text: str, before: tuple[int, int], span: tuple[int, int]) -> bool:
    """Are two paragraphs items of one list (a bullet or a number at the same indent)? A list
    whose items stand apart (a blank line between them) is introduced as a whole by the
    lead-in of its first ("there are several ways to do it:"): every item scores at least as
    much as the lead-in and keeps it, as the first item did alone before. The keyring case of
    the real-output tune half (2026-12-05, ``bench/eval_real.py``) lost its answer, the second
    of three ways to disable keyring; with the rule it keeps it, at 0.0003 less reduction
    overall and no needed line lost."""
    (a, b), (c, d) = before, span
    items = _LIST_ITEM.match(text, a, b) and _LIST_ITEM.match(text, c, d)
    return bool(items) and _indent(text, a, b) == _indent(text, c, d)


def _leads_in(paragraph: str) -> bool:
    """Does the paragraph end with a colon (``Options:``, ``**Options:**``)?"""
    return paragraph.rstrip().rstrip("*_").endswith(":")


LEAD_LINES = 2
"""A list's lead-in may stand on the lines directly above its first item (``Options:`` with no
blank line under it), up to this many lines ending with a colon."""


_OPTION_ITEM = re.compile(r"[ \t]{0,8}--?[A-Za-z0-9?@]")
"""A line that opens with an option (``  -t --type=TYPE   List units of a type``, ``--all``): a
``--help`` page lists its options one to a line, or a few lines each, with no blank line
between them, so a block of them is a list whose items are options (``LIST_ITEMS``). Before
the rule such a block was one unit up to 2,000 chars (``ld --help``'s 130 options were cut every
40 lines), kept whole for one option. On the real-output tune half (2026-12-06,
``bench/eval_real.py``): reduction 0.454 → 0.457, the ``--help`` cases 0.40 → 0.47 (``ld --help``
0.30 → 0.70), no needed line lost or gained."""


def _list_items(text: str, s: int, e: int) -> tuple[tuple[int, int] | None, list[tuple[int, int]]] | None:
    """A list of at least ``LIST_ITEMS`` items (lines that open with a bullet or a number, or else
    with an option: :data:`_OPTION_ITEM`; all at the indent of the first, the lines between
    belonging to the item before): the span of a lead-in above its first item in the same block
    (or None), and each item's span."""
    lines = _line_spans(text, s, e)
    for item in (_LIST_ITEM, _OPTION_ITEM):
        first = next((k for k, (a, b) in enumerate(lines[: LEAD_LINES + 1]) if item.match(text, a, b)), None)
        if first is not None and (first == 0 or _leads_in(text[lines[0][0] : lines[first - 1][1]])):
            listed = _items(text, lines, first, item)
            if listed is not None:
                return listed
    return None


def _items(
    text: str, lines: list[tuple[int, int]], first: int, item: re.Pattern[str]
) -> tuple[tuple[int, int] | None, list[tuple[int, int]]] | None:
    """The lead-in and items of the list whose first item is ``lines[first]``, or None when
    fewer than ``LIST_ITEMS`` lines open with ``item`` at its indent."""
    depth = _indent(text, *lines[first])
    starts = [
        k for k, (a, b) in enumerate(lines)
        if k >= first and item.match(text, a, b) and _indent(text, a, b) == depth
    ]
    if len(starts) < LIST_ITEMS:  # (a fenced block is a block of its own: none is inside a list)
        return None
    opening = (lines[0][0], lines[first - 1][1]) if first else None
    out: list[tuple[int, int]] = []
    for a, b in zip(starts, starts[1:] + [len(lines)]):
        span = _trim(text, lines[a:b])
        if span is not None:
            out.extend([span] if span[1] - span[0] <= MAX_CHARS else _pieces(text, lines[a:b]))
    return opening, out


def _entries(structure: Structure) -> Structure:
    """An entry (a unit and every unit it heads, directly or not) of up to ``ENTRY_CHARS`` is
    joined into one unit: an option with its description, a function with its docstring, a
    directive with its body. The largest entries that fit are taken first."""
    units, heads, intros = structure.units, structure.heads, structure.intros
    n = len(units)
    last = list(range(n))  # the last unit each unit heads, directly or not (heads come first)
    for i in range(n - 1, -1, -1):
        h = heads[i]
        if h >= 0 and last[i] > last[h]:
            last[h] = last[i]
    groups: list[tuple[int, int]] = []
    i = 0
    while i < n:
        j = last[i]
        if j > i and not any(units[k].fixed for k in (i, j)) and units[j].end - units[i].start <= ENTRY_CHARS:
            groups.append((i, j))
            i = j + 1
        else:
            groups.append((i, i))
            i += 1
    if len(groups) == n:
        return structure
    where = [0] * n
    for g, (a, b) in enumerate(groups):
        for k in range(a, b + 1):
            where[k] = g
    out_units = [units[a] if a == b else Unit(units[a].start, units[b].end) for a, b in groups]
    out_heads = [where[heads[a]] if heads[a] >= 0 else -1 for a, _ in groups]
    out_intros = [
        where[intros[a]] if intros[a] >= 0 and where[intros[a]] != g else -1 for g, (a, _) in enumerate(groups)
    ]
    return Structure(out_units, out_heads, out_intros)


def _introduced(text: str, before: tuple[int, int], span: tuple[int, int], kind: str) -> bool:
    """Is ``span`` a code block or list that the paragraph ``before`` leads into?"""
    s, e = span
    lead = text[before[0] : before[1]].rstrip()
    if _FENCE.match(text, s):
        return not _FENCE.match(text, before[0])
    if _CODE_DIRECTIVE.match(text, s):  # rST's fence: the paragraph before it shows what it is for
        return not _DIRECTIVE.match(text, before[0])
    if kind == "markdown" and _TABLE_ROW.match(text, s):  # a table: the paragraph before says what it holds
        return not _TABLE_ROW.match(text, before[0]) and not _FENCE.match(text, before[0])
    if _LIST_ITEM.match(text, s):
        return lead.endswith(":")
    if lead.endswith("::"):
        return True  # an rST literal block
    return kind == "markdown" and lead.endswith(":") and _indent(text, s, e) >= 4


def _merge(
    text: str, structure: Structure, headings: Container[int], alone: Container[int] = frozenset(),
    sealed: Container[int] = frozenset(),
) -> Structure:
    """Units under ``MERGE_BELOW`` characters joined to the next (never to a heading: then to
    the one before); units in ``alone`` (titles, rST directives) are never merged, so a kept
    section costs its title line, not its first paragraph too; and nothing joins a unit in
    ``sealed`` (a table's rows and header) from after it either. Links follow the merged units."""
    units, heads, intros = structure.units, structure.heads, structure.intros
    groups: list[list[int]] = []
    pending: list[int] = []
    for i, unit in enumerate(units):
        # a heading flushes what is pending, unless what is pending heads it (a signature line and
        # its first paragraph, then a paragraph that leads into a code block: one entry)
        starts = i in headings and (i in alone or heads[i] not in pending)
        if pending and (starts or unit.fixed or unit.end - units[pending[0]].start > FIXED_CHARS):
            if groups and starts and groups[-1][-1] not in sealed and not units[groups[-1][-1]].fixed and (
                units[pending[-1]].end - units[groups[-1][0]].start <= FIXED_CHARS
            ):
                groups[-1].extend(pending)
            else:
                groups.append(pending)
            pending = []
        if i in alone:
            groups.append([i])
            continue
        pending.append(i)
        if unit.fixed or units[i].end - units[pending[0]].start >= MERGE_BELOW:
            groups.append(pending)
            pending = []
    if pending:
        if groups and groups[-1][-1] not in sealed and not units[groups[-1][-1]].fixed and (
            units[pending[-1]].end - units[groups[-1][0]].start <= FIXED_CHARS
        ):
            groups[-1].extend(pending)
        else:
            groups.append(pending)
    where = [0] * len(units)
    for g, members in enumerate(groups):
        for i in members:
            where[i] = g
    out_units, out_heads, out_intros = [], [], []
    for g, members in enumerate(groups):
        a, b = units[members[0]], units[members[-1]]
        out_units.append(Unit(a.start, b.end, a.fixed if len(members) == 1 else b.end - a.start > FIXED_CHARS))
        head = next((where[heads[i]] for i in members if heads[i] >= 0 and where[heads[i]] != g), -1)
        intro = next((where[intros[i]] for i in members if intros[i] >= 0 and where[intros[i]] != g), -1)
        out_heads.append(head)
        out_intros.append(intro)
    return Structure(out_units, out_heads, out_intros)

"""What kind of text is this? Decided from the text before choosing how to split it.

``kind(text)`` returns one of:

- ``gitlog``: ``git log`` output (``commit <hash>`` lines with ``Author:``/``Date:``), with or
  without patches (``-p``) or ``--stat``; also the form of the reference MCP git server
  (``Commit: <hash>``, ``Author:``, ``Date:``, ``Message:``);
- ``diff``: a unified diff without commit headers (``diff --git``, ``--- a/…``/``+++ b/…``).
  Either may follow one caption line that a tool puts above it (``Commit history:``,
  ``Diff with v1.11.1:``, ``Unstaged changes:``: the MCP git server's results);
- ``listing``: one record a line: ``grep -rn`` (``path:line:``), ``ls -l``/``ls -lR``, ``find``;
- ``changelog``: a Debian changelog (``curl (7.88.1-10+deb12u11) bookworm; urgency=medium``
  entries, their ``*`` items indented under them, each closed by a `` -- Name <mail>  date``
  line), as ``apt changelog`` or ``/usr/share/doc/*/changelog.Debian.gz`` show it;
- ``markdown``, ``rst``: documents with their headings (``#``, underlined titles, ``.. x::``);
- ``man``, ``pydoc``: rendered manual and help pages (indented bodies under column-0 headings;
  a command's ``--help`` that opens with ``usage:``, whatever its headings);
- ``records``: a Python list of dicts or tuples printed by ``str()`` or ``pprint``
  (``[{'name': 'libssl3', …}, …]``), split into its elements;
- ``jsonlines``: JSON Lines, one JSON object or array a line (``ruff --output-format
  json-lines``, ``pytest --report-log``, ``jq -c '.[]'``), split into its records; dated
  records (pino, Docker's ``json-file``, structlog) are a log's lines and stay ``text``;
- ``table``: CSV or TSV, every line with as many separators as the first, its header
  (``iata,name,city,…``), and no line saying something failed, split into rows, each headed by
  the header line;
- ``config``: a TOML or INI file (``pyproject.toml``, ``Cargo.toml``, ``tox.ini``): its
  ``[section]`` lines head the settings under them;
- ``html``: an HTML page (``<!DOCTYPE html>``, ``<html>``), cut into line blocks like a log's,
  but nothing pinned: "error" in a page is a word, not a failure;
- ``text``: anything else (prose, logs). Only this kind may be cut into line blocks with
  pinned signal lines, and only when it reads like a log (``core/lines.py`` decides).

Only the first ``SAMPLE_CHARS`` characters are looked at, by a fixed set of anchored patterns
counted line by line: linear in the sample, constant in the input.
"""

from __future__ import annotations

import re

from toolprune.core.jsonshape import opens_like_json

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from toolprune.core.logtext import LogText

SAMPLE_CHARS = 64_000
SAMPLE_LINES = 600
LISTING_SHARE = 0.6
"""A listing has at least this share of its non-blank sampled lines in one listing form."""
INDENTED_SHARE = 0.6
"""A manual or help page indents at least this share of its non-blank lines."""

DOCUMENTS = ("markdown", "rst", "man", "pydoc", "changelog")

_COMMIT = re.compile(r"^(?:commit [0-9a-f]{7,64}\b|Commit: [0-9a-f]{7,64}\b(?=(?:\n[^\n]*){0,3}\nMessage: ))", re.M)
"""A commit: ``commit <hash>``, or the MCP git server's ``Commit: <hash>`` entry, whose
``Message:`` line is at most three lines down (a build log that prints ``Commit:`` and
``Author:`` at its top is no git log)."""
_DEB_ENTRY = re.compile(r"^[a-z0-9][a-z0-9+.-]* \([^()\s]+\) [^;\n]+; urgency=\w+", re.M)
"""The first line of a Debian changelog entry: source package, (version), distributions, urgency."""
DEB_ENTRIES = 2
"""A text that opens with a Debian changelog entry and holds at least this many is one."""
_PY_RECORDS = re.compile(r"\[\s*[{(]\s*'")
"""A Python list of dicts or tuples as ``str()`` or ``pprint`` prints it (``[{'package': …},
…]``): what Python MCP servers return for query rows (mcp-server-sqlite's ``read_query``)."""
_CAPTION = re.compile(r"[^\n]{1,100}:[ \t]*\n")
"""A caption line above a log or diff (``Diff with v1.11.1:``): at most 100 chars, ending in a colon."""
_AUTHOR = re.compile(r"^(?:Author|Merge): ", re.M)
_DIFF = re.compile(r"^(?:diff --git |--- (?:a/|/dev/null)|\+\+\+ (?:b/|/dev/null)|@@ -\d)", re.M)
# grep: "path:12:" or "path-12-" (a context line), the path holding a dot or a slash. The path
# is one greedy run, and the dot is looked for in what it matched (``_grep``): a pattern that
# placed the dot itself backtracked quadratically on a long line of dots (200 KB took 15 s). The
# longest path that can end before the line number holds every shorter one, so it holds a dot
# exactly when some path does.
_GREP = re.compile(r"([^\s:]*)(?::\d+[:-]|-\d+-)")
_LS = re.compile(r"^(?:[-dlcbps][rwxsStT-]{9}[.+@]? |total \d+$|\S[^\n]*:$)")
_FIND = re.compile(r"^(?:\.|~)?/?[^\s/:]+(?:/[^\s/:]+)+/?$|^\.$")
# ``find -ls``: inode, blocks, mode, links, owner, group, size (or a device's "major, minor"),
# month, day, time or year, then the path. It was read as a log (40-line blocks); as a listing
# it is grouped by directory like ``find``. On the real-output tune half (2026-12-05) the three
# ``find -ls`` cases: one cut where it had passed through (0 -> 0.34), one cut less (0.49 ->
# 0.28), one unchanged; no needed line lost.
FIND_LS = re.compile(
    r" *\d+ +\d+ +[-dlcbps][rwxsStT-]{9}[.+@]? +\d+ +\S+ +\S+ +\d+(?:, +\d+)?"
    r" +[A-Za-z]{3} +\d{1,2} +(?:\d{4}|\d\d:\d\d) (.*)$"
)
_SIZE = r"\d+(?:[.,]\d+)?[KMGTPEZYkB]?"
"""A size or block count: bytes, or ``-h``/``--si``/macOS human units (4.0K, 13M, 4.1k, 120B)."""
LS_LONG = re.compile(
    rf"(?:\x1b\[[\d;]*m)* *(?:{_SIZE} +){{0,2}}"  # a colour reset (--color), the inode (-i) and blocks (-s)
    r"[-dlcbpsDh][rwxsStT-]{9}[.+@]? +"  # the mode (h: a hard link in tar)
    r"(?:\d+ +\S+ +(?:\S*[^\s,] +)?|\S+/\S+ +)"  # links, owner, group (not with -o, -g; no "1," of a device); tar's
    rf"(?P<size>{_SIZE}|\d+, +\d+) +"  # the size, or a device's major, minor
    r"(?P<date>\S+ +\d{1,2},? +(?:\d{4}|\d\d:\d\d)|\d{4}-\d\d-\d\d|\d\d-\d\d +\d\d:\d\d) "  # Dec  5 23:25, --full-time
    r"(?:(?P<time>\d\d:\d\d(?::\d\d(?:\.\d+)?)?) +)?(?:[+-]\d{4} +)?(?P<name>.*)$"  # --full-time's time, zone; name
)
"""An entry of ``ls -l`` (and ``-h``, ``--si``, ``-i``, ``-s``, ``-o``, ``-g``, ``--full-time``,
any ``--time-style``), ``find -ls`` or ``tar tv``: every form that shows a size and a date."""
LS_SHARE = 0.9
"""A listing of entries with sizes is read as one before any log mark (``--full-time``'s dates,
``--color``'s escapes) only when this share of its lines are entries, ``total`` lines and
directory headers, and no other line has a log mark: a CI log that ran ``ls -la`` is still a log."""
_LS_OTHER = re.compile(r"total \d+(?:[.,]\d+)?[KMGTPEZY]?$|\S[^\n]*:$")
"""The other lines of ``ls -lR``: a directory's ``total`` and its header."""
_MD_HEADING = re.compile(r"^#{1,6} \S", re.M)
# a fence, a task-list item, a link (``[text](target)``; a target holds no bracket or brace: the
# regular expression ``[su]([0-9]{1,2})`` in a traceback's source is no link, and two of them had
# made a pytest log a Markdown document, its failure lines scored like paragraphs and dropped)
_MD_OTHER = re.compile(r"^(?: {0,3}(?:```|~~~)|[ \t]*[-*] \[|.*\]\([^)\s\[\]{}(]{1,500}\))", re.M)  # bounded: linear
_RST_DIRECTIVE = re.compile(r"^[ \t]*\.\. [\w:-]+::", re.M)
# an rST title: a line at column 0 underlined by at least as many punctuation characters
_RST_TITLE = re.compile(r"^(\S[^\n]{0,79})\n([=\-~^\"'`#*+])\2{2,}[ \t]*$", re.M)
_PYDOC = re.compile(r"^Help on (?:module|class|function|built-in|package|method|method-wrapper|\w+ object)\b")
_MAN_TITLE = re.compile(r"^\S+\(\d\w*\)\s.*\S+\(\d\w*\)\s*$", re.M)
MAN_TITLE_CHARS = 300
"""A man page's title line (``LS(1)  User Commands  LS(1)``) is short; a longer first line is not
one, and is not matched at all (the pattern backtracks in the square of a line's length)."""
_MAN_SECTION = re.compile(r"^(?:NAME|SYNOPSIS|DESCRIPTION|OPTIONS)\s*$", re.M)
_USAGE = re.compile(r"(?:usage|Usage|USAGE): \S")


# Marks only a build or CI log carries: runner folds and groups, Maven's [INFO], colour codes.
_LOG_MARKS = ("travis_fold:", "travis_time:", "##[group]", "::group::", "[INFO] ", "[WARNING] ", "[Pipeline]", "\x1b[")
_CODE_SPAN = re.compile(r"`[^`\n]*`")
"""An inline code span (`` `##[group]` ``): where a document names a log mark without being a log."""


def _logged(sample: str) -> bool:
    """Does a log mark of the sample stand outside inline code spans? A README that documents CI
    logs (this project's own names ``##[group]``, ``::group::`` and ``[INFO]`` in backticks) is a
    document, and is read by its headings, not as paragraphs of a log. The spans are taken out
    only when the sample holds a mark at all."""
    if not any(mark in sample for mark in _LOG_MARKS):
        return False
    bare = _CODE_SPAN.sub("", sample)
    return any(mark in bare for mark in _LOG_MARKS)


_TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\d[ T_]\d\d:\d\d|\b\d\d:\d\d:\d\d\b")
TIMESTAMP_SHARE = 0.3
"""A log has a time stamp near the start of at least this share of its lines."""


def _lines(sample: str) -> list[str]:
    return [line for line in sample.split("\n", SAMPLE_LINES)[:SAMPLE_LINES] if line.strip()]


def sample_lines(text: str | LogText) -> list[str]:
    """The non-blank lines of the sample :func:`kind` looks at."""
    return _lines(text[:SAMPLE_CHARS].replace("\r\n", "\n"))


EMBEDDED_LOOK = 4_000
_JSON_OPENS = re.compile(r"^[ \t]*(?:\{[ \t]*(?:\r?\n|\")|\[[ \t]*(?:\r?\n|\{))", re.MULTILINE)


def json_opening(text: str) -> int:
    """Where a JSON document inside text may start: the first line, within the first
    ``EMBEDDED_LOOK`` characters, that opens an object or an array of objects; -1 when none
    does. MCP servers wrap their JSON in a few lines of prose (``<tool_response>`` and a warning
    not to obey what it says), scripts print a banner before a report, models a ```` ```json ````
    fence. Read as paragraphs or line blocks, such a text's records were cut 40 lines at a time,
    each block holding the ends of two records; read as JSON (``split=json``), each element of
    its arrays is a unit, as it is in a JSON input."""
    m = _JSON_OPENS.search(text, 0, EMBEDDED_LOOK)
    return -1 if m is None else m.start() + len(m.group()) - len(m.group().lstrip(" \t"))


def kind(text: str | LogText) -> str:
    """The kind of ``text`` (see the module docstring)."""
    sample = text[:SAMPLE_CHARS].replace("\r\n", "\n")
    head = sample.lstrip("\ufeff\n")
    if opens_like_json(head):
        body = head.lstrip("\ufeff \t\r\n")  # what opens like JSON, after what opens_like_json passes over
        if _PY_RECORDS.match(body):
            return "records"
        if _json_lines(head):  # after a byte-order mark, as the JSON opening is read
            return "jsonlines"
        if not _CONFIG_SECTION.match(body):  # a TOML file opens with [build-system]
            return "text"  # JSON read as text (a string of a JSON document that did not parse)
    if _HTML.match(head):
        return "html"
    caption = _CAPTION.match(head)
    for start in (0, caption.end()) if caption else (0,):
        if _COMMIT.match(head, start) and _AUTHOR.search(head, start, start + 2_000):
            return "gitlog"
        if _DIFF.match(head, start) and len(_DIFF.findall(sample)) >= 2:
            return "diff"
    if _PYDOC.match(head):
        return "pydoc"
    if _DEB_ENTRY.match(head) and len(_DEB_ENTRY.findall(sample)) >= DEB_ENTRIES:
        return "changelog"
    end = head.find("\n", 0, MAN_TITLE_CHARS + 1)
    title = head[:end] if end >= 0 else head[: MAN_TITLE_CHARS + 1]  # a longer first line is no title
    if (len(title) <= MAN_TITLE_CHARS and _MAN_TITLE.match(title)) or len(_MAN_SECTION.findall(sample)) >= 2:
        return "man"
    lines = _lines(sample)
    if not lines:
        return "text"
    n = len(lines)
    rest = [line for line in lines if not LS_LONG.match(line)]  # the lines that are no ls -l entry
    entries = n - len(rest)
    if 3 * entries >= n:  # before the log marks (--full-time's dates, --color's escapes), unless another line has one
        others = sum(1 for line in rest if _LS_OTHER.match(line))
        if entries + others >= LS_SHARE * n and not any(mark in line for line in rest for mark in _LOG_MARKS):
            return "listing"
    if _logged(sample):
        return "text"
    if len(_CONFIG_SECTION.findall(sample)) >= CONFIG_SECTIONS and (
        sum(1 for line in lines if _CONFIG_KEY.match(line)) >= CONFIG_KEY_SHARE * n
    ):
        return "config"
    if sum(1 for line in lines if _TIMESTAMP.search(line, 0, 80)) >= TIMESTAMP_SHARE * n:
        return "text"
    if _table(lines):  # after the logs' time stamps: `2024-01-02 10:00:00,123 INFO` has one comma a line
        return "table"
    if sum(1 for line in lines if _grep(line)) >= LISTING_SHARE * n:
        return "listing"
    if sum(1 for line in lines if _LS.match(line)) >= LISTING_SHARE * n:
        return "listing"
    if sum(1 for line in lines if _FIND.match(line) or FIND_LS.match(line)) >= LISTING_SHARE * n:
        return "listing"
    titles = sum(1 for m in _RST_TITLE.finditer(sample) if len(m.group(1).rstrip()) <= m.end() - m.start(2))
    rst = len(_RST_DIRECTIVE.findall(sample)) + titles
    markdown = len(_MD_HEADING.findall(sample)) * 2 + len(_MD_OTHER.findall(sample))
    if markdown >= 2 and markdown >= rst:
        return "markdown"
    if rst >= 2:
        return "rst"
    indented = sum(1 for line in lines if line[:1] in " \t")
    if n >= 20 and indented >= INDENTED_SHARE * n and (_USAGE.match(head) or _column0_headings(lines)):
        return "man"
    return "text"


_HTML = re.compile(r"\s*(?:<!--.*?-->\s*)*<(?:!DOCTYPE\s+html|html)\b", re.I | re.S)
CONFIG_SECTIONS = 3
CONFIG_KEY_SHARE = 0.15
"""A TOML or INI file has at least ``CONFIG_SECTIONS`` ``[section]`` lines in its sample, and
this share of its lines are ``key = value`` (long arrays take the rest: pandas' ``pyproject.toml``
has 28 sections and 24 % of key lines)."""
CONFIG_SECTION = r"\[\[?[^\[\]\n=]+\]\]?[ \t]*(?:[#;][^\n]*)?"
"""A ``[section]`` line: at the margin (a ``--help`` page's indented ``[default: …]`` and a
build log's ``[end of output]`` are not), an optional comment after it."""
_CONFIG_SECTION = re.compile(f"^{CONFIG_SECTION}$", re.M)
_CONFIG_KEY = re.compile(r"[ \t]*[\w\"'][\w.\-\"']*[ \t]*=")
"""A ``key = value`` line (not ``--flag=value``, not ``error: …``)."""


TABLE_MIN_LINES = 10
TABLE_SHARE = 0.9
"""A table has at least ``TABLE_MIN_LINES`` sampled lines, and this share of them has as many
separators (commas, tabs or semicolons outside double quotes) as its first line, at least one."""
_QUOTED = re.compile(r'"[^"]*(?:""[^"]*)*"')


def _table(lines: list[str]) -> bool:
    if len(lines) < TABLE_MIN_LINES:
        return False
    bare = [_QUOTED.sub("", line) for line in lines]
    for separator in (",", "\t", ";"):
        first = bare[0].count(separator)
        if first and sum(1 for line in bare if line.count(separator) == first) >= TABLE_SHARE * len(bare):
            return not _signals(lines)  # looked for only in what would be a table
    return False


def _signals(lines: list[str]) -> bool:
    """Does a line say something failed (a log's signal words: error, failed, traceback …)? Then
    the text is no table, whatever its commas: ``tsc``'s ``file(12,5): error TS2304`` has one a
    line, ``go test``'s ``--- FAIL`` lines are tab-separated, and a log's failure lines are pinned."""
    from toolprune.core.signals import says_failed

    return any(says_failed(line) or _FAIL.search(line.lower()) for line in lines)


_FAIL = re.compile(r"\bfail\b")
"""``go test``'s ``FAIL`` and ``--- FAIL:``, which the log's signal words leave to its summary."""


JSON_LINES_MIN = 2
_TIME_KEY = re.compile(r'"(?:@?timestamp|time|ts|@t|asctime|datetime|date|__REALTIME_TIMESTAMP)"\s*:')
"""A JSON log's record carries its time (pino's ``time``, Docker's ``time``, structlog's
``timestamp``, Python's ``asctime``, journald's ``__REALTIME_TIMESTAMP``): such JSON Lines are a
log, cut into line blocks with their signal lines and tail pinned."""


def _json_lines(sample: str) -> bool:
    """Is every whole line of the sample (the last may be cut) a JSON object or array, are there
    at least ``JSON_LINES_MIN``, and are most of them undated (:data:`_TIME_KEY`: dated ones are
    a log's)? One parse a line, of at most ``SAMPLE_CHARS`` in all."""
    import json

    lines = [line for line in sample.split("\n") if line.strip()]
    if len(sample) >= SAMPLE_CHARS and len(lines) > 1:
        lines.pop()  # cut where the sample ends
    if len(lines) < JSON_LINES_MIN:
        return False
    for line in lines:
        if line.lstrip()[:1] not in ("{", "["):
            return False
        try:
            json.loads(line)
        except (ValueError, RecursionError):  # too deep for the parser: not records to split
            return False
    return 2 * sum(1 for line in lines if _TIME_KEY.search(line)) < len(lines)  # a log's records are dated


def _grep(line: str) -> bool:
    match = _GREP.match(line)
    return match is not None and ("." in match.group(1) or "/" in match.group(1))


def _column0_headings(lines: list[str]) -> bool:
    """The lines at column 0 are short headings (a manual's 名前/書式/説明, pydoc's CLASSES)."""
    top = [line for line in lines if line[:1] not in " \t"]
    return bool(top) and sum(1 for line in top if len(line) <= 40) >= 0.8 * len(top)

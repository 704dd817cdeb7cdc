"""Requests that compare entries: the largest file, the most recently modified one.

"Which file in this tarball is the biggest?" names no file, so no word of it tells the entry
that answers it from the others: the answer is whichever entry has the largest size. Cut by
relevance, a listing keeps the entries that share the request's other words and drops the
rest, and with them, most of the time, the answer. So a request that asks, in one sentence,
for an extreme of size (the largest file, which file is the smallest; 一番大きいファイル) or of
age (the newest file, modified most recently; 一番新しいファイル, 最後に更新) of files or
entries keeps every entry that carries what it compares:

- a listing whose lines carry a size and a date (``ls -l`` with any of its options, ``ls -lR``,
  ``find -ls``) is kept whole; other listings (``grep``, plain ``find``) have nothing to compare
  and are cut as before;
- a JSON array (or map) of records with a size field (``"size"``, ``"unpackedSize"``,
  ``"bytes"``, or a number-valued field the sentence names: "which module is the biggest by
  code lines" over ``cloc --json``'s ``"code"``) is kept whole when the request compares
  sizes, one with a date field (``"date"``, ``"mtime"``, ``"created_at"``, ``"publishedAt"``)
  when it compares ages;
- a JSON array (or map) of data rows (records holding numbers: a query's rows, a sheet's
  values, monthly figures) is kept whole when the request asks for an extreme of a value (the
  highest, the lowest, the peak, the worst quarter, the biggest drop; 一番大きく減った, ピーク,
  最高): which row holds it is a matter of the numbers, not of the words.

``git log`` lists the newest commit first, so a request about the first commit (which commit
first added the man page, when was ``--jobs`` introduced; 最初に追加, いつ導入) keeps the log's
last commit, its oldest (the first, when the dates say it is older: ``--reverse``; both, when
the dates cannot tell): in a log of one path it is the commit that added it, whose message seldom
says so in the request's words.

An extreme of anything else is not a comparison of entries: "the latest version", "the
smallest change", 最新版, 最小構成 are what agent prompts say all the time, and hooks read
the whole prompt, so matching them kept every listing of a session whole.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from toolprune.core.kinds import LS_LONG, sample_lines

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from toolprune.core.logtext import LogText

_SENTENCE = re.compile(r"(?:[^.?!。？！\n]|[.?!](?!\s|$))+")
"""A sentence: up to a full stop, question or exclamation mark that ends it (one followed by a
blank or the end: ``~/.cache``, ``foo.py`` and ``python3.12`` do not end one) or a line break."""
_NOUN_AGE = (
    r"(?:files?|entr(?:y|ies)|director(?:y|ies)|dirs?|folders?|archives?|tarballs?|backups?|snapshots?|dumps?)\b"
)
"""What an extreme of age is of when it compares entries: files and their kin, not versions,
releases, images, builds or logs ("the latest Python image" is a version, "check the latest
logs" a habit of speech)."""
_NOUN = (
    r"(?:files?|entr(?:y|ies)|director(?:y|ies)|dirs?|folders?|archives?|tarballs?|backups?|snapshots?|dumps?"
    r"|packages?|modules?|assets?|blobs?|binar(?:y|ies)|images?|bundles?|builds?|artifacts?|logs?|libraries)\b"
)
"""What an extreme of size is of: files and what ships as one."""
_NOUN_JA = (
    r"(?:バイト|ファイル|ディレクトリ|フォルダ|エントリ|パッケージ|モジュール|アーカイブ|ログ|バックアップ|tarball|file)"
)
_BETWEEN = (
    r"\s+(?:(?!(?:to|in|of|for|on|at|from|with|than|and|or|is|are|was|were|broke|breaks|fails?|failed)\b)"
    r"[\w./-]+\s+){0,3}?"
)
"""Up to three words between an extreme and its noun ("the largest single JS file"), none a
preposition, a conjunction or a verb: "the smallest change to this file" is not about a file's
size, nor "the latest commit broke the build" about a build's age."""
_IS = r".{0,200}?\b(?:is|are|was|were)\s+(?:the\s+)?"
"""Between an entry and the extreme it is said to be ("which file in ~/.cache is the biggest")."""
_CLAUSE_END = r"(?=\s*(?:[,;:)]|$|one\b|of\b|among\b|here\b|there\b|in (?:it|size|bytes)\b))"
"""An extreme that ends its clause ("which file should I use to keep it smallest,")."""
_SIZE_WORD = r"\b(?:larg|bigg|small|heavi|light|tini)est\b"
_AGE_WORD = r"(?:\b(?:new|old|earli|lat)est\b|\b(?:most|least) recent\b)"
_NOT_UPGRADE = r"(?<!\bto )(?<!\bto the )"
"""Not "upgrade to the latest": a version, whatever follows."""
_CHANGED = r"(?:modified|changed|updated|touched|written|edited|created|added)"
_SIZE = (  # compiled on first use (re caches it): most inputs never ask
    rf"(?i){_SIZE_WORD}{_BETWEEN}{_NOUN}"  # the largest file
    rf"|{_NOUN}{_IS}{_SIZE_WORD}"  # which file in target/release is the largest
    rf"|{_NOUN}.{{0,200}}?{_SIZE_WORD}{_CLAUSE_END}"  # which file should I use to keep it smallest,
    r"|\bthe most (?:space|disk|bytes)\b|\b(?:sort(?:ed)?|order(?:ed)?|rank(?:ed)?|top \d+) by size\b"
    rf"|{_NOUN_JA}.{{0,60}}(?:一番|いちばん|最も|もっとも)(?:サイズ|容量)?[のが]?(?:大き|でか|デカ|重|小さ|軽)"
    rf"|(?:一番|いちばん|最も|もっとも)(?:サイズ|容量)?[のが]?(?:大き|でか|デカ|重|小さ|軽).{{0,60}}{_NOUN_JA}"
    r"|(?:サイズ|容量)[がはの]?(?:最大|最小|一番|いちばん)|最(?:大|小)(?:サイズ|容量|の(?:サイズ|容量|ファイル))"
    r"|(?:サイズ|容量)?(?:の)?(?:大きい|小さい)順"
    # takes up the most bytes or space (一番バイト数を食っている)
    r"|(?:一番|いちばん|最も|もっとも)(?:バイト|容量|サイズ|ディスク|スペース|場所|領域)数?を(?:食|取|占|使)"
)
"""An extreme of size about entries, looked for in each sentence of the request (the windows are
bounded, so a long prompt costs linear time)."""
_AGE = (  # compiled on first use (re caches it): most inputs never ask
    rf"(?i){_NOT_UPGRADE}{_AGE_WORD}{_BETWEEN}{_NOUN_AGE}"  # the newest file
    rf"|\b(?:most|least) recently {_CHANGED}{_BETWEEN}{_NOUN_AGE}"  # the most recently modified files
    rf"|{_NOUN_AGE}{_IS}{_AGE_WORD}"  # which file in /var/log is the newest
    rf"|{_NOUN_AGE}.{{0,200}}?\b{_CHANGED} (?:the )?(?:last|most recently)\b"  # which file was modified last
    r"|\blast[- ]modified\b(?![- ]?(?:HTTP )?headers?\b)"
    rf"|{_NOUN_JA}.{{0,60}}(?:一番|いちばん|最も|もっとも)(?:最近|新し|古)"
    rf"|(?:一番|いちばん|最も|もっとも)(?:最近|新し|古).{{0,60}}{_NOUN_JA}"
    rf"|最後に(?:更新|変更|修正).{{0,60}}{_NOUN_JA}|{_NOUN_JA}.{{0,60}}最後に(?:更新|変更|修正)"
    r"|最(?:新|古)の?(?:ファイル|エントリ|ディレクトリ)|(?:更新|変更)日(?:時)?[がの]?(?:新しい|古い)|(?:新しい|古い)順"
)
"""An extreme of age about entries ("the newest file", "modified most recently"); not "the
latest version", "upgrade to the latest" or 最新版, which every agent prompt about upgrading says."""

_VALUE = (  # compiled on first use (re caches it): most inputs never ask
    r"(?i)\b(?:highest|lowest|fewest|peak(?:ed|s)?|worst)\b"
    r"|\b(?:larg|bigg|small|great|steep|sharp)est "
    r"(?:drop|fall|decline|decrease|increase|rise|gain|loss|jump|growth)"
    r"|\bthe (?:most|least) (?!(?:important|common|useful|likely|popular|recent|significant|part|efficient"
    r"|reliable|straightforward|basic|idiomatic|appropriate|relevant|robust|elegant|readable)\b)[a-z]"
    r"|\b(?:rose|grew|fell|dropped|declined|increased|decreased|gained|lost) (?:the )?most\b"
    r"|(?:一番|いちばん|最も|もっとも).{0,8}?(?:大き|小さ|多|少な|高|低|減|増|落ち|伸び|悪|長|短|早|遅|寒|暑|暖)"
    r"|ピーク|最高|最低|最多|最少|最悪|ワースト"
)
"""An extreme of a value, looked for in each sentence of the request: the highest, the peak, the
worst month, the largest drop, "the most comments", "fell the most"; 一番大きく減った, ピーク, 最高
気温. Not "the most important", "the best way", "the maximum pool size", 最大サイズ or 最新: words
of any prompt about settings, which ask for no row."""


SIZED_SHARE = 0.5
"""A listing whose lines carry sizes has at least this share of its sampled non-blank lines in
``ls -l`` or ``find -ls`` form (``ls -lR`` has its directory and ``total`` lines besides)."""
_SIZE_KEY = re.compile(r'"(?:size|bytes|\w*(?:Size|_size|Bytes|_bytes))"\s*:\s*\d')
_DATE_KEY = re.compile(
    r'"(?:date|time|mtime|ctime|modified|created|updated|published|timestamp'
    r'|\w*(?:_at|At|_date|Date|_time|Time))"\s*:\s*["\d]'
)
SAMPLE_ELEMENTS = 20
"""The first elements of an array looked at for a size or date field; most must have one."""


def asks(basis: str) -> tuple[bool, bool]:
    """Does a sentence of the request ask for an extreme of size, and one for an extreme of age,
    of files or entries?"""
    sentences = _SENTENCE.findall(basis)
    return any(re.search(_SIZE, s) for s in sentences), any(re.search(_AGE, s) for s in sentences)


_ADD_JA = r"(?:追加|導入|入っ|入れ|作[らっ]|登場)"
_FIRST = (  # compiled on first use (re caches it): most inputs never ask
    r"(?i)(?<!\bI )(?<!\bwe )(?<!\byou )\b(?:first|originally|initially) "
    r"(?:added|introduced|created|appeared|landed|shipped|committed|written)\b"
    r"|\b(?:added|introduced|created) (?:it |them )?(?:first|originally)\b"
    r"|\bwhen (?:was|were|did)\b.{0,80}?\b(?:add(?:ed)?|introduced?|created?|appear(?:ed)?)\b"
    r"|\bcommits? (?:that |which )?(?:first )?(?:added|introduced|created)\b"
    r"|\b(?:the )?(?:first|earliest|oldest|original|initial) commit\b"
    rf"|(?:最初|初めて|はじめて)[にのでは]?.{{0,20}}?{_ADD_JA}.{{0,30}}?(?:コミット|バージョン|リリース)"
    rf"|(?:コミット|バージョン|リリース).{{0,30}}?(?:最初|初めて|はじめて)[にのでは]?.{{0,20}}?{_ADD_JA}"
    rf"|いつ(?!も).{{0,30}}?{_ADD_JA}|どのコミットで.{{0,10}}?{_ADD_JA}|(?:最初|一番古い|最古)の(?:コミット|変更)"
)
"""A request about the first commit: which commit first added a file, when was (did we add) an
option, the commit that introduced it; 最初に追加したコミット, いつ導入, どのコミットで追加."""


def asks_first(basis: str) -> bool:
    """Does a sentence of the request ask which commit came first (added, introduced it)?"""
    return any(re.search(_FIRST, sentence) for sentence in _SENTENCE.findall(basis))


_DATE_LINE = re.compile(r"^(?:Author)?Date: +(.+)$", re.M)
_DATE_FORMS = (
    "%a %b %d %H:%M:%S %Y %z",  # git's default
    "%a %b %d %H:%M:%S %Y",  # --date=local
    "%Y-%m-%d %H:%M:%S %z",  # --date=iso
    "%Y-%m-%dT%H:%M:%S%z",  # --date=iso-strict
    "%a, %d %b %Y %H:%M:%S %z",  # --date=rfc
    "%Y-%m-%d",  # --date=short
    "%Y-%m-%d %H:%M:%S%z",  # Python's datetime as the MCP git server prints it (2026-10-01 05:35:57+00:00)
)
_RAW = re.compile(r"(\d+) [+-]\d{4}$")  # --date=raw, --date=unix
_UNITS = r"(second|minute|hour|day|week|month|year)s?"
_AGO = re.compile(rf"(\d+) {_UNITS}(?:, (\d+) {_UNITS})? ago$")  # --date=relative
_UNIT = {
    "second": 1, "minute": 60, "hour": 3_600, "day": 86_400, "week": 604_800, "month": 2_629_746, "year": 31_556_952,
}  # fmt: skip


def _commit_time(text: str) -> float | None:
    """The time of a ``git log`` commit's ``Date:`` (or ``AuthorDate:``) line, in any of git's
    ``--date`` formats but ``human`` and ``format:`` (relative dates as minus the seconds ago),
    or None."""
    import datetime

    found = _DATE_LINE.search(text, 0, 2_000)
    if found is None:
        return None
    value = found.group(1).strip()
    if ago := _AGO.match(value):
        later = _UNIT[ago.group(4)] * int(ago.group(3)) if ago.group(3) else 0
        return -float(_UNIT[ago.group(2)] * int(ago.group(1)) + later)
    if raw := _RAW.match(value):
        return float(raw.group(1))
    for form in _DATE_FORMS:
        try:
            return datetime.datetime.strptime(value, form).timestamp()
        except ValueError:
            continue
    return None


def commit_order(first: str, last: str) -> str | None:
    """The order of a ``git log`` from its first and last commits' texts: ``newest`` first (the
    default), ``oldest`` first (``--reverse``), or None when their dates cannot tell."""
    early, late = _commit_time(first), _commit_time(last)
    if early is None or late is None or early == late:
        return None
    return "oldest" if early < late else "newest"


_SMALL = r"(?i)\b(?:small|light|tini)est\b|小さ|軽|最小"
_OLD = r"(?i)\b(?:old|earli)est\b|\bleast recent|古"
_HIGH = {
    "largest": r"(?i)\b(?:larg|bigg|heavi)est\b|\bthe most (?:space|disk|bytes)\b|大き|でか|デカ|重[いた]|最大",
    "newest": (
        rf"(?i)\b(?:new|lat)est\b|\bmost recent|\blast[- ]modified\b|\b{_CHANGED} (?:the )?last\b|最近|新し|最新|最後に"
    ),
}
"""The words for the high end, in a sentence that also names the low one ("the smallest and the
largest"): not 重要 (important) or "in the last backup", which name no end."""
ENDS = ("largest", "smallest", "newest", "oldest")
VALUE = "value"
"""The extreme of a value (:data:`_VALUE`): records are compared by their numbers."""


def ends(basis: str) -> list[str]:
    """The extremes a request asks for, of :data:`ENDS` in that order: "the largest file" is
    ``largest``, "the smallest and the largest" both, "modified most recently" ``newest``, 一番古い
    ``oldest``; a size ranked without a word for which end ("sorted by size", 容量の大きい順) is
    ``largest``; then :data:`VALUE` for an extreme of a value (the highest, the peak)."""
    found: set[str] = set()
    for sentence in _SENTENCE.findall(basis):
        entries = False
        for kind, low, high, fewer in ((_SIZE, _SMALL, "largest", "smallest"), (_AGE, _OLD, "newest", "oldest")):
            if re.search(kind, sentence):  # then every word of the sentence for an end counts
                entries = True
                if re.search(low, sentence):
                    found.add(fewer)
                if not re.search(low, sentence) or re.search(_HIGH[high], sentence):
                    found.add(high)
        if not entries and re.search(_VALUE, sentence):  # 一番大きいファイル is a file's size
            found.add(VALUE)
    return [end for end in (*ENDS, VALUE) if end in found]


def by(ends: Sequence[str]) -> str | None:
    """What extremes ``ends`` (of :func:`ends`) compare entries by: ``size``, ``age``,
    ``value`` or those joined by ``+``; None for none."""
    kinds = (("size", ENDS[:2]), ("age", ENDS[2:]), (VALUE, (VALUE,)))
    names = [name for name, pair in kinds if any(end in pair for end in ends)]
    return "+".join(names) or None


_SCALE = {"": 1, "B": 1, "k": 1_000, "K": 1_024, "M": 1_024**2, "G": 1_024**3, "T": 1_024**4, "P": 1_024**5,
          "E": 1_024**6, "Z": 1_024**7, "Y": 1_024**8}  # fmt: skip


_MONTHS = {m: n for n, m in enumerate("jan feb mar apr may jun jul aug sep oct nov dec".split(), 1)}
_MONTHS.update({"sept": 9, "june": 6, "july": 7})  # the C locale's abbreviations, and BSD's full ones
_ISO = re.compile(r"(?:(\d{4})-)?(\d\d)-(\d\d)")


def _entries(text: str) -> list[tuple[float | None, tuple[int, ...] | None]]:
    """The size (None for a device) and the date of each ``ls -l``/``find -ls``/``tar tv`` entry
    of ``text``. A date is a tuple that sorts by age: ``(year, month, day, hh, mm, ss)``, or
    ``(10_000, month, day, hh, mm)`` for the month, day and time that ``ls`` shows for a file of
    the last six months (newer than any date it shows with a year; :func:`_recent` then puts
    those of the months after a new year after December's). :data:`FOREIGN` when the month is
    no English one (the C locale's ``ls`` writes English; others name months in their own
    language), None when the date is none that ``ls`` prints."""
    found: list[tuple[float | None, tuple[int, ...] | None]] = []
    for line in text.split("\n"):
        if (entry := LS_LONG.match(line)) is None:
            continue
        size: float | None = None
        if ", " not in (raw := entry.group("size")):  # a device's "major, minor" is no size
            unit = raw[-1] if raw[-1] in _SCALE else ""
            size = float(raw[: len(raw) - len(unit)].replace(",", ".")) * _SCALE[unit]
        found.append((size, _date(entry.group("date"), entry.group("time"))))
    return found


FOREIGN: tuple[int, ...] = ()
"""The date of an entry whose month is no English one: the listing's dates are not read at all
(a German ``ls`` names Jan, Feb and Apr as English does, but Mär, Mai, Okt and Dez its own way)."""


def _date(date: str, time: str | None) -> tuple[int, ...] | None:
    clock = [int(part) for part in re.findall(r"\d+", time or "")[:3]]  # --full-time: 23:25:10.123
    if iso := _ISO.fullmatch(date.split()[0]):  # 2024-12-05 (with the time apart), 12-05 23:25
        year, month, day = iso.groups()
        if not clock and " " in date:  # 12-05 23:25 (ls --time-style=iso, a recent file)
            clock = [int(part) for part in date.split()[-1].split(":")]
        return (int(year) if year else 10_000, int(month), int(day), *clock)
    fields = date.replace(",", " ").split()
    if len(fields) != 3 or not fields[1].isdigit():
        return None
    month_name, day, last = fields
    month = _MONTHS.get(month_name.lower().rstrip("."))
    if month is None:
        return FOREIGN
    if ":" in last:  # Dec  5 23:25: a date of the last six months, the year not shown
        hours, minutes = last.split(":")
        return (10_000, month, int(day), int(hours), int(minutes))
    return (int(last), month, int(day))


HALF_YEAR = 183
"""``ls`` shows the time instead of the year for the dates of the last six months (183 days)."""


def _recent(units: list[list[tuple[float | None, tuple[int, ...] | None]]]) -> None:
    """Dates without a year lie within half a year of each other: when the days of the year they
    name are further apart, the listing crossed a new year, and the early ones are the later
    dates (January's after December's, and after July's too). A listing with a month in another
    language (:data:`FOREIGN`) has its dates not read at all."""
    if any(date == FOREIGN for entries in units for _, date in entries):
        for entries in units:
            entries[:] = [(size, None) for size, _ in entries]
        return
    days = [_day(date) for entries in units for _, date in entries if date is not None and date[0] == 10_000]
    if not days or max(days) - min(days) <= HALF_YEAR:
        return
    later = max(days) - HALF_YEAR  # a day before this one can only be of the next year
    for entries in units:
        for k, (size, date) in enumerate(entries):
            if date is not None and date[0] == 10_000 and _day(date) < later:
                entries[k] = (size, (10_001, *date[1:]))


def _day(date: tuple[int, ...]) -> float:
    return (date[1] - 1) * 30.44 + date[2]


def fill_keys(texts: Sequence[str], wanted: Sequence[str]) -> list[int]:
    """For the units ``texts`` of a listing kept whole for a request that compares entries, the
    rank (0: first) in which a bound keeps them: each unit is ranked by its best entry for each
    end the request asks for (``wanted``, of :data:`ENDS`: the unit with the largest file, the
    one with the newest entry), and takes its best rank over those ends, so a request for the
    largest and the newest keeps the units that hold either first. A unit without entries comes
    last."""
    values = [_entries(text) for text in texts]
    _recent(values)
    best = [len(texts)] * len(texts)
    for end in wanted:
        if end not in ENDS:
            continue  # a value's extreme: a listing has sizes and dates only
        high = end in ("largest", "newest")
        keyed: list[tuple[tuple[float, ...], int]] = []
        for k, entries in enumerate(values):
            if end in ("largest", "smallest"):
                known: list[tuple[float, ...]] = [(size,) for size, _ in entries if size is not None]
            else:
                known = [date for _, date in entries if date is not None]
            if known:
                keyed.append((max(known) if high else min(known), k))
        keyed.sort(key=lambda item: item[0], reverse=high)
        for rank, (_, k) in enumerate(keyed):
            best[k] = min(best[k], rank)
    return best


def listing_compared(basis: str, text: str | LogText) -> bool:
    """A request for an extreme over a listing whose lines carry sizes and dates."""
    if not any(asks(basis)):
        return False
    lines = sample_lines(text)
    entries = sum(1 for line in lines if LS_LONG.match(line))
    return bool(lines) and entries >= SIZED_SHARE * len(lines)


_NUMBER = re.compile(r"[\[:,]\s*-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?=\s*[,\]}])")
"""A number as a JSON value (an element or a member's), not digits inside a string."""
ROW_NUMBERS = 2
"""A data row holds at least this many numbers."""


def asks_value(basis: str) -> bool:
    """Does a sentence of the request ask for an extreme of a value (:data:`_VALUE`)?"""
    return any(re.search(_VALUE, sentence) for sentence in _SENTENCE.findall(basis))


def _row(element: str) -> bool:
    """Is ``element`` a data row: an object or array holding :data:`ROW_NUMBERS` numbers?"""
    return bool(_RECORD.match(element) or element.lstrip().startswith("[")) and (
        len(_NUMBER.findall(element)) >= ROW_NUMBERS
    )


_NAME = re.compile(r"[^\W\d_]\w{2,}")


def _named_fields(basis: str) -> re.Pattern[str]:
    """A JSON member holding a number whose name is a word of a sentence that asks for an extreme
    of size: "which module is the biggest by code lines" compares ``cloc --json``'s records by
    ``"code"``, a size of its own kind."""
    words = {w.lower() for s in _SENTENCE.findall(basis) if re.search(_SIZE, s) for w in _NAME.findall(s)}
    return re.compile(r'"(?i:' + "|".join(map(re.escape, sorted(words))) + r')"\s*:\s*-?\d')


def records_compared(basis: str, elements: Sequence[str]) -> bool:
    """A request for an extreme of size (or age) over an array (or a map) of records with a size
    (or a date) field in most of its first elements (a number-valued field the request's
    sentence names counts as a size), or for an extreme of a value over one whose first
    elements are mostly data rows."""
    size, age = asks(basis)
    value = asks_value(basis)
    if not (size or age or value) or not elements:
        return False
    sample = elements[:SAMPLE_ELEMENTS]
    if value and 2 * sum(1 for e in sample if _row(e)) > len(sample):
        return True
    keys = [_SIZE_KEY, _named_fields(basis)] if size else []
    keys += [_DATE_KEY] if age else []
    return any(2 * sum(1 for e in sample if _RECORD.match(e) and k.search(e)) > len(sample) for k in keys)


_RECORD = re.compile(r'\s*(?:"[^"\\]*(?:\\.[^"\\]*)*"\s*:\s*)?\{')
"""An object: an array's element, or a map's member (its name, then the object)."""

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
- a JSON array whose elements are records with a size field (``"size"``, ``"unpackedSize"``,
  ``"bytes"``) is kept whole when the request compares sizes, one with a date field
  (``"date"``, ``"mtime"``, ``"created_at"``, ``"publishedAt"``) when it compares ages.

``git log`` lists the newest commit first, so a request about the first commit (which commit
first added the man page, when was ``--jobs`` introduced; 最初に追加, いつ導入) keeps the log's
last commit, its oldest (the first, when its date says it is older: ``--reverse``): in a log
of one path it is the commit that added it, whose message seldom says so in the request's words.

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

_SENTENCE = re.compile(r"[^.?!。？！\n]+")
_NOUN = (
    r"(?:files?|entr(?:y|ies)|director(?:y|ies)|dirs?|folders?|packages?|modules?|assets?|blobs?"
    r"|binar(?:y|ies)|images?|archives?|tarballs?|bundles?|builds?|artifacts?|logs?|backups?|snapshots?|dumps?)\b"
)
"""What an extreme is of when it compares entries: files and their kin, not changes, values or releases."""
_NOUN_JA = (
    r"(?:バイト|ファイル|ディレクトリ|フォルダ|エントリ|パッケージ|モジュール|アーカイブ|ログ|バックアップ|tarball|file)"
)
_BETWEEN = r"\s+(?:(?!(?:to|in|of|for|on|at|from|with|than|and|or)\b)[\w./-]+\s+){0,3}?"
"""Up to three words between an extreme and its noun ("the largest single JS file"), none a
preposition or a conjunction: "the smallest change to this file" is not about a file's size."""
_CLAUSE_END = r"(?=\s*(?:[,;:)]|$|one\b|of\b|among\b|here\b|there\b|in (?:it|size|bytes)\b))"
"""An extreme that ends its clause ("which file is the biggest?", "keep it smallest,")."""
_SIZE_WORD = r"\b(?:larg|bigg|small|heavi|light|tini)est\b"
_AGE_WORD = r"\b(?:new|old|earli|lat)est\b|\b(?:most|least) recent\b"
_SIZE = re.compile(
    rf"(?i){_SIZE_WORD}{_BETWEEN}{_NOUN}"  # the largest file
    rf"|{_NOUN}.{{0,200}}?{_SIZE_WORD}{_CLAUSE_END}"  # which file is the largest
    r"|\bthe most (?:space|disk|bytes)\b|\b(?:sort(?:ed)?|order(?:ed)?|rank(?:ed)?|top \d+) by size\b"
    rf"|{_NOUN_JA}.{{0,60}}(?:一番|いちばん|最も|もっとも)(?:サイズ|容量)?[のが]?(?:大き|でか|デカ|重|小さ|軽)"
    rf"|(?:一番|いちばん|最も|もっとも)(?:サイズ|容量)?[のが]?(?:大き|でか|デカ|重|小さ|軽).{{0,60}}{_NOUN_JA}"
    r"|(?:サイズ|容量)[がはの]?(?:最大|最小|一番|いちばん)|最(?:大|小)(?:サイズ|容量|の(?:サイズ|容量|ファイル))"
    r"|(?:サイズ|容量)?(?:の)?(?:大きい|小さい)順"
)
"""An extreme of size about entries, looked for in each sentence of the request (the windows are
bounded, so a long prompt costs linear time)."""
_AGE = re.compile(
    rf"(?i)(?:{_AGE_WORD}){_BETWEEN}{_NOUN}"  # the newest file
    rf"|{_NOUN}.{{0,200}}?(?:{_AGE_WORD}){_CLAUSE_END}"  # which file is the oldest
    r"|\b(?:most|least) recently (?:modified|changed|updated|touched|written|edited|created|added)\b"
    r"|\blast[- ]modified\b(?![- ]?(?:HTTP )?headers?\b)"
    r"|\b(?:modified|changed|updated|touched|edited|written) (?:the )?(?:last|most recently)\b"
    rf"|{_NOUN_JA}.{{0,60}}(?:一番|いちばん|最も|もっとも)(?:最近|新し|古)|(?:一番|いちばん|最も|もっとも)(?:最近|新し|古).{{0,60}}{_NOUN_JA}"
    r"|最後に(?:更新|変更|修正)|最(?:新|古)の?(?:ファイル|エントリ|ディレクトリ)|(?:更新|変更)日(?:時)?[がの]?(?:新しい|古い)|(?:新しい|古い)順"
)
"""An extreme of age about entries ("the newest file", "modified most recently"); not "the
latest version" or 最新版, which every agent prompt about upgrading says."""


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
    return any(_SIZE.search(s) for s in sentences), any(_AGE.search(s) for s in sentences)


_FIRST = re.compile(
    r"(?i)\b(?:first|originally|initially) (?:added|introduced|created|appeared|landed|shipped|committed|written)\b"
    r"|\b(?:added|introduced|created) (?:it |them )?(?:first|originally)\b"
    r"|\bwhen (?:was|were|did)\b.{0,80}?\b(?:added|introduced|created|appear)\b"
    r"|\b(?:the )?(?:first|earliest|oldest|original|initial) commit\b"
    r"|(?:最初|初めて|はじめて)[にのでは]?.{0,20}?(?:追加|導入|入っ|入れ|作[らっ]|コミット|登場)"
    r"|いつ.{0,30}?(?:追加|導入|入っ|入れ|作[らっ]|登場)|(?:最初|一番古い|最古)の(?:コミット|変更)"
)
"""A request about the first commit: which commit first added a file, when an option was
introduced; 最初に追加したコミット, いつ導入."""


def asks_first(basis: str) -> bool:
    """Does a sentence of the request ask which commit came first (added, introduced it)?"""
    return any(_FIRST.search(sentence) for sentence in _SENTENCE.findall(basis))


_DATE_LINE = re.compile(r"^(?:Author)?Date: +(.+)$", re.M)


def _commit_time(text: str) -> float | None:
    """The time of a ``git log`` commit's ``Date:`` line in git's default or ``--date=iso``
    format, or None."""
    import datetime

    found = _DATE_LINE.search(text, 0, 2_000)
    if found is None:
        return None
    value = found.group(1).strip()
    for form in ("%a %b %d %H:%M:%S %Y %z", "%Y-%m-%d %H:%M:%S %z"):
        try:
            return datetime.datetime.strptime(value, form).timestamp()
        except ValueError:
            continue
    return None


def oldest_commit(first: str, last: str) -> bool:
    """Is the log's first commit older than its last (``git log --reverse``)? ``first`` and
    ``last`` are the two commits' texts; a date that cannot be read counts as newest-first."""
    early, late = _commit_time(first), _commit_time(last)
    return early is not None and late is not None and early < late


def by(basis: str) -> str:
    """What the request compares entries by, for diagnostics: ``size``, ``age`` or ``size+age``."""
    return "+".join(name for name, wanted in zip(("size", "age"), asks(basis)) if wanted)


def listing_compared(basis: str, text: str | LogText) -> bool:
    """A request for an extreme over a listing whose lines carry sizes and dates."""
    if not any(asks(basis)):
        return False
    lines = sample_lines(text)
    entries = sum(1 for line in lines if LS_LONG.match(line))
    return bool(lines) and entries >= SIZED_SHARE * len(lines)


def records_compared(basis: str, elements: Sequence[str]) -> bool:
    """A request for an extreme of size (or age) over an array of records with a size (or a
    date) field in most of its first elements."""
    size, age = asks(basis)
    if not (size or age) or not elements:
        return False
    sample = elements[:SAMPLE_ELEMENTS]
    keys = [k for k, wanted in ((_SIZE_KEY, size), (_DATE_KEY, age)) if wanted]
    return any(2 * sum(1 for e in sample if e.lstrip().startswith("{") and k.search(e)) > len(sample) for k in keys)

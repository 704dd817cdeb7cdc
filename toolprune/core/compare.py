"""Requests that compare entries: the largest file, the newest release.

"Which file in this tarball is the biggest?" names no file, so no word of it tells the entry
that answers it from the others: the answer is whichever entry has the largest size. Cut by
relevance, a listing keeps the entries that share the request's other words and drops the
rest, and with them, most of the time, the answer. So a request that asks for an extreme of
size (largest, smallest, heaviest; 一番大きい, 最大) or of age (newest, oldest, most recent;
一番新しい, 最新) keeps every entry that carries what it compares:

- a listing whose lines carry a size and a date (``ls -l``, ``ls -lR``, ``find -ls``) is kept
  whole; other listings (``grep``, plain ``find``) have nothing to compare and are cut as before;
- a JSON array whose elements are records with a size field (``"size"``, ``"unpackedSize"``,
  ``"bytes"``) is kept whole when the request compares sizes, one with a date field
  (``"date"``, ``"mtime"``, ``"created_at"``, ``"publishedAt"``) when it compares ages.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from toolprune.core.kinds import FIND_LS, sample_lines

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from toolprune.core.logtext import LogText

_SIZE = re.compile(
    r"(?i)\b(?:larg|bigg|small|heavi|light|tini)est\b|\bthe most (?:space|disk|bytes)\b"
    r"|(?:一番|いちばん|最も|もっとも)(?:サイズ|容量|ファイルサイズ)?[のが]?(?:大き|でか|デカ|重|小さ|軽)|最大|最小"
)
_AGE = re.compile(
    r"(?i)\b(?:new|old|earli|lat)est\b|\b(?:most|least) recent(?:ly)?\b"
    r"|(?:一番|いちばん|最も|もっとも)(?:新し|古)|最新|最古"
)
_LONG_ENTRY = re.compile(r"[-dlcbps][rwxsStT-]{9}[.+@]? +\d+ +\S+ +\S+ +\d+ ")
"""An ``ls -l`` entry: mode, links, owner, group, size."""
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
    """Does the request ask for an extreme of size, and of age?"""
    return _SIZE.search(basis) is not None, _AGE.search(basis) is not None


def listing_compared(basis: str, text: str | LogText) -> bool:
    """A request for an extreme over a listing whose lines carry sizes and dates."""
    if not any(asks(basis)):
        return False
    lines = sample_lines(text)
    entries = sum(1 for line in lines if _LONG_ENTRY.match(line) or FIND_LS.match(line))
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

"""JSON inputs: is this text JSON at all? (The shapes themselves are in ``core/shapes``.)

Only raw spans of the input are ever written back: parsed values are used to decide, never
re-serialised, so numbers of any size, key order and whitespace all survive.
"""

from __future__ import annotations

import re

# One character class each, never a repeated group: Python's engine keeps a backtracking state
# for each repetition of a group (~125 bytes each: 250 MB over 2 MB of blank lines with
# ``(?:BOM|space)*``, and as much over a stretch of byte-order marks with a group per mark).
# In bytes a mark is three of them: the class takes them in any order, and the count below
# checks that each such byte belongs to a whole mark.
_OPENS_BYTES = re.compile(rb"[ \t\r\n\xef\xbb\xbf]*[{\[]")
_OPENS = re.compile(r"[\ufeff \t\r\n]*[{\[]")
_BOM = b"\xef\xbb\xbf"


def opens_like_json(text: str | bytes) -> bool:
    """True when ``text`` opens like a JSON document: ``{`` or ``[`` after JSON's white space
    (space, tab, CR, LF) and any byte-order marks, as UTF-8 bytes or as text. Whether it *is*
    JSON is :func:`parses`'s question; this one decides who gets to ask it. Every such check (how
    the input is read, which shapes the pipeline tries, whether a string holds a JSON document)
    uses this one, so that no input is JSON to one part and text to another."""
    if isinstance(text, str):
        return _OPENS.match(text) is not None
    found = _OPENS_BYTES.match(text)
    if found is None:
        return False
    end = found.end() - 1  # marks never overlap: all these bytes are in marks when there are 3 per mark
    marks = sum(text.count(byte, 0, end) for byte in (b"\xef", b"\xbb", b"\xbf"))
    return marks == 3 * text.count(_BOM, 0, end)


def _keep(raw: str) -> str:
    return raw


def parses(text: str) -> bool | None:
    """True when ``text`` is JSON, False when it is not, None when it is JSON-like but no parser
    can represent it (depth limits): treat as ``structured`` (passthrough)."""
    import orjson

    body = text.lstrip("\ufeff")
    try:
        orjson.loads(body)
        return True
    except orjson.JSONDecodeError as exc:
        if "depth" in str(exc):  # deeper than orjson's limit: passthrough, whatever the stack
            return None
    import json  # NaN/Infinity, lone surrogates, integers of any size: valid for Python's parser

    try:  # numbers are checked, never converted: no digit limit
        json.loads(body, parse_int=_keep, parse_float=_keep, parse_constant=_keep)
        return True
    except RecursionError:
        return None
    except ValueError:
        return False

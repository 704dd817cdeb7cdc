"""JSON inputs: is this text JSON at all? (The shapes themselves are in ``core/shapes``.)

Only raw spans of the input are ever written back: parsed values are used to decide, never
re-serialised, so numbers of any size, key order and whitespace all survive.
"""

from __future__ import annotations


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

"""Put a pruned JSON output back together through ``omitted``, as a program reading it would.

It reads ``_pruned`` (at the end of an object, or the last element of a top-level array),
finds each named container by its dotted path or JSON Pointer, fetches the dropped elements
with the listed ranges (each one ``omitted`` call), and puts them back at their indices; MCP
content marker items are replaced by the items they stand for; text pruned inside a string is
restored marker by marker; JSON inside a string is restored recursively.
"""

from __future__ import annotations

import json
import re

ITEM_MARKER = re.compile(r"\A［… items? [^］]*: toolprune omitted (?:--spill-dir \S+ )?(\S+) (\d+) (\d+) …］\Z")
TEXT_MARKER = re.compile(r"［…[^］]*?: toolprune omitted (?:--spill-dir \S+ )?(\S+) (\d+) (\d+) …］")
HEADER = re.compile(r"\A【toolprune: [^】]*】(\r?\n)\1")


def _int(raw):
    return int(raw) if len(raw) < 4_000 else ("int", raw)  # any size, without lifting Python's limit


def loads(text):
    return json.loads(text, parse_int=_int)


def restore(output, store):
    """The parsed value of ``output`` with every drop put back."""
    return restore_value(loads(output), store)


def restore_value(doc, store):
    meta = None
    if isinstance(doc, list) and doc and isinstance(doc[-1], dict) and list(doc[-1]) == ["_pruned"]:
        meta = doc.pop()["_pruned"]
    elif isinstance(doc, dict) and "_pruned" in doc:
        meta = doc.pop("_pruned")
    if meta is not None:
        assert set(meta) <= {"note", "arrays", "structuredContent"}, meta
        assert len(json.dumps(meta, ensure_ascii=False, separators=(",", ":"))) < 1_000, "the _pruned note is bounded (as printed: compact)"
        for key, info in meta["arrays"].items():
            _restore_container(doc, key, info, store)
    return _restore_strings(doc, store)


def _segments(key):
    if key == "":
        return []
    if key.startswith("/"):
        return [p.replace("~1", "/").replace("~0", "~") for p in key[1:].split("/")]
    return key.split(".")


def _get(holder, seg):
    return holder[int(seg)] if isinstance(holder, list) else holder[seg]


def _restore_container(doc, key, info, store):
    *path, last = _segments(key) or [None]
    holder = doc
    for seg in path:
        holder = _get(holder, seg)
    container = doc if last is None else _get(holder, last)
    if "dropped" in info:
        dropped = info["dropped"]
    else:  # every element inside a range was dropped
        dropped = [i for a, b in info["ranges"] for i in range(a, b + 1)]
        assert info["omitted"].endswith(f" {info['id']} <from> <to>")
    back = []
    for a, b in info["ranges"]:
        part = loads(store.omitted(info["id"], a, b).text)
        back += list(part.items()) if isinstance(part, dict) else part
    if info.get("exact") is False:  # past 40 runs a range holds kept elements too: the record says which were dropped
        dropped = store.load(info["id"]).dropped
    assert len(back) == len(dropped), (key, len(back), len(dropped))
    if isinstance(container, dict):
        members = list(container.items())
        for index, member in zip(dropped, back):
            members.insert(index, member)
        assert len(members) == info["total"]
        restored = dict(members)
        if last is None:
            container.clear()
            container.update(restored)
        elif isinstance(holder, list):
            holder[int(last)] = restored
        else:
            holder[last] = restored
        return
    ids = info["id"]
    container[:] = [e for e in container if not _is_item_marker(e, ids)]
    for index, element in zip(dropped, back):
        container.insert(index, element)
    assert len(container) == info["total"]


def _is_item_marker(element, record_id):
    if not (isinstance(element, dict) and set(element) == {"type", "text"} and isinstance(element["text"], str)):
        return False
    m = ITEM_MARKER.match(element["text"])
    return bool(m and m.group(1) == record_id)


def _restore_strings(value, store):
    """Text pruned inside a string (a header, then markers) and JSON inside a string."""
    if isinstance(value, dict):
        return {k: _restore_strings(v, store) for k, v in value.items()}
    if isinstance(value, list):
        return [_restore_strings(v, store) for v in value]
    if isinstance(value, str):
        header = HEADER.match(value)
        if header:
            body = value[header.end() :]
            own = re.search(r"toolprune omitted (?:--spill-dir \S+ )?(\S+) <from> <to>】", header.group(0)).group(1)

            def back(m):  # only this text's own markers (a quoted marker example stays as it is)
                if m.group(1) != own:
                    return m.group(0)
                return store.omitted(m.group(1), int(m.group(2)), int(m.group(3))).text.decode()

            return TEXT_MARKER.sub(back, body)
        pruned = ('"_pruned"', "【toolprune: ", "\\u3010toolprune: ")  # its containers, or a long field's header
        if value.lstrip()[:1] in ("{", "[") and any(mark in value for mark in pruned):
            try:
                inner = loads(value)
            except ValueError:
                return value
            return ("json", normalize(restore_value(inner, store)))
    return value


def normalize(value):
    """Strings that hold JSON, parsed (to compare an original with a restored output)."""
    if isinstance(value, dict):
        return {k: normalize(v) for k, v in value.items()}
    if isinstance(value, list):
        return [normalize(v) for v in value]
    if isinstance(value, str) and value.lstrip()[:1] in ("{", "["):
        try:
            return ("json", normalize(loads(value)))
        except ValueError:
            return value
    if isinstance(value, tuple):
        return value
    return value

"""The System One wire format: the question asked about each unit, the request body, and what
is read back from a response (the scores, the model's name as a safe token, an error's
machine-readable code, a ``Retry-After``). No I/O here: :mod:`toolprune.scorers.systemone` sends.

The question text and criteria below are pinned verbatim by a test: one sentence more or less
moves the scores by 0.2–0.3, so change them only with a new measurement and a new
``QUESTION_VERSION`` (it is written in the ``-v`` line).
"""

from __future__ import annotations

import math
import re
import time

from toolprune.core.scorer import ScorerError

QUESTION_VERSION = "q1"
INSTRUCTIONS = "Is `paragraphs.{pid}` relevant to `request`: would someone answering or carrying out `request` use it?"
CRITERIA_TRUE = (
    "`paragraphs.{pid}` contains information, code, data, an error message or a step that a complete "
    "answer to `request` would use, quote or need to check."
)
CRITERIA_FALSE = (
    "`paragraphs.{pid}` is about something else: nothing in it would be used to answer `request`, so "
    "leaving it out loses nothing."
)


RESPONSE_BASE = 1 << 20
RESPONSE_PER_REQUEST_BYTE = 4
"""A response body may be at most 1 MiB plus 4 bytes per byte of the request (an answer to 16
questions is well under 10 kB; a server that echoes the request is still allowed). A longer body
is not read further and fails the call."""


def response_limit(request_bytes: int) -> int:
    return RESPONSE_BASE + RESPONSE_PER_REQUEST_BYTE * request_bytes


_TOKEN = re.compile(r"[A-Za-z0-9._:/@+-]{1,64}")
KEY_PIECE = 8
"""A server's string that shares this many consecutive characters with the key is never shown."""


def safe_token(value: object, key: str | None = None) -> str | None:
    """A server's string (the model's name) as it may be printed: up to 64 characters of
    ``[A-Za-z0-9._:/@+-]``, and nothing of the key; anything else is ``?``. None stays None."""
    if value is None:
        return None
    if not isinstance(value, str) or not _TOKEN.fullmatch(value):
        return "?"
    if key and any(key[i : i + KEY_PIECE] in value for i in range(max(1, len(key) - KEY_PIECE + 1))):
        return "?"
    return value


def unit_id(index: int) -> str:
    return f"p{index}"


def question(pid: str) -> dict:
    return {
        "type": "noul",
        "instructions": INSTRUCTIONS.format(pid=pid),
        "criteria": {"true": CRITERIA_TRUE.format(pid=pid), "false": CRITERIA_FALSE.format(pid=pid)},
    }


def encode(model: str, basis: str, units: dict[str, str]) -> bytes:
    """The request body for one batch (deterministic: same units, same bytes)."""
    import orjson

    return orjson.dumps(
        {
            "model": model,
            "state": {"request": basis, "paragraphs": units},
            "questions": {pid: question(pid) for pid in units},
        }
    )


class RemoteError(ScorerError):
    """A call failed; ``fatal`` when no other call can succeed either (a refused key, a wrong
    URL): the scorer then stops sending."""

    def __init__(self, message: str, fatal: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.fatal = fatal


class Answer:
    __slots__ = ("scores", "model", "tokens")

    def __init__(self, scores: dict[str, float | None], model: str | None, tokens: int | None) -> None:
        self.scores, self.model, self.tokens = scores, model, tokens


def decode(content: bytes) -> Answer:
    """Parse a System One response, tolerating the hosts' variants: Cloudflare's
    ``{"result": {...}, "success": true}`` envelope, OpenRouter's extra fields, probabilities
    rounded to 2 or 4 decimals, an answer given as a bare number. An answer that is missing or
    not a probability scores ``None`` (its unit is kept)."""
    import orjson

    try:
        body = orjson.loads(content)
    except orjson.JSONDecodeError:
        raise RemoteError("the response was not JSON") from None
    if isinstance(body, dict) and "answers" not in body and isinstance(body.get("result"), dict):
        if body.get("success") is False:
            raise RemoteError("the server answered success: false")
        body = body["result"]
    if not isinstance(body, dict) or not isinstance(body.get("answers"), dict):
        raise RemoteError("the response has no answers (is this a System One server?)")
    scores: dict[str, float | None] = {}
    for qid, answer in body["answers"].items():
        value = answer.get("noul") if isinstance(answer, dict) else answer
        scores[str(qid)] = _probability(value)
    model = safe_token(body["model"]) if "model" in body and body["model"] is not None else None
    return Answer(scores, model, _tokens(body.get("usage")))


def _probability(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    number = float(value)
    if not math.isfinite(number) or not -1e-6 <= number <= 1 + 1e-6:
        return None
    return min(1.0, max(0.0, number))


def _tokens(usage: object) -> int | None:
    if not isinstance(usage, dict):
        return None
    values = [usage.get(k) for k in ("input_tokens", "output_tokens")]
    counts = [c for c in values if isinstance(c, int) and not isinstance(c, bool) and c >= 0]
    return sum(counts) if counts else None


def error_code(content: bytes) -> tuple[str | None, int | None]:
    """The machine-readable parts of an error body: ``detail.error_type`` and Cloudflare's
    ``errors[].code``. Nothing else of the body is ever used."""
    import orjson

    try:
        body = orjson.loads(content)
    except orjson.JSONDecodeError:
        return None, None
    if not isinstance(body, dict):
        return None, None
    kind = None
    detail = body.get("detail")
    if isinstance(detail, dict) and isinstance(detail.get("error_type"), str):
        kind = detail["error_type"]
    elif isinstance(body.get("error"), dict) and isinstance(body["error"].get("type"), str):
        kind = body["error"]["type"]
    if kind is not None and not (kind.replace("_", "").isalnum() and kind.isascii() and len(kind) <= 40):
        kind = None  # only a code word, never free text
    code = None
    errors = body.get("errors")
    if isinstance(errors, list):
        for item in errors:
            if isinstance(item, dict) and isinstance(item.get("code"), int):
                code = item["code"]
                break
    return kind, code


def retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    from email.utils import parsedate_to_datetime

    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())

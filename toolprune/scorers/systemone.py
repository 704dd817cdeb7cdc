"""The remote scorer: any server speaking the System One API (TypeSafe's Jev, OpenRouter,
Cloudflare's Clef, a local Laya server, ...), over httpx (imported here only, and only when a
request is about to be sent).

One ``noul`` question per unit. The state holds the request and the batch's units; each
question names its unit (``paragraphs.p3``) because question ids are not shown to the model.
What is sent and read back is in :mod:`toolprune.scorers.wire`; this module sends it.

Errors never include response bodies or headers (a server may echo request headers, and so the
key); a body is read only to find a machine-readable error code, and only up to a size limit. The
one string of the server's that is shown, the model's name, is cut down to a safe token first.

Proxies: a server on this machine is always reached directly (the environment's ``HTTP_PROXY``,
``ALL_PROXY``, ... are ignored), so a proxy never sees the key or the paragraphs. For other
servers httpx honours the environment as usual: an https server is reached through
``HTTPS_PROXY`` by a ``CONNECT`` tunnel, so the proxy learns the host name and nothing else; a
key is never sent over plain http to a server that is not on this machine, proxied or not.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

from toolprune.core.scorer import Scorer, ScoringRequest
from toolprune.scorers.endpoints import Endpoint
from toolprune.scorers.wire import (
    QUESTION_VERSION,
    Answer,
    RemoteError,
    decode,
    encode,
    error_code,
    response_limit,
    retry_after,
    safe_token,
    unit_id,
)  # fmt: skip

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn

    import httpx  # imported for real only when a request is sent

REQUEST_TIMEOUT = 15.0  # seconds per HTTP request when there is no overall deadline
CONNECT_TIMEOUT = 5.0
RETRY_PAUSE = 0.5  # before the one retry, when the server does not say how long to wait
USER_AGENT = "toolprune"

FIX_KEY = "set TOOLPRUNE_API_KEY or run `toolprune config set-key`"


def _timeout() -> NoReturn:
    """The overall deadline passed while waiting for the server: the whole scoring is a timeout."""
    from toolprune.core.scorer import ScoringTimeout

    raise ScoringTimeout()


class TooLarge(Exception):
    """The server's token limit: split the batch and try the halves."""


class SystemOneScorer(Scorer):
    name = "systemone"
    sends_data = True
    concurrent = True

    def __init__(self, endpoint: Endpoint, key: str | None, key_problem: str | None = None) -> None:
        self.endpoint = endpoint
        self._key = key
        self._key_problem = key_problem
        self._client: httpx.Client | None = None
        self._lock = threading.Lock()
        self._fatal: RemoteError | None = None
        self.requests = 0
        self.tokens: int | None = None
        self.model: str | None = None

    def __repr__(self) -> str:  # never the key
        return f"SystemOneScorer({self.endpoint.url!r}, model={self.endpoint.model!r})"

    # -- the contract ------------------------------------------------------------------

    def score(self, request: ScoringRequest, batch: Sequence[int]) -> list[float | None]:
        if self._fatal is not None:
            raise self._fatal
        if self._key is None and (self.endpoint.needs_key or self._key_problem):
            self._stop(RemoteError(self._key_problem or f"no API key for {self.endpoint.origin}: {FIX_KEY}", True))
        try:
            return self._score(request, list(batch))
        except RemoteError as exc:
            if exc.fatal:
                self._stop(exc)
            raise

    def usage(self) -> dict:
        return {"calls": self.requests, "tokens": self.tokens, "model": self.model, "questions": QUESTION_VERSION}

    def close(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            client.close()

    # -- internals ---------------------------------------------------------------------

    def _stop(self, error: RemoteError) -> None:
        with self._lock:
            if self._fatal is None:
                self._fatal = error
        raise self._fatal

    def _score(self, request: ScoringRequest, batch: list[int]) -> list[float | None]:
        units = {unit_id(i): request.units[i] for i in batch}
        body = encode(self.endpoint.model, request.basis, units)
        try:
            answer = self._post(body, request.deadline)
        except TooLarge:
            if len(batch) == 1:
                return [None]  # one unit over the server's limit: kept
            half = len(batch) // 2
            return self._score(request, batch[:half]) + self._score(request, batch[half:])
        with self._lock:
            if answer.tokens is not None:
                self.tokens = (self.tokens or 0) + answer.tokens
            if answer.model and self.model is None:
                self.model = safe_token(answer.model, self._key)
        return [answer.scores.get(unit_id(i)) for i in batch]

    def _http(self) -> httpx.Client:
        with self._lock:
            if self._client is None:
                import httpx

                from toolprune import __version__
                from toolprune.scorers.endpoints import is_loopback

                url = httpx.URL(self.endpoint.url)  # checked again as httpx itself reads the URL
                local = self.endpoint.loopback and is_loopback(url.host)
                if self._key and not (url.scheme == "https" or local):
                    raise RemoteError(
                        f"refusing to send the API key over plain http to {self.endpoint.origin}: use https", True
                    )
                headers = {
                    "Content-Type": "application/json", "Accept-Encoding": "identity",
                    "User-Agent": f"{USER_AGENT}/{__version__}",
                }
                if self._key:
                    headers["Authorization"] = f"Bearer {self._key}"
                try:  # on this machine, never through a proxy from the environment
                    self._client = httpx.Client(headers=headers, follow_redirects=False, trust_env=not local)
                except (ImportError, ValueError) as exc:  # e.g. ALL_PROXY=socks5://… without socksio
                    raise RemoteError(
                        f"cannot use the proxy settings of the environment for {self.endpoint.origin} "
                        f"({type(exc).__name__}): check HTTPS_PROXY / ALL_PROXY", True,
                    ) from None
            return self._client

    def _read(self, response: httpx.Response, limit: int, deadline: float | None) -> bytes:
        """The body, at most ``limit`` bytes; a longer one fails the call unread."""
        declared = response.headers.get("Content-Length", "")
        if declared.isdigit() and int(declared) > limit:
            raise RemoteError(f"the response from {self.endpoint.origin} is too large ({int(declared):,} bytes)")
        parts: list[bytes] = []
        size = 0
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > limit:
                raise RemoteError(f"the response from {self.endpoint.origin} is too large (over {limit:,} bytes)")
            if deadline is not None and time.monotonic() > deadline:
                _timeout()
            parts.append(chunk)
        return b"".join(parts)

    def _post(self, body: bytes, deadline: float | None) -> Answer:
        import httpx

        client = self._http()
        origin = self.endpoint.origin
        for attempt in (1, 2):
            # a request may wait for its answer until the overall deadline (a server that never
            # answers is then a timeout, not a failed call)
            limit = REQUEST_TIMEOUT if deadline is None else deadline - time.monotonic()
            if limit <= 0:
                if deadline is not None:
                    _timeout()
                raise RemoteError(f"no time left before the deadline to ask {origin}")
            timeout = httpx.Timeout(limit, connect=min(CONNECT_TIMEOUT, limit))
            wait: float | None = None
            with self._lock:
                self.requests += 1
            try:
                with client.stream("POST", self.endpoint.url, content=body, timeout=timeout) as response:
                    status = response.status_code
                    content = self._read(response, response_limit(len(body)), deadline)
            except (httpx.ConnectError, httpx.ConnectTimeout, httpx.RemoteProtocolError) as exc:
                failure = RemoteError(f"cannot reach {origin} ({type(exc).__name__})")
                wait = RETRY_PAUSE
            except httpx.TimeoutException:
                if deadline is not None:
                    _timeout()
                raise RemoteError(f"no answer from {origin} within {limit:.3g} s") from None
            except httpx.HTTPError as exc:
                raise RemoteError(f"the request to {origin} failed ({type(exc).__name__})") from None
            else:
                if status == 200:
                    return decode(content)
                failure, wait = self._classify(status, response, content)
            if wait is None or attempt == 2:
                raise failure
            if deadline is not None and time.monotonic() + wait >= deadline:
                raise RemoteError(f"{failure.message}; no time for a retry before the deadline")
            time.sleep(wait)
        raise AssertionError("unreachable")

    def _classify(self, status: int, response: httpx.Response, content: bytes) -> tuple[RemoteError, float | None]:
        """The error for a non-200 answer, and how long to wait before the one retry (None: do
        not retry)."""
        origin, model = self.endpoint.origin, self.endpoint.model
        kind, code = error_code(content)
        if kind is not None and safe_token(kind, self._key) != kind:
            kind = None
        if status == 413 or kind == "max_tokens_exceeded":
            raise TooLarge()
        if status == 401:
            what = "refused the API key" if self._key else "needs an API key"
            return RemoteError(f"{origin} {what} (HTTP 401): {FIX_KEY}", fatal=True), None
        if status == 402:
            return RemoteError(
                f"{origin}: payment required (HTTP 402): the account behind the key has no credit", True
            ), None
        if status == 403:
            return RemoteError(
                f"{origin} refused access (HTTP 403): the API key is missing or may not use model {model}; {FIX_KEY}",
                fatal=True,
            ), None
        if status == 404:
            return RemoteError(
                f"nothing answers at {self.endpoint.url} for model {model} (HTTP 404): check --provider, "
                "--base-url, --path and --model", fatal=True,
            ), None
        if status == 422:
            return RemoteError(
                f"{origin} rejected the request as invalid (HTTP 422): check --model ({model}) and that the "
                "server speaks the System One API", fatal=True,
            ), None
        if status == 429:
            if code == 4006:
                return RemoteError(f"{origin}: the daily quota is used up (HTTP 429, code 4006)", fatal=True), None
            after = retry_after(response.headers.get("Retry-After"))
            return RemoteError(f"{origin} is rate limiting (HTTP 429)"), RETRY_PAUSE if after is None else after
        if status >= 500:
            after = retry_after(response.headers.get("Retry-After"))
            what = "is overloaded" if status == 529 else "failed"
            return RemoteError(f"{origin} {what} (HTTP {status})"), RETRY_PAUSE if after is None else after
        suffix = f", {kind}" if kind else ""
        return RemoteError(f"{origin} rejected the request (HTTP {status}{suffix})"), None

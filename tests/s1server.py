"""A small System One server for the tests: real HTTP on 127.0.0.1, with fault injection.

It answers ``POST {path}`` like Jev does (``{"model", "answers", "usage"}``), scoring a
paragraph 0.95 when it shares a word of four or more letters with the request and 0.02
otherwise, so results are deterministic. Every request is recorded (headers and body) so tests
can check what was sent — and what was not. Faults are scripted per request (``script``) or
are aimed at requests by their body (``rule``), or apply to every request (``delay``,
``max_questions``, ``cloudflare``).
"""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

WORD = re.compile(r"[a-z]{4,}")


def relevance(request: str, paragraph: str) -> float:
    return 0.95 if set(WORD.findall(request.lower())) & set(WORD.findall(paragraph.lower())) else 0.02


class Recorded:
    def __init__(self, path: str, headers: dict[str, str], body: bytes, at: float) -> None:
        self.path, self.headers, self.body, self.at = path, headers, body, at

    @property
    def json(self) -> dict:
        return json.loads(self.body)


class S1Server:
    def __init__(self, path: str = "/v1/systemone", model: str = "jev-1.13.0", key: str | None = None) -> None:
        self.route = path
        self.model = model
        self.key = key
        self.lock = threading.Lock()
        self.reset()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:  # quiet
                pass

            def do_GET(self) -> None:
                self._reply(404, {"detail": {"error_type": "not_found", "message": "no such route"}})

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                record = Recorded(self.path, {k.lower(): v for k, v in self.headers.items()}, body, time.monotonic())
                with server.lock:
                    server.requests.append(record)
                    action = server.script.pop(0) if server.script else None
                    delay = server.delay
                server.handle(self, record, action, delay)

            def _reply(self, status: int, payload, headers: dict | None = None, raw: bytes | None = None) -> None:
                data = raw if raw is not None else json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    # -- control ---------------------------------------------------------------------------

    def reset(self) -> None:
        with self.lock:
            self.requests: list[Recorded] = []
            self.script: list[tuple] = []
            self.delay: float | callable = 0.0
            self.max_questions: int | None = None
            self.cloudflare = False
            self.rule = None  # body -> action or None, for faults aimed at one batch
            self.key_required = self.key

    def hold(self) -> threading.Event:
        """Answer no request until the returned event is set (at most a minute): a server slower
        than anything the test waits for, without a sleep. Set it before the test ends."""
        release = threading.Event()
        self.delay = lambda body: 0.0 if release.wait(60) else 0.0
        return release

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def count(self) -> int:
        with self.lock:
            return len(self.requests)

    def start(self) -> S1Server:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    # -- behaviour ---------------------------------------------------------------------------

    def handle(self, handler, record: Recorded, action: tuple | None, delay) -> None:
        if record.path != self.route:
            return handler._reply(404, {"detail": {"error_type": "not_found", "message": "no such route"}})
        if self.key_required is not None:
            auth = record.headers.get("authorization")
            if auth is None:
                return handler._reply(403, {"detail": {"error_type": "authentication_error", "message": "missing key"}})
            if auth != f"Bearer {self.key_required}":
                return handler._reply(401, {"detail": {"error_type": "authentication_error", "message": "bad key"}})
        if action is None and self.rule is not None:
            try:
                action = self.rule(record.json)
            except ValueError:
                action = None
        if action is not None:
            kind = action[0]
            if kind == "status":  # ("status", code, headers, payload)
                _, code, headers, payload = action
                return handler._reply(code, payload, headers)
            if kind == "raw":  # ("raw", code, bytes)
                return handler._reply(action[1], None, raw=action[2])
            if kind == "sleep":  # ("sleep", seconds) then answer normally
                time.sleep(action[1])
        try:
            body = record.json
        except ValueError:
            return handler._reply(422, {"detail": [{"msg": "JSON decode error"}]})
        wait = delay(body) if callable(delay) else delay
        if wait:
            time.sleep(wait)
        questions = body.get("questions", {})
        if self.max_questions is not None and len(questions) > self.max_questions:
            return handler._reply(400, {"detail": {"error_type": "max_tokens_exceeded", "message": "too long"}})
        state = body.get("state", {})
        answers = {
            qid: {"type": "noul", "noul": relevance(state.get("request", ""), state.get("paragraphs", {}).get(qid, ""))}
            for qid in questions
        }
        payload = {"model": self.model, "answers": answers, "usage": {"input_tokens": 10 * len(answers), "output_tokens": len(answers)}}
        if self.cloudflare:
            payload = {"result": payload, "success": True, "errors": [], "messages": []}
        handler._reply(200, payload)

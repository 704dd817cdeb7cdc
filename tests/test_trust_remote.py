"""Where the key and the paragraphs may go, and what a config file or a server can make toolprune
do: the findings of the adversarial audit, each with real files, the CLI's entry point and real
HTTP servers on 127.0.0.1 (a recording proxy, a silent server, a flooding server, a hostile one).
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from conftest import cli, restore
from s1server import S1Server

from test_systemone import BASIS, DOC, KEY  # the same document and key as the remote scorer tests


def line(proc) -> dict[str, str]:
    """The -v line's fields (there is exactly one)."""
    found = re.findall(r"^toolprune: (outcome=.*)$", proc.stderr.decode(), re.M)
    assert len(found) == 1, proc.stderr.decode()
    return dict(pair.split("=", 1) for pair in found[0].split())


def passed_through_or_pruned(proc) -> None:
    """Piped input always comes out: exactly, or pruned and restorable."""
    assert proc.returncode == 0, proc.stderr.decode()
    assert b"Traceback" not in proc.stderr
    assert proc.stdout == DOC or restore(proc.stdout) == DOC




class _Loopback:
    """A real HTTP server on 127.0.0.1, serving ``handler`` on its own thread."""

    def serve(self, handler) -> None:
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return "http://127.0.0.1:%d" % self.httpd.server_address[1]

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class Recorder(_Loopback):
    """A real HTTP server on 127.0.0.1 that records every request (method, target, headers,
    body) and answers 502: stands in for a proxy or for a remote host that must not be reached."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str, dict[str, str], bytes]] = []
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:
                pass

            def _any(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                headers = {k.lower(): v for k, v in self.headers.items()}
                recorder.requests.append((self.command, self.path, headers, body))
                self.send_response(502)
                self.send_header("Content-Length", "0")
                self.send_header("Connection", "close")
                self.end_headers()

            do_GET = do_POST = do_CONNECT = do_PUT = _any

        self.serve(Handler)


@pytest.fixture
def proxy():
    recorder = Recorder()
    yield recorder
    recorder.stop()


def every_proxy(url: str) -> dict[str, str]:
    return {name: url for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")}


# --------------------------------------------------------------------------- 1. the plain-http guard


@pytest.mark.parametrize("base_url", ["HTTP://api.example.invalid", "http://127.attacker.invalid",
                                      "Http://localhost.attacker.invalid", "http://127.0.0.1.nip.invalid"])
def test_the_key_never_goes_over_plain_http_to_another_host(proxy, base_url):
    # the proxy sees whatever would have been sent in clear towards that host
    proc = cli("--scorer", "systemone", "--base-url", base_url, "--basis", BASIS, "-v", input=DOC,
               env={"TOOLPRUNE_API_KEY": KEY, **every_proxy(proxy.url)}, timeout=60)
    assert proc.returncode == 0 and proc.stdout == DOC
    assert line(proc)["outcome"] == "failed"
    assert "plain http" in proc.stderr.decode() and KEY not in proc.stderr.decode()
    assert proxy.requests == []


def test_only_real_loopback_addresses_count_as_this_machine():
    from toolprune.scorers.endpoints import is_loopback

    for host in ("127.0.0.1", "127.255.255.254", "127.1.2.3", "::1", "[::1]", "localhost", "LOCALHOST"):
        assert is_loopback(host), host
    for host in ("127.attacker.invalid", "127.0.0.1.nip.io", "localhost.attacker", "0.0.0.0", "128.0.0.1",
                 "2130706433", "127.1", "localhost.", "::2", "", "[::1].invalid"):
        assert not is_loopback(host), host


def test_an_upper_case_scheme_to_this_machine_still_works(server):
    proc = cli("--scorer", "systemone", "--base-url", server.url.replace("http://", "HTTP://"), "--basis", BASIS,
               "-v", input=DOC, env={"TOOLPRUNE_API_KEY": KEY})
    assert line(proc)["outcome"] == "ok" and server.count == 3
    assert {r.headers["authorization"] for r in server.requests} == {f"Bearer {KEY}"}


# --------------------------------------------------------------------------- 2. environment proxies


def test_a_scorer_on_this_machine_never_goes_through_a_proxy(server, proxy):
    proc = cli("--scorer", "systemone", "--provider", "local", "--base-url", server.url, "--basis", BASIS, "-v",
               input=DOC, env={"TOOLPRUNE_API_KEY": KEY, **every_proxy(proxy.url)}, timeout=60)
    assert line(proc)["outcome"] == "ok", proc.stderr.decode()
    assert server.count == 3 and proxy.requests == []


def test_https_to_a_remote_host_tunnels_through_https_proxy_without_the_key(proxy):
    # HTTPS_PROXY is honoured for https (CONNECT): the proxy learns the host name, never the key
    # or the paragraphs. The .invalid host is never contacted: the proxy answers 502.
    proc = cli("--scorer", "systemone", "--base-url", "https://scorer.example.invalid", "--basis", BASIS, "-v",
               input=DOC, env={"TOOLPRUNE_API_KEY": KEY, "HTTPS_PROXY": proxy.url}, timeout=60)
    assert proc.returncode == 0 and proc.stdout == DOC and line(proc)["outcome"] == "failed"
    assert proxy.requests and {r[0] for r in proxy.requests} == {"CONNECT"}
    assert {r[1] for r in proxy.requests} == {"scorer.example.invalid:443"}
    for _, _, headers, body in proxy.requests:
        assert KEY not in json.dumps(headers) and body == b""


# --------------------------------------------------------------------------- 3. who may write the config


def _remote_config(path, server) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"scorer": "systemone", "base_url": server.url}))
    path.chmod(0o600)


@pytest.mark.parametrize(("mode", "why"), [(0o666, "writable by others"), (0o620, "writable by others"),
                                          (0o602, "writable by others")])
def test_a_config_file_others_can_write_is_refused(server, isolated, mode, why):
    config_file = isolated / "config.json"
    _remote_config(config_file, server)
    config_file.chmod(mode)
    proc = cli("--basis", BASIS, "-v", input=DOC, env={"TOOLPRUNE_API_KEY": KEY})
    passed_through_or_pruned(proc)
    assert line(proc)["scorer"] == "lexical" and server.count == 0
    message = proc.stderr.decode()
    assert why in message and f"chmod 600 {config_file}" in message
    assert json.loads(cli("config", "show", "--json").stdout)["invalid"]


def test_another_users_config_file_is_refused(server, isolated):
    if os.getuid() != 0:
        pytest.skip("making a file of another user needs root")
    config_file = isolated / "config.json"
    _remote_config(config_file, server)
    os.chown(config_file, 65534, 65534)  # nobody's
    proc = cli("--basis", BASIS, "-v", input=DOC, env={"TOOLPRUNE_API_KEY": KEY})
    passed_through_or_pruned(proc)
    assert line(proc)["scorer"] == "lexical" and server.count == 0
    assert "belongs to another user" in proc.stderr.decode()


def test_a_symlinked_config_file_is_refused(server, isolated, tmp_path):
    real = tmp_path / "elsewhere" / "config.json"
    _remote_config(real, server)
    isolated.mkdir(parents=True, exist_ok=True)
    (isolated / "config.json").symlink_to(real)
    proc = cli("--basis", BASIS, "-v", input=DOC, env={"TOOLPRUNE_API_KEY": KEY})
    passed_through_or_pruned(proc)
    assert line(proc)["scorer"] == "lexical" and server.count == 0
    assert "symbolic link" in proc.stderr.decode()


def test_a_private_config_file_is_still_used(server, isolated):
    _remote_config(isolated / "config.json", server)
    (isolated / "config.json").chmod(0o644)  # readable by others is fine: it holds no secret
    proc = cli("--basis", BASIS, "-v", input=DOC)
    assert line(proc)["scorer"] == "systemone" and server.count == 3


# --------------------------------------------------------------------------- 4. the server's model string


def test_a_model_string_that_echoes_the_key_is_never_printed(isolated, tmp_path):
    hostile = S1Server(model=KEY).start()
    try:
        log = tmp_path / "log.txt"
        env = {"TOOLPRUNE_API_KEY": KEY, "TOOLPRUNE_LOG": str(log)}
        proc = cli("--scorer", "systemone", "--base-url", hostile.url, "--basis", BASIS, "-v", input=DOC, env=env)
        assert line(proc)["model"] == "?"
        probe = cli("scorer", "test", "--base-url", hostile.url, env=env)
        assert "model:     ? (asked for jev-1.13.0)" in probe.stdout.decode()
        for run in (proc, probe):
            assert KEY.encode() not in run.stdout + run.stderr
        assert KEY not in log.read_text()
    finally:
        hostile.stop()


@pytest.mark.parametrize("model", ["jev\ntoolprune: outcome=ok forged=1", "x" * 65, "jev 1.13", "jev\x1b[2J", "ジェブ"])
def test_a_model_string_is_one_safe_token(isolated, tmp_path, model):
    hostile = S1Server(model=model).start()
    try:
        log = tmp_path / "log.txt"
        proc = cli("--scorer", "systemone", "--base-url", hostile.url, "--basis", BASIS, "-v", input=DOC,
                   env={"TOOLPRUNE_LOG": str(log)})
        assert line(proc)["model"] == "?"  # line() also checks there is exactly one -v line
        assert len(log.read_text().splitlines()) == 1 and "forged" not in log.read_text()
        probe = cli("scorer", "test", "--base-url", hostile.url)
        assert "model:     ? (asked for" in probe.stdout.decode() and "forged" not in probe.stdout.decode()
    finally:
        hostile.stop()


def test_safe_model_strings_are_shown_as_they_are():
    from toolprune.scorers.wire import safe_token

    for model in ("jev-1.13.0", "typesafe/jev-1.13", "@cf/cloudflare/clef", "laya:7b+q4", "x" * 64):
        assert safe_token(model) == model
    assert safe_token(None) is None
    assert safe_token("jev-" + KEY[3:15], key=KEY) == "?"  # a piece of the key is the key


# --------------------------------------------------------------------------- 7, 13. config files the parser chokes on

CHOKES = {
    "infinity": '{"tail": Infinity}',
    "nan": '{"timeout": NaN}',
    "minus_infinity": '{"max_lines": -Infinity}',
    "huge_float": '{"max_chars": 1e400}',
    "huge_int": '{"tail": ' + "9" * 5000 + "}",
    "big_int": '{"max_chars": 1e300}',
    "fraction": '{"tail": 7.5}',
    "nan_string": '{"timeout": "nan"}',
    "inf_string": '{"timeout": "inf"}',
    "deep": "[" * 100_000 + "]" * 100_000,
    "deep_value": '{"model": ' + "[" * 5000 + "]" * 5000 + "}",
    "surrogate": '{"model": "\\ud800"}',
    "surrogate_key": '{"\\ud800": 1}',
    "nul": '{"model": "a\\u0000b"}',
    "newline": '{"spill_dir": "a\\nb"}',
    "large": json.dumps({"model": "m" * 200_000}),
    "not_utf8": b'{"model": "\xff"}',
}


@pytest.mark.parametrize("name", sorted(CHOKES))
def test_a_config_file_the_parser_chokes_on_is_ignored(server, isolated, tmp_path, name):
    content = CHOKES[name]
    isolated.mkdir(parents=True, exist_ok=True)
    config_file = isolated / "config.json"
    (config_file.write_bytes if isinstance(content, bytes) else config_file.write_text)(content)
    proc = cli("--scorer", "systemone", "--base-url", server.url, "--basis", BASIS, "-v", input=DOC, timeout=60,
               cwd=tmp_path)  # a relative spill_dir, if one were used, lands there
    passed_through_or_pruned(proc)
    assert "ignoring the config file" in proc.stderr.decode() and server.count == 0
    shown = cli("config", "show", "--json", timeout=60)
    assert shown.returncode == 0 and json.loads(shown.stdout)["invalid"], shown.stderr.decode()
    assert cli("config", "set", "tail", "3", timeout=60).returncode == 2
    assert config_file.read_bytes() == (content if isinstance(content, bytes) else content.encode())


@pytest.mark.parametrize("kind", ["symlink_to_dev_zero", "dev_zero", "fifo", "socket"])
def test_a_config_file_that_is_not_a_regular_file_never_hangs(isolated, tmp_path, kind):
    isolated.mkdir(parents=True, exist_ok=True)
    config_file = isolated / "config.json"
    env = {}
    held = None
    if kind == "symlink_to_dev_zero":
        config_file.symlink_to("/dev/zero")
    elif kind == "dev_zero":
        env["TOOLPRUNE_CONFIG"] = "/dev/zero"
    elif kind == "fifo":
        os.mkfifo(config_file)
    else:
        held = socket.socket(socket.AF_UNIX)
        held.bind(str(config_file))
    try:
        proc = cli("--basis", BASIS, "-v", input=DOC, env=env, timeout=30)
        passed_through_or_pruned(proc)
        assert "ignoring the config file" in proc.stderr.decode()
        shown = cli("config", "show", "--json", env=env, timeout=30)
        assert json.loads(shown.stdout)["invalid"]
    finally:
        if held is not None:
            held.close()


def test_a_fifo_as_the_key_file_never_hangs(server, isolated):
    isolated.mkdir(parents=True, exist_ok=True)
    os.mkfifo(isolated / "key")
    proc = cli("--scorer", "systemone", "--provider", "typesafe", "--base-url", server.url, "--basis", BASIS, "-v",
               input=DOC, timeout=30)
    assert proc.returncode == 0 and proc.stdout == DOC and line(proc)["outcome"] == "failed"
    assert "not a regular file" in proc.stderr.decode() and server.count == 0
    shown = cli("config", "show", "--json", timeout=30)
    assert "not a regular file" in json.loads(shown.stdout)["api_key"]["problem"]


@pytest.mark.parametrize("key", ["sk-caf\u00e9-123", "sk-a\x01b", "sk-a b"])
def test_a_key_that_cannot_be_a_header_is_named_not_sent(server, key):
    """A non-ASCII key was reported as a proxy problem, and one with a control character sent."""
    proc = cli("--scorer", "systemone", "--provider", "typesafe", "--base-url", server.url, "--basis", BASIS, "-v",
               input=DOC, env={"TOOLPRUNE_API_KEY": key}, timeout=30)  # fmt: skip
    err = proc.stderr.decode()
    assert proc.returncode == 0 and proc.stdout == DOC and line(proc)["outcome"] == "failed"
    assert "the API key from TOOLPRUNE_API_KEY has spaces, control or non-ASCII characters" in err
    assert "proxy" not in err and key not in err and server.count == 0


def test_timeout_values_are_checked():
    from toolprune.errors import UsageError
    from toolprune.settings import parse_timeout

    assert parse_timeout("20") == 20.0 and parse_timeout(0.5) == 0.5
    for bad in ("nan", "inf", "-1", "0", "-inf", "1e400", "soon", float("nan"), True):
        with pytest.raises(UsageError, match="timeout"):
            parse_timeout(bad)


# --------------------------------------------------------------------------- 14. a flood of a response


class Flood(_Loopback):
    """Answers every POST with 200 and a chunked body that never ends (up to ``total`` bytes),
    counting what it managed to send before the client hung up."""

    def __init__(self, total: int) -> None:
        self.sent = 0
        flood = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                chunk = b" " * (1 << 20)
                frame = b"%x\r\n" % len(chunk) + chunk + b"\r\n"
                try:
                    self.wfile.write(b'3\r\n{"a\r\n')
                    for _ in range(total >> 20):
                        self.wfile.write(frame)
                        flood.sent += len(chunk)
                    self.wfile.write(b"0\r\n\r\n")
                except OSError:
                    pass

        self.serve(Handler)


PEAK = (
    "import resource, subprocess, sys\n"
    "proc = subprocess.run([sys.executable, '-m', 'toolprune', *sys.argv[1:]], stdin=sys.stdin,\n"
    "                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)\n"
    "sys.stderr.buffer.write(proc.stderr)\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)\n"
)


def test_a_huge_response_body_is_cut_off_and_fails_the_call():
    flood = Flood(total=400 << 20)
    try:
        args = ["--scorer", "systemone", "--base-url", flood.url, "--basis", BASIS, "-v", "--timeout", "60"]
        proc = subprocess.run([sys.executable, "-c", PEAK, *args], input=DOC, capture_output=True, timeout=120)
        peak = int(proc.stdout)
        message = proc.stderr.decode()
        assert "outcome=failed" in message and "too large" in message, message
        assert flood.sent < 48 << 20, flood.sent  # the cap plus what the sockets buffer
        assert peak < 200 << 20, peak
    finally:
        flood.stop()


# --------------------------------------------------------------------------- 19. a server that never answers


def test_a_server_that_never_answers_is_a_timeout():
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                held.append(listener.accept()[0])  # read nothing, answer nothing
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    try:
        url = "http://127.0.0.1:%d" % listener.getsockname()[1]
        # longer than any single request used to be allowed (15 s): the deadline decides
        proc = cli("--scorer", "systemone", "--base-url", url, "--basis", BASIS, "-v", "--timeout", "16",
                   input=DOC, timeout=60)
        assert proc.returncode == 0 and proc.stdout == DOC
        assert line(proc)["outcome"] == "timeout", proc.stderr.decode()
        assert "did not finish within 16 s" in proc.stderr.decode()
    finally:
        listener.close()
        for conn in held:
            conn.close()


def test_an_error_code_that_echoes_the_key_is_never_printed(server):
    key = "abcdef0123456789SECRET"  # letters and digits only: it would pass for an error code
    server.script = [("status", 400, {}, {"detail": {"error_type": key}})] * 3
    proc = cli("--scorer", "systemone", "--base-url", server.url, "--basis", BASIS, "-v", input=DOC,
               env={"TOOLPRUNE_API_KEY": key})
    assert line(proc)["outcome"] == "failed" and "HTTP 400" in proc.stderr.decode()
    assert key.encode() not in proc.stdout + proc.stderr

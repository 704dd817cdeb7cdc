"""The remote scorer against System One servers nobody on the team wrote, on 127.0.0.1:
``jevcompat mock`` (a spec-exact reference server with a deterministic fake model) and
``laya-serve`` with its weight-free ``fake`` backend. Both come with the ``test`` extra; a test
is skipped only where its package is not installed.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time

import pytest
from conftest import cli, restore
from test_systemone import BASIS, DOC, KEY, line


def test_jevcompat_mock():
    mock = pytest.importorskip("jevcompat.mock")
    with mock.Running(mock.MockConfig()) as server:
        proc = cli("--scorer", "systemone", "--base-url", server.url, "--basis", BASIS, "-v", input=DOC)
    assert proc.returncode == 0, proc.stderr.decode()
    fields = line(proc)
    assert fields["model"] == "jevcompat-mock-0.1" and fields["calls"] == "3" and fields["tokens"] != "-"
    assert fields["outcome"] in ("ok", "nothing_dropped", "below_floor", "all_dropped")
    if fields["outcome"] == "ok":
        assert restore(proc.stdout) == DOC
    else:
        assert proc.stdout == DOC


def test_jevcompat_mock_with_a_key():
    mock = pytest.importorskip("jevcompat.mock")
    with mock.Running(mock.MockConfig(key=KEY)) as server:
        good = cli("--scorer", "systemone", "--base-url", server.url, "--basis", BASIS, "-v", input=DOC,
                   env={"TOOLPRUNE_API_KEY": KEY})
        bad = cli("--scorer", "systemone", "--base-url", server.url, "--basis", BASIS, "-v", input=DOC,
                  env={"TOOLPRUNE_API_KEY": "sk-wrong"})
        probe = cli("scorer", "test", "--base-url", server.url, env={"TOOLPRUNE_API_KEY": KEY})
    assert line(good)["model"] == "jevcompat-mock-0.1"
    assert line(bad)["outcome"] == "failed" and bad.stdout == DOC
    assert "HTTP 401" in bad.stderr.decode() and "config set-key" in bad.stderr.decode()
    assert probe.stdout.decode().startswith("endpoint:") and "jevcompat-mock-0.1" in probe.stdout.decode()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def laya():
    pytest.importorskip("laya_serve")
    port = _free_port()
    env = dict(os.environ, LAYA_SERVE_BACKEND="fake")
    server = subprocess.Popen(
        [sys.executable, "-m", "laya_serve.cli", "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        else:
            pytest.fail("laya-serve did not start")
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_laya_serve_fake_backend(laya):
    # the fake backend answers 0.5 to everything: nothing is below the threshold
    proc = cli("--scorer", "systemone", "--base-url", laya, "--basis", BASIS, "-v", input=DOC)
    assert proc.returncode == 0 and proc.stdout == DOC
    fields = line(proc)
    assert fields["outcome"] == "nothing_dropped" and fields["calls"] == "3"
    assert fields["model"] == "laya-english"
    probe = cli("scorer", "test", "--base-url", laya)
    assert probe.returncode == 1  # 0.5 and 0.5 do not tell the paragraphs apart
    assert re.search(r"relevant paragraph 0\.50, unrelated paragraph 0\.50", probe.stdout.decode())


def test_laya_serve_rejects_an_unknown_model_with_a_clear_message(laya):
    proc = cli("--scorer", "systemone", "--base-url", laya, "--model", "no-such-model", "--basis", BASIS, "-v",
               input=DOC)
    assert proc.stdout == DOC and line(proc)["outcome"] == "failed"
    assert "HTTP 422" in proc.stderr.decode() and "no-such-model" in proc.stderr.decode()

"""The remote scorer against real HTTP servers on 127.0.0.1 (issue 5).

The server is ``tests/s1server.py`` (fault injection, request log); the CLI runs through its
entry point, so the whole path — flags, config, httpx, threads, deadline, passthrough — is
tested (Ctrl-C, with a real process).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest
from conftest import cli, restore
from s1server import S1Server

from toolprune.scorers import wire
from toolprune.scorers.wire import RemoteError, decode

BASIS = "How do I set a timeout on subprocess run?"
RELEVANT = (
    "To put a timeout on subprocess.run, pass timeout=SECONDS; when it expires the child is killed and "
    "subprocess.TimeoutExpired is raised, carrying the command, the timeout and any output so far. Item {i}."
)
UNRELATED = (
    "Tomatoes grow best in full sun with regular watering; pinch off the side shoots and tie the main "
    "stem to a stake as the plant gets taller through the summer months here. Garden note {i}."
)
DOC = "\n\n".join((RELEVANT if i % 4 == 0 else UNRELATED).format(i=i) for i in range(40)).encode() + b"\n"
KEY = "sk-test-Zq8SECRETvalue"


def prune(server: S1Server, *flags: str, data: bytes = DOC, env: dict | None = None, **kw):
    args = ["--scorer", "systemone", "--base-url", server.url, "--basis", BASIS, "-v", *flags]
    return cli(*args, input=data, env=env, **kw)


def line(proc) -> dict[str, str]:
    """The -v line's fields."""
    text = proc.stderr.decode()
    found = re.search(r"^toolprune: (outcome=.*)$", text, re.M)
    assert found, text
    return dict(pair.split("=", 1) for pair in found.group(1).split())


def normalise(output: bytes) -> bytes:
    return re.sub(rb"P\d+", b"P#", output)


# --------------------------------------------------------------------------- wire format


def test_question_text_is_pinned_verbatim():
    # Wording moves scores by 0.2-0.3: change it only with a new measurement and a new version.
    assert wire.QUESTION_VERSION == "q1"
    assert wire.question("p3") == {
        "type": "noul",
        "instructions": "Is `paragraphs.p3` relevant to `request`: would someone answering or carrying out "
        "`request` use it?",
        "criteria": {
            "true": "`paragraphs.p3` contains information, code, data, an error message or a step that a "
            "complete answer to `request` would use, quote or need to check.",
            "false": "`paragraphs.p3` is about something else: nothing in it would be used to answer "
            "`request`, so leaving it out loses nothing.",
        },
    }


def test_request_shape_and_pruned_result(server):
    proc = prune(server, env={"TOOLPRUNE_API_KEY": KEY})
    assert proc.returncode == 0, proc.stderr.decode()
    fields = line(proc)
    assert fields["outcome"] == "ok" and fields["scorer"] == "systemone"
    assert fields["model"] == "jev-1.13.0" and fields["questions"] == "q1"
    assert fields["calls"] == "3" == str(server.count)  # 40 units in batches of 16: 16 + 16 + 8
    assert fields["tokens"] == str(sum(11 * len(r.json["questions"]) for r in server.requests))
    sent = sorted(server.requests, key=lambda r: int(min(r.json["questions"], key=lambda q: int(q[1:]))[1:]))
    assert [len(r.json["questions"]) for r in sent] == [16, 16, 8]
    units = DOC.decode().rstrip("\n").split("\n\n")
    for request in sent:
        assert request.path == "/v1/systemone"
        assert request.headers["authorization"] == f"Bearer {KEY}"
        assert request.headers["content-type"] == "application/json"
        body = request.json
        assert set(body) == {"model", "state", "questions"}
        assert body["model"] == "jev-1.13.0"
        assert body["state"]["request"] == BASIS
        assert list(body["state"]["paragraphs"]) == list(body["questions"])
        for pid, text in body["state"]["paragraphs"].items():
            assert text == units[int(pid[1:])]  # the unit, verbatim, under its own number
            assert body["questions"][pid] == wire.question(pid)
    # every relevant paragraph kept, every unrelated one dropped, and all of it recoverable
    out = proc.stdout.decode()
    assert out.count("Item ") == 10 and "Garden note" not in out
    assert restore(proc.stdout) == DOC


def test_only_the_first_2000_chars_of_the_basis_are_sent(server):
    basis = BASIS + " " + "x" * 5000
    proc = cli("--scorer", "systemone", "--base-url", server.url, "--basis", basis, input=DOC)
    assert proc.returncode == 0
    assert {r.json["state"]["request"] for r in server.requests} == {basis[:2000]}


def test_answers_map_to_their_units_when_batches_complete_out_of_order(server):
    expected = normalise(prune(server).stdout)
    server.reset()
    # the first batch answers last, the last batch first
    server.delay = lambda body: 0.6 if "p0" in body["questions"] else (0.3 if "p16" in body["questions"] else 0.0)
    proc = prune(server)
    arrival = [min(int(q[1:]) for q in r.json["questions"]) for r in server.requests]
    assert sorted(arrival) == [0, 16, 32]
    assert line(proc)["outcome"] == "ok"
    assert normalise(proc.stdout) == expected


# --------------------------------------------------------------------------- the fault matrix


def test_429_with_retry_after_is_retried_after_the_wait(server):
    server.script = [("status", 429, {"Retry-After": "1"}, {"detail": {"error_type": "rate_limited"}})]
    proc = prune(server, "--timeout", "10")
    fields = line(proc)
    assert fields["outcome"] == "ok" and fields["calls"] == "4"
    first, *rest = server.requests
    retry = [r for r in rest if r.body == first.body]
    assert len(retry) == 1 and retry[0].at - first.at >= 0.95


def test_retry_after_past_the_deadline_is_not_waited_for(server):
    server.script = [("status", 429, {"Retry-After": "30"}, {})] * 3
    proc = prune(server, "--timeout", "3")
    assert server.count == 3  # one call per batch, none retried
    assert line(proc)["outcome"] == "failed"
    assert proc.stdout == DOC
    assert "HTTP 429" in proc.stderr.decode() and "no time for a retry" in proc.stderr.decode()


@pytest.mark.parametrize("status", [500, 502, 529])
def test_5xx_then_success(server, status):
    server.script = [("status", status, {}, {"detail": {"error_type": "overloaded"}})]
    proc = prune(server)
    fields = line(proc)
    assert fields["outcome"] == "ok" and fields["calls"] == "4" and server.count == 4


def test_every_call_failing_twice_is_failed_and_passes_through(server):
    server.script = [("status", 503, {}, {})] * 6
    proc = prune(server)
    assert proc.returncode == 0 and proc.stdout == DOC
    fields = line(proc)
    assert fields["outcome"] == "failed" and fields["calls"] == "6" == str(server.count)  # one retry each
    assert "every scoring call failed" in proc.stderr.decode() and "HTTP 503" in proc.stderr.decode()


def test_a_failed_batch_keeps_its_units_and_the_others_prune(server):
    server.rule = lambda body: ("status", 500, {}, {}) if "p0" in body["questions"] else None
    proc = prune(server, "--threshold", "0.5")
    fields = line(proc)
    assert fields["outcome"] == "ok", proc.stderr.decode()
    out = proc.stdout.decode()
    assert "Garden note 1." in out and "Garden note 15." in out  # batch 0 (units 0-15): kept
    assert "Garden note 17." not in out  # batch 1: scored and dropped
    assert restore(proc.stdout) == DOC


@pytest.mark.parametrize(
    ("key", "status", "fix"),
    [
        ("wrong-key", 401, "refused the API key (HTTP 401)"),
        (None, 403, "refused access (HTTP 403)"),
    ],
)
def test_auth_errors_are_not_retried_and_name_the_fix(s1, key, status, fix):
    guarded = S1Server(key=KEY).start()
    try:
        env = {"TOOLPRUNE_API_KEY": key} if key else {}
        proc = prune(guarded, env=env)
        assert proc.returncode == 0 and proc.stdout == DOC
        assert line(proc)["outcome"] == "failed"
        assert guarded.count <= 3  # at most the batches already in flight; never a retry
        assert len({r.body for r in guarded.requests}) == guarded.count
        message = proc.stderr.decode()
        assert fix in message and "config set-key" in message
        assert KEY not in message
    finally:
        guarded.stop()


def test_422_is_not_retried_and_names_the_model(server):
    server.script = [("status", 422, {}, {"detail": [{"msg": "bad"}]})] * 3
    proc = prune(server, "--model", "jev-9")
    assert line(proc)["outcome"] == "failed" and proc.stdout == DOC
    assert server.count <= 3 and len({r.body for r in server.requests}) == server.count
    assert "HTTP 422" in proc.stderr.decode() and "jev-9" in proc.stderr.decode()


def test_a_server_slower_than_the_deadline_is_a_timeout_within_the_deadline(server):
    release = server.hold()  # no answer for a minute: waiting for one would give outcome=ok
    try:
        proc = prune(server, "--timeout", "1")
    finally:
        release.set()
    assert server.count > 0
    assert proc.returncode == 0 and proc.stdout == DOC
    fields = line(proc)
    assert fields["outcome"] == "timeout"
    assert "did not finish within 1 s" in proc.stderr.decode()


def test_malformed_json_fails_open(server):
    server.script = [("raw", 200, b"<html>not json")] * 3
    proc = prune(server)
    assert line(proc)["outcome"] == "failed" and proc.stdout == DOC
    assert "not JSON" in proc.stderr.decode() and "<html>" not in proc.stderr.decode()


def test_error_bodies_are_never_shown(server):
    echo = {"detail": {"error_type": "bad_request", "message": f"you sent Authorization: Bearer {KEY}"}}
    server.script = [("status", 400, {"X-Echo": KEY}, echo)] * 3
    proc = prune(server, "--debug", env={"TOOLPRUNE_API_KEY": KEY})
    assert line(proc)["outcome"] == "failed"
    assert KEY.encode() not in proc.stderr and b"you sent" not in proc.stderr
    assert "HTTP 400, bad_request" in proc.stderr.decode()


def test_cloudflare_envelope(server):
    expected = normalise(prune(server).stdout)
    server.reset()
    server.cloudflare = True
    proc = prune(server)
    assert line(proc)["outcome"] == "ok"
    assert normalise(proc.stdout) == expected


def test_cloudflare_daily_quota_is_not_retried(server):
    quota = {"result": None, "success": False, "errors": [{"code": 4006, "message": "daily"}]}
    server.script = [("status", 429, {"Retry-After": "0"}, quota)] * 3
    proc = prune(server)
    assert line(proc)["outcome"] == "failed"
    assert server.count <= 3 and len({r.body for r in server.requests}) == server.count
    assert "daily quota" in proc.stderr.decode()


def test_max_tokens_exceeded_splits_the_batch(server):
    expected = normalise(prune(server).stdout)
    server.reset()
    server.max_questions = 5
    proc = prune(server)
    fields = line(proc)
    assert fields["outcome"] == "ok"
    assert normalise(proc.stdout) == expected
    answered = [r for r in server.requests if len(r.json["questions"]) <= 5]
    assert sorted(q for r in answered for q in r.json["questions"]) == sorted(f"p{i}" for i in range(40))
    assert int(fields["calls"]) == server.count > 3


def test_ctrl_c_while_scoring_passes_the_input_through(server):
    release = server.hold()
    env = dict(os.environ)
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "toolprune", "--scorer", "systemone", "--base-url", server.url, "--basis", BASIS,
             "--timeout", "120"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
        )
        proc.stdin.write(DOC)
        proc.stdin.close()
        while server.count == 0:  # it is scoring: its first request has arrived
            assert proc.poll() is None
            time.sleep(0.01)
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)  # ended by the signal: no answer comes for a minute, the deadline is 2 minutes away
    finally:
        release.set()
    out, err = proc.stdout.read(), proc.stderr.read()
    assert out == DOC
    assert proc.returncode == 130 and b"interrupted" in err


def test_connection_refused_fails_open_after_one_retry(server):
    proc = cli("--scorer", "systemone", "--base-url", "http://127.0.0.1:9", "--basis", BASIS, "-v", input=DOC)
    assert proc.returncode == 0 and proc.stdout == DOC
    fields = line(proc)
    assert fields["outcome"] == "failed" and fields["calls"] == "6"
    assert "cannot reach http://127.0.0.1:9" in proc.stderr.decode()


# --------------------------------------------------------------------------- privacy

SIX_K = ("word " * 1500).strip()


@pytest.mark.parametrize(
    ("name", "data", "basis"),
    [
        ("small", b"tiny output about subprocess timeout\n", BASIS),
        ("not_text", DOC + b"\xff\xfe", BASIS),
        ("no_basis", DOC, "ok"),
        # names without digits: a settings object, not a map of records (those are pruned)
        ("structured", json.dumps({"timeout_" + "".join(chr(97 + i // 26**k % 26) for k in range(3)): i
                                   for i in range(800)}).encode(), BASIS),  # fmt: skip
        ("nothing_dropped", (SIX_K + "x" * 1000 + "\n").encode(), BASIS),  # one unit over 6,000 chars
    ],
)
def test_nothing_is_sent_when_a_local_gate_decides(server, name, data, basis):
    proc = cli("--scorer", "systemone", "--base-url", server.url, "--basis", basis, "-v", input=data,
               env={"TOOLPRUNE_API_KEY": KEY})
    assert proc.returncode == 0 and proc.stdout == data
    if name != "small":
        assert line(proc)["outcome"] == name
    assert server.count == 0


def test_a_preset_without_a_key_sends_nothing(server, tmp_path):
    # the typesafe preset, pointed at the local server, needs a key: none → nothing sent
    proc = prune(server, "--provider", "typesafe")
    assert proc.stdout == DOC and line(proc)["outcome"] == "failed"
    assert "no API key" in proc.stderr.decode() and "config set-key" in proc.stderr.decode()
    assert server.count == 0


def test_the_key_never_appears_in_output_logs_or_errors(server, tmp_path):
    log = tmp_path / "log.txt"
    env = {"TOOLPRUNE_API_KEY": KEY, "TOOLPRUNE_LOG": str(log)}
    runs = [prune(server, "--explain", "--debug", env=env)]
    server.script = [("status", 401, {}, {"detail": {"error_type": "authentication_error"}})] * 3
    runs.append(prune(server, "--debug", env=env))
    runs.append(cli("config", "show", env=env))
    runs.append(cli("config", "show", "--json", env=env))
    runs.append(cli("scorer", "test", "--base-url", server.url, env=env))
    for proc in runs:
        assert KEY.encode() not in proc.stdout + proc.stderr
    assert KEY not in log.read_text()
    assert "api key: set (from TOOLPRUNE_API_KEY; never shown)" in runs[2].stdout.decode()


def test_plain_http_with_a_key_to_another_host_is_refused(server):
    proc = cli("--scorer", "systemone", "--base-url", "http://toolprune.invalid", "--basis", BASIS, input=DOC,
               env={"TOOLPRUNE_API_KEY": KEY})
    assert proc.returncode == 0 and proc.stdout == DOC  # fail open, loudly
    assert "plain http" in proc.stderr.decode() and KEY not in proc.stderr.decode()


def test_a_remote_scorer_without_a_server_passes_through_with_the_fix():
    proc = cli("--scorer", "systemone", "--basis", BASIS, "-v", input=DOC)
    assert proc.returncode == 0 and proc.stdout == DOC
    assert line(proc)["outcome"] == "failed" and "--provider" in proc.stderr.decode()
    typo = cli("--scorer", "systemone", "--provider", "typesafee", "--basis", BASIS, input=DOC)
    assert typo.returncode == 2 and "unknown --provider" in typo.stderr.decode()  # the command line itself


@pytest.mark.parametrize("flags, message", [
    (["--provider", "typesafee"], "unknown --provider 'typesafee'"),
    (["--base-url", "ftp://scorer.example"], "invalid --base-url 'ftp://scorer.example'"),
    (["--base-url", "http://127.0.0.1:9", "--path", "/v1/system one"], "must not contain spaces"),
])
def test_a_misspelt_server_setting_is_a_usage_error_whichever_scorer_is_chosen(flags, message):
    # the default scorer does not read them, but a typo there would otherwise stay silent until
    # the remote scorer is switched on; the piped input still passes through untouched
    for scorer in ([], ["--scorer", "lexical"]):
        proc = cli(*scorer, *flags, "--basis", BASIS, input=DOC)
        assert proc.returncode == 2 and proc.stdout == DOC
        assert message in proc.stderr.decode() and "Traceback" not in proc.stderr.decode()
    run = cli("run", *flags, "--basis", BASIS, "--", sys.executable, "-c", "print('ran')")
    assert run.returncode == 2 and b"ran" not in run.stdout and message in run.stderr.decode()
    # a well-formed one is accepted where it is not used
    assert cli("--provider", "local", "--basis", BASIS, input=DOC).returncode == 0


@pytest.mark.parametrize("flags", [
    ["--provider", "typesafe", "--path", "@toolprune.invalid/v1"],  # would send the key to another host
    ["--base-url", "https://api.example.com", "--path", "v1/systemone"],
    ["--path", "/v1/a b"],  # no server named yet: checked all the same
    ["--provider", "cloudflare", "--path", "/run?x=1"],  # before the account id is asked for
])
def test_an_api_path_must_start_with_a_slash_and_hold_nothing_else(flags, isolated):
    for scorer in ("lexical", "systemone"):
        proc = cli("--scorer", scorer, *flags, "--basis", BASIS, input=DOC, env={"TOOLPRUNE_API_KEY": KEY})
        assert proc.returncode == 2 and proc.stdout == DOC
        assert "invalid --path" in proc.stderr.decode()


@pytest.mark.parametrize("key, value", [("base_url", "http://host:abc"), ("base_url", "http://[::1"),
                                        ("path", "/v1/a b"), ("path", "@evil.example/v1")])
def test_the_config_file_is_checked_as_the_command_line_is(key, value, isolated):
    """What `config set` accepts never stops a run, and a file written by hand with such a value
    is ignored as invalid (one line why), not a usage error of every prune."""
    refused = cli("config", "set", key, value)
    assert refused.returncode == 2 and not (isolated / "config.json").exists()
    isolated.mkdir(parents=True, exist_ok=True)
    (isolated / "config.json").write_text(json.dumps({key: value}))
    (isolated / "config.json").chmod(0o600)
    proc = cli("--basis", BASIS, input=DOC)
    assert proc.returncode == 0 and "ignoring the config file" in proc.stderr.decode()


# --------------------------------------------------------------------------- configuration


def test_config_file_selects_the_remote_scorer(server):
    assert cli("config", "set", "scorer", "systemone").returncode == 0
    assert cli("config", "set", "base_url", server.url).returncode == 0
    proc = cli("--basis", BASIS, "-v", input=DOC)
    assert line(proc)["scorer"] == "systemone" and server.count == 3
    # the environment beats the config file, a flag beats both
    server.reset()
    assert line(cli("--basis", BASIS, "-v", input=DOC, env={"TOOLPRUNE_SCORER": "lexical"}))["scorer"] == "lexical"
    assert line(cli("--basis", BASIS, "-v", "--scorer", "lexical", input=DOC))["scorer"] == "lexical"
    assert server.count == 0


def test_an_invalid_config_file_disables_the_remote_scorer(server, isolated):
    isolated.mkdir(parents=True, exist_ok=True)
    config_file = isolated / "config.json"
    config_file.write_text('{"scorer": "systemone", "base_url": "' + server.url + '",}')
    proc = cli("--scorer", "systemone", "--base-url", server.url, "--basis", BASIS, "-v", input=DOC)
    assert proc.returncode == 0
    assert line(proc)["scorer"] == "lexical" and server.count == 0
    assert "ignoring the config file" in proc.stderr.decode() and "remote scorer is disabled" in proc.stderr.decode()
    before = config_file.read_bytes()
    refused = cli("config", "set", "threshold", "strong")
    assert refused.returncode == 2 and "does not overwrite" in refused.stderr.decode()
    assert config_file.read_bytes() == before


def test_an_unreadable_config_file_disables_the_remote_scorer(server, isolated):
    isolated.mkdir(parents=True, exist_ok=True)
    (isolated / "config.json").mkdir()  # reading a directory fails, as root too
    proc = cli("--scorer", "systemone", "--base-url", server.url, "--basis", BASIS, "-v", input=DOC)
    assert line(proc)["scorer"] == "lexical" and server.count == 0
    assert "cannot read it" in proc.stderr.decode()


@pytest.mark.parametrize(
    "content",
    ['{"api_key": "sk-1"}', '{"threshold": "fierce"}', '{"colour": "red"}', "[1]", '{"base_url": "ftp://x"}'],
)
def test_config_files_that_do_not_validate(isolated, content):
    isolated.mkdir(parents=True, exist_ok=True)
    (isolated / "config.json").write_text(content)
    shown = cli("config", "show", "--json")
    assert json.loads(shown.stdout)["invalid"]
    assert "sk-1" not in shown.stdout.decode()


def test_config_set_get_unset_and_key_file(isolated):
    assert cli("config", "set", "tail", "7").returncode == 0
    assert cli("config", "get", "tail").stdout == b"7\n"
    assert json.loads((isolated / "config.json").read_text()) == {"tail": 7}
    assert cli("config", "get", "model").returncode == 1
    bad = cli("config", "set", "tail", "--", "-3")
    assert bad.returncode == 2 and "invalid tail" in bad.stderr.decode()
    assert cli("config", "set", "api_key", "sk-1").returncode == 2
    assert cli("config", "unset", "tail").returncode == 0
    assert json.loads((isolated / "config.json").read_text()) == {}
    saved = cli("config", "set-key", input=KEY.encode() + b"\n")
    assert saved.returncode == 0 and KEY.encode() not in saved.stderr
    key_file = isolated / "key"
    assert key_file.read_text() == KEY + "\n" and key_file.stat().st_mode & 0o777 == 0o600
    assert (isolated / "config.json").stat().st_mode & 0o777 == 0o600


def test_the_key_file_is_used_and_a_loose_one_is_refused(server, isolated):
    cli("config", "set-key", input=KEY.encode(), check=True)
    proc = prune(server)
    assert line(proc)["outcome"] == "ok"
    assert {r.headers["authorization"] for r in server.requests} == {f"Bearer {KEY}"}
    server.reset()
    os.chmod(isolated / "key", 0o644)
    proc = prune(server, "--provider", "typesafe")
    assert line(proc)["outcome"] == "failed" and server.count == 0
    assert "readable by others" in proc.stderr.decode()


def test_scorer_test_reports_model_latency_and_scores(server):
    proc = cli("scorer", "test", "--base-url", server.url)
    assert proc.returncode == 0, proc.stderr.decode()
    out = proc.stdout.decode()
    assert "model:     jev-1.13.0" in out and "latency:" in out
    assert "relevant paragraph 0.95, unrelated paragraph 0.02" in out
    assert server.count == 1


def test_scorer_test_fails_with_the_reason(server):
    server.script = [("status", 401, {}, {})]
    proc = cli("scorer", "test", "--base-url", server.url)
    assert proc.returncode == 1 and "HTTP 401" in proc.stderr.decode()


# --------------------------------------------------------------------------- units


def test_decode_tolerates_the_hosts_variants():
    plain = decode(b'{"model": "jev-1.13.0", "answers": {"p0": {"type": "noul", "noul": 0.93}}, '
                   b'"usage": {"input_tokens": 812, "output_tokens": 40}}')
    assert (plain.scores, plain.model, plain.tokens) == ({"p0": 0.93}, "jev-1.13.0", 852)
    wrapped = decode(b'{"result": {"model": "clef", "answers": {"p0": {"type": "noul", "noul": 0.1234}}}, '
                     b'"success": true, "errors": []}')
    assert wrapped.scores == {"p0": 0.1234} and wrapped.tokens is None
    openrouter = decode(b'{"id": "gen-1", "provider": "TypeSafe", "model": "typesafe/jev-1.13", '
                        b'"answers": {"p0": {"type": "noul", "noul": 1}, "p1": 0.5, "p2": {"noul": true}, '
                        b'"p3": {"noul": 1.7}, "p4": {"noul": "0.3"}}, "usage": {"input_tokens": 5, "cost": 1e-7}}')
    assert openrouter.scores == {"p0": 1.0, "p1": 0.5, "p2": None, "p3": None, "p4": None}
    for bad in (b"nope", b"[]", b'{"model": "x"}', b'{"result": {}, "success": false}'):
        with pytest.raises(RemoteError):
            decode(bad)


def test_presets_resolve_to_their_hosts(monkeypatch):
    from toolprune.errors import ScorerUnavailable, UsageError
    from toolprune.scorers.endpoints import resolve

    assert resolve("typesafe", None, None, None).url == "https://api.typesafe.ai/v1/systemone"
    router = resolve("openrouter", None, None, None)
    assert (router.url, router.model) == ("https://openrouter.ai/api/alpha/decisions", "typesafe/jev-1.13")
    assert resolve("local", None, None, None).url == "http://127.0.0.1:8000/v1/systemone"
    with pytest.raises(ScorerUnavailable, match="CLOUDFLARE_ACCOUNT_ID"):
        resolve("cloudflare", None, None, None)
    monkeypatch.setenv("CLOUDFLARE_ACCOUNT_ID", "abc123")
    flare = resolve("cloudflare", None, None, None)
    assert flare.url == "https://api.cloudflare.com/client/v4/accounts/abc123/ai/run/@cf/cloudflare/clef"
    assert resolve(None, "https://h.example/v1/systemone", None, None).url == "https://h.example/v1/systemone"
    assert resolve(None, "https://h.example/", None, "m").url == "https://h.example/v1/systemone"
    with pytest.raises(ScorerUnavailable):
        resolve(None, None, None, None)
    with pytest.raises(UsageError):
        resolve("acme", None, None, None)


# --------------------------------------------------------------------------- progress


def _run_with_stderr_on_a_terminal(args: list[str], data: bytes) -> tuple[bytes, str]:
    import pty

    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "toolprune", *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=follower, env=dict(os.environ, TERM="xterm", COLUMNS="100"),
    )
    os.close(follower)
    seen: list[bytes] = []

    def drain() -> None:  # read while the child writes, so a full terminal buffer never blocks it
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                return
            if not chunk:
                return
            seen.append(chunk)

    import threading

    reader = threading.Thread(target=drain)
    reader.start()
    out, _ = proc.communicate(data, timeout=30)
    reader.join(timeout=5)
    os.close(leader)
    return out, b"".join(seen).decode("utf-8", "replace")


def test_a_progress_bar_on_a_terminal_when_scoring_is_slow(server):
    server.delay = lambda body: 0.0 if "p0" in body["questions"] else 1.6
    args = ["--scorer", "systemone", "--base-url", server.url, "--basis", BASIS]
    out, terminal = _run_with_stderr_on_a_terminal(args, DOC)
    assert out.startswith("【toolprune".encode())
    assert "toolprune: scoring" in terminal and "/3" in terminal
    # not on a pipe, and not when scoring is quick
    server.delay = 1.6
    assert b"scoring" not in prune(server).stderr
    server.delay = 0.0
    _, quick = _run_with_stderr_on_a_terminal(args, DOC)
    assert "toolprune: scoring" not in quick


def test_the_bar_counts_from_the_start_of_scoring_not_of_the_command(monkeypatch):
    """A slow read of the input, or a busy machine before scoring, shows no bar for a quick
    scoring (the clock once started with the command, and a loaded test run saw a bar)."""
    import io
    import types

    from toolprune.cli import progress

    clock = [100.0]
    monkeypatch.setattr(progress, "time", types.SimpleNamespace(monotonic=lambda: clock[0]))
    bar = progress.ScoringProgress(io.StringIO())
    clock[0] += 5.0  # before scoring starts
    bar(0, 3)
    clock[0] += 0.5
    bar(1, 3)
    assert bar._shown is None
    clock[0] += 1.0  # 1.5 s of scoring
    bar(2, 3)
    assert bar._shown is not None
    bar.close()


def test_an_unreadable_key_file_sends_nothing(server, isolated):
    (isolated / "key").mkdir(parents=True)  # a directory where the key file should be
    proc = prune(server, "--provider", "typesafe")
    assert proc.stdout == DOC and line(proc)["outcome"] == "failed" and server.count == 0
    assert "cannot read the key file" in proc.stderr.decode()


def test_config_messages_say_it_once_and_name_the_default(isolated):
    bad = cli("config", "set", "threshold", "7")
    assert bad.returncode == 2 and bad.stderr.decode().count("invalid threshold") == 1
    unset = cli("config", "get", "threshold")
    assert unset.returncode == 1 and b"threshold is not set" in unset.stderr and b"the default is standard" in unset.stderr
    shown = cli("config", "show").stdout.decode()
    assert "threshold  standard  (default)" in shown and "tail       20  (default)" in shown
    assert f"spill_dir  {isolated / 'spill'}  (default)" in shown and "provider   -  (not set)" in shown
    report = json.loads(cli("config", "show", "--json").stdout)
    assert report["settings"]["threshold"] == {"value": None, "source": "default", "default": "standard", "problem": None}

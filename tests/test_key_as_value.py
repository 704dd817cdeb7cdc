"""An API key pasted as another setting's value (``config set model "$KEY"``, a key in
``TOOLPRUNE_THRESHOLD``) is never stored in the config file and never printed: error messages
quote bad values back, and ``config show`` lists every value, so each of them hides a known key
(the variables' and the key file's) as ``[API key]``, also when a message cuts it short."""

from __future__ import annotations

import json

import pytest
from conftest import cli

KEY = "sk-LEAKCANARY-9f8e7d6c5b4a3210"
DOC = b"The timeout is set in the config file.\n\nSomething else entirely.\n"


def printed(proc) -> bytes:
    return proc.stdout + proc.stderr


@pytest.mark.parametrize("where", ["variable", "key file"])
def test_config_set_refuses_a_value_that_holds_the_key(where, isolated):
    env = {"TOOLPRUNE_API_KEY": KEY} if where == "variable" else {}
    if where == "key file":
        assert cli("config", "set-key", input=KEY.encode() + b"\n").returncode == 0
    for value in (KEY, f"model-{KEY}-x"):
        proc = cli("config", "set", "model", value, env=env)
        assert proc.returncode == 2 and b"holds your API key" in proc.stderr
        assert KEY[:8].encode() not in printed(proc)
    assert not (isolated / "config.json").exists()
    assert cli("config", "set", "model", "gpt-5-mini", env=env).returncode == 0  # other values go in


def test_a_bad_value_from_the_environment_is_named_without_the_key():
    for name, value in (("TOOLPRUNE_THRESHOLD", KEY), ("TOOLPRUNE_TIMEOUT", KEY),
                        ("TOOLPRUNE_SIGNAL", KEY * 3 + "[")):  # fmt: skip  # --signal cuts its value at 60
        proc = cli("-b", "timeout", input=DOC, env={"TOOLPRUNE_API_KEY": KEY, name: value})
        assert proc.returncode == 2 and proc.stdout == DOC  # the input still passes through
        assert b"[API key]" in proc.stderr or b"--signal holds your API key" in proc.stderr
        assert KEY[:8].encode() not in proc.stderr


@pytest.mark.parametrize("flag", ["--label", "--model", "--spill-dir"])
def test_a_setting_that_would_carry_the_key_into_the_log_or_markers_is_refused(flag, tmp_path):
    value = str(tmp_path / KEY) if flag == "--spill-dir" else KEY
    proc = cli(flag, value, "-b", "timeout", input=DOC, env={"TOOLPRUNE_API_KEY": KEY})
    assert proc.returncode == 2 and proc.stdout == DOC and b"holds your API key" in proc.stderr
    assert KEY[:8].encode() not in proc.stderr


def test_keys_of_one_vendor_a_key_file_of_any_mode_and_escaped_keys_are_all_hidden(monkeypatch, isolated):
    """Keys that share their first characters (``sk-proj-``), one in a key file the remote scorer
    refuses for its mode, and one with a backslash that ``repr`` doubles (an audit's cases)."""
    from toolprune.apikey import without_keys

    old, new = "sk-proj-AAAAAAAAAAAAAAAA", "sk-proj-BBBBBBBBSECRETBBBB"
    monkeypatch.setenv("TOOLPRUNE_API_KEY", old)
    isolated.mkdir(parents=True, exist_ok=True)
    (isolated / "key").write_text(new + "\n")
    (isolated / "key").chmod(0o644)  # refused for sending, still a secret
    for text in (f"'{new}'", f"'{new[:20]}'", f"{old} and {new}"):
        assert "SECRET" not in without_keys(text) and "AAAA" not in without_keys(text), text
    monkeypatch.setenv("TOOLPRUNE_API_KEY", "ab\\cdefghSECRET123")
    assert without_keys(repr("ab\\cdefghSECRET123")) == "'[API key]'"
    monkeypatch.setenv("TOOLPRUNE_API_KEY", "toolprune-local-key")  # a short start is other text
    assert without_keys("toolprune: outcome=ok") == "toolprune: outcome=ok"


def test_a_config_file_holding_the_key_is_ignored_without_printing_it(isolated):
    isolated.mkdir(parents=True, exist_ok=True)
    for document in ({"threshold": KEY}, {KEY: 1}, {"model": f"x{KEY}"}):
        (isolated / "config.json").write_text(json.dumps(document))
        (isolated / "config.json").chmod(0o600)
        proc = cli("-b", "timeout", input=DOC, env={"TOOLPRUNE_API_KEY": KEY})
        assert proc.returncode == 0 and proc.stdout == DOC
        assert b"holds an API key" in proc.stderr and KEY[:8].encode() not in proc.stderr
        shown = cli("config", "show", env={"TOOLPRUNE_API_KEY": KEY})
        assert b"holds an API key" in shown.stdout and KEY[:8].encode() not in printed(shown)


@pytest.mark.parametrize("as_json", [False, True])
def test_config_show_hides_a_key_set_as_a_value(as_json):
    args = ("config", "show", "--json") if as_json else ("config", "show")
    proc = cli(*args, env={"TOOLPRUNE_API_KEY": KEY, "TOOLPRUNE_MODEL": KEY})
    assert proc.returncode == 0 and b"[API key]" in proc.stdout
    assert KEY[:8].encode() not in printed(proc)


def test_only_keys_and_their_long_starts_are_hidden(monkeypatch):
    from toolprune.apikey import without_keys

    monkeypatch.setenv("TOOLPRUNE_API_KEY", KEY)
    assert without_keys(f"a {KEY} b {KEY[:20]}… c {KEY[:15]}") == f"a [API key] b [API key]… c {KEY[:15]}"
    assert without_keys("sk-LEAK") == "sk-LEAK"
    monkeypatch.setenv("TOOLPRUNE_API_KEY", "test")  # too short to look for: a key "test" is a word
    assert without_keys("the test failed") == "the test failed"

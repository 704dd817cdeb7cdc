"""One resolve for the command line and every hook: flags > environment (and the config file,
read into the environment's gaps) > defaults; every value checked in one place."""

from __future__ import annotations

import json

import pytest

from conftest import cli, document, qa_items

from toolprune.core.models import Stats, parse_line
from toolprune.errors import UsageError
from toolprune.settings import THRESHOLDS, resolve


def test_a_flag_wins_over_the_environment_which_wins_over_the_default(tmp_path):
    environ = {"TOOLPRUNE_THRESHOLD": "strong", "TOOLPRUNE_LANG": "ja", "TOOLPRUNE_TAIL": "7"}
    assert resolve({}, {}).threshold == THRESHOLDS["standard"]
    assert resolve({}, environ).threshold == THRESHOLDS["strong"]
    assert resolve({"threshold": "max"}, environ).threshold == THRESHOLDS["max"]
    both = resolve({"lang": "en"}, environ)
    assert (both.lang, both.tail) == ("en", 7)


def test_bounds_from_the_fit_preset_and_explicit_limits_in_one_place():
    assert resolve({"fit": "codex"}, {}).bounds == {"max_chars": None, "max_lines": 256, "max_bytes": 10_240}
    # an explicit --max-chars (or its variable) wins over the preset's
    assert resolve({"fit": "claude"}, {"TOOLPRUNE_MAX_CHARS": "5000"}).bounds["max_chars"] == 5000
    assert resolve({}, {"TOOLPRUNE_FIT": "gemini"}).bounds["max_chars"] == 40_000


@pytest.mark.parametrize(
    ("environ", "named"),
    [
        ({"TOOLPRUNE_TAIL": "many"}, "$TOOLPRUNE_TAIL"),
        ({"TOOLPRUNE_JSON_STRICT": "perhaps"}, "$TOOLPRUNE_JSON_STRICT"),
        ({"TOOLPRUNE_THRESHOLD": "7"}, "threshold"),
        ({"TOOLPRUNE_TIMEOUT": "0"}, "timeout"),
        ({"TOOLPRUNE_TIMEOUT": "nan"}, "timeout"),
        ({"TOOLPRUNE_LANG": "fr"}, "language"),
        ({"TOOLPRUNE_SIGNAL": "(unclosed"}, "--signal"),
        ({"TOOLPRUNE_FIT": "vim"}, "--fit"),
    ],
)
def test_a_bad_value_is_a_usage_error_that_names_it(environ, named):
    with pytest.raises(UsageError) as caught:
        resolve({}, environ)
    assert named in caught.value.message


def test_options_carry_every_resolved_setting():
    options = resolve({"tail": 3, "signal": "boom", "json_strict": True}, {"TOOLPRUNE_LANG": "ja"}).options(
        "why", omitted_command="x omitted", label="L"
    )
    assert (options.tail, options.signal, options.json_strict, options.lang) == (3, "boom", True, "ja")
    assert (options.basis, options.omitted_command, options.label) == ("why", "x omitted", "L")


def test_the_hook_honours_the_configured_language(isolated):
    """The hook once read only the threshold and the timeout; now every setting resolves alike:
    TOOLPRUNE_LANG=ja gives Japanese markers over an English request."""
    output = document(qa_items("en"))
    question = "Which State Route has been in discussion to upgrade to interstate standards?"
    response = {"stdout": output, "stderr": "", "interrupted": False, "isImage": False}
    event = {"session_id": "s1", "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp", "hook_event_name": "PostToolUse",
             "tool_name": "Bash", "tool_input": {"command": "cat notes.txt", "description": question},
             "tool_response": response, "tool_use_id": "toolu_01"}  # fmt: skip
    answers = {}
    for lang in ("en", "ja"):
        proc = cli("hook", "claude-code", input=json.dumps(event).encode(), env={"TOOLPRUNE_LANG": lang})
        assert proc.returncode == 0, proc.stderr.decode()
        answers[lang] = json.loads(proc.stdout)["hookSpecificOutput"]["updatedToolOutput"]["stdout"]
    assert "dropped" in answers["en"] and "dropped" not in answers["ja"]
    assert answers["ja"] != answers["en"]


def test_the_v_line_is_parsed_where_it_is_formatted():
    stats = Stats(outcome="ok", shape="text", raw_chars=100, kept_chars=40, ratio=0.6, id="P1-0a1b2c3d")
    fields = parse_line(stats.line() + " label=tests")
    assert fields["outcome"] == "ok" and fields["raw_chars"] == "100" and fields["ratio"] == "0.6"
    assert fields["tokens"] == "-" and fields["label"] == "tests"
    assert parse_line("toolprune omitted: id=P1 from=1 to=2") is None
    assert parse_line("garbage") is None

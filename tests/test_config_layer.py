"""The config file as a layer under the environment: flags > environment > config file > defaults,
on every path a setting is read (the fast root parser, typer's subcommands, ``run`` and the
hooks), and nothing written into the process's environment."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

from tests.conftest import cli, document, qa_items
from toolprune.config import Config, Layered

QUESTION = "Which State Route has been in discussion to upgrade to interstate standards?"


def layer(environ: dict[str, str], **values: str) -> Layered:
    return Layered(environ, Config(Path("config.json"), values, None, exists=True))


def test_the_environment_wins_and_the_config_file_fills_its_gaps():
    view = layer({"TOOLPRUNE_LANG": "ja", "TOOLPRUNE_TAIL": "", "HOME": "/h"}, lang="en", tail="7", threshold="max")
    assert view["TOOLPRUNE_LANG"] == "ja" and view.source("TOOLPRUNE_LANG") == "$TOOLPRUNE_LANG"
    # a variable set to the empty string is a gap, as it is to click
    assert view["TOOLPRUNE_TAIL"] == "7" and view.source("TOOLPRUNE_TAIL") == "config file"
    assert view["TOOLPRUNE_THRESHOLD"] == "max" and view.source("TOOLPRUNE_THRESHOLD") == "config file"
    assert view.get("TOOLPRUNE_SIGNAL") is None and view.source("TOOLPRUNE_SIGNAL") is None
    assert view["HOME"] == "/h" and view.source("HOME") == "$HOME"
    with pytest.raises(KeyError):
        view["TOOLPRUNE_SIGNAL"]


def test_an_empty_variable_the_config_file_does_not_set_stays_empty():
    """``TOOLPRUNE_LOG=`` turns the log off; the view must not turn that into a missing key."""
    view = layer({"TOOLPRUNE_LOG": ""})
    assert view["TOOLPRUNE_LOG"] == "" and view.source("TOOLPRUNE_LOG") is None


def test_the_view_iterates_over_every_variable_once():
    view = layer({"A": "1", "TOOLPRUNE_LANG": ""}, lang="ja", tail="2")
    assert sorted(view) == ["A", "TOOLPRUNE_LANG", "TOOLPRUNE_TAIL"]
    assert len(view) == 3
    assert dict(view) == {"A": "1", "TOOLPRUNE_LANG": "ja", "TOOLPRUNE_TAIL": "2"}


def test_the_view_does_not_write_into_the_environment():
    environ = {"A": "1"}
    view = layer(environ, lang="ja")
    assert view["TOOLPRUNE_LANG"] == "ja"
    assert environ == {"A": "1"}


def threshold(stderr: str) -> str:
    """The threshold field of a ``-v`` line."""
    return re.search(r"\bthreshold=(\S+)", stderr)[1]


def prune_v(*flags: str, env: dict | None = None) -> str:
    proc = cli("-v", "--basis", QUESTION, *flags, input=document(qa_items("en")).encode(), env=env)
    assert proc.returncode == 0, proc.stderr.decode()
    return threshold(proc.stderr.decode())


def test_the_root_prune_takes_the_config_file_below_the_environment_and_flags():
    assert prune_v() == "0.2"  # the default, "standard"
    assert cli("config", "set", "threshold", "strong").returncode == 0
    assert prune_v() == "0.3"
    assert prune_v(env={"TOOLPRUNE_THRESHOLD": "gentle"}) == "0.1"
    assert prune_v(env={"TOOLPRUNE_THRESHOLD": ""}) == "0.3"  # empty: a gap the config file fills
    assert prune_v("-t", "max", env={"TOOLPRUNE_THRESHOLD": "gentle"}) == "0.5"


def test_a_subcommand_read_by_typer_takes_the_config_file_below_the_environment_and_flags(tmp_path):
    configured, exported, flagged = tmp_path / "configured", tmp_path / "exported", tmp_path / "flagged"
    assert cli("config", "set", "spill_dir", str(configured)).returncode == 0
    assert cli("spill", "path").stdout.decode().strip() == str(configured)
    assert cli("spill", "path", env={"TOOLPRUNE_SPILL_DIR": str(exported)}).stdout.decode().strip() == str(exported)
    proc = cli("spill", "path", "--spill-dir", str(flagged), env={"TOOLPRUNE_SPILL_DIR": str(exported)})
    assert proc.stdout.decode().strip() == str(flagged)


def test_config_show_names_where_each_value_comes_from():
    assert cli("config", "set", "tail", "9").returncode == 0
    shown = json.loads(cli("config", "show", "--json", env={"TOOLPRUNE_LANG": "ja"}, check=True).stdout)
    settings = shown["settings"]
    assert (settings["tail"]["value"], settings["tail"]["source"]) == ("9", "config file")
    assert (settings["lang"]["value"], settings["lang"]["source"]) == ("ja", "$TOOLPRUNE_LANG")
    assert (settings["signal"]["value"], settings["signal"]["source"]) == (None, "default")


def test_a_command_run_by_toolprune_inherits_the_users_environment_not_the_config_file():
    """The config file once went into ``os.environ``, so ``toolprune run -- CMD`` handed CMD a
    TOOLPRUNE_THRESHOLD the user never exported."""
    assert cli("config", "set", "threshold", "strong").returncode == 0
    show_env = "import json, os; print(json.dumps(sorted(k for k in os.environ if k.startswith('TOOLPRUNE_'))))"
    proc = cli("run", "--basis", "anything", "--", sys.executable, "-c", show_env)
    assert proc.returncode == 0, proc.stderr.decode()
    names = json.loads(proc.stdout.decode().strip().splitlines()[-1])
    assert "TOOLPRUNE_THRESHOLD" not in names
    assert "TOOLPRUNE_THRESHOLD" not in os.environ


def test_run_reads_its_prune_options_with_the_config_file():
    """``run``'s options are read by the fast parser, or by typer when it hands over; both see
    the config file."""
    assert cli("config", "set", "threshold", "strong").returncode == 0
    text = document(qa_items("en"))
    script = f"import sys; sys.stdout.write({text!r})"
    for extra in ((), ("--label", "-x")):  # a value that starts with - : the fast parser hands it to typer
        proc = cli("run", "-v", "--basis", QUESTION, *extra, "--", sys.executable, "-c", script)
        assert proc.returncode == 0, proc.stderr.decode()
        assert threshold(proc.stderr.decode()) == "0.3", proc.stderr.decode()

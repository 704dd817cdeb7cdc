"""Scorers by name: the built-ins and plugins found through the ``toolprune.scorers`` entry-point
group, through one registry (a real distribution on ``sys.path``, found by importlib.metadata)."""

from __future__ import annotations

import sys

import pytest

from toolprune.errors import ScorerUnavailable, UsageError
from toolprune.scorers import BUILTIN, available, get_scorer

PLUGIN = '''
from toolprune.scorers.base import Scorer


class Constant(Scorer):
    name = "constant"

    def score(self, request, batch):
        return [0.5 for _ in batch]


class NotAScorer:
    pass


def broken():
    raise RuntimeError("no model here")
'''


@pytest.fixture
def plugin_dist(tmp_path, monkeypatch):
    (tmp_path / "tp_plugin.py").write_text(PLUGIN)
    info = tmp_path / "tp_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tp-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[toolprune.scorers]\nconstant = tp_plugin:Constant\nnotone = tp_plugin:NotAScorer\nbroken = tp_plugin:broken\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    yield
    sys.modules.pop("tp_plugin", None)


def test_the_built_ins_load_by_name():
    assert get_scorer("lexical").name == "lexical"
    assert get_scorer(" Lexical ").name == "lexical"
    assert list(BUILTIN)[:3] == ["lexical", "semantic", "systemone"]


def test_a_plugin_is_found_through_its_entry_point(plugin_dist):
    scorer = get_scorer("constant")
    assert type(scorer).__name__ == "Constant" and scorer.score(None, [0, 1]) == [0.5, 0.5]
    assert "constant" in available() and available()[:3] == list(BUILTIN)


def test_a_plugin_that_is_not_a_scorer_or_does_not_load_is_unavailable_with_the_reason(plugin_dist):
    with pytest.raises(ScorerUnavailable, match="is not a toolprune Scorer"):
        get_scorer("notone")
    with pytest.raises(ScorerUnavailable, match="did not load: no model here"):
        get_scorer("broken")


def test_an_unknown_name_lists_what_is_available(plugin_dist):
    with pytest.raises(UsageError) as caught:
        get_scorer("bm42")
    assert "lexical, semantic, systemone" in caught.value.message and "constant" in caught.value.message


def test_the_config_file_takes_a_plugin_scorer_and_names_the_available_ones(plugin_dist):
    from conftest import cli

    assert cli("config", "set", "scorer", "constant").returncode == 0
    refused = cli("config", "set", "scorer", "bm42")
    assert refused.returncode == 2
    assert b"lexical, semantic, systemone" in refused.stderr and b"constant" in refused.stderr


def test_the_config_keys_take_their_names_from_the_lists_the_settings_use():
    """Each list of names is declared once: the fits, the providers and the languages the config
    file accepts are the ones the command line resolves."""
    from toolprune.configkeys import KEYS
    from toolprune.scorers.endpoints import PRESETS
    from toolprune.settings import FITS, LANGS

    for key, names in (("fit", FITS), ("provider", PRESETS), ("lang", LANGS), ("scorer", BUILTIN)):
        for name in names:
            assert KEYS[key].check(name) == name
        with pytest.raises(ValueError, match=", ".join(names)):
            KEYS[key].check("nothing-like-it")

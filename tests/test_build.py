"""Packaging: the sdist and the wheel build from a checkout, their metadata is valid, and the
wheel carries the man page and the shell completions where installers look for them."""

from __future__ import annotations

import email.parser
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from conftest import ROOT

pytest.importorskip("build")
pytest.importorskip("hatchling")

pytestmark = pytest.mark.xdist_group("build")  # one worker builds once for all three tests


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    proc = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--sdist", "--wheel", "--outdir", str(out), str(ROOT)],
        capture_output=True,
    )
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    return out


def _metadata(dist: Path):
    (wheel,) = dist.glob("*.whl")
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        (meta_name,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        meta = email.parser.Parser().parsestr(zf.read(meta_name).decode("utf-8"))
        entry = zf.read(next(n for n in names if n.endswith(".dist-info/entry_points.txt"))).decode()
    return wheel, names, meta, entry


def test_wheel_metadata_names_the_distribution_the_command_and_the_licence(dist):
    import toolprune

    wheel, names, meta, entry = _metadata(dist)
    assert wheel.name.startswith(f"toolprune_cli-{toolprune.__version__}-")
    assert meta["Name"] == "toolprune-cli"
    assert meta["Version"] == toolprune.__version__
    assert meta["License-Expression"] == "Apache-2.0"
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert meta["Requires-Python"] == ">=3.10"
    assert "Programming Language :: Python :: 3" in meta.get_all("Classifier")
    assert meta.get_content_type() == "text/markdown" or meta["Description-Content-Type"] == "text/markdown"
    assert "toolprune = toolprune.entry:main" in entry
    requires = " ".join(meta.get_all("Requires-Dist"))
    for dep in ("typer", "rich", "httpx", "orjson", "platformdirs"):
        assert dep in requires


def test_wheel_carries_the_package_the_man_page_and_the_completions(dist):
    _, names, _, _ = _metadata(dist)
    data = {n.split(".data/data/", 1)[1] for n in names if ".data/data/" in n}
    assert data == {
        "share/man/man1/toolprune.1",
        "share/bash-completion/completions/toolprune",
        "share/zsh/site-functions/_toolprune",
        "share/fish/vendor_completions.d/toolprune.fish",
    }
    assert "toolprune/__main__.py" in names and "toolprune/core/pipeline.py" in names
    assert not any(n.startswith("tests/") for n in names)


def test_sdist_holds_what_a_rebuild_needs(dist):
    (sdist,) = dist.glob("*.tar.gz")
    with tarfile.open(sdist) as tf:
        names = {n.split("/", 1)[1] for n in tf.getnames() if "/" in n}
    for needed in ("pyproject.toml", "README.md", "LICENSE", "man/toolprune.1", "completions/_toolprune",
                   "toolprune/cli/__init__.py"):
        assert needed in names

"""A request that compares entries (the largest file, the newest) keeps every entry that
carries what it compares: an ``ls -l``/``find -ls`` listing whole, a JSON array of records with a
size (or date) field whole. Real listings of this repository, made when the test runs, and a
real ``npm pack --json`` capture."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, cli

from toolprune.core import compare, kinds
from toolprune.core.models import Options
from toolprune.core.pipeline import plan
from toolprune.scorers.lexical import LexicalScorer

AXIOS = Path(__file__).parent / "fixtures" / "realout" / "json-npm-pack-axios-types" / "input.bin"
LARGEST = "which file here is the largest, and how many bytes is it?"
NAMED = "where are the hook fixtures for gemini?"


def listing(*args: str) -> str:
    """A real listing of this repository's package and tests (C locale: English months)."""
    env = {**os.environ, "LC_ALL": "C", "TZ": "UTC"}
    out = subprocess.run([*args], cwd=ROOT, env=env, capture_output=True, text=True, check=True).stdout
    assert len(out) > 4_000
    return out


@pytest.mark.parametrize(
    "request_, size, age",
    [
        ("which file is the largest?", True, False),
        ("what is the biggest module, and the smallest?", True, False),
        ("which file takes the most space on disk?", True, False),
        ("いちばん大きいファイルはどれ？", True, False),
        ("一番サイズが大きいのはどれで何バイト？", True, False),
        ("最大のファイルを教えて", True, False),
        ("which file was changed most recently?", False, True),
        ("what is the newest file, and the oldest?", False, True),
        ("一番新しいファイルは？", False, True),
        ("a large file made the install slow: which one holds the tests?", False, False),
        ("is there a small example of the config?", False, False),
        ("大きなファイルはテスト用？", False, False),
        ("which file was modified last?", False, True),
        ("list the 5 most recently modified files", False, True),
        ("一番最近更新したファイルはどれ？", False, True),
        ("最後に更新されたファイルはどれ？", False, True),
        # what follows the extreme, and dots inside a sentence, do not matter
        ("which file is the largest in this directory?", True, False),
        ("Which file in ~/.cache is the biggest?", True, False),
        ("what file is newest in /var/log?", False, True),
        ("Find which log file is the largest right now", True, False),
        ("what's the biggest .so file here", True, False),
        ("which file is the largest and which is the newest?", True, True),
        ("show the top 5 by size", True, False),
        ("一番バイト数を食っているソースモジュールはどれですか", True, False),  # takes the most bytes
        ("どのパッケージが一番容量を取っていますか", True, False),
        ("一番時間を食っているテストはどれ", False, False),  # time, not size
        ("Which prebuilt file should I use to keep it smallest, and how many bytes is it?", True, False),
        # an extreme of something else: every agent prompt about upgrading says "the latest"
        ("bump to the latest version and read the latest docs", False, False),
        ("what is the smallest change to this file that fixes it?", False, False),
        ("which is the newest release, and what changed at the earliest stage?", False, False),
        ("show the most recent commit message", False, False),
        ("最新版に上げたい。最小構成で、スループットを最大化したい", False, False),
        ("treat my smallest and largest values as the 0% and 100% points", False, False),
        ("write a Last-Modified header from a datetime", False, False),
        # the extreme and the file are in different sentences
        ("I need the latest release. Which file holds the config?", False, False),
        ("Upgrade all packages to the latest", False, False),
        ("Use the latest Python image for the CI job", False, False),
        ("check the latest logs for errors", False, False),
        ("The latest commit broke the build", False, False),
        ("The most recently added test fails", False, False),
        ("最後に変更したところを戻して", False, False),
    ],
)
def test_a_request_for_an_extreme_of_size_or_age_is_recognised(request_, size, age):
    assert compare.asks(request_) == (size, age)


@pytest.mark.parametrize("command", [("ls", "-lR", "toolprune", "tests"), ("find", "toolprune", "tests", "-ls")])
def test_a_listing_with_sizes_is_kept_whole_for_a_request_that_compares(command):
    text = listing(*command)
    kept = plan(text.encode(), Options(LARGEST), LexicalScorer())
    assert kept.stats.split == "listing" and kept.outcome == "nothing_dropped" and not kept.dropped
    assert kept.scores and any(s is not None for s in kept.scores)  # scored all the same: --explain shows them
    cut = plan(text.encode(), Options(NAMED), LexicalScorer())  # the same listing, a request that names files
    assert cut.outcome == "ok" and cut.dropped


def test_a_request_that_says_latest_about_something_else_leaves_the_listing_to_relevance():
    """Hooks read the whole prompt: "upgrade to the latest version" must not keep every listing
    of the session whole."""
    text = listing("ls", "-lR", "toolprune", "tests")
    kept = plan(text.encode(), Options("upgrade to the latest version: where are the hook fixtures for gemini?"), LexicalScorer())
    assert kept.outcome == "ok" and kept.dropped


@pytest.mark.parametrize(
    "flags",
    ["-lhR", "-lR --full-time", "-lR --time-style=long-iso", "-lsR", "-liR", "-lisR", "-loR", "-lgR", "-lR --color=always",
     "-lahsR", "-lR --si"],
)
def test_every_form_of_ls_l_is_a_listing_with_sizes(flags):
    """Human sizes (4.0K), ISO dates (read as a log's time stamps before), an inode or block
    count before the mode, no owner or group: all still entries with a size to compare."""
    text = listing("ls", *flags.split(), "toolprune", "tests")
    assert kinds.kind(text) == "listing"
    assert compare.listing_compared(LARGEST, text)
    assert plan(text.encode(), Options(LARGEST), LexicalScorer()).outcome == "nothing_dropped"


def test_a_tar_listing_is_a_listing_with_sizes_grouped_by_directory(tmp_path):
    archive = tmp_path / "repo.tar"
    subprocess.run(["tar", "cf", str(archive), "toolprune", "tests/fixtures/realout"], cwd=ROOT, check=True)
    text = listing("tar", "tvf", str(archive))
    assert kinds.kind(text) == "listing" and compare.listing_compared(LARGEST, text)
    assert plan(text.encode(), Options(LARGEST), LexicalScorer()).outcome == "nothing_dropped"
    cut = plan(text.encode(), Options("which files make up the spill store?"), LexicalScorer())
    assert cut.outcome == "ok"
    kept = cut.render(["P1-abcdef12"] * len(cut.runs), "toolprune omitted")
    assert "toolprune/spill/store.py" in kept and "tests/fixtures/realout/json-npm-pack-axios-types" not in kept


def test_a_ci_log_that_lists_a_directory_is_still_a_log(tmp_path):
    """A job that ran ``ls -la`` and then a failing coloured pytest: the escapes outside the
    entries say log, and the failure keeps its traceback (pinned), as before the listing rule."""
    (tmp_path / "test_app.py").write_text(
        "import json\n\ndef load(p):\n    return json.load(open(p))\n\n"
        "def test_config_loads():\n    assert load('/nonexistent/config.json')['retries'] == 3\n"
    )
    entries = "".join(listing("ls", "-laR", "toolprune", "tests").splitlines(keepends=True)[:300])  # within the sample
    run = subprocess.run([sys.executable, "-m", "pytest", "--color=yes", "-q", "-p", "no:cacheprovider", "test_app.py"],
                         cwd=tmp_path, capture_output=True, text=True)  # fmt: skip
    assert run.returncode == 1 and "\x1b[" in run.stdout
    text = "+ ls -la toolprune/core tests\n" + entries + "+ python -m pytest --color=yes -q test_app.py\n" + run.stdout
    assert kinds.kind(text) == "text"
    result = plan(text.encode(), Options("why did the job fail?"), LexicalScorer())
    out = result.render(["P1-abcdef12"] * len(result.runs), "toolprune omitted")
    assert "FileNotFoundError" in out and "test_config_loads" in out and "= FAILURES =" in out


def test_a_listing_without_sizes_is_cut_whatever_the_request():
    """Plain ``find`` has nothing to compare: the request's words are all there is to go by."""
    text = listing("find", "toolprune", "tests")
    assert not compare.listing_compared(LARGEST, text)
    assert plan(text.encode(), Options(LARGEST + " Is it in the spill store's tests?"), LexicalScorer()).dropped


def test_through_the_cli_the_listing_passes_through_byte_for_byte():
    data = listing("ls", "-lR", "toolprune", "tests").encode()
    result = cli("--basis", "いちばん大きいファイルはどれで、何バイト？", "-v", input=data)
    assert result.returncode == 0 and result.stdout == data
    assert b"outcome=nothing_dropped" in result.stderr and b"split=listing" in result.stderr
    assert result.stderr.rstrip().endswith(b"why=request_compares_entries_by_size")
    explained = cli("--basis", "which file was modified most recently?", "--explain", input=data)
    assert explained.stdout == data and b"the request compares them by age" in explained.stderr
    named = cli("--basis", NAMED, "-v", input=data)  # cut by relevance: no why
    assert b"outcome=ok" in named.stderr and b"why=" not in named.stderr


def test_an_array_of_records_with_sizes_keeps_every_record_for_a_request_that_compares_sizes():
    data = AXIOS.read_bytes()
    files = json.loads(data)[0]["files"]
    kept = plan(data, Options("which file in the package is the biggest?"), LexicalScorer())
    assert kept.outcome == "nothing_dropped"
    cut = plan(data, Options("does the package ship its own TypeScript declaration files?"), LexicalScorer())
    assert cut.outcome == "ok"
    # an age question has no date field to compare in these records: cut as before
    aged = plan(data, Options("which TypeScript declaration file is the newest?"), LexicalScorer())
    assert aged.outcome == "ok"
    assert compare.records_compared("which file is the largest?", [json.dumps(f) for f in files])
    assert not compare.records_compared("which file is the newest?", [json.dumps(f) for f in files])
    dated = [json.dumps({"tag_name": f"v{k}", "published_at": f"2024-0{k}-01"}) for k in range(1, 8)]
    assert compare.records_compared("which of these snapshots is the most recent?", dated)
    assert not compare.records_compared("which release is the most recent?", dated)  # not about entries
    assert not compare.records_compared("which snapshot is the most recent?", [json.dumps(f"v{k}") for k in range(7)])


CLOC = Path(__file__).resolve().parent.parent / "bench" / "realout" / "cases" / "json-cloc-asyncssh-largest-module-code-lines"


def test_a_map_of_records_is_compared_by_a_number_valued_field_the_request_names():
    """``cloc --json --by-file`` (real output, batch 46 of the real-output set): a map of files,
    each ``{"blank", "comment", "code", "language"}``. "The biggest by code lines" compares the
    records by ``"code"``: every record stays, so the largest file and the ``SUM`` are there."""
    data = (CLOC / "input.bin").read_bytes()
    biggest = "which library module is the biggest by code lines, and how big is it?"
    kept = plan(data, Options(biggest), LexicalScorer())
    assert kept.outcome == "nothing_dropped" and kept.compared == "size"
    cut = plan(data, Options("how many lines of code does asyncssh/connection.py have?"), LexicalScorer())
    assert cut.outcome == "ok" and cut.compared is None
    members = [m.group() for m in re.finditer(r'"[^"]+" :\{[^}]*\}', data.decode())]
    assert compare.records_compared(biggest, members)
    assert not compare.records_compared("which library module is the biggest?", members)  # no size field named
    assert not compare.records_compared("how many code lines does each module have?", members)  # no extreme asked
    assert compare.records_compared("which module has the most code lines?", members)  # an extreme of a value


WEATHER = CLOC.parent / "ja-mcp-en-sqlite-seattle-weather-wettest-month"


@pytest.mark.parametrize(
    "request_, value",
    [("which month had the highest rainfall?", True), ("the quarter where unemployment peaked", True),
     ("which issue has the most comments?", True), ("what was the largest drop in GDP?", True),
     ("whose rent fell the most?", True), ("降水量がいちばん多かった月は？", True), ("失業率のピークはいつ？", True),
     ("最高気温は何度？", True), ("what is the most important setting?", False),
     ("what's the best way to page through these rows?", False), ("set the maximum pool size to 20", False),
     ("最大サイズを設定したい", False), ("最新版はどれ？", False), ("一番良い方法は？", False),
     ("for the most part it works", False), ("which is the most recent file?", False),
     ("make the smallest change that fixes it", False), ("what is the most idiomatic way to do it?", False)],
)  # fmt: skip
def test_a_request_asks_for_an_extreme_of_a_value(request_, value):
    assert compare.asks_value(request_) is value
    assert (compare.VALUE in compare.ends(request_)) is value


def test_data_rows_are_kept_whole_for_a_request_for_an_extreme_of_a_value():
    """mcp-server-sqlite's monthly weather figures (real output, batch 34 of the real-output set):
    which month had the highest total is a matter of the numbers, and any dropped row may be it.
    Rows as objects or as arrays count; records with no number as a value have nothing to compare."""
    data = (WEATHER / "input.bin").read_bytes()
    kept = plan(data, Options("which month had the highest precipitation total in 2014?"), LexicalScorer())
    assert kept.outcome == "nothing_dropped" and kept.compared == "value"
    cut = plan(data, Options("how many snow days did 2014-02 have?"), LexicalScorer())
    assert cut.outcome == "ok" and cut.compared is None
    asked = "which month had the highest rainfall?"
    assert compare.records_compared(asked, [json.dumps({"month": "2012-01", "mm": 173.3, "hottest_c": 12.8})] * 3)
    assert compare.records_compared(asked, [json.dumps(["2012-01", 173.3, 12.8])] * 3)
    assert not compare.records_compared(asked, [json.dumps({"month": "2012-01", "note": "wet, 173.3 mm"})] * 3)
    assert not compare.records_compared("which month had the most rain?", [json.dumps(["2012-01", 173.3])] * 3)


def test_a_listing_inside_an_mcp_text_item_is_kept_whole_for_a_request_that_compares():
    text = listing("ls", "-lR", "toolprune", "tests")
    data = json.dumps({"content": [{"type": "text", "text": text}], "isError": False}).encode()
    kept = plan(data, Options(LARGEST), LexicalScorer())
    assert kept.outcome == "nothing_dropped", kept.outcome
    cut = plan(data, Options(NAMED), LexicalScorer())
    assert cut.outcome == "ok"


def test_an_array_of_records_inside_an_mcp_text_item_keeps_every_record_for_a_request_that_compares():
    """The text item's JSON is a document of its own: its records are read from that string."""
    data = json.dumps({"content": [{"type": "text", "text": AXIOS.read_text()}], "isError": False}).encode()
    kept = plan(data, Options("which file in the package is the biggest?"), LexicalScorer())
    assert kept.outcome == "nothing_dropped" and kept.compared == "size"
    cut = plan(data, Options("does the package ship its own TypeScript declaration files?"), LexicalScorer())
    assert cut.outcome == "ok" and cut.compared is None


def _history(tmp_path: Path, *flags: str) -> str:
    """A real ``git log --stat`` of one path: the commit that added it is the oldest, and its
    message says "Start" and "notes", none of the words a request for it would use."""
    env = {**os.environ, "GIT_AUTHOR_NAME": "A", "GIT_AUTHOR_EMAIL": "a@example.org", "GIT_COMMITTER_NAME": "A",
           "GIT_COMMITTER_EMAIL": "a@example.org", "LC_ALL": "C", "HOME": str(tmp_path)}  # fmt: skip
    git = ["git", "-C", str(tmp_path), "-c", "commit.gpgsign=false"]
    subprocess.run([*git, "init", "-q"], check=True, env=env)
    messages = ["Start the notes", "Fix a typo in the install steps", "Document the proxy settings for corporate networks",
                "Add a table of exit codes", "Explain the upgrade path from the 1.x series", "Describe logging levels",
                "Mention the Windows service wrapper", "Link the security policy", "Clarify cache eviction",
                "Note the minimum Python version", "List environment variables", "Reword the FAQ on timeouts",
                "Add examples for plugins", "Describe the backup command", "Credit contributors"]  # fmt: skip
    messages += [f"{m}: follow-up" for m in messages[1:] if "upgrade" not in m]  # over 4,000 chars
    for k, message in enumerate(messages):
        (tmp_path / "NOTES.md").write_text("".join(f"line {j}\n" for j in range(k + 3)))
        (tmp_path / f"other{k}.txt").write_text("x\n")
        subprocess.run([*git, "add", "-A"], check=True, env=env)
        day = {"GIT_AUTHOR_DATE": f"2026-01-{k + 1:02d}T12:00:00+0000"}  # a day apart: --reverse is seen
        subprocess.run([*git, "commit", "-q", "-m", message], check=True, env={**env, **day})
    command = [*git, "log", "--stat", *flags, "--", "NOTES.md"]
    out = subprocess.run(command, check=True, env=env, capture_output=True, text=True)
    return out.stdout


@pytest.mark.parametrize(
    "request_",
    ["Which commit first added this file, and which one explained the upgrade path from 1.x?",
     "このファイルを最初に追加したコミットはどれ？ 1.x からの upgrade path を説明したのは？"],
)  # fmt: skip
@pytest.mark.parametrize(
    "flags",
    [(), ("--reverse",), ("--date=iso",), ("--reverse", "--date=iso"), ("--reverse", "--date=iso-strict"),
     ("--reverse", "--date=rfc"), ("--reverse", "--date=short"), ("--reverse", "--date=raw"),
     ("--reverse", "--date=local"), ("--reverse", "--pretty=fuller")],
)  # fmt: skip
def test_a_request_about_the_first_commit_keeps_the_oldest_commit_of_a_git_log(tmp_path, request_, flags):
    text = _history(tmp_path, *flags)
    start = text.index("commit ") if "--reverse" in flags else text.rindex("commit ")
    oldest = text[start:].split("\n")[0]
    result = plan(text.encode(), Options(request_), LexicalScorer())
    assert result.stats.split == "gitlog" and result.outcome == "ok"
    out = result.render(["P1-abcdef12"] * len(result.runs), "toolprune omitted")
    assert oldest in out and "Start the notes" in out
    assert len(result.oldest) == 1 and result.oldest[0] in result.beside
    later = plan(text.encode(), Options("which commit explained the upgrade path from 1.x?"), LexicalScorer())
    assert oldest not in later.render(["P1-abcdef12"] * len(later.runs), "toolprune omitted")


@pytest.mark.parametrize(
    "request_, first",
    [
        ("which commit first added the man page?", True),
        ("when was the --jobs flag introduced?", True),
        ("show me the initial commit", True),
        ("この関数はいつ導入された？", True),
        ("最初のコミットを見せて", True),
        ("which commit added retries to the uploader?", True),  # in a log of one path: the oldest
        ("When did we add settings?", True),
        ("Find the commit that introduced the cache", True),
        ("When was toolprune/cli/explain.py created?", True),
        ("どのコミットで追加された？", True),
        ("いつものように追加して", False),
        ("最初にテストを追加してから実装して", False),
        ("When I first created this repo I used setuptools; what changed since?", False),
        ("first, tell me which commit changed the docs", False),
        ("what changed in the latest commit?", False),
    ],
)
def test_a_request_about_the_first_commit_is_recognised(request_, first):
    assert compare.asks_first(request_) is first


def test_with_dates_that_cannot_tell_the_order_both_ends_of_the_log_are_kept(tmp_path):
    """``--date=relative`` at a day apart reads "N days ago" for each, except where git rounds
    two to the same words; a format git users can choose (``format:%d``) may not be read at all:
    then the first commit may be either end, and both are kept."""
    text = _history(tmp_path, "--reverse", "--date=format:%d")
    asked = "Which commit first added this file, and which one explained the upgrade path from 1.x?"
    result = plan(text.encode(), Options(asked), LexicalScorer())
    assert result.outcome == "ok"
    commits = [i for i, head in enumerate(result.heads) if head < 0]
    assert result.oldest == [commits[0], commits[-1]]
    out = result.render(["P1-abcdef12"] * len(result.runs), "toolprune omitted")
    assert "Start the notes" in out


@pytest.mark.parametrize(
    "date, order",
    [("4 days ago", "oldest"), ("2 years, 3 months ago", "oldest"), ("1796051772 +0000", "oldest"),
     ("2026-09-30 05:35:57+00:00", "oldest")],  # Python's datetime: the MCP git server's git_log
)
def test_relative_and_raw_dates_are_read(date, order):
    later = {"4 days ago": "3 days ago", "2 years, 3 months ago": "2 years, 1 month ago",
             "2026-09-30 05:35:57+00:00": "2026-10-01 05:35:57+00:00"}.get(date, "1796051999 +0000")
    first, last = f"commit a\nAuthor: A\nDate:   {date}\n", f"commit b\nAuthor: A\nDate:   {later}\n"
    assert compare.commit_order(first, last) == order
    assert compare.commit_order(last, first) == "newest"


def test_under_a_bound_a_listing_kept_for_sizes_keeps_its_largest_entries_first():
    """The bound must still cut: what it keeps is the directories holding the largest files,
    not the entries that share the request's words."""
    text = listing("ls", "-lR", "toolprune", "tests")
    entries = [line for line in text.splitlines() if line.startswith("-")]
    biggest = max(entries, key=lambda line: int(line.split()[4]))
    result = cli("--basis", LARGEST, "--max-chars", "3000", "-v", input=text.encode())
    assert b"budget=" in result.stderr and len(result.stdout.decode()) <= 3000
    assert biggest.encode() in result.stdout
    units = ["-rw-r--r-- 1 a a 4.0K Dec  5 23:25 x\n-rw-r--r-- 1 a a 120 Dec  5 23:25 y",
             "crw-rw-rw- 1 root root 1, 3 Dec  5 23:25 null", "-rw-r--r-- 1 a a 1,5M Dec  5 23:25 z"]  # fmt: skip
    assert compare.fill_keys(units, ["largest"]) == [1, 3, 0]  # human units, a decimal comma; a device has no size
    assert compare.fill_keys(units, ["smallest"]) == [0, 3, 1]
    device_o = ["crw-rw-rw- 1 root 1, 3 Dec  5 23:25 null", "-rw-r--r-- 1 root 120 Dec  5 23:25 y"]  # ls -o: no group
    assert compare.fill_keys(device_o, ["smallest"]) == [2, 0]  # the device's minor number 3 is no size


def dated_listing(tmp_path: Path, *args: str) -> str:
    """A real ``ls -lR`` of 40 directories of 3 files, each file with its own size and time: the
    largest file in d07, the smallest in d31, the newest in d18 and the oldest in d25 (over a
    year old, so shown with its year); the directories themselves a year old."""
    now = 1_796_000_000  # 2026-11-30
    special = {"d07/f1": (90_000, now - 50 * 86_400), "d31/f2": (1, now - 40 * 86_400),
               "d18/f0": (300, now - 3_600), "d25/f1": (200, now - 800 * 86_400)}  # fmt: skip
    for d in range(40):
        for f in range(3):
            path = tmp_path / f"d{d:02}" / f"f{f}"
            path.parent.mkdir(exist_ok=True)
            size, when = special.get(f"d{d:02}/f{f}", (100 + d + f, now - (60 + d) * 86_400))
            path.write_bytes(b"x" * size)
            os.utime(path, (when, when))
        os.utime(path.parent, (now - 365 * 86_400, now - 365 * 86_400))
    env = {**os.environ, "LC_ALL": "C", "TZ": "UTC"}
    return subprocess.run(["ls", *args, "."], cwd=tmp_path, env=env, capture_output=True, text=True, check=True).stdout


@pytest.mark.parametrize(
    "request_, wanted",
    [("which file here is the smallest?", ["d31/f2"]), ("which file was modified most recently?", ["d18/f0"]),
     ("what are the oldest files in these folders?", ["d25/f1"]),
     ("which file is the largest, and which is the newest file?", ["d07/f1", "d18/f0"])],
)  # fmt: skip
@pytest.mark.parametrize("style", [["-lR"], ["-lR", "--time-style=long-iso"], ["-lR", "--full-time"]])
def test_under_a_bound_a_compared_listing_keeps_the_asked_extremes_first(tmp_path, request_, wanted, style):
    """The smallest file is not the largest, and an age is read from the dates ``ls`` prints
    (with the year for old files, the time for recent ones, or ISO dates)."""
    text = dated_listing(tmp_path, *style)
    result = cli("--basis", request_, "--max-chars", "1200", "-v", input=text.encode())
    out = result.stdout.decode()
    assert b"budget=" in result.stderr and len(out) <= 1200
    for name in wanted:
        directory = out.find(f"./{name.split('/')[0]}:")
        assert directory >= 0 and out.find(name.split("/")[1], directory) >= 0, (name, out)


@pytest.mark.parametrize(
    "request_, ends",
    [("which file here is the largest?", ["largest"]), ("which file is the smallest one?", ["smallest"]),
     ("the smallest and the largest files, please", ["largest", "smallest"]),
     ("which files were modified most recently?", ["newest"]), ("show me the oldest backups", ["oldest"]),
     ("list the entries sorted by size", ["largest"]), ("いちばん古いファイルはどれ？", ["oldest"]),
     ("容量の小さい順に並べて", ["smallest"]), ("what's the latest version of numpy?", [])],
)  # fmt: skip
def test_a_request_names_the_ends_it_asks_for(request_, ends):
    assert compare.ends(request_) == ends


def test_dates_without_a_year_after_new_year_are_the_newest():
    """``ls`` shows the time, not the year, for the last six months: in January, December's
    files are older than January's."""
    units = ["-rw-r--r-- 1 a a 5 Dec 30 23:59 late-last-year", "-rw-r--r-- 1 a a 5 Jan  2 08:00 this-year",
             "-rw-r--r-- 1 a a 5 Aug  1  2025 with-a-year", "-rw-r--r-- 1 a a 5 Nov  3 10:00 autumn"]  # fmt: skip
    assert compare.fill_keys(units, ["newest"]) == [1, 0, 3, 2]
    assert compare.fill_keys(units, ["oldest"]) == [2, 3, 0, 1]
    assert compare.fill_keys(units[:1] + units[2:], ["newest"]) == [0, 2, 1]  # no new year: months as they are


def test_odd_dates_are_read_or_left_unread():
    """Half a year apart to the day still crosses a new year; a month in another language leaves
    the listing's dates unread (a German ``ls`` names Jan as English does, but Dez its own way);
    a date that is no date is none, and does not stop the sizes being read."""
    def entry(date: str, size: int = 5) -> str:
        return f"-rw-r--r-- 1 u g {size} {date} x"

    assert compare.fill_keys([entry("Jul 20 10:00"), entry("Jan  5 10:00")], ["newest"]) == [1, 0]
    assert compare.fill_keys([entry("Nov 20 10:00"), entry("Dez  5 10:00")], ["newest"]) == [2, 2]
    assert compare.fill_keys([entry(", 5 2024", 9), entry("Jan  5 10:00", 3)], ["smallest"]) == [1, 0]
    assert compare.fill_keys([entry("Sept 3 2024"), entry("Feb 29 2024")], ["oldest"]) == [1, 0]


@pytest.mark.parametrize(
    "request_, ends",
    [("一番小さい重要なファイルはどれ?", ["smallest"]), ("Which file in the last backup is the oldest?", ["oldest"]),
     ("which file was modified last?", ["newest"]), ("一番重いファイルは?", ["largest"])],
)  # fmt: skip
def test_a_word_that_names_no_end_adds_none(request_, ends):
    assert compare.ends(request_) == ends

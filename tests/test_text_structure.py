"""Text kinds and structure-aware units: the kind decides the split (``split=`` in ``-v``),
headings, commit headers and entries stay with what is kept, only logs pin, identifiers are
read as words."""

from __future__ import annotations

import json
import re

import pytest

from conftest import ROOT, cli, restore
from hypothesis import example, given, settings
from hypothesis import strategies as st

from toolprune.core import decide, explain
from toolprune.core.kinds import kind
from toolprune.core.models import Options
from toolprune.core.pipeline import plan
from toolprune.core.scorer import Scorer
from toolprune.core.tokens import fold, tokens
from toolprune.scorers.lexical import LexicalScorer, score_units

FILLER = [
    "Reticulated splines are aligned before the gamma pass, which smooths the mesh.",
    "Quarterly ledgers record the tide tables of the harbour in tabular form.",
    "Violin makers season spruce for decades before carving the top plates.",
    "Orchards on the northern slope bloom late because of the cold wind.",
    "Typesetters kern the capitals by hand when the face lacks good pairs.",
    "Glaciers carve cirques whose floors later hold small round lakes.",
]


def prose(k: int, n: int = 3) -> str:
    return " ".join(FILLER[(k + j) % len(FILLER)] for j in range(n))


def pruned(text: str, basis: str):
    result = plan(text.encode(), Options(basis=basis), LexicalScorer())
    out = result.render(result.placeholder_ids(), "toolprune omitted") if result.outcome == "ok" else text
    return result, out


def gitlog(target: int) -> str:
    commits = []
    for k in range(12):
        subject = "Retry uploads when the socket resets mid-transfer" if k == target else f"Tidy {FILLER[k % 6][:-1].lower()}"
        body = [f"    {prose(k, 1)}" for _ in range(2)]
        diff = "\n".join(
            [f"diff --git a/pkg/mod{k}.py b/pkg/mod{k}.py", "index 1111111..2222222 100644",
             f"--- a/pkg/mod{k}.py", f"+++ b/pkg/mod{k}.py", "@@ -1,3 +1,4 @@"]
            + [f"+    # {prose(k + j, 1)}" for j in range(4)]
        )  # fmt: skip
        commits.append(
            f"commit {k:040x}\nAuthor: Dev {k} <dev{k}@example.invalid>\nDate:   Mon Nov {k + 1} 10:00:00 2026 +0000\n\n"
            f"    {subject}\n\n" + "\n\n".join(body) + "\n\n" + diff + "\n"
        )
    return "\n".join(commits)


def test_kind_is_decided_from_the_text():
    assert kind(gitlog(3)) == "gitlog"
    assert kind("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n") == "diff"
    assert kind("".join(f"src/pkg/mod{k}.py:{k + 10}:    timeout = {k}\n" for k in range(50))) == "listing"
    assert kind("".join(f"./src/pkg/sub{k}/file{k}.txt\n" for k in range(50))) == "listing"
    assert kind("# Title\n\nSome text.\n\n## Install\n\n```sh\npip install x\n```\n") == "markdown"
    assert kind("Title\n=====\n\n.. py:data:: X\n\n    Body.\n\n.. confval:: y\n\n    More.\n") == "rst"
    assert kind("Help on module shutil:\n\nNAME\n    shutil - copy\n") == "pydoc"
    assert kind("LESS(1)      General Commands Manual      LESS(1)\n\nNAME\n       less\n") == "man"
    assert kind("2026-12-01 10:00:00 INFO started\n" * 50) == "text"
    # a link's target holds no bracket or brace: a regular expression in a traceback is no link
    assert kind("    m = re.match('([su]([0-9]{1,2})', s)\n" * 2 + "E   KeyError: 0\n") == "text"
    assert kind("See [the docs](https://example.invalid/docs) and [the API](./api.md).\n" * 2) == "markdown"


def test_a_help_page_that_opens_with_usage_is_split_by_option_whatever_its_headings():
    """argparse's section headings can be long ("coverage reporting with distributed testing
    support:"), so only ``usage:`` says it is a help page: ``pytest --help`` (a real output, see
    tests/fixtures/ATTRIBUTION.md) is split by option, and the one option asked about is kept."""
    from pathlib import Path

    text = (Path(__file__).parent / "fixtures" / "help" / "pytest-help.txt").read_text(encoding="utf-8")
    assert kind(text) == "man"
    result, out = pruned(text, "the suite got slow; how do I get pytest to list the ten slowest tests at the end?")
    assert result.outcome == "ok" and result.stats.split == "man"
    assert "--durations=N         Show N slowest setup/test durations (N=0 for all)" in out
    assert len(out) < len(text) / 2
    # without ``usage:`` the same page has too many long headings to read as one
    assert kind(text.replace("usage: ", "run as: ", 1)) == "text"


@settings(max_examples=2_000, deadline=None)
@given(st.text(alphabet="ab./:-12 _é", max_size=16))
def test_a_grep_line_is_what_the_backtracking_pattern_it_replaced_matched(line):
    import re

    from toolprune.core.kinds import _grep

    old = re.compile(r"^(?:\./)?[^\s:]*[./][^\s:]*(?::\d+[:-]|-\d+-)")
    assert _grep(line) == bool(old.match(line))


def test_split_names_the_kind_in_the_verbose_line():
    proc = cli("-v", "--basis", "which commit retries uploads when the socket resets?", input=gitlog(5).encode())
    assert b" split=gitlog " in proc.stderr


def test_git_log_commit_header_is_kept_with_its_message():
    text = gitlog(7)
    result, out = pruned(text, "which commit retries uploads when the socket resets?")
    assert result.outcome == "ok" and result.stats.split == "gitlog"
    assert f"commit {7:040x}" in out and "Retry uploads when the socket resets" in out
    assert f"commit {2:040x}" not in out


def mcp_git_log(target: int) -> str:
    """A ``git_log`` result of the reference MCP git server (mcp-server-git 2026.10.19 formats
    each commit as ``Commit:``, ``Author:``, ``Date:`` and ``Message:`` lines, the message as
    written, under a ``Commit history:`` caption), newest first."""
    entries = []
    for k in range(12):
        subject = "Retry uploads when the socket resets mid-transfer" if k == target else f"Tidy {FILLER[k % 6][:-1].lower()}"
        entries.append(
            f"Commit: {k:040x}\nAuthor: Dev {k}\nDate: 2026-11-{30 - k:02d} 10:00:00+00:00\n"
            f"Message: {subject}\n\n{prose(k, 4)}\n\n{prose(k + 1, 4)}\n"
        )
    return "Commit history:\n" + "\n".join(entries)


def test_a_caption_line_above_a_log_or_diff_does_not_hide_it():
    """The MCP git server puts a caption above each result; what follows it decides the kind."""
    assert kind(mcp_git_log(3)) == "gitlog"
    patch = "diff --git a/x.py b/x.py\nindex 1..2 100644\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n"
    for caption in ("Diff with v1.11.1:", "Unstaged changes:", "Staged changes:"):
        assert kind(f"{caption}\n{patch}") == "diff"
    assert kind(f"Two captions:\nDiff with v1.11.1:\n{patch}") != "diff"  # one caption line, no more
    assert kind(f"{'x' * 101}:\n{patch}") != "diff"  # a caption is a short line
    assert kind(f"Diff with v1.11.1\n{patch}") != "diff"  # and ends with a colon


def test_an_mcp_git_log_commit_keeps_its_header_with_its_message():
    """Each ``Commit:`` entry is one unit (header and message): the commit id the user asks for
    stays with the message that matched, and the other commits go."""
    text = mcp_git_log(7)
    result, out = pruned(text, "which commit retries uploads when the socket resets?")
    assert result.outcome == "ok" and result.stats.split == "gitlog"
    assert f"Commit: {7:040x}\nAuthor: Dev 7\nDate: 2026-11-23 10:00:00+00:00\nMessage: Retry uploads" in out
    assert f"Commit: {2:040x}" not in out
    proc = cli("--basis", "which commit retries uploads when the socket resets?", input=text.encode())
    assert f"Commit: {7:040x}" in proc.stdout.decode() and f"Commit: {2:040x}" not in proc.stdout.decode()
    assert restore(proc.stdout) == text.encode()


def test_the_first_commit_of_an_mcp_git_log_is_its_oldest():
    """"Which commit first …" over the MCP server's log (newest first, Python's dates): the
    oldest entry is the candidate, not the caption unit above the first entry."""
    text = mcp_git_log(7)
    result = plan(text.encode(), Options(basis="Which commit first added the notes on violin makers?"), LexicalScorer())
    first_unit = next(i for i, u in enumerate(result.units) if text.startswith(f"Commit: {11:040x}", u.start))
    assert result.oldest == [first_unit]


def test_grep_output_is_grouped_by_file_and_never_pinned():
    lines = []
    for f in range(20):
        word = "retry_backoff" if f == 4 else "render_frame"
        lines += [f"src/pkg/mod{f}.py:{10 * j + 1}:    {word} = {FILLER[(f + j) % 6]}" for j in range(6)]
    lines.insert(3, "src/pkg/mod0.py:99:    raise ValueError('error: failed to parse')")  # a "signal" line
    result, out = pruned("\n".join(lines) + "\n", "where is retry_backoff set?")
    assert result.stats.split == "listing" and not result.pinned
    assert result.outcome == "ok"
    assert all(line in out for line in lines if line.startswith("src/pkg/mod4.py:"))
    assert "src/pkg/mod0.py:99:" not in out  # a listing never pins its error-looking lines


def test_grep_lines_of_one_file_are_cut_where_the_line_numbers_jump():
    from toolprune.core.shapes.textunits import GREP_GAP, split_listing

    def line(number: int, sep: str = ":") -> str:
        return f"src/pkg/settings.py{sep}{number}{sep}    value_{number} = {FILLER[number % 6]} {FILLER[(number + 1) % 6]}"

    near = [line(n) for n in (10, 11, 13, 13 + GREP_GAP)]  # matches a few lines apart: one place
    far = [line(n) for n in (13 + 2 * GREP_GAP + 1, 13 + 2 * GREP_GAP + 2)]  # further on: another
    context = [line(200), line(201, "-"), "--", line(203, "-"), line(204)]  # grep -C: "--" between places
    text = "\n".join(near + far + context) + "\n"
    units = [text[u.start : u.end] for u in split_listing(text).units]
    assert units == ["\n".join(near), "\n".join(far), "\n".join(context[:3]), "\n".join(context[3:])]
    dashed = [f"scripts/run-2-stage:{n}:    step_{n} = {FILLER[n % 6]} {FILLER[(n + 1) % 6]}" for n in (14, 15, 40)]
    text = "\n".join(dashed) + "\n"  # lines 14, 15 and 40 of run-2-stage, not line 2 of scripts/run
    assert [text[u.start : u.end] for u in split_listing(text).units] == ["\n".join(dashed[:2]), dashed[2]]
    huge = "src/pkg/settings.py:" + "9" * 5000 + ": x = 1"  # a number int() would refuse
    text = "\n".join([line(1), huge, line(2)]) + "\n"
    assert [text[u.start : u.end] for u in split_listing(text).units] == text.rstrip("\n").split("\n")  # too long to share


def test_a_grep_match_that_defines_a_function_heads_the_matches_inside_it():
    """``grep -rn shield``: the signature ``def move_on_after(…, shield=False)`` starts a unit of
    its own (not the tail of the function before it), and its docstring's ``:param shield:``
    six lines below, a unit of its own, keeps it: a parameter without the function is no answer."""
    from toolprune.core.shapes.textunits import split_listing

    path = "anyio/_core/_tasks.py"
    text = "\n".join([
        f"{path}:180:    shield: bool = False,",
        f"{path}:182:    return CancelScope(deadline=deadline, shield=shield)",
        f"{path}:184:def move_on_after(delay: float | None, shield: bool = False) -> CancelScope:",
        f"{path}:190:    :param shield: ``True`` to shield the cancel scope from external cancellation",
        f"{path}:197:        scope.shield = shield",
        f"{path}:230:SHIELD_DEFAULT = False  # module level: out of the function",
        f"{path}:241:class Shielded:",
        f"{path}:260:        self.shield = True",
    ])  # fmt: skip
    text = "\n".join(f"{line}  # {FILLER[k % 6]}" for k, line in enumerate(text.split("\n"))) + "\n"  # no merging
    structure = split_listing(text)
    units = [text[u.start : u.end].split(":", 2)[1] for u in structure.units]
    assert units == ["180", "184", "190", "197", "230", "241", "260"]  # the signature is cut from 182 before it
    heads = dict(zip(units, structure.heads))
    assert [units[heads[n]] if heads[n] >= 0 else None for n in ("190", "197", "230", "241", "260")] == [
        "184", "184", "180", "180", "241"
    ]
    result, out = pruned(text.replace("\n", "\n" + "\n".join(
        f"src/other/m{k}.py:{k}:    render_frame = {FILLER[k % 6]}" for k in range(30)) + "\n", 1),
        "which parameter keeps the cancel scope from external cancellation?")  # fmt: skip
    assert "190:    :param shield:" in out and "184:def move_on_after" in out


def test_only_a_match_defines_and_a_definition_heads_only_its_own_file():
    """``grep -C``'s context lines (``path-N-``) show code around a match: a ``def`` there is no
    match and heads nothing; a blank context line ends no definition; and a definition's scope
    never reaches into the next file, nor does prose ("a class of errors") define anything."""
    from toolprune.core.shapes.textunits import _DEFINITION, split_listing

    def heads(lines: list[str]) -> list[tuple[str, int]]:
        text = "\n".join(f"{line}  # {FILLER[k % 6]} {FILLER[(k + 1) % 6]}" if line != "--" else line
                         for k, line in enumerate(lines)) + "\n"  # fmt: skip
        structure = split_listing(text)
        return [(text[u.start : u.end].split("  #")[0], h) for u, h in zip(structure.units, structure.heads)]

    context = heads(["a.py:20:    return shield", "a.py-22-def bar():", "--", "a.py-200-        if x:", "a.py:201:     shield()"])
    assert context == [("a.py:20:    return shield", -1), ("a.py-200-        if x:", 0)]
    blank = heads(["a.py:10:def move_on_after(delay, shield=False):", "--", "a.py-15-", "a.py:16:    :param shield: x"])
    assert blank == [("a.py:10:def move_on_after(delay, shield=False):", -1), ("a.py-15-", 0)]
    files = heads(["Makefile:12:install:", "src/a.py:10:def install(shield):", "src/b.py:20:    install(shield)"])
    assert [h for _, h in files] == [-1, -1, -1]
    assert not any(_DEFINITION.match(c) for c in ("a class of errors", "def", "function of the input", "classes"))
    assert all(_DEFINITION.match(c) for c in ("export default function (req) {", "pub(crate) fn parse<T>(", "class A:",
                                              "func (r *Reader) Read(p []byte)", "  async def fetch(url):"))  # fmt: skip


def test_find_ls_is_a_listing_grouped_by_directory():
    from toolprune.core.kinds import kind
    from toolprune.core.shapes.textunits import split_listing

    def entry(inode: int, mode: str, size: str, path: str) -> str:
        return f"  {inode:>7} {4:>6} {mode}   1 root     root     {size:>10} Oct 26  1985 {path}"

    lines = [entry(100, "drwxr-xr-x", "4096", "./pkg")]
    for d in ("lib", "dist", "tests"):
        lines.append(entry(200, "drwxr-xr-x", "4096", f"./pkg/{d}"))
        lines += [entry(300 + k, "-rw-r--r--", str(1000 + k), f"./pkg/{d}/file{k}.js") for k in range(12)]
        if d == "dist":  # a symlink and a device
            lines += [entry(400, "lrwxrwxrwx", "8", "./pkg/dist/latest.js -> file3.js"),
                      entry(401, "crw-rw-rw-", "1,   3", "./pkg/dist/null")]  # fmt: skip
    text = "\n".join(lines) + "\n"
    assert kind(text) == "listing"
    units = [text[u.start : u.end] for u in split_listing(text).units]
    assert any(u.startswith(lines[2]) and u.endswith(lines[13]) for u in units)  # lib's files together
    assert not any("./pkg/lib/" in u and "./pkg/dist/" in u for u in units)  # and apart from dist's
    assert any(u.endswith("./pkg/dist/null") and "./pkg/dist/file0.js" in u for u in units)  # all of dist's


ATTRS = ROOT / "tests" / "fixtures" / "realout" / "markdown-attrs-last-py37"


def test_a_changelog_keeps_the_heading_of_the_release_after_a_strongly_matching_one():
    """attrs' CHANGELOG.md (a real case of the evaluation set): "Python 3.7 has been dropped"
    sits under 24.3.0, and the release that still installs on 3.7 is the next heading, 24.2.0,
    which names neither. It scores under the threshold and sits alone between two dropped runs,
    where it would go as an island if it were not kept for its neighbour."""
    from toolprune.core.shapes.textunits import split_document

    case = json.loads((ATTRS / "case.json").read_text())
    data = (ATTRS / "input.bin").read_bytes()
    text = data.decode()
    structure = split_document(text, "markdown")
    titles = [text[structure.units[k].start : structure.units[k].end] for k in structure.versions]
    assert len(titles) > 20 and all(t.startswith("## [") for t in titles)
    result = plan(data, Options(case["request"]), LexicalScorer())
    assert result.outcome == "ok"
    out = result.render(["P1-abcdef12"] * len(result.runs), "toolprune omitted")
    assert all(g in out for g in case["gold"])
    after = next(k for k in structure.versions if text[structure.units[k].start :].startswith("## [24.2.0]"))
    assert after in result.beside and result.scores[after] == 0.2
    before = next(k for k in structure.versions if text[structure.units[k].start :].startswith("## [25.1.0]"))
    assert before not in result.beside  # the release after only, not the one before


def test_a_section_that_drops_a_version_keeps_the_release_heading_after_it():
    """SQLAlchemy-Utils' CHANGES.rst (a real case of the evaluation set): "Drop support for
    sqlalchemy 1.4." sits under 0.43.0 and matches at 0.307, over a quarter more than the cut
    (0.24, stepped up from 0.2) but not twice it; the newest release still usable with 1.4 is the
    next heading, 0.42.1, which names neither."""
    folder = ROOT / "tests" / "fixtures" / "realout" / "rst-sqlalchemy-utils-changes-sa14-last-release-psycopg3-create-database"
    case = json.loads((folder / "case.json").read_text())
    data = (folder / "input.bin").read_bytes()
    result = plan(data, Options(case["request"]), LexicalScorer())
    assert result.outcome == "ok"
    out = result.render(["P1-abcdef12"] * len(result.runs), "toolprune omitted")
    assert "0.42.1 (2025-12-12)" in out and all(g in out for g in case["gold"])
    assert len(out) < 0.7 * len(data)


def test_release_headings_of_other_forms_make_a_changelog_and_numbered_sections_do_not():
    from toolprune.core.shapes.textunits import split_document

    node = "\n\n".join(f"## 2026-0{k + 1}-24, Version 20.{20 - k}.2 'Iron' (LTS), @someone\n\n{prose(k)}" for k in range(4))
    assert len(split_document("# Node.js 20 ChangeLog\n\n" + node + "\n", "markdown").versions) == 4
    rst = "\n\n".join(f"Changes for v3.{k}.1 (2024-10-06)\n================================\n\n{prose(k)}" for k in range(3))
    assert len(split_document(rst + "\n", "rst").versions) == 3
    for word in ("Section", "Sections", "Chapter"):
        spec = "\n\n".join(f"## {word} 8.{k}\n\n{prose(k)}" for k in range(5))
        assert split_document("# Spec\n\n" + spec + "\n", "markdown").versions == []


def test_a_release_heading_merged_with_its_notes_is_not_raised_beside_a_strong_match():
    """With no blank line under it, a heading is one unit with its release's notes: raising it
    would keep a whole other release, not a heading."""
    notes = [
        "- The resolver now refuses a lock file whose hashes do not match.\n- Faster startup on cold caches.",
        "- Dropped Python 3.7; the wheel now requires 3.8 or newer.\n- The cache moved to XDG paths.",
        "- New --offline flag.\n- Docs: a page on proxies and certificates, with examples for corporate networks.",
        "- Fixed a crash when HOME is unset.\n- The progress bar respects NO_COLOR and dumb terminals alike.",
        "- First release with plugins.\n- Windows paths with spaces are quoted in generated scripts.",
    ]
    notes += [f"- Maintenance release {k}.\n- Dependencies refreshed; documentation typos fixed." for k in range(7)]
    releases = [f"{3 - k // 4}.{3 - k % 4}.0" for k in range(12)]
    more = "\n".join(f"- Internal: {w} refactored, no change in behaviour." for w in ("logging", "parsing", "tests", "the CLI", "packaging"))
    text = "# Changelog\n\n" + "\n\n".join(f"## {v}\n{n}\n{more}" for v, n in zip(releases, notes)) + "\n"
    result = plan(text.encode(), Options("when was Python 3.7 dropped, and what does the wheel require now?"), LexicalScorer())
    assert len(result.versions) == 12
    strong = next(k for k in result.versions if "3.7" in text[result.units[k].start : result.units[k].end])
    assert result.scores[strong] is not None and result.scores[strong] >= 2 * result.stats.threshold
    assert not result.beside  # the next release, 2.0.0, came with its notes: not raised


def test_a_document_with_a_few_version_numbers_in_its_headings_is_no_changelog():
    from toolprune.core.shapes.textunits import split_document

    doc = "\n\n".join(["# Guide", "## Python 3.7 support", prose(0), "## Install", prose(1), "## Usage", prose(2),
                        "## Upgrading to 2.0", prose(3), "## Limits", prose(4)]) + "\n"  # fmt: skip
    assert split_document(doc, "markdown").versions == []
    guides = "\n\n".join(["# Changes", "## 3.0.1", prose(0), "## Upgrading to 3.0", prose(1), "## 3.0.0", prose(2),
                          "## Migration from 1.x to 2.0", prose(3), "## 2.0.0", prose(4)]) + "\n"  # fmt: skip
    found = split_document(guides, "markdown")
    assert [guides[found.units[k].start : found.units[k].end] for k in found.versions] == ["## 3.0.1", "## 3.0.0", "## 2.0.0"]
    rst = "\n\n".join(f"{v} (2024-0{k}-01)\n------------------\n\n{prose(k)}" for k, v in enumerate(["3.2.0", "3.1.1", "v3.1", "3.0"]))
    assert len(split_document("Changes\n=======\n\n" + rst + "\n", "rst").versions) == 4


def rst_doc() -> str:
    parts = ["Configuration\n=============\n", prose(0)]
    names = ["DEBUG", "TESTING", "SECRET_KEY", "MAX_CONTENT_LENGTH", "SERVER_NAME", "APPLICATION_ROOT"]
    for k, name in enumerate(names * 8):
        body = "The largest request body in bytes" if name == "MAX_CONTENT_LENGTH" and k < 6 else FILLER[k % 6]
        parts.append(f".. py:data:: {name}{k}\n\n    {body}\n    {FILLER[(k + 1) % 6]}\n    Default: ``{k}``")
    return "\n\n".join(parts) + "\n"


def test_rst_directive_is_kept_with_its_body():
    result, out = pruned(rst_doc(), "which setting refuses large uploads, the request body in bytes?")
    assert result.outcome == "ok" and result.stats.split == "rst"
    assert ".. py:data:: MAX_CONTENT_LENGTH3" in out and "The largest request body in bytes" in out
    assert ".. py:data:: DEBUG0" not in out


def markdown_doc() -> str:
    parts = ["# Tool", prose(0)]
    for k in range(10):
        parts.append(f"## Section {k}")
        parts.append(prose(k, 2))
        if k == 6:
            parts.append("To configure the proxy for every request, set the environment like this:")
            parts.append("```sh\nexport HTTPS_PROXY=http://10.0.0.1:3128\nexport NO_PROXY=localhost\n```")
            parts.append("The rules are:")
            parts.append("- one\n- two\n- three")
        parts.append(prose(k + 3, 3))
    return "\n\n".join(parts) + "\n"


def test_markdown_code_block_inherits_its_introduction_and_heading_is_kept():
    result, out = pruned(markdown_doc(), "how do I configure the proxy for every request?")
    assert result.outcome == "ok" and result.stats.split == "markdown"
    assert "export HTTPS_PROXY=http://10.0.0.1:3128" in out  # the code the sentence introduces
    assert "## Section 6" in out  # the kept paragraph's heading
    assert "## Section 2" not in out


def man_page() -> str:
    parts = ["TOOL(1)                 General Commands Manual                TOOL(1)", "NAME\n       tool - move files", "OPTIONS"]
    for k in range(30):
        desc = "Limit the transfer rate to RATE bytes per second; suffixes K and M." if k == 11 else prose(k, 2)
        parts.append(f"       --option{k}=VALUE\n              {prose(k + 1, 3)}\n              {prose(k + 4, 3)}")
        parts.append(f"              {prose(k + 2, 3)}\n              {prose(k + 3, 3)}")
        parts.append(f"              {desc}")
    return "\n\n".join(parts) + "\n"


def test_man_option_is_kept_with_its_description():
    result, out = pruned(man_page(), "how do I limit the transfer rate in bytes per second?")
    assert result.outcome == "ok" and result.stats.split == "man"
    assert "--option11=VALUE" in out and "Limit the transfer rate" in out
    assert "--option3=VALUE" not in out


def test_identifiers_are_read_as_words():
    assert {"basic", "config", "basicconfig"} <= set(tokens(fold("logging.basicConfig()")))
    assert {"max", "content", "length"} <= set(tokens(fold("MAX_CONTENT_LENGTH maxContentLength")))
    assert {"no", "cach", "dir"} - {"no"} <= set(tokens(fold("--no-cache-dir")))
    assert "mcdonald" in tokens(fold("McDonald")) and "donald" not in tokens(fold("McDonald"))


def test_json_keys_weigh_less_than_values():
    units = ['{"url": "https://a.invalid", "name": "alpha"}', '{"uri": "https://b.invalid", "name": "url beta"}']
    units += ['{"uri": "https://c.invalid", "name": "gamma"}'] * 4
    scores = score_units("url", units)
    assert scores[1] == 1.0 and scores[0] < 0.5  # the same word as a key counts a quarter


def test_a_synonym_or_its_japanese_counts_at_half_weight():
    units = ["The ignore argument is a callable returning the names to leave out.", FILLER[0], FILLER[1], FILLER[2]]
    assert score_units("skip __pycache__ folders when copying", units)[0] > 0.5
    units = ["--bwlimit=RATE  limit the transfer speed of the socket", FILLER[3], FILLER[4], FILLER[5]]
    assert score_units("転送速度を抑えたい", units)[0] == 1.0
    both = ["ignore alpha", "skip gamma", FILLER[0], FILLER[1]]
    scores = score_units("skip", both)
    assert scores[1] == 1.0 and 0.2 < scores[0] < 1.0  # the request's own word counts more


def test_a_short_pydoc_entry_whose_paragraph_leads_into_an_example_is_its_own_unit():
    """A function's signature and first line are short (merged forward), and its second
    paragraph heads the indented example after it; the signature once went to the function
    before instead, so the entry asked about was scored as part of its neighbour."""
    from toolprune.core.shapes.textunits import split_document

    entries = []
    for k in range(6):
        entries.append(f"    func{k}(text, width)\n        {FILLER[k][:60]}\n        \n        {prose(k, 2)}")
    entries[3] = ("    shorten(text, width, **kwargs)\n        Collapse and truncate the given text.\n        \n"
                  "        As many words as possible are joined and then the placeholder is appended::\n        \n"
                  "            >>> shorten('Hello  world!', width=11)\n            'Hello [...]'")  # fmt: skip
    text = "FUNCTIONS\n" + "\n    \n".join(entries) + "\n"
    units = [text[u.start : u.end] for u in split_document(text, "pydoc").units]
    mine = [u for u in units if "shorten(" in u]
    assert len(mine) == 1 and mine[0].startswith("    shorten(") and "func2(" not in mine[0]


def test_an_entry_over_800_chars_is_scored_by_its_paragraphs():
    """argparse's ``ArgumentParser`` parameter list, 1,100 chars, was one unit: the parameter asked
    about was scored inside it. An entry up to ``ENTRY_CHARS`` is still one unit."""
    from toolprune.core.shapes.textunits import ENTRY_CHARS, split_document

    def entry(name: str, paragraphs: int) -> str:
        body = "\n        \n".join(f"        {prose(k, 3)}" for k in range(paragraphs))
        return f"    {name}(prog=None, usage=None)\n{body}"

    small, large = entry("small", 2), entry("large", 5)
    assert len(small) < ENTRY_CHARS < len(large) <= 1_500
    text = "FUNCTIONS\n" + "\n    \n".join([entry("first", 1), small, large, entry("last", 1)]) + "\n"
    units = [text[u.start : u.end] for u in split_document(text, "pydoc").units]
    assert small in units  # one unit, its two paragraphs together
    assert len([u for u in units if u in large]) == 5  # the large one: its five paragraphs


def test_document_units_are_in_order_and_never_overlap_on_the_real_outputs():
    """Every unit of every real-output document starts after the one before ends (a merge once
    put an rST directive before the short paragraph that heads it, and the spill record's spans
    were then out of range)."""
    from pathlib import Path

    from toolprune.core.shapes.textunits import split_document

    folder = Path(__file__).resolve().parent.parent / "bench" / "realout" / "cases"
    checked = 0
    for case in sorted(folder.iterdir()):
        raw = (case / "input.bin").read_bytes()
        try:
            text = raw.decode()
        except UnicodeDecodeError:
            continue
        for kind_name in ("rst", "pydoc", "man", "markdown"):
            units = split_document(text, kind_name).units
            assert all(a.end <= b.start for a, b in zip(units, units[1:])), (case.name, kind_name)
            assert all(u.start < u.end for u in units), (case.name, kind_name)
        checked += 1
    assert checked > 100


class Tagged(Scorer):
    """Scores a unit by the ``[s=0.3]`` tag in its text, 0 without one (a real implementation of
    the scorer contract, for tests that set each paragraph's score)."""

    name = "tagged"

    def score(self, request, batch):
        out = []
        for i in batch:
            found = re.search(r"\[s=([0-9.]+)\]", request.units[i])
            out.append(float(found.group(1)) if found else 0.0)
        return out


def tagged_doc(scores: list[float], headings: bool = True) -> str:
    parts = ["# Guide"] if headings else []
    for k, s in enumerate(scores):
        if headings:
            parts.append(f"## Part {k}")
        parts.append(f"[s={s}] {prose(k, 6)}")
    return "\n\n".join(parts) + "\n"


def test_a_document_that_would_save_too_little_is_cut_at_the_gentlest_stronger_threshold():
    # at 0.2 only the two 0.1 parts go (under a quarter): 0.21 drops nothing more, 0.22 drops the 0.215 parts too
    scores = [0.9] * 8 + [0.1] * 2 + [0.215] * 6
    result = plan(tagged_doc(scores).encode(), Options(basis="which retry settings does the worker use?"), Tagged())
    assert result.outcome == "ok" and result.stats.threshold == 0.22
    kept = result.render(result.placeholder_ids(), "toolprune omitted")
    assert all(f"## Part {k}\n\n[s=0.9]" in kept for k in range(8))
    assert "[s=0.215]" not in kept and "[s=0.1]" not in kept


def test_the_stronger_cut_stops_a_quarter_above_the_threshold_and_plain_text_is_never_retried():
    scores = [0.9] * 8 + [0.1] * 2 + [0.26] * 6  # only a cut at 0.26 or more would be worth it
    result = plan(tagged_doc(scores).encode(), Options(basis="which retry settings does the worker use?"), Tagged())
    assert result.outcome == "below_floor" and result.stats.threshold == 0.2
    plain = plan(tagged_doc([0.9] * 8 + [0.1] * 2 + [0.215] * 6, headings=False).encode(),
                 Options(basis="which retry settings does the worker use?"), Tagged())  # fmt: skip
    assert plain.stats.split == "blank" and plain.outcome == "below_floor"


def tagged(text: str):
    result = plan(text.encode(), Options(basis="which retry settings does the worker use?"), Tagged())
    out = result.render(result.placeholder_ids(), "toolprune omitted") if result.outcome == "ok" else text
    return result, out


def test_a_kept_paragraph_keeps_its_sections_opening_paragraph():
    parts = ["# Settings"]
    for k in range(16):
        opening = (f"**Command line:** `--setting-{k} INT` sets limit number {k} of the service; zero turns "
                   "the limit off, and any other value turns it on.")  # fmt: skip
        parts += [f"### `setting_{k}`", opening, f"[s={0.9 if k == 7 else 0.05}] {prose(k, 3)}"]
    result, out = tagged("\n\n".join(parts) + "\n")
    assert result.outcome == "ok" and result.stats.split == "markdown"
    assert "### `setting_7`\n\n**Command line:** `--setting-7 INT`" in out  # what the heading is about
    assert "--setting-3 INT" not in out


def test_an_rst_code_block_directive_inherits_its_introduction():
    parts = ["Tasks\n=====", "[s=0.05] " + prose(0, 6)]
    for k in range(14):
        lead = (f"[s=0.9] {prose(k, 1)} To enable exponential backoff between the retries of a task that calls a "
                "flaky service, decorate the task like this:" if k == 4 else f"[s=0.05] {prose(k, 4)}:")  # fmt: skip
        parts += [f"Topic {k}\n--------", lead, f".. code-block:: python\n\n    @app.task(step={k})\n    def fetch():\n        ..."]
        parts += [f"[s=0.05] {prose(k + j, 6)}" for j in range(4)]  # a section too long to be one entry
    result, out = tagged("\n\n".join(parts) + "\n")
    assert result.outcome == "ok" and result.stats.split == "rst"
    assert "@app.task(step=4)" in out
    assert "@app.task(step=2)" not in out


def test_a_markdown_table_and_the_sentence_that_introduces_it_travel_together():
    def doc(lead: str, table_tag: str) -> str:
        parts = ["# Changelog"]
        for k in range(20):
            parts += [f"## {k}.0.0", f"[s=0.05] {prose(k, 4)}"]
            if k == 6:
                rows = "\n".join(f"| {name} | {letter} |" for name, letter in
                                  [("Day", "d"), ("Era", "G"), ("Month", "M"), ("Hour", "H"), ("Minute", "m"), ("Second", "s")])  # fmt: skip
                parts += [lead, f"| Unit {table_tag} | Pattern |\n| ---- | ------- |\n{rows}"]
        return "\n\n".join(parts) + "\n"

    result, out = tagged(doc("[s=0.9] - **BREAKING**: new format string API for the format function, based on the Unicode date field symbols.", "[s=0.0]"))
    assert result.outcome == "ok" and "| Day | d |" in out  # the table inherits its introduction
    lead = "[s=0.05] - The format function now follows the Unicode date field symbols; see the post for more details on why and how to migrate."
    result, out = tagged(doc(lead, "[s=0.9]"))
    assert result.outcome == "ok" and "| Day | d |" in out and lead in out  # and is kept with it


def function_table(n_rows: int, asked: int, rule: str, chapters: int, after: list[str]) -> tuple[list[str], str]:
    """A Markdown page of ``chapters`` filler sections, then a function table of ``n_rows`` rows
    whose row ``asked`` alone scores high, then ``after``: the rows and the page."""
    rows = [f"| `fn_{k}` | str | [s={0.9 if k == asked else 0.02}] {prose(k, 1)} |" for k in range(n_rows)]
    table = f"| Name | Arguments | What it does |\n{rule}\n" + "\n".join(rows)
    parts = ["# Library"]
    for k in range(chapters):
        parts += [f"## Chapter {k}", f"[s=0.03] {prose(k, 5)}"]
    return rows, "\n\n".join([*parts, "## Functions", table, *after]) + "\n"


def test_a_large_markdown_table_is_split_into_rows_headed_by_its_header():
    rows, text = function_table(24, 9, "| ---- | :-------: | ------------ |", 6, ["## License", f"[s=0.01] {prose(2, 4)}"])
    result, out = tagged(text)
    assert result.outcome == "ok" and result.stats.split == "markdown"
    assert rows[9] in out  # the row asked about
    assert "## Functions\n\n| Name | Arguments | What it does |\n| ---- | :-------: | ------------ |" in out  # its header and section
    assert not any(row in out for k, row in enumerate(rows) if k != 9)  # and none of the other rows
    result, out = tagged(text.replace("\n", "\r\n"))  # CRLF line ends: the same rows
    assert result.outcome == "ok" and rows[9] in out and not any(row in out for k, row in enumerate(rows) if k != 9)


def test_a_kept_row_keeps_the_paragraph_that_introduces_its_table():
    lead = f"[s=0.02] The functions below are the whole public API. {prose(3, 2)}"
    rows, text = function_table(24, 9, "| ---- | --------- | ------------ |", 6, [])
    text = text.replace("## Functions\n\n", f"## Functions\n\n{lead}\n\n")
    result, out = tagged(text)
    assert result.outcome == "ok" and rows[9] in out
    assert f"{lead}\n\n| Name | Arguments | What it does |" in out  # the row, its header and the lead-in


def test_a_tables_header_and_lead_in_never_join_the_last_row_of_the_table_before():
    from toolprune.core.shapes.textunits import split_document

    first = "\n".join(["| name | value |", "|:--|--:|"] + [f"| fn{i} | value {i} |" for i in range(9)])
    second = "\n".join(["| opt | default |", "|-|-|"] + [f"| opt{i} | default {i} |" for i in range(9)])
    text = "# Reference\n\n" + first + "\n\nOptions:\n\n" + second + "\n"
    units = [text[u.start : u.end] for u in split_document(text, "markdown").units]
    assert "| fn8 | value 8 |" in units and "| opt | default |\n|-|-|" in units  # rule variants count too
    assert all(u.count("|") <= 6 for u in units)  # no unit holds two rows, or a row and a header


def test_a_weak_table_row_between_dropped_rows_is_a_record_not_an_island():
    rows = [f"| `fn_{k}` | str | [s={0.25 if k == 5 else 0.02}] {prose(k, 1)} |" for k in range(14)]
    table = "| Name | Arguments | What it does |\n| --- | --- | --- |\n" + "\n".join(rows)
    parts = ["# Library"]
    for k in range(10):
        parts += [f"## Chapter {k}", f"[s={0.9 if k == 2 else 0.03}] {prose(k, 5)}"]
    result, out = tagged("\n\n".join([*parts, "## Functions", table]) + "\n")
    assert result.outcome == "ok" and rows[5] in out and not result.islands & result.rows


def test_a_small_markdown_table_stays_one_paragraph():
    rows, text = function_table(6, 0, "| ---- | --------- | ------------ |", 12, [])
    result, out = tagged(text)
    assert result.outcome == "ok" and all(row in out for row in rows)


def option_list(n_items: int, asked: int, kind: str = "markdown", lead: str = "**Options:**") -> tuple[list[str], str]:
    """A page of filler sections, then ``lead`` and a list of ``n_items`` options of which item
    ``asked`` alone scores high: the items and the page."""
    items = [f"*   ``--option-{k}``: [s={0.9 if k == asked else 0.02}] {prose(k, 2)}" for k in range(n_items)]
    if kind == "rst":
        parts = ["Watcher\n=======", f"[s=0.03] {prose(0, 5)}"]
        for k in range(10):
            parts += [f"Chapter {k}\n---------", f"[s=0.03] {prose(k, 5)}"]
        parts += ["Usage\n-----"]
    else:
        parts = ["# Watcher"]
        for k in range(10):
            parts += [f"## Chapter {k}", f"[s=0.03] {prose(k, 5)}"]
        parts += ["## Usage"]
    return items, "\n\n".join([*parts, lead, "\n".join(items)]) + "\n"


def test_a_long_list_is_split_into_items_kept_with_their_lead_in():
    for kind in ("markdown", "rst"):
        items, text = option_list(14, 8, kind)
        result, out = tagged(text)
        assert result.outcome == "ok" and result.stats.split == kind
        assert "**Options:**" in out and items[8] in out  # the item asked about, with what it is an item of
        assert not any(item in out for k, item in enumerate(items) if k != 8)  # and none of the others
        result, out = tagged(text.replace("\n", "\r\n"))
        assert result.outcome == "ok" and items[8] in out and not any(item in out for k, item in enumerate(items) if k != 8)


def test_the_items_of_a_long_list_do_not_inherit_a_strong_lead_in():
    """A lead-in that matches the request ("the parser's options, apart from the defaults, are:")
    above a reference list of many items: each item is judged by its own words, so the one asked
    about is kept with the lead-in and the others go (xml2js' README kept its 20 options whole)."""
    from toolprune.core.decide import INTRO_UNITS_MAX

    items, text = option_list(14, 8, lead="[s=0.9] **Options:**")
    result, out = tagged(text)
    assert result.outcome == "ok" and items[8] in out and "**Options:**" in out
    assert not any(item in out for k, item in enumerate(items) if k != 8)
    assert len([i for i in result.intros if i >= 0]) > INTRO_UNITS_MAX  # the list is in more units than that


def test_a_help_page_s_options_are_the_items_of_a_list():
    """``ld --help`` (a real capture in the real-output set) lists 130 options one or two lines
    each, with no blank line between: each option is a unit (short ones joined in pairs, as short
    paragraphs are), not a 40-line piece kept whole for the one option asked about."""
    from toolprune.core.shapes.textunits import split_document

    case = ROOT / "bench" / "realout" / "cases" / "other-ld-help-drop-unneeded-shared-libs"
    text = (case / "input.bin").read_text(encoding="utf-8")
    units = [text[u.start : u.end] for u in split_document(text, "man").units]
    asked = next(unit for unit in units if "--as-needed " in unit)
    assert asked.startswith("  --as-needed ") and asked.count("\n  -") <= 1  # the option and at most one more
    assert "".join(units).replace("\n", "") == "".join(text.split("\n\n")).replace("\n", "")  # nothing lost
    request = json.loads((case / "case.json").read_text(encoding="utf-8"))["request"]
    result, out = pruned(text, request)
    assert "Only set DT_NEEDED for following dynamic libs if used" in out and len(out) < len(text) / 2


def test_a_lead_in_directly_above_a_long_list_is_its_lead_in_too():
    items, text = option_list(14, 8, lead="The options are:")
    text = text.replace("The options are:\n\n", "The options are:\n")  # no blank line under it
    result, out = tagged(text)
    assert result.outcome == "ok" and items[8] in out and "The options are:" in out
    assert not any(item in out for k, item in enumerate(items) if k != 8)


def test_a_short_list_stays_one_paragraph():
    from toolprune.core.shapes.textunits import LIST_ITEMS

    items, text = option_list(LIST_ITEMS - 1, 0)  # the first item's tag scores the whole list
    result, out = tagged(text)
    assert result.outcome == "ok" and all(item in out for item in items)


def test_a_long_list_item_is_cut_like_any_long_paragraph():
    from toolprune.core.shapes.textunits import MAX_CHARS, split_document

    items = [f"- item {k}: " + ("word " * 50 if k != 3 else "\n  ".join(["word " * 20] * 50)) for k in range(10)]
    text = "# List\n\nThe items:\n\n" + "\n".join(items) + "\n"
    units = [text[u.start : u.end] for u in split_document(text, "markdown").units]
    assert max(len(u) for u in units) <= MAX_CHARS
    assert "".join(units).replace("\n", "") == text.replace("\n", "")  # nothing lost or doubled


def test_a_real_document_all_about_the_request_is_cut_stronger_and_restores():
    # cross-spawn's README and "will it quote a multi-line argument for a .cmd wrapper?": at 0.2
    # the cut saves under a quarter (most of the README is about spawning commands); three steps
    # stronger it saves enough
    case = ROOT / "bench" / "realout" / "cases" / "markdown-cross-spawn-windows-cmd-newline-in-argument"
    data = (case / "input.bin").read_bytes()
    basis = json.loads((case / "case.json").read_text(encoding="utf-8"))["request"]
    proc = cli("-v", "--basis", basis, input=data)
    line = proc.stderr.decode()
    assert proc.returncode == 0 and "outcome=ok" in line and " threshold=0.23 " in line, line
    assert b"Line breaks (`\\r` and `\\n`) can't be escaped" in proc.stdout
    assert restore(proc.stdout) == data
    proc = cli("-v", "--basis", basis, "--threshold", "0.2", "--lang", "en", input=data)
    assert " threshold=0.23 " in proc.stderr.decode()  # a number given as the threshold is stepped the same way
    title = cli("--explain", "--basis", basis, input=data).stderr.decode().splitlines()[0]
    assert title == "toolprune --explain: outcome=ok threshold=0.23 (asked 0.2: that cut saved under 25 %)"
    rows = [json.loads(line) for line in cli("--explain-json", "--basis", basis, input=data).stderr.decode().splitlines()]
    assert {row["threshold"] for row in rows} == {0.23}
    assert all(row["score"] < 0.23 for row in rows if row["decision"] == "dropped")


@pytest.mark.parametrize(("name", "split"), [
    # git-bisect(1) and "how do I tell `git bisect run` a commit cannot be tested?": at 0.2 the cut
    # saves under a quarter (most of the page is about bisecting); a man page's entries dropped by a
    # stronger cut are the near misses
    ("man-git-bisect-run-untestable", "man"),
    # `grep -rn` over the ws package for its defaults: three steps stronger the cut had dropped the
    # client's `perMessageDeflate: true` default (0.153)
    ("grep-ws-server-client-compression-default-max-message", "listing"),
])  # fmt: skip
def test_a_real_list_of_entries_all_about_the_request_is_never_cut_stronger(name, split):
    case = ROOT / "bench" / "realout" / "cases" / name
    data = (case / "input.bin").read_bytes()
    basis = json.loads((case / "case.json").read_text(encoding="utf-8"))["request"]
    proc = cli("-v", "--basis", basis, input=data)
    line = proc.stderr.decode()
    assert proc.returncode == 0 and "outcome=below_floor" in line and f"split={split}" in line, line
    assert " threshold=0.2 " in line and proc.stdout == data  # passed through whole, at the threshold asked for


def test_a_long_code_block_under_a_kept_introduction_is_kept_whole():
    # directive line and code are separate units when together over 1,500 chars: the code scores
    # what its directive line does, not a fifth of it
    parts = ["Tasks\n====="]
    for k in range(8):
        lead = (f"[s=0.9] {prose(k, 2)} Decorate the task like this:" if k == 4 else f"[s=0.05] {prose(k, 3)}:")
        code = "\n".join(f"    line_{k}_{j} = call_something_long({j}, keyword=value)  # a comment on it" for j in range(30))
        parts += [f"Topic {k}\n--------", lead, f".. code-block:: python\n\n{code}", f"[s=0.05] {prose(k + 1, 4)}"]
    result, out = tagged("\n\n".join(parts) + "\n")
    assert result.outcome == "ok" and result.stats.split == "rst"
    assert "line_4_29 = call_something_long(29" in out and ".. code-block:: python\n\n    line_4_0" in out
    assert "line_2_29" not in out


def test_a_kept_block_keeps_its_introductions_heading():
    # the list after --opt-6's last paragraph is headed by the title, its introduction by the option
    parts = ["Options\n======="]
    for k in range(12):
        parts += [f".. option:: --opt-{k}"]
        parts += [f"   [s=0.05] {prose(k + j, 8)}" for j in range(3)]  # an entry too long to be one unit
        parts += [f"   [s=0.05] {prose(k, 2)} The accepted values are listed below:"]
        parts += [f"- [s={0.9 if k == 6 else 0.05}] value-{k} means something, described at enough length to be a "
                  "unit of its own and not merged into the paragraph before it"]  # fmt: skip
    result, out = tagged("\n\n".join(parts) + "\n")
    assert result.outcome == "ok" and "value-6 means something" in out
    assert ".. option:: --opt-6" in out  # the introduction is kept, and so is what it belongs to
    assert ".. option:: --opt-3" not in out


def test_the_stronger_threshold_reported_is_the_one_decided_by(monkeypatch):
    # 0.2 * 1.05 is 0.21000000000000002 in floating point: a unit scoring 0.21 must be kept at 0.21
    monkeypatch.setattr(decide, "FAR_CHARS", 10**9)  # the weak parts are far from the strong ones: no far rule here
    scores = [0.9] * 8 + [0.1] * 3 + [0.205] * 6 + [0.21] * 2
    result = plan(tagged_doc(scores).encode(), Options(basis="which retry settings does the worker use?"), Tagged())
    assert result.outcome == "ok" and result.stats.threshold == 0.21
    kept = result.render(result.placeholder_ids(), "toolprune omitted")
    assert kept.count("[s=0.21]") == 2 and "[s=0.205]" not in kept


def test_a_document_that_would_drop_nothing_is_cut_stronger_too():
    scores = [0.9] * 8 + [0.22] * 8  # nothing under 0.2; at 0.22 half of it goes
    result = plan(tagged_doc(scores).encode(), Options(basis="which retry settings does the worker use?"), Tagged())
    assert result.outcome == "ok" and result.stats.threshold == 0.23


def test_a_weak_match_far_from_every_strong_one_is_dropped():
    """Two strong sections open the guide; weak ones (0.22, over the threshold) follow, some right
    after them, some 6,000 chars further down: only the far ones go, and --explain says so."""
    parts = ["# Guide"]
    for k in range(24):
        s = 0.9 if k in (0, 1) else 0.05 if 4 <= k < 16 else 0.22
        parts += [f"## Part {k}", f"[s={s}] {prose(k, 6)}"]
    result, out = tagged("\n\n".join(parts) + "\n")
    assert result.outcome == "ok" and out.count("[s=0.9]") == 2
    assert "## Part 2\n\n[s=0.22]" in out and "## Part 3\n\n[s=0.22]" in out  # near the strong ones
    far_units = sorted(result.far)
    assert far_units and all(result.scores[i] == 0.22 for i in far_units)  # shown with their own score
    text = result.text
    assert all(result.units[i].start > text.index("## Part 16") for i in far_units)
    assert {row["decision"] for row in explain.rows(result) if row["unit"] in far_units} == {"far"}
    assert out.count("[s=0.22]") == 2  # of ten: the eight after the unrelated parts are gone
    stronger = plan(("\n\n".join(parts) + "\n").encode(), Options(basis="retry", threshold=0.3), Tagged())
    assert not stronger.far  # at strong (0.3) they are under the threshold already: dropped, not far


def test_a_small_page_has_no_far_units(monkeypatch):
    """On a page under FAR_MIN_CHARS nothing is far: a weak match 1,000 chars from the strong ones
    stays (lsblk's exit status, in a 6,153-char man page, went as far before the bound)."""
    monkeypatch.setattr(decide, "FAR_CHARS", 300)  # so that this small page has weak parts "far" away
    parts = ["# Guide"]
    for k in range(16):
        s = 0.9 if k in (0, 1) else 0.05 if 4 <= k < 12 else 0.22
        parts += [f"## Part {k}", f"[s={s}] {prose(k, 6)}"]
    text = "\n\n".join(parts) + "\n"
    assert len(text) < decide.FAR_MIN_CHARS
    result, out = tagged(text)
    assert result.outcome == "ok" and not result.far and out.count("[s=0.22]") == 6
    monkeypatch.setattr(decide, "FAR_MIN_CHARS", 0)  # the same page without the bound: the far ones go
    result, out = tagged(text)
    assert result.far and out.count("[s=0.22]") < 6


def test_a_second_parts_best_unit_is_never_far(monkeypatch):
    """The part floor (0.28) keeps the best units of each part of a request; the weak band stops
    under it at any threshold, also at a stronger cut or ``-t 0.21`` (found by an audit: the
    license paragraphs went as far at 0.21, and the answer to the second part with them)."""
    import random

    rng = random.Random(4)
    words = ("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa "
             "quebec romeo sierra tango uniform victor whiskey xray yankee zulu").split()

    def filler(n: int) -> str:
        return " ".join(rng.choice(words) for _ in range(n))

    parts = ["# Client guide", "## Retry timeout"]
    parts += [f"The retry timeout {filler(10)} retry timeout {filler(60)}." for _ in range(8)]
    parts += ["## Misc"] + [filler(80) + "." for _ in range(6)]
    parts += ["## Legal"] + [f"The license {filler(120)}." for _ in range(6)]
    text = "\n\n".join(parts) + "\n"
    basis = "How do I set the retry timeout, and what license is it under?"
    for threshold in (0.2, 0.21, 0.25):
        result = plan(text.encode(), Options(basis=basis, threshold=threshold), LexicalScorer())
        out = result.render(result.placeholder_ids(), "toolprune omitted") if result.outcome == "ok" else text
        assert "The license" in out and not result.far, threshold


def test_a_far_weak_match_is_kept_when_a_kept_unit_needs_it():
    """The far rule runs before the structure rules: a weak paragraph that introduces a strong
    code block far down the page is kept with it, and a strong unit's section is never far."""
    parts = ["# Guide", "## Setup", f"[s=0.9] {prose(0, 6)}"]
    parts += [f"## Part {k}\n\n[s=0.05] {prose(k, 6)}" for k in range(1, 14)]
    lead = f"[s=0.22] {prose(20, 2)} The worker retries like this:"
    code = "```\n" + "\n".join(f"[s=0.9] retry_{k} = {k}" for k in range(6)) + "\n```"
    last = f"[s=0.22] {prose(21, 6)}"
    result, out = tagged("\n\n".join([*parts, "## Retries", lead, code, last]) + "\n")
    assert result.outcome == "ok" and lead in out and "retry_5 = 5" in out and last in out
    assert not result.far  # the introduction is kept by its block, the last paragraph shares its heading
    assert {row["decision"] for row in explain.rows(result) if row["starts"].startswith("[s=0.22]")} == {"kept"}
    titled = ["# [s=0.22] Worker guide", *parts[3:], "## Retries", lead, code, last]  # the title, far above
    result, out = tagged("\n\n".join(titled) + "\n")
    assert result.outcome == "ok" and out.count("# [s=0.22] Worker guide") == 1 and not result.far


def test_a_long_sections_opening_paragraph_is_not_kept_for_a_paragraph_far_below_it():
    parts = ["# Guide", "The opening paragraph of a long document under its only title, " + prose(0, 3)]
    parts += [f"[s={0.9 if k == 14 else 0.05}] {prose(k, 3)}" for k in range(20)]  # about 4,500 chars under one title
    result, out = tagged("\n\n".join(parts) + "\n")
    assert result.outcome == "ok" and "[s=0.9]" in out
    assert "The opening paragraph of a long document" not in out


def test_a_table_after_a_table_or_a_code_directive_after_a_directive_is_not_introduced_by_it():
    from toolprune.core.shapes.textunits import _introduced

    table = "| a | b |\n| - | - |\n| 1 | 2 |"
    text = f"{table}\n\n{table}\n\n```\ncode\n```\n\n{table}\n\n.. note:: x\n\n.. code-block:: sh\n\n    ls\n"
    spans, at = [], 0
    for block in text.rstrip("\n").split("\n\n"):
        spans.append((at, at + len(block)))
        at += len(block) + 2
    assert not _introduced(text, spans[0], spans[1], "markdown")  # a table after a table
    assert not _introduced(text, spans[2], spans[3], "markdown")  # a table after a fence
    assert not _introduced(text, spans[4], spans[5], "rst")  # a code block after a directive


def test_when_no_stronger_cut_is_worth_it_the_decision_at_the_asked_threshold_stands():
    # nothing under 0.2, and the steps up to 0.25 drop too little: what the steps tried is undone
    scores = [0.9] * 14 + [0.24] * 2
    result = plan(tagged_doc(scores).encode(), Options(basis="which retry settings does the worker use?"), Tagged())
    assert result.outcome == "nothing_dropped" and result.dropped == [] and result.runs == []
    assert result.stats.threshold == 0.2 and result.stepped_from is None


NOTE = ("Note: the retry limit also applies here, to every upload of the nightly batch, whatever the size of its "
        "files or the region it goes to.")


def test_a_short_weak_stretch_between_two_dropped_runs_goes_with_them_under_one_marker(tmp_path):
    """Part 5's heading and its short opening note (0.25: kept by score, under 1.5 times 0.2) sit
    between two dropped stretches: they are dropped with them, one marker names all of it, and
    --explain says ``island``. A note at 0.35 stays, and so does one among plain paragraphs."""
    def doc(note: float, headings: bool = True) -> str:
        parts = ["# Guide"] if headings else []
        for k in range(12):
            parts += [f"## Part {k}"] if headings else []
            if k == 5:
                parts.append(f"[s={note}] {NOTE}")
            parts.append(f"[s={0.9 if k in (0, 1, 10, 11) else 0.05}] {prose(k, 6)}")
        return "\n\n".join(parts) + "\n"

    result, out = tagged(doc(0.25))
    assert result.outcome == "ok" and result.stats.split == "markdown"
    assert NOTE not in out and "## Part 5" not in out
    assert len(result.runs) == 1 and result.islands
    text = result.text
    assert {text[result.units[i].start : result.units[i].end] for i in result.islands} >= {
        "## Part 5", f"[s=0.25] {NOTE}"}  # fmt: skip
    assert {row["decision"] for row in explain.rows(result) if row["unit"] in result.islands} == {"island"}
    passed = explain.rows(result, outcome="below_floor")  # had it passed through, they scored enough to stay
    assert {row["decision"] for row in passed if row["unit"] in result.islands} == {"kept"}
    assert {row["decision"] for row in passed if row["score"] == 0.05} == {"below"}
    kept, kept_out = tagged(doc(0.35))
    assert f"## Part 5\n\n[s=0.35] {NOTE}" in kept_out and not kept.islands
    plain, plain_out = tagged(doc(0.25, headings=False))
    assert plain.stats.split == "blank" and f"[s=0.25] {NOTE}" in plain_out and not plain.islands
    from toolprune.service import run
    from toolprune.spill import SpillStore

    data = doc(0.25).encode()
    pruned_output = run(data, Options(basis="which retry settings does the worker use?"), Tagged(), SpillStore(tmp_path))
    assert restore(pruned_output.output, spill_dir=str(tmp_path)) == data


def test_a_dropped_run_no_longer_than_its_marker_is_kept():
    """A two-line section scored 0 between two kept ones: its marker would be longer than the
    section, so it stays (``short`` in --explain), and the output is the shorter for it."""
    parts = ["# Guide"]
    for k in range(12):
        parts += [f"## Part {k}", f"[s={0.9 if k in (3, 4) else 0.05}] {prose(k, 6)}"]
        if k == 3:
            parts.append("### fn\n\nType: `Function`")
    result, out = tagged("\n\n".join(parts) + "\n")
    assert result.outcome == "ok"
    assert "### fn\n\nType: `Function`\n\n## Part 4" in out
    assert [row["starts"] for row in explain.rows(result) if row["decision"] == "short"] == ["### fn Type: `Function`"]
    assert out.count("toolprune omitted P") == len(result.runs) + 1 == 3  # the header's, one per run


def test_no_island_is_made_where_no_marker_was():
    """Two empty subsections around a weak note would each be kept as shorter than a marker:
    the note between them is not an island (joining them would add a marker, not save one)."""
    parts = ["# Guide"]
    for k in range(20):
        parts += [f"## Part {k}", f"[s={0.9 if k in (0, 3) else 0.05}] {prose(k, 8)}"]
        if k == 3:
            parts += ["### Empty A", "### Retry note", f"[s=0.25] {NOTE}", "### Empty B", "### Kept",
                      f"[s=0.9] {prose(k + 1, 8)}"]  # fmt: skip
    result, out = tagged("\n\n".join(parts) + "\n")
    assert result.outcome == "ok" and not result.islands
    assert f"### Empty A\n\n### Retry note\n\n[s=0.25] {NOTE}\n\n### Empty B\n\n### Kept" in out


def test_a_run_in_a_json_string_is_measured_against_its_escaped_marker():
    """In a JSON string written in ASCII, a Japanese marker takes six characters per kana or
    kanji: a 70-character heading costs less than its marker there, and stays."""
    parts = ["# Guide"]
    for k in range(20):
        parts += [f"## Part {k}", f"[s={0.9 if k in (0, 3) else 0.05}] {prose(k, 8)}"]
        if k == 3:
            parts += ["### An empty subsection whose title alone is seventy characters long..", "### Kept",
                      f"[s=0.9] {prose(k + 1, 8)}"]  # fmt: skip
    data = json.dumps({"title": "x", "content": "\n\n".join(parts) + "\n"}).encode()
    result = plan(data, Options(basis="ワーカーの再試行の設定は？ retry settings"), Tagged())
    out = result.render(result.placeholder_ids(), "toolprune omitted")
    assert result.outcome == "ok" and result.lang == "ja"
    assert "seventy characters long..\\n\\n### Kept" in out and json.loads(out)["title"] == "x"


def test_a_document_in_an_mcp_text_item_keeps_the_heading_of_a_kept_paragraph():
    """An MCP tool result reading a README (a filesystem server's ``read_file``) is decided by the
    same structure rules as the README on its own: the kept section keeps its heading."""
    parts = ["# Guide"]
    for k in range(20):
        parts += [f"## Part {k}", f"[s={0.9 if k == 7 else 0.05}] {prose(k, 8)}"]
    readme = "\n\n".join(parts) + "\n"
    result_json = {"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": readme}], "isError": False}}
    result = plan(json.dumps(result_json).encode(), Options(basis="which retry settings does the worker use?"), Tagged())
    assert result.outcome == "ok" and result.stats.shape == "json_mcp"
    text = json.loads(result.render(result.placeholder_ids(), "toolprune omitted"))["result"]["content"][0]["text"]
    assert f"## Part 7\n\n[s=0.9] {prose(7, 8)}" in text and "## Part 8" not in text
    alone, out = tagged(readme)
    assert text == out  # the same cut as the README on its own


def kerberos_result() -> bytes:
    """Two text items of one MCP result: the first answers, the second only mentions the word in
    one paragraph, which scores under 1.5 times the threshold against the first item's best (the
    scores are relative across the result). From an audit's reproducer."""
    filler = "The build runs and the tests pass quietly while the server writes its output to the log."

    def doc(title: str, special: str, top: bool) -> str:
        parts = [f"# {title}", ""] if top else []
        for k in range(40):
            parts += [f"## Part {k}", "", f"{filler} Part {k} of {title} covers routine matters only, nothing more.", ""]
            if k == 20:
                parts += [special, ""]
        return "\n".join(parts)

    first = doc("Alpha", "The kerberos realm is set with KRB_REALM; kerberos tickets renew hourly; kerberos keytab lives in /etc.", True)
    second = doc("Beta", "Note: kerberos is mentioned here.", False)
    return json.dumps({"content": [{"type": "text", "text": first}, {"type": "text", "text": second}]}).encode()


def test_an_mcp_text_item_is_never_reduced_to_markers_by_the_structure_rules():
    result = plan(kerberos_result(), Options(basis="What is the kerberos realm?"), LexicalScorer())
    assert result.outcome == "ok"
    items = json.loads(result.render(result.placeholder_ids(), "toolprune omitted"))["content"]
    assert "The kerberos realm is set with KRB_REALM" in items[0]["text"]
    assert "Note: kerberos is mentioned here." in items[1]["text"]  # its one match, weak as it is


def test_explain_names_the_structure_decisions_inside_an_mcp_text_item():
    parts = ["# Guide"]
    for k in range(20):
        parts += [f"## Part {k}", f"[s={0.9 if k == 7 else 0.05}] {prose(k, 8)}"]
        if k == 12:
            parts += ["## Note", f"[s=0.25] {prose(3, 2)}"]  # a weak match between two dropped runs
    readme = "\n\n".join(parts) + "\n"
    alone, _ = tagged(readme)
    assert alone.islands  # the note is an island on its own
    data = json.dumps({"content": [{"type": "text", "text": readme}], "isError": False}).encode()
    result = plan(data, Options(basis="which retry settings does the worker use?"), Tagged())
    rows = [r for r in explain.rows(result) if r["array"] == "content.0.text"]
    assert {r["unit"] for r in rows if r["decision"] == "island"} == alone.islands
    assert {r["unit"] for r in rows if r["decision"] == "kept"} == set(range(len(alone.units))) - set(alone.dropped)


def test_tidy_runs_joins_across_a_stretch_holding_a_short_run_and_never_across_a_pinned_unit():
    """Directly on a plan: dropped, weak, a run shorter than its marker, weak, dropped. The two
    long runs join across all three (the short run goes with them, and is no longer ``short``);
    with the first weak unit pinned, nothing joins and the short run stays kept."""
    from toolprune.core.models import Stats
    from toolprune.core.plans import Plan
    from toolprune.core.text import Unit

    paragraphs = ["a" * 500, "b" * 50, "c" * 10, "d" * 50, "e" * 500]
    text, units, pos = "\n\n".join(paragraphs), [], 0
    for p in paragraphs:
        units.append(Unit(pos, pos + len(p)))
        pos += len(p) + 2

    def tidied(pinned: set[int]) -> Plan:
        p = Plan("nothing_dropped", Stats(), text=text)
        p.units, p.heads, p.intros, p.pinned = units, [-1] * 5, [-1] * 5, pinned
        p.scores, p.dropped = [0.05, 0.25, 0.0, 0.25, 0.05], [0, 2, 4]
        p.runs = decide.runs(units, p.dropped)
        decide.tidy_runs(p, 0.2, "toolprune omitted")
        return p

    joined = tidied(set())
    assert joined.runs == [(0, 4)] and joined.dropped == [0, 1, 2, 3, 4]
    assert joined.islands == {1, 2, 3} and not joined.short
    apart = tidied({1})
    assert apart.runs == [(0, 0), (4, 4)] and apart.dropped == [0, 4] and apart.short == {2} and not apart.islands


KEYRING = ROOT / "tests" / "fixtures" / "realout" / "rst-keyring-ci-hang-disable-via-env"


def test_every_item_of_a_list_whose_items_stand_apart_is_introduced_by_its_lead_in():
    """keyring's README.rst (a real case of the evaluation set): "there are several ways to do
    it:" leads three items, blank lines between them. The answer is the second, which shares
    no word with the request; as an item of the list the lead-in introduces, it scores at least
    as much as the lead-in."""
    from toolprune.core.shapes.textunits import split_document

    case = json.loads((KEYRING / "case.json").read_text())
    data = (KEYRING / "input.bin").read_bytes()
    text = data.decode()
    structure = split_document(text, "rst")
    items = [k for k, u in enumerate(structure.units) if text.startswith("- ", u.start) and "keyring" in text[u.start : u.end]]
    second = next(k for k in items if text.startswith("- Configure the Null keyring in the environment", structure.units[k].start))
    lead = structure.intros[second]
    assert lead >= 0 and lead == structure.intros[second - 1] == structure.intros[second + 1]
    assert text[structure.units[lead].start : structure.units[lead].end].rstrip().endswith(":")
    result = plan(data, Options(case["request"]), LexicalScorer())
    out = result.render(["P1-abcdef12"] * len(result.runs), "toolprune omitted")
    assert result.outcome == "ok" and all(g in out for g in case["gold"])


def config_block(strong: int) -> str:
    """A README whose request-config reference is one long fenced block of commented options."""
    options = []
    for k in range(24):
        tag = f"[s={0.9 if k == strong else 0.05}]"
        options.append(f"  // {tag} `option{k}` {prose(k, 1)}\n  // {prose(k + 1, 1)}\n  option{k}: {k},")
    return "\n\n".join(options)


def test_a_long_code_block_is_cut_into_parts_headed_by_its_opening():
    block = "```js\n{\n" + config_block(strong=13) + "\n}\n```"
    doc = "\n\n".join(["# Client", f"[s=0.05] {prose(0, 3)}", "[s=0.05] These are the options of a request:", block,
                       f"[s=0.05] {prose(2, 3)}"]) + "\n"  # fmt: skip
    result, out = tagged(doc)
    assert result.outcome == "ok" and result.stats.split == "markdown"
    assert "```js\n{\n  // [s=0.05] `option0`" in out  # the part with the opening fence: what the block is
    assert "option13: 13," in out and "These are the options of a request:" in out
    assert "option5: 5," not in out and "option20: 20," not in out


def test_a_long_code_block_under_a_kept_introduction_keeps_all_its_parts():
    block = "```js\n{\n" + config_block(strong=-1) + "\n}\n```"
    sections = ["# Client"]
    for k in range(6):
        lead = f"[s={0.9 if k == 3 else 0.05}] {prose(k, 2)} Every option of a request, with its default:"
        sections += [f"## Part {k}", f"[s=0.05] {prose(k, 6)}", lead, block.replace("option", f"opt{k}_")]
    result, out = tagged("\n\n".join(sections) + "\n")
    assert result.outcome == "ok"
    assert all(f"opt3_{j}: {j}," in out for j in range(24))
    assert "opt1_5: 5," not in out


def test_a_markdown_setext_title_heads_its_section():
    parts = ["Client\n======", f"[s=0.05] {prose(0, 6)}"]
    for k in range(8):
        parts += [f"Part {k}\n-------", f"[s=0.05] {prose(k + 1, 6)}", f"[s={0.9 if k == 5 else 0.05}] {prose(k, 6)}"]
    links = "\n".join(f"- [guide {j}](https://example.invalid/guide/{j})" for j in range(12))
    parts.insert(3, f"## Install\n\n[s=0.05] {prose(3, 6)}\n\n{links}")  # ATX headings and links: Markdown
    result, out = tagged("\n\n".join(parts) + "\n")
    assert result.outcome == "ok" and result.stats.split == "markdown"
    assert "Part 5\n-------" in out and f"[s=0.9] {prose(5, 6)}" in out  # a kept paragraph keeps its title
    assert "Part 2\n-------" not in out


def test_an_rst_title_with_no_blank_line_under_it_heads_its_section():
    """docutils needs no blank line under a title, and the changelog of ``limits`` puts each
    release's date there (``v5.0.0`` / ``------`` / ``Release Date: 2025-04-15``; read through the
    MCP filesystem server, a real result). Read as one paragraph, the title was no heading and went
    with the release above it: the breaking changes were kept without their version and date."""
    case = ROOT / "tests" / "fixtures" / "realout" / "mcp-fs-read-limits-history-elastic-expiry-emcache-dropped-sliding-clear-fix"
    data = (case / "input.bin").read_bytes()
    request = json.loads((case / "case.json").read_text(encoding="utf-8"))["request"]
    proc = cli("--basis", request, input=data, check=True)
    text = json.loads(proc.stdout)["result"]["content"][0]["text"]
    assert "v5.0.0\n------\nRelease Date: 2025-04-15\n\n* Backward incompatible changes" in text
    original = json.loads(data)["result"]["content"][0]["text"]
    assert restore(text.encode()) == original.encode()  # the text item rebuilt exactly through `omitted`

    from toolprune.core.shapes.textunits import _titled

    def body(doc: str) -> str | None:
        found = _titled(doc, 0, len(doc))
        return doc[found[0] : found[1]] if found else None

    assert body("v5.0.0\n------\nRelease Date: 2025-04-15") == "Release Date: 2025-04-15"
    assert body("Title\n=====\nbody\nmore") == "body\nmore"
    assert body("A longer title\n-----\nbody") is None  # an underline shorter than its title is none
    assert body("  indented\n  ----------\nbody") is None  # a block quote, no title
    assert body("v5.0.0\n------") is None  # a title alone: the usual heading
    assert body("some prose\nand more\nlines") is None


def test_a_part_of_a_long_code_block_is_never_a_heading():
    """A shell block's ``# step`` comments after its blank lines are no Markdown titles: read as
    titles they headed the rest of the document (an audit's finding)."""
    from toolprune.core.shapes.textunits import split_document

    stanzas = "\n\n".join(f"# step {k}: {prose(k, 1)}\nrun-step --number {k} --verbose\n" + "=" * 8 for k in range(30))
    doc = f"# Guide\n\n{prose(0, 6)}\n\n```bash\n{stanzas}\n```\n\n## Config\n\n{prose(1, 6)}\n"
    structure = split_document(doc, "markdown")
    starts = [doc[u.start : u.start + 12] for u in structure.units]
    config = next(k for k, start in enumerate(starts) if start.startswith("## Config"))
    assert starts[structure.heads[config]].startswith("# Guide")
    fence = starts.index("```bash\n# st")
    assert all(structure.heads[k] == fence for k in range(fence + 1, config))


def test_the_kind_patterns_never_reach_across_a_line_break():
    """``\\s*`` at a line's start also matched the line breaks after it, so every line of a run of
    blank lines was scanned again to its end: 64,000 of them took seconds (an audit's finding)."""
    from toolprune.core.kinds import _MD_OTHER, _RST_DIRECTIVE

    assert _MD_OTHER.match("\n\n  - [x] done") is None and _MD_OTHER.match("  - [x] done")
    assert _RST_DIRECTIVE.match("\n\n   .. note::") is None and _RST_DIRECTIVE.match("   .. note::")


SQLITE_QUERY = ROOT / "bench" / "realout" / "cases" / "mcp-sqlite-read-query-debian-libs" / "input.bin"


def test_a_python_list_of_records_is_split_into_its_elements():
    """mcp-server-sqlite's ``read_query`` returns ``str(rows)``: one 24,000-char line that was
    one unit too large to score, passed through whole. Each dict is now a unit (``split=records``),
    the separators stay, and the rows the request names are kept (a real capture, batch 33 of the
    real-output set)."""
    data = SQLITE_QUERY.read_bytes()
    text = json.loads(data)["result"]["content"][0]["text"]
    assert kind(text) == "records"
    result, out = pruned(text, "Which versions of the OpenSSL and zlib runtime libraries are installed here?")
    assert result.outcome == "ok" and result.stats.split == "records"
    assert "{'package': 'libssl3', 'version': '3.0.19-1~deb12u2', 'source': 'openssl'}" in out
    assert "{'package': 'zlib1g', 'version': '1:1.2.13.dfsg-1', 'source': 'zlib'}" in out
    assert "'alsa-topology-conf'" not in out and len(out) < len(text) / 3
    proc = cli("--basis", "Which versions of the OpenSSL and zlib runtime libraries are installed here?", input=data)
    assert json.loads(proc.stdout)["result"]["content"][0]["text"].startswith("【toolprune:")
    assert restore(json.loads(proc.stdout)["result"]["content"][0]["text"].encode()) == text.encode()


@pytest.mark.parametrize(
    "text",
    [
        "[{'a': 1}, 5]",  # an element that is no record
        "[{'a': 1}, {'b': 2}] and more",  # text after the list
        "[{'a': 1}]",  # one record: nothing to choose from
        "[{'a': 1}, {'b': 2}",  # never closed
        "[{'a': 1}, x {'b': 2}]",  # something between two records
        "[{'a': '}]'}, {'b': 2}",  # a bracket in a string closes nothing
    ],
)
def test_a_text_that_only_begins_like_a_list_of_records_is_read_as_text(text):
    from toolprune.core.shapes.textunits import split_records

    assert split_records(text + " " * 5) is None


_SCALARS = st.one_of(st.integers(), st.text(max_size=12), st.none(), st.booleans(), st.floats(allow_nan=False, allow_infinity=False))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(
    st.dictionaries(st.text(max_size=8), st.one_of(_SCALARS, st.lists(_SCALARS, max_size=3)), max_size=4),
    st.tuples(_SCALARS, _SCALARS),
), min_size=2, max_size=12), st.booleans())
@example([{"a": 'it\'s "x" }]'}, {"b": "\\"}], False)  # an escaped quote, a backslash before the closing one
def test_every_element_of_a_printed_list_of_records_is_one_unit(rows, pretty):
    """Whatever the strings hold (quotes, brackets, backslashes), the units are exactly the
    elements as Python prints them, in order (``str()`` and ``pprint``)."""
    import pprint

    from toolprune.core.shapes.textunits import split_records

    text = pprint.pformat(rows, width=40) if pretty else str(rows)
    found = split_records(text)
    assert found is not None
    units = [text[u.start : u.end] for u in found.units]
    if not pretty:
        assert units == [repr(row) for row in rows]
    assert [eval(unit) for unit in units] == rows  # noqa: S307 - the test's own repr output


CURL_CHANGELOG = ROOT / "bench" / "realout" / "cases" / "ja-mcp-en-commands-curl-changelog-netrc-cve" / "input.bin"


def test_a_debian_changelog_entry_travels_with_its_heading():
    """A Debian changelog (here curl's, as an MCP server's ``cat`` returned it; batch 34 of the
    real-output set) was read as Markdown: an entry's `` -- maintainer`` line was merged with the
    next entry's ``curl (…) bookworm; urgency=medium`` line, so a kept CVE fix lost the version
    that made it. Each entry (heading, items, trailer) is now one unit when it fits."""
    text = json.loads(CURL_CHANGELOG.read_bytes())["result"]["content"][0]["text"]
    assert kind(text) == "changelog"
    assert kind(text.replace("urgency=", "urgency ")) != "changelog"
    result, out = pruned(text, "Which curl package revisions fixed the .netrc redirect password leak CVEs?")
    assert result.stats.split == "changelog" and result.outcome == "ok"
    for version in ("7.88.1-10+deb12u11", "7.88.1-10+deb12u10"):
        entry = text.index(f"curl ({version}) bookworm; urgency=medium")
        unit = next(u for u in result.units if u.start == entry)
        assert text[unit.start : unit.end].rstrip().split("\n")[-1].startswith(" -- ")  # heading to trailer
    assert "curl (7.88.1-10+deb12u11) bookworm; urgency=medium" in out and "CVE-2025-0167" in out
    assert "curl (7.88.1-10+deb12u10) bookworm; urgency=medium" in out and "CVE-2024-11053" in out


def test_a_byte_order_mark_before_a_log_asked_for_its_first_commit():
    """A ``git show`` saved with a byte order mark, asked which commit came first: the kind is
    decided without the mark, so the first commit is found with it too (an audit found an
    IndexError there, the input passed through)."""
    one = "\ufeff" + gitlog(3).split("\ncommit ")[0] + "\n" + "\n".join(f"    {prose(k, 2)}" for k in range(60))
    result = plan(one.encode(), Options(basis="Which commit first added the notes on violin makers?"), LexicalScorer())
    assert result.stats.split == "gitlog" and set(result.oldest) == {0}
    many = "\ufeff" + gitlog(3)  # its dates go up: the first commit is the oldest
    result = plan(many.encode(), Options(basis="Which commit first added the notes on violin makers?"), LexicalScorer())
    assert result.stats.split == "gitlog" and result.oldest == [0]


def test_a_caption_above_a_plain_unified_diff_keeps_its_hunks_apart():
    """``Unstaged changes:`` above a ``diff -u`` (no ``diff --git`` lines): each file starts at
    its ``---``/``+++`` pair, so its hunks are units of their own under the caption, not pieces
    of 2,000 chars."""
    from toolprune.core.shapes.textunits import split_patches

    hunks = [f"@@ -{10 * k},3 +{10 * k},3 @@\n {prose(k, 1)}\n-    value_{k} = old\n+    value_{k} = new\n {prose(k + 1, 1)}"
             for k in range(1, 30)]  # fmt: skip
    patch = "--- a/pkg/conf.py\n+++ b/pkg/conf.py\n" + "\n".join(hunks) + "\n"
    text = "Unstaged changes:\n" + patch
    assert kind(text) == "diff"
    structure = split_patches(text)
    units = [text[u.start : u.end] for u in structure.units]
    assert units[0] == "Unstaged changes:" and sum(u.startswith("@@ ") for u in units) == len(hunks)
    assert structure.heads[1] == 0  # the file's header under the caption
    result, out = pruned(text, "where is value_17 changed?")
    assert result.outcome == "ok" and "-    value_17 = old" in out and "-    value_3 = old" not in out


def test_commit_and_author_lines_atop_a_build_log_are_no_git_log():
    """The MCP git server's entries have a ``Message:`` line; a CI log that prints the commit it
    builds (``Commit:``, ``Author:``) at its top is still a log."""
    head = f"Commit: {5:040x}\nAuthor: Dev 5\nBranch: main\nTrigger: push\n"
    body = "".join(f"2026-12-01 10:00:{k % 60:02d} step {k} ran the {FILLER[k % 6]}\n" for k in range(120))
    assert kind(head + body) != "gitlog"
    assert kind(mcp_git_log(2)) == "gitlog"


def test_a_list_of_records_too_large_to_scan_is_read_as_text(monkeypatch):
    from toolprune.core.shapes import textunits

    text = str([{"n": k} for k in range(50)])
    assert textunits.split_records(text) is not None
    monkeypatch.setattr(textunits, "RECORDS_MAX", 49)
    assert textunits.split_records(text) is None
    monkeypatch.setattr(textunits, "RECORDS_MAX", 50)
    monkeypatch.setattr(textunits, "RECORDS_MAX_CHARS", len(text) - 1)
    assert textunits.split_records(text) is None


def test_a_debian_changelog_with_a_long_first_entry_is_still_one():
    entry = "linux ({v}) bookworm; urgency=medium\n\n" + "".join(f"  * {prose(k, 1)}\n" for k in range(300)) + \
        "\n -- Maintainer <m@example.invalid>  Mon, 01 Dec 2026 10:00:00 +0000\n\n"
    text = entry.format(v="6.1.2-1") + entry.format(v="6.1.1-1")
    assert text.index("6.1.1-1") > 20_000 and kind(text) == "changelog"


def test_a_weak_option_between_dropped_ones_in_a_man_page_is_no_island():
    """In a man page a short kept stretch between two dropped runs is an option entry, the whole
    of its answer (git-format-patch's ``-o <dir>``, unshare's ``-n, --net`` were dropped as
    islands in blind batches): it stays. The same stretch in a Markdown page is still an island."""
    def page(man: bool) -> str:
        parts = (["TOOL(1)                 General Commands Manual                TOOL(1)", "NAME\n       tool - move files",
                  "OPTIONS"] if man else ["# tool", "## Options"])  # fmt: skip
        for k in range(40):
            score = 0.9 if k in (3, 20) else 0.25 if k == 11 else 0.02
            if man:
                parts.append(f"       --option{k}=VALUE\n              [s={score}] {prose(k, 2)[:110]}")
            else:
                parts.append(f"[s={score}] {prose(k, 2)[:130]}")
        return "\n\n".join(parts) + "\n"

    result, out = tagged(page(man=True))
    assert result.outcome == "ok" and result.stats.split == "man" and not result.islands
    assert "--option11=VALUE\n              [s=0.25]" in out and "--option12=VALUE" not in out
    result, out = tagged(page(man=False))
    assert result.outcome == "ok" and result.stats.split == "markdown" and result.islands
    assert "[s=0.25]" not in out


def test_the_first_commit_rule_never_runs_out_of_commits(monkeypatch):
    """Should no unit be recognised as a commit's start, the units without a head are the
    candidates, as before the caption rule: the rule keeps an end of the log, never raises."""
    from toolprune.core.shapes import textunits

    monkeypatch.setattr(textunits, "opens_commit", lambda text, start: False)
    result = plan(gitlog(3).encode(), Options(basis="Which commit first added the notes on violin makers?"), LexicalScorer())
    assert result.stats.split == "gitlog" and result.oldest == [0]
